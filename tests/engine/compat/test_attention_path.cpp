// model.attention: the per-shape rule (compat/attention_path.h), both forms of attention
// against each other, and the refusals of settings a build cannot run.
#include "compat/attention.h"
#include "compat/attention_path.h"
#include "plan/gpt_memory_model.h"
#include "recipes/recipe.h"

#include <headroom/config.h>

#include <torch/torch.h>

#include <QtTest>

#include <stdexcept>
#include <string>

using namespace headroom;
using compat::AttentionPath;

Q_DECLARE_METATYPE(AttentionPath)

namespace {

compat::AttentionShape shapeOf(std::int64_t batch, std::int64_t heads, std::int64_t length,
                               std::int64_t head_dim) {
    compat::AttentionShape shape;
    shape.batch = batch;
    shape.heads = heads;
    shape.length = length;
    shape.head_dim = head_dim;
    return shape;
}

std::string refusalOf(const Config &config) {
    try {
        train::gptOptionsFromConfig(config, 64);
    } catch (const ConfigError &error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestAttentionPath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesTheThreeNamesAndRefusesOthers() {
        QCOMPARE(compat::parseAttentionPath("auto"), AttentionPath::Auto);
        QCOMPARE(compat::parseAttentionPath("sdpa"), AttentionPath::Sdpa);
        QCOMPARE(compat::parseAttentionPath("explicit"), AttentionPath::Explicit);
        QCOMPARE(std::string(compat::attentionPathName(AttentionPath::Sdpa)), std::string("sdpa"));
        try {
            compat::parseAttentionPath("flash");
            QFAIL("flash was accepted");
        } catch (const std::invalid_argument &error) {
            const std::string message = error.what();
            QVERIFY2(message.find("model.attention") != std::string::npos &&
                         message.find("flash") != std::string::npos &&
                         message.find("auto, sdpa, explicit") != std::string::npos,
                     error.what());
        }
        Config config;
        QVERIFY_THROWS_EXCEPTION(ConfigError, config.set("model.attention", "flash"));
    }

    // What auto picks; LibTorch 1.13 has no fused kernel and always runs the explicit form.
    void chooses_data() {
        QTest::addColumn<AttentionPath>("requested");
        QTest::addColumn<qlonglong>("batch_heads");
        QTest::addColumn<qlonglong>("length");
        QTest::addColumn<qlonglong>("head_dim");
        QTest::addColumn<bool>("dropout");
        QTest::addColumn<bool>("cpu");
        QTest::addColumn<qulonglong>("budget");
        QTest::addColumn<AttentionPath>("on2x");
        const auto A = AttentionPath::Auto;
        const auto S = AttentionPath::Sdpa;
        const auto E = AttentionPath::Explicit;
        QTest::newRow("10M shape") << A << 96LL << 256LL << 64LL << false << true << 0ULL << E;
        QTest::newRow("T = 16 D") << A << 8LL << 1024LL << 64LL << false << true << 0ULL << E;
        QTest::newRow("T > 16 D") << A << 8LL << 2048LL << 64LL << false << true << 0ULL << S;
        QTest::newRow("small heads") << A << 8LL << 1024LL << 32LL << false << true << 0ULL << S;
        // 6 layers x 4 x 96 x 256^2 bytes = 144 MiB of weights: within a quarter of 1 GiB,
        // not of 512 MiB.
        QTest::newRow("budget fits")
            << A << 96LL << 256LL << 64LL << false << true << (1ULL << 30) << E;
        QTest::newRow("budget tight")
            << A << 96LL << 256LL << 64LL << false << true << (512ULL << 20) << S;
        QTest::newRow("gpu") << A << 8LL << 64LL << 64LL << false << false << 0ULL << S;
        QTest::newRow("keyed dropout") << S << 8LL << 4096LL << 64LL << true << true << 0ULL << E;
        QTest::newRow("sdpa asked") << S << 8LL << 64LL << 64LL << false << true << 0ULL << S;
        QTest::newRow("explicit asked")
            << E << 8LL << 4096LL << 64LL << false << false << 0ULL << E;
    }

    void chooses() {
        QFETCH(AttentionPath, requested);
        QFETCH(qlonglong, batch_heads);
        QFETCH(qlonglong, length);
        QFETCH(qlonglong, head_dim);
        QFETCH(bool, dropout);
        QFETCH(bool, cpu);
        QFETCH(qulonglong, budget);
        QFETCH(AttentionPath, on2x);
        compat::AttentionShape shape = shapeOf(1, batch_heads, length, head_dim);
        shape.keyed_weight_dropout = dropout;
        shape.cpu = cpu;
        shape.layers = 6;
        shape.memory_budget = budget;
        const AttentionPath expected = compat::sdpaAvailable() ? on2x : AttentionPath::Explicit;
        QCOMPARE(compat::chooseAttentionPath(requested, shape), expected);
    }

    // Both forms give the same output and the same gradient of the fused projection.
    void pathsAgreeForwardAndBackward() {
        torch::manual_seed(3);
        const torch::Tensor qkv = torch::randn({2, 24, 3 * 4 * 8});
        const auto run = [&](AttentionPath path) {
            const torch::Tensor input = qkv.clone().requires_grad_(true);
            const torch::Tensor out = compat::causalSelfAttention(input, 4, 0.0, {}, path);
            out.pow(2).sum().backward();
            return std::make_pair(out.detach(), input.grad());
        };
        const auto [sdpa_out, sdpa_grad] = run(AttentionPath::Sdpa);
        const auto [explicit_out, explicit_grad] = run(AttentionPath::Explicit);
        QVERIFY(torch::allclose(sdpa_out, explicit_out, 1e-4, 1e-5));
        QVERIFY(torch::allclose(sdpa_grad, explicit_grad, 1e-4, 1e-5));
        // Grouped-query attention over separate heads (pretrained bases) too.
        const torch::Tensor q = torch::randn({2, 4, 24, 8});
        const torch::Tensor k = torch::randn({2, 2, 24, 8});
        const torch::Tensor v = torch::randn({2, 2, 24, 8});
        QVERIFY(torch::allclose(
            compat::causalAttention(q, k, v, 0.35, 0.0, {}, AttentionPath::Sdpa),
            compat::causalAttention(q, k, v, 0.35, 0.0, {}, AttentionPath::Explicit), 1e-4, 1e-5));
    }

    void refusesWhatTheBuildCannotRun() {
        Config config;
        config.set("model.attention", "sdpa");
        config.set("model.dropout", "0.1");
        const std::string with_dropout = refusalOf(config);
        config.set("model.dropout", "0");
        const std::string without_dropout = refusalOf(config);
        if (!compat::sdpaAvailable()) {
            for (const std::string &message : {with_dropout, without_dropout}) {
                QVERIFY2(message.find("model.attention=sdpa needs LibTorch 2.0") !=
                                 std::string::npos &&
                             message.find(TORCH_VERSION) != std::string::npos,
                         message.c_str());
            }
            return;
        }
        QVERIFY2(with_dropout.find("model.dropout=0.1") != std::string::npos &&
                     with_dropout.find("model.attention=auto") != std::string::npos,
                 with_dropout.c_str());
        QVERIFY2(without_dropout.empty(), without_dropout.c_str());
    }

    // The estimate counts the path the run takes: on 2.x sdpa drops the T x T weights.
    void estimateFollowsThePath() {
        Config config;
        config.set("model.dropout", "0");
        config.set("model.seq_len", "512");
        config.set("model.dim", "64");
        config.set("model.heads", "8");
        plan::StepTechniques techniques;
        techniques.micro_batch = 4;
        config.set("model.attention", "explicit");
        const plan::StepMemory explicit_memory = plan::gptStepMemory(config, 64, techniques);
        QCOMPARE(explicit_memory.attention, std::string("explicit"));
        if (!compat::sdpaAvailable()) {
            return;
        }
        config.set("model.attention", "sdpa");
        const plan::StepMemory sdpa_memory = plan::gptStepMemory(config, 64, techniques);
        QCOMPARE(sdpa_memory.attention, std::string("sdpa"));
        // 4 layers x 4 x (4 x 8 x 512^2) bytes of weights, less the output and log-sum-exp.
        const double weights = 4.0 * 4 * 4 * 8 * 512 * 512;
        const double saved = static_cast<double>(explicit_memory.activations) -
                             static_cast<double>(sdpa_memory.activations);
        QVERIFY2(saved > 0.8 * weights && saved < weights, qPrintable(QString::number(saved)));
    }
};

QTEST_GUILESS_MAIN(TestAttentionPath)
#include "test_attention_path.moc"
