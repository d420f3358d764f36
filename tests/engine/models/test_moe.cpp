// The Mixture-of-Experts layer (models/moe.h) against a naive dense-mask computation written
// here, its capacity and losses on hand-made routings, micro-batch invariance, keyed jitter,
// activation checkpointing, LoRA on experts, autocast and option checks.
#include "compat/autocast.h"
#include "models/activation_checkpoint.h"
#include "models/gpt.h"
#include "models/keyed_dropout.h"
#include "models/moe.h"
#include "plan/model_facts.h"
#include "recipes/recipe.h"

#include <headroom/plan.h>

#include <torch/torch.h>

#include <QtTest>

#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

using headroom::models::Gpt;
using headroom::models::GptBlock;
using headroom::models::GptOptions;
using headroom::models::MoeLayer;
using headroom::models::MoeOptions;
using headroom::models::MoeOutput;
using headroom::models::ScopedDropoutKey;

namespace {

constexpr std::int64_t kDim = 8;
constexpr std::int64_t kHidden = 12;

MoeLayer makeLayer(const MoeOptions &options, std::uint64_t seed = 3) {
    torch::manual_seed(seed);
    MoeLayer layer(kDim, MoeOptions(options).expert_hidden(kHidden));
    torch::NoGradGuard no_grad;
    for (torch::Tensor &parameter : layer->parameters()) {
        parameter.copy_(torch::randn(parameter.sizes()) * 0.5);
    }
    return layer;
}

// The layer computed the slow, obvious way: routing decided by walking each row in priority
// order, every expert run on every token, and the outputs combined with a dense [N, E] matrix
// of gate weights (zero where not routed or dropped).
struct Naive {
    torch::Tensor output;
    torch::Tensor aux_loss;
    torch::Tensor z_loss;
    std::int64_t dropped = 0;
    std::vector<std::int64_t> counts;
};

Naive naiveMoe(headroom::models::MoeLayerImpl &layer, const torch::Tensor &x) {
    const MoeOptions &options = layer.options();
    const std::int64_t rows = x.size(0), length = x.size(1), experts = options.experts();
    const std::int64_t k = options.top_k(), tokens = rows * length;
    const torch::Tensor flat = x.reshape({tokens, kDim});
    const torch::Tensor logits = torch::linear(flat, layer.router->weight);
    const torch::Tensor probabilities = torch::softmax(logits, -1);
    const auto [top_p, top_e] = probabilities.topk(k, -1);
    const torch::Tensor gates = k == 1 ? top_p : top_p / top_p.sum(-1, true);
    const std::int64_t capacity = headroom::models::expertCapacity(options, length);

    Naive naive;
    naive.counts.assign(static_cast<std::size_t>(experts), 0);
    torch::Tensor keep = torch::zeros({tokens, k});
    torch::Tensor shares = torch::zeros({rows, experts});
    const auto choice = top_e.accessor<std::int64_t, 2>();
    for (std::int64_t row = 0; row < rows; ++row) {
        std::vector<std::int64_t> taken(static_cast<std::size_t>(experts), 0);
        for (std::int64_t slot = 0; slot < k; ++slot) {
            for (std::int64_t t = 0; t < length; ++t) {
                const std::int64_t e = choice[row * length + t][slot];
                ++naive.counts[static_cast<std::size_t>(e)];
                shares[row][e] += 1.0 / static_cast<double>(length * k);
                if (capacity == 0 || taken[static_cast<std::size_t>(e)] < capacity) {
                    ++taken[static_cast<std::size_t>(e)];
                    keep[row * length + t][slot] = 1.0;
                } else {
                    ++naive.dropped;
                }
            }
        }
    }
    const torch::Tensor combine =
        torch::zeros({tokens, experts}).scatter_add(1, top_e, gates * keep);
    torch::Tensor output = torch::zeros({tokens, kDim});
    for (std::int64_t e = 0; e < experts; ++e) {
        auto *expert =
            layer.experts[static_cast<std::size_t>(e)]->as<headroom::models::ExpertMlpImpl>();
        const torch::Tensor y = expert->fc_out(torch::gelu(expert->fc(flat)));
        output = output + combine.select(1, e).unsqueeze(1) * y;
    }
    naive.output = output.view({rows, length, kDim});
    naive.aux_loss = (shares * probabilities.view({rows, length, experts}).mean(1)).sum(1).mean() *
                     static_cast<double>(experts);
    naive.z_loss = torch::logsumexp(logits, -1).pow(2).view({rows, length}).mean(1).mean();
    return naive;
}

std::vector<std::int64_t> toVector(const torch::Tensor &counts) {
    const torch::Tensor c = counts.contiguous();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

std::vector<torch::Tensor> gradients(torch::nn::Module &module, const torch::Tensor &x) {
    std::vector<torch::Tensor> grads{x.grad().clone()};
    for (const torch::Tensor &parameter : module.parameters()) {
        grads.push_back(parameter.grad().defined() ? parameter.grad().clone()
                                                   : torch::zeros_like(parameter));
    }
    return grads;
}

void clearGradients(torch::nn::Module &module, torch::Tensor &x) {
    x.mutable_grad().reset();
    for (torch::Tensor &parameter : module.parameters()) {
        parameter.mutable_grad().reset();
    }
}

bool close(const torch::Tensor &a, const torch::Tensor &b, double tolerance = 1e-5) {
    return a.sizes() == b.sizes() && torch::allclose(a, b, tolerance, tolerance);
}

GptOptions moeGpt(std::int64_t every = 2) {
    GptOptions options(/*vocab_size=*/40, /*seq_len=*/8);
    options.layers(2).heads(2).dim(kDim).dropout(0.0);
    options.moe().experts(4).top_k(2).capacity_factor(1.0).every(every).expert_hidden(kHidden);
    return options;
}

} // namespace

class TestMoe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dispatchMatchesDenseMask_data();
    void dispatchMatchesDenseMask();
    void capacityDropsOnAHandMadeRouting();
    void secondChoicesYieldToFirstChoices();
    void balancedRoutingHasAuxLossOne();
    void perRowCapacityMakesHalvesEqual();
    void jitterIsKeyedPerExample();
    void gatheredDropoutMatchesFullDropout();
    void checkpointedBlockEqualsPlainBlock();
    void routingIsCountedOncePerForward();
    void loraAdaptsExpertsAndFreezesTheRouter();
    void estimateCountsTheExpertsAdapters();
    void bf16AutocastKeepsTheRouterInFp32();
    void badOptionsAreRejected_data();
    void badOptionsAreRejected();
    void denseModelIsUnchanged();
    void moeParametersAreCountedAndNamed();
};

