#include "hf/generation_defaults.h"

#include "hf/hf_error.h"
#include "hf/json_file.h"
#include "util/files.h"

#include <filesystem>
#include <limits>

namespace headroom::hf {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMaxGenerationConfigBytes = 16ULL << 20;
// Tokenizer configs list every added token; some have hundreds of thousands.
constexpr std::uint64_t kMaxTokenizerConfigBytes = 64ULL << 20;
constexpr std::uint64_t kMaxTemplateBytes = 16ULL << 20;

json readObject(const std::string &path, std::uint64_t max_bytes) {
    json root = parseJson(readTextFile(path, max_bytes), path);
    if (!root.is_object()) {
        throw ModelFolderError(path + ": the top level is " + describeJson(root) +
                               ", expected a JSON object");
    }
    return root;
}

std::string vocabularyRange(const ArchitectureConfig &config) {
    return "a token id from 0 to " + std::to_string(config.vocab_size - 1) + " (vocab_size " +
           std::to_string(config.vocab_size) + " in config.json)";
}

void readGenerationConfig(const std::string &path, const ArchitectureConfig &config,
                          GenerationDefaults &defaults) {
    const json root = readObject(path, kMaxGenerationConfigBytes);
    const JsonFields fields(root, path);
    const std::int64_t last = config.vocab_size - 1;
    if (fields.has("bos_token_id")) {
        defaults.bos_token_id = fields.optionalInteger("bos_token_id", 0, last);
    }
    if (fields.has("eos_token_id")) {
        const json &eos = root.at("eos_token_id");
        std::vector<std::int64_t> ids;
        for (const json &item : eos.is_array() ? eos : json::array({eos})) {
            if (!item.is_number_unsigned() ||
                item.get<std::uint64_t>() > static_cast<std::uint64_t>(last)) {
                throw ModelFolderError(fields.name("eos_token_id") +
                                       (eos.is_array() ? " holds " : " is ") + describeJson(item) +
                                       ", expected " + vocabularyRange(config) +
                                       " or a list of them");
            }
            ids.push_back(item.get<std::int64_t>());
        }
        defaults.eos_token_ids = ids;
    }
    if (fields.has("pad_token_id")) {
        const json &pad = root.at("pad_token_id");
        if (!pad.is_number_integer()) {
            fields.fail("pad_token_id", "an integer or null");
        }
        // As in config.json: -1 and other ids outside the vocabulary mean none.
        defaults.pad_token_id = std::nullopt;
        if (pad.is_number_unsigned() &&
            pad.get<std::uint64_t>() <= static_cast<std::uint64_t>(last)) {
            defaults.pad_token_id = pad.get<std::int64_t>();
        }
    }
    defaults.temperature = fields.optionalNumber("temperature", 0.0, 1e6);
    defaults.top_p = fields.optionalNumber("top_p", 0.0, 1.0);
    defaults.top_k = fields.optionalInteger("top_k", 0, std::numeric_limits<std::int32_t>::max());
    defaults.do_sample = fields.optionalBoolean("do_sample");
}

// A special token as tokenizer_config.json writes it: a string, or an AddedToken object.
std::optional<std::string> tokenString(const JsonFields &fields, const std::string &key) {
    if (!fields.has(key)) {
        return std::nullopt;
    }
    const json &value = fields.object().at(key);
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_object() && value.contains("content") && value.at("content").is_string()) {
        return value.at("content").get<std::string>();
    }
    fields.fail(key, "a string or an object with a string \"content\"");
}

std::optional<std::string> chatTemplate(const JsonFields &fields) {
    if (!fields.has("chat_template")) {
        return std::nullopt;
    }
    const json &value = fields.object().at("chat_template");
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_array()) {
        std::optional<std::string> chosen;
        for (const json &item : value) {
            if (!item.is_object() || !item.contains("name") || !item.at("name").is_string() ||
                !item.contains("template") || !item.at("template").is_string()) {
                throw ModelFolderError(fields.name("chat_template") + " holds " +
                                       describeJson(item) +
                                       ", expected objects with a string name and template");
            }
            if (item.at("name") == "default") {
                chosen = item.at("template").get<std::string>();
            }
        }
        return chosen;
    }
    fields.fail("chat_template", "a string or a list of {\"name\", \"template\"} objects");
}

