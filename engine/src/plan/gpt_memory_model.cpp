#include "plan/gpt_memory_model.h"

#include "compat/attention_path.h"
#include "optim/adamw8bit.h"
#include "plan/byte_counts.h"
#include "quant/blockwise_quantization.h"
#include "recipes/recipe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace headroom::plan {

namespace {

// Bytes per element of each shape product, for one precision. Names: N = micro_batch x
// seq_len tokens, d = model.dim, A = micro_batch x heads x seq_len^2 attention weights,
// V = vocabulary. Index 0: dropout > 0, 1: dropout = 0.
struct GptCoefficients {
    Bytes block_nd[2];       // saved per block: LayerNorm/Linear inputs, qkv, MLP, residuals
    Bytes block_a[2];        // softmax weights (+ dropout mask and output)
    Bytes block_n;           // LayerNorm mean and rstd
    Bytes block_d2;          // autocast's low-precision copies of the block's weights
    Bytes head_nv;           // log-softmax output
    Bytes head_nd[2];        // embedding output (+ dropout mask), final LayerNorm output
    Bytes head_n;            // final LayerNorm statistics
    Bytes head_vd;           // autocast's copy of the tied embedding
    Bytes head_backward_nv;  // cross-entropy backward: gradient of the log-probabilities and
                             // of the logits, both alive at once
    Bytes block_backward_nd; // a block's backward transient (activation gradients)
    Bytes block_backward_d2; // ... and its weight gradients
    Bytes recompute_nd;      // a checkpointed block's recompute and nested backward, beyond
    Bytes recompute_d2;      // its saved activations (gradients of its weights included)
    Bytes residual_nd;       // a checkpointed block keeps its output only
    Bytes embedding_nd[2];   // saved by the embedding stage (kept below a checkpointed block)
    Bytes linear_input;      // bytes per element of a Linear input saved for backward
};

// clang-format off
constexpr GptCoefficients kFp32{{72, 64}, {12, 4}, 16, 0,  4, {12, 8},     8, 0, 8, 12.5, 16,
                                19.0, 22.7, 4, {8, 4}, 4};
constexpr GptCoefficients kHalf{{40, 36}, {6, 2},  16, 24, 4, {10.8, 6.8}, 0, 2, 8, 9.3,  16,
                                19.4, 0,    4, {8, 4}, 2};
// clang-format on

// Per block: ln1, qkv (3d^2+3d), proj, ln2, then either fc (4d^2+4d) and fc_out (4d^2+d) or,
// in an MoE block, the router (d x experts) and each expert's fc (d x h + h) and fc_out
// (h x d + d), as in gpt.cpp and moe.cpp.
std::vector<std::int64_t> gptParameterSizes(const models::GptOptions &options) {
    const std::int64_t dim = options.dim();
    std::vector<std::int64_t> sizes{options.vocab_size() * dim, options.seq_len() * dim};
    const models::MoeOptions &moe = options.moe();
    const std::int64_t hidden = moe.experts() > 0 ? models::expertHidden(moe, dim) : 0;
    for (std::int64_t layer = 0; layer < options.layers(); ++layer) {
        for (const std::int64_t size :
             {dim, dim, 3 * dim * dim, 3 * dim, dim * dim, dim, dim, dim}) {
            sizes.push_back(size);
        }
        if (!models::isMoeBlock(options, layer)) {
            for (const std::int64_t size : {4 * dim * dim, 4 * dim, 4 * dim * dim, dim}) {
                sizes.push_back(size);
            }
            continue;
        }
        sizes.push_back(dim * moe.experts());
        for (std::int64_t expert = 0; expert < moe.experts(); ++expert) {
            for (const std::int64_t size : {dim * hidden, hidden, hidden * dim, dim}) {
                sizes.push_back(size);
            }
        }
    }
    sizes.push_back(dim);
    sizes.push_back(dim);
    return sizes;
}

// What an MoE block saves for backward beyond a dense block (negative when its experts are
// narrower than the dense MLP): the dense MLP's saved fc input, fc output and GELU output
// (4d wide) are replaced by the router's probabilities and indices, the tokens gathered for
// each of their top_k experts, the experts' fc and GELU outputs (h wide) and their gated
// outputs. `act` is the bytes of an activation in the compute precision; the router and the
// gathered tokens stay fp32.
// Tokens over capacity are not gathered: below a capacity factor of 1 the experts hold at most
// E x ceil(cf x T x k / E) of a sequence's T x k assignments.
Bytes moeBlockDelta(const models::GptOptions &options, Bytes N, Bytes linear_input, Bytes act) {
    const models::MoeOptions &moe = options.moe();
    const auto d = static_cast<Bytes>(options.dim());
    const auto k = static_cast<Bytes>(moe.top_k());
    const auto E = static_cast<Bytes>(moe.experts());
    const auto h = static_cast<Bytes>(models::expertHidden(moe, options.dim()));
    const auto T = static_cast<Bytes>(options.seq_len());
    Bytes kept = N * k;
    if (moe.capacity_factor() > 0) {
        const Bytes capacity = std::ceil(moe.capacity_factor() * T * k / E);
        kept = std::min(kept, N / T * E * capacity);
    }
    const Bytes dense_mlp = N * d * (linear_input + 2 * 4 * act);
    const Bytes router = N * d * 4 + 4 * N * E * 4 + 3 * 8 * N * k;
    const Bytes experts = kept * d * (linear_input + act) + 2 * kept * h * act + kept * act;
    return router + experts - dense_mlp;
}

struct LoraSiteShape {
    const char *target;
    std::int64_t in;
    std::int64_t out;
};

std::string millions(std::int64_t count) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f M", static_cast<double>(count) / 1e6);
    return text;
}

} // namespace

