// Sparsity and retrieval quality plots: SPLADE step metrics and ranking validations reach the
// Live view's graphs, live and from the project file; other recipes keep the view as it was.
#include "plots/RetrievalPlots.h"
#include "runs/RunSeries.h"
#include "views/LiveView.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using headroom::ui::LiveView;
using headroom::ui::RunSeries;
namespace plots = headroom::ui::plots;

class TestRetrievalPlots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveStepsFillTheSparsityGraphs();
    void validationsBecomeQualityPoints();
    void otherRecipesHideTheRetrievalPlots();
    void storedRunShowsItsRetrievalMetrics();
    void exportWritesTheRetrievalPlots();
};

namespace {

// Queries and passages grow sparser as the steps go on.
headroom::StepMetrics spladeStep(std::int64_t step) {
    headroom::StepMetrics metrics;
    metrics.step = step;
    metrics.loss = 4.0 / (1.0 + 0.1 * double(step));
    metrics.samples_per_s = 200;
    metrics.mem_live = 1u << 20;
    metrics.mem_peak = 2u << 20;
    headroom::RetrievalStepMetrics retrieval;
    retrieval.flops_q = 100.0 - double(step);
    retrieval.flops_d = 150.0 - 2.0 * double(step);
    retrieval.lambda_q = 0.0005;
    retrieval.lambda_d = 0.0003;
    retrieval.query_nonzeros = 200.0 - 3.0 * double(step);
    retrieval.passage_nonzeros = 250.0 - 4.0 * double(step);
    metrics.retrieval = retrieval;
    return metrics;
}

QVector<headroom::StepMetrics> spladeSteps(int first, int count) {
    QVector<headroom::StepMetrics> steps;
    for (int i = 0; i < count; ++i) {
        steps << spladeStep(first + i);
    }
    return steps;
}

headroom::EvalMetrics rankingEval(std::int64_t step, double mrr, double recall) {
    headroom::EvalMetrics eval;
    eval.step = step;
    eval.loss = 2.0;
    eval.examples = 8;
    eval.accuracy = std::numeric_limits<double>::quiet_NaN();
    eval.rmse = std::numeric_limits<double>::quiet_NaN();
    eval.r2 = std::numeric_limits<double>::quiet_NaN();
    eval.mrr_at_10 = mrr;
    eval.recall_at_100 = recall;
    return eval;
}

headroom::EvalMetrics gptEval(std::int64_t step) {
    headroom::EvalMetrics eval = rankingEval(step, 0, 0);
    eval.mrr_at_10 = std::numeric_limits<double>::quiet_NaN();
    eval.recall_at_100 = std::numeric_limits<double>::quiet_NaN();
    return eval;
}

} // namespace

void TestRetrievalPlots::liveStepsFillTheSparsityGraphs() {
    LiveView view;
    view.resize(900, 1200);
    view.show();
    view.beginRun(3, "splade run");
    QVERIFY(!view.sparsityPlot()->isVisibleTo(&view));
    view.appendSteps(spladeSteps(1, 6));
    view.appendSteps(spladeSteps(7, 4));
    QVERIFY(view.series().hasRetrieval());
    QVERIFY(view.sparsityPlot()->isVisibleTo(&view));
    QVERIFY(view.retrievalQualityPlot()->isVisibleTo(&view));

    plots::RetrievalSparsityPlot *plot = view.sparsityPlot();
    for (QCPGraph *graph : {plot->queryFlopsGraph(), plot->passageFlopsGraph(),
                            plot->queryNonzerosGraph(), plot->passageNonzerosGraph()}) {
        QCOMPARE(graph->dataCount(), 10);
    }
    QCOMPARE(plot->queryFlopsGraph()->data()->at(9)->key, 10.0);
    QCOMPARE(plot->queryFlopsGraph()->data()->at(9)->value, 90.0);
    QCOMPARE(plot->passageFlopsGraph()->data()->at(0)->value, 148.0);
    QCOMPARE(plot->queryNonzerosGraph()->data()->at(9)->value, 170.0);
    QCOMPARE(plot->passageNonzerosGraph()->data()->at(4)->value, 230.0);
    // FLOPS on the left axis, non-zero counts (hundreds) on the right one.
    QCOMPARE(plot->queryFlopsGraph()->valueAxis(), plot->yAxis);
    QCOMPARE(plot->queryNonzerosGraph()->valueAxis(), plot->yAxis2);
    QTRY_VERIFY(plot->replotCount() > 0);
    QCOMPARE(plot->yAxis->range().lower, 0.0);
    QVERIFY(plot->yAxis->range().upper >= 148.0);
    QVERIFY(plot->yAxis2->range().upper >= 246.0);

    view.beginRun(4, "next run");
    QCOMPARE(plot->queryFlopsGraph()->dataCount(), 0);
    QVERIFY(!plot->isVisibleTo(&view));
    QVERIFY(!view.retrievalQualityPlot()->isVisibleTo(&view));
}

