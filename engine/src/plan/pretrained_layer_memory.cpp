#include "plan/pretrained_layer_memory.h"

#include <algorithm>
#include <initializer_list>

namespace headroom::plan::lm_memory {

namespace {

// A [N, width] activation of `element` bytes; grad: it needs a gradient.
struct Activation {
    Bytes width = 0;
    Bytes element = 4;
    bool grad = false;
};

struct Projection {
    Bytes saved = 0;
    bool input_saved = false; // the input tensor itself (shared by the projections reading it)
    bool output_grad = false;
};

// A Linear (and its LoRA adapter) reading `input`. Ops keep only what the gradients that are needed
// use: a weight that trains keeps the input (under autocast its own low-precision copy of an fp32
// input); under autocast the weight's copy is kept when the input needs a gradient. An adapter
// keeps its dropout mask and dropped input (or the input), the rank-r activation between A and B,
// and under autocast the copies of A and B.
Projection project(const Lm &lm, const std::string &name, const Activation &input, Bytes out) {
    Projection projection;
    const bool adapted = !lm.full && lm.targets.count(name) != 0;
    const bool cast = lm.half && input.element > 2;
    const Bytes in = lm.N * input.width;
    if (lm.full) {
        projection.saved += cast ? 2 * in : 0;
        projection.input_saved = !cast;
    }
    if (lm.half && input.grad && !lm.compact_base) {
        projection.saved += 2 * input.width * out;
    }
    if (adapted) {
        if (lm.lora_dropout > 0) {
            projection.saved +=
                (input.grad ? input.element * in : 0) + (cast ? 2 : input.element) * in;
        } else if (cast) {
            projection.saved += 2 * in;
        } else {
            projection.input_saved = true;
        }
        projection.saved += lm.e * lm.N * lm.rank;
        if (lm.half) {
            projection.saved += 2 * lm.rank * out + (input.grad ? 2 * lm.rank * input.width : 0);
        }
    }
    projection.output_grad = input.grad || lm.full || adapted;
    return projection;
}

// Projections reading one input: what they keep, the input counted once.
Bytes saveAll(const Lm &lm, const Activation &input, std::initializer_list<Projection> readers) {
    Bytes saved = 0;
    bool input_saved = false;
    for (const Projection &projection : readers) {
        saved += projection.saved;
        input_saved = input_saved || projection.input_saved;
    }
    return saved + (input_saved ? input.element * lm.N * input.width : 0);
}

// Softmax output (kept for its own backward), and with attention dropout the mask and the dropped
// weights that the product with v keeps.
Bytes attentionWeights(const Lm &lm, bool scores_grad, bool v_grad) {
    if (lm.sdpa) {
        return scores_grad || v_grad ? 4 * lm.A / lm.T : 0;
    }
    if (lm.attention_dropout > 0) {
        return (scores_grad ? 2 * lm.e * lm.A : 0) + (v_grad ? lm.e * lm.A : 0);
    }
    return scores_grad || v_grad ? lm.e * lm.A : 0;
}

Bytes residualDropout(const Lm &lm, bool grad) {
    return lm.residual_dropout > 0 && grad ? lm.e * lm.N * lm.d : 0;
}

// Mixtral's sparse MoE block after its norm (models/sparse_moe_block.cpp). The router runs in
// fp32 with autocast off and reads the normed input (kept when its weight trains); with a
// gradient it keeps the softmax's probabilities [N, E], topk's indices and the renormalisation's
// top-k values and their sum. The dispatch keeps the sorted assignments and their tokens (int64
// [N k] each) for its index_select backwards. Each expert is a SwiGLU MLP over its share of the
// N k gathered rows: as a dense MLP over N k / E tokens, times E (each expert also keeps its own
// low-precision weight copies under autocast). The gating product keeps the experts' outputs
// [N k, d] when the gates need a gradient, and the gates when the outputs do.
LayerMemory sparseMoe(const Lm &lm, bool residual_grad) {
    const Bytes N = lm.N, k = lm.top_k, E = lm.experts, e = lm.e;
    LayerMemory block;
    Bytes &s = block.saved;
    const bool router_grad = residual_grad || lm.full;
    s += lm.full ? 4 * N * lm.d : 0;
    if (router_grad) {
        s += 4 * N * E + 8 * N * k + 4 * N * k + 4 * N;
    }
    s += 16 * N * k;
    Lm expert = lm;
    expert.N = N * k / E;
    const Activation gathered{lm.d, 4, router_grad};
    const Projection w1 = project(expert, "w1", gathered, lm.hidden);
    const Projection w3 = project(expert, "w3", gathered, lm.hidden);
    Bytes per_expert = saveAll(expert, gathered, {w1, w3});
    per_expert += (w1.output_grad ? 2 * e * expert.N * lm.hidden : 0) +
                  (w3.output_grad ? e * expert.N * lm.hidden : 0);
    const Activation product{lm.hidden, e, w1.output_grad || w3.output_grad};
    const Projection w2 = project(expert, "w2", product, lm.d);
    per_expert += saveAll(expert, product, {w2});
    s += E * per_expert;
    s += (router_grad ? e * N * k * lm.d : 0) + (w2.output_grad ? (lm.half ? 2 : 4) * N * k : 0);
    block.output_grad = router_grad || w2.output_grad;
    s += residualDropout(lm, block.output_grad);
    return block;
}

LayerMemory llamaLayer(const Lm &lm, bool input_grad) {
    const Bytes N = lm.N, e = lm.e;
    LayerMemory layer;
    Bytes &s = layer.saved;
    s += rmsNorm(lm, input_grad);
    const Activation normed{lm.d, 4, input_grad || lm.full};
    const Projection q = project(lm, "q_proj", normed, lm.dq);
    const Projection k = project(lm, "k_proj", normed, lm.dkv);
    const Projection v = project(lm, "v_proj", normed, lm.dkv);
    s += saveAll(lm, normed, {q, k, v});
    // Under autocast each rotation keeps its low-precision cos and sin [T, head_dim] (the fp32
    // tables are shared by all layers, see headSaved). The score product keeps the rotated q and k:
    // grouped-query attention multiplies a group's query heads with their one key/value head, never
    // repeated. The product with v keeps a contiguous copy of v.
    const Bytes rotation = lm.half ? 4 * lm.T * lm.hd : 0;
    const bool scores_grad = q.output_grad || k.output_grad;
    const bool attention_grad = scores_grad || v.output_grad;
    if (lm.sdpa) {
        // It keeps the rotated q, k and v and its output, whichever of them needs the gradient.
        // Counting k and v at their own width, not repeated to every query head as
        // compat/attention.cpp passes them, is what LibTorch 2.6's CPU kernels measured.
        s += (q.output_grad ? rotation : 0) + (k.output_grad ? rotation : 0) +
             (attention_grad ? e * N * (lm.dq + 2 * lm.dkv) : 0);
    } else {
        s += (q.output_grad ? rotation + e * N * lm.dkv : 0) +
             (k.output_grad ? rotation + e * N * lm.dq : 0) + (scores_grad ? e * N * lm.dkv : 0);
    }
    s += attentionWeights(lm, scores_grad, v.output_grad);
    layer.attention = s;
    const Activation attended{lm.dq, e, attention_grad};
    const Projection o = project(lm, "o_proj", attended, lm.d);
    s += saveAll(lm, attended, {o}) + residualDropout(lm, o.output_grad);
    if (lm.sdpa && attention_grad && !o.input_saved) {
        s += e * N * lm.dq; // the output, which o_proj does not keep
    }
    const bool residual_grad = input_grad || o.output_grad;
    s += rmsNorm(lm, residual_grad);
    if (lm.experts > 0) {
        const LayerMemory moe = sparseMoe(lm, residual_grad);
        s += moe.saved;
        layer.output_grad = residual_grad || moe.output_grad;
        return layer;
    }
    const Activation normed2{lm.d, 4, residual_grad || lm.full};
    const Projection gate = project(lm, "gate_proj", normed2, lm.hidden);
    const Projection up = project(lm, "up_proj", normed2, lm.hidden);
    s += saveAll(lm, normed2, {gate, up});
    // silu keeps its input; the product keeps silu's output and up's.
    s += (gate.output_grad ? 2 * e * N * lm.hidden : 0) + (up.output_grad ? e * N * lm.hidden : 0);
    const Activation product{lm.hidden, e, gate.output_grad || up.output_grad};
    const Projection down = project(lm, "down_proj", product, lm.d);
    s += saveAll(lm, product, {down}) + residualDropout(lm, down.output_grad);
    layer.output_grad = residual_grad || down.output_grad;
    return layer;
}

LayerMemory gpt2Layer(const Lm &lm, bool input_grad) {
    const Bytes N = lm.N, e = lm.e;
    LayerMemory layer;
    Bytes &s = layer.saved;
    s += layerNorm(lm, input_grad);
    const Activation normed{lm.d, 4, input_grad || lm.full};
    const Projection qkv = project(lm, "c_attn", normed, 3 * lm.d);
    s += saveAll(lm, normed, {qkv});
    // Attention copies the strided q, k and v into batches of matrices; the products keep them.
    s += (qkv.output_grad ? 3 * e * N * lm.d : 0) +
         attentionWeights(lm, qkv.output_grad, qkv.output_grad);
    layer.attention = s;
    const Activation attended{lm.d, e, qkv.output_grad};
    const Projection o = project(lm, "c_proj", attended, lm.d);
    s += saveAll(lm, attended, {o}) + residualDropout(lm, o.output_grad);
    if (lm.sdpa && qkv.output_grad && !o.input_saved) {
        s += e * N * lm.d; // scaled_dot_product_attention's output, which c_proj does not keep
    }
    const bool residual_grad = input_grad || o.output_grad;
    s += layerNorm(lm, residual_grad);
    const Activation normed2{lm.d, 4, residual_grad || lm.full};
    const Projection fc = project(lm, "c_fc", normed2, lm.hidden);
    s += saveAll(lm, normed2, {fc}) + (fc.output_grad ? e * N * lm.hidden : 0); // gelu's input
    const Activation activated{lm.hidden, e, fc.output_grad};
    const Projection out = project(lm, "c_proj", activated, lm.d);
    s += saveAll(lm, activated, {out}) + residualDropout(lm, out.output_grad);
    layer.output_grad = residual_grad || out.output_grad;
    return layer;
}

} // namespace

// RMSNorm computes in fp32: with a gradient it keeps its input, the square (LibTorch 1.13's mean
// keeps its input) and 1/rms; a weight that trains keeps the normalised input too.
Bytes rmsNorm(const Lm &lm, bool input_grad) {
    return (input_grad ? 8 * lm.N * lm.d + 4 * lm.N : 0) + (lm.full ? 4 * lm.N * lm.d : 0);
}

// LayerNorm keeps its input, mean and 1/std whenever anything about it needs a gradient.
Bytes layerNorm(const Lm &lm, bool input_grad) {
    return input_grad || lm.full ? 4 * lm.N * lm.d + 8 * lm.N : 0;
}

LayerMemory layerMemory(const Lm &lm, bool input_grad) {
    return lm.gpt2 ? gpt2Layer(lm, input_grad) : llamaLayer(lm, input_grad);
}

// The peak of one layer's backward from its saved set and its own weights' gradients: the larger of
// two moments, measured per family, precision and LoRA. MLP: the incoming gradient and the MLP's
// activation gradients while its saved tensors are alive (and the last projection's weight gradient
// when it trains). Attention: the MLP's saved tensors are gone; the softmax backward holds the
// gradients of the weights and the scores beside the attention half's saved set and a few [N, d]
// gradients (the coefficient of N d is the largest measured).
Bytes layerPeak(const Lm &lm, const LayerMemory &layer, Bytes own_gradients) {
    const Bytes N = lm.N, e = lm.e, Nd = N * lm.d, Nh = N * lm.hidden, dh = lm.d * lm.hidden;
    Bytes mlp = 0;
    Bytes nd = 0;
    if (lm.gpt2) {
        mlp = lm.full ? e * Nh + 4 * dh : 2 * e * Nh;
        if (lm.full && lm.half) { // c_fc's backward: fp32 and low-precision [N, d] gradients
            mlp = std::max(mlp, 6 * Nd + 2 * Nh + 3 * dh);
        }
        nd = lm.full ? (lm.half ? 7 : 9) : (lm.half ? 10 : 12);
    } else if (lm.experts > 0) {
        // One expert's backward at a time over its N k / E rows, beside the gradient of the
        // gathered rows [N k, d] that each expert's slice adds into.
        const Bytes Nk = N * lm.top_k, n = Nk / lm.experts;
        mlp = (lm.full ? 2 * e * n * lm.hidden + e * dh : 3 * e * n * lm.hidden) + 8 * Nk * lm.d;
        nd = lm.full ? 6 : 8;
    } else {
        mlp = lm.full ? 2 * e * Nh + e * dh : 3 * e * Nh;
        nd = lm.full ? 6 : 8;
    }
    // With attention dropout the dropped weights are freed before the softmax backward.
    const bool dropout = lm.attention_dropout > 0;
    const Bytes weights_grad = lm.sdpa ? 0 : (dropout ? 1 : 2) * e * lm.A;
    if (dropout) {
        nd = std::max(nd, Bytes{lm.gpt2 ? 14.0 : 17.0});
    }
    return std::max(layer.saved + 4 * Nd + mlp,
                    layer.attention + weights_grad + own_gradients + nd * Nd);
}

} // namespace headroom::plan::lm_memory
