// The estimator against the ground truth: the counting CPU allocator's peak over real training
// steps (run by the trainer), on a grid of recipes, sizes, techniques and micro-batches.
#include "compat/attention_path.h"
#include "plan/gpt_memory_model.h"
#include "plan/model_facts.h"
#include "plan/planner_request.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/plan.h>
#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace headroom;
using namespace test_support;

namespace {

struct GridRow {
    const char *recipe;
    QStringList settings;
};

// Two steps, no evaluation: the run's peak is the training step's.
const QStringList kMeasure = {"train.steps=2", "train.eval_every=0", "train.checkpoint_every=0",
                              "train.warmup_steps=1"};

Config configOf(const QString &project_path, const QStringList &settings) {
    Project project = Project::openForReading(project_path.toStdString());
    Config config = Config::fromJson(project.configJson());
    for (const std::string &assignment : toStd(settings)) {
        config.setAssignment(assignment);
    }
    return config;
}

std::uint64_t runPeak(const QString &project_path, const QStringList &settings) {
    Recorder recorder;
    const RunResult result = runSession(project_path, recorder, kMeasure + settings);
    if (result.failure != FailureKind::None) {
        qWarning("training failed: %s", result.message.c_str());
        return 0;
    }
    Project project = Project::openForReading(project_path.toStdString());
    return project.run(result.run_id)->peak_bytes;
}

} // namespace

