// A Hugging Face BertForMaskedLM / DistilBertForMaskedLM folder turned into a
// models::BertEncoder (options from config.json, weights converted to float32 from the
// memory-mapped safetensors files), and such an encoder written back in the same layout.
#pragma once

#include "export/sharded_safetensors.h"
#include "hf/encoder_config.h"
#include "hf/model_folder.h"
#include "models/bert_encoder.h"

#include <cstdint>
#include <string>

namespace headroom::hf {

models::BertEncoderOptions bertEncoderOptions(const EncoderConfig &config);

// Validates the folder's weights against the config (names, shapes, dtypes: before anything
// is converted) and copies each into the encoder's parameter of the same name as float32. A
// tensor holding NaN or infinity is refused with its name and file. Throws ModelFolderError.
void loadEncoderWeights(models::BertEncoderImpl &encoder, const ModelFolder &folder,
                        const EncoderConfig &config);

// Everything above for a located folder: read config.json, build, load. The encoder is in
// training mode, as a freshly built module is; call eval() for inference.
models::BertEncoder loadPretrainedEncoder(const ModelFolder &folder);

// Writes out_folder (created; it must be new or empty) as save_pretrained would for the
// config's architecture: config.json (the source's, with the sizes of `config` and torch_dtype
// float32), model.safetensors or shards of at most max_shard_bytes
// (exporting::writeModelWeights; F32, the tied decoder weight left out)
// and the tokenizer files of the source (tokenizer.json, vocab.txt, tokenizer_config.json,
// special_tokens_map.json) that exist. Throws InputError (ModelFolderError for the source).
exporting::WrittenWeights exportEncoder(const models::BertEncoder &encoder,
                                        const EncoderConfig &config, const ModelFolder &source,
                                        const std::string &out_folder,
                                        std::uint64_t max_shard_bytes);

} // namespace headroom::hf
