#include "plan/probe_runner.h"
#include "sample_files.h"
#include "train/run_plan.h"
#include "training_support.h"

#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <sstream>

using namespace test_support;

namespace {

// Effective batch 16: micro-batch 4 x accumulation 4.
constexpr std::int64_t kEffectiveBatch = 16;
const QStringList kFitGpt = {"model.layers=2",
                             "model.heads=2",
                             "model.dim=32",
                             "model.seq_len=16",
                             "model.dropout=0",
                             "train.micro_batch=4",
                             "train.accumulation=4",
                             "train.steps=200",
                             "train.warmup_steps=2",
                             "train.eval_every=0",
                             "train.checkpoint_every=0",
                             "data.shuffle_buffer=64"};

std::string optimizerBytes(headroom::train::Optimizer &optimizer) {
    torch::serialize::OutputArchive archive;
    optimizer.saveState(archive);
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
}

std::vector<torch::Tensor> parameterCopies(headroom::train::Recipe &recipe) {
    std::vector<torch::Tensor> copies;
    for (const torch::Tensor &parameter : recipe.module()->parameters()) {
        copies.push_back(parameter.detach().clone());
    }
    return copies;
}

std::int64_t stepsPerProbe(std::int64_t micro_batch) {
    return micro_batch < kEffectiveBatch ? 2 : 1;
}

headroom::FitResult fit(const QString &project, const std::vector<std::string> &overrides = {}) {
    headroom::PlanRequest request;
    request.project_path = project.toStdString();
    request.overrides = overrides;
    return headroom::fitPlan(request);
}

} // namespace

class TestAutoFit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void probesLeaveModelAndOptimizerAsTheyWere();
    void fitsTheLargestMicroBatchUnderTheBudget();
    void fittedPlanTrainsWithoutRecovery();
    void tooSmallBudgetIsInfeasible_data();
    void tooSmallBudgetIsInfeasible();
    void withoutBudgetTheWholeBatchFits();

private:
    QString project(const QString &name, const QStringList &extra = {});
    headroom::Config plannedConfig(const QString &project,
                                   const std::vector<std::string> &overrides);
    // The largest micro-batch up to the effective batch whose probe fits under `budget`.
    // With the techniques the plan chose (not its batch keys).
    std::int64_t bruteForceLargestFitting(std::uint64_t budget,
                                          const std::vector<std::string> &techniques);

    QTemporaryDir dir_;
    QString corpus_;
    std::map<std::int64_t, std::uint64_t> peaks_; // unbudgeted probe peaks by micro-batch
    std::uint64_t budget_ = 0;                    // a budget where micro-batch 6 fits, 7 not
    int projects_ = 0;
};

void TestAutoFit::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
    const QString measured = project("measure.headroom");
    headroom::Project opened = headroom::Project::open(measured.toStdString());
    headroom::plan::ProbeRunner runner(plannedConfig(measured, {}), opened);
    for (std::int64_t micro_batch = 1; micro_batch <= kEffectiveBatch; ++micro_batch) {
        const headroom::FitProbe probe = runner.probe(micro_batch, stepsPerProbe(micro_batch));
        QVERIFY(probe.fits);
        peaks_[micro_batch] = probe.peak;
    }
    QVERIFY2(peaks_[7] > peaks_[6], "the peak grows with the micro-batch");
    budget_ = (peaks_[6] + peaks_[7]) / 2;
}

QString TestAutoFit::project(const QString &name, const QStringList &extra) {
    return createTestProject(QDir(dir_.path()).filePath(name), corpus_, "gpt", kFitGpt + extra);
}

headroom::Config TestAutoFit::plannedConfig(const QString &project,
                                            const std::vector<std::string> &overrides) {
    headroom::Project opened = headroom::Project::open(project.toStdString());
    return headroom::train::planRun(opened, overrides, false).config;
}

std::int64_t TestAutoFit::bruteForceLargestFitting(std::uint64_t budget,
                                                   const std::vector<std::string> &techniques) {
    const QString path = project(QString("brute%1.headroom").arg(++projects_));
    std::vector<std::string> overrides{"memory.budget=" + std::to_string(budget)};
    for (const std::string &assignment : techniques) {
        if (assignment.rfind("train.", 0) != 0) {
            overrides.push_back(assignment);
        }
    }
    const headroom::Config config = plannedConfig(path, overrides);
    headroom::Project opened = headroom::Project::open(path.toStdString());
    headroom::plan::ProbeRunner runner(config, opened);
    std::int64_t largest = 0;
    for (std::int64_t micro_batch = 1; micro_batch <= kEffectiveBatch; ++micro_batch) {
        if (runner.probe(micro_batch, stepsPerProbe(micro_batch)).fits) {
            largest = micro_batch;
        }
    }
    return largest;
}

void TestAutoFit::probesLeaveModelAndOptimizerAsTheyWere() {
    const QString path = project("restore.headroom");
    const headroom::Config config =
        plannedConfig(path, {"memory.budget=" + std::to_string(budget_)});
    headroom::Project opened = headroom::Project::open(path.toStdString());
    headroom::plan::ProbeRunner runner(config, opened);
    const std::vector<torch::Tensor> before = parameterCopies(runner.recipe());
    const std::string optimizer_before = optimizerBytes(runner.optimizer());

    QVERIFY(runner.probe(4, 2).fits);
    const headroom::FitProbe failing = runner.probe(kEffectiveBatch, 1);
    QVERIFY(!failing.fits);
    QVERIFY(!failing.error.empty());
    QVERIFY(failing.error.find('\n') == std::string::npos);

    const std::vector<torch::Tensor> after = parameterCopies(runner.recipe());
    QCOMPARE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        QVERIFY2(torch::equal(before[i], after[i]), qPrintable(QString("parameter %1").arg(i)));
    }
    QVERIFY(optimizerBytes(runner.optimizer()) == optimizer_before);
}

