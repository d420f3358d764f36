#include "data/preference_pairs.h"

#include "tokenizers/tokenizer.h"

#include <algorithm>
#include <vector>

namespace headroom::data {

namespace {

// prompt ++ completion ++ end-of-text, cut to `width` tokens; whether the completion was cut.
bool fillSequence(const std::vector<std::int32_t> &prompt,
                  const std::vector<std::int32_t> &completion, std::int32_t end_of_text,
                  std::size_t width, Example &out) {
    out.tokens = prompt;
    out.tokens.insert(out.tokens.end(), completion.begin(), completion.end());
    out.tokens.push_back(end_of_text);
    const bool cut = out.tokens.size() > width;
    out.tokens.resize(std::min(out.tokens.size(), width));
    out.prompt_tokens = static_cast<std::int32_t>(prompt.size());
    out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    return cut;
}

} // namespace

bool preferencePair(const Tokenizer &tokenizer, const std::string &prompt,
                    const std::string &chosen, const std::string &rejected, std::int64_t seq_len,
                    std::int64_t max_prompt_len, Example &out, PairCuts &cuts) {
    const auto width = static_cast<std::size_t>(seq_len + 1);
    std::vector<std::int32_t> prompt_ids = tokenizer.encodeStart(prompt);
    if (max_prompt_len > 0 && prompt_ids.size() > static_cast<std::size_t>(max_prompt_len)) {
        prompt_ids.erase(prompt_ids.begin(), prompt_ids.end() - max_prompt_len);
        ++cuts.prompts_cut;
    }
    // The last prompt token predicts the first completion token: it must fit with it.
    if (prompt_ids.size() + 1 > width) {
        ++cuts.without_room;
        return false;
    }
    Example rejected_sequence;
    const std::int32_t end = tokenizer.endOfTextId();
    const bool chosen_cut = fillSequence(prompt_ids, tokenizer.encode(chosen), end, width, out);
    const bool rejected_cut =
        fillSequence(prompt_ids, tokenizer.encode(rejected), end, width, rejected_sequence);
    if (chosen_cut || rejected_cut) {
        ++cuts.completions_cut;
    }
    out.rejected.assign(1, std::move(rejected_sequence));
    return true;
}

} // namespace headroom::data
