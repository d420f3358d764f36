#include "compat/attention.h"
#include "models/gpt.h"
#include "models/tabular_mlp.h"
#include "optim/fused_adamw.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <limits>
#include <stdexcept>

using headroom::models::Gpt;
using headroom::models::GptOptions;
using headroom::models::TabularMlp;
using headroom::models::TabularMlpOptions;

namespace {

GptOptions tinyGpt(double dropout = 0.0) {
    return GptOptions(50, 16).layers(2).heads(2).dim(32).dropout(dropout);
}

std::int64_t countParameters(const torch::nn::Module &module) {
    std::int64_t count = 0;
    for (const torch::Tensor &parameter : module.parameters()) {
        count += parameter.numel();
    }
    return count;
}

double standardDeviation(const torch::Tensor &tensor) {
    return tensor.detach().to(torch::kDouble).std().item<double>();
}

// A small classification set whose label needs both the numeric and the categorical input.
struct TabularBatch {
    torch::Tensor numeric;
    torch::Tensor categorical;
    torch::Tensor labels;
};

TabularBatch tabularBatch(std::int64_t rows) {
    torch::manual_seed(5);
    TabularBatch batch;
    batch.numeric = torch::randn({rows, 3});
    batch.categorical = torch::stack(
        {torch::randint(1, 5, {rows}, torch::kLong), torch::randint(0, 3, {rows}, torch::kLong)},
        1);
    const torch::Tensor score = batch.numeric.select(1, 0) +
                                (batch.categorical.select(1, 0) % 2).to(torch::kFloat) * 2.0 - 1.0;
    batch.labels =
        (score > 0).to(torch::kLong) + (batch.categorical.select(1, 1) == 2).to(torch::kLong);
    return batch;
}

} // namespace

class TestModels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void causalAttentionMatchesNaiveSoftmax();
    void gptLogitsShape_data();
    void gptLogitsShape();
    void gptIsCausal();
    void gptOutputProjectionIsTheTokenEmbedding();
    void gptGradientFlowsThroughTiedWeight();
    void gptParameterCountIsExact_data();
    void gptParameterCountIsExact();
    void gptOptionsForParameterCount_data();
    void gptOptionsForParameterCount();
    void gptOptionsPreferGpt2Shapes();
    void gptInitializationFollowsGpt2();
    void gptLossAtInitIsNearLogVocab();
    void gptAdamWLowersLoss_data();
    void gptAdamWLowersLoss();
    void gptDropoutOnlyInTraining();
    void gptRejectsBadInput();
    void tabularOutputShape_data();
    void tabularOutputShape();
    void tabularWithoutNumericColumns();
    void tabularUsesEmbeddings();
    void tabularClassifierOverfitsTinyBatch();
    void tabularRegressorOverfitsTinyBatch();
    void tabularRejectsBadInput();
};

void TestModels::causalAttentionMatchesNaiveSoftmax() {
    torch::manual_seed(9);
    const std::int64_t batch = 2;
    const std::int64_t length = 5;
    const std::int64_t heads = 3;
    const std::int64_t head_dim = 4;
    const std::int64_t dim = heads * head_dim;
    const torch::Tensor qkv = torch::randn({batch, length, 3 * dim});
    torch::Tensor expected = torch::empty({batch * length, dim});
    const torch::Tensor future =
        torch::ones({length, length}, torch::kBool).triu(1); // j > i is hidden from i
    for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t h = 0; h < heads; ++h) {
            const auto columns = [&](std::int64_t part) {
                return qkv[b].narrow(1, part * dim + h * head_dim, head_dim);
            };
            const torch::Tensor scores =
                columns(0).matmul(columns(1).t()) / std::sqrt(static_cast<double>(head_dim));
            const torch::Tensor weights =
                scores.masked_fill(future, -std::numeric_limits<double>::infinity()).softmax(1);
            expected.narrow(0, b * length, length)
                .narrow(1, h * head_dim, head_dim)
                .copy_(weights.matmul(columns(2)));
        }
    }
    const torch::Tensor actual = headroom::compat::causalSelfAttention(qkv, heads, 0.0);
    QCOMPARE(actual.sizes().vec(), (std::vector<std::int64_t>{batch * length, dim}));
    QVERIFY(torch::allclose(actual, expected, 1e-5, 1e-6));
}

