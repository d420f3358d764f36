#include "compat/attention_path.h"

#include "compat/torch_compat.h"

#include <stdexcept>

namespace headroom::compat {

AttentionPath parseAttentionPath(const std::string &text) {
    if (text == "auto") {
        return AttentionPath::Auto;
    }
    if (text == "sdpa") {
        return AttentionPath::Sdpa;
    }
    if (text == "explicit") {
        return AttentionPath::Explicit;
    }
    throw std::invalid_argument("model.attention: '" + text +
                                "' is not an attention path (auto, sdpa, explicit)");
}

const char *attentionPathName(AttentionPath path) {
    switch (path) {
    case AttentionPath::Sdpa:
        return "sdpa";
    case AttentionPath::Explicit:
        return "explicit";
    case AttentionPath::Auto:
        break;
    }
    return "auto";
}

bool sdpaAvailable() {
    return HEADROOM_TORCH_AT_LEAST(2, 0);
}

AttentionPath chooseAttentionPath(AttentionPath requested, const AttentionShape &shape) {
    if (!sdpaAvailable() || shape.keyed_weight_dropout || requested == AttentionPath::Explicit) {
        return AttentionPath::Explicit;
    }
    if (requested == AttentionPath::Sdpa || !shape.cpu) {
        return AttentionPath::Sdpa;
    }
    const std::int64_t score_bytes = 4 * shape.batch * shape.heads * shape.length * shape.length;
    return shape.length <= kExplicitMaxLength && score_bytes <= kExplicitMaxScoreBytes
               ? AttentionPath::Explicit
               : AttentionPath::Sdpa;
}

} // namespace headroom::compat
