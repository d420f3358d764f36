// A Hugging Face model folder turned into a models::CausalLm: options from
// config.json, weights converted tensor by tensor from the memory-mapped
// safetensors files.
#pragma once

#include "hf/architecture_config.h"
#include "hf/model_folder.h"
#include "hf/quantized_base_cache.h"
#include "models/causal_lm.h"

#include <functional>
#include <string>

namespace headroom::hf {

models::CausalLmOptions causalLmOptions(const ArchitectureConfig &config);

// Names of GPT-2 weights that the checkpoint stores transposed (Conv1D, [in,
// out]).
bool storedTransposed(const ArchitectureConfig &config, const std::string &name);

// (done tensors, total tensors) after each tensor.
using LoadProgress = std::function<void(std::size_t, std::size_t)>;

// Validates the folder's weights against the config (names, shapes, dtypes:
// before anything is converted) and copies each into the model's parameter of
// the same name, converting from F32/F16/BF16 to the parameter's dtype. A
// tensor holding NaN or infinity is refused with its name and file. With a
// base_format other than fp32, each attention/MLP projection weight is
// converted or quantized into it as soon as it is read
// (CausalLmImpl::storeBaseWeights), so no full-precision copy of the model
// exists. With `cached` (the project's quantized-base cache), the projection
// weights it holds are installed from it and not read from the folder; the
// caller has checked it covers exactly the model's deferred projections.
// Throws ModelFolderError.
void loadPretrainedWeights(models::CausalLmImpl &model, const ModelFolder &folder,
                           const ArchitectureConfig &config, const LoadProgress &progress = {},
                           models::BaseFormat base_format = models::BaseFormat::Fp32,
                           QuantizedWeights *cached = nullptr);

// Everything above for a located folder: read config.json, build, load.
models::CausalLm loadPretrainedModel(const ModelFolder &folder, const LoadProgress &progress = {},
                                     models::BaseFormat base_format = models::BaseFormat::Fp32);

} // namespace headroom::hf
