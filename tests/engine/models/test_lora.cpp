#include "models/gpt.h"
#include "models/lora.h"
#include "optim/fused_adamw.h"
#include "train/lora_setup.h"

#include <headroom/config.h>

#include <torch/torch.h>

#include <QtTest>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

using headroom::models::Gpt;
using headroom::models::GptOptions;
using headroom::models::LoraOptions;

Q_DECLARE_METATYPE(std::set<std::string>)

namespace {

constexpr std::int64_t kVocab = 40;
constexpr std::int64_t kDim = 32;
constexpr std::int64_t kLayers = 2;

GptOptions tinyGpt(double dropout) {
    return GptOptions(kVocab, 12).layers(kLayers).heads(2).dim(kDim).dropout(dropout);
}

torch::Tensor tokens(std::int64_t rows, std::int64_t length, std::uint64_t seed) {
    torch::manual_seed(seed);
    return torch::randint(0, kVocab, {rows, length}, torch::kLong);
}

std::map<std::string, torch::Tensor> snapshot(const torch::nn::Module &module) {
    std::map<std::string, torch::Tensor> copy;
    for (const auto &item : module.named_parameters()) {
        copy[item.key()] = item.value().detach().clone();
    }
    return copy;
}

// Gives every B a value, as training would: with B = 0 the adapters change nothing.
void randomizeAdapters(Gpt &model, std::uint64_t seed) {
    torch::manual_seed(seed);
    torch::NoGradGuard no_grad;
    for (auto &item : model->named_parameters()) {
        if (item.key().find(".lora_") != std::string::npos) {
            item.value().normal_(0.0, 0.05);
        }
    }
}

std::int64_t elements(const std::vector<torch::Tensor> &tensors) {
    std::int64_t count = 0;
    for (const torch::Tensor &tensor : tensors) {
        count += tensor.numel();
    }
    return count;
}

} // namespace

class TestLora : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void adaptersHaveStableNamesAndBaseIsFrozen();
    void trainingChangesOnlyAdapters();
    void zeroInitializedBKeepsTheBaseOutput();
    void mergedWeightsGiveTheSameLogits_data();
    void mergedWeightsGiveTheSameLogits();
    void trainableCountFollowsRank_data();
    void trainableCountFollowsRank();
    void badOptionsAreRejected_data();
    void badOptionsAreRejected();
    void targetListsParse();
    void enablingTwiceIsRejected();
    void configKeysAreCheckedBeforeTraining_data();
    void configKeysAreCheckedBeforeTraining();
};

void TestLora::adaptersHaveStableNamesAndBaseIsFrozen() {
    torch::manual_seed(1);
    Gpt model(tinyGpt(0.0));
    model->enableLora(LoraOptions().rank(4));
    const auto parameters = model->named_parameters();
    for (const char *name :
         {"blocks.0.lora_qkv.a", "blocks.0.lora_qkv.b", "blocks.1.lora_attn_out.a",
          "blocks.1.lora_mlp_in.b", "blocks.1.lora_mlp_out.a", "blocks.0.qkv.weight"}) {
        QVERIFY2(parameters.contains(name), name);
    }
    QCOMPARE(parameters["blocks.0.lora_qkv.a"].sizes().vec(), (std::vector<std::int64_t>{4, kDim}));
    QCOMPARE(parameters["blocks.0.lora_qkv.b"].sizes().vec(),
             (std::vector<std::int64_t>{3 * kDim, 4}));
    QVERIFY(torch::equal(parameters["blocks.0.lora_qkv.b"], torch::zeros({3 * kDim, 4})));
    // kaiming_uniform(a = sqrt(5)) on [rank, in]: U(-1/sqrt(in), 1/sqrt(in)), not all zero.
    const torch::Tensor a = parameters["blocks.0.lora_qkv.a"];
    QVERIFY(a.abs().max().item<double>() <= 1.0 / std::sqrt(static_cast<double>(kDim)));
    QVERIFY(a.abs().max().item<double>() > 0.0);
    for (const auto &item : parameters) {
        const bool adapter = item.key().find(".lora_") != std::string::npos;
        QVERIFY2(item.value().requires_grad() == adapter, item.key().c_str());
    }
    QVERIFY(model->loraOptions().has_value());
}

void TestLora::trainingChangesOnlyAdapters() {
    torch::manual_seed(2);
    Gpt model(tinyGpt(0.1)); // dropout on: the adapters' own dropout runs too
    model->enableLora(LoraOptions().rank(2).alpha(8));
    const auto before = snapshot(*model);
    headroom::train::FusedAdamWOptions options;
    options.lr(1e-2).weight_decay(0.1); // decay would move any frozen weight it held
    headroom::train::FusedAdamW optimizer(model->trainableParameters(), options);
    model->train();
    for (int step = 0; step < 5; ++step) {
        const torch::Tensor batch = tokens(4, 13, 100 + static_cast<std::uint64_t>(step));
        using torch::indexing::Slice;
        const torch::Tensor loss =
            model->loss(batch.index({Slice(), Slice(0, 12)}), batch.index({Slice(), Slice(1, 13)}));
        optimizer.zeroGrad();
        loss.backward();
        optimizer.clipGradNorm(1.0);
        optimizer.step();
    }
    int adapters_changed = 0;
    for (const auto &item : model->named_parameters()) {
        const bool adapter = item.key().find(".lora_") != std::string::npos;
        const bool same = torch::equal(item.value(), before.at(item.key()));
        if (adapter) {
            adapters_changed += same ? 0 : 1;
        } else {
            QVERIFY2(same, ("frozen weight changed: " + item.key()).c_str());
            QVERIFY2(!item.value().grad().defined(), item.key().c_str());
        }
    }
    // Every A and B moves: B from its first step, A once B is non-zero.
    QCOMPARE(adapters_changed, static_cast<int>(kLayers * 4 * 2));
}

