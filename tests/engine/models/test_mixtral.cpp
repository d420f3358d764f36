// The imported-Mixtral model (models/sparse_moe_block.h inside models/causal_lm.h) on its own:
// its routing rule, LoRA on attention and experts (never the router), activation checkpointing
// and micro-batches giving the same gradients and balancing loss, a compact base holding the
// experts, and lora.targets resolving to the experts' names.
#include "causal_lm_support.h"
#include "hf/lora_targets.h"
#include "models/causal_lm.h"
#include "models/keyed_dropout.h"
#include "models/sparse_moe_block.h"

#include <headroom/config.h>

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>
#include <string>

using namespace headroom;

namespace {

models::CausalLmOptions mixtralOptions() {
    models::CausalLmOptions options = test_support::tinyLlamaOptions(48);
    options.experts = 4;
    options.experts_per_token = 2;
    return options;
}

models::CausalLm freshMixtral(std::uint64_t seed = 5, double jitter = 0) {
    torch::manual_seed(seed);
    models::CausalLmOptions options = mixtralOptions();
    options.router_jitter = jitter;
    models::CausalLm model(options);
    model->resetParameters();
    torch::NoGradGuard no_grad;
    // Wider than the 0.02 initialisation, so experts and routing differ visibly.
    for (auto &item : model->named_parameters()) {
        if (item.key().find("norm") == std::string::npos) {
            item.value().normal_(0.0, 0.3);
        }
    }
    return model;
}

torch::Tensor tokens(std::int64_t rows, std::int64_t length) {
    return torch::randint(0, 48, {rows, length}, torch::kLong);
}

// The training objective as the pretrained recipe forms it with a balancing-loss weight.
torch::Tensor objective(models::CausalLmImpl &model, const torch::Tensor &inputs,
                        const torch::Tensor &targets) {
    const models::CausalLmLoss terms = model.lossTerms(inputs, targets);
    return terms.loss + 0.1 * terms.moe->aux_loss;
}

std::map<std::string, torch::Tensor> gradients(models::CausalLmImpl &model) {
    std::map<std::string, torch::Tensor> result;
    for (const auto &item : model.named_parameters()) {
        if (item.value().grad().defined()) {
            result[item.key()] = item.value().grad().clone();
        }
    }
    return result;
}

void clearGradients(models::CausalLmImpl &model) {
    for (auto &parameter : model.parameters()) {
        parameter.mutable_grad() = torch::Tensor();
    }
}

} // namespace

class TestMixtral : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void routesAsTransformersDefinesIt();
    void topOneGivesTheExpertItsWholeWeight();
    void modulesHaveTheCheckpointNames();
    void loraAdaptsAttentionAndExpertsNotTheRouter();
    void loraTargetsResolveToTheExperts();
    void checkpointingGivesTheSameGradients();
    void microBatchesSumToTheStep();
    void compactBaseHoldsTheExperts();
    void jitterNoisesTrainingOnly();
};

void TestMixtral::routesAsTransformersDefinesIt() {
    // The block against its definition written out densely: softmax over all router logits in
    // fp32, the top-2 probabilities renormalised to sum 1, SwiGLU experts.
    torch::manual_seed(11);
    models::SparseMoeBlock block(16, 24, 4, 2, 0.0, false);
    {
        torch::NoGradGuard no_grad;
        for (auto &parameter : block->parameters()) {
            parameter.normal_(0.0, 0.4);
        }
    }
    const torch::Tensor x = torch::randn({2 * 5, 16});
    const models::SparseMoeOutput routed = block->forward(x, 2);
    const torch::Tensor p = torch::softmax(torch::linear(x, block->gate->weight), -1);
    const auto top = p.topk(2, -1);
    const torch::Tensor weights = std::get<0>(top) / std::get<0>(top).sum(-1, true);
    torch::Tensor expected = torch::zeros_like(x);
    for (std::int64_t token = 0; token < x.size(0); ++token) {
        for (std::int64_t slot = 0; slot < 2; ++slot) {
            const std::int64_t e = std::get<1>(top)[token][slot].item<std::int64_t>();
            const auto &expert = block->experts()[static_cast<std::size_t>(e)];
            const torch::Tensor row = x.narrow(0, token, 1);
            const auto weight = [&](const std::string &name) {
                for (const auto &[linear_name, linear] : expert->linears()) {
                    if (linear_name == name) {
                        return linear->weight;
                    }
                }
                return torch::Tensor();
            };
            const torch::Tensor y = torch::linear(torch::silu(torch::linear(row, weight("w1"))) *
                                                      torch::linear(row, weight("w3")),
                                                  weight("w2"));
            expected[token] += weights[token][slot] * y[0];
        }
    }
    QVERIFY(torch::allclose(routed.output, expected, 1e-5, 1e-6));
    QVERIFY(torch::equal(routed.selected, std::get<1>(top)));
    // Per row: the assignments (5 tokens x 2) and the probability sums over the row's tokens.
    QVERIFY(torch::equal(routed.counts.sum(1), torch::full({2}, 10, torch::kLong)));
    QVERIFY(torch::allclose(routed.probability_sums, p.view({2, 5, 4}).sum(1)));
}

