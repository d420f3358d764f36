// Packed rows: several documents side by side in one row of a batch, each seeing only itself.
// The positions restart at 0 with every document and attention never crosses from one to
// another, so a packed row computes what its documents compute one by one.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::models {

struct DocumentLayout {
    torch::Tensor positions; // [B, T] int64: each token's position within its document
    torch::Tensor mask;      // [B, 1, T, T] bool: query t may attend key s (same document, s <= t)
    bool defined() const { return positions.defined(); }
};

// The layout of B rows of `length` tokens from each row's document lengths, in order. Lengths
// may sum to more than `length` (the row is cut) or less (the rest of the row is one more
// document). Built on the CPU, moved to `device`.
DocumentLayout documentLayout(const std::vector<std::vector<std::int32_t>> &document_lengths,
                              std::int64_t length, const torch::Device &device);

} // namespace headroom::models
