#include "data/prompt_examples.h"

#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/record_reader.h"
#include "tokenizers/tokenizer.h"

#include <algorithm>

namespace headroom::data {

std::int64_t promptExample(const Tokenizer &tokenizer, const DataSpec &spec, Record &record,
                           Example &out, PairCuts &cuts) {
    if (record.conversation) {
        if (!spec.chat_data) {
            throw DataError(spec.path, record.line,
                            "a conversational prompt, but there is no chat template to render "
                            "it: the base model folder has none; set data.chat_template=chatml "
                            "or a template file");
        }
        try {
            out.tokens = tokenizer.encode(
                spec.chat_data->chat_template.render(*record.conversation, true).text);
        } catch (const chat::ConversationError &error) {
            throw DataError(spec.path, record.line, error.what());
        }
    } else {
        out.tokens = tokenizer.encodeStart(record.prompt);
    }
    const auto tokens = static_cast<std::int64_t>(out.tokens.size());
    std::int64_t keep = spec.seq_len;
    if (spec.max_prompt_len > 0) {
        keep = std::min(keep, spec.max_prompt_len);
    }
    if (tokens > keep) {
        out.tokens.erase(out.tokens.begin(), out.tokens.end() - static_cast<std::ptrdiff_t>(keep));
        ++cuts.prompts_cut;
    }
    out.prompt_tokens = out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    out.record = std::move(record.json);
    return tokens;
}

} // namespace headroom::data
