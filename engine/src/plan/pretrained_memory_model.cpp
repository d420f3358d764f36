#include "plan/pretrained_memory_model.h"

#include "compat/torch_compat.h"
#include "hf/checkpoint_layout.h"
#include "hf/lora_targets.h"
#include "util/base_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace headroom::plan {

namespace {

using Bytes = double; // products of shapes; rounded at the end

// The CPU generator's state that a checkpointed layer keeps to replay its dropout.
constexpr Bytes kRngStateBytes = 5056;

// The step's shapes and switches. Names as in docs/PLANNER.md: N = micro_batch x seq_len tokens, d
// the model width, dq and dkv = (key/value) heads x head_dim, h the MLP width, A = micro_batch x
// heads x seq_len^2 attention weights, V the vocabulary.
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
    // LibTorch 2.1+ without attention dropout attends through scaled_dot_product_attention
    // (compat/attention.cpp), which keeps its inputs, its output and a log-sum-exp per row
    // instead of the weights.
    bool sdpa = false;
};

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

// RMSNorm computes in fp32: with a gradient it keeps its input, the square (LibTorch 1.13's mean
// keeps its input) and 1/rms; a weight that trains keeps the normalised input too.
Bytes rmsNorm(const Lm &lm, bool input_grad) {
    return (input_grad ? 8 * lm.N * lm.d + 4 * lm.N : 0) + (lm.full ? 4 * lm.N * lm.d : 0);
}

// LayerNorm keeps its input, mean and 1/std whenever anything about it needs a gradient.
Bytes layerNorm(const Lm &lm, bool input_grad) {
    return input_grad || lm.full ? 4 * lm.N * lm.d + 8 * lm.N : 0;
}

struct LayerMemory {
    Bytes saved = 0;
    Bytes attention = 0; // of saved: up to the attention weights (left after the MLP's backward)
    bool output_grad = false;
};

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

LayerMemory layerMemory(const Lm &lm, bool input_grad) {
    return lm.gpt2 ? gpt2Layer(lm, input_grad) : llamaLayer(lm, input_grad);
}

// models/token_losses.cpp: the head and the cross-entropy run on blocks of rows whose fp32 logits
// take at most 16 MiB.
constexpr Bytes kLogitsBlockBytes = 16 << 20;

Bytes logitsBlockRows(const Lm &lm) {
    return std::min(lm.N, std::max(Bytes{1}, std::floor(kLogitsBlockBytes / (4 * lm.V))));
}

// Outside the layers at the end of the forward pass: the embedding dropout's mask, the rotary
// tables (fp32, kept by the rotations or by checkpointed layers), the final norm, the head's input,
// under autocast the head's weight copy (one for all the blocks), and the cross-entropy's fp32
// probabilities and targets.
Bytes headSaved(const Lm &lm, bool checkpointing) {
    const Bytes N = lm.N, d = lm.d;
    Bytes saved = lm.gpt2 && lm.embedding_dropout > 0 && lm.full ? 4 * N * d : 0;
    if (!lm.gpt2 && (!lm.half || checkpointing)) {
        saved += 8 * lm.T * lm.hd;
    }
    saved += lm.gpt2 ? layerNorm(lm, true) : rmsNorm(lm, true);
    if (lm.full) {
        saved += (lm.half ? 2 : 4) * N * d;
    }
    if (lm.half) {
        saved += 2 * lm.V * d;
    }
    return saved + 4 * N * lm.V + 9 * N;
}

// The head's forward beyond everything saved when the last block is done, at each block: its
// logits (under autocast also their fp32 copy) beside its probabilities, the blocks after it not
// made yet.
Bytes headForward(const Lm &lm) {
    const Bytes rows = logitsBlockRows(lm);
    const Bytes blocks = std::ceil(lm.N / rows);
    const Bytes last = lm.N - (blocks - 1) * rows;
    const Bytes made = (lm.half ? 10 : 8) * lm.V;
    Bytes peak = made * last - (4 * lm.V * last);
    if (blocks > 1) {
        peak = std::max(peak, made * rows - 4 * lm.V * (rows + last));
    }
    return peak;
}