void TestMixtral::topOneGivesTheExpertItsWholeWeight() {
    // transformers renormalises for top-1 too: the gate is exactly 1 (no router gradient through
    // it, unlike the GPT recipe's Switch routing).
    torch::manual_seed(12);
    models::SparseMoeBlock block(8, 12, 3, 1, 0.0, false);
    {
        torch::NoGradGuard no_grad;
        for (auto &parameter : block->parameters()) {
            parameter.normal_(0.0, 0.5);
        }
    }
    const torch::Tensor x = torch::randn({6, 8});
    const models::SparseMoeOutput routed = block->forward(x, 1);
    for (std::int64_t token = 0; token < 6; ++token) {
        const std::int64_t e = routed.selected[token][0].item<std::int64_t>();
        models::Projections expert = block->experts()[static_cast<std::size_t>(e)];
        const torch::Tensor row = x.narrow(0, token, 1);
        const torch::Tensor alone = expert->project("w2", torch::silu(expert->project("w1", row)) *
                                                              expert->project("w3", row));
        QVERIFY(torch::allclose(routed.output.narrow(0, token, 1), alone, 1e-5, 1e-6));
    }
}

void TestMixtral::modulesHaveTheCheckpointNames() {
    models::CausalLm model = freshMixtral();
    std::set<std::string> names;
    for (const auto &item : model->named_parameters()) {
        names.insert(item.key());
    }
    QVERIFY(names.count("model.layers.1.block_sparse_moe.gate.weight") == 1);
    QVERIFY(names.count("model.layers.0.block_sparse_moe.experts.3.w2.weight") == 1);
    QVERIFY(names.count("model.layers.0.mlp.down_proj.weight") == 0);
    QCOMPARE(model->projectionNames(),
             (std::set<std::string>{"k_proj", "o_proj", "q_proj", "v_proj", "w1", "w2", "w3"}));
}

void TestMixtral::loraAdaptsAttentionAndExpertsNotTheRouter() {
    models::CausalLm model = freshMixtral();
    model->enableLora(models::LoraOptions().rank(2).targets({"q_proj", "w1", "w2"}));
    std::set<std::string> adapted;
    for (const auto &[path, adapter] : model->loraAdapters()) {
        adapted.insert(path);
    }
    QCOMPARE(adapted.size(), std::size_t{2 * (1 + 4 * 2)});
    QVERIFY(adapted.count("model.layers.1.block_sparse_moe.experts.2.w1") == 1);
    QVERIFY(adapted.count("model.layers.0.self_attn.q_proj") == 1);
    for (const auto &item : model->named_parameters()) {
        const bool adapter = item.key().find(".lora_") != std::string::npos;
        QCOMPARE(item.value().requires_grad(), adapter);
    }
    // Adapters start at zero: the model computes what the base does; merged, the names are the
    // base's.
    const torch::Tensor inputs = tokens(2, 8);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor before = model->forward(inputs);
    std::set<std::string> merged;
    for (const auto &[name, tensor] : model->mergedState()) {
        merged.insert(name);
    }
    QVERIFY(merged.count("model.layers.0.block_sparse_moe.experts.0.w1.weight") == 1);
    QVERIFY(std::none_of(merged.begin(), merged.end(), [](const std::string &name) {
        return name.find("lora") != std::string::npos;
    }));
    QVERIFY(torch::equal(model->forward(inputs), before));
}

void TestMixtral::loraTargetsResolveToTheExperts() {
    models::CausalLm model = freshMixtral();
    const std::set<std::string> names = model->projectionNames();
    QCOMPARE(hf::resolveLoraTargets("qkv,mlp_out", names),
             (std::set<std::string>{"q_proj", "k_proj", "v_proj", "w2"}));
    QCOMPARE(hf::resolveLoraTargets("experts_in", names), (std::set<std::string>{"w1", "w3"}));
    QCOMPARE(hf::resolveLoraTargets("attn_out,w3", names), (std::set<std::string>{"o_proj", "w3"}));
    QCOMPARE(hf::resolveLoraTargets("all-linear", names), names);
    models::CausalLm dense(test_support::tinyLlamaOptions());
    try {
        hf::resolveLoraTargets("experts_out", dense->projectionNames());
        QFAIL("experts_out resolved on a dense model");
    } catch (const ConfigError &error) {
        QVERIFY2(QString(error.what()).contains("has none"), error.what());
    }
    try {
        hf::resolveLoraTargets("gate", names);
        QFAIL("the router became a LoRA target");
    } catch (const ConfigError &error) {
        QVERIFY2(QString(error.what()).contains("experts_in, experts_out"), error.what());
    }
}

