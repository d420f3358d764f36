#include "data/example_stream.h"

#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/document_packer.h"
#include "data/preference_pairs.h"
#include "data/prompt_examples.h"
#include "data/record_reader.h"
#include "data/split.h"
#include "data/state_codec.h"
#include "data/tabular_encoder.h"
#include "data/token_windows.h"
#include "tokenizers/tokenizer.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace headroom::data {
namespace {

constexpr std::uint64_t kStateMagicV1 = 0x3153445244485248ULL; // "HRHDRDS1"
// Version 2 adds each buffered example's prompt and padding spans; 3 its retrieval segments;
// 4 the trained-token mask of chat examples; 5 the documents waiting to be packed; 6 the
// rejected sequence of preference pairs; 7 the record of an online-RL prompt.
constexpr std::uint64_t kStateMagicV2 = 0x3253445244485248ULL; // "HRHDRDS2"
constexpr std::uint64_t kStateMagicV3 = 0x3353445244485248ULL; // "HRHDRDS3"
constexpr std::uint64_t kStateMagicV4 = 0x3453445244485248ULL; // "HRHDRDS4"
constexpr std::uint64_t kStateMagicV5 = 0x3553445244485248ULL; // "HRHDRDS5"
constexpr std::uint64_t kStateMagicV6 = 0x3653445244485248ULL; // "HRHDRDS6"
constexpr std::uint64_t kStateMagic = 0x3753445244485248ULL;   // "HRHDRDS7"

// The example encoding of a saved position (StateReader::example).
int exampleVersion(std::uint64_t magic) {
    switch (magic) {
    case kStateMagic:
        return 6;
    case kStateMagicV6:
        return 5;
    case kStateMagicV5:
    case kStateMagicV4:
        return 4;
    case kStateMagicV3:
        return 3;
    case kStateMagicV2:
        return 2;
    default:
        return 1;
    }
}

// Documents buffered for best-fit packing: more fill the windows better, at the cost of
// holding them (a few hundred kilobytes at most).
constexpr std::size_t kPackingLookahead = 64;

// What this epoch has read so far, for the "no training examples" diagnosis.
struct EpochCounts {
    std::int64_t records = 0;       // records of the file
    std::int64_t split_records = 0; // of them, in this stream's split
    std::int64_t tokens = 0;        // gpt: tokens of the split's records
    std::int64_t examples = 0;      // examples produced
    // chat: conversations longer than seq_len + 1 tokens, cut after a whole reply / mid-reply
    std::int64_t conversations_cut_at_turn = 0;
    std::int64_t conversations_truncated = 0;
    std::int64_t conversations_without_targets = 0; // nothing trained within seq_len + 1
    PairCuts pairs;                                 // preference pairs cut to fit
};

void checkSpec(const DataSpec &spec, const Tokenizer *tokenizer, const TabularSchema *schema) {
    if ((tokenizer == nullptr) == (schema == nullptr)) {
        throw std::invalid_argument("ExampleStream needs either a tokenizer (gpt) or a tabular "
                                    "schema, exactly one");
    }
    if (tokenizer && spec.seq_len < (spec.retrieval ? 3 : 1)) {
        throw std::invalid_argument(spec.retrieval ? "seq_len must be at least 3 for retrieval"
                                                   : "seq_len must be at least 1");
    }
    if (spec.retrieval && spec.hard_negatives < 0) {
        throw std::invalid_argument("hard_negatives must be 0 or more");
    }
    if (spec.stride < 0) {
        throw std::invalid_argument("stride must be 0 (= seq_len) or positive");
    }
    if (spec.shuffle_buffer < 1) {
        throw std::invalid_argument("shuffle_buffer must be at least 1");
    }
    if (!(spec.validation_fraction >= 0 && spec.validation_fraction <= 1)) {
        throw std::invalid_argument("validation_fraction must be within [0, 1]");
    }
}

// Settings that change which examples come out: a saved position is only valid with these.
std::uint64_t specFingerprint(const DataSpec &spec, const Tokenizer *tokenizer) {
    StateWriter writer;
    writer.u64(static_cast<std::uint64_t>(spec.format));
    writer.str(spec.text_field);
    writer.str(spec.target);
    writer.i64(spec.shuffle_buffer);
    writer.i64(spec.max_examples);
    writer.f64(spec.validation_fraction);
    writer.i64(spec.seq_len);
    writer.i64(spec.stride);
    writer.u64(spec.seed);
    writer.u64(spec.split_seed);
    if (spec.retrieval) {
        writer.i64(spec.hard_negatives);
    }
    if (spec.chat_data) {
        writer.str(spec.chat_data->chat_template.text());
        writer.str(spec.chat_data->chat_template.specialTokens().dump());
        writer.str(chat::toString(spec.chat_data->train_on));
    }
    if (spec.packing) {
        writer.str("packing");
    }
    if (spec.preference) {
        writer.str("preference");
        writer.i64(spec.max_prompt_len);
    }
    if (spec.unpaired) {
        writer.str("unpaired");
    }
    if (tokenizer) {
        writer.u64(static_cast<std::uint64_t>(tokenizer->kind()));
        writer.i64(tokenizer->vocabSize());
        writer.i64(tokenizer->endOfTextId());
    }
    return fnv1a(writer.bytes().data(), writer.bytes().size());
}

} // namespace

