#include "hf/pretrained_model.h"

#include "hf/checkpoint_layout.h"
#include "hf/hf_error.h"
#include "hf/safetensors_file.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <cstdint>

namespace headroom::hf {

namespace {

torch::ScalarType scalarType(const std::string &dtype) {
  if (dtype == "F32") {
    return torch::kFloat;
  }
  if (dtype == "F16") {
    return torch::kHalf;
  }
  return torch::kBFloat16; // validateCheckpoint admits only these three
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The converted tensor is in the model now: hand the file's pages back so the
// mapping does not keep a second copy of the model resident.
void releasePages(const std::uint8_t *data, std::uint64_t bytes) {
#if defined(__unix__) || defined(__APPLE__)
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(data) + bytes;
  if (end > begin) {
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

} // namespace

models::CausalLmOptions causalLmOptions(const ArchitectureConfig &config) {
  models::CausalLmOptions options;
  options.family = config.family == ModelFamily::Gpt2 ? models::LmFamily::Gpt2
                                                      : models::LmFamily::Llama;
  options.vocab_size = config.vocab_size;
  options.dim = config.hidden_size;
  options.layers = config.layers;
  options.heads = config.heads;
  options.kv_heads = config.kv_heads;
  options.head_dim = config.head_dim;
  options.hidden = config.intermediate_size;
  options.max_positions = config.max_positions;
  options.norm_eps = config.norm_eps;
  options.rope.theta = config.rope_theta;
  options.rope.scaling = config.rope_scaling.type;
  options.rope.factor = config.rope_scaling.factor;
  options.rope.low_freq_factor = config.rope_scaling.low_freq_factor;
  options.rope.high_freq_factor = config.rope_scaling.high_freq_factor;
  options.rope.original_max_positions =
      config.rope_scaling.original_max_positions;
  options.qkv_bias = config.qkv_bias;
  options.o_bias = config.o_bias;
  options.mlp_bias = config.mlp_bias;
  options.tie_embeddings = config.tie_word_embeddings;
  options.embedding_dropout = config.embedding_dropout;
  options.residual_dropout = config.residual_dropout;
  options.attention_dropout = config.attention_dropout;
  return options;
}

bool storedTransposed(const ArchitectureConfig &config,
                      const std::string &name) {
  return config.family == ModelFamily::Gpt2 &&
         name.rfind("transformer.h.", 0) == 0 && endsWith(name, ".weight") &&
         name.find("ln_") == std::string::npos;
}

void loadPretrainedWeights(models::CausalLmImpl &model,
                           const ModelFolder &folder,
                           const ArchitectureConfig &config,
                           const LoadProgress &progress) {
  std::vector<SafetensorsFile> files;
  files.reserve(folder.weight_files.size());
  for (const std::string &path : folder.weight_files) {
    files.push_back(SafetensorsFile::open(path));
  }
  const std::map<std::string, LocatedTensor> located =
      validateCheckpoint(folder, config, files);
  auto parameters = model.named_parameters();
  const std::size_t total = parameters.size();
  std::size_t done = 0;
  torch::NoGradGuard no_grad;
  for (auto &item : parameters) {
    const std::string &name = item.key();
    const auto found = located.find(name);
    if (found == located.end()) {
      throw ModelFolderError(folder.folder + ": the weights have no tensor " +
                             name);
    }
    const SafetensorsFile &file = files[found->second.file];
    const TensorRecord &record = found->second.record;
    torch::Tensor &parameter = item.value();
    const std::uint8_t *bytes = file.data(record);
    // from_blob does not copy; the mapping is read-only and nothing writes
    // through it.
    torch::Tensor stored = torch::from_blob(
        const_cast<std::uint8_t *>(bytes), record.shape,
        torch::TensorOptions().dtype(scalarType(record.dtype)));
    if (storedTransposed(config, name)) {
      stored = stored.t();
    }
    if (stored.sizes() != parameter.sizes()) {
      throw ModelFolderError(file.path() + ": tensor " + record.name +
                             " has shape " + c10::str(record.shape) +
                             ", the model needs " +
                             c10::str(parameter.sizes()));
    }
    parameter.copy_(stored);
    releasePages(bytes, record.end - record.begin);
    if (!torch::isfinite(parameter).all().item<bool>()) {
      throw ModelFolderError(file.path() + ": tensor " + record.name +
                             " holds NaN or infinite values");
    }
    if (progress) {
      progress(++done, total);
    }
  }
}

models::CausalLm loadPretrainedModel(const std::string &folder_path,
                                     const LoadProgress &progress) {
  const ModelFolder folder = locateModelFolder(folder_path);
  const ArchitectureConfig config = readArchitectureConfig(folder.config_path);
  models::CausalLm model(causalLmOptions(config));
  loadPretrainedWeights(*model, folder, config, progress);
  return model;
}

} // namespace headroom::hf
