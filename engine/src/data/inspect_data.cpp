// inspectData: a full validating pass over a data file plus a preview of its first records.
#include "chat/conversation.h"
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/record_reader.h"
#include "data/utf8.h"

namespace headroom::data {
namespace {

constexpr std::size_t kPreviewBytes = 300;

std::string joined(const std::vector<std::string> &texts) {
    std::string result;
    for (const std::string &text : texts) {
        result += (result.empty() ? "" : " / ") + text;
    }
    return result;
}

// A retrieval record as one line: its query, its relevant passages and its hard negatives.
std::string retrievalPreview(const Record &record) {
    std::string line = "query: " + record.query + " | " +
                       (record.positives.size() == 1 ? "positive: " : "positives: ") +
                       joined(record.positives);
    if (!record.negatives.empty()) {
        line += " | negatives: " + joined(record.negatives);
    }
    return line;
}

// A conversation as one line: "user: … | assistant: …".
std::string conversationPreview(const chat::Conversation &conversation) {
    std::string line;
    for (const auto &message : conversation.messages) {
        chat::Conversation one;
        one.messages.push_back(message);
        line += (line.empty() ? "" : " | ") + message.at("role").get<std::string>() + ": " +
                chat::messageTexts(one);
    }
    return line;
}

std::string previewOf(const Record &record, Format format) {
    if (record.conversation) {
        return previewUtf8(conversationPreview(*record.conversation), kPreviewBytes);
    }
    if (!record.query.empty()) {
        return previewUtf8(retrievalPreview(record), kPreviewBytes);
    }
    if (record.prompt_only) {
        return previewUtf8(record.prompt + " | " + record.json, kPreviewBytes);
    }
    if (record.pair) {
        return previewUtf8(record.prompt + " | chosen: " + record.text +
                               " | rejected: " + record.rejected,
                           kPreviewBytes);
    }
    if (format != Format::Csv) {
        return previewUtf8(record.text, kPreviewBytes);
    }
    std::string row;
    for (const std::string &field : record.fields) {
        row += row.empty() ? "" : ", ";
        row += field;
    }
    return previewUtf8(row, kPreviewBytes);
}

} // namespace

DataSummary inspectData(const DataSpec &spec, int preview_records) {
    DataSpec whole_file = spec;
    whole_file.max_examples = 0;
    // CSV: the text column is checked by the gpt stream, since a tabular file has none.
    RecordReader reader(whole_file, spec.format != Format::Csv);
    if (spec.format == Format::Csv && !spec.target.empty()) {
        reader.columnIndex(spec.target, "target");
    }
    DataSummary summary;
    summary.format = spec.format;
    summary.bytes = reader.fileSize();
    Record record;
    while (reader.next(record)) {
        ++summary.records;
        if (static_cast<int>(summary.preview.size()) < preview_records) {
            summary.preview.push_back(previewOf(record, spec.format));
        }
    }
    summary.columns = reader.columns();
    if (summary.records == 0) {
        throw DataError(spec.path, 0,
                        spec.format == Format::Csv ? "the file has a header but no data rows"
                                                   : "the file holds no records (only blank "
                                                     "lines)");
    }
    return summary;
}

} // namespace headroom::data
