#pragma once

#include "data/data_spec.h"
#include "data/json_array_scanner.h"
#include "data/line_reader.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace headroom::chat {
struct Conversation;
}

namespace headroom::data {

// One record of a data file, in file order.
struct Record {
    std::int64_t ordinal = 0; // 0-based among the records of the file
    std::int64_t line = 0;    // line the record starts on
    std::string text;         // the text (text line, JSONL field, CSV text column) when wanted
    // JSONL instruction data: a record with "prompt" and "completion" (and no text field) has
    // the completion in `text` and the prompt here.
    bool instruction = false;
    std::string prompt;
    // JSONL preference data (spec.preference): the chosen completion is in `text`, the prompt in
    // `prompt`, the rejected completion here.
    bool pair = false;
    std::string rejected;
    // JSONL unpaired preference data (spec.unpaired): a prompt/completion record's "label", 1
    // desirable, 0 not.
    int label = -1;
    // A prompt of online RL (spec.prompts): its text in `prompt`, or its messages (a "prompt"
    // list or "messages") in `conversation`, to be rendered with the generation prompt; `json`
    // the whole record.
    bool prompt_only = false;
    std::string json;
    // A conversational pair (lists of messages): the prompt's messages with the chosen reply,
    // and with the rejected one, rendered through the chat template in training; `prompt`,
    // `text` and `rejected` then hold their plain texts (for previews and statistics).
    std::shared_ptr<const chat::Conversation> chosen_conversation;
    std::shared_ptr<const chat::Conversation> rejected_conversation;
    // JSONL/JSON chat data: a record with "messages" or "conversations" (text stays empty).
    std::shared_ptr<const chat::Conversation> conversation;
    std::vector<std::string> fields; // CSV: all fields of the row
    // spec.retrieval: "query", "positive" (or "positives") and "negatives" (optional).
    std::string query;
    std::vector<std::string> positives;
    std::vector<std::string> negatives;
};

// Where a RecordReader stands: enough to continue exactly there.
struct RecordPosition {
    std::uint64_t offset = 0;
    std::int64_t line = 0;
    std::int64_t ordinal = 0;
};

// Reads the records of a text, JSONL or CSV file one at a time, validating each (UTF-8, JSON
// syntax, text field, CSV field count) and honouring spec.max_examples.
class RecordReader {
public:
    // `want_text`: fill Record::text. For JSONL and JSON that requires the string field
    // spec.text_field in every record, or the string fields "prompt" and "completion", or a
    // conversation (required in every record with spec.chat; or, with spec.retrieval, the
    // retrieval fields); for CSV it requires the column spec.text_field. CSV
    // rows always fill Record::fields. Reads the CSV header at once.
    RecordReader(const DataSpec &spec, bool want_text);

    bool next(Record &record);

    // CSV: the header. JSONL: the keys of the first record read so far (empty before).
    const std::vector<std::string> &columns() const { return columns_; }
    // Index of a CSV column; throws DataError naming the available columns when it is missing.
    std::size_t columnIndex(const std::string &name, const std::string &role) const;

    RecordPosition position() const;
    void seek(const RecordPosition &position);
    void rewind() { seek(start_); }

    const std::string &path() const { return lines_.path(); }
    std::uint64_t fileSize() const { return lines_.fileSize(); }

private:
    bool nextText(Record &record);
    bool nextJsonl(Record &record);
    bool nextJsonArray(Record &record);
    // A JSONL line or an array element: parsed, checked, and its fields taken into `record`.
    void readObject(const std::string &text, Record &record);
    void takeTextFields(const nlohmann::ordered_json &object, Record &record) const;
    void takeConversation(const nlohmann::ordered_json &object, Record &record) const;
    void takePreferenceFields(const nlohmann::ordered_json &object, Record &record) const;
    void takeConversationalPair(const nlohmann::ordered_json &object, Record &record) const;
    void takeLabel(const nlohmann::ordered_json &object, Record &record) const;
    void takePromptFields(const nlohmann::ordered_json &object, Record &record) const;
    void takeRetrievalFields(const nlohmann::ordered_json &object, Record &record) const;
    bool nextCsv(Record &record);

    DataSpec spec_;
    bool want_text_;
    LineReader lines_;
    JsonArrayScanner array_;
    std::vector<std::string> columns_;
    std::size_t text_column_ = 0;
    RecordPosition start_;
    std::int64_t ordinal_ = 0;
    std::string line_;
};

// JSONL or JSON data whose first record holds "chosen" and "rejected" (and no spec.text_field):
// preference pairs. False for other formats and for a first record that cannot be read.
bool startsWithPreferencePair(const DataSpec &spec);
// JSONL or JSON data whose first record holds "prompt" without a completion ("completion",
// "chosen", "rejected" or spec.text_field): prompts for online RL (grpo).
bool startsWithPrompts(const DataSpec &spec);
// JSONL or JSON data whose first record holds "prompt", "completion" and "label": unpaired
// preference records (KTO).
bool startsWithUnpairedPreference(const DataSpec &spec);

} // namespace headroom::data
