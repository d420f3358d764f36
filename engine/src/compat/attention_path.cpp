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

bool sdpaAvailable(bool with_scale) {
    return with_scale ? HEADROOM_TORCH_AT_LEAST(2, 1) : HEADROOM_TORCH_AT_LEAST(2, 0);
}

std::string attentionPathRefusal(AttentionPath requested, bool with_scale, bool weight_dropout,
                                 const std::string &dropout_key) {
    if (requested != AttentionPath::Sdpa) {
        return {};
    }
    if (!sdpaAvailable(with_scale)) {
        return std::string("model.attention=sdpa needs LibTorch ") + (with_scale ? "2.1" : "2.0") +
               " or newer; this build of Headroom has LibTorch " + torchVersion() +
               " (use auto or explicit)";
    }
    if (weight_dropout) {
        return "model.attention=sdpa cannot drop attention weights with the keyed masks that "
               "make replays exact (" +
               dropout_key + "): set model.dropout=0, or model.attention=auto or explicit";
    }
    return {};
}

AttentionPath chooseAttentionPath(AttentionPath requested, const AttentionShape &shape) {
    if (!sdpaAvailable() || shape.keyed_weight_dropout || requested == AttentionPath::Explicit) {
        return AttentionPath::Explicit;
    }
    if (requested == AttentionPath::Sdpa || !shape.cpu) {
        return AttentionPath::Sdpa;
    }
    if (shape.length > kExplicitMaxLengthPerHeadDim * shape.head_dim) {
        return AttentionPath::Sdpa;
    }
    const double weight_bytes =
        4.0 * static_cast<double>(shape.layers) * static_cast<double>(shape.batch * shape.heads) *
        static_cast<double>(shape.length) * static_cast<double>(shape.length);
    return shape.memory_budget > 0 && weight_bytes > static_cast<double>(shape.memory_budget) / 4
               ? AttentionPath::Sdpa
               : AttentionPath::Explicit;
}

} // namespace headroom::compat
