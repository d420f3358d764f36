#pragma once

// What the config wizard needs before a project exists: a validated look at the data file and
// the shapes the memory estimator works on. No Torch types here.

#include <headroom/config.h>
#include <headroom/plan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct DataPreview {
    std::string format;               // "text" | "jsonl" | "csv"
    std::int64_t records = 0;         // lines, JSONL records or CSV rows
    std::uint64_t bytes = 0;          // size of the file
    std::vector<std::string> columns; // CSV header / JSONL keys of the first record
    std::vector<std::string> preview; // the first records, as the user would read them
    // The records are preference pairs ("prompt", "chosen", "rejected"), for train.objective
    // dpo, ipo, simpo or orpo; they are read as pairs whatever the config's objective.
    bool preference_pairs = false;
    // The records are unpaired preference records ("prompt", "completion", "label": true or
    // false) for train.objective=kto, read as such whatever the config's objective.
    bool unpaired_preference = false;
    // The records are prompts without completions ("prompt", other fields for the rewards),
    // for train.objective=grpo, read as such whatever the config's objective.
    bool prompts = false;
};

// Reads the whole file once (every record is validated) with the data keys of `config`
// (recipe, data.format, data.text_field, data.target). Throws InputError naming the file and
// line: missing file, bad record, or a tabular recipe on a file that is not CSV.
DataPreview previewData(const Config &config, const std::string &data_path, int rows = 5);

// The estimator's model shapes for `config` on this data file: gpt counts the tokenizer's
// vocabulary (the byte tokenizer's is fixed; SentencePiece, not trained yet, counts as
// tokenizer.vocab_size); with model.base, the base's config.json (a relative folder from the
// working directory); tabular infers the schema from the CSV as the trainer does. Throws
// InputError as previewData does.
ModelFacts modelFactsFor(const Config &config, const std::string &data_path);

// modelFactsFor and, for recipe=tabular, the training settings the project takes from its data
// (batch, learning rate, epochs, validation every epoch over the whole split, early stopping,
// shuffling), each with its reason, as `headroom-cli new` applies them to the keys the user did
// not set; from one reading of the file. Throws InputError as previewData does.
struct DataPlan {
    ModelFacts facts;
    std::vector<PlanDecision> defaults; // empty for recipe=gpt
};
DataPlan planForData(const Config &config, const std::string &data_path);

} // namespace headroom