void TestMoe::dispatchMatchesDenseMask_data() {
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("top_k");
    QTest::addColumn<double>("capacity_factor");
    QTest::addColumn<bool>("drops"); // certainly some
    QTest::newRow("top-1, capacity 0.5") << 4 << 1 << 0.5 << true;
    QTest::newRow("top-2, capacity 1.25") << 4 << 2 << 1.25 << false;
    QTest::newRow("top-2, no capacity") << 4 << 2 << 0.0 << false;
    QTest::newRow("top-3 of 5, capacity 0.5") << 5 << 3 << 0.5 << true;
}

void TestMoe::dispatchMatchesDenseMask() {
    QFETCH(int, experts);
    QFETCH(int, top_k);
    QFETCH(double, capacity_factor);
    QFETCH(bool, drops);
    MoeLayer layer =
        makeLayer(MoeOptions().experts(experts).top_k(top_k).capacity_factor(capacity_factor));
    torch::Tensor x = torch::randn({3, 10, kDim}).requires_grad_(true);
    const torch::Tensor weights = torch::randn({3, 10, kDim});

    const MoeOutput routed = layer->forward(x);
    ((routed.output * weights).sum() + 0.3 * routed.aux_loss + 0.2 * routed.z_loss).backward();
    const std::vector<torch::Tensor> routed_grads = gradients(*layer, x);
    clearGradients(*layer, x);
    const Naive naive = naiveMoe(*layer, x);
    ((naive.output * weights).sum() + 0.3 * naive.aux_loss + 0.2 * naive.z_loss).backward();
    const std::vector<torch::Tensor> naive_grads = gradients(*layer, x);

    QVERIFY(close(routed.output, naive.output));
    QVERIFY(close(routed.aux_loss, naive.aux_loss));
    QVERIFY(close(routed.z_loss, naive.z_loss));
    QCOMPARE(routed.dropped.item<std::int64_t>(), naive.dropped);
    QCOMPARE(toVector(routed.expert_counts), naive.counts);
    if (drops) { // the capacity is below the assignments of a row
        QVERIFY(naive.dropped > 0);
    }
    if (capacity_factor == 0) {
        QCOMPARE(naive.dropped, std::int64_t{0});
    }
    QCOMPARE(routed_grads.size(), naive_grads.size());
    for (std::size_t i = 0; i < routed_grads.size(); ++i) {
        QVERIFY2(close(routed_grads[i], naive_grads[i]), qPrintable(QString("gradient %1").arg(i)));
    }
    QVERIFY(layer->router->weight.grad().abs().sum().item<double>() > 0);
}