// The head's backward beyond everything saved, block by block from the last (smallest) one. The
// cross-entropy's gradient is written over its saved probabilities (under autocast cast to a
// low-precision copy, and the probabilities freed); the head's backward then makes the block's
// weight gradient, which autograd adds to the sum of the blocks before out of place (old, new and
// sum alive at once; under autocast in low precision, into the sum that the weight copy's backward
// turns to fp32 at the end). The weight copy, frozen or not, lives until the head's backward is
// done. Coefficients measured on LibTorch 1.13's CPU kernels.
Bytes headBackward(const Lm &lm) {
    const Bytes rows = logitsBlockRows(lm);
    const Bytes blocks = std::ceil(lm.N / rows);
    const Bytes V = lm.V, Vd = lm.V * lm.d;
    Bytes freed = 0;
    Bytes row_gradients = 0;
    Bytes peak = 0;
    for (Bytes block = 0; block < blocks; ++block) {
        const Bytes r = block == 0 ? lm.N - (blocks - 1) * rows : rows;
        const bool first = block == 0;
        const bool last = block == blocks - 1;
        const Bytes probabilities = 4 * r * V;
        row_gradients += lm.e * r * lm.d;
        if (lm.half) {
            const Bytes sum = lm.full && !first ? 2 * Vd : 0;
            peak = std::max(peak, sum + 2 * r * V + row_gradients - freed);
            freed += probabilities;
            if (lm.full && !first && !last) {
                peak = std::max(peak, 6 * Vd + row_gradients - freed);
            }
            continue;
        }
        if (lm.full) {
            peak =
                std::max(peak, first ? 4 * Vd + row_gradients - freed
                                     : std::max(8 * Vd + row_gradients - freed,
                                                12 * Vd + row_gradients - freed - probabilities));
        }
        freed += probabilities;
    }
    if (lm.full && lm.half) { // the weight copy's backward: the sum in fp32 beside its bf16
        peak = std::max(peak, (blocks > 1 ? 4.5 : 4.0) * Vd + row_gradients - freed);
    }
    return peak;
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

struct Site {
    const char *name;
    std::int64_t in;
    std::int64_t out;
};

std::vector<Site> sitesOf(const hf::ArchitectureConfig &a) {
    const std::int64_t d = a.hidden_size, h = a.intermediate_size;
    if (a.family == hf::ModelFamily::Gpt2) {
        return {{"c_attn", d, 3 * d}, {"c_proj", d, d}, {"c_fc", d, h}, {"c_proj", h, d}};
    }
    const std::int64_t q = a.heads * a.head_dim, kv = a.kv_heads * a.head_dim;
    return {{"q_proj", d, q},    {"k_proj", d, kv}, {"v_proj", d, kv},  {"o_proj", q, d},
            {"gate_proj", d, h}, {"up_proj", d, h}, {"down_proj", h, d}};
}

std::string formatCount(std::int64_t count) {
    char text[32];
    const auto value = static_cast<double>(count);
    std::snprintf(text, sizeof text, value >= 1e9 ? "%.2f B" : "%.2f M",
                  value >= 1e9 ? value / 1e9 : value / 1e6);
    return text;
}

std::uint64_t toBytes(Bytes value) {
    return value <= 0 ? 0 : static_cast<std::uint64_t>(value + 0.5);
}

} // namespace

std::set<std::string> pretrainedLoraTargets(const std::string &text,
                                            const hf::ArchitectureConfig &architecture) {
    std::set<std::string> names;
    for (const Site &site : sitesOf(architecture)) {
        names.insert(site.name);
    }
    return hf::resolveLoraTargets(text, names);
}

std::string describePretrained(const hf::ArchitectureConfig &a, std::int64_t seq_len,
                               std::int64_t parameters) {
    return a.architecture + " · " + std::to_string(a.layers) + " layers · dim " +
           std::to_string(a.hidden_size) + " · " + std::to_string(a.heads) + " heads (" +
           std::to_string(a.kv_heads) + " key/value) · context " + std::to_string(seq_len) +
           " · vocab " + std::to_string(a.vocab_size) + " · " + formatCount(parameters) +
           " parameters";
}

