// The GRPO loss against an independent Python reference (Debian's python3-torch,
// tests/interop/grpo/reference_grpo.py, written from TRL v0.25.1's GRPOTrainer) on fixed
// completions and rewards, no sampling: the advantages, the step's loss, its gradient with
// respect to every completion token's log-probability, the KL and clip ratio equal the
// reference within 1e-5 for each loss type, with and without a KL penalty, with a ratio of 1
// (one update per rollout) and away from 1 (clipping at work). Headroom computes the step in
// micro-batches of one completion; TRL's micro-batch is the reference's, so the loss does not
// depend on how the step is cut.
#include "python_reference.h"
#include "recipes/grpo_objective.h"

#include <headroom/config.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace headroom;

namespace {

constexpr std::int64_t kGroup = 4;
constexpr std::int64_t kRows = 8;   // two prompts
constexpr std::int64_t kWidth = 7;  // target positions
constexpr std::int64_t kMicro = 4;  // TRL's per-device batch (bnpo's blocks)
constexpr std::int64_t kMaxLen = 9; // max_completion_length (dr_grpo)

QString referenceScript() {
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/grpo/reference_grpo.py");
}

struct Fixture {
    torch::Tensor logps, old_logps, ref_logps, mask, rewards;
    std::vector<std::int64_t> lengths;
};

// Completions of different lengths after prompts of different lengths (masked columns before
// and after), log-probabilities in (-4, 0), rewards with a tied group member.
Fixture makeFixture() {
    torch::manual_seed(7);
    Fixture fixture;
    fixture.logps = -4 * torch::rand({kRows, kWidth});
    fixture.old_logps = fixture.logps + 0.4 * torch::randn({kRows, kWidth});
    fixture.ref_logps = fixture.logps + 0.3 * torch::randn({kRows, kWidth});
    fixture.mask = torch::zeros({kRows, kWidth});
    for (std::int64_t row = 0; row < kRows; ++row) {
        const std::int64_t first = row % 3;
        const std::int64_t length = 1 + (row * 5) % (kWidth - first);
        fixture.mask.index_put_({row, torch::indexing::Slice(first, first + length)}, 1);
        fixture.lengths.push_back(length);
    }
    fixture.rewards = torch::tensor({1.0f, 0.0f, 0.5f, 1.0f, 0.2f, 0.2f, 0.9f, 0.0f});
    return fixture;
}

struct Outcome {
    std::vector<double> advantages;
    double loss = 0;
    torch::Tensor grad;
    double kl = 0;
    double clip_ratio = 0;
    double reward_std = 0;
};

// The step in micro-batches of one completion, as Headroom's trainer may cut it.
Outcome headroomStep(const train::GrpoOptions &options, const Fixture &fixture, bool use_old) {
    std::vector<double> rewards;
    for (std::int64_t i = 0; i < kRows; ++i) {
        rewards.push_back(fixture.rewards[i].item<double>());
    }
    const train::GroupAdvantages advantages =
        train::groupAdvantages(rewards, kGroup, options.scale_rewards);
    const std::vector<double> weights =
        train::completionWeights(fixture.lengths, options.loss_type, kMaxLen, kMicro);
    const torch::Tensor logps = fixture.logps.clone().requires_grad_(true);
    Outcome outcome;
    double kl_sum = 0;
    double clipped = 0;
    double tokens = 0;
    for (std::int64_t row = 0; row < kRows; ++row) {
        train::GrpoInputs inputs;
        inputs.logps = logps.narrow(0, row, 1);
        if (use_old) {
            inputs.old_logps = fixture.old_logps.narrow(0, row, 1);
        }
        inputs.ref_logps = fixture.ref_logps.narrow(0, row, 1);
        inputs.mask = fixture.mask.narrow(0, row, 1);
        inputs.advantages = torch::tensor(
            {static_cast<float>(advantages.advantages[static_cast<std::size_t>(row)])});
        inputs.weights =
            torch::tensor({static_cast<float>(weights[static_cast<std::size_t>(row)])});
        const train::GrpoTerms terms = train::grpoTerms(options, inputs);
        terms.loss.backward();
        outcome.loss += terms.loss.item<double>();
        kl_sum += terms.kl_sum;
        clipped += terms.clipped_sum;
        tokens += terms.token_count;
    }
    outcome.advantages = advantages.advantages;
    outcome.grad = logps.grad();
    outcome.kl = kl_sum / tokens;
    outcome.clip_ratio = clipped / tokens;
    outcome.reward_std = advantages.mean_group_std;
    return outcome;
}

} // namespace

class TestGrpoInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesTheReference_data();
    void matchesTheReference();

private:
    QString skip_;
};

void TestGrpoInterop::initTestCase() {
    skip_ = test_support::pythonReferenceProblem();
}

void TestGrpoInterop::matchesTheReference_data() {
    QTest::addColumn<QString>("loss_type");
    QTest::addColumn<QString>("scaling");
    QTest::addColumn<double>("beta");
    QTest::addColumn<bool>("use_old");
    for (const char *type : {"dapo", "grpo", "dr_grpo", "bnpo"}) {
        QTest::newRow((std::string(type) + " ratio 1").c_str()) << type << "group" << 0.0 << false;
        QTest::newRow((std::string(type) + " clipped, kl").c_str())
            << type << "group" << 0.04 << true;
    }
    QTest::newRow("dapo batch scaling") << "dapo"
                                        << "batch" << 0.0 << true;
    QTest::newRow("grpo no scaling, kl") << "grpo"
                                         << "none" << 0.1 << false;
}

void TestGrpoInterop::matchesTheReference() {
    if (!skip_.isEmpty()) {
        QSKIP(qPrintable(skip_));
    }
    QFETCH(QString, loss_type);
    QFETCH(QString, scaling);
    QFETCH(double, beta);
    QFETCH(bool, use_old);
    Config config;
    config.set("train.objective", "grpo");
    config.set("grpo.loss_type", loss_type.toStdString());
    config.set("grpo.scale_rewards", scaling.toStdString());
    config.set("grpo.beta", std::to_string(beta));
    config.set("grpo.epsilon", "0.2");
    config.set("grpo.epsilon_high", "0.28");
    const train::GrpoOptions options = *train::grpoOptions(config);

    const Fixture fixture = makeFixture();
    const Outcome mine = headroomStep(options, fixture, use_old);

    QTemporaryDir dir;
    const QString in = dir.filePath("in.safetensors");
    const QString out = dir.filePath("out.safetensors");
    test_support::writeReferenceTensors(in,
                                        {{"logps", fixture.logps},
                                         {"old_logps", fixture.old_logps},
                                         {"ref_logps", fixture.ref_logps},
                                         {"mask", fixture.mask},
                                         {"rewards", fixture.rewards}},
                                        {{"group_size", std::to_string(kGroup)},
                                         {"micro_batch", std::to_string(kMicro)},
                                         {"loss_type", loss_type.toStdString()},
                                         {"scale_rewards", scaling.toStdString()},
                                         {"beta", std::to_string(beta)},
                                         {"epsilon", "0.2"},
                                         {"epsilon_high", "0.28"},
                                         {"max_completion_length", std::to_string(kMaxLen)},
                                         {"use_old", use_old ? "1" : "0"}});
    const QString problem = test_support::runReference(referenceScript(), in, out);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const auto reference = test_support::readReferenceTensors(out);

    for (std::int64_t i = 0; i < kRows; ++i) {
        QVERIFY2(std::abs(mine.advantages[static_cast<std::size_t>(i)] -
                          reference.at("advantages")[i].item<double>()) < 1e-5,
                 qPrintable(QString("advantage %1").arg(i)));
    }
    const double loss = reference.at("loss").item<double>();
    QVERIFY2(std::abs(mine.loss - loss) < 1e-5 * std::max(1.0, std::abs(loss)),
             qPrintable(QString("loss %1 vs reference %2").arg(mine.loss).arg(loss)));
    const double grad_error = (mine.grad - reference.at("grad")).abs().max().item<double>();
    QVERIFY2(grad_error < 1e-5, qPrintable(QString("gradient off by %1").arg(grad_error)));
    QVERIFY(reference.at("grad").abs().max().item<double>() > 1e-3); // a gradient to compare
    if (beta != 0) {
        QVERIFY(std::abs(mine.kl - reference.at("kl").item<double>()) < 1e-5);
        QVERIFY(mine.kl > 0);
    }
    QVERIFY(std::abs(mine.clip_ratio - reference.at("clip_ratio").item<double>()) < 1e-6);
    if (use_old) {
        QVERIFY(mine.clip_ratio > 0); // the ratios moved far enough to clip some tokens
    } else {
        QCOMPARE(mine.clip_ratio, 0.0);
    }
    QVERIFY(std::abs(mine.reward_std - reference.at("reward_std").item<double>()) < 1e-5);
}

QTEST_GUILESS_MAIN(TestGrpoInterop)
#include "test_grpo_interop.moc"