void TestMoe::capacityDropsOnAHandMadeRouting() {
    // Two experts, top-1, capacity ceil(1.0 * 4 * 1 / 2) = 2 per row. The router reads the
    // sign of feature 0: positive -> expert 0. Row 0 sends all 4 tokens to expert 0 (its last two
    // are dropped); row 1 sends two to each.
    MoeLayer layer = makeLayer(MoeOptions().experts(2).top_k(1).capacity_factor(1.0));
    {
        torch::NoGradGuard no_grad;
        layer->router->weight.zero_();
        layer->router->weight[0][0] = 4.0;
        layer->router->weight[1][0] = -4.0;
    }
    torch::Tensor x = torch::randn({2, 4, kDim}) * 0.1;
    x.select(2, 0).copy_(torch::tensor({{1.0, 2.0, 3.0, 4.0}, {1.0, -1.0, 2.0, -2.0}}));
    QCOMPARE(headroom::models::expertCapacity(layer->options(), 4), std::int64_t{2});
    const MoeOutput out = layer->forward(x);
    QCOMPARE(out.dropped.item<std::int64_t>(), std::int64_t{2});
    QCOMPARE(toVector(out.expert_counts), (std::vector<std::int64_t>{6, 2}));
    // The dropped tokens (row 0, positions 2 and 3) get nothing; the others do.
    const torch::Tensor norms = out.output.norm(2, -1);
    QCOMPARE(norms[0][2].item<double>(), 0.0);
    QCOMPARE(norms[0][3].item<double>(), 0.0);
    QVERIFY(norms[0][1].item<double>() > 0 && norms[1][3].item<double>() > 0);
}

