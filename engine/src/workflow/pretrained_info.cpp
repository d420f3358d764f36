// inspectPretrained: what a Hugging Face model folder holds, checked without
// reading weights.
#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "hf/safetensors_file.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>
#include <headroom/tokenizer.h>

#include <set>

namespace headroom {

PretrainedInfo inspectPretrained(const std::string &folder_path) {
    const hf::ModelFolder folder = hf::locateModelFolder(folder_path);
    const hf::ArchitectureConfig config = hf::readArchitectureConfig(folder.config_path);
    std::vector<hf::SafetensorsFile> files;
    for (const std::string &path : folder.weight_files) {
        files.push_back(hf::SafetensorsFile::open(path));
    }
    const auto located = hf::validateCheckpoint(folder, config, files);

    PretrainedInfo info;
    info.folder = folder.folder;
    info.architecture = config.architecture;
    info.model_type = config.model_type;
    info.parameters = config.parameterCount();
    info.layers = config.layers;
    info.dim = config.hidden_size;
    info.heads = config.heads;
    info.kv_heads = config.kv_heads;
    info.vocab_size = config.vocab_size;
    info.context = config.max_positions;
    info.tied_embeddings = config.tie_word_embeddings;
    info.weight_files = static_cast<std::int64_t>(files.size());
    std::set<std::string> dtypes;
    for (const auto &[name, tensor] : located) {
        dtypes.insert(tensor.record.dtype);
        info.weight_bytes += tensor.record.end - tensor.record.begin;
    }
    for (const std::string &dtype : dtypes) {
        info.dtype += (info.dtype.empty() ? "" : ", ") + dtype;
    }
    if (!folder.has_tokenizer) {
        throw InputError(folder.folder +
                         ": no tokenizer (tokenizer.json, vocab.json + merges.txt, "
                         "vocab.txt or tokenizer.model); "
                         "a pretrained model needs the tokenizer it was trained with");
    }
    try {
        const HfTokenizer tokenizer = HfTokenizer::load(folder.folder);
        if (tokenizer.vocabSize() > config.vocab_size) {
            throw InputError(folder.folder + ": the tokenizer has " +
                             std::to_string(tokenizer.vocabSize()) + " tokens, more than the " +
                             std::to_string(config.vocab_size) +
                             " rows of the model's embedding "
                             "(config.json vocab_size)");
        }
        info.tokenizer =
            tokenizer.source() + ", vocabulary " + std::to_string(tokenizer.vocabSize());
        const hf::GenerationDefaults defaults = hf::readGenerationDefaults(folder, config);
        for (const std::int64_t id : defaults.eos_token_ids) {
            const auto token = tokenizer.idToToken(static_cast<std::int32_t>(id));
            info.eos_tokens.push_back(token ? *token : "#" + std::to_string(id));
        }
    } catch (const TokenizerError &error) {
        throw InputError(error.what());
    }
    return info;
}

} // namespace headroom
