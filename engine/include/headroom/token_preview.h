#pragma once

// What a tokenizer makes of a data file: the first records tokenized exactly as training
// tokenizes them, and tokens-per-record statistics over the start of the file, so the user sees
// truncation before training. For the wizard (before a project exists) and `headroom-cli
// tokenize --file`. No Torch, no Qt.

#include <headroom/config.h>

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct PreviewToken {
    std::int32_t id = 0;
    // Valid UTF-8: the vocabulary's spelling for a Hugging Face tokenizer ("Ġthe", "▁the",
    // "<|begin_of_text|>"), else the text the token decodes to; a token that is not UTF-8 on
    // its own (one byte of a multi-byte character) reads "<0xE2>".
    std::string piece;
    bool special = false; // end-of-text, begin-of-sequence and the tokenizer's special tokens
};

struct TokenizedSample {
    std::int64_t line = 0; // where the record starts in the file, 1-based
    // Prompt/completion records: the first prompt_tokens tokens are the prompt (not learned).
    std::int64_t prompt_tokens = 0;
    // A preference pair gives two samples of the same line: the prompt with the chosen
    // completion, then (rejected = true) with the rejected one; the completions are scored.
    bool rejected = false;
    std::int64_t total_tokens = 0;    // of the whole record
    std::vector<PreviewToken> tokens; // at most TokenPreviewLimits::sample_tokens of them
};

struct TokenCountStats {
    std::int64_t records = 0; // read, empty lines included (training reads them too)
    std::uint64_t bytes = 0;  // of the file read to get them
    bool whole_file = false;  // false: stopped at the limits
    bool instruction = false; // the records read were prompt/completion records (or pairs)
    bool pairs = false;       // preference pairs: each counts as two sequences
    std::int64_t tokens = 0;  // all tokens of the records read, as training counts them
    // Tokens per record. median: the middle value (the mean of the two middle ones for an even
    // count); p95: the smallest count that 95 % of the records do not exceed (nearest rank).
    double mean = 0;
    double median = 0;
    std::int64_t p95 = 0;
    std::int64_t max = 0;
    // Unicode characters of the text per token that is not special (special tokens stand for
    // no text); 0 when there are none.
    double characters_per_token = 0;
    // model.seq_len, or 0 when unknown (then longer_than_window is 0).
    std::int64_t seq_len = 0;
    // Records with more than seq_len + 1 tokens, the window one training example holds: a
    // prompt/completion record is cut there, a text line spreads over several windows.
    std::int64_t longer_than_window = 0;
    // Prompt/completion records with seq_len known: the share of the tokens a step computes on
    // that would be padding, one record per row padded to the longest of each 8 records in file
    // order (data.packing=0), and with the records packed by best fit (data.packing=1). Text
    // lines fill their windows either way: 0 for them.
    double padding_unpacked = 0;
    double padding_packed = 0;
};

struct TokenPreview {
    std::string tokenizer; // "byte" | "bpe" | "unigram" | the tokenizer's folder or file
    // For SentencePiece in the wizard: it is trained on the records the statistics read, not
    // the whole file as the project will be; true then, so the user is told.
    bool trained_on_sample = false;
    std::int32_t vocab_size = 0;
    std::vector<TokenizedSample> samples; // the first non-empty records, in file order
    TokenCountStats stats;
};

struct TokenPreviewLimits {
    std::int64_t max_records = 1000;
    std::uint64_t max_bytes = std::uint64_t{4} << 20; // the record that crosses it still counts
    int samples = 20;
    int sample_tokens = 512;
};

// The tokenizer of a project yet to be created from `config` on this file: recipe=gpt with
// tokenizer=byte, bpe or unigram (SentencePiece is trained for the preview on the records
// within the limits, vocabulary tokenizer.vocab_size), or model.base set (that folder's
// tokenizer, relative to the working directory). The data keys (data.format, data.text_field)
// and model.seq_len come from `config`. Throws InputError naming the problem: no such file, a
// bad record (FILE:LINE: what), a tabular recipe, a tokenizer that cannot be loaded or trained.
TokenPreview previewTokens(const Config &config, const std::string &data_path,
                           const TokenPreviewLimits &limits = {});

// With an existing tokenizer: a .headroom project (its own tokenizer and data keys; seq_len 0
// takes its model.seq_len), or a Hugging Face tokenizer folder or file (tokenized as a
// pretrained base's project does; the format follows the file name). Throws InputError as
// previewTokens does, ProjectError for a damaged project file.
TokenPreview previewTokensWith(const std::string &tokenizer_path, const std::string &data_path,
                               std::int64_t seq_len = 0, const TokenPreviewLimits &limits = {});

} // namespace headroom