void TestMoe::secondChoicesYieldToFirstChoices() {
    // Three experts, top-2, capacity ceil(0.5 * 2 * 2 / 3) = 1. Token 0 prefers 0 then 1, token
    // 1 prefers 1 then 0. First choices go first: both are kept, both second choices dropped
    // (in token order, token 0's second choice would have taken expert 1 from token 1).
    MoeLayer layer = makeLayer(MoeOptions().experts(3).top_k(2).capacity_factor(0.5));
    {
        torch::NoGradGuard no_grad;
        layer->router->weight.zero_();
        layer->router->weight[0][0] = 3.0; // expert 0 likes feature 0
        layer->router->weight[1][1] = 3.0; // expert 1 likes feature 1
        layer->router->weight[2][2] = -3.0;
    }
    torch::Tensor x = torch::zeros({1, 2, kDim});
    x[0][0][0] = 2.0;
    x[0][0][1] = 1.0;
    x[0][1][0] = 1.0;
    x[0][1][1] = 2.0;
    QCOMPARE(headroom::models::expertCapacity(layer->options(), 2), std::int64_t{1});
    const MoeOutput out = layer->forward(x);
    QCOMPARE(out.dropped.item<std::int64_t>(), std::int64_t{2});
    // Token 0's output is its first expert's alone, weighted by its renormalised gate.
    const torch::Tensor probabilities =
        torch::softmax(torch::linear(x[0][0], layer->router->weight), -1);
    const auto top = probabilities.topk(2);
    const double gate = (std::get<0>(top)[0] / std::get<0>(top).sum()).item<double>();
    auto *expert0 = layer->experts[0]->as<headroom::models::ExpertMlpImpl>();
    const torch::Tensor expected = expert0->fc_out(torch::gelu(expert0->fc(x[0][0]))) * gate;
    QVERIFY(close(out.output[0][0], expected));
}

void TestMoe::balancedRoutingHasAuxLossOne() {
    MoeLayer layer = makeLayer(MoeOptions().experts(2).top_k(1).capacity_factor(0.0));
    {
        torch::NoGradGuard no_grad;
        layer->router->weight.zero_();
        layer->router->weight[0][0] = 1.0;
        layer->router->weight[1][0] = -1.0;
    }
    // Mirror-image tokens: probabilities (p, 1-p) and (1-p, p), one token per expert.
    torch::Tensor x = torch::zeros({1, 2, kDim});
    x[0][0][0] = 0.7;
    x[0][1][0] = -0.7;
    const MoeOutput balanced = layer->forward(x);
    QVERIFY(std::abs(balanced.aux_loss.item<double>() - 1.0) < 1e-6);
    // Both tokens to expert 0: f = (1, 0), so aux = 2 * mean probability of expert 0.
    x[0][1][0] = 0.3;
    const MoeOutput skewed = layer->forward(x);
    const double p0 = torch::softmax(torch::linear(x[0], layer->router->weight), -1)
                          .select(1, 0)
                          .mean()
                          .item<double>();
    QVERIFY(std::abs(skewed.aux_loss.item<double>() - 2.0 * p0) < 1e-6);
    QVERIFY(skewed.aux_loss.item<double>() > 1.0);
}

void TestMoe::perRowCapacityMakesHalvesEqual() {
    MoeLayer layer = makeLayer(MoeOptions().experts(4).top_k(2).capacity_factor(0.75));
    const torch::Tensor x = torch::randn({4, 12, kDim});
    const MoeOutput whole = layer->forward(x);
    const MoeOutput first = layer->forward(x.narrow(0, 0, 2));
    const MoeOutput second = layer->forward(x.narrow(0, 2, 2));
    QVERIFY(whole.dropped.item<std::int64_t>() > 0);
    QVERIFY(close(whole.output, torch::cat({first.output, second.output}), 1e-6));
    QCOMPARE(whole.dropped.item<std::int64_t>(),
             first.dropped.item<std::int64_t>() + second.dropped.item<std::int64_t>());
    QCOMPARE(toVector(whole.expert_counts), toVector(first.expert_counts + second.expert_counts));
    // Per-row means: the whole is the mean of the halves.
    QVERIFY(close(whole.aux_loss, (first.aux_loss + second.aux_loss) / 2, 1e-6));
    QVERIFY(close(whole.z_loss, (first.z_loss + second.z_loss) / 2, 1e-6));
}