struct ExampleStream::Impl {
    Impl(const DataSpec &spec_in, Split split_in, const Tokenizer *tokenizer_in,
         const TabularSchema *schema_in)
        : spec(spec_in), split(split_in), tokenizer(tokenizer_in), schema(schema_in),
          reader(spec_in, tokenizer_in != nullptr),
          windows(spec_in.seq_len + 1, spec_in.stride > 0 ? spec_in.stride : spec_in.seq_len),
          packer(spec_in.seq_len + 1, kPackingLookahead,
                 tokenizer_in != nullptr ? tokenizer_in->endOfTextId() : 0),
          rng(spec_in.seed) {
        file = fingerprintFile(spec.path);
        if (schema) {
            if (spec.format != Format::Csv) {
                throw DataError(spec.path, 0,
                                "tabular data must be a CSV file (the format is " +
                                    toString(spec.format) + ")");
            }
            encoder = std::make_unique<TabularEncoder>(*schema, reader.columns(), spec.path);
        } else if (spec.retrieval && spec.format != Format::Jsonl && spec.format != Format::Json) {
            throw DataError(spec.path, 0,
                            "retrieval data must be JSONL (one object per line) or JSON (an "
                            "array of objects) with \"query\" and \"positive\" fields; the "
                            "format is " +
                                toString(spec.format));
        } else {
            newline_separator =
                spec.format == Format::Text && tokenizer->kind() == TokenizerKind::Byte;
        }
    }

    bool produce(Example &out);
    // The current record's example is ready: its id, counted.
    bool recordExample(Example &out) {
        out.id = makeExampleId(epoch, static_cast<std::uint64_t>(record.ordinal));
        ++counts.examples;
        return true;
    }
    void instructionExample(Example &out);
    bool chatExample(Example &out);
    void padToWindow(Example &out) const;
    void retrievalExample(Example &out);
    void appendSegment(Example &out, const std::string &text);
    bool nextTrain(Example &out);
    void startNextEpoch();
    [[noreturn]] void throwNoTrainingExamples() const;
    void rewind();

    DataSpec spec;
    Split split;
    const Tokenizer *tokenizer;
    const TabularSchema *schema;
    RecordReader reader;
    std::unique_ptr<TabularEncoder> encoder;
    bool newline_separator = false;
    FileFingerprint file; // of the file as opened, stored in saved positions

