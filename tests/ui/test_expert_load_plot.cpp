// Expert load and routing plots: MoE step metrics reach the heat map and the routing graphs,
// live and from the project file; dense runs keep the Live view as it was.
#include "plots/ExpertLoadPlot.h"
#include "plots/ThroughputPlot.h"
#include "runs/RunPoller.h"
#include "runs/RunSeries.h"
#include "views/LiveView.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using headroom::ui::LiveView;
using headroom::ui::RunSeries;
namespace plots = headroom::ui::plots;

class TestExpertLoadPlot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveMoeStepsFillTheHeatMap();
    void denseRunsHideTheMoePlots();
    void routingGraphsFollowTheSteps();
    void longRunsAreAveragedIntoColumns();
    void batchesMatchAFromScratchBuild();
    void tooltipNamesTheCell();
    void storedRunShowsItsExpertLoad();
    void watchedRunBringsItsExpertLoad();
    void exportWritesTheMoePlots();
};

namespace {
constexpr int kBlocks = 2;
constexpr int kExperts = 4;

// Block 0 is balanced; block 1 sends a share that grows with the step to its expert 0.
headroom::StepMetrics moeStep(std::int64_t step) {
    headroom::StepMetrics metrics;
    metrics.step = step;
    metrics.loss = 3.0 / (1.0 + 0.1 * double(step));
    metrics.tokens_per_s = 500;
    metrics.mem_live = 1u << 20;
    metrics.mem_peak = 2u << 20;
    headroom::MoeStepMetrics moe;
    moe.aux_loss = 1.0 + 0.01 * double(step);
    moe.z_loss = 0.5;
    moe.dropped_fraction = 0.001 * double(step);
    moe.expert_load.assign(kBlocks, std::vector<double>(kExperts, 0.25));
    const double hot = std::min(0.25 + 0.01 * double(step), 1.0);
    moe.expert_load[1] = {hot, (1 - hot) / 3, (1 - hot) / 3, (1 - hot) / 3};
    metrics.moe = moe;
    return metrics;
}

QVector<headroom::StepMetrics> moeSteps(int first, int count) {
    QVector<headroom::StepMetrics> steps;
    for (int i = 0; i < count; ++i) {
        steps << moeStep(first + i);
    }
    return steps;
}

// Block 1's expert 0 swings around the balanced share, so every averaged column differs.
QVector<headroom::StepMetrics> wavySteps(int first, int count) {
    QVector<headroom::StepMetrics> steps = moeSteps(first, count);
    for (headroom::StepMetrics &step : steps) {
        const double hot = 0.25 + 0.2 * std::sin(double(step.step) / 37.0);
        step.moe->expert_load[1] = {hot, (1 - hot) / 2, (1 - hot) / 3, (1 - hot) / 6};
    }
    return steps;
}

QVector<headroom::StepMetrics> denseSteps(int first, int count) {
    QVector<headroom::StepMetrics> steps = moeSteps(first, count);
    for (headroom::StepMetrics &step : steps) {
        step.moe.reset();
    }
    return steps;
}
} // namespace