void TestMoe::jitterIsKeyedPerExample() {
    MoeLayer layer = makeLayer(MoeOptions().experts(4).top_k(2).capacity_factor(1.0).jitter(0.3));
    layer->setJitterSite(17);
    layer->train();
    const torch::Tensor x = torch::randn({4, 6, kDim});
    const auto run = [&](std::uint64_t seed, std::int64_t first, std::int64_t rows) {
        const ScopedDropoutKey key(seed, first, rows);
        return layer->forward(x.narrow(0, first, rows));
    };
    const MoeOutput whole = run(11, 0, 4);
    const MoeOutput replay = run(11, 0, 4);
    const MoeOutput first = run(11, 0, 2);
    const MoeOutput second = run(11, 2, 2);
    QVERIFY(torch::equal(whole.output, replay.output));
    QVERIFY(torch::equal(whole.z_loss, replay.z_loss));
    QVERIFY(close(whole.output, torch::cat({first.output, second.output}), 1e-6));
    QVERIFY(close(whole.z_loss, (first.z_loss + second.z_loss) / 2, 1e-6));
    // The noise is there: another step seed, or evaluation (no jitter), routes differently.
    QVERIFY(!torch::equal(run(12, 0, 4).z_loss, whole.z_loss));
    layer->eval();
    QVERIFY(!torch::equal(run(11, 0, 4).z_loss, whole.z_loss));
}

void TestMoe::gatheredDropoutMatchesFullDropout() {
    const torch::Tensor full = torch::randn({3 * 5, 6}); // 3 rows of 5 tokens
    const torch::Tensor positions = torch::tensor({14, 0, 7, 7, 3}, torch::kLong);
    const ScopedDropoutKey key(5, /*first_row=*/6, /*rows=*/3);
    const torch::Tensor expected =
        headroom::models::keyedDropout(full, 0.4, 9).index_select(0, positions);
    const torch::Tensor gathered = headroom::models::keyedDropoutRows(
        full.index_select(0, positions), 0.4, 9, positions, full.size(0));
    QVERIFY(torch::equal(gathered, expected));
    QVERIFY((gathered == 0).any().item<bool>());
}

void TestMoe::checkpointedBlockEqualsPlainBlock() {
    GptOptions options = moeGpt();
    options.dropout(0.2);
    options.moe().jitter(0.1);
    torch::manual_seed(5);
    GptBlock block(options, /*moe=*/true);
    block->setDropoutSite(2000);
    block->train();
    const torch::Tensor weights = torch::randn({2, 8, kDim});
    const auto run = [&](bool checkpoint) {
        for (torch::Tensor &parameter : block->parameters()) {
            parameter.mutable_grad().reset();
        }
        torch::manual_seed(9);
        const torch::Tensor x = torch::randn({2, 8, kDim}).requires_grad_(true);
        const ScopedDropoutKey key(77, 0, 2);
        const std::vector<torch::Tensor> parts =
            checkpoint
                ? headroom::models::checkpointedOutputs(
                      [&block](const torch::Tensor &input) { return block->forwardRouted(input); },
                      x)
                : block->forwardRouted(x);
        ((parts[0] * weights).sum() + 0.5 * parts[1] + 0.5 * parts[2]).backward();
        std::vector<torch::Tensor> result = parts;
        for (torch::Tensor &part : result) {
            part = part.detach();
        }
        result.push_back(x.grad());
        for (const torch::Tensor &parameter : block->parameters()) {
            result.push_back(parameter.grad().defined() ? parameter.grad().clone()
                                                        : torch::zeros_like(parameter));
        }
        return result;
    };
    const std::vector<torch::Tensor> plain = run(false);
    const std::vector<torch::Tensor> recomputed = run(true);
    QCOMPARE(plain.size(), recomputed.size());
    QVERIFY(torch::equal(plain[0], recomputed[0]));
    QVERIFY(torch::equal(plain[3], recomputed[3])); // expert counts
    QVERIFY(torch::equal(plain[4], recomputed[4])); // dropped
    for (std::size_t i = 1; i < plain.size(); ++i) {
        QVERIFY2(close(plain[i], recomputed[i], 1e-6), qPrintable(QString("part %1").arg(i)));
    }
}