    TokenWindows windows;
    DocumentPacker packer; // data.packing
    std::uint64_t epoch = 0;
    EpochCounts counts;
    std::int64_t examples_per_epoch = 0; // known once the first epoch is complete
    std::vector<Example> shuffle_buffer;
    ShuffleRng rng;
    Record record;
};

// The next example of the split in file order within the current epoch; false at its end.
bool ExampleStream::Impl::produce(Example &out) {
    out = Example{};
    while (true) {
        if (tokenizer && windows.take(out.tokens)) {
            out.id = makeExampleId(epoch, windows.windowsTaken() - 1);
            ++counts.examples;
            return true;
        }
        if (spec.packing && packer.take(out, false)) {
            out.id = makeExampleId(epoch, packer.windowsTaken() - 1);
            ++counts.examples;
            return true;
        }
        if (!reader.next(record)) {
            if (spec.packing && packer.take(out, true)) {
                out.id = makeExampleId(epoch, packer.windowsTaken() - 1);
                ++counts.examples;
                return true;
            }
            return false;
        }
        ++counts.records;
        const bool validation =
            isValidationRecord(spec.split_seed, record.ordinal, spec.validation_fraction);
        if (validation != (split == Split::Validation)) {
            continue;
        }
        ++counts.split_records;
        if (spec.retrieval) {
            retrievalExample(out);
            return recordExample(out);
        }
        if (encoder) {
            encoder->encode(record.fields, record.line, out);
            return recordExample(out);
        }
        if (record.pair) {
            if (!preferenceExample(*tokenizer, spec, record, out, counts.pairs)) {
                continue;
            }
            counts.tokens += out.real_tokens + out.rejected.front().real_tokens;
            padToWindow(out);
            padToWindow(out.rejected.front());
            return recordExample(out);
        }
        if (record.prompt_only) {
            counts.tokens += promptExample(*tokenizer, spec, record, out, counts.pairs);
            return recordExample(out);
        }
        if (record.conversation || record.instruction) {
            if (!record.conversation) {
                instructionExample(out);
                out.target = record.label; // kto: desirable or not (-1 otherwise, unused)
            } else if (!chatExample(out)) {
                continue;
            }
            if (spec.packing) {
                packer.add(std::move(out.tokens), std::move(out.trained));
                out = Example{};
                continue;
            }
            padToWindow(out);
            return recordExample(out);
        }
        std::vector<std::int32_t> tokens;
        if (newline_separator) {
            record.text.push_back('\n');
            tokens = tokenizer->encode(record.text);
        } else {
            tokens = tokenizer->encodeStart(record.text);
            tokens.push_back(tokenizer->endOfTextId());
        }
        counts.tokens += static_cast<std::int64_t>(tokens.size());
        if (spec.packing) {
            packer.add(std::move(tokens), {});
            continue;
        }
        windows.append(tokens);
    }
}

// An unpacked prompt/completion or conversation example: padded with end-of-text to seq_len + 1
// tokens, the padding neither trained nor a target.
void ExampleStream::Impl::padToWindow(Example &out) const {
    const auto width = static_cast<std::size_t>(spec.seq_len + 1);
    out.tokens.resize(width, tokenizer->endOfTextId());
    if (!out.trained.empty()) {
        out.trained.resize(width, 0);
    }
}

// One example per prompt/completion record: prompt, completion and end-of-text, cut at seq_len +
// 1 tokens (not yet padded). Unpacked, prompt_tokens and real_tokens mark what is learned;
// packed, the trained mask does.
void ExampleStream::Impl::instructionExample(Example &out) {
    const auto width = static_cast<std::size_t>(spec.seq_len + 1);
    out.tokens = tokenizer->encodeStart(record.prompt);
    const std::vector<std::int32_t> completion = tokenizer->encode(record.text);
    const std::size_t prompt = std::min(out.tokens.size(), width);
    out.tokens.insert(out.tokens.end(), completion.begin(), completion.end());
    out.tokens.push_back(tokenizer->endOfTextId());
    counts.tokens += static_cast<std::int64_t>(out.tokens.size());
    const std::size_t real = std::min(out.tokens.size(), width);
    out.tokens.resize(real);
    if (spec.packing) {
        out.trained.assign(real, 1);
        std::fill(out.trained.begin(), out.trained.begin() + static_cast<std::ptrdiff_t>(prompt),
                  0);
        return;
    }
    out.prompt_tokens = static_cast<std::int32_t>(prompt);
    out.real_tokens = static_cast<std::int32_t>(real);
}

