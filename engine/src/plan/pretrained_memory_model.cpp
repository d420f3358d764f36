#include "plan/pretrained_memory_model.h"

#include "compat/attention_path.h"
#include "compat/torch_compat.h"
#include "hf/checkpoint_layout.h"
#include "hf/lora_targets.h"
#include "plan/byte_counts.h"
#include "plan/pretrained_layer_memory.h"
#include "util/base_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace headroom::plan {

namespace {

using lm_memory::LayerMemory;
using lm_memory::layerMemory;
using lm_memory::layerNorm;
using lm_memory::layerPeak;
using lm_memory::Lm;
using lm_memory::rmsNorm;

// The CPU generator's state that a checkpointed layer keeps to replay its dropout.
constexpr Bytes kRngStateBytes = 5056;

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
    std::vector<Site> sites = {
        {"q_proj", d, q}, {"k_proj", d, kv}, {"v_proj", d, kv}, {"o_proj", q, d}};
    if (a.experts == 0) {
        sites.insert(sites.end(), {{"gate_proj", d, h}, {"up_proj", d, h}, {"down_proj", h, d}});
    }
    // Mixtral: every expert's projections (the router stays fp32 and is never adapted).
    for (std::int64_t expert = 0; expert < a.experts; ++expert) {
        sites.insert(sites.end(), {{"w1", d, h}, {"w2", h, d}, {"w3", d, h}});
    }
    return sites;
}

std::string formatCount(std::int64_t count) {
    char text[32];
    const auto value = static_cast<double>(count);
    std::snprintf(text, sizeof text, value >= 1e9 ? "%.2f B" : "%.2f M",
                  value >= 1e9 ? value / 1e9 : value / 1e6);
    return text;
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
    const std::string experts = a.experts > 0
                                    ? " · MoE " + std::to_string(a.experts) + " experts, top-" +
                                          std::to_string(a.experts_per_token)
                                    : "";
    return a.architecture + " · " + std::to_string(a.layers) + " layers · dim " +
           std::to_string(a.hidden_size) + " · " + std::to_string(a.heads) + " heads (" +
           std::to_string(a.kv_heads) + " key/value) · context " + std::to_string(seq_len) +
           " · vocab " + std::to_string(a.vocab_size) + " · " + formatCount(parameters) +
           " parameters" + experts;
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
    lm.experts = static_cast<Bytes>(a.experts);
    lm.top_k = static_cast<Bytes>(a.experts_per_token);
    lm.half = techniques.precision != EstimatePrecision::Fp32;
    lm.e = lm.half ? 2 : 4;
    if (config.real("model.dropout") > 0) { // model.dropout=0 switches the base's dropout off
        lm.embedding_dropout = a.embedding_dropout;
        lm.residual_dropout = a.residual_dropout;
        lm.attention_dropout = a.attention_dropout;
    }
    const compat::AttentionShape attention{techniques.micro_batch,
                                           a.heads,
                                           config.integer("model.seq_len"),
                                           a.head_dim,
                                           lm.attention_dropout > 0,
                                           techniques.cpu,
                                           a.layers,
                                           config.bytes("memory.budget")};
    lm.sdpa =
        compat::sdpaAvailable(true) &&
        compat::chooseAttentionPath(compat::parseAttentionPath(config.text("model.attention")),
                                    attention) == compat::AttentionPath::Sdpa;
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
    memory.weights = roundedBytes(4 * static_cast<Bytes>(memory.parameters) +
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
    memory.gradients = step >= peak || accumulating ? roundedBytes(all_gradients) : 0;
    memory.activations = roundedBytes(std::max(peak, step)) - memory.gradients;
    // The int64 tokens and targets, and the dequantization buffer.
    memory.overhead = roundedBytes(16 * lm.N + 8 * lm.B + dequantization_buffer);
    memory.model = describePretrained(a, config.integer("model.seq_len"), memory.parameters);
    return memory;
}

} // namespace headroom::plan
