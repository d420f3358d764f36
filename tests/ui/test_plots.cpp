// Live plots: data reaches the graphs, replots are coalesced, markers carry their details,
// smoothing and log scale, palettes and export.
#include "plots/LossPlot.h"
#include "plots/MemoryPlot.h"
#include "plots/PlotStyle.h"
#include "plots/ThroughputPlot.h"
#include "views/LiveView.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::LiveView;
using headroom::ui::RunEvent;
using headroom::ui::RunSeries;
namespace plots = headroom::ui::plots;

class TestPlots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveViewFillsEveryPlot();
    void replotsAreCoalesced();
    void smoothingAndLogScale();
    void memoryEventsBecomeMarkersWithDetails_data();
    void memoryEventsBecomeMarkersWithDetails();
    void reservedMemoryAppearsOnlyWhereReported();
    void budgetLineExtendsTheRange();
    void followsADarkPalette();
    void exportsPngAndPdf_data();
    void exportsPngAndPdf();
    void millionPointsReplotQuickly();
};

namespace {
QVector<headroom::StepMetrics> makeSteps(int first, int count) {
    QVector<headroom::StepMetrics> steps;
    for (int i = 0; i < count; ++i) {
        headroom::StepMetrics step;
        step.step = first + i;
        step.loss = 4.0 / (1.0 + 0.05 * step.step);
        step.mem_live = 10u << 20;
        step.mem_peak = (20u << 20) + std::uint64_t(step.step) * 1024;
        step.tokens_per_s = 1000 + step.step;
        step.elapsed_s = 0.01 * step.step;
        steps << step;
    }
    return steps;
}

RunEvent memoryEvent(const std::string &kind, std::int64_t step, const std::string &details) {
    RunEvent event;
    event.run_id = 1;
    event.event.kind = kind;
    event.event.step = step;
    event.event.message = kind + " happened";
    event.event.details = details;
    return event;
}
} // namespace

void TestPlots::liveViewFillsEveryPlot() {
    LiveView view;
    view.resize(800, 700);
    view.show();
    view.beginRun(7, "run 7");
    view.appendSteps(makeSteps(1, 30));
    view.appendSteps(makeSteps(31, 20));
    headroom::EvalMetrics eval;
    eval.step = 25;
    eval.loss = 2.5;
    view.appendEvals({eval});
    eval.step = 50;
    view.appendEvals({eval});
    QCOMPARE(view.lossPlot()->trainPointCount(), 50);
    QCOMPARE(view.lossPlot()->validationPointCount(), 2);
    QCOMPARE(view.memoryPlot()->livePointCount(), 50);
    QCOMPARE(view.throughputPlot()->pointCount(), 50);
    QCOMPARE(view.series().lastStep(), 50);

    view.beginRun(8, "run 8");
    QCOMPARE(view.lossPlot()->trainPointCount(), 0);
    QCOMPARE(view.memoryPlot()->markerCount(), 0);
}

void TestPlots::replotsAreCoalesced() {
    plots::LossPlot plot;
    plot.show();
    RunSeries series;
    for (const auto &step : makeSteps(1, 200)) {
        series.append(step);
        plot.append(series, int(series.steps.size()) - 1, 0);
    }
    QTRY_COMPARE(plot.replotCount(), 1);
    QCOMPARE(plot.trainPointCount(), 200);
    // The x range follows the data.
    QVERIFY(plot.xAxis->range().upper >= 200);
}

void TestPlots::smoothingAndLogScale() {
    plots::LossPlot plot;
    RunSeries series;
    for (const auto &step : makeSteps(1, 40)) {
        series.append(step);
    }
    plot.append(series, 0, 0);
    plot.setSmoothing(0.9);
    QCOMPARE(plot.graphCount(), 3);
    QCPGraph *smoothed = plot.graph(1);
    QVERIFY(smoothed->visible());
    QCOMPARE(smoothed->dataCount(), 40);
    // An EMA of a decreasing curve lags above it.
    QVERIFY(smoothed->data()->at(39)->value > plot.graph(0)->data()->at(39)->value);
    plot.append(series, 40, 0); // nothing new
    QCOMPARE(smoothed->dataCount(), 40);
    plot.setSmoothing(0);
    QVERIFY(!smoothed->visible());

    plot.setLogScale(true);
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLogarithmic);
    plot.setLogScale(false);
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLinear);
}

void TestPlots::memoryEventsBecomeMarkersWithDetails_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("details");
    QTest::addColumn<bool>("marked");
    QTest::addColumn<QString>("expected");
    QTest::newRow("oom recovery")
        << "oom_recovered"
        << R"({"from":8,"to":4,"accumulation":2,"device":"cpu","bytes_at_failure":1048576})" << true
        << "micro-batch 8 → 4";
    QTest::newRow("ladder") << "ladder"
                            << "{}" << true << "ladder";
    QTest::newRow("eval back-off") << "eval_oom_backoff"
                                   << "{}" << true << "Validation";
    QTest::newRow("growth") << "memory_growing"
                            << "{}" << true << "growing";
    QTest::newRow("out of memory") << "out_of_memory"
                                   << R"({"device":"cpu"})" << true << "Device: cpu";
    QTest::newRow("checkpoint is no marker") << "checkpoint"
                                             << "{}" << false << "";
}