// One example per conversation, rendered through the chat template: the trained tokens are the
// assistant's (spec.chat_data->train_on). A conversation longer than seq_len + 1 tokens is cut
// after the last reply that fits whole, else cut at seq_len + 1 (not yet padded; real_tokens
// is its length). False (and counted) when nothing trained is left after the cut.
bool ExampleStream::Impl::chatExample(Example &out) {
    if (!spec.chat_data) {
        throw DataError(spec.path, record.line,
                        "a conversation, but there is no chat template to render it: the base "
                        "model folder has none; set data.chat_template=chatml or a template "
                        "file");
    }
    chat::ChatTokens tokens;
    try {
        tokens = chat::tokenizeTrainingText(
            *tokenizer, chat::renderForTraining(spec.chat_data->chat_template, *record.conversation,
                                                spec.chat_data->train_on));
    } catch (const chat::ConversationError &error) {
        throw DataError(spec.path, record.line, error.what());
    }
    counts.tokens += static_cast<std::int64_t>(tokens.ids.size());
    const auto width = static_cast<std::size_t>(spec.seq_len + 1);
    if (tokens.ids.size() > width) {
        std::size_t cut = width;
        bool at_turn = false;
        for (const std::size_t end : tokens.turn_ends) {
            if (end <= width && end > 0) {
                cut = end;
                at_turn = true;
            }
        }
        ++(at_turn ? counts.conversations_cut_at_turn : counts.conversations_truncated);
        tokens.ids.resize(cut);
        tokens.trained.resize(cut);
    }
    // The first token is never a target (nothing predicts it).
    if (std::find(tokens.trained.begin() + (tokens.trained.empty() ? 0 : 1), tokens.trained.end(),
                  1) == tokens.trained.end()) {
        ++counts.conversations_without_targets;
        return false;
    }
    out.tokens = std::move(tokens.ids);
    out.trained = std::move(tokens.trained);
    out.prompt_tokens = 0;
    out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    return true;
}

void ExampleStream::Impl::appendSegment(Example &out, const std::string &text) {
    const std::vector<std::int32_t> ids = encoderTokens(*tokenizer, text, spec.seq_len);
    counts.tokens += static_cast<std::int64_t>(ids.size());
    out.tokens.insert(out.tokens.end(), ids.begin(), ids.end());
    out.segment_lengths.push_back(static_cast<std::int32_t>(ids.size()));
}

// The query, then its passages. Training: one positive and spec.hard_negatives negatives, both
// taken in turn from the record so each epoch sees other ones. Validation: all of them (the
// retrieval metrics count every relevant passage).
void ExampleStream::Impl::retrievalExample(Example &out) {
    appendSegment(out, record.query);
    if (split == Split::Validation) {
        for (const std::string &positive : record.positives) {
            appendSegment(out, positive);
        }
        for (const std::string &negative : record.negatives) {
            appendSegment(out, negative);
        }
        out.positive_passages = static_cast<std::int32_t>(record.positives.size());
        return;
    }
    appendSegment(out, record.positives[epoch % record.positives.size()]);
    out.positive_passages = 1;
    const std::size_t available = record.negatives.size();
    const std::size_t wanted = std::min(available, static_cast<std::size_t>(spec.hard_negatives));
    for (std::size_t i = 0; i < wanted; ++i) {
        appendSegment(out, record.negatives[(epoch * wanted + i) % available]);
    }
}