void TestLora::zeroInitializedBKeepsTheBaseOutput() {
    torch::manual_seed(3);
    Gpt model(tinyGpt(0.0));
    model->eval();
    const torch::Tensor input = tokens(3, 12, 7);
    torch::NoGradGuard no_grad;
    const torch::Tensor base = model->forward(input);
    model->enableLora(LoraOptions().rank(8).alpha(32));
    model->eval();
    QVERIFY(torch::equal(model->forward(input), base));
}

void TestLora::mergedWeightsGiveTheSameLogits_data() {
    QTest::addColumn<std::set<std::string>>("targets");
    QTest::addColumn<int>("rank");
    QTest::newRow("all targets") << std::set<std::string>{"qkv", "attn_out", "mlp_in", "mlp_out"}
                                 << 4;
    QTest::newRow("qkv only") << std::set<std::string>{"qkv"} << 2;
    QTest::newRow("mlp only, rank 1") << std::set<std::string>{"mlp_in", "mlp_out"} << 1;
}

void TestLora::mergedWeightsGiveTheSameLogits() {
    QFETCH(std::set<std::string>, targets);
    QFETCH(int, rank);
    torch::manual_seed(4);
    Gpt model(tinyGpt(0.1));
    model->enableLora(LoraOptions().rank(rank).alpha(16).targets(targets));
    randomizeAdapters(model, 5);
    model->eval();

    Gpt plain(tinyGpt(0.1));
    plain->eval();
    const auto merged = model->mergedState();
    auto plain_parameters = plain->named_parameters();
    QCOMPARE(merged.size(), plain_parameters.size() + plain->named_buffers().size());
    {
        torch::NoGradGuard no_grad;
        for (const auto &[name, tensor] : merged) {
            QVERIFY2(plain_parameters.contains(name), name.c_str());
            plain_parameters[name].copy_(tensor);
        }
    }
    torch::NoGradGuard no_grad;
    const torch::Tensor input = tokens(3, 12, 9);
    const torch::Tensor adapted = model->forward(input);
    const torch::Tensor folded = plain->forward(input);
    const double difference = (adapted - folded).abs().max().item<double>();
    QVERIFY2(difference < 1e-5, qPrintable(QString::number(difference)));
    // The adapters really change the output, so the comparison means something.
    const auto base = model->named_parameters();
    Gpt unadapted(tinyGpt(0.1));
    unadapted->eval();
    {
        auto unadapted_parameters = unadapted->named_parameters();
        for (const auto &item : base) {
            if (unadapted_parameters.contains(item.key())) {
                unadapted_parameters[item.key()].copy_(item.value());
            }
        }
    }
    QVERIFY((unadapted->forward(input) - adapted).abs().max().item<double>() > 1e-4);
}

void TestLora::trainableCountFollowsRank_data() {
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("targets");
    QTest::addColumn<qint64>("per_layer_per_rank");
    // qkv: dim -> 3 dim, attn_out: dim -> dim, mlp_in: dim -> 4 dim, mlp_out: 4 dim -> dim;
    // an adapter holds rank * (in + out).
    QTest::newRow("rank 1, all") << 1 << "qkv,attn_out,mlp_in,mlp_out" << qint64(16 * kDim);
    QTest::newRow("rank 4, all") << 4 << "qkv,attn_out,mlp_in,mlp_out" << qint64(16 * kDim);
    QTest::newRow("rank 8, qkv") << 8 << "qkv" << qint64(4 * kDim);
    QTest::newRow("rank 3, attention") << 3 << "qkv, attn_out" << qint64(6 * kDim);
    QTest::newRow("rank 2, mlp_out") << 2 << "mlp_out" << qint64(5 * kDim);
}

void TestLora::trainableCountFollowsRank() {
    QFETCH(int, rank);
    QFETCH(QString, targets);
    QFETCH(qint64, per_layer_per_rank);
    Gpt model(tinyGpt(0.0));
    const std::int64_t all = elements(model->trainableParameters());
    model->enableLora(LoraOptions().rank(rank).targets(
        headroom::models::parseLoraTargets(targets.toStdString())));
    const std::int64_t expected = kLayers * rank * per_layer_per_rank;
    QCOMPARE(elements(model->trainableParameters()), expected);
    QCOMPARE(elements(model->parameters()), all + expected); // the base is all still there
    headroom::train::FusedAdamW optimizer(model->trainableParameters());
    QCOMPARE(optimizer.parameterCount(), expected);
}

