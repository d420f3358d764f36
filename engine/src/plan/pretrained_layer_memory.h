#pragma once

// One layer of a pretrained causal language model in the analytic memory model
// (plan/pretrained_memory_model.cpp): what each op of LibTorch's CPU kernels keeps for backward,
// and the layer's backward peak. See docs/PLANNER.md.

#include "plan/byte_counts.h"

#include <set>
#include <string>

namespace headroom::plan::lm_memory {

// The step's shapes and switches. Names as in docs/PLANNER.md: N = micro_batch x seq_len tokens, d
// the model width, dq and dkv = (key/value) heads x head_dim, h the MLP (or each expert's) width,
// A = micro_batch x heads x seq_len^2 attention weights, V the vocabulary.
struct Lm {
    bool gpt2 = false;
    Bytes B = 0, T = 0, N = 0, d = 0, hd = 0, dq = 0, dkv = 0, hidden = 0, V = 0, A = 0;
    Bytes e = 4;       // bytes of a projection's output: 4 in fp32, 2 under autocast
    bool half = false; // autocast: projections read low-precision copies of inputs, weights
    bool full = true;  // every parameter trains; else LoRA adapters only
    // model.base_dtype other than fp32 (LoRA only): the frozen projections run through
    // models/quantized_linear.cpp, which keeps nothing for backward but the stored weight.
    bool compact_base = false;
    Bytes rank = 0;
    double lora_dropout = 0;
    std::set<std::string> targets;
    double embedding_dropout = 0, residual_dropout = 0, attention_dropout = 0;
    // The run attends through scaled_dot_product_attention (LibTorch 2.1+, no attention
    // dropout, compat/attention_path.h's rule), which keeps its inputs, its output and a
    // log-sum-exp per row instead of the weights.
    bool sdpa = false;
    // Mixtral: each layer's MLP is a sparse MoE block of `experts` experts of width `hidden`,
    // `top_k` of them per token (models/sparse_moe_block.cpp); 0 = dense.
    Bytes experts = 0, top_k = 0;
};

struct LayerMemory {
    Bytes saved = 0;
    Bytes attention = 0; // of saved: up to the attention weights (left after the MLP's backward)
    bool output_grad = false;
};

// What a layer saves for backward; input_grad: its input needs a gradient.
LayerMemory layerMemory(const Lm &lm, bool input_grad);

// The peak of the layer's backward beyond the layers below it and the gradients above it:
// own_gradients are its weights' gradients.
Bytes layerPeak(const Lm &lm, const LayerMemory &layer, Bytes own_gradients);

// What RMSNorm (Llama family) and LayerNorm (GPT-2) keep for backward.
Bytes rmsNorm(const Lm &lm, bool input_grad);
Bytes layerNorm(const Lm &lm, bool input_grad);

} // namespace headroom::plan::lm_memory
