#pragma once

#include "data/data_spec.h"
#include "data/tabular_schema.h"
#include "hf/model_folder.h"
#include "hf/quantized_base_cache.h"
#include "tokenizers/tokenizer.h"

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace headroom {
class Config;
class Project;
} // namespace headroom

namespace headroom::chat {
struct ChatData;
struct TemplateSource;
} // namespace headroom::chat

namespace headroom::train {

class Recipe;

// The data side of a run: where to read, and the tokenizer or tabular schema it was encoded
// with. Both are stored in the project the first time, so resumes and exports reuse them.
struct PreparedData {
    data::DataSpec spec;
    std::unique_ptr<data::Tokenizer> tokenizer; // gpt
    std::optional<data::TabularSchema> schema;  // tabular
    // model.base, located (its digest set when the project recorded its base); none from scratch.
    std::optional<hf::ModelFolder> base;
    hf::QuantizedBaseCache base_cache; // where an int8/nf4 base is cached
};

// The project's record of its pretrained base (hf::BaseIdentity JSON).
constexpr const char *kBaseModelBlob = "base_model";

// data.path relative to the project file's folder unless absolute.
std::string resolveDataPath(const std::string &data_path, const std::string &project_path);

data::DataSpec dataSpecFromConfig(const Config &config, const std::string &project_path);

// For chat data (data.format=chat, or JSONL/JSON whose first record is a conversation): the
// template (data.chat_template, else model.base's) and data.train_on; null for other data.
// Throws ConfigError when conversations have no template to render them.
std::shared_ptr<const chat::ChatData>
chatDataFor(const Config &config, const PreparedData &prepared, const std::string &project_path);

// The chat template a project renders conversations with: data.chat_template (chatml or a
// file, relative to the project), else model.base's; special token strings from model.base.
// Throws ConfigError when there is none.
chat::TemplateSource chatTemplateSource(const Config &config, const PreparedData &prepared,
                                        const std::string &project_path);

// Where prepareData stores the trained tokenizer and the tabular schema in the project.
std::string tokenizerBlobName(const Config &config);
std::string schemaBlobName(const data::DataSpec &spec);

using ProgressCallback = std::function<void(const std::string &)>;
// With model.base: locates it (unless the caller passes it as `located_base`, the folder the
// config's model.base names), checks it is the one recorded when the project was created
// (hf::ModelFolderError otherwise) and loads its tokenizer. Chat data gets its template
// (chatDataFor).
PreparedData prepareData(const Config &config, Project &project, const ProgressCallback &progress,
                         const hf::ModelFolder *located_base = nullptr);

// The recipe the prepared data calls for: GPT over its tokenizer or an MLP over its schema.
std::unique_ptr<Recipe> makeRecipe(const Config &config, const PreparedData &prepared,
                                   torch::Device device, const ProgressCallback &progress = {});

} // namespace headroom::train