void readTokenizerConfig(const std::string &path, GenerationDefaults &defaults) {
    const json root = readObject(path, kMaxTokenizerConfigBytes);
    const JsonFields fields(root, path);
    defaults.bos_token = tokenString(fields, "bos_token");
    defaults.eos_token = tokenString(fields, "eos_token");
    defaults.add_bos_token = fields.optionalBoolean("add_bos_token");
    defaults.add_eos_token = fields.optionalBoolean("add_eos_token");
    defaults.chat_template = chatTemplate(fields);
}

// transformers 4.43+ saves the template beside the tokenizer config; that file wins.
void readTemplateFiles(const fs::path &folder, GenerationDefaults &defaults) {
    const fs::path jinja = folder / "chat_template.jinja";
    const fs::path json_file = folder / "chat_template.json";
    if (util::isRegularFile(jinja)) {
        defaults.chat_template = readTextFile(jinja.string(), kMaxTemplateBytes);
    } else if (util::isRegularFile(json_file)) {
        const json root = readObject(json_file.string(), kMaxTemplateBytes);
        if (const auto text = chatTemplate(JsonFields(root, json_file.string()))) {
            defaults.chat_template = text;
        }
    }
}

} // namespace

GenerationDefaults readGenerationDefaults(const ModelFolder &folder,
                                          const ArchitectureConfig &config) {
    GenerationDefaults defaults;
    defaults.eos_token_ids = config.eos_token_ids;
    if (!config.bos_token_ids.empty()) {
        defaults.bos_token_id = config.bos_token_ids.front();
    }
    defaults.pad_token_id = config.pad_token_id;
    if (folder.generation_config_path) {
        readGenerationConfig(*folder.generation_config_path, config, defaults);
    }
    if (folder.tokenizer_config_path) {
        readTokenizerConfig(*folder.tokenizer_config_path, defaults);
    }
    if (!folder.folder.empty()) {
        readTemplateFiles(folder.folder, defaults);
    }
    return defaults;
}

nlohmann::ordered_json readSpecialTokenStrings(const std::string &folder) {
    nlohmann::ordered_json tokens = nlohmann::ordered_json::object();
    const fs::path path = fs::path(folder) / "tokenizer_config.json";
    if (!util::isRegularFile(path)) {
        return tokens;
    }
    const json root = readObject(path.string(), kMaxTokenizerConfigBytes);
    const JsonFields fields(root, path.string());
    for (const char *name : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                             "cls_token", "mask_token"}) {
        if (fields.has(name) && root.at(name).is_null()) {
            continue;
        }
        if (const auto text = tokenString(fields, name)) {
            tokens[name] = *text;
        }
    }
    return tokens;
}

std::optional<chat::TemplateSource> readChatTemplate(const std::string &folder) {
    GenerationDefaults found;
    const fs::path config = fs::path(folder) / "tokenizer_config.json";
    if (util::isRegularFile(config)) {
        const json root = readObject(config.string(), kMaxTokenizerConfigBytes);
        found.chat_template = chatTemplate(JsonFields(root, config.string()));
    }
    readTemplateFiles(folder, found);
    if (!found.chat_template) {
        return std::nullopt;
    }
    chat::TemplateSource source;
    source.text = *found.chat_template;
    source.special_tokens = readSpecialTokenStrings(folder);
    source.origin = folder;
    return source;
}

chat::TemplateSource readChatTemplateFile(const std::string &path) {
    if (!util::isRegularFile(path)) {
        throw ModelFolderError(path + ": no such file (data.chat_template names a .jinja file, a "
                                      "tokenizer_config.json or chat_template.json, or chatml)");
    }
    chat::TemplateSource source;
    source.origin = path;
    if (fs::path(path).extension() == ".json") {
        const json root = readObject(path, kMaxTokenizerConfigBytes);
        const auto text = chatTemplate(JsonFields(root, path));
        if (!text) {
            throw ModelFolderError(path + " holds no \"chat_template\"");
        }
        source.text = *text;
    } else {
        source.text = readTextFile(path, kMaxTemplateBytes);
    }
    return source;
}

} // namespace headroom::hf