void TestMoe::routingIsCountedOncePerForward() {
    const auto run = [](std::int64_t checkpoint_every) {
        torch::manual_seed(21);
        Gpt model(moeGpt(/*every=*/1));
        model->train();
        model->setCheckpointEvery(checkpoint_every);
        const torch::Tensor tokens = torch::randint(0, 40, {3, 8});
        headroom::models::GptLoss terms = model->lossTerms(tokens, tokens);
        (terms.loss + terms.moe->aux_loss + terms.moe->z_loss).backward();
        return terms;
    };
    const headroom::models::GptLoss plain = run(0);
    const headroom::models::GptLoss checkpointed = run(1);
    QVERIFY(plain.moe && checkpointed.moe);
    QCOMPARE(checkpointed.moe->expert_counts.size(), std::size_t{2}); // one per MoE block
    QCOMPARE(checkpointed.moe->assignments, std::int64_t{3 * 8 * 2});
    for (std::size_t block = 0; block < 2; ++block) {
        QCOMPARE(checkpointed.moe->expert_counts[block].sum().item<std::int64_t>(),
                 checkpointed.moe->assignments);
        QVERIFY(
            torch::equal(checkpointed.moe->expert_counts[block], plain.moe->expert_counts[block]));
        QVERIFY(torch::equal(checkpointed.moe->dropped[block], plain.moe->dropped[block]));
    }
    QVERIFY(torch::equal(checkpointed.loss, plain.loss));
    QVERIFY(close(checkpointed.moe->aux_loss, plain.moe->aux_loss, 1e-6));
}

// The estimator's trainable parameters under LoRA are the model's: adapters on each expert of
// an MoE block, none on the dense MLP such a block does not have.
void TestMoe::estimateCountsTheExpertsAdapters() {
    for (const char *targets :
         {"qkv,mlp_in,mlp_out", "qkv,experts_in", "experts_in,experts_out,mlp_in,attn_out"}) {
        headroom::Config config;
        for (const std::string assignment :
             {"model.layers=4", "model.heads=2", "model.dim=16", "model.seq_len=8", "moe.experts=4",
              "moe.top_k=2", "moe.every=2", "moe.expert_hidden=24", "lora.rank=3"}) {
            config.setAssignment(assignment);
        }
        config.set("lora.targets", targets);
        Gpt model(headroom::train::gptOptionsFromConfig(config, 40));
        std::set<std::string> target_set;
        std::stringstream list(targets);
        for (std::string name; std::getline(list, name, ',');) {
            target_set.insert(name);
        }
        model->enableLora(headroom::models::LoraOptions().rank(3).targets(target_set));
        std::int64_t trainable = 0;
        for (const torch::Tensor &parameter : model->parameters()) {
            trainable += parameter.requires_grad() ? parameter.numel() : 0;
        }
        const headroom::MemoryEstimate estimate =
            headroom::estimateMemory(config, headroom::plan::gptFacts(40));
        QVERIFY2(estimate.trainable == trainable, qPrintable(QString("%1: estimated %2, model %3")
                                                                 .arg(targets)
                                                                 .arg(estimate.trainable)
                                                                 .arg(trainable)));
    }
}