void TestMixtral::checkpointingGivesTheSameGradients() {
    models::CausalLm model = freshMixtral();
    model->train();
    torch::manual_seed(3);
    const torch::Tensor inputs = tokens(3, 10);
    const torch::Tensor targets = tokens(3, 10);
    const models::CausalLmLoss plain_terms = model->lossTerms(inputs, targets);
    (plain_terms.loss + 0.1 * plain_terms.moe->aux_loss).backward();
    const std::map<std::string, torch::Tensor> plain = gradients(*model);
    clearGradients(*model);
    model->setCheckpointEvery(1);
    const models::CausalLmLoss checkpointed = model->lossTerms(inputs, targets);
    (checkpointed.loss + 0.1 * checkpointed.moe->aux_loss).backward();
    const std::map<std::string, torch::Tensor> recomputed = gradients(*model);
    QCOMPARE(recomputed.size(), plain.size());
    for (const auto &[name, gradient] : plain) {
        QVERIFY2(torch::equal(recomputed.at(name), gradient), name.c_str());
    }
    QVERIFY(torch::equal(checkpointed.moe->aux_loss, plain_terms.moe->aux_loss));
    for (std::size_t layer = 0; layer < 2; ++layer) {
        QVERIFY(torch::equal(checkpointed.moe->expert_counts[layer],
                             plain_terms.moe->expert_counts[layer]));
    }
}

void TestMixtral::microBatchesSumToTheStep() {
    // The loss and the balancing loss are means over rows: two micro-batches of 2 rows, each
    // weighted 1/2, give the 4-row step's objective and gradients.
    models::CausalLm model = freshMixtral();
    model->train();
    torch::manual_seed(4);
    const torch::Tensor inputs = tokens(4, 10);
    const torch::Tensor targets = tokens(4, 10);
    objective(*model, inputs, targets).backward();
    const std::map<std::string, torch::Tensor> whole = gradients(*model);
    clearGradients(*model);
    for (std::int64_t first : {0, 2}) {
        (0.5 * objective(*model, inputs.narrow(0, first, 2), targets.narrow(0, first, 2)))
            .backward();
    }
    const std::map<std::string, torch::Tensor> split = gradients(*model);
    // Equal up to the summation order: within 1e-4 of each gradient's largest element.
    for (const auto &[name, gradient] : whole) {
        const double difference = (split.at(name) - gradient).abs().max().item<double>();
        QVERIFY2(difference <= 1e-4 * gradient.abs().max().item<double>(), name.c_str());
    }
}

void TestMixtral::compactBaseHoldsTheExperts() {
    models::CausalLm model = freshMixtral();
    model->eval();
    torch::manual_seed(6);
    const torch::Tensor inputs = tokens(2, 8);
    torch::NoGradGuard no_grad;
    const torch::Tensor full = model->forward(inputs);
    model->enableLora(models::LoraOptions().rank(2).targets({"w1", "w3"}));
    QVERIFY(model->storeBaseWeights(BaseFormat::Int8));
    const torch::Tensor int8 = model->forward(inputs);
    const double difference = (int8 - full).abs().max().item<double>();
    qInfo("int8 base: max |logit difference| %.3g of %.3g", difference,
          full.abs().max().item<double>());
    QVERIFY(difference < 0.1 * full.abs().max().item<double>());

    QVERIFY(model->storeBaseWeights(BaseFormat::Nf4));
    std::set<std::string> quantized;
    for (const auto &[name, weight] : model->quantizedWeights()) {
        QCOMPARE(weight.format, BaseFormat::Nf4);
        quantized.insert(name);
    }
    // Attention and experts of 2 layers: (4 + 4 x 3) x 2; the router stays fp32.
    QCOMPARE(quantized.size(), std::size_t{32});
    QVERIFY(quantized.count("model.layers.1.block_sparse_moe.experts.3.w3.weight") == 1);
    QVERIFY(quantized.count("model.layers.1.block_sparse_moe.gate.weight") == 0);
    auto parameters = model->named_parameters();
    QCOMPARE(parameters["model.layers.0.block_sparse_moe.gate.weight"].numel(),
             std::int64_t{4 * 64});
    QCOMPARE(model->quantizedParameterCount(),
             std::int64_t{2 * (64 * 64 * 2 + 32 * 64 * 2 + 4 * 3 * 48 * 64)});
    QVERIFY(torch::isfinite(model->forward(inputs)).all().item<bool>());
}

void TestMixtral::jitterNoisesTrainingOnly() {
    // router_jitter_noise: evaluation is the plain model's; training noise is keyed per example,
    // so the same step sees the same noise again (replay, recomputation).
    models::CausalLm plain = freshMixtral(7);
    models::CausalLm jittered = freshMixtral(7, 0.5);
    torch::manual_seed(8);
    const torch::Tensor inputs = tokens(2, 8);
    torch::NoGradGuard no_grad;
    plain->eval();
    jittered->eval();
    const torch::Tensor evaluated = plain->forward(inputs);
    QVERIFY(torch::equal(jittered->forward(inputs), evaluated));
    jittered->train();
    const auto trained = [&] {
        models::ScopedDropoutKey key(models::dropoutStepSeed(1, 3), 0, 2);
        return jittered->forward(inputs);
    };
    const torch::Tensor first = trained();
    QVERIFY(!torch::allclose(first, evaluated));
    QVERIFY(torch::equal(trained(), first));
}

QTEST_GUILESS_MAIN(TestMixtral)
#include "test_mixtral.moc"