void TestExpertLoadPlot::liveMoeStepsFillTheHeatMap() {
    LiveView view;
    view.resize(900, 1000);
    view.show();
    view.beginRun(3, "moe run");
    QVERIFY(!view.expertLoadPlot()->isVisibleTo(&view));
    view.appendSteps(moeSteps(1, 10));
    view.appendSteps(moeSteps(11, 10));
    QVERIFY(view.expertLoadPlot()->isVisibleTo(&view));
    QVERIFY(view.routingPlot()->isVisibleTo(&view));

    plots::ExpertLoadPlot *plot = view.expertLoadPlot();
    QCOMPARE(plot->columnCount(), 20);
    QCOMPARE(plot->rowCount(), kBlocks * kExperts);
    QCOMPARE(plot->balancedShare(), 0.25);
    // Block 0 (rows 0-3) stays balanced, block 1's expert 0 (row 4) takes more each step.
    QCOMPARE(plot->share(0, 0), 0.25);
    QCOMPARE(plot->share(19, 3), 0.25);
    QVERIFY(qFuzzyCompare(plot->share(0, 4), 0.26));
    QVERIFY(qFuzzyCompare(plot->share(19, 4), 0.45));
    QVERIFY(qFuzzyCompare(plot->share(19, 5), 0.55 / 3));
    // The view follows the data: every step is inside the x range once replotted.
    QTRY_VERIFY(plot->replotCount() > 0);
    QVERIFY(plot->xAxis->range().lower <= 1 && plot->xAxis->range().upper >= 20);

    view.beginRun(4, "next run");
    QCOMPARE(plot->columnCount(), 0);
    QVERIFY(!plot->isVisibleTo(&view));
    QCOMPARE(view.routingPlot()->droppedGraph()->dataCount(), 0);
}

void TestExpertLoadPlot::denseRunsHideTheMoePlots() {
    LiveView view;
    view.show();
    view.beginRun(1, "dense run");
    view.appendSteps(denseSteps(1, 30));
    QCOMPARE(view.throughputPlot()->pointCount(), 30);
    QVERIFY(!view.series().hasMoe());
    QVERIFY(!view.expertLoadPlot()->isVisibleTo(&view));
    QVERIFY(!view.routingPlot()->isVisibleTo(&view));
    QCOMPARE(view.expertLoadPlot()->columnCount(), 0);

    // A MoE run shown after it, then a dense one again.
    RunSeries moe;
    moe.run_id = 2;
    for (const auto &step : moeSteps(1, 5)) {
        moe.append(step);
    }
    view.showRun(moe, "moe");
    QVERIFY(view.expertLoadPlot()->isVisibleTo(&view));
    RunSeries dense;
    dense.run_id = 3;
    for (const auto &step : denseSteps(1, 5)) {
        dense.append(step);
    }
    view.showRun(dense, "dense");
    QVERIFY(!view.expertLoadPlot()->isVisibleTo(&view));
    QVERIFY(!view.routingPlot()->isVisibleTo(&view));
}

void TestExpertLoadPlot::routingGraphsFollowTheSteps() {
    LiveView view;
    view.beginRun(5, "moe run");
    view.appendSteps(moeSteps(1, 7));
    view.appendSteps(moeSteps(8, 3));
    plots::RoutingPlot *plot = view.routingPlot();
    QCOMPARE(plot->droppedGraph()->dataCount(), 10);
    QCOMPARE(plot->auxLossGraph()->dataCount(), 10);
    QCOMPARE(plot->zLossGraph()->dataCount(), 10);
    // Dropped assignments in percent, losses as reported.
    QCOMPARE(plot->droppedGraph()->data()->at(9)->key, 10.0);
    QVERIFY(qFuzzyCompare(plot->droppedGraph()->data()->at(9)->value, 1.0));
    QVERIFY(qFuzzyCompare(plot->auxLossGraph()->data()->at(9)->value, 1.1));
    QCOMPARE(plot->zLossGraph()->data()->at(0)->value, 0.5);
    QCOMPARE(plot->auxLossGraph()->valueAxis(), plot->yAxis2);
}

void TestExpertLoadPlot::longRunsAreAveragedIntoColumns() {
    RunSeries series;
    const int steps = 2 * plots::ExpertLoadPlot::kMaxColumns;
    for (int step = 1; step <= steps; ++step) {
        series.append(moeStep(step));
    }
    plots::ExpertLoadPlot plot;
    plot.setSeries(series);
    QCOMPARE(plot.columnCount(), plots::ExpertLoadPlot::kMaxColumns);
    QCOMPARE(plot.stepsPerColumn(), 2);
    // Column 0 holds steps 1 and 2: expert 0 of block 1 had 0.26 and 0.27.
    QVERIFY(qFuzzyCompare(plot.share(0, 4), 0.265));
    QCOMPARE(plot.share(plots::ExpertLoadPlot::kMaxColumns - 1, 4), 1.0);
    QCOMPARE(plot.share(7, 2), 0.25);
}

