// What a model folder says about generating text: the special token ids and sampling settings
// of generation_config.json (over config.json's ids), and the special token strings and chat
// template of the tokenizer's files. Torch-free.
#pragma once

#include "chat/chat_template.h"
#include "hf/architecture_config.h"
#include "hf/model_folder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

struct GenerationDefaults {
    std::vector<std::int64_t> eos_token_ids;
    std::optional<std::int64_t> bos_token_id, pad_token_id;
    std::optional<double> temperature, top_p;
    std::optional<std::int64_t> top_k;
    std::optional<bool> do_sample;
    std::optional<std::string> bos_token, eos_token; // tokenizer_config.json
    std::optional<bool> add_bos_token, add_eos_token;
    std::optional<std::string> chat_template;
};

// Starts from config.json's ids (in `config`); generation_config.json's ids and sampling
// settings override them where given; tokenizer_config.json gives the token strings (a string
// or an AddedToken object {"content": ...}) and add_bos/eos_token. The chat template comes from
// chat_template.jinja, else chat_template.json, else tokenizer_config.json (a list of named
// templates gives the one named "default"). Every file is optional; a malformed one throws
// ModelFolderError naming the file and the key.
GenerationDefaults readGenerationDefaults(const ModelFolder &folder,
                                          const ArchitectureConfig &config);

// The chat template of a model or tokenizer folder (chat_template.jinja, chat_template.json or
// tokenizer_config.json, as readGenerationDefaults finds it) with the special token strings of
// its tokenizer_config.json (bos_token, eos_token, unk_token, pad_token, ...); nullopt when the
// folder has no template. Throws ModelFolderError for a malformed file.
std::optional<chat::TemplateSource> readChatTemplate(const std::string &folder);

// The special token strings of a folder's tokenizer_config.json (an empty object without one).
nlohmann::ordered_json readSpecialTokenStrings(const std::string &folder);

// A template file named by data.chat_template: a .jinja file, or a JSON file holding
// "chat_template" (tokenizer_config.json, chat_template.json). Throws ModelFolderError.
chat::TemplateSource readChatTemplateFile(const std::string &path);

} // namespace headroom::hf
