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

// Where prepareData stores the trained tokenizer and the tabular schema in the project.
std::string tokenizerBlobName(const Config &config);
std::string schemaBlobName(const data::DataSpec &spec);

using ProgressCallback = std::function<void(const std::string &)>;
// With model.base: locates it (unless the caller passes it as `located_base`, the folder the
// config's model.base names), checks it is the one recorded when the project was created
// (hf::ModelFolderError otherwise) and loads its tokenizer.
PreparedData prepareData(const Config &config, Project &project, const ProgressCallback &progress,
                         const hf::ModelFolder *located_base = nullptr);

// The recipe the prepared data calls for: GPT over its tokenizer or an MLP over its schema.
std::unique_ptr<Recipe> makeRecipe(const Config &config, const PreparedData &prepared,
                                   torch::Device device, const ProgressCallback &progress = {});

} // namespace headroom::train