void TestModels::gptLogitsShape_data() {
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("length");
    QTest::newRow("one token") << 1 << 1;
    QTest::newRow("short") << 2 << 5;
    QTest::newRow("full context") << 3 << 16;
}

void TestModels::gptLogitsShape() {
    QFETCH(int, batch);
    QFETCH(int, length);
    Gpt model(tinyGpt());
    const torch::Tensor logits = model->forward(torch::randint(50, {batch, length}, torch::kLong));
    QCOMPARE(logits.sizes().vec(), (std::vector<std::int64_t>{batch, length, 50}));
    QVERIFY(logits.isfinite().all().item<bool>());
    QCOMPARE(model->blocks()->size(), std::size_t{2});
}

void TestModels::gptIsCausal() {
    torch::manual_seed(1);
    Gpt model(tinyGpt(0.2));
    model->eval();
    const torch::Tensor tokens = torch::randint(50, {2, 12}, torch::kLong);
    torch::Tensor changed = tokens.clone();
    const std::int64_t position = 7;
    changed.select(1, position).fill_((tokens[0][position].item<std::int64_t>() + 1) % 50);
    const torch::Tensor before = model->forward(tokens);
    const torch::Tensor after = model->forward(changed);
    QVERIFY(torch::equal(before.narrow(1, 0, position), after.narrow(1, 0, position)));
    QVERIFY(!torch::allclose(before.select(1, position), after.select(1, position)));
    QVERIFY(!torch::allclose(before.select(1, 11), after.select(1, 11)));
}

void TestModels::gptOutputProjectionIsTheTokenEmbedding() {
    torch::manual_seed(2);
    Gpt model(tinyGpt());
    model->eval();
    // One [vocab, dim] matrix among the parameters: no separate output weight.
    int vocab_matrices = 0;
    for (const auto &item : model->named_parameters()) {
        if (item.value().sizes() == torch::IntArrayRef{50, 32}) {
            ++vocab_matrices;
            QCOMPARE(item.key(), std::string("token_embedding.weight"));
        }
    }
    QCOMPARE(vocab_matrices, 1);
    // Editing the embedding row of a token absent from the input changes only that logit.
    const torch::Tensor tokens = torch::randint(0, 10, {1, 6}, torch::kLong);
    const torch::Tensor before = model->forward(tokens);
    {
        torch::NoGradGuard no_grad;
        model->tokenEmbeddingWeight()[42].add_(1.0);
    }
    const torch::Tensor after = model->forward(tokens);
    QVERIFY(!torch::allclose(before.select(2, 42), after.select(2, 42)));
    QVERIFY(torch::equal(before.narrow(2, 0, 42), after.narrow(2, 0, 42)));
}

void TestModels::gptGradientFlowsThroughTiedWeight() {
    torch::manual_seed(3);
    Gpt model(tinyGpt());
    // Inputs and targets use tokens 0..9 only: rows 10..49 of the embedding get gradient
    // from the output projection alone.
    const torch::Tensor inputs = torch::randint(0, 10, {2, 8}, torch::kLong);
    const torch::Tensor targets = torch::randint(0, 10, {2, 8}, torch::kLong);
    model->loss(inputs, targets).backward();
    const torch::Tensor grad = model->tokenEmbeddingWeight().grad();
    QVERIFY(grad.defined());
    QVERIFY(grad.narrow(0, 10, 40).abs().sum(1).gt(0).all().item<bool>());
}

void TestModels::gptParameterCountIsExact_data() {
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("seq_len");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("dim");
    QTest::newRow("tiny") << 50 << 16 << 2 << 2 << 32;
    QTest::newRow("bytes") << 257 << 64 << 4 << 4 << 128;
    QTest::newRow("one layer, odd vocab") << 1001 << 7 << 1 << 3 << 48;
}

