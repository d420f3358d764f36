// The Live view's Ranks plot: a distributed run's per-rank peak memory and throughput reach it
// live and from the project file; single-process runs keep the view as it was.
#include "plots/RankPlot.h"
#include "runs/RunSeries.h"
#include "views/LiveView.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::LiveView;
namespace plots = headroom::ui::plots;

class TestRankPlot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveStepsFillOneGraphPairPerRank();
    void singleProcessRunsHideThePlot();
    void storedRunShowsItsRanks();
};

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

QVector<headroom::StepMetrics> rankSteps(int first, int count, int ranks) {
    QVector<headroom::StepMetrics> steps;
    for (int step = first; step < first + count; ++step) {
        headroom::StepMetrics m;
        m.step = step;
        m.loss = 2.0;
        m.samples_per_s = 100;
        for (int rank = 0; rank < ranks; ++rank) {
            m.ranks.push_back(
                {rank, static_cast<std::uint64_t>((rank + 1) * 4 * kMiB), 50.0 + rank + step});
        }
        steps.push_back(m);
    }
    return steps;
}

} // namespace

void TestRankPlot::liveStepsFillOneGraphPairPerRank() {
    LiveView view;
    view.resize(900, 1200);
    view.show();
    view.beginRun(1, "two ranks");
    QVERIFY(!view.rankPlot()->isVisibleTo(&view));
    view.appendSteps(rankSteps(1, 5, 2));
    view.appendSteps(rankSteps(6, 3, 2));
    plots::RankPlot *plot = view.rankPlot();
    QVERIFY(plot->isVisibleTo(&view));
    QCOMPARE(plot->rankCount(), 2);
    QCOMPARE(plot->pointCount(), 16);
    // Memory of rank 1 on the left axis in MiB, throughput on the right one.
    QCPGraph *memory = plot->graph(2);
    QCPGraph *throughput = plot->graph(3);
    QCOMPARE(memory->valueAxis(), plot->yAxis);
    QCOMPARE(throughput->valueAxis(), plot->yAxis2);
    QCOMPARE(memory->data()->at(7)->value, 8.0);
    QCOMPARE(throughput->data()->at(7)->value, 59.0);
    QTRY_VERIFY(plot->replotCount() > 0);
    QVERIFY(plot->yAxis2->range().upper >= 59.0);

    view.beginRun(2, "next run");
    QCOMPARE(plot->pointCount(), 0);
    QVERIFY(!plot->isVisibleTo(&view));
}

void TestRankPlot::singleProcessRunsHideThePlot() {
    LiveView view;
    view.show();
    view.beginRun(1, "one process");
    view.appendSteps(rankSteps(1, 4, 0));
    QVERIFY(!view.series().hasRanks());
    QVERIFY(!view.rankPlot()->isVisibleTo(&view));
}

void TestRankPlot::storedRunShowsItsRanks() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("ranks.headroom").toStdString();
    headroom::Project project = headroom::Project::create(path, R"({"recipe":"gpt"})");
    const std::int64_t run = project.beginRun("{}", "cpu", 10, 0);
    {
        headroom::MetricsWriter writer(path, run);
        for (const headroom::StepMetrics &m : rankSteps(1, 4, 3)) {
            writer.post(m);
        }
        writer.flush();
    }
    LiveView view;
    view.show();
    view.showRun(headroom::ui::loadRunSeries(project, run), "stored");
    QVERIFY(view.rankPlot()->isVisibleTo(&view));
    QCOMPARE(view.rankPlot()->rankCount(), 3);
    QCOMPARE(view.rankPlot()->pointCount(), 12);
}

QTEST_MAIN(TestRankPlot)
#include "test_rank_plot.moc"
