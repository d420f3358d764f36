#include "data/record_reader.h"

#include "chat/conversation.h"
#include "data/csv_parser.h"
#include "data/data_error.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace headroom::data {
namespace {

bool isWhitespace(const std::string &line) {
    return line.find_first_not_of(" \t\r") == std::string::npos;
}

void stripCarriageReturn(std::string &line) {
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
}

// nlohmann's reasons start with "[json.exception.parse_error.101] parse error at line 1, ";
// keep what helps a person: the column and what was wrong.
std::string shortJsonReason(const std::string &what) {
    std::string reason = what;
    const std::size_t bracket = reason.find("] ");
    if (reason.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) {
        reason.erase(0, bracket + 2);
    }
    const std::string prefix = "parse error at line 1, ";
    if (reason.rfind(prefix, 0) == 0) {
        reason.erase(0, prefix.size());
    }
    return reason;
}

std::vector<std::string> keysOf(const nlohmann::ordered_json &object) {
    std::vector<std::string> keys;
    for (auto it = object.begin(); it != object.end(); ++it) {
        keys.push_back(it.key());
    }
    return keys;
}

std::string joinNames(const std::vector<std::string> &names) {
    std::string joined;
    for (const std::string &name : names) {
        joined += joined.empty() ? "" : ", ";
        joined += name;
    }
    return joined;
}

} // namespace

RecordReader::RecordReader(const DataSpec &spec, bool want_text)
    : spec_(spec), want_text_(want_text), lines_(spec.path), array_(lines_) {
    if (spec_.format == Format::Csv) {
        std::int64_t header_line = 0;
        if (!readCsvRecord(lines_, columns_, header_line)) {
            throw DataError(path(), 0, "the file holds no CSV header row (only blank lines)");
        }
        std::unordered_set<std::string> seen;
        for (const std::string &name : columns_) {
            if (name.size() > kMaxColumnNameBytes) {
                throw DataError(path(), header_line,
                                "the header names a column of " + std::to_string(name.size()) +
                                    " bytes; column names are at most " +
                                    std::to_string(kMaxColumnNameBytes) +
                                    " bytes (is the first "
                                    "row really a header?)");
            }
            if (!seen.insert(name).second) {
                throw DataError(path(), header_line,
                                "the header names the column '" + name + "' twice");
            }
        }
        if (want_text_) {
            text_column_ = columnIndex(spec_.text_field, "text");
        }
    }
    start_ = position();
}

std::size_t RecordReader::columnIndex(const std::string &name, const std::string &role) const {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i] == name) {
            return i;
        }
    }
    throw DataError(path(), 0,
                    "unknown " + role + " column '" + name +
                        "'; the header has: " + joinNames(columns_));
}

bool RecordReader::next(Record &record) {
    if (spec_.max_examples > 0 && ordinal_ >= spec_.max_examples) {
        return false;
    }
    record.text.clear();
    record.fields.clear();
    bool found = false;
    switch (spec_.format) {
    case Format::Text:
        found = nextText(record);
        break;
    case Format::Jsonl:
        found = nextJsonl(record);
        break;
    case Format::Json:
        found = nextJsonArray(record);
        break;
    case Format::Csv:
        found = nextCsv(record);
        break;
    }
    if (found) {
        record.ordinal = ordinal_++;
    }
    return found;
}

bool RecordReader::nextText(Record &record) {
    if (!lines_.readLine(record.text)) {
        return false;
    }
    stripCarriageReturn(record.text);
    record.line = lines_.lineNumber();
    return true;
}

bool RecordReader::nextJsonl(Record &record) {
    do {
        if (!lines_.readLine(line_)) {
            return false;
        }
    } while (isWhitespace(line_));
    record.line = lines_.lineNumber();
    readObject(line_, record);
    return true;
}

bool RecordReader::nextJsonArray(Record &record) {
    if (!array_.next(line_, record.line)) {
        return false;
    }
    readObject(line_, record);
    return true;
}

