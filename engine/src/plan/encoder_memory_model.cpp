#include "plan/encoder_memory_model.h"

#include "hf/encoder_layout.h"
#include "plan/byte_counts.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace headroom::plan {

namespace {

std::uint64_t floorBytes(Bytes value) {
    return static_cast<std::uint64_t>(std::max(0.0, value));
}

} // namespace

std::string describeEncoder(const hf::EncoderConfig &encoder, std::int64_t seq_len) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s · %lld layers · dim %lld · %lld heads · %lld tokens per text · vocab %lld · "
                  "%.1f M parameters",
                  encoder.architecture.c_str(), static_cast<long long>(encoder.layers),
                  static_cast<long long>(encoder.hidden_size),
                  static_cast<long long>(encoder.heads), static_cast<long long>(seq_len),
                  static_cast<long long>(encoder.vocab_size),
                  static_cast<double>(hf::parameterCount(encoder)) / 1e6);
    return text;
}

StepMemory encoderStepMemory(const Config &config, const hf::EncoderConfig &encoder,
                             const StepTechniques &techniques) {
    StepMemory memory;
    std::vector<std::int64_t> sizes;
    for (const hf::ExpectedTensor &tensor : hf::expectedEncoderTensors(encoder)) {
        std::int64_t size = 1;
        for (const std::int64_t dimension : tensor.shape) {
            size *= dimension;
        }
        sizes.push_back(size);
        memory.parameters += size;
    }
    memory.trainable = memory.parameters;
    memory.model = describeEncoder(encoder, config.integer("model.seq_len"));
    const auto P = static_cast<Bytes>(memory.parameters);
    memory.weights = floorBytes(4 * P);
    (techniques.offload ? memory.host : memory.optimizer) =
        optimizerStateBytes(sizes, techniques.adamw8bit);

    const auto H = static_cast<Bytes>(encoder.hidden_size);
    const auto I = static_cast<Bytes>(encoder.intermediate_size);
    const auto L = static_cast<Bytes>(encoder.layers);
    const auto heads = static_cast<Bytes>(encoder.heads);
    const auto V = static_cast<Bytes>(encoder.vocab_size);
    const auto T = static_cast<Bytes>(config.integer("model.seq_len"));
    const auto B = static_cast<Bytes>(techniques.micro_batch);
    const auto negatives = static_cast<Bytes>(config.integer("splade.hard_negatives"));
    const Bytes e = techniques.precision == EstimatePrecision::Fp32 ? 4 : 2;
    const bool hidden_dropout = encoder.hidden_dropout > 0;
    const bool attention_dropout = encoder.attention_dropout > 0;

    // Saved per token of one layer: the attention input, query/key/value, the context, the
    // output projection's and the feed-forward's inputs, the activation's input, the two
    // LayerNorms' inputs and statistics, the dropout masks (in the activations' dtype, as
    // keyed dropout makes them); per key, the attention probabilities (and their mask and the
    // dropped copy the value product keeps).
    const Bytes layer_per_token = e * (8 * H + 2 * I) + (hidden_dropout ? 2 * e * H : 0) + 16 +
                                  heads * T * e * (attention_dropout ? 3 : 1);
    // Embeddings (their LayerNorm's input, the dropout mask) and the head's transform (dense
    // input, activation input, LayerNorm input).
    const Bytes outside_layers = e * (hidden_dropout ? 2 : 1) * H + 3 * e * H + 8;
    Bytes layer_saved = L * layer_per_token;
    Bytes recompute = 0;
    if (techniques.checkpoint_every > 0) {
        const Bytes checkpointed = std::ceil(L / static_cast<Bytes>(techniques.checkpoint_every));
        layer_saved = (L - checkpointed) * layer_per_token + checkpointed * 4 * H;
        recompute = layer_per_token;
    }
    const Bytes query_tokens = B * T;
    const Bytes passage_tokens = B * (1 + negatives) * T;
    const Bytes texts = B * (2 + negatives);
    // The max-pooling keeps its int64 indices and returns one vector per text.
    const Bytes pooled = texts * V * (8 + e);
    const Bytes saved = (query_tokens + passage_tokens) * (layer_saved + outside_layers) + pooled;
    // The MLM head's logits and the padding-masked copy the max runs over, for the larger of
    // the two encoder passes; in backward, the max's scattered gradient and its masked copy.
    const Bytes logits = passage_tokens * V * 2 * e;
    // The step's vectors and their cached gradients (fp32), with the parts they are joined
    // from.
    const Bytes step_texts =
        texts * static_cast<Bytes>(std::max<std::int64_t>(1, techniques.accumulation));
    const Bytes cache = step_texts * V * 4 * 3;

    const bool accumulating = techniques.accumulation > 1;
    // The end of a micro-batch's forward pass (the passages' logits): before any gradient of
    // this micro-batch exists, after all of the earlier ones'.
    const Bytes earlier_gradients = accumulating ? 4 * P : 0;
    const Bytes forward_peak = earlier_gradients + cache + saved + logits;
    // The passages' head in backward: the decoder's weight gradient (the word embeddings') next
    // to the logits' gradient; a checkpointed layer's recompute later.
    const Bytes decoder_gradient = 4 * V * H;
    // With accumulation the new decoder gradient is made before it is added to the old one.
    const Bytes backward_gradients = earlier_gradients + decoder_gradient;
    const Bytes backward_activations =
        cache + saved + std::max(passage_tokens * V * e, recompute * passage_tokens);
    // The end of backward: every gradient, the cache, and the word embeddings' dense gradient
    // and its sum with the tied decoder's, both vocabulary x width.
    // With accumulation the tied pair adds into gradients that already exist: one more.
    const Bytes head_copies = (accumulating ? 3 : 2) * decoder_gradient;
    const Bytes end_of_backward = 4 * P + cache + head_copies;
    if (forward_peak >= backward_gradients + backward_activations &&
        forward_peak >= end_of_backward) {
        memory.gradients = floorBytes(earlier_gradients);
        memory.activations = floorBytes(cache + saved + logits);
    } else if (backward_gradients + backward_activations >= end_of_backward) {
        memory.gradients = floorBytes(backward_gradients);
        memory.activations = floorBytes(backward_activations);
    } else {
        memory.gradients = floorBytes(4 * P);
        memory.activations = floorBytes(cache + head_copies);
    }
    memory.overhead = kOptimizerStepWorkspace + floorBytes(16 * (query_tokens + passage_tokens));
    return memory;
}

} // namespace headroom::plan