void ExampleStream::Impl::throwNoTrainingExamples() const {
    std::string why;
    if (counts.records == 0) {
        why = "the file holds no records";
    } else if (counts.split_records == 0) {
        why = std::to_string(counts.records) + " records read, all in the validation split " +
              "(validation_fraction " + std::to_string(spec.validation_fraction) + ")";
    } else if (counts.pairs.without_room == counts.split_records) {
        why = "every prompt of the training split's " + std::to_string(counts.split_records) +
              " preference pairs fills seq_len+1 = " + std::to_string(spec.seq_len + 1) +
              " tokens, leaving no completion to compare (raise model.seq_len or set "
              "data.max_prompt_len)";
    } else if (counts.conversations_without_targets == counts.split_records) {
        why = "none of the training split's " + std::to_string(counts.split_records) +
              " conversations has an assistant token within seq_len+1 = " +
              std::to_string(spec.seq_len + 1) + " tokens (raise model.seq_len)";
    } else {
        why = "the training split's " + std::to_string(counts.split_records) + " records hold " +
              std::to_string(counts.tokens) +
              " tokens, too short for seq_len+1 = " + std::to_string(spec.seq_len + 1) +
              " tokens (lower the sequence length or add "
              "data)";
    }
    throw DataError(spec.path, 0, "no training examples: " + why);
}

void ExampleStream::Impl::startNextEpoch() {
    examples_per_epoch = counts.examples;
    ++epoch;
    reader.rewind();
    windows.clear();
    packer.clear();
    counts = EpochCounts{};
}

bool ExampleStream::Impl::nextTrain(Example &out) {
    // A buffer larger than an epoch would only hold repeats: at most one epoch's worth.
    const auto capacity = [this] {
        return examples_per_epoch > 0 ? std::min(spec.shuffle_buffer, examples_per_epoch)
                                      : spec.shuffle_buffer;
    };
    while (static_cast<std::int64_t>(shuffle_buffer.size()) < capacity()) {
        Example example;
        if (produce(example)) {
            shuffle_buffer.push_back(std::move(example));
            continue;
        }
        if (counts.examples == 0) {
            throwNoTrainingExamples();
        }
        startNextEpoch();
    }
    const std::size_t pick = rng.below(shuffle_buffer.size());
    out = std::move(shuffle_buffer[pick]);
    if (pick + 1 != shuffle_buffer.size()) {
        shuffle_buffer[pick] = std::move(shuffle_buffer.back());
    }
    shuffle_buffer.pop_back();
    return true;
}

void ExampleStream::Impl::rewind() {
    epoch = 0;
    examples_per_epoch = 0;
    reader.rewind();
    windows.clear();
    packer.clear();
    counts = EpochCounts{};
    shuffle_buffer.clear();
    rng = ShuffleRng(spec.seed);
}

ExampleStream::ExampleStream(const DataSpec &spec, Split split, const Tokenizer *tokenizer,
                             const TabularSchema *schema) {
    checkSpec(spec, tokenizer, schema);
    impl_ = std::make_unique<Impl>(spec, split, tokenizer, schema);
}

ExampleStream::~ExampleStream() = default;

bool ExampleStream::next(Example &out) {
    if (impl_->split == Split::Train) {
        return impl_->nextTrain(out);
    }
    return impl_->produce(out);
}

void ExampleStream::reset() {
    impl_->rewind();
}

std::uint64_t ExampleStream::epoch() const {
    return impl_->epoch;
}

std::string ExampleStream::saveState() const {
    const Impl &d = *impl_;
    StateWriter writer;
    writer.u64(kStateMagic);
    writer.u64(static_cast<std::uint64_t>(d.split));
    writer.u64(specFingerprint(d.spec, d.tokenizer));
    writer.u64(d.file.size);
    writer.u64(d.file.head_hash);
    const RecordPosition position = d.reader.position();
    writer.u64(position.offset);
    writer.i64(position.line);
    writer.i64(position.ordinal);
    writer.u64(d.epoch);
    writer.i64(d.counts.records);
    writer.i64(d.counts.split_records);
    writer.i64(d.counts.tokens);
    writer.i64(d.counts.examples);
    writer.i64(d.examples_per_epoch);
    d.windows.save(writer);
    d.packer.save(writer);
    writer.u64(d.rng.state());
    writer.u64(d.shuffle_buffer.size());
    for (const Example &example : d.shuffle_buffer) {
        writer.example(example);
    }
    return writer.bytes();
}

