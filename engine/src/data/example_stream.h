#pragma once

#include "data/data_spec.h"
#include "data/example.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headroom::data {

class Tokenizer;
struct TabularSchema;

// Streams examples from a file without loading it whole.
//
// Records are lines (text), objects (JSONL) or rows (CSV). Each record belongs to the
// validation split when a hash of (split_seed, record ordinal) falls under
// validation_fraction, otherwise to the training split: the split is deterministic and does
// not depend on shuffling or on the shuffle seed.
//
// gpt (tokenizer given): records of the split are tokenized on the fly into one token stream
// (a separator after each record) cut into windows of seq_len + 1 tokens every `stride` tokens.
// tabular (schema given): each CSV row of the split becomes one encoded example.
//
// Train split: endless; at the end of the file it reopens it (next epoch); examples pass
// through a shuffle buffer of spec.shuffle_buffer drawn with a generator seeded by spec.seed.
// Validation split: finite, in file order, unshuffled; next() returns false at the end and
// reset() rewinds.
class ExampleStream {
public:
    ExampleStream(const DataSpec &spec, Split split, const Tokenizer *tokenizer,
                  const TabularSchema *schema);
    ~ExampleStream();
    ExampleStream(const ExampleStream &) = delete;
    ExampleStream &operator=(const ExampleStream &) = delete;

    // Throws DataError on bad data (file, line, problem), including a training split with no
    // examples at all.
    bool next(Example &out);
    void reset();

    // The exact position (file offset, line number, partial window, shuffle buffer contents,
    // generator state, epoch) as opaque bytes for checkpoints; restoreState continues exactly
    // where saveState was taken. restoreState throws DataError when the state does not fit
    // this file (e.g. the file changed size).
    std::string saveState() const;
    void restoreState(const std::string &state);

    std::uint64_t epoch() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A text as an encoder reads it: the tokenizer's specials around it ([CLS] ... [SEP]), cut to
// max_length tokens by dropping text tokens before the closing special, as the reference
// library truncates with max_length (max_length >= 2).
std::vector<std::int32_t> encoderTokens(const Tokenizer &tokenizer, const std::string &text,
                                        std::int64_t max_length);

// What a data file holds, read in one full streaming pass that validates every record.
struct DataSummary {
    Format format = Format::Text;
    std::int64_t records = 0;
    std::uint64_t bytes = 0;
    std::vector<std::string> columns; // CSV header / JSONL keys of the first record
    std::vector<std::string> preview; // the first records as text, as the user would read them
};

// Throws DataError: missing or empty file, invalid UTF-8 (line N), malformed JSON (line N),
// missing text field (line N), ragged CSV row (row N), unknown column.
DataSummary inspectData(const DataSpec &spec, int preview_records = 5);

} // namespace headroom::data