void TestMoe::loraAdaptsExpertsAndFreezesTheRouter() {
    torch::manual_seed(8);
    Gpt model(moeGpt());
    model->enableLora(headroom::models::LoraOptions().rank(2).dropout(0.1).targets(
        {"qkv", "experts_in", "experts_out"}));
    const auto parameters = model->named_parameters();
    QVERIFY(!parameters["blocks.1.moe.router.weight"].requires_grad());
    QVERIFY(parameters.contains("blocks.1.moe.experts.3.lora_experts_in.a"));
    QVERIFY(parameters.contains("blocks.1.moe.experts.0.lora_experts_out.b"));
    QVERIFY(parameters.contains("blocks.0.lora_qkv.a"));
    QVERIFY(!parameters.contains("blocks.0.lora_mlp_in.a"));
    for (const auto &item : parameters) {
        QCOMPARE(item.value().requires_grad(), item.key().find(".lora_") != std::string::npos);
    }
    {
        torch::NoGradGuard no_grad;
        for (const auto &item : model->named_parameters()) {
            if (item.key().find(".lora_") != std::string::npos && item.key().back() == 'b') {
                item.value().copy_(torch::randn(item.value().sizes()) * 0.2);
            }
        }
    }
    const torch::Tensor tokens = torch::randint(0, 40, {2, 8});
    model->train();
    {
        const ScopedDropoutKey key(3, 0, 2);
        model->loss(tokens, tokens).backward();
    }
    QVERIFY(parameters["blocks.1.moe.experts.0.lora_experts_in.b"].grad().defined() ||
            parameters["blocks.1.moe.experts.1.lora_experts_in.b"].grad().defined());

    // Merged weights make a plain model that computes the same in evaluation.
    model->eval();
    Gpt plain(moeGpt());
    auto plain_parameters = plain->named_parameters();
    {
        torch::NoGradGuard no_grad;
        for (const auto &[name, tensor] : model->mergedState()) {
            if (plain_parameters.contains(name)) {
                plain_parameters[name].copy_(tensor);
            }
        }
    }
    plain->eval();
    torch::NoGradGuard no_grad;
    QVERIFY(close(model->forward(tokens), plain->forward(tokens)));
}

void TestMoe::bf16AutocastKeepsTheRouterInFp32() {
    if (!headroom::compat::autocastUnsupportedReason(torch::kCPU, torch::kBFloat16).empty()) {
        QSKIP("bf16 autocast is not available on this CPU");
    }
    MoeLayer layer = makeLayer(MoeOptions().experts(4).top_k(2).capacity_factor(1.0));
    const torch::Tensor x = torch::randn({2, 8, kDim});
    const MoeOutput full = layer->forward(x);
    MoeOutput half;
    {
        const headroom::compat::AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
        half = layer->forward(x);
    }
    QCOMPARE(QString(c10::toString(half.output.scalar_type())), QString("BFloat16"));
    QCOMPARE(QString(c10::toString(half.aux_loss.scalar_type())), QString("Float"));
    // The same routing decisions (an fp32 router), the outputs within bf16 rounding.
    QVERIFY(torch::equal(full.expert_counts, half.expert_counts));
    QCOMPARE(full.dropped.item<std::int64_t>(), half.dropped.item<std::int64_t>());
    QVERIFY(torch::equal(full.z_loss, half.z_loss));
    QVERIFY(torch::allclose(half.output.to(torch::kFloat), full.output, 0.05, 0.05));
}

void TestMoe::badOptionsAreRejected_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative experts") << "experts" << -1.0 << "moe.experts must be 0";
    QTest::newRow("top_k 0") << "top_k" << 0.0 << "moe.top_k must be in 1..experts (4), got 0";
    QTest::newRow("top_k above experts") << "top_k" << 5.0 << "moe.top_k must be in 1..experts";
    QTest::newRow("negative capacity") << "capacity_factor" << -0.5 << "moe.capacity_factor";
    QTest::newRow("every 0") << "every" << 0.0 << "moe.every must be at least 1";
    QTest::newRow("every beyond layers") << "every" << 3.0 << "moe.every (3) is larger than layers";
    QTest::newRow("negative hidden") << "expert_hidden" << -4.0 << "moe.expert_hidden";
    QTest::newRow("negative aux") << "aux_loss" << -1.0 << "moe.aux_loss must be 0 or more";
    QTest::newRow("negative z") << "z_loss" << -1.0 << "moe.z_loss must be 0 or more";
    QTest::newRow("jitter 1") << "jitter" << 1.0 << "moe.jitter must be in [0, 1)";
}