void TestPlots::memoryEventsBecomeMarkersWithDetails() {
    QFETCH(QString, kind);
    QFETCH(QString, details);
    QFETCH(bool, marked);
    QFETCH(QString, expected);
    LiveView view;
    view.resize(800, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.beginRun(1, "run");
    view.appendSteps(makeSteps(1, 20));
    view.addEvent(memoryEvent(kind.toStdString(), 10, details.toStdString()));
    plots::MemoryPlot *plot = view.memoryPlot();
    QCOMPARE(plot->markerCount(), marked ? 1 : 0);
    if (!marked) {
        return;
    }
    QTRY_VERIFY(plot->replotCount() > 0); // axes are laid out
    const QPointF pixel = plot->markerPixel(0);
    const QString text = plot->markerTextAt(pixel + QPointF(3, -2));
    QVERIFY2(text.contains(expected), qPrintable(text));
    QVERIFY(plot->markerTextAt(pixel + QPointF(200, 200)).isEmpty());
}

void TestPlots::reservedMemoryAppearsOnlyWhereReported() {
    LiveView view;
    view.beginRun(1, "cpu run");
    view.appendSteps(makeSteps(1, 10)); // CPU: no allocator cache
    QCOMPARE(view.memoryPlot()->reservedPointCount(), 0);
    QVector<headroom::StepMetrics> device_steps = makeSteps(11, 5);
    for (headroom::StepMetrics &step : device_steps) {
        step.mem_reserved = 64u << 20;
    }
    view.appendSteps(device_steps);
    QCOMPARE(view.memoryPlot()->reservedPointCount(), 5);
}

void TestPlots::budgetLineExtendsTheRange() {
    plots::MemoryPlot plot;
    plot.show();
    RunSeries series;
    for (const auto &step : makeSteps(1, 10)) {
        series.append(step);
    }
    plot.append(series, 0);
    plot.setFullBudgetScale(true); // the budget is far above these steps' memory
    plot.setBudget(512u << 20);
    QTRY_VERIFY(plot.replotCount() > 0);
    QVERIFY(plot.yAxis->range().upper >= 512);
    plot.setBudget(0);
    const int before = plot.replotCount();
    QTRY_VERIFY(plot.replotCount() > before);
    QVERIFY(plot.yAxis->range().upper < 512);
}

void TestPlots::followsADarkPalette() {
    plots::LossPlot plot;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(30, 30, 30));
    dark.setColor(QPalette::Base, QColor(20, 20, 20));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    plot.setPalette(dark);
    QVERIFY(plots::isDarkPalette(plot.palette()));
    QCOMPARE(plot.xAxis->tickLabelColor(), QColor(230, 230, 230));
    QVERIFY(plot.graph(0)->pen().color().lightness() > 128);
    QPalette light;
    light.setColor(QPalette::Window, QColor(240, 240, 240));
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::WindowText, Qt::black);
    plot.setPalette(light);
    QCOMPARE(plot.xAxis->tickLabelColor(), QColor(Qt::black));
}

void TestPlots::exportsPngAndPdf_data() {
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::newRow("png") << "png" << QByteArray("\x89PNG");
    QTest::newRow("pdf") << "pdf" << QByteArray("%PDF");
}

void TestPlots::exportsPngAndPdf() {
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    QTemporaryDir dir;
    LiveView view;
    view.resize(700, 600);
    view.show();
    view.beginRun(3, "run 3");
    view.appendSteps(makeSteps(1, 30));
    const QStringList files = view.exportPlots(dir.filePath("run3." + suffix));
    QCOMPARE(files.size(), 3);
    QVERIFY(files.first().endsWith("run3-loss." + suffix));
    for (const QString &path : files) {
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
        QVERIFY(file.read(4).startsWith(magic));
    }
}

void TestPlots::millionPointsReplotQuickly() {
    plots::MemoryPlot plot;
    plot.resize(900, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    RunSeries series;
    series.steps.reserve(1000000);
    for (int i = 1; i <= 1000000; ++i) {
        series.steps << i;
        series.mem_live << double(100 + (i % 97)) * 1024 * 1024;
        series.mem_peak << double(200 + (i % 89)) * 1024 * 1024;
        series.loss << 1.0;
        series.throughput << 1.0;
        series.elapsed_s << i;
    }
    plot.append(series, 0);
    plot.rescaleAxes();
    plot.replot(QCustomPlot::rpImmediateRefresh); // first layout
    QElapsedTimer timer;
    timer.start();
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const qint64 ms = timer.elapsed();
    qInfo("memory plot replot with 1M points (live + peak): %lld ms", ms);
    // The time is reported, not asserted: timing targets belong in benchmarks, and CI
    // machines are shared.
    QCOMPARE(plot.livePointCount(), 1000000);
}

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
