// tokenizeWithProject: the tokenizer a GPT project trains with, on a text (headroom-cli
// tokenize --tokenizer PROJECT).
#include "data/data_error.h"
#include "train/prepared_data.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

namespace headroom {

ProjectTokenization tokenizeWithProject(const std::string &project_path, const std::string &text) {
    Project project = Project::openForReading(project_path);
    const Config config = Config::fromJson(project.configJson());
    if (!config.isLanguageModel()) {
        throw InputError(project_path + " is a recipe=" + config.text("recipe") +
                         " project: only language models (gpt, causal_lm) have a tokenizer");
    }
    train::PreparedData prepared;
    try {
        prepared = train::prepareData(config, project, [](const std::string &) {});
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    ProjectTokenization result;
    result.tokenizer = config.text("tokenizer");
    result.ids = prepared.tokenizer->encode(text);
    for (const std::int32_t id : result.ids) {
        result.pieces.push_back(prepared.tokenizer->decode({id}));
    }
    result.text = prepared.tokenizer->decode(result.ids);
    return result;
}

} // namespace headroom