void TestMoe::badOptionsAreRejected() {
    QFETCH(QString, option);
    QFETCH(double, value);
    QFETCH(QString, message);
    GptOptions options = moeGpt();
    MoeOptions &moe = options.moe();
    const auto whole = static_cast<std::int64_t>(value);
    if (option == "experts")
        moe.experts(whole);
    if (option == "top_k")
        moe.top_k(whole);
    if (option == "capacity_factor")
        moe.capacity_factor(value);
    if (option == "every")
        moe.every(whole);
    if (option == "expert_hidden")
        moe.expert_hidden(whole);
    if (option == "aux_loss")
        moe.aux_loss(value);
    if (option == "z_loss")
        moe.z_loss(value);
    if (option == "jitter")
        moe.jitter(value);
    try {
        headroom::models::validateGptOptions(options);
        QFAIL("bad option accepted");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString(error.what()).contains(message), error.what());
    }
    QVERIFY_EXCEPTION_THROWN(Gpt{options}, std::invalid_argument);
}

void TestMoe::denseModelIsUnchanged() {
    GptOptions options(/*vocab_size=*/40, /*seq_len=*/8);
    options.layers(2).heads(2).dim(kDim);
    options.moe().top_k(3).capacity_factor(-1.0); // ignored while experts = 0
    headroom::models::validateGptOptions(options);
    Gpt model(options);
    std::set<std::string> names;
    for (const auto &item : model->named_parameters()) {
        names.insert(item.key());
    }
    const std::set<std::string> block = {
        "ln1.weight", "ln1.bias", "qkv.weight", "qkv.bias", "proj.weight",   "proj.bias",
        "ln2.weight", "ln2.bias", "fc.weight",  "fc.bias",  "fc_out.weight", "fc_out.bias"};
    std::set<std::string> expected = {"token_embedding.weight", "position_embedding.weight",
                                      "ln_final.weight", "ln_final.bias"};
    for (const std::string &name : block) {
        expected.insert("blocks.0." + name);
        expected.insert("blocks.1." + name);
    }
    QVERIFY(names == expected);
    const std::int64_t d = kDim;
    QCOMPARE(headroom::models::gptParameterCount(options),
             (40 + 8) * d + 2 * (12 * d * d + 13 * d) + 2 * d);
    const torch::Tensor tokens = torch::randint(0, 40, {2, 8});
    QVERIFY(!model->lossTerms(tokens, tokens).moe.has_value());
}

void TestMoe::moeParametersAreCountedAndNamed() {
    for (const std::int64_t every : {1, 2}) {
        const GptOptions options = moeGpt(every);
        Gpt model(options);
        std::int64_t count = 0;
        for (const torch::Tensor &parameter : model->parameters()) {
            count += parameter.numel();
        }
        QCOMPARE(headroom::models::gptParameterCount(options), count);
        const auto parameters = model->named_parameters();
        QVERIFY(parameters.contains("blocks.1.moe.router.weight"));
        QVERIFY(!parameters.contains("blocks.1.moe.router.bias"));
        QVERIFY(parameters.contains("blocks.1.moe.experts.3.fc.weight"));
        QVERIFY(parameters.contains("blocks.1.moe.experts.3.fc_out.bias"));
        QVERIFY(!parameters.contains("blocks.1.fc.weight"));
        // every = 2: block 0 stays dense (index % 2 == 1 are the MoE blocks).
        QCOMPARE(parameters.contains("blocks.0.fc.weight"), every == 2);
        QCOMPARE(headroom::models::isMoeBlock(options, 0), every == 1);
        QCOMPARE(parameters["blocks.1.moe.experts.2.fc.weight"].size(0), kHidden);
    }
}

QTEST_GUILESS_MAIN(TestMoe)
#include "test_moe.moc"