void TestAutoFit::fitsTheLargestMicroBatchUnderTheBudget() {
    const QString path = project("fit.headroom", {"memory.budget=" + QString::number(budget_)});
    std::vector<headroom::FitProbe> reported;
    headroom::PlanRequest request;
    request.project_path = path.toStdString();
    const std::int64_t truth =
        bruteForceLargestFitting(budget_, headroom::recommendPlan(request).overrides);
    QVERIFY2(truth >= 2, qPrintable(QString::number(truth)));
    const headroom::FitResult result = headroom::fitPlan(
        request, [&](const headroom::FitProbe &probe) { reported.push_back(probe); });

    QVERIFY2(result.plan.feasible, result.message.c_str());
    QVERIFY(result.stored);
    QVERIFY(!result.probes.empty());
    QVERIFY(static_cast<int>(result.probes.size()) <= headroom::kMaxFitProbes);
    QCOMPARE(reported.size(), result.probes.size());
    const double tolerance = std::max(1.0, 0.1 * static_cast<double>(truth));
    QVERIFY2(result.largest_fitting <= truth &&
                 static_cast<double>(truth - result.largest_fitting) <= tolerance,
             qPrintable(QString("%1 vs %2").arg(result.largest_fitting).arg(truth)));
    QVERIFY(result.micro_batch >= 1 && result.micro_batch <= result.largest_fitting);
    QCOMPARE(kEffectiveBatch % result.micro_batch, std::int64_t{0});
    QCOMPARE(result.micro_batch * result.accumulation, kEffectiveBatch);
    QVERIFY(result.measured_peak > 0);
    QVERIFY(static_cast<double>(result.measured_peak) <= 0.9 * static_cast<double>(budget_));

    const headroom::Config stored = headroom::Config::fromJson(
        headroom::Project::openReadOnly(path.toStdString()).configJson());
    QCOMPARE(stored.integer("train.micro_batch"), result.micro_batch);
    QCOMPARE(stored.integer("train.accumulation"), result.accumulation);
    QCOMPARE(stored.bytes("memory.budget"), budget_);
}

void TestAutoFit::fittedPlanTrainsWithoutRecovery() {
    const QString path = project("train.headroom", {"memory.budget=" + QString::number(budget_)});
    const headroom::FitResult result = fit(path);
    QVERIFY2(result.stored, result.message.c_str());
    Recorder recorder;
    const headroom::RunResult run = runSession(path, recorder, {}, 200);
    QCOMPARE(name(run.state), name(headroom::SessionState::Finished));
    QCOMPARE(recorder.recorded.losses.size(), std::size_t{200});
    QVERIFY(!hasEvent(recorder, "oom_recovered"));
    QVERIFY(std::all_of(recorder.micro_batches.begin(), recorder.micro_batches.end(),
                        [&](int micro_batch) { return micro_batch == result.micro_batch; }));
}

void TestAutoFit::tooSmallBudgetIsInfeasible_data() {
    QTest::addColumn<bool>("model_fits");
    QTest::newRow("the step at micro-batch 1 fails") << true;
    QTest::newRow("the model alone does not fit") << false;
}

void TestAutoFit::tooSmallBudgetIsInfeasible() {
    QFETCH(bool, model_fits);
    // peaks_[1] is about 16 bytes per parameter (fp32 weights, gradients, AdamW) plus a
    // little: 30 % of it holds the weights but no step with any technique.
    const std::uint64_t budget = model_fits ? peaks_[1] * 3 / 10 : 16 * 1024;
    const QString path = project(QString("small%1.headroom").arg(++projects_),
                                 {"memory.budget=" + QString::number(budget)});
    const std::string config_before =
        headroom::Project::openReadOnly(path.toStdString()).configJson();
    const headroom::FitResult result = fit(path);
    QVERIFY(!result.plan.feasible);
    QVERIFY(!result.stored);
    QCOMPARE(result.largest_fitting, std::int64_t{0});
    QVERIFY2(result.message.find(headroom::formatBytes(budget)) != std::string::npos,
             result.message.c_str());
    for (const headroom::FitProbe &probe : result.probes) {
        QVERIFY(!probe.fits);
    }
    // The estimator may already rule it out; a probe that ran went down to micro-batch 1.
    if (model_fits && !result.probes.empty()) {
        QCOMPARE(result.probes.back().micro_batch, std::int64_t{1});
    }
    QCOMPARE(headroom::Project::openReadOnly(path.toStdString()).configJson(), config_before);
}

void TestAutoFit::withoutBudgetTheWholeBatchFits() {
    const headroom::FitResult result = fit(project("free.headroom"));
    QVERIFY2(result.stored, result.message.c_str());
    QCOMPARE(result.largest_fitting, kEffectiveBatch);
    QCOMPARE(result.micro_batch, kEffectiveBatch);
    QCOMPARE(result.accumulation, std::int64_t{1});
    QVERIFY(static_cast<int>(result.probes.size()) <= headroom::kMaxFitProbes);
}

QTEST_GUILESS_MAIN(TestAutoFit)
#include "test_auto_fit.moc"
