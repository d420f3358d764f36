// The tensors a BertForMaskedLM / DistilBertForMaskedLM checkpoint holds, under the names and in
// the shapes transformers saves them, and the check of a folder's safetensors files against
// that list. Torch-free.
#pragma once

#include "hf/checkpoint_layout.h"
#include "hf/encoder_config.h"
#include "hf/model_folder.h"
#include "hf/safetensors_file.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

// "bert." or "distilbert.": the prefix of the encoder body's tensors (the MLM head has none).
std::string encoderBodyPrefix(const EncoderConfig &config);

// In model order: embeddings, the layers, the MLM head. Canonical names are those of the
// *ForMaskedLM model as save_pretrained writes them: the tied decoder weight
// (cls.predictions.decoder.weight, vocab_projector.weight) only when tie_word_embeddings is
// false, the decoder bias as cls.predictions.bias / vocab_projector.bias.
std::vector<ExpectedTensor> expectedEncoderTensors(const EncoderConfig &config);
// Parameters of BertForMaskedLM / DistilBertForMaskedLM (tied weights counted once, no pooler or
// next-sentence head).
std::int64_t parameterCount(const EncoderConfig &config);

// The canonical name of a stored tensor, or std::nullopt for one to ignore: the pooler, the
// next-sentence head (cls.seq_relationship), position_ids buffers, and in a tied model a
// stored decoder weight (validateEncoderCheckpoint checks its shape). Body tensors saved
// without the "bert." / "distilbert." prefix get it; the old LayerNorm names gamma and beta
// become weight and bias; cls.predictions.decoder.bias is cls.predictions.bias.
std::optional<std::string> canonicalEncoderTensorName(const EncoderConfig &config,
                                                      const std::string &stored_name);

// Checks the files against the config before anything is allocated: every expected tensor
// stored once (cls.predictions.bias and its alias decoder.bias may both be there: the first
// wins), in the expected shape and as F32, F16 or BF16; no tensor the model does not have;
// each in the file the shard index names. Throws ModelFolderError naming the file, the tensor,
// its shape and the shape config.json needs. The result is keyed by canonical name and holds
// exactly the expected tensors.
std::map<std::string, LocatedTensor>
validateEncoderCheckpoint(const ModelFolder &folder, const EncoderConfig &config,
                          const std::vector<SafetensorsFile> &files);

} // namespace headroom::hf