std::uint64_t optimizerStateBytes(const std::vector<std::int64_t> &parameter_sizes,
                                  bool adamw8bit) {
    std::uint64_t bytes = 0;
    for (const std::int64_t size : parameter_sizes) {
        if (!adamw8bit || size < train::AdamW8bit::kMinQuantizedElements) {
            bytes += 8 * static_cast<std::uint64_t>(size);
            continue;
        }
        const auto blocks = static_cast<std::uint64_t>((size + train::kQuantizationBlock - 1) /
                                                       train::kQuantizationBlock);
        bytes +=
            2 * blocks * static_cast<std::uint64_t>(train::kQuantizationBlock) + 2 * blocks * 4;
    }
    return bytes;
}

StepMemory gptStepMemory(const Config &config, std::int64_t vocab_size,
                         const StepTechniques &techniques) {
    const models::GptOptions options = train::gptOptionsFromConfig(config, vocab_size);
    const auto V = static_cast<Bytes>(options.vocab_size());
    const auto T = static_cast<Bytes>(options.seq_len());
    const auto d = static_cast<Bytes>(options.dim());
    const auto H = static_cast<Bytes>(options.heads());
    const std::int64_t layers = options.layers();
    const auto B = static_cast<Bytes>(techniques.micro_batch);
    const Bytes N = B * T;
    const Bytes Nd = N * d;
    const Bytes A = B * H * T * T;
    const Bytes NV = N * V;
    const int drop = options.dropout() > 0 ? 0 : 1;
    const GptCoefficients &c = techniques.precision == EstimatePrecision::Fp32 ? kFp32 : kHalf;

    StepMemory memory;
    const std::vector<std::int64_t> base_sizes = gptParameterSizes(options);
    std::int64_t base_parameters = 0;
    for (const std::int64_t size : base_sizes) {
        base_parameters += size;
    }

    // LoRA freezes the base: a frozen Linear keeps no input for backward (no weight
    // gradient), an adapter keeps its (dropped-out) input and its rank-r projection.
    const bool lora = techniques.lora_rank > 0;
    const auto r = static_cast<Bytes>(techniques.lora_rank);
    const LoraSiteShape sites[] = {{"qkv", options.dim(), 3 * options.dim()},
                                   {"attn_out", options.dim(), options.dim()},
                                   {"mlp_in", options.dim(), 4 * options.dim()},
                                   {"mlp_out", 4 * options.dim(), options.dim()}};
    // An MoE block has no dense MLP; each of its experts can carry adapters of its own.
    const models::MoeOptions &moe = options.moe();
    const std::int64_t expert_hidden =
        moe.experts() > 0 ? models::expertHidden(moe, options.dim()) : 0;
    const LoraSiteShape expert_sites[] = {{"experts_in", options.dim(), expert_hidden},
                                          {"experts_out", expert_hidden, options.dim()}};
    const auto isMlpSite = [](const LoraSiteShape &site) {
        return std::string(site.target).rfind("mlp_", 0) == 0;
    };
    std::vector<std::int64_t> trainable_sizes;
    Bytes lora_block_delta = 0;
    Bytes lora_mlp_delta = 0;    // the dense MLP's share of lora_block_delta
    Bytes lora_expert_delta = 0; // per MoE block, the experts' adapters
    if (lora) {
        for (std::int64_t layer = 0; layer < layers; ++layer) {
            const bool moe_block = models::isMoeBlock(options, layer);
            for (const LoraSiteShape &site : sites) {
                if (techniques.lora_targets.count(site.target) != 0 &&
                    !(moe_block && isMlpSite(site))) {
                    trainable_sizes.push_back(techniques.lora_rank * site.in);
                    trainable_sizes.push_back(site.out * techniques.lora_rank);
                }
            }
            for (std::int64_t expert = 0; moe_block && expert < moe.experts(); ++expert) {
                for (const LoraSiteShape &site : expert_sites) {
                    if (techniques.lora_targets.count(site.target) != 0) {
                        trainable_sizes.push_back(techniques.lora_rank * site.in);
                        trainable_sizes.push_back(site.out * techniques.lora_rank);
                    }
                }
            }
        }
        // An expert adapter's input is the tensor its frozen Linear would keep anyway; it adds
        // the rank-r projection of each kept assignment (at most N x top_k).
        const Bytes lora_act = techniques.precision == EstimatePrecision::Fp32 ? 4 : 2;
        for (const LoraSiteShape &site : expert_sites) {
            if (techniques.lora_targets.count(site.target) != 0) {
                lora_expert_delta += N * static_cast<Bytes>(moe.top_k()) * r * lora_act;
            }
        }
        const Bytes act = techniques.precision == EstimatePrecision::Fp32 ? 4 : 2;
        for (const LoraSiteShape &site : sites) {
            const Bytes input = N * static_cast<Bytes>(site.in);
            Bytes delta = -input * c.linear_input;
            if (techniques.lora_targets.count(site.target) != 0) {
                delta += techniques.lora_dropout > 0 ? 2 * input * act : input * c.linear_input;
                delta += N * r * act;
            }
            lora_block_delta += delta;
            lora_mlp_delta += isMlpSite(site) ? delta : 0;
        }
    } else {
        trainable_sizes = base_sizes;
    }
    std::int64_t trainable = 0;
    for (const std::int64_t size : trainable_sizes) {
        trainable += size;
    }
    memory.parameters = base_parameters + (lora ? trainable : 0);
    memory.trainable = trainable;
    memory.weights = 4 * static_cast<std::uint64_t>(memory.parameters);
    const std::uint64_t state = optimizerStateBytes(trainable_sizes, techniques.adamw8bit);
    (techniques.offload ? memory.host : memory.optimizer) = state;
    const auto all_gradients = 4 * static_cast<std::uint64_t>(trainable);

    // Saved for backward at the end of the forward pass. The coefficients count the explicit
    // attention's weights (and dropout's mask and output); scaled_dot_product_attention keeps
    // q, k and v (views of the qkv projection, as large as the explicit path's packed copy),
    // its output and an fp32 log-sum-exp per query row instead.
    const compat::AttentionShape attention_shape{techniques.micro_batch,
                                                 options.heads(),
                                                 options.seq_len(),
                                                 options.dim() / options.heads(),
                                                 options.dropout() > 0,
                                                 techniques.cpu,
                                                 layers,
                                                 options.memory_budget()};
    const bool sdpa = compat::chooseAttentionPath(options.attention(), attention_shape) ==
                      compat::AttentionPath::Sdpa;
    memory.attention = sdpa ? "sdpa" : "explicit";
    const Bytes activation_bytes = techniques.precision == EstimatePrecision::Fp32 ? 4 : 2;
    const Bytes attention_saved =
        sdpa ? activation_bytes * Nd + 4 * B * H * T : c.block_a[drop] * A;
    const Bytes block = c.block_nd[drop] * Nd + attention_saved + c.block_n * N +
                        c.block_d2 * d * d + lora_block_delta;
    const Bytes residual = c.residual_nd * Nd;
    Bytes head = c.head_nv * NV + c.head_nd[drop] * Nd + c.head_n * N + c.head_vd * V * d;
    if (lora) {
        head -= c.linear_input * Nd; // the frozen tied projection keeps no input
    }
    const Bytes moe_block = options.moe().experts() > 0
                                ? block +
                                      moeBlockDelta(options, N, c.linear_input, activation_bytes) +
                                      lora_expert_delta - lora_mlp_delta
                                : 0;
    const auto blockAt = [&](std::int64_t layer) {
        return models::isMoeBlock(options, layer) ? moe_block : block;
    };
    std::vector<bool> checkpointed(static_cast<std::size_t>(layers), false);
    Bytes saved = 0;
    for (std::int64_t layer = 0; layer < layers; ++layer) {
        // Under LoRA the frozen embedding's output needs no gradient, and checkpointing skips
        // a block whose input needs none (models/activation_checkpoint.cpp): block 0 keeps
        // everything.
        const bool recompute = techniques.checkpoint_every > 0 &&
                               layer % techniques.checkpoint_every == 0 && !(lora && layer == 0);
        checkpointed[static_cast<std::size_t>(layer)] = recompute;
        saved += recompute ? residual : blockAt(layer);
    }
    const Bytes block_backward = c.block_backward_nd * Nd + c.block_backward_d2 * d * d;
    // The peak is the largest of: the start of backward (everything saved, plus the
    // cross-entropy gradients or the last block's backward transient) and, with
    // checkpointing, the recompute of any checkpointed block: what lies below it is still
    // saved, and (without accumulation) the gradients of everything above it exist already.
    Bytes activations = head + saved + std::max(c.head_backward_nv * NV, block_backward);
    const Bytes block_gradients =
        4 *
        static_cast<Bytes>(trainable -
                           (lora ? 0 : base_sizes[0] + base_sizes[1] + 2 * options.dim())) /
        static_cast<Bytes>(layers);
    const Bytes top_gradients = lora ? 0 : 4 * (V * d + 2 * d);
    Bytes below = c.embedding_nd[drop] * Nd;
    for (std::int64_t layer = 0; layer < layers; ++layer) {
        if (checkpointed[static_cast<std::size_t>(layer)]) {
            const Bytes above =
                techniques.accumulation > 1
                    ? 0
                    : top_gradients + block_gradients * static_cast<Bytes>(layers - 1 - layer);
            activations = std::max(activations, below + above + blockAt(layer) +
                                                    c.recompute_nd * Nd + c.recompute_d2 * d * d);
        }
        below += checkpointed[static_cast<std::size_t>(layer)] ? residual : blockAt(layer);
    }
    memory.activations = roundedBytes(activations);
    // Gradients of earlier micro-batches stay alive through the next ones.
    memory.gradients = techniques.accumulation > 1 ? all_gradients : 0;
    // After backward every gradient exists: the optimizer step may be the peak instead
    // (with the gradient-norm and update temporaries).
    if (memory.gradients + memory.activations < all_gradients + kOptimizerStepWorkspace) {
        memory.gradients = all_gradients;
        memory.activations = kOptimizerStepWorkspace;
    }
    memory.overhead = roundedBytes(16 * N); // int64 tokens and targets
    memory.model = "GPT · " + std::to_string(layers) + " layers · dim " +
                   std::to_string(options.dim()) + " · " + std::to_string(options.heads()) +
                   " heads · context " + std::to_string(options.seq_len()) + " · vocab " +
                   std::to_string(options.vocab_size()) + " · " + millions(memory.parameters) +
                   " parameters";
    if (options.moe().experts() > 0) {
        memory.model += " · " + std::to_string(options.moe().experts()) + " experts, top-" +
                        std::to_string(options.moe().top_k()) + ", every " +
                        std::to_string(options.moe().every()) + " block(s)";
    }
    return memory;
}

} // namespace headroom::plan
