// The tensors a checkpoint of an ArchitectureConfig holds, under the names and in the shapes
// transformers saves them, and the check of a folder's safetensors files against that list.
#pragma once

#include "hf/architecture_config.h"
#include "hf/model_folder.h"
#include "hf/safetensors_file.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

struct ExpectedTensor {
    std::string name;                // canonical: transformers' name in the *ForCausalLM model
    std::vector<std::int64_t> shape; // as stored: GPT-2's Conv1D weights are [in, out]
};

// In model order: embeddings, the layers, the final norm, lm_head (only when not tied).
std::vector<ExpectedTensor> expectedTensors(const ArchitectureConfig &config);
// Parameters of the model, from the shapes of expectedTensors (tied weights counted once).
std::int64_t parameterCount(const ArchitectureConfig &config);

// The canonical name of a stored tensor, or std::nullopt for one to ignore (GPT-2's causal-mask
// buffers "*.attn.bias" and "*.attn.masked_bias", Llama's "*.rotary_emb.inv_freq"). Names saved
// from the base model (GPT2Model: "h.0.attn.c_attn.weight", LlamaModel: "layers.0...") get the
// prefix ("transformer.", "model."). A tied model's stored "lm_head.weight" keeps its name;
// validateCheckpoint accepts it when it has the embedding's shape.
std::optional<std::string> canonicalTensorName(const ArchitectureConfig &config,
                                               const std::string &stored_name);

struct LocatedTensor {
    std::size_t file = 0; // index into the files given to validateCheckpoint
    TensorRecord record;
};

// Checks the files against the config before anything is allocated: every expected tensor
// stored exactly once across the files, in the expected shape and as F32, F16 or BF16; no
// tensor the model does not have; each in the file the shard index names. Throws
// ModelFolderError naming the file, the tensor, and what the config needs. The result is keyed
// by canonical name and holds exactly the expected tensors.
std::map<std::string, LocatedTensor> validateCheckpoint(const ModelFolder &folder,
                                                        const ArchitectureConfig &config,
                                                        const std::vector<SafetensorsFile> &files);

// Helpers of the checkpoint checks (this file's and encoder_layout.h's).
// "n_embd 768": a config.json key and its value, for messages.
std::string keyValue(const std::string &key, std::int64_t value);
// The absolute, lexically normal form of a path (as given when it cannot be made absolute).
std::string normalPath(const std::string &path);
// Whether a safetensors dtype is one of the floating-point ones a checkpoint may hold.
bool floatingDtype(const std::string &dtype);

} // namespace headroom::hf