void TestLora::badOptionsAreRejected_data() {
    QTest::addColumn<int>("rank");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<double>("dropout");
    QTest::addColumn<std::set<std::string>>("targets");
    QTest::addColumn<QString>("message");
    const std::set<std::string> all{"qkv", "attn_out", "mlp_in", "mlp_out"};
    QTest::newRow("negative rank") << -1 << 16.0 << 0.0 << all << "rank must be at least 1, got -1";
    QTest::newRow("zero rank") << 0 << 16.0 << 0.0 << all << "rank must be at least 1, got 0";
    QTest::newRow("zero alpha") << 4 << 0.0 << 0.0 << all << "alpha must be a positive number";
    QTest::newRow("dropout 1") << 4 << 16.0 << 1.0 << all << "dropout must be in [0, 1)";
    QTest::newRow("unknown target")
        << 4 << 16.0 << 0.0 << std::set<std::string>{"qkv", "attention"}
        << "unknown LoRA target 'attention'; valid targets: qkv, attn_out, mlp_in, mlp_out";
    QTest::newRow("no targets") << 4 << 16.0 << 0.0 << std::set<std::string>{}
                                << "valid targets: qkv, attn_out, mlp_in, mlp_out";
}

void TestLora::badOptionsAreRejected() {
    QFETCH(int, rank);
    QFETCH(double, alpha);
    QFETCH(double, dropout);
    QFETCH(std::set<std::string>, targets);
    QFETCH(QString, message);
    Gpt model(tinyGpt(0.0));
    const auto before = snapshot(*model);
    try {
        model->enableLora(LoraOptions().rank(rank).alpha(alpha).dropout(dropout).targets(targets));
        QFAIL("bad options were accepted");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString(error.what()).contains(message), error.what());
    }
    // Nothing changed: no adapters, nothing frozen.
    QCOMPARE(model->named_parameters().size(), before.size());
    QCOMPARE(elements(model->trainableParameters()), elements(model->parameters()));
    QVERIFY(!model->loraOptions().has_value());
}

void TestLora::targetListsParse() {
    using headroom::models::formatLoraTargets;
    using headroom::models::parseLoraTargets;
    QCOMPARE(parseLoraTargets(" mlp_out ,qkv,,qkv"), (std::set<std::string>{"mlp_out", "qkv"}));
    QCOMPARE(formatLoraTargets(parseLoraTargets("mlp_out,qkv,attn_out")),
             std::string("qkv,attn_out,mlp_out"));
    QVERIFY_EXCEPTION_THROWN(parseLoraTargets(" , "), std::invalid_argument);
    try {
        parseLoraTargets("qkv,mlp");
        QFAIL("unknown target accepted");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString(error.what())
                     .contains("'mlp'; valid targets: qkv, attn_out, mlp_in, "
                               "mlp_out"),
                 error.what());
    }
}

void TestLora::enablingTwiceIsRejected() {
    Gpt model(tinyGpt(0.0));
    model->enableLora(LoraOptions().rank(2));
    QVERIFY_EXCEPTION_THROWN(model->enableLora(LoraOptions().rank(2)), std::invalid_argument);
}

void TestLora::configKeysAreCheckedBeforeTraining_data() {
    QTest::addColumn<QStringList>("assignments");
    QTest::addColumn<QString>("message"); // empty: accepted
    QTest::newRow("off by default") << QStringList{} << "";
    QTest::newRow("on") << QStringList{"lora.rank=4", "lora.base_run=1"} << "";
    QTest::newRow("no base run") << QStringList{"lora.rank=4"} << "lora.rank=4 needs lora.base_run";
    QTest::newRow("tabular") << QStringList{"recipe=tabular", "lora.rank=4", "lora.base_run=1"}
                             << "the tabular recipe has no LoRA";
    QTest::newRow("unknown target")
        << QStringList{"lora.rank=4", "lora.base_run=1", "lora.targets=qkv,ffn"}
        << "lora.targets: unknown LoRA target 'ffn'; valid targets: qkv, attn_out, mlp_in, "
           "mlp_out";
}

void TestLora::configKeysAreCheckedBeforeTraining() {
    QFETCH(QStringList, assignments);
    QFETCH(QString, message);
    headroom::Config config;
    for (const QString &assignment : assignments) {
        config.setAssignment(assignment.toStdString());
    }
    try {
        const auto options = headroom::train::loraOptionsFromConfig(config);
        QVERIFY2(message.isEmpty(), "accepted");
        QCOMPARE(options.has_value(), !assignments.isEmpty());
        if (options) {
            QCOMPARE(options->rank(), std::int64_t(4));
            QCOMPARE(options->alpha(), 16.0);
            QCOMPARE(options->dropout(), 0.05);
            QCOMPARE(options->targets().size(), std::size_t(4));
        }
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(!message.isEmpty() && QString(error.what()).contains(message), error.what());
    }
    QVERIFY_EXCEPTION_THROWN(config.set("lora.rank", "-1"), headroom::ConfigError);
}

QTEST_GUILESS_MAIN(TestLora)
#include "test_lora.moc"
