#include "data/tabular_schema.h"
#include "models/tabular_mlp.h"
#include "recipes/recipe.h"

#include <headroom/config.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace headroom::train {

std::vector<std::int64_t> parseHiddenWidths(const std::string &text) {
    std::vector<std::int64_t> widths;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        widths.push_back(std::stoll(item));
    }
    return widths;
}

namespace {

class TabularRecipe final : public Recipe {
public:
    TabularRecipe(const models::TabularMlpOptions &options, const data::TabularSchema &schema,
                  const std::vector<double> &class_weights, torch::Device device)
        : model_(options), device_(device), classification_(schema.classification),
          target_mean_(schema.target_mean), target_stddev_(schema.target_stddev),
          classes_(static_cast<std::int64_t>(schema.classes.size())) {
        model_->to(device_);
        if (!class_weights.empty()) {
            class_weights_ =
                torch::tensor(class_weights, torch::kFloat64).to(torch::kFloat32).to(device_);
        }
    }

    std::shared_ptr<torch::nn::Module> module() override { return model_.ptr(); }
    void moveTo(const torch::Device &device) override {
        device_ = device;
        model_->to(device_);
        if (class_weights_.defined()) {
            class_weights_ = class_weights_.to(device_);
        }
    }

    torch::Tensor loss(const ExampleBatch &batch) override {
        const Collated inputs = collate(batch);
        const torch::Tensor output = model_->forward(inputs.numeric, inputs.categorical);
        if (classification_) {
            const torch::Tensor labels = inputs.target.to(torch::kInt64);
            if (!class_weights_.defined()) {
                return torch::nn::functional::cross_entropy(output, labels);
            }
            // Divided by the rows, not by the weights' sum: the loss of a step is then the same
            // however its examples are cut into micro-batches (out-of-memory recovery).
            const torch::Tensor per_row = torch::nn::functional::cross_entropy(
                output, labels,
                torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
            return (per_row * class_weights_.index_select(0, labels)).mean();
        }
        return torch::mse_loss(output.squeeze(1), inputs.target);
    }

    void evaluate(const ExampleBatch &batch, EvalTotals &totals) override {
        const Collated inputs = collate(batch);
        const torch::Tensor output = model_->forward(inputs.numeric, inputs.categorical);
        const auto count = static_cast<std::int64_t>(batch.size());
        if (classification_) {
            const torch::Tensor labels = inputs.target.to(torch::kInt64);
            totals.loss_sum +=
                torch::nn::functional::cross_entropy(
                    output, labels,
                    torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
            totals.correct += output.argmax(1).eq(labels).sum().item<double>();
        } else {
            const torch::Tensor error = output.squeeze(1) - inputs.target;
            const double squared = error.pow(2).sum().item<double>();
            totals.loss_sum += squared;
            totals.squared_error += squared * target_stddev_ * target_stddev_;
            const torch::Tensor target =
                inputs.target.to(torch::kFloat64) * target_stddev_ + target_mean_;
            totals.target_sum += target.sum().item<double>();
            totals.target_squares += target.pow(2).sum().item<double>();
        }
        totals.examples += count;
    }

    std::int64_t tokensPerExample() const override { return 0; }
    bool reportsAccuracy() const override { return classification_; }
    bool reportsRmse() const override { return !classification_; }

    std::string describe() const override {
        const std::int64_t parameters = countParameters(*model_);
        const models::TabularMlpOptions &options = model_->options();
        char text[200];
        const std::string task = classification_
                                     ? "classifier, " + std::to_string(classes_) + " classes" +
                                           (class_weights_.defined() ? ", class-weighted loss" : "")
                                     : std::string("regressor");
        std::snprintf(text, sizeof text,
                      "Tabular MLP · %s · %lld numeric + %zu categorical inputs · %lld "
                      "parameters",
                      task.c_str(), static_cast<long long>(options.numeric_features()),
                      options.cardinalities().size(), static_cast<long long>(parameters));
        return text;
    }

private:
    struct Collated {
        torch::Tensor numeric;
        torch::Tensor categorical;
        torch::Tensor target;
    };

    Collated collate(const ExampleBatch &batch) const {
        const auto rows = static_cast<std::int64_t>(batch.size());
        const models::TabularMlpOptions &options = model_->options();
        const std::int64_t numeric_width = options.numeric_features();
        const auto categorical_width = static_cast<std::int64_t>(options.cardinalities().size());
        Collated result;
        result.numeric = torch::empty({rows, numeric_width}, torch::kFloat32);
        result.categorical = torch::empty({rows, categorical_width}, torch::kInt64);
        result.target = torch::empty({rows}, torch::kFloat32);
        float *numeric = result.numeric.data_ptr<float>();
        std::int64_t *categorical = result.categorical.data_ptr<std::int64_t>();
        float *target = result.target.data_ptr<float>();
        for (std::int64_t row = 0; row < rows; ++row) {
            const data::Example &example = *batch[static_cast<std::size_t>(row)];
            TORCH_CHECK(static_cast<std::int64_t>(example.numeric.size()) == numeric_width &&
                            static_cast<std::int64_t>(example.categorical.size()) ==
                                categorical_width,
                        "tabular example does not match the schema");
            std::copy(example.numeric.begin(), example.numeric.end(),
                      numeric + row * numeric_width);
            std::copy(example.categorical.begin(), example.categorical.end(),
                      categorical + row * categorical_width);
            target[row] = static_cast<float>(example.target);
        }
        if (!device_.is_cpu()) {
            result.numeric = result.numeric.to(device_);
            result.categorical = result.categorical.to(device_);
            result.target = result.target.to(device_);
        }
        return result;
    }

    models::TabularMlp model_;
    torch::Device device_;
    bool classification_;
    torch::Tensor class_weights_; // undefined: every class weighs 1
    double target_mean_;
    double target_stddev_;
    std::int64_t classes_;
};

} // namespace

std::vector<double> classWeights(const std::string &mode, const data::TabularSchema &schema) {
    const std::vector<std::int64_t> &counts = schema.class_counts;
    if (!schema.classification || mode == "none" || counts.size() < 2) {
        return {};
    }
    std::int64_t total = 0;
    std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
    std::int64_t largest = 0;
    for (const std::int64_t count : counts) {
        total += count;
        if (count > 0) {
            smallest = std::min(smallest, count);
        }
        largest = std::max(largest, count);
    }
    constexpr double kImbalanceForAuto = 4.0;
    if (total == 0 || (mode == "auto" && static_cast<double>(largest) <
                                             kImbalanceForAuto * static_cast<double>(smallest))) {
        return {};
    }
    // balanced: N / (K n_c), sklearn's rule; auto: its square root, which helps the small
    // classes without giving up much accuracy on the large ones. Scaled so the average weight
    // of a training row is 1 and the loss stays on its usual scale.
    std::vector<double> weights;
    double row_average = 0;
    for (const std::int64_t count : counts) {
        double weight = 0;
        if (count > 0) {
            weight = static_cast<double>(total) /
                     (static_cast<double>(counts.size()) * static_cast<double>(count));
            weight = mode == "auto" ? std::sqrt(weight) : weight;
        }
        weights.push_back(weight);
        row_average += weight * static_cast<double>(count) / static_cast<double>(total);
    }
    for (double &weight : weights) {
        weight = weight > 0 ? weight / row_average : 1.0;
    }
    return weights;
}

std::unique_ptr<Recipe> makeTabularRecipe(const Config &config, const data::TabularSchema &schema,
                                          torch::Device device) {
    const auto outputs =
        schema.classification ? static_cast<std::int64_t>(schema.classes.size()) : std::int64_t{1};
    models::TabularMlpOptions options(static_cast<std::int64_t>(schema.numeric.size()), outputs);
    std::vector<std::int64_t> cardinalities;
    for (const data::CategoricalColumn &column : schema.categorical) {
        cardinalities.push_back(static_cast<std::int64_t>(column.categories.size()) + 1);
    }
    options.cardinalities(cardinalities)
        .embedding_dim(config.integer("model.embedding_dim"))
        .hidden(parseHiddenWidths(config.text("model.hidden")))
        .dropout(config.real("model.dropout"));
    return std::make_unique<TabularRecipe>(
        options, schema, classWeights(config.text("train.class_weights"), schema), device);
}

} // namespace headroom::train
