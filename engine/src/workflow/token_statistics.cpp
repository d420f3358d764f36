#include "workflow/token_statistics.h"

#include "data/document_packer.h"
#include "data/record_reader.h"
#include "data/utf8.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "tokenizers/unicode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::workflow {

namespace {

std::int64_t countCharacters(const std::string &utf8) {
    return static_cast<std::int64_t>(tokenizers::countChars(utf8));
}

std::string hexBytes(const std::string &bytes) {
    std::string text;
    for (const char c : bytes) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "<0x%02X>", static_cast<unsigned char>(c));
        text += buffer;
    }
    return text;
}

// How a token reads for a person: the vocabulary's spelling where the tokenizer has one.
class PieceSpeller {
public:
    explicit PieceSpeller(const data::Tokenizer &tokenizer)
        : tokenizer_(tokenizer),
          hf_(dynamic_cast<const tokenizers::HfDataTokenizer *>(&tokenizer)) {}

    bool isSpecial(std::int32_t id) const {
        return id == tokenizer_.endOfTextId() || (hf_ && hf_->tokenizer().isSpecial(id));
    }

    // The token at `index` of `ids`.
    PreviewToken spell(const std::vector<std::int32_t> &ids, std::size_t index) const {
        PreviewToken token;
        token.id = ids[index];
        token.special = isSpecial(token.id);
        if (hf_) {
            token.piece = hf_->tokenizer().idToToken(token.id).value_or(numbered(token.id));
            return token;
        }
        if (token.special) {
            token.piece = endOfTextSpelling();
            return token;
        }
        const std::string text = decodedText(ids, index);
        if (text.empty()) {
            token.piece = numbered(token.id);
        } else if (data::findInvalidUtf8(text.data(), text.size()) != text.size()) {
            token.piece = hexBytes(text);
        } else {
            token.piece = text;
        }
        return token;
    }

private:
    static std::string numbered(std::int32_t id) { return "<" + std::to_string(id) + ">"; }

    // What the token adds to the text after the few tokens before it: SentencePiece drops the
    // word-start space of a piece decoded alone ("▁the" reads "the").
    std::string decodedText(const std::vector<std::int32_t> &ids, std::size_t index) const {
        constexpr std::size_t kContext = 4;
        const auto first =
            ids.begin() + static_cast<std::ptrdiff_t>(index - std::min(index, kContext));
        const auto token = ids.begin() + static_cast<std::ptrdiff_t>(index);
        std::vector<std::int32_t> before(first, token);
        before.erase(std::remove_if(before.begin(), before.end(),
                                    [&](std::int32_t id) { return isSpecial(id); }),
                     before.end());
        const std::string prefix = tokenizer_.decode(before);
        before.push_back(*token);
        const std::string text = tokenizer_.decode(before);
        if (text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0) {
            return text.substr(prefix.size());
        }
        return tokenizer_.decode({*token});
    }

    std::string endOfTextSpelling() const {
        return tokenizer_.kind() == data::TokenizerKind::Byte ? "<eot>" : "</s>";
    }

    const data::Tokenizer &tokenizer_;
    const tokenizers::HfDataTokenizer *hf_;
};

struct RecordTokens {
    std::vector<std::int32_t> ids;
    std::int64_t prompt_tokens = 0;
    std::int64_t characters = 0;
};

// Prompt start, completion, end-of-text: a prompt/completion record, a pair's either sequence.
RecordTokens promptAndCompletion(const std::string &prompt, const std::string &completion,
                                 const data::Tokenizer &tokenizer) {
    RecordTokens result;
    result.ids = tokenizer.encodeStart(prompt);
    result.prompt_tokens = static_cast<std::int64_t>(result.ids.size());
    const std::vector<std::int32_t> completion_ids = tokenizer.encode(completion);
    result.ids.insert(result.ids.end(), completion_ids.begin(), completion_ids.end());
    result.ids.push_back(tokenizer.endOfTextId());
    result.characters = countCharacters(prompt) + countCharacters(completion);
    return result;
}

RecordTokens tokenizeAsTraining(data::Record &record, bool newline_separator,
                                const data::Tokenizer &tokenizer) {
    RecordTokens result;
    if (record.instruction || record.pair) {
        return promptAndCompletion(record.prompt, record.text, tokenizer);
    }
    if (record.prompt_only) { // grpo: the prompt alone, its completions are sampled
        result.ids = tokenizer.encodeStart(record.prompt);
        result.prompt_tokens = static_cast<std::int64_t>(result.ids.size());
        result.characters = countCharacters(record.prompt);
        return result;
    }
    if (newline_separator) {
        record.text.push_back('\n');
        result.ids = tokenizer.encode(record.text);
        record.text.pop_back();
        result.characters = countCharacters(record.text) + 1;
        return result;
    }
    result.ids = tokenizer.encodeStart(record.text);
    result.ids.push_back(tokenizer.endOfTextId());
    result.characters = countCharacters(record.text);
    return result;
}

