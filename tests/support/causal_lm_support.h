#pragma once

#include "models/causal_lm.h"

#include <cstdint>

namespace test_support {

// A Llama-family model small enough for unit tests: 2 layers, dim 64, grouped-query attention
// (4 heads, 2 key/value heads), vocabulary 48.
inline headroom::models::CausalLmOptions tinyLlamaOptions(std::int64_t hidden = 128) {
    headroom::models::CausalLmOptions options;
    options.vocab_size = 48;
    options.dim = 64;
    options.layers = 2;
    options.heads = 4;
    options.kv_heads = 2;
    options.head_dim = 16;
    options.hidden = hidden;
    options.max_positions = 32;
    return options;
}

} // namespace test_support