void ExampleStream::restoreState(const std::string &state) {
    Impl &d = *impl_;
    const std::string &path = d.spec.path;
    StateReader reader(state, path);
    const std::uint64_t magic = reader.u64();
    if (magic != kStateMagic && magic != kStateMagicV6 && magic != kStateMagicV5 &&
        magic != kStateMagicV4 && magic != kStateMagicV3 && magic != kStateMagicV2 &&
        magic != kStateMagicV1) {
        reader.fail("it is not a Headroom data position");
    }
    if (reader.u64() != static_cast<std::uint64_t>(d.split)) {
        throw DataError(path, 0, "the saved data position belongs to the other split");
    }
    if (reader.u64() != specFingerprint(d.spec, d.tokenizer)) {
        throw DataError(path, 0,
                        "the saved data position was taken with different data settings "
                        "(format, split, shuffle, sequence length or tokenizer changed)");
    }
    const FileFingerprint saved{reader.u64(), reader.u64()};
    const FileFingerprint now = fingerprintFile(path);
    if (saved.size != now.size) {
        throw DataError(path, 0,
                        "the data file changed since the position was saved (" +
                            std::to_string(saved.size) + " bytes then, " +
                            std::to_string(now.size) + " now); cannot resume exactly");
    }
    if (saved.head_hash != now.head_hash) {
        throw DataError(path, 0,
                        "the data file changed since the position was saved (same size, "
                        "different content); cannot resume exactly");
    }
    RecordPosition position;
    position.offset = reader.u64();
    position.line = reader.i64();
    position.ordinal = reader.i64();
    if (position.offset > now.size) {
        reader.fail("its file offset lies beyond the end of the file");
    }
    const std::uint64_t epoch = reader.u64();
    EpochCounts counts;
    counts.records = reader.i64();
    counts.split_records = reader.i64();
    counts.tokens = reader.i64();
    counts.examples = reader.i64();
    const std::int64_t examples_per_epoch = reader.i64();
    TokenWindows windows = d.windows;
    windows.load(reader);
    DocumentPacker packer = d.packer;
    if (magic == kStateMagic || magic == kStateMagicV6 || magic == kStateMagicV5) {
        packer.load(reader);
    } else {
        packer.clear();
    }
    const std::uint64_t rng_state = reader.u64();
    const std::uint64_t buffered = reader.u64();
    std::vector<Example> shuffle_buffer;
    for (std::uint64_t i = 0; i < buffered; ++i) {
        shuffle_buffer.push_back(reader.example(exampleVersion(magic)));
    }
    if (!reader.atEnd()) {
        reader.fail("unexpected bytes after its end");
    }
    // Everything read and checked: commit.
    d.reader.seek(position);
    d.epoch = epoch;
    d.counts = counts;
    d.examples_per_epoch = examples_per_epoch;
    d.windows = std::move(windows);
    d.packer = std::move(packer);
    d.rng.setState(rng_state);
    d.shuffle_buffer = std::move(shuffle_buffer);
}

std::vector<std::int32_t> encoderTokens(const Tokenizer &tokenizer, const std::string &text,
                                        std::int64_t max_length) {
    std::vector<std::int32_t> ids = tokenizer.encodeStart(text);
    const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(2, max_length));
    if (ids.size() >= limit) {
        ids.resize(limit - 1);
    }
    ids.push_back(tokenizer.endOfTextId());
    return ids;
}

} // namespace headroom::data