void TestRetrievalPlots::validationsBecomeQualityPoints() {
    LiveView view;
    view.show();
    view.beginRun(5, "splade run");
    view.appendSteps(spladeSteps(1, 3));
    view.appendEvals({rankingEval(3, 0.25, 0.5)});
    view.appendSteps(spladeSteps(4, 3));
    view.appendEvals({rankingEval(6, 0.4, 0.75)});
    view.appendSteps(spladeSteps(7, 4));

    plots::RetrievalQualityPlot *plot = view.retrievalQualityPlot();
    QCOMPARE(plot->mrrGraph()->dataCount(), 2);
    QCOMPARE(plot->recallGraph()->dataCount(), 2);
    QCOMPARE(plot->mrrGraph()->data()->at(0)->key, 3.0);
    QCOMPARE(plot->mrrGraph()->data()->at(1)->value, 0.4);
    QCOMPARE(plot->recallGraph()->data()->at(1)->key, 6.0);
    QCOMPARE(plot->recallGraph()->data()->at(1)->value, 0.75);
    // The loss plot still gets the validation loss.
    QCOMPARE(view.series().eval_steps.size(), 2);
    // The validations' x axis spans the run's steps, as the plots above it do.
    QTRY_VERIFY(plot->replotCount() > 0);
    QVERIFY2(
        plot->xAxis->range().lower <= 1 && plot->xAxis->range().upper >= 10,
        qPrintable(
            QString("%1..%2").arg(plot->xAxis->range().lower).arg(plot->xAxis->range().upper)));
    QCOMPARE(plot->yAxis->range().lower, 0.0);
    QVERIFY(plot->yAxis->range().upper >= 1.0);
}

void TestRetrievalPlots::otherRecipesHideTheRetrievalPlots() {
    LiveView view;
    view.show();
    view.beginRun(1, "gpt run");
    QVector<headroom::StepMetrics> steps = spladeSteps(1, 20);
    for (headroom::StepMetrics &step : steps) {
        step.retrieval.reset();
    }
    view.appendSteps(steps);
    view.appendEvals({gptEval(10), gptEval(20)});
    QVERIFY(!view.series().hasRetrieval());
    QVERIFY(view.series().ranking_eval_steps.isEmpty()); // NaN: not a ranking validation
    QVERIFY(!view.sparsityPlot()->isVisibleTo(&view));
    QVERIFY(!view.retrievalQualityPlot()->isVisibleTo(&view));
    QCOMPARE(view.sparsityPlot()->queryFlopsGraph()->dataCount(), 0);
    QCOMPARE(view.retrievalQualityPlot()->mrrGraph()->dataCount(), 0);
}

void TestRetrievalPlots::storedRunShowsItsRetrievalMetrics() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("splade.headroom").toStdString();
    headroom::Project project = headroom::Project::create(path, R"({"recipe":"splade"})");
    const std::int64_t run = project.beginRun("{}", "cpu", 12, 0);
    {
        headroom::MetricsWriter writer(path, run);
        for (const auto &step : spladeSteps(1, 12)) {
            writer.post(step);
        }
        writer.post(rankingEval(6, 0.3, 0.9));
        writer.post(rankingEval(12, 0.45, 1.0));
        writer.flush();
    }
    const RunSeries series = headroom::ui::loadRunSeries(project, run);
    QVERIFY(series.hasRetrieval());
    QCOMPARE(series.retrieval_steps.size(), 12);
    QCOMPARE(series.ranking_eval_steps.size(), 2);

    LiveView view;
    view.show();
    view.showRun(series, "stored");
    QVERIFY(view.sparsityPlot()->isVisibleTo(&view));
    QVERIFY(view.retrievalQualityPlot()->isVisibleTo(&view));
    plots::RetrievalSparsityPlot *sparsity = view.sparsityPlot();
    QCOMPARE(sparsity->queryFlopsGraph()->dataCount(), 12);
    QCOMPARE(sparsity->passageNonzerosGraph()->data()->at(11)->value, 202.0);
    QCOMPARE(sparsity->passageFlopsGraph()->data()->at(11)->value, 126.0);
    plots::RetrievalQualityPlot *quality = view.retrievalQualityPlot();
    QCOMPARE(quality->mrrGraph()->dataCount(), 2);
    QCOMPARE(quality->mrrGraph()->data()->at(1)->value, 0.45);
    QCOMPARE(quality->recallGraph()->data()->at(0)->value, 0.9);
}

void TestRetrievalPlots::exportWritesTheRetrievalPlots() {
    QTemporaryDir dir;
    LiveView view;
    view.resize(800, 1100);
    view.beginRun(6, "splade");
    view.appendSteps(spladeSteps(1, 5));
    view.appendEvals({rankingEval(5, 0.5, 1.0)});
    const QStringList written = view.exportPlots(dir.filePath("run.png"));
    QCOMPARE(written.size(), 5);
    QVERIFY(QFileInfo(dir.filePath("run-sparsity.png")).size() > 0);
    QVERIFY(QFileInfo(dir.filePath("run-retrieval.png")).size() > 0);
}

QTEST_MAIN(TestRetrievalPlots)
#include "test_retrieval_plots.moc"