void RecordReader::readObject(const std::string &text, Record &record) {
    nlohmann::ordered_json object; // keeps the keys in file order for the summary
    const auto limit_depth = [&](int depth, nlohmann::ordered_json::parse_event_t,
                                 nlohmann::ordered_json &) {
        if (depth > kMaxJsonDepth) {
            throw DataError(path(), record.line,
                            "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                " levels (the limit for one record)");
        }
        return true;
    };
    try {
        object = nlohmann::ordered_json::parse(text, limit_depth);
    } catch (const nlohmann::ordered_json::exception &error) {
        // A parse_error, or an out_of_range for a number too large for a double.
        throw DataError(path(), record.line, "malformed JSON: " + shortJsonReason(error.what()));
    }
    if (!object.is_object()) {
        throw DataError(path(), record.line,
                        std::string(spec_.format == Format::Json
                                        ? "expected a JSON object in the array, found a JSON "
                                        : "expected one JSON object per line, found a JSON ") +
                            object.type_name());
    }
    if (columns_.empty()) {
        for (auto it = object.begin(); it != object.end(); ++it) {
            columns_.push_back(it.key());
        }
    }
    if (!want_text_) {
        return;
    }
    if (spec_.retrieval) {
        takeRetrievalFields(object, record);
    } else if (spec_.preference) {
        takePreferenceFields(object, record);
    } else if (spec_.prompts) {
        takePromptFields(object, record);
    } else {
        takeTextFields(object, record);
    }
}

void RecordReader::takeConversation(const nlohmann::ordered_json &object, Record &record) const {
    try {
        record.conversation =
            std::make_shared<const chat::Conversation>(chat::readConversation(object));
    } catch (const chat::ConversationError &error) {
        throw DataError(path(), record.line, error.what());
    }
    record.text.clear();
}

void RecordReader::takeTextFields(const nlohmann::ordered_json &object, Record &record) const {
    record.instruction = false;
    record.conversation.reset();
    if (chat::isConversationRecord(object)) {
        takeConversation(object, record);
        return;
    }
    if (spec_.chat) {
        throw DataError(path(), record.line,
                        "expected a conversation (\"messages\" or ShareGPT \"conversations\"), "
                        "as chat data holds in every record (its fields: " +
                            joinNames(keysOf(object)) + ")");
    }
    const auto field = object.find(spec_.text_field);
    const auto prompt = object.find("prompt");
    const auto completion = object.find("completion");
    if (field == object.end() && object.contains("chosen") && object.contains("rejected")) {
        throw DataError(path(), record.line,
                        "a preference pair (\"chosen\" and \"rejected\"), which supervised "
                        "training cannot use: set train.objective=dpo (or ipo, simpo, orpo)");
    }
    if (field == object.end() && prompt != object.end() && completion != object.end()) {
        for (const auto &[name, value] :
             {std::make_pair("prompt", prompt), std::make_pair("completion", completion)}) {
            if (!value->is_string()) {
                throw DataError(path(), record.line,
                                std::string("the field \"") + name + "\" is a " +
                                    value->type_name() + ", expected a string");
            }
        }
        record.instruction = true;
        record.prompt = prompt->get<std::string>();
        record.text = completion->get<std::string>();
        if (record.text.empty()) {
            throw DataError(path(), record.line,
                            "the completion is empty: nothing to learn from this record");
        }
        takeLabel(object, record);
        return;
    }
    if (field == object.end()) {
        throw DataError(path(), record.line,
                        "the record has no field \"" + spec_.text_field +
                            "\" nor \"prompt\" and \"completion\" (its fields: " +
                            joinNames(keysOf(object)) + ")");
    }
    if (!field->is_string()) {
        throw DataError(path(), record.line,
                        "the field \"" + spec_.text_field + "\" is a " + field->type_name() +
                            ", expected a string");
    }
    record.text = field->get<std::string>();
}

// KTO's "label": required (a boolean) for unpaired preference data; refused elsewhere, where
// supervised training would learn the undesirable completions too.
void RecordReader::takeLabel(const nlohmann::ordered_json &object, Record &record) const {
    const auto label = object.find("label");
    record.label = -1;
    if (!spec_.unpaired) {
        if (label != object.end() && label->is_boolean()) {
            throw DataError(path(), record.line,
                            "a record with a \"label\" (unpaired preference data), which "
                            "supervised training cannot use: set train.objective=kto");
        }
        return;
    }
    if (label == object.end() || !label->is_boolean()) {
        throw DataError(path(), record.line,
                        label == object.end()
                            ? std::string("the record has no \"label\" (true for a desirable "
                                          "completion, false for an undesirable one)")
                            : std::string("the field \"label\" is a ") + label->type_name() +
                                  ", expected true or false");
    }
    record.label = label->get<bool>() ? 1 : 0;
}

void RecordReader::takePreferenceFields(const nlohmann::ordered_json &object,
                                        Record &record) const {
    const auto fail = [&](const std::string &problem) {
        throw DataError(path(), record.line, problem);
    };
    record.chosen_conversation.reset();
    record.rejected_conversation.reset();
    const auto chosen = object.find("chosen");
    if (chosen != object.end() && chosen->is_array()) {
        takeConversationalPair(object, record);
        return;
    }
    std::string values[3];
    const char *const names[3] = {"prompt", "chosen", "rejected"};
    for (int i = 0; i < 3; ++i) {
        const auto field = object.find(names[i]);
        if (field == object.end()) {
            fail(std::string("a preference pair needs the string fields \"prompt\", \"chosen\" "
                             "and \"rejected\"; \"") +
                 names[i] + "\" is missing (its fields: " + joinNames(keysOf(object)) + ")");
        }
        if (!field->is_string()) {
            fail(std::string("the field \"") + names[i] + "\" is a " + field->type_name() +
                 ", expected a string");
        }
        values[i] = field->get<std::string>();
    }
    if (isWhitespace(values[1]) || isWhitespace(values[2])) {
        fail(std::string("the ") + (isWhitespace(values[1]) ? "chosen" : "rejected") +
             " completion is empty: nothing to compare");
    }
    if (values[1] == values[2]) {
        fail("the chosen and rejected completions are identical: the pair teaches nothing");
    }
    record.pair = true;
    record.prompt = std::move(values[0]);
    record.text = std::move(values[1]);
    record.rejected = std::move(values[2]);
}

// A prompt for online RL, as TRL's GRPOTrainer takes them: "prompt" as a string or as a list of
// messages (conversational), or a "messages"/"conversations" record. Every field stays in
// `json` for the rewards.
void RecordReader::takePromptFields(const nlohmann::ordered_json &object, Record &record) const {
    record.prompt_only = true;
    record.conversation.reset();
    record.prompt.clear();
    record.text.clear();
    record.json = object.dump();
    const auto prompt = object.find("prompt");
    if (prompt != object.end() && prompt->is_string()) {
        record.prompt = prompt->get<std::string>();
        if (isWhitespace(record.prompt)) {
            throw DataError(path(), record.line, "the prompt is empty: nothing to complete");
        }
        return;
    }
    nlohmann::ordered_json conversation = object;
    if (prompt != object.end()) {
        if (!prompt->is_array()) {
            throw DataError(path(), record.line,
                            std::string("the field \"prompt\" is a ") + prompt->type_name() +
                                ", expected a string or a list of messages");
        }
        conversation = nlohmann::ordered_json::object();
        conversation["messages"] = *prompt;
        for (const char *key : {"tools", "chat_template_kwargs"}) {
            if (object.contains(key)) {
                conversation[key] = object[key];
            }
        }
    } else if (!chat::isConversationRecord(object)) {
        throw DataError(path(), record.line,
                        "train.objective=grpo needs a \"prompt\" (a string or a list of "
                        "messages) or \"messages\" in every record (its fields: " +
                            joinNames(keysOf(object)) + ")");
    }
    takeConversation(conversation, record);
    record.prompt_only = true;
}

// TRL's conversational preference format: "chosen" and "rejected" lists of messages ending in
// the assistant's reply, after an explicit "prompt" list or (implicit prompt) sharing every
// message before it.
void RecordReader::takeConversationalPair(const nlohmann::ordered_json &object,
                                          Record &record) const {
    const auto fail = [&](const std::string &problem) {
        throw DataError(path(), record.line, problem);
    };
    const auto rejected = object.find("rejected");
    if (rejected == object.end() || !rejected->is_array()) {
        fail("\"chosen\" is a list of messages, so \"rejected\" must be one too");
    }
    nlohmann::ordered_json prompt = nlohmann::ordered_json::array();
    if (const auto given = object.find("prompt"); given != object.end()) {
        if (!given->is_array()) {
            fail("with conversational completions, \"prompt\" must be a list of messages too "
                 "(or left out when \"chosen\" and \"rejected\" hold the whole "
                 "conversations)");
        }
        prompt = *given;
    }
    const auto conversation = [&](const nlohmann::ordered_json &completion, const char *name) {
        if (completion.empty() || !completion.back().is_object() ||
            completion.back().value("role", "") != "assistant") {
            fail(std::string("the ") + name + " conversation must end with an assistant reply");
        }
        nlohmann::ordered_json messages = prompt;
        messages.insert(messages.end(), completion.begin(), completion.end());
        nlohmann::ordered_json source = {{"messages", std::move(messages)}};
        for (const char *extra : {"tools", "chat_template_kwargs"}) {
            if (object.contains(extra)) {
                source[extra] = object.at(extra);
            }
        }
        try {
            return std::make_shared<const chat::Conversation>(chat::readConversation(source));
        } catch (const chat::ConversationError &error) {
            fail(std::string(name) + ": " + error.what());
        }
        return std::shared_ptr<const chat::Conversation>();
    };
    record.chosen_conversation = conversation(*object.find("chosen"), "chosen");
    record.rejected_conversation = conversation(*rejected, "rejected");
    const nlohmann::ordered_json &chosen_messages = record.chosen_conversation->messages;
    const nlohmann::ordered_json &rejected_messages = record.rejected_conversation->messages;
    const nlohmann::ordered_json chosen_before(chosen_messages.begin(), chosen_messages.end() - 1);
    const nlohmann::ordered_json rejected_before(rejected_messages.begin(),
                                                 rejected_messages.end() - 1);
    if (chosen_before != rejected_before) {
        fail("the chosen and rejected conversations must share every message before their last "
             "reply (the prompt)");
    }
    if (chosen_messages.back() == rejected_messages.back()) {
        fail("the chosen and rejected completions are identical: the pair teaches nothing");
    }
    const auto texts = [](const nlohmann::ordered_json &messages) {
        chat::Conversation part;
        part.messages = messages;
        return chat::messageTexts(part);
    };
    record.pair = true;
    record.prompt = texts(chosen_before);
    record.text = texts(nlohmann::ordered_json::array({chosen_messages.back()}));
    record.rejected = texts(nlohmann::ordered_json::array({rejected_messages.back()}));
}

void RecordReader::takeRetrievalFields(const nlohmann::ordered_json &object, Record &record) const {
    const auto fail = [&](const std::string &problem) {
        throw DataError(path(), record.line, problem);
    };
    const auto text = [&](const nlohmann::ordered_json &value, const std::string &where) {
        if (!value.is_string()) {
            fail(where + " is a " + value.type_name() + ", expected a string");
        }
        std::string result = value.get<std::string>();
        if (isWhitespace(result)) {
            fail(where + " is empty");
        }
        return result;
    };
    const auto texts = [&](const nlohmann::ordered_json &value, const std::string &name) {
        std::vector<std::string> result;
        if (!value.is_array()) {
            fail("the field \"" + name + "\" is a " + value.type_name() +
                 ", expected an array of strings");
        }
        for (std::size_t i = 0; i < value.size(); ++i) {
            result.push_back(text(value[i], name + "[" + std::to_string(i) + "]"));
        }
        return result;
    };
    const auto query = object.find("query");
    if (query == object.end()) {
        fail("the record has no field \"query\" (its fields: " + joinNames(keysOf(object)) +
             "); retrieval records need \"query\", \"positive\" or \"positives\", and "
             "optionally \"negatives\"");
    }
    record.query = text(*query, "the field \"query\"");
    const auto positive = object.find("positive");
    const auto positives = object.find("positives");
    record.positives.clear();
    if (positive != object.end() && positives != object.end()) {
        fail("the record has both \"positive\" and \"positives\"; give one of them");
    }
    if (positive != object.end()) {
        record.positives.push_back(text(*positive, "the field \"positive\""));
    } else if (positives != object.end()) {
        record.positives = texts(*positives, "positives");
        if (record.positives.empty()) {
            fail("the field \"positives\" is an empty array: the query needs a relevant "
                 "passage");
        }
    } else {
        fail("the record has no field \"positive\" nor \"positives\" (its fields: " +
             joinNames(keysOf(object)) + ")");
    }
    record.negatives.clear();
    const auto negatives = object.find("negatives");
    if (negatives != object.end()) {
        record.negatives = texts(*negatives, "negatives");
    }
    record.text.clear();
}

bool RecordReader::nextCsv(Record &record) {
    if (!readCsvRecord(lines_, record.fields, record.line)) {
        return false;
    }
    if (record.fields.size() != columns_.size()) {
        const std::size_t count = record.fields.size();
        throw DataError(path(), record.line,
                        "row " + std::to_string(ordinal_ + 1) + " has " + std::to_string(count) +
                            (count == 1 ? " field" : " fields") + ", the header has " +
                            std::to_string(columns_.size()));
    }
    if (want_text_) {
        record.text = record.fields[text_column_];
    }
    return true;
}

RecordPosition RecordReader::position() const {
    if (spec_.format == Format::Json) {
        return RecordPosition{array_.offset(), array_.lineBefore(), ordinal_};
    }
    return RecordPosition{lines_.offset(), lines_.lineNumber(), ordinal_};
}

void RecordReader::seek(const RecordPosition &position) {
    if (spec_.format == Format::Json) {
        array_.seek(position.offset, position.line, position.offset == start_.offset);
    } else {
        lines_.seek(position.offset, position.line);
    }
    ordinal_ = position.ordinal;
}

namespace {

// The keys of the first record of JSONL or JSON data; empty for other formats or a first record
// that cannot be read (the data check says why).
std::vector<std::string> firstRecordKeys(const DataSpec &spec) {
    if (spec.format != Format::Jsonl && spec.format != Format::Json) {
        return {};
    }
    try {
        // Without text the reader only parses the object and keeps its keys.
        RecordReader reader(spec, false);
        Record record;
        return reader.next(record) ? reader.columns() : std::vector<std::string>();
    } catch (const DataError &) {
        return {};
    }
}

bool holdsAll(const std::vector<std::string> &keys, std::initializer_list<const char *> wanted) {
    return std::all_of(wanted.begin(), wanted.end(), [&](const char *key) {
        return std::find(keys.begin(), keys.end(), key) != keys.end();
    });
}

} // namespace

bool startsWithPreferencePair(const DataSpec &spec) {
    const std::vector<std::string> keys = firstRecordKeys(spec);
    return holdsAll(keys, {"chosen", "rejected"}) &&
           std::find(keys.begin(), keys.end(), spec.text_field) == keys.end();
}

bool startsWithPrompts(const DataSpec &spec) {
    const std::vector<std::string> keys = firstRecordKeys(spec);
    const auto holds = [&](const std::string &key) {
        return std::find(keys.begin(), keys.end(), key) != keys.end();
    };
    return holds("prompt") && !holds("completion") && !holds("chosen") && !holds("rejected") &&
           !holds(spec.text_field);
}

bool startsWithUnpairedPreference(const DataSpec &spec) {
    if (!holdsAll(firstRecordKeys(spec), {"prompt", "completion", "label"})) {
        return false;
    }
    // Only a boolean label makes KTO data (a text label is some other field of the record).
    DataSpec unpaired = spec;
    unpaired.unpaired = true;
    unpaired.preference = false;
    try {
        RecordReader reader(unpaired, true);
        Record record;
        return reader.next(record) && record.label >= 0;
    } catch (const DataError &) {
        return false;
    }
}

} // namespace headroom::data
