#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace headroom::chat {
struct ChatData;
}

namespace headroom::data {

enum class Format { Text, Jsonl, Json, Csv }; // Json: one array of objects
enum class Split { Train, Validation };

// Everything the data layer needs, filled from the Config by the trainer.
struct DataSpec {
    std::string path;
    Format format = Format::Text;
    std::string text_field = "text";    // JSONL field / CSV column holding text (gpt recipe)
    std::string target;                 // CSV target column (tabular); empty = last column
    std::string task = "auto";          // tabular: auto | classification | regression
    std::int64_t shuffle_buffer = 1024; // examples held for shuffling; 1 = stream order
    std::int64_t max_examples =
        0; // 0 = all; caps the records read from the file (before the split)
    double validation_fraction = 0.1;
    std::int64_t seq_len = 64;    // gpt: tokens per example (the window holds seq_len + 1)
    std::int64_t stride = 0;      // gpt: step between windows; 0 = seq_len
    std::uint64_t seed = 1234;    // shuffle order
    std::uint64_t split_seed = 0; // which examples are validation; fixed per project
    // splade: records are query/passage sets ("query", "positive" or "positives", optional
    // "negatives"); seq_len is the most tokens of one text, specials included.
    bool retrieval = false;
    // Hard negatives per training example, taken in turn from the record's "negatives" (a
    // different window each epoch).
    std::int64_t hard_negatives = 1;
    // Preference pairs (train.objective dpo, ipo, simpo, orpo): every record holds "prompt",
    // "chosen" and "rejected"; each becomes one example with its rejected sequence.
    bool preference = false;
    // Unpaired preference records (train.objective kto): every record holds "prompt",
    // "completion" and a boolean "label" (desirable or not), in Example::target (1 or 0).
    bool unpaired = false;
    // Prompts of online RL (train.objective grpo): every record holds a "prompt" (a string or a
    // list of messages) or "messages"; its other fields go to the rewards with it.
    bool prompts = false;
    // Preference pairs and prompts: the most prompt tokens kept (its end); 0 = no limit.
    std::int64_t max_prompt_len = 0;
    // Chat data (data.format=chat, or JSONL whose first record is a conversation): every record
    // must be a conversation.
    bool chat = false;
    // gpt: records become documents placed whole into windows (data/document_packer.h), each
    // seeing only itself, instead of one stream (text) or one padded window per record.
    bool packing = false;
    // How conversations become training text: the template and which turns are learned. Set by
    // the trainer for chat data; a conversation without it is refused.
    std::shared_ptr<const chat::ChatData> chat_data;
};

// Format from the file name: .jsonl/.ndjson -> Jsonl, .json -> Json, .csv -> Csv, anything else
// -> Text.
Format guessFormat(const std::string &path);
Format
parseFormat(const std::string &text); // "text" | "jsonl" | "json" | "csv"; throws invalid_argument
std::string toString(Format format);

} // namespace headroom::data
