#include "models/tabular_mlp.h"
#include "plan/gpt_memory_model.h"
#include "recipes/recipe.h"

#include <algorithm>

namespace headroom::plan {

StepMemory tabularStepMemory(const Config &config, const ModelFacts &facts,
                             const StepTechniques &techniques) {
    models::TabularMlpOptions options(facts.numeric_features,
                                      std::max<std::int64_t>(1, facts.outputs));
    options.cardinalities(facts.cardinalities)
        .embedding_dim(config.integer("model.embedding_dim"))
        .hidden(train::parseHiddenWidths(config.text("model.hidden")))
        .dropout(config.real("model.dropout"));

    std::vector<std::int64_t> sizes;
    std::int64_t input_width = facts.numeric_features;
    for (const std::int64_t cardinality : facts.cardinalities) {
        const std::int64_t width = models::tabularEmbeddingDim(options, cardinality);
        sizes.push_back(cardinality * width);
        input_width += width;
    }
    std::int64_t width = input_width;
    std::int64_t widest = 1;
    for (const std::int64_t hidden : options.hidden()) {
        sizes.push_back(width * hidden);
        sizes.push_back(hidden);
        width = hidden;
        widest = std::max(widest, hidden);
    }
    sizes.push_back(width * options.outputs());
    sizes.push_back(options.outputs());

    StepMemory memory;
    for (const std::int64_t size : sizes) {
        memory.parameters += size;
    }
    memory.trainable = memory.parameters;
    memory.weights = 4 * static_cast<std::uint64_t>(memory.parameters);
    const std::uint64_t state = optimizerStateBytes(sizes, techniques.adamw8bit);
    (techniques.offload ? memory.host : memory.optimizer) = state;

    // The peak is either at the optimizer step (all gradients, activations freed) or inside
    // the backward pass, which walks the layers from the output: while layer k's gradients are
    // made, the gradients of the layers above it already exist and the activations saved
    // below it are still alive. With a wide middle layer (or a small optimizer state) the
    // backward peak is the higher one.
    const bool half = techniques.precision != EstimatePrecision::Fp32;
    const double act = half ? 2 : 4;
    const auto B = static_cast<double>(techniques.micro_batch);
    const std::vector<std::int64_t> &hidden = options.hidden();
    const auto layers = hidden.size() + 1; // the hidden layers and the output layer
    std::vector<double> in_width(layers);
    std::vector<double> out_width(layers);
    for (std::size_t k = 0; k < layers; ++k) {
        in_width[k] = static_cast<double>(k == 0 ? input_width : hidden[k - 1]);
        out_width[k] = static_cast<double>(k < hidden.size() ? hidden[k] : options.outputs());
    }
    // Saved for backward up to and including layer k: the MLP input, per hidden layer the
    // Linear output (GELU input) plus the GELU output, or with dropout its mask and output;
    // the output layer's log-softmax.
    const double per_hidden_saved = options.dropout() > 0 ? 3 : 2;
    const auto savedThrough = [&](std::size_t k) {
        double saved = B * in_width[0] * act;
        for (std::size_t j = 0; j <= k && j < hidden.size(); ++j) {
            saved += per_hidden_saved * B * out_width[j] * act;
        }
        if (k + 1 == layers) {
            saved += B * out_width[k] * 4;
        }
        return saved;
    };
    const auto layerParameters = [&](std::size_t k) {
        return in_width[k] * out_width[k] + out_width[k];
    };
    const auto all_gradients = 4 * static_cast<double>(memory.trainable);
    const bool gradients_kept = techniques.accumulation > 1;

    double best_gradients = all_gradients;
    double best_activations = static_cast<double>(kOptimizerStepWorkspace);
    double gradients_above = 0;
    for (std::size_t k = layers; k-- > 0;) {
        gradients_above += 4 * layerParameters(k);
        const double gradients = gradients_kept ? all_gradients : gradients_above;
        // Layer k's input (saved by the layer below) stays; its own GELU/dropout tensors are
        // gone by now. Transients: the output gradient and the input gradient. Under autocast
        // the peak is when layer k's fp32 weight gradient is made from its half-precision one:
        // layer k's half-precision weight copy is already released then, those of the layers
        // below are not.
        double activations = (k == 0 ? B * in_width[0] * act : savedThrough(k - 1)) +
                             B * out_width[k] * act + B * in_width[k] * act;
        if (k + 1 == layers) {
            activations += B * out_width[k] * 4;
        }
        if (half) {
            double copies = 0;
            for (std::size_t j = 0; j < k; ++j) {
                copies += 2 * layerParameters(j);
            }
            activations += copies + 2 * layerParameters(k);
        }
        if (gradients + activations > best_gradients + best_activations) {
            best_gradients = gradients;
            best_activations = activations;
        }
    }
    memory.gradients = static_cast<std::uint64_t>(best_gradients);
    memory.activations = static_cast<std::uint64_t>(best_activations);
    // Inputs: fp32 numeric features, int64 categories and targets.
    memory.overhead = static_cast<std::uint64_t>(
        B * static_cast<double>(4 * facts.numeric_features +
                                8 * static_cast<std::int64_t>(facts.cardinalities.size()) + 8));
    memory.model = "Tabular MLP · " + config.text("model.hidden") + " · " +
                   std::to_string(facts.numeric_features) + " numeric + " +
                   std::to_string(facts.cardinalities.size()) + " categorical inputs · " +
                   std::to_string(memory.parameters) + " parameters";
    return memory;
}

} // namespace headroom::plan