StepMemory pretrainedStepMemory(const Config &config, const hf::ArchitectureConfig &architecture,
                                const StepTechniques &techniques) {
    const hf::ArchitectureConfig &a = architecture;
    Lm lm;
    lm.gpt2 = a.family == hf::ModelFamily::Gpt2;
    lm.B = static_cast<Bytes>(techniques.micro_batch);
    lm.T = static_cast<Bytes>(config.integer("model.seq_len"));
    lm.N = lm.B * lm.T;
    lm.d = static_cast<Bytes>(a.hidden_size);
    lm.hd = static_cast<Bytes>(a.head_dim);
    lm.dq = static_cast<Bytes>(a.heads * a.head_dim);
    lm.dkv = static_cast<Bytes>(a.kv_heads * a.head_dim);
    lm.hidden = static_cast<Bytes>(a.intermediate_size);
    lm.V = static_cast<Bytes>(a.vocab_size);
    lm.A = lm.B * static_cast<Bytes>(a.heads) * lm.T * lm.T;
    lm.half = techniques.precision != EstimatePrecision::Fp32;
    lm.e = lm.half ? 2 : 4;
    if (config.real("model.dropout") > 0) { // model.dropout=0 switches the base's dropout off
        lm.embedding_dropout = a.embedding_dropout;
        lm.residual_dropout = a.residual_dropout;
        lm.attention_dropout = a.attention_dropout;
    }
    lm.sdpa = HEADROOM_TORCH_AT_LEAST(2, 1) && lm.attention_dropout == 0;
    lm.full = techniques.lora_rank == 0;
    // A full fine-tune trains every weight in fp32 (Config::validate refuses another base format).
    const BaseFormat format =
        lm.full ? BaseFormat::Fp32 : parseBaseFormat(config.text("model.base_dtype"));
    lm.compact_base = format != BaseFormat::Fp32;
    if (!lm.full) {
        lm.rank = static_cast<Bytes>(techniques.lora_rank);
        lm.lora_dropout = techniques.lora_dropout;
        lm.targets = pretrainedLoraTargets(config.text("lora.targets"), a);
    }

    StepMemory memory;
    std::vector<std::int64_t> base_sizes;
    std::int64_t base_parameters = 0;
    std::int64_t layer_parameters = 0;
    for (const hf::ExpectedTensor &tensor : hf::expectedTensors(a)) {
        std::int64_t size = 1;
        for (const std::int64_t dimension : tensor.shape) {
            size *= dimension;
        }
        base_sizes.push_back(size);
        base_parameters += size;
        const bool in_layer = tensor.name.find(".h.") != std::string::npos ||
                              tensor.name.find(".layers.") != std::string::npos;
        layer_parameters += in_layer ? size : 0;
    }
    layer_parameters /= a.layers;
    std::vector<std::int64_t> trainable_sizes;
    std::int64_t adapter_parameters = 0; // per layer
    if (lm.full) {
        trainable_sizes = base_sizes;
    } else {
        for (const Site &site : sitesOf(a)) {
            if (lm.targets.count(site.name) != 0) {
                adapter_parameters += techniques.lora_rank * (site.in + site.out);
            }
        }
        for (std::int64_t layer = 0; layer < a.layers; ++layer) {
            for (const Site &site : sitesOf(a)) {
                if (lm.targets.count(site.name) != 0) {
                    trainable_sizes.push_back(techniques.lora_rank * site.in);
                    trainable_sizes.push_back(site.out * techniques.lora_rank);
                }
            }
        }
    }
    std::int64_t trainable = 0;
    for (const std::int64_t size : trainable_sizes) {
        trainable += size;
    }
    memory.parameters = base_parameters + (lm.full ? 0 : trainable);
    memory.trainable = trainable;
    // The projections' weights in the base's format (scales included); embeddings, norms,
    // biases, the head and the adapters stay fp32. A compact base's projections dequantize into
    // one buffer as large as the largest weight, in the compute dtype, that stays from the first
    // step on: a workspace, counted as overhead. A bf16/fp16 base computing in its own dtype
    // needs none.
    Bytes projection_weights = 0;
    Bytes projection_bytes = 0;
    Bytes largest_projection = 0;
    for (const Site &site : sitesOf(a)) {
        const Bytes size = static_cast<Bytes>(site.in) * static_cast<Bytes>(site.out);
        projection_weights += size;
        projection_bytes += size * baseBytesPerWeight(format, site.in);
        largest_projection = std::max(largest_projection, size);
    }
    const auto layers = static_cast<Bytes>(a.layers);
    memory.weights = toBytes(4 * static_cast<Bytes>(memory.parameters) +
                             layers * (projection_bytes - 4 * projection_weights));
    const bool computes_in_base_dtype =
        !isQuantized(format) && lm.half && config.text("precision") == baseFormatName(format);
    const Bytes dequantization_buffer =
        lm.compact_base && !computes_in_base_dtype ? largest_projection * (lm.half ? 2 : 4) : 0;
    const std::uint64_t state = optimizerStateBytes(trainable_sizes, techniques.adamw8bit);
    (techniques.offload ? memory.host : memory.optimizer) = state;
    const Bytes all_gradients = 4 * static_cast<Bytes>(trainable);
    const Bytes layer_gradients =
        4 * static_cast<Bytes>(lm.full ? layer_parameters : adapter_parameters);
    // The head's weight gradient (the tied embedding's, or lm_head's) and the final norm's exist
    // from the start of backward; an untied embedding's and GPT-2's positions' come last.
    const Bytes head_gradients = lm.full ? 4 * (lm.V * lm.d + lm.d * (lm.gpt2 ? 2 : 1)) : 0;
    const bool accumulating = techniques.accumulation > 1;

    // Saved at the end of the forward pass, layer by layer. A checkpointed layer keeps its input
    // (and the generator state); one whose input needs no gradient (LoRA's first layer) runs plain
    // (models/activation_checkpoint.cpp).
    std::vector<LayerMemory> full_layer(static_cast<std::size_t>(a.layers));
    std::vector<Bytes> kept(static_cast<std::size_t>(a.layers));
    std::vector<bool> recomputed(static_cast<std::size_t>(a.layers), false);
    bool input_grad = lm.full;
    for (std::int64_t index = 0; index < a.layers; ++index) {
        const auto i = static_cast<std::size_t>(index);
        const LayerMemory layer = layerMemory(lm, input_grad);
        full_layer[i] = layer;
        const bool recompute = techniques.checkpoint_every > 0 &&
                               index % techniques.checkpoint_every == 0 && input_grad;
        recomputed[i] = recompute;
        kept[i] = recompute ? 4 * lm.N * lm.d + kRngStateBytes : layer.saved;
        input_grad = layer.output_grad;
    }
    Bytes saved_layers = 0;
    for (const Bytes bytes : kept) {
        saved_layers += bytes;
    }
    const Bytes head = headSaved(lm, techniques.checkpoint_every > 0);
    const Bytes earlier = accumulating ? all_gradients : 0;

    // The end of the forward pass and the start of backward: the head's transients next to
    // everything saved.
    Bytes peak = earlier + saved_layers + head + std::max(headForward(lm), headBackward(lm));
    // Each layer's backward (a checkpointed one recomputes first): the layers below as saved, the
    // gradients of everything above it, its whole saved set and its backward transient.
    Bytes below = 0;
    for (std::int64_t index = 0; index < a.layers; ++index) {
        const auto i = static_cast<std::size_t>(index);
        const Bytes above =
            accumulating
                ? all_gradients
                : head_gradients + layer_gradients * static_cast<Bytes>(a.layers - 1 - index);
        // A recomputed layer's output is alive through its nested backward, as are the generator
        // states forked around the recompute.
        const Bytes layer = layerPeak(lm, full_layer[i], layer_gradients) +
                            (recomputed[i] ? 4 * lm.N * lm.d + 2 * kRngStateBytes : 0);
        peak = std::max(peak, below + above + layer);
        below += kept[i];
    }
    // The end of backward: a tied embedding's gradient is made in new [V, d] buffers and added to
    // the head's (an untied one becomes the gradient itself).
    if (lm.full) {
        const Bytes embedding = a.tie_word_embeddings ? 8 * lm.V * lm.d : 0;
        peak = std::max(peak, all_gradients + embedding);
    }
    // The optimizer step: every gradient (and the gradient-norm and update temporaries).
    const Bytes step = all_gradients + static_cast<Bytes>(kOptimizerStepWorkspace);
    // Gradients alive at the peak (all of them at the step or with accumulation); the estimator
    // splits the sum as a run's measured breakdown does.
    memory.gradients = step >= peak || accumulating ? toBytes(all_gradients) : 0;
    memory.activations = toBytes(std::max(peak, step)) - memory.gradients;
    // The int64 tokens and targets, and the dequantization buffer.
    memory.overhead = toBytes(16 * lm.N + 8 * lm.B + dequantization_buffer);
    memory.model = describePretrained(a, config.integer("model.seq_len"), memory.parameters);
    return memory;
}

} // namespace headroom::plan
