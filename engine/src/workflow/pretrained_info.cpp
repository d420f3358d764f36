// inspectPretrained: what a Hugging Face model folder holds, checked without
// reading weights.
#include "workflow/pretrained_info.h"

#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/encoder_config.h"
#include "hf/encoder_layout.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "hf/safetensors_file.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>
#include <headroom/tokenizer.h>

#include <map>
#include <set>

namespace headroom {

namespace {

void describeWeights(const std::map<std::string, hf::LocatedTensor> &located,
                     PretrainedInfo &info) {
    std::set<std::string> dtypes;
    for (const auto &[name, tensor] : located) {
        dtypes.insert(tensor.record.dtype);
        info.weight_bytes += tensor.record.end - tensor.record.begin;
    }
    for (const std::string &dtype : dtypes) {
        info.dtype += (info.dtype.empty() ? "" : ", ") + dtype;
    }
}

HfTokenizer loadTokenizerOf(const hf::ModelFolder &folder, std::int64_t vocab_size) {
    if (!folder.has_tokenizer) {
        throw InputError(folder.folder +
                         ": no tokenizer (tokenizer.json, vocab.json + merges.txt, "
                         "vocab.txt or tokenizer.model); "
                         "a pretrained model needs the tokenizer it was trained with");
    }
    try {
        HfTokenizer tokenizer = HfTokenizer::load(folder.folder);
        if (tokenizer.vocabSize() > vocab_size) {
            throw InputError(folder.folder + ": the tokenizer has " +
                             std::to_string(tokenizer.vocabSize()) + " tokens, more than the " +
                             std::to_string(vocab_size) +
                             " rows of the model's embedding "
                             "(config.json vocab_size)");
        }
        return tokenizer;
    } catch (const TokenizerError &error) {
        throw InputError(error.what());
    }
}

PretrainedInfo inspectEncoder(const hf::ModelFolder &folder,
                              const std::vector<hf::SafetensorsFile> &files) {
    const hf::EncoderConfig config = hf::readEncoderConfig(folder.config_path);
    PretrainedInfo info;
    info.encoder = true;
    info.folder = folder.folder;
    info.architecture = config.architecture;
    info.model_type = config.model_type;
    info.parameters = hf::parameterCount(config);
    info.layers = config.layers;
    info.dim = config.hidden_size;
    info.heads = config.heads;
    info.kv_heads = config.heads;
    info.vocab_size = config.vocab_size;
    info.context = config.max_positions;
    info.tied_embeddings = config.tie_word_embeddings;
    info.weight_files = static_cast<std::int64_t>(files.size());
    describeWeights(hf::validateEncoderCheckpoint(folder, config, files), info);
    const HfTokenizer tokenizer = loadTokenizerOf(folder, config.vocab_size);
    info.tokenizer = tokenizer.source() + ", vocabulary " + std::to_string(tokenizer.vocabSize());
    return info;
}

} // namespace

PretrainedInfo inspectPretrained(const std::string &folder_path) {
    return workflow::inspectPretrained(hf::locateModelFolder(folder_path));
}

PretrainedInfo workflow::inspectPretrained(const hf::ModelFolder &folder) {
    std::vector<hf::SafetensorsFile> files;
    for (const std::string &path : folder.weight_files) {
        files.push_back(hf::SafetensorsFile::open(path));
    }
    if (hf::isEncoderArchitecture(folder.config_path)) {
        return inspectEncoder(folder, files);
    }
    const hf::ArchitectureConfig config = hf::readArchitectureConfig(folder.config_path);
    const auto located = hf::validateCheckpoint(folder, config, files);

    PretrainedInfo info;
    info.folder = folder.folder;
    info.architecture = config.architecture;
    info.model_type = config.model_type;
    info.parameters = hf::parameterCount(config);
    info.layers = config.layers;
    info.dim = config.hidden_size;
    info.heads = config.heads;
    info.kv_heads = config.kv_heads;
    info.experts = config.experts;
    info.experts_per_token = config.experts_per_token;
    info.vocab_size = config.vocab_size;
    info.context = config.max_positions;
    info.tied_embeddings = config.tie_word_embeddings;
    info.weight_files = static_cast<std::int64_t>(files.size());
    describeWeights(located, info);
    const HfTokenizer tokenizer = loadTokenizerOf(folder, config.vocab_size);
    info.tokenizer = tokenizer.source() + ", vocabulary " + std::to_string(tokenizer.vocabSize());
    const hf::GenerationDefaults defaults = hf::readGenerationDefaults(folder, config);
    for (const std::int64_t id : defaults.eos_token_ids) {
        const auto token = tokenizer.idToToken(static_cast<std::int32_t>(id));
        info.eos_tokens.push_back(token ? *token : "#" + std::to_string(id));
    }
    return info;
}

} // namespace headroom