void TestModels::gptParameterCountIsExact() {
    QFETCH(int, vocab);
    QFETCH(int, seq_len);
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, dim);
    const GptOptions options = GptOptions(vocab, seq_len).layers(layers).heads(heads).dim(dim);
    Gpt model(options);
    QCOMPARE(headroom::models::gptParameterCount(options), countParameters(*model));
}

void TestModels::gptOptionsForParameterCount_data() {
    QTest::addColumn<qlonglong>("target");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("seq_len");
    QTest::newRow("1M bytes") << 1'000'000LL << 257 << 256;
    QTest::newRow("10M bytes") << 10'000'000LL << 257 << 256;
    QTest::newRow("50M bytes") << 50'000'000LL << 257 << 1024;
    QTest::newRow("10M 32k vocab") << 10'000'000LL << 32000 << 512;
    QTest::newRow("50M 32k vocab") << 50'000'000LL << 32000 << 512;
}

void TestModels::gptOptionsForParameterCount() {
    QFETCH(qlonglong, target);
    QFETCH(int, vocab);
    QFETCH(int, seq_len);
    const GptOptions options =
        headroom::models::gptOptionsForParameterCount(target, vocab, seq_len);
    QCOMPARE(options.vocab_size(), std::int64_t{vocab});
    QCOMPARE(options.seq_len(), std::int64_t{seq_len});
    QVERIFY(options.layers() >= 1);
    QCOMPARE(options.dim() % options.heads(), std::int64_t{0});
    const std::int64_t head_dim = options.dim() / options.heads();
    QVERIFY(head_dim == 32 || head_dim == 64);
    const double count = static_cast<double>(headroom::models::gptParameterCount(options));
    const double error =
        std::abs(count - static_cast<double>(target)) / static_cast<double>(target);
    QVERIFY2(error <= 0.15, qPrintable(QString("%1 layers x dim %2: %3 parameters for target %4")
                                           .arg(options.layers())
                                           .arg(options.dim())
                                           .arg(count)
                                           .arg(target)));
}

void TestModels::gptOptionsPreferGpt2Shapes() {
    // Head size 64 and layers = dim/64 when that lands within 10 % (10.8M here), rather than a
    // closer but odd shape.
    const GptOptions options = headroom::models::gptOptionsForParameterCount(10'000'000, 257, 256);
    QCOMPARE(options.dim(), std::int64_t{384});
    QCOMPARE(options.heads(), std::int64_t{6});
    QCOMPARE(options.layers(), std::int64_t{6});
    // A target below any one-layer model gets the smallest one rather than nothing.
    const GptOptions tiny = headroom::models::gptOptionsForParameterCount(1000, 257, 256);
    QCOMPARE(tiny.layers(), std::int64_t{1});
    QVERIFY(tiny.dim() >= 32);
}

void TestModels::gptInitializationFollowsGpt2() {
    torch::manual_seed(4);
    const GptOptions options = GptOptions(257, 64).layers(8).heads(4).dim(128);
    Gpt model(options);
    const double residual = 0.02 / std::sqrt(16.0);
    for (const auto &item : model->named_parameters()) {
        const std::string &name = item.key();
        const torch::Tensor &value = item.value();
        const bool is_bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
        if (name.find("ln") != std::string::npos) {
            QVERIFY2(
                torch::equal(value, is_bias ? torch::zeros_like(value) : torch::ones_like(value)),
                name.c_str());
        } else if (is_bias) {
            QVERIFY2(torch::equal(value, torch::zeros_like(value)), name.c_str());
        } else {
            const bool residual_projection = name.find(".proj.") != std::string::npos ||
                                             name.find(".fc_out.") != std::string::npos;
            const double expected = residual_projection ? residual : 0.02;
            QVERIFY2(std::abs(standardDeviation(value) - expected) < 0.1 * expected, name.c_str());
        }
    }
}

