#include "models/tabular_mlp.h"
#include "plan/gpt_memory_model.h"
#include "train/recipe.h"

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
    const bool half = techniques.precision != EstimatePrecision::Fp32;
    const double act = half ? 2 : 4;
    const auto B = static_cast<double>(techniques.micro_batch);
    // Saved: the MLP input, per hidden layer the Linear output (GELU input) plus the GELU
    // output, or with dropout its mask and output; the log-softmax output. Autocast adds
    // low-precision copies of the weights. The backward transient is one activation
    // gradient of the widest layer.
    double saved =
        B * static_cast<double>(input_width) * act + B * static_cast<double>(options.outputs()) * 4;
    for (const std::int64_t hidden : options.hidden()) {
        saved += (options.dropout() > 0 ? 3 : 2) * B * static_cast<double>(hidden) * act;
    }
    if (half) {
        saved += 2 * static_cast<double>(memory.parameters);
    }
    saved += B * static_cast<double>(widest) * act;

    memory.weights = 4 * static_cast<std::uint64_t>(memory.parameters);
    const std::uint64_t state = optimizerStateBytes(sizes, techniques.adamw8bit);
    (techniques.offload ? memory.host : memory.optimizer) = state;
    const auto all_gradients = 4 * static_cast<std::uint64_t>(memory.trainable);
    memory.activations = static_cast<std::uint64_t>(saved);
    memory.gradients = techniques.accumulation > 1 ? all_gradients : 0;
    if (memory.gradients + memory.activations < all_gradients + kOptimizerStepWorkspace) {
        memory.gradients = all_gradients;
        memory.activations = kOptimizerStepWorkspace;
    }
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