void summarize(std::vector<std::int64_t> counts, TokenCountStats &stats) {
    if (counts.empty()) {
        return;
    }
    std::sort(counts.begin(), counts.end());
    const std::size_t n = counts.size();
    stats.mean = static_cast<double>(stats.tokens) / static_cast<double>(n);
    stats.median =
        n % 2 == 1
            ? static_cast<double>(counts[n / 2])
            : (static_cast<double>(counts[n / 2 - 1]) + static_cast<double>(counts[n / 2])) / 2.0;
    const auto rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
    stats.p95 = counts[std::max<std::size_t>(rank, 1) - 1];
    stats.max = counts.back();
    if (stats.seq_len > 0) {
        stats.longer_than_window =
            std::count_if(counts.begin(), counts.end(),
                          [&](std::int64_t count) { return count > stats.seq_len + 1; });
    }
}

// The padding shares of TokenCountStats for records of `counts` tokens (each cut at the window).
void estimatePadding(const std::vector<std::int64_t> &counts, TokenCountStats &stats) {
    constexpr std::size_t kRowsPerBatch = 8;
    const std::int64_t window = stats.seq_len + 1;
    double real = 0;
    double unpacked = 0;
    data::DocumentPacker packer(window, 64, 0);
    for (std::size_t first = 0; first < counts.size(); first += kRowsPerBatch) {
        const std::size_t end = std::min(counts.size(), first + kRowsPerBatch);
        std::int64_t longest = 0;
        for (std::size_t i = first; i < end; ++i) {
            const std::int64_t size = std::min(counts[i], window);
            real += static_cast<double>(size);
            longest = std::max(longest, size);
            packer.add(std::vector<std::int32_t>(static_cast<std::size_t>(size)), {});
        }
        unpacked += static_cast<double>(longest) * static_cast<double>(end - first);
    }
    data::Example window_example;
    while (packer.take(window_example, true)) {
    }
    const double packed = static_cast<double>(packer.windowsTaken()) * static_cast<double>(window);
    if (real > 0) {
        stats.padding_unpacked = 1.0 - real / unpacked;
        stats.padding_packed = 1.0 - real / packed;
    }
}

} // namespace

TokenPreview measureTokens(const data::DataSpec &spec, const data::Tokenizer &tokenizer,
                           std::int64_t seq_len, const TokenPreviewLimits &limits) {
    TokenPreview preview;
    preview.vocab_size = tokenizer.vocabSize();
    TokenCountStats &stats = preview.stats;
    stats.seq_len = std::max<std::int64_t>(seq_len, 0);
    const PieceSpeller speller(tokenizer);
    const bool newline_separator =
        spec.format == data::Format::Text && tokenizer.kind() == data::TokenizerKind::Byte;

    data::RecordReader reader(spec, true);
    data::Record record;
    std::vector<std::int64_t> counts;
    std::int64_t characters = 0;
    std::int64_t special_tokens = 0;
    stats.whole_file = true;
    while (true) {
        stats.bytes = reader.position().offset;
        if (stats.records >= limits.max_records || stats.bytes >= limits.max_bytes) {
            // Only a file with more records to come is cut short.
            stats.whole_file = !reader.next(record);
            break;
        }
        if (!reader.next(record)) {
            break;
        }
        ++stats.records;
        stats.instruction = stats.instruction || record.instruction || record.pair;
        stats.pairs = stats.pairs || record.pair;
        std::vector<RecordTokens> sequences = {
            tokenizeAsTraining(record, newline_separator, tokenizer)};
        if (record.pair) { // the rejected sequence is a row of its own in training
            sequences.push_back(promptAndCompletion(record.prompt, record.rejected, tokenizer));
        }
        for (std::size_t s = 0; s < sequences.size(); ++s) {
            const RecordTokens &tokens = sequences[s];
            const auto count = static_cast<std::int64_t>(tokens.ids.size());
            stats.tokens += count;
            characters += tokens.characters;
            counts.push_back(count);
            special_tokens += std::count_if(tokens.ids.begin(), tokens.ids.end(),
                                            [&](std::int32_t id) { return speller.isSpecial(id); });
            const bool keep_sample =
                static_cast<int>(preview.samples.size()) < limits.samples &&
                (record.instruction || record.pair || record.prompt_only || !record.text.empty());
            if (!keep_sample) {
                continue;
            }
            TokenizedSample sample;
            const std::size_t shown =
                std::min(tokens.ids.size(), static_cast<std::size_t>(limits.sample_tokens));
            for (std::size_t i = 0; i < shown; ++i) {
                sample.tokens.push_back(speller.spell(tokens.ids, i));
            }
            sample.line = record.line;
            sample.prompt_tokens = tokens.prompt_tokens;
            sample.total_tokens = count;
            sample.rejected = s == 1;
            preview.samples.push_back(std::move(sample));
        }
    }
    const std::int64_t text_tokens = stats.tokens - special_tokens;
    if (text_tokens > 0) {
        stats.characters_per_token =
            static_cast<double>(characters) / static_cast<double>(text_tokens);
    }
    if (stats.instruction && stats.seq_len > 0) {
        estimatePadding(counts, stats);
    }
    summarize(std::move(counts), stats);
    return preview;
}

} // namespace headroom::workflow