class TestMemoryEstimator : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString gpt_;
    QString tabular_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QDir folder(dir_.path());
        const QString story = writeFile(folder, "story.txt", storyText(400));
        const QString plants = writeFile(folder, "plants.csv", tabularCsv(400));
        gpt_ = createTestProject(folder.filePath("gpt.headroom"), story, "gpt",
                                 {"model.layers=2", "model.heads=2", "model.dim=32",
                                  "model.seq_len=16", "train.micro_batch=4"});
        tabular_ = createTestProject(folder.filePath("plants.headroom"), plants, "tabular",
                                     {"train.micro_batch=32"});
        // The frozen base of the LoRA rows: run 1.
        QVERIFY(runPeak(gpt_, {}) > 0);
    }

    // At least 20 configurations: every prediction within 10 %, the median within 5 %.
    void predictsTheAllocatorPeakOnAGrid() {
        std::vector<GridRow> grid = {
            {"gpt", {}},
            {"gpt", {"model.dropout=0"}},
            {"gpt", {"train.micro_batch=1"}},
            {"gpt", {"train.micro_batch=16"}},
            {"gpt", {"model.dim=64", "model.heads=4", "model.seq_len=32"}},
            {"gpt", {"model.layers=4", "model.dim=48", "model.heads=3", "train.micro_batch=8"}},
            {"gpt", {"train.accumulation=3"}},
            {"gpt", {"precision=bf16"}},
            {"gpt", {"precision=bf16", "model.dropout=0", "train.micro_batch=8"}},
            {"gpt", {"checkpointing=1", "model.layers=4", "model.dim=64", "model.seq_len=32"}},
            {"gpt", {"checkpointing=2", "model.layers=4", "model.dim=64", "train.micro_batch=8"}},
            {"gpt", {"optimizer=adamw8bit", "model.dim=64", "model.heads=4"}},
            {"gpt",
             {"precision=bf16", "checkpointing=1", "optimizer=adamw8bit", "model.layers=3",
              "model.dim=64", "model.seq_len=32"}},
            {"gpt",
             {"precision=bf16", "checkpointing=1", "train.accumulation=2", "model.dim=64",
              "model.heads=2", "model.seq_len=32"}},
            {"gpt", {"lora.rank=4", "lora.base_run=1"}},
            {"gpt", {"lora.rank=8", "lora.base_run=1", "lora.dropout=0", "train.micro_batch=8"}},
            {"gpt", {"lora.rank=4", "lora.base_run=1", "lora.targets=qkv,mlp_in"}},
            {"gpt", {"lora.rank=4", "lora.base_run=1", "checkpointing=1"}},
            {"gpt", {"moe.experts=4", "moe.top_k=2"}},
            {"gpt", {"moe.experts=4", "moe.top_k=1", "moe.every=2", "model.layers=4"}},
            {"gpt", {"moe.experts=8", "moe.top_k=2", "moe.capacity_factor=0", "model.dim=64"}},
            {"gpt", {"moe.experts=4", "moe.top_k=2", "precision=bf16", "model.dropout=0"}},
            {"gpt", {"moe.experts=4", "moe.top_k=2", "checkpointing=1", "model.layers=4"}},
            {"gpt", {"moe.experts=4", "moe.expert_hidden=64", "optimizer=adamw8bit"}},
            // Activations dominate: many tokens through narrow experts.
            {"gpt", {"moe.experts=4", "train.micro_batch=32", "model.seq_len=32"}},
            {"gpt",
             {"moe.experts=4", "moe.top_k=1", "train.micro_batch=32", "model.seq_len=32",
              "precision=bf16"}},
            {"gpt",
             {"moe.experts=8", "moe.top_k=2", "train.micro_batch=32", "model.seq_len=32",
              "checkpointing=1", "model.layers=3"}},
            {"tabular", {}},
            {"tabular", {"train.micro_batch=256", "model.hidden=256,128"}},
            {"tabular", {"train.micro_batch=512", "model.hidden=128,128,128", "model.dropout=0"}},
            {"tabular", {"train.micro_batch=256", "model.hidden=256,128", "optimizer=adamw8bit"}},
            {"tabular", {"train.micro_batch=256", "model.hidden=256,128", "train.accumulation=2"}},
            {"tabular", {"train.micro_batch=256", "model.hidden=512", "precision=bf16"}},
            // A wide middle layer puts the peak inside the backward pass, not at the step.
            {"tabular", {"train.micro_batch=128", "model.hidden=1024,1024", "optimizer=adamw8bit"}},
            {"tabular", {"train.micro_batch=128", "model.hidden=1024,1024", "precision=bf16"}},
            // Longer sequences, where the attention weights matter (explicit on every version).
            {"gpt", {"model.attention=explicit", "model.dropout=0", "model.seq_len=128"}},
        };
        if (compat::sdpaAvailable()) {
            // scaled_dot_product_attention: no [B, H, T, T] weights, its output and log-sum-exp
            // instead (LibTorch 2.x only; 1.13 refuses model.attention=sdpa).
            const std::vector<GridRow> sdpa = {
                {"gpt", {"model.attention=sdpa", "model.dropout=0"}},
                {"gpt", {"model.attention=sdpa", "model.dropout=0", "model.seq_len=128"}},
                {"gpt",
                 {"model.attention=sdpa", "model.dropout=0", "model.seq_len=128", "model.heads=4",
                  "train.micro_batch=8"}},
                {"gpt",
                 {"model.attention=sdpa", "model.dropout=0", "precision=bf16", "model.seq_len=128",
                  "train.micro_batch=8"}},
                {"gpt",
                 {"model.attention=sdpa", "model.dropout=0", "checkpointing=1", "model.layers=4",
                  "model.seq_len=128"}},
                {"gpt",
                 {"model.attention=sdpa", "model.dropout=0", "moe.experts=4", "moe.top_k=2",
                  "model.seq_len=64"}},
            };
            grid.insert(grid.end(), sdpa.begin(), sdpa.end());
        }
        QVERIFY(grid.size() >= 20);
        std::vector<double> errors;
        for (const GridRow &row : grid) {
            const QString project = QString(row.recipe) == "gpt" ? gpt_ : tabular_;
            const Config config = configOf(project, kMeasure + row.settings);
            const ModelFacts facts =
                plan::storedModelFacts(config, Project::openForReading(project.toStdString()));
            const MemoryEstimate estimate = estimateMemory(config, facts);
            const std::uint64_t measured = runPeak(project, row.settings);
            QVERIFY2(measured > 0, qPrintable(row.settings.join(' ')));
            const double error =
                (static_cast<double>(estimate.peak) - static_cast<double>(measured)) /
                static_cast<double>(measured);
            qInfo("%-8s %-70s measured %10llu predicted %10llu error %+6.2f %%", row.recipe,
                  qPrintable(row.settings.join(' ')), static_cast<unsigned long long>(measured),
                  static_cast<unsigned long long>(estimate.peak), 100 * error);
            QVERIFY2(std::abs(error) <= 0.10,
                     qPrintable(QString("%1 %2: predicted %3, measured %4")
                                    .arg(row.recipe, row.settings.join(' '))
                                    .arg(estimate.peak)
                                    .arg(measured)));
            errors.push_back(std::abs(error));
        }
        std::sort(errors.begin(), errors.end());
        const double median = errors[errors.size() / 2];
        qInfo("median absolute error %.2f %% over %zu configurations", 100 * median, errors.size());
        QVERIFY(median <= 0.05);
    }

    void breakdownAddsUpAndNamesTheModel() {
        const Config config = configOf(gpt_, {"train.accumulation=2"});
        const MemoryEstimate estimate = estimateMemory(
            config, plan::storedModelFacts(config, Project::openForReading(gpt_.toStdString())));
        QCOMPARE(estimate.weights + estimate.gradients + estimate.optimizer + estimate.activations +
                     estimate.overhead,
                 estimate.model_peak);
        QCOMPARE(estimate.gradients, estimate.weights); // accumulation keeps every gradient
        QCOMPARE(estimate.optimizer, 2 * estimate.weights);
        QVERIFY(estimate.model.find("GPT · 2 layers") == 0);
        QCOMPARE(estimate.micro_batch, std::int64_t{4});
        QCOMPARE(estimate.accumulation, std::int64_t{2});
    }

    void eachTechniqueShrinksWhatItShould() {
        const auto estimateWith = [this](const QStringList &settings) {
            const Config config = configOf(gpt_, settings);
            return estimateMemory(config, plan::storedModelFacts(
                                              config, Project::openForReading(gpt_.toStdString())));
        };
        const MemoryEstimate plain = estimateWith({"train.micro_batch=16"});
        QVERIFY(estimateWith({"train.micro_batch=16", "precision=bf16"}).activations <
                plain.activations);
        QVERIFY(estimateWith({"train.micro_batch=16", "checkpointing=1"}).activations <
                plain.activations);
        const MemoryEstimate eight_bit =
            estimateWith({"train.micro_batch=16", "optimizer=adamw8bit"});
        QVERIFY(eight_bit.optimizer < plain.optimizer);
        QCOMPARE(eight_bit.activations, plain.activations);
        const MemoryEstimate lora = estimateWith({"lora.rank=4", "lora.base_run=1"});
        QVERIFY(lora.trainable < lora.parameters / 4);
        QVERIFY(estimateWith({"train.micro_batch=8"}).peak >
                estimateWith({"train.micro_batch=4"}).peak);
        QVERIFY(estimateWith({"model.seq_len=32"}).peak > estimateWith({"model.seq_len=16"}).peak);
    }

    void budgetDecidesFits() {
        Config config = configOf(gpt_, {"memory.budget=512KiB"});
        const ModelFacts facts =
            plan::storedModelFacts(config, Project::openForReading(gpt_.toStdString()));
        QVERIFY(!estimateMemory(config, facts).fits);
        config.set("memory.budget", "1GiB");
        QVERIFY(estimateMemory(config, facts).fits);
        config.set("memory.budget", "none");
        QCOMPARE(estimateMemory(config, facts).budget, std::uint64_t{0});
        QVERIFY(estimateMemory(config, facts).fits);
    }

    void historyCorrectsByTheMedianRatioWithinBounds() {
        MemoryEstimate estimate;
        estimate.model_peak = estimate.peak = 1000;
        estimate.budget = 1150;
        const auto record = [](std::uint64_t predicted, std::uint64_t measured) {
            MemoryHistoryRecord history;
            history.predicted_peak = predicted;
            history.measured_peak = measured;
            return history;
        };
        plan::applyHistoryCorrection(
            estimate, {record(100, 120), record(200, 240), record(100, 500), record(0, 80)});
        QCOMPARE(estimate.history_samples, 3); // the record without a prediction is skipped
        QCOMPARE(estimate.correction, 1.2);
        QCOMPARE(estimate.peak, std::uint64_t{1200});
        QVERIFY(!estimate.fits);
        MemoryEstimate wild;
        wild.model_peak = wild.peak = 1000;
        plan::applyHistoryCorrection(wild, {record(100, 1000)});
        QCOMPARE(wild.correction, plan::kMaxCorrection);
        MemoryEstimate none;
        none.model_peak = none.peak = 1000;
        plan::applyHistoryCorrection(none, {});
        QCOMPARE(none.correction, 1.0);
        QCOMPARE(none.history_samples, 0);
    }

    // The plan chooser judges every option by its corrected peak, not only the chosen one.
    void historyCorrectionJudgesEveryPlanOption() {
        Config config = configOf(gpt_, {"device=cpu"});
        const ModelFacts facts =
            plan::storedModelFacts(config, Project::openForReading(gpt_.toStdString()));
        const std::uint64_t as_configured = estimateMemory(config, facts).peak;
        config.set("memory.budget", std::to_string(as_configured * 5 / 4));
        HardwareProfile profile;
        profile.device = "cpu";
        profile.budget_bytes = config.bytes("memory.budget");
        profile.bf16 = true;

        const Plan uncorrected = plan::choosePlan(config, facts, profile, {});
        QVERIFY2(uncorrected.summary.rfind("fits as configured", 0) == 0,
                 uncorrected.summary.c_str());
        MemoryHistoryRecord record;
        record.predicted_peak = 1000;
        record.measured_peak = 1500;
        const Plan corrected = plan::choosePlan(config, facts, profile, {record});
        QVERIFY2(corrected.summary.rfind("fits as configured", 0) != 0, corrected.summary.c_str());
        QCOMPARE(corrected.estimate.correction, 1.5);
        QVERIFY(static_cast<double>(corrected.estimate.peak) <=
                0.9 * static_cast<double>(profile.budget_bytes));
        QCOMPARE(corrected.alternatives.size(), uncorrected.alternatives.size());
        for (std::size_t i = 0; i < corrected.alternatives.size(); ++i) {
            const PlanAlternative &row = corrected.alternatives[i];
            const auto same = std::find_if(
                uncorrected.alternatives.begin(), uncorrected.alternatives.end(),
                [&](const PlanAlternative &other) { return other.overrides == row.overrides; });
            if (same != uncorrected.alternatives.end()) {
                QVERIFY(std::llabs(static_cast<long long>(row.peak) -
                                   static_cast<long long>(same->peak * 3 / 2)) <= 1);
            }
        }
    }

    // Shapes only: a 100 M-parameter GPT is estimated without allocating it.
    void estimatesLargeModelsWithoutAllocating() {
        const Config config = configOf(gpt_, {"model.params=100000000", "model.seq_len=1024"});
        const ModelFacts facts =
            plan::storedModelFacts(config, Project::openForReading(gpt_.toStdString()));
        const MemoryEstimate estimate = estimateMemory(config, facts);
        QVERIFY(estimate.parameters > 90'000'000);
        QVERIFY(estimate.weights >= 4 * static_cast<std::uint64_t>(estimate.parameters));
    }
};

QTEST_GUILESS_MAIN(TestMemoryEstimator)
#include "test_memory_estimator.moc"