void TestModels::gptLossAtInitIsNearLogVocab() {
    torch::manual_seed(5);
    Gpt model(GptOptions(257, 32).layers(2).heads(2).dim(64));
    const torch::Tensor inputs = torch::randint(257, {4, 32}, torch::kLong);
    const torch::Tensor targets = torch::randint(257, {4, 32}, torch::kLong);
    const double loss = model->loss(inputs, targets).item<double>();
    QVERIFY2(std::abs(loss - std::log(257.0)) < 0.1, qPrintable(QString::number(loss)));
}

void TestModels::gptAdamWLowersLoss_data() {
    QTest::addColumn<bool>("fused");
    QTest::newRow("torch AdamW") << false;
    QTest::newRow("fused AdamW") << true;
}

void TestModels::gptAdamWLowersLoss() {
    QFETCH(bool, fused);
    torch::manual_seed(6);
    Gpt model(tinyGpt(0.1));
    const torch::Tensor tokens = torch::randint(50, {4, 17}, torch::kLong);
    const torch::Tensor inputs = tokens.narrow(1, 0, 16);
    const torch::Tensor targets = tokens.narrow(1, 1, 16);
    std::unique_ptr<torch::optim::AdamW> reference;
    std::unique_ptr<headroom::train::FusedAdamW> optimizer;
    if (fused) {
        optimizer = std::make_unique<headroom::train::FusedAdamW>(
            model->parameters(), headroom::train::FusedAdamWOptions().lr(3e-3));
    } else {
        reference = std::make_unique<torch::optim::AdamW>(model->parameters(),
                                                          torch::optim::AdamWOptions(3e-3));
    }
    const double initial = model->loss(inputs, targets).item<double>();
    double last = initial;
    for (int step = 0; step < 15; ++step) {
        torch::Tensor loss = model->loss(inputs, targets);
        loss.backward();
        if (fused) {
            optimizer->clipGradNorm(1.0);
            optimizer->step();
            optimizer->zeroGrad();
        } else {
            torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
            reference->step();
            model->zero_grad(true);
        }
        last = loss.item<double>();
    }
    QVERIFY2(last < 0.8 * initial, qPrintable(QString("%1 -> %2").arg(initial).arg(last)));
}

void TestModels::gptDropoutOnlyInTraining() {
    torch::manual_seed(7);
    Gpt model(tinyGpt(0.5));
    const torch::Tensor tokens = torch::randint(50, {2, 10}, torch::kLong);
    model->train();
    QVERIFY(!torch::equal(model->forward(tokens), model->forward(tokens)));
    model->eval();
    QVERIFY(torch::equal(model->forward(tokens), model->forward(tokens)));
}

void TestModels::gptRejectsBadInput() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Gpt(tinyGpt().heads(3)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Gpt(tinyGpt().dropout(1.0)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Gpt(GptOptions(0, 16)));
    Gpt model(tinyGpt());
    try {
        model->forward(torch::zeros({1, 17}, torch::kLong));
        QFAIL("a sequence longer than seq_len was accepted");
    } catch (const c10::Error &error) {
        QVERIFY2(std::string(error.what()).find("seq_len") != std::string::npos, error.what());
    }
    QVERIFY_THROWS_EXCEPTION(c10::Error, model->forward(torch::zeros({1, 4}, torch::kInt)));
}

void TestModels::tabularOutputShape_data() {
    QTest::addColumn<int>("outputs");
    QTest::addColumn<bool>("with_categorical");
    QTest::newRow("classifier") << 3 << true;
    QTest::newRow("regressor") << 1 << true;
    QTest::newRow("numeric only") << 2 << false;
}

void TestModels::tabularOutputShape() {
    QFETCH(int, outputs);
    QFETCH(bool, with_categorical);
    TabularMlpOptions options(4, outputs);
    if (with_categorical) {
        options.cardinalities({5, 100});
    }
    TabularMlp model(options);
    const torch::Tensor categorical =
        with_categorical
            ? torch::stack(
                  {torch::randint(5, {8}, torch::kLong), torch::randint(100, {8}, torch::kLong)}, 1)
            : torch::Tensor();
    const torch::Tensor output = model->forward(torch::randn({8, 4}), categorical);
    QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{8, outputs}));
    // Automatic widths: min(16, (5 + 1) / 2) = 3 and 16.
    QCOMPARE(model->inputWidth(), std::int64_t{with_categorical ? 4 + 3 + 16 : 4});
}