// A live run's map, fed batch by batch, equals the map built from its whole history, and
// keeping it up to date costs a few cells per step however long the run has been going.
void TestExpertLoadPlot::batchesMatchAFromScratchBuild() {
    constexpr int kMax = plots::ExpertLoadPlot::kMaxColumns;
    constexpr int kRows = kBlocks * kExperts;
    constexpr int kBatch = 7;
    const int total = 5 * kMax + 37; // columns of 1, 2, 4 and then 8 steps
    LiveView view;
    view.beginRun(8, "long moe run");
    plots::ExpertLoadPlot *plot = view.expertLoadPlot();

    auto compare_with_scratch = [&] {
        plots::ExpertLoadPlot scratch;
        scratch.setSeries(view.series());
        QCOMPARE(plot->columnCount(), scratch.columnCount());
        QCOMPARE(plot->stepsPerColumn(), scratch.stepsPerColumn());
        for (int column = 0; column < scratch.columnCount(); ++column) {
            for (int row = 0; row < kRows; ++row) {
                QCOMPARE(plot->share(column, row), scratch.share(column, row));
            }
            QCOMPARE(
                plot->cellText(view.series().moe_steps.at(column * plot->stepsPerColumn()), 4),
                scratch.cellText(view.series().moe_steps.at(column * plot->stepsPerColumn()), 4));
        }
    };

    std::int64_t written = 0;
    std::int64_t most = 0;
    int heavy = 0;
    std::int64_t last_batch = 0;
    for (int step = 1, batch = 0; step <= total; step += kBatch, ++batch) {
        view.appendSteps(wavySteps(step, std::min(kBatch, total - step + 1)));
        last_batch = plot->cellsWritten() - written;
        written = plot->cellsWritten();
        most = std::max(most, last_batch);
        // More than the batch's own columns only when the map grows or its columns merge.
        heavy += last_batch > (kBatch + 1) * kRows ? 1 : 0;
        if (batch % 97 == 0) {
            compare_with_scratch();
            if (QTest::currentTestFailed()) {
                return;
            }
        }
    }
    compare_with_scratch();
    if (QTest::currentTestFailed()) {
        return;
    }
    QCOMPARE(plot->stepsPerColumn(), 8);
    QCOMPARE(plot->columnCount(), (total + 7) / 8);
    QVERIFY(plot->columnCount() >= kMax / 2 && plot->columnCount() <= kMax);

    // Each column is the mean of its steps (the old map's averaging, in fixed bins).
    const RunSeries &series = view.series();
    for (int column = 0; column < plot->columnCount(); ++column) {
        double sum = 0;
        int count = 0;
        for (int i = column * 8; i < std::min(total, column * 8 + 8); ++i, ++count) {
            sum += series.moe_load.at(i).at(4);
        }
        QVERIFY(std::abs(plot->share(column, 4) - sum / count) < 1e-12);
    }

    // Bounded work: about two cells per row and step in all, never more than two maps' worth
    // in one batch, and only a handful of batches beyond their own columns: the map growing
    // (64, 128, ... 1024, 1200 columns) and the three merges. Rebuilding the map from the
    // whole history at each batch would write about total^2 / 14 cells per row.
    QVERIFY2(written <= 4LL * kRows * total, qPrintable(QString::number(written)));
    QVERIFY(most <= 2LL * kMax * kRows);
    QVERIFY2(heavy <= 9, qPrintable(QString::number(heavy)));
    QVERIFY(last_batch <= 2 * kRows);
}

