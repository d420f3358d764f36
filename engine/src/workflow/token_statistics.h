#pragma once

#include "data/data_spec.h"
#include "tokenizers/tokenizer.h"

#include <headroom/token_preview.h>

namespace headroom::workflow {

// Reads the records of spec.path within `limits` and tokenizes each as the training data
// pipeline does (data/example_stream.cpp): a text line with a newline after it for the byte
// tokenizer, else the document start and end-of-text; a prompt/completion record as prompt
// start, completion and end-of-text. Fills samples and stats (not seq_len, not the tokenizer's
// name). Throws data::DataError for a bad record, std::runtime_error when the tokenizer fails.
TokenPreview measureTokens(const data::DataSpec &spec, const data::Tokenizer &tokenizer,
                           std::int64_t seq_len, const TokenPreviewLimits &limits);

} // namespace headroom::workflow