void TestModels::tabularWithoutNumericColumns() {
    TabularMlp model(TabularMlpOptions(0, 2).cardinalities({3}));
    const torch::Tensor categorical = torch::tensor({{1}, {2}, {0}}, torch::kLong);
    QCOMPARE(model->forward(torch::Tensor(), categorical).sizes().vec(),
             (std::vector<std::int64_t>{3, 2}));
    QCOMPARE(model->forward(torch::zeros({3, 0}), categorical).sizes().vec(),
             (std::vector<std::int64_t>{3, 2}));
}

void TestModels::tabularUsesEmbeddings() {
    torch::manual_seed(8);
    TabularMlp model(TabularMlpOptions(2, 3).cardinalities({4, 6}).dropout(0.0));
    model->eval();
    const torch::Tensor numeric = torch::randn({1, 2});
    const torch::Tensor a = model->forward(numeric, torch::tensor({{1, 2}}, torch::kLong));
    const torch::Tensor b = model->forward(numeric, torch::tensor({{3, 2}}, torch::kLong));
    const torch::Tensor c = model->forward(numeric, torch::tensor({{1, 5}}, torch::kLong));
    QVERIFY(!torch::allclose(a, b));
    QVERIFY(!torch::allclose(a, c));
    int embeddings = 0;
    for (const auto &item : model->named_parameters()) {
        embeddings += item.key().rfind("embedding", 0) == 0 ? 1 : 0;
    }
    QCOMPARE(embeddings, 2);
}

void TestModels::tabularClassifierOverfitsTinyBatch() {
    const TabularBatch batch = tabularBatch(32);
    TabularMlp model(TabularMlpOptions(3, 3).cardinalities({5, 3}).hidden({32, 32}));
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(1e-2));
    for (int step = 0; step < 150; ++step) {
        torch::Tensor loss = torch::nn::functional::cross_entropy(
            model->forward(batch.numeric, batch.categorical), batch.labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
    }
    model->eval();
    const torch::Tensor predicted = model->forward(batch.numeric, batch.categorical).argmax(1);
    QCOMPARE(predicted.eq(batch.labels).sum().item<std::int64_t>(), std::int64_t{32});
}

void TestModels::tabularRegressorOverfitsTinyBatch() {
    const TabularBatch batch = tabularBatch(32);
    const torch::Tensor targets =
        (batch.numeric.select(1, 1) * 0.5 + batch.categorical.select(1, 0).to(torch::kFloat) * 0.3)
            .unsqueeze(1);
    TabularMlp model(TabularMlpOptions(3, 1).cardinalities({5, 3}).hidden({32}).dropout(0.0));
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(1e-2));
    double loss_value = 0;
    for (int step = 0; step < 200; ++step) {
        torch::Tensor loss =
            torch::mse_loss(model->forward(batch.numeric, batch.categorical), targets);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        loss_value = loss.item<double>();
    }
    QVERIFY2(loss_value < 0.02 * targets.var().item<double>(),
             qPrintable(QString::number(loss_value)));
}

void TestModels::tabularRejectsBadInput() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TabularMlp(TabularMlpOptions(0, 2)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TabularMlp(TabularMlpOptions(2, 0)));
    TabularMlp model(TabularMlpOptions(2, 2).cardinalities({4, 6}));
    const torch::Tensor numeric = torch::randn({2, 2});
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument,
        model->forward(torch::randn({2, 3}), torch::zeros({2, 2}, torch::kLong)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             model->forward(numeric, torch::zeros({2, 1}, torch::kLong)));
    try {
        model->forward(numeric, torch::tensor({{1, 2}, {3, 6}}, torch::kLong));
        QFAIL("an out-of-range category id was accepted");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(std::string(error.what()).find("column 1") != std::string::npos, error.what());
    }
}

QTEST_GUILESS_MAIN(TestModels)
#include "test_models.moc"