void TestExpertLoadPlot::tooltipNamesTheCell() {
    RunSeries series;
    for (const auto &step : moeSteps(1, 10)) {
        series.append(step);
    }
    plots::ExpertLoadPlot plot;
    plot.setSeries(series);
    // Row 4 is expert 0 of the second block; step 10 gave it 0.35.
    QCOMPARE(
        plot.cellText(10, 4),
        QStringLiteral("Step 10, block 2, expert 0: 35.0% of the assignments (balanced: 25.0%)"));
    QCOMPARE(plot.cellText(3.2, 1).left(27), QStringLiteral("Step 3, block 1, expert 1: "));
    QVERIFY(plot.cellText(40, 4).isEmpty());
    QVERIFY(plot.cellText(5, 9).isEmpty());
}

void TestExpertLoadPlot::storedRunShowsItsExpertLoad() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("moe.headroom").toStdString();
    headroom::Project project = headroom::Project::create(path, R"({"recipe":"gpt"})");
    const std::int64_t run = project.beginRun("{}", "cpu", 12, 0);
    {
        headroom::MetricsWriter writer(path, run);
        for (const auto &step : moeSteps(1, 12)) {
            writer.post(step);
        }
        writer.flush();
    }
    const RunSeries series = headroom::ui::loadRunSeries(project, run);
    QVERIFY(series.hasMoe());
    QCOMPARE(series.moe_blocks, kBlocks);
    QCOMPARE(series.moe_experts, kExperts);

    LiveView view;
    view.show();
    view.showRun(series, "stored");
    QVERIFY(view.expertLoadPlot()->isVisibleTo(&view));
    QCOMPARE(view.expertLoadPlot()->columnCount(), 12);
    QVERIFY(qFuzzyCompare(view.expertLoadPlot()->share(11, 4), 0.37));
    QCOMPARE(view.routingPlot()->droppedGraph()->dataCount(), 12);
}

// A run trained by another process reaches the Live view through RunPoller.
void TestExpertLoadPlot::watchedRunBringsItsExpertLoad() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("watched.headroom");
    std::int64_t run = 0;
    {
        headroom::Project project =
            headroom::Project::create(path.toStdString(), R"({"recipe":"gpt"})");
        run = project.beginRun("{}", "cpu", 100, 0);
        headroom::MetricsWriter writer(path.toStdString(), run);
        for (const auto &step : moeSteps(1, 6)) {
            writer.post(step);
        }
        writer.flush();
    }
    LiveView view;
    view.beginRun(run, "watched");
    headroom::ui::RunPoller poller(60'000);
    int batches = 0;
    connect(&poller, &headroom::ui::RunPoller::stepsArrived, &view,
            [&](const QVector<headroom::StepMetrics> &steps) {
                ++batches;
                view.appendSteps(steps);
            });
    poller.watch(path);
    poller.poll();
    QCOMPARE(batches, 1);
    QVERIFY(view.series().hasMoe());
    QCOMPARE(view.expertLoadPlot()->columnCount(), 6);
    QVERIFY(qFuzzyCompare(view.expertLoadPlot()->share(5, 4), 0.31));
    QVERIFY(qFuzzyCompare(view.routingPlot()->droppedGraph()->data()->at(5)->value, 0.6));
}

void TestExpertLoadPlot::exportWritesTheMoePlots() {
    QTemporaryDir dir;
    LiveView view;
    view.resize(800, 900);
    view.beginRun(6, "moe");
    view.appendSteps(moeSteps(1, 5));
    const QStringList written = view.exportPlots(dir.filePath("run.png"));
    QCOMPARE(written.size(), 5);
    QVERIFY(QFileInfo(dir.filePath("run-experts.png")).size() > 0);
    QVERIFY(QFileInfo(dir.filePath("run-routing.png")).size() > 0);

    view.beginRun(7, "dense");
    view.appendSteps(denseSteps(1, 5));
    QCOMPARE(view.exportPlots(dir.filePath("dense.png")).size(), 3);
}

QTEST_MAIN(TestExpertLoadPlot)
#include "test_expert_load_plot.moc"
