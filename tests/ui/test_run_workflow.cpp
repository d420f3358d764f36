// Training from the main window: a run started from the UI is written into the project and
// fills the plots and the log; pause/stop; closing mid-run; two runs compared; a run written
// by headroom-cli shows live.
#include "main_window/MainWindow.h"
#include "plots/LossPlot.h"
#include "plots/MemoryPlot.h"
#include "plots/ThroughputPlot.h"
#include "runs/RunSeries.h"
#include "runs/RunWatcher.h"
#include "runs/SessionController.h"
#include "sample_files.h"
#include "training_support.h"
#include "views/CompareView.h"
#include "views/LiveView.h"
#include "views/LogView.h"
#include "views/PlanView.h"
#include "views/RunsPanel.h"

#include <headroom/project.h>

#include <QAction>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace test_support;
using headroom::ui::MainWindow;

class TestRunWorkflow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void startFromTheUiTrainsAndFillsPlotsAndLog();
    void pauseResumeStopFromTheWindow();
    void closingDuringARunStopsWithACheckpoint();
    void compareShowsTwoRunsWithDifferencesHighlighted();
    void compareShowsTheRoutingOfExpertRuns();
    void aTabularRunShowsItsValidationAndEvaluatesAFile();
    void aRunThatCannotContinueShowsItsDiagnosis();
    void eventLoopStaysResponsiveDuringARun();
    void aRunWrittenByTheCliShowsLive();

private:
    QString newProject(const QString &name, const QStringList &extra = {});
    QString settingsPath() const { return dir_.filePath("settings.ini"); }

    QTemporaryDir dir_;
    QString corpus_;
};

namespace {
QAction *findAction(const QMainWindow &window, const QString &text) {
    for (QAction *action : window.findChildren<QAction *>()) {
        if (action->text().remove(QLatin1Char('&')) == text) {
            return action;
        }
    }
    return nullptr;
}

bool waitFinished(MainWindow &window) {
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    return finished.wait(120000);
}
} // namespace

void TestRunWorkflow::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
}

QString TestRunWorkflow::newProject(const QString &name, const QStringList &extra) {
    return createTestProject(dir_.filePath(name), corpus_, "gpt", kTinyGpt + extra);
}

void TestRunWorkflow::startFromTheUiTrainsAndFillsPlotsAndLog() {
    const QString project = newProject("ui-run.headroom");
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QAction *start = findAction(window, "Start Training");
    QVERIFY(start && start->isEnabled());

    qputenv("HEADROOM_FAILPOINT", "oom@step:3");
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    start->trigger();
    QVERIFY(!start->isEnabled());
    QCOMPARE(window.tabs()->currentWidget(), window.liveView());
    const bool done = finished.wait(120000);
    qunsetenv("HEADROOM_FAILPOINT");
    QVERIFY(done);

    const headroom::Project reader = headroom::Project::open(project.toStdString());
    QCOMPARE(int(reader.runs().size()), 1);
    const headroom::RunRecord run = reader.runs().front();
    QCOMPARE(name(run.status), QString("finished"));
    QCOMPARE(run.oom_recoveries, 1);
    QCOMPARE(window.runsPanel()->runCount(), 1);
    // Events read back from the project carry the time the engine stored.
    const headroom::ui::RunSeries stored = headroom::ui::loadRunSeries(reader, run.id);
    QVERIFY(!stored.events.empty());
    for (const headroom::ui::RunEvent &event : stored.events) {
        QVERIFY2(event.received.isValid(), event.event.kind.c_str());
        QVERIFY(event.received.secsTo(QDateTime::currentDateTime()) < 3600);
    }

    headroom::ui::LiveView *live = window.liveView();
    QCOMPARE(live->runId(), run.id);
    QCOMPARE(live->lossPlot()->trainPointCount(), 16);
    QCOMPARE(live->lossPlot()->validationPointCount(), int(reader.evaluations(run.id).size()));
    QCOMPARE(live->memoryPlot()->livePointCount(), 16);
    QCOMPARE(live->throughputPlot()->pointCount(), 16);
    QCOMPARE(live->memoryPlot()->markerCount(), 1); // the injected out-of-memory recovery
    QVERIFY(window.logView()->entryCount() > 0);
    window.logView()->setCategory(headroom::ui::LogView::Category::Memory);
    QCOMPARE(window.logView()->visibleEntryCount(), 1);
    bool logged = false;
    for (int row = 0; row < window.logView()->entryCount(); ++row) {
        logged |= window.logView()->kindAt(row) == "oom_recovered";
    }
    QVERIFY(logged);
    QVERIFY(start->isEnabled());
    QVERIFY(window.runStateText().contains("Finished"));

    // Metrics export from the window.
    const QString csv = dir_.filePath("ui-run.csv");
    QCOMPARE(window.exportMetrics(csv), QString());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), 17); // header + 16 steps
}

void TestRunWorkflow::pauseResumeStopFromTheWindow() {
    const QString project = newProject("ui-control.headroom", {"train.steps=400"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QAction *pause = findAction(window, "Pause");
    QAction *resume = findAction(window, "Resume");
    QAction *stop = findAction(window, "Stop");
    QVERIFY(!pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(!window.startRun().isEmpty()); // one run at a time

    QTRY_VERIFY_WITH_TIMEOUT(window.liveView()->series().lastStep() > 0, 60000);
    QVERIFY(pause->isEnabled());
    pause->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(resume->isEnabled(), 30000);
    QVERIFY(!pause->isEnabled());
    QVERIFY(window.runStateText().startsWith("Paused"));
    QVERIFY(!window.planView()->isEnabled() ||
            window.planView()->messageText().contains("read-only"));
    const std::int64_t paused_at = window.liveView()->series().lastStep();
    resume->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.liveView()->series().lastStep() > paused_at, 30000);
    stop->trigger();
    QVERIFY(!stop->isEnabled());
    QVERIFY(waitFinished(window));
    const headroom::Project reader = headroom::Project::open(project.toStdString());
    const headroom::RunRecord run = reader.runs().back();
    QCOMPARE(name(run.status), QString("stopped"));
    QCOMPARE(reader.latestCheckpoint(run.id)->step, run.last_step);
    QCOMPARE(window.liveView()->series().lastStep(), run.last_step);
}

void TestRunWorkflow::closingDuringARunStopsWithACheckpoint() {
    const QString project = newProject("ui-close.headroom", {"train.steps=400"});
    MainWindow window(nullptr, settingsPath());
    int asked = 0;
    window.setStopConfirmation([&asked] {
        ++asked;
        return true;
    });
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QCOMPARE(window.startRun(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.liveView()->series().lastStep() > 0, 60000);
    QVERIFY(!window.close()); // asks, starts stopping, waits for the checkpoint
    QCOMPARE(asked, 1);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 60000);
    QVERIFY(!window.sessionController()->isActive());
    const headroom::Project reader = headroom::Project::open(project.toStdString());
    const headroom::RunRecord run = reader.runs().back();
    QCOMPARE(name(run.status), QString("stopped"));
    QCOMPARE(reader.latestCheckpoint(run.id)->step, run.last_step);
}

void TestRunWorkflow::compareShowsTwoRunsWithDifferencesHighlighted() {
    const QString project = newProject("ui-compare.headroom", {"train.steps=6"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(waitFinished(window));
    QCOMPARE(window.planView()->setValue("train.lr", "0.01"), QString());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(waitFinished(window));
    QCOMPARE(window.runsPanel()->runCount(), 2);

    headroom::ui::CompareView *compare = window.compareView();
    const auto &runs = window.runsPanel()->runs();
    compare->setSelectedRuns({runs.at(0).id, runs.at(1).id});
    QCOMPARE(compare->overlaidCurveCount(), 4); // loss and memory of each run
    QCOMPARE(compare->rowValues("train.lr"), (QStringList{"0.003", "0.01"}));
    QVERIFY(compare->isHighlighted("train.lr"));
    QVERIFY(!compare->isHighlighted("model.dim"));
    QVERIFY(compare->tableKeys().contains("peak memory"));
    QVERIFY(compare->isHighlighted("final loss"));
    QVERIFY(!compare->tableKeys().contains("mean balancing loss")); // dense runs: no routing
    auto *only = compare->findChild<QCheckBox *>("onlyDifferences");
    QVERIFY(only);
    only->setChecked(true);
    QVERIFY(compare->tableKeys().contains("train.lr"));
    QVERIFY(!compare->tableKeys().contains("model.dim"));
}

// Two Mixture-of-Experts runs, the second with a capacity that drops no token: the table
// compares their routing (means over the steps) beside the losses.
void TestRunWorkflow::compareShowsTheRoutingOfExpertRuns() {
    const QString project =
        newProject("ui-compare-moe.headroom",
                   {"train.steps=4", "moe.experts=4", "moe.top_k=2", "moe.capacity_factor=0.5"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(waitFinished(window));
    QCOMPARE(window.planView()->setValue("moe.capacity_factor", "0"), QString());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(waitFinished(window));
    headroom::ui::CompareView *compare = window.compareView();
    const auto &runs = window.runsPanel()->runs();
    compare->setSelectedRuns({runs.at(0).id, runs.at(1).id});
    const QStringList balancing = compare->rowValues("mean balancing loss");
    QCOMPARE(balancing.size(), 2);
    QVERIFY2(balancing[0].toDouble() > 0.5 && balancing[1].toDouble() > 0.5,
             qPrintable(balancing.join(',')));
    QVERIFY(compare->rowValues("mean router z-loss")[0].toDouble() > 0);
    const QStringList dropped = compare->rowValues("mean dropped tokens");
    // Half the even share per expert drops about half the assignments; no limit drops none.
    QVERIFY2(QString(dropped[0]).remove(" %").toDouble() >= 30, qPrintable(dropped.join(',')));
    QCOMPARE(dropped[1], QString("0.0 %"));
    QVERIFY(compare->isHighlighted("mean dropped tokens"));
}

void TestRunWorkflow::aTabularRunShowsItsValidationAndEvaluatesAFile() {
    const QString data = writeFile(QDir(dir_.path()), "plants.csv", tabularCsv(300));
    const QString project = createTestProject(dir_.filePath("ui-tabular.headroom"), data, "tabular",
                                              {"train.epochs=4"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QCOMPARE(window.startRun(), QString());
    QVERIFY(waitFinished(window));
    const auto &runs = window.runsPanel()->runs();
    QCOMPARE(runs.size(), std::size_t{1});
    QVERIFY2(headroom::ui::validationFigures(runs.front()).contains("accuracy"),
             qPrintable(headroom::ui::validationFigures(runs.front())));
    window.compareView()->setSelectedRuns({runs.front().id});
    QVERIFY(window.compareView()->tableKeys().contains("validation"));

    QSignalSpy finished(&window, &MainWindow::evaluationFinished);
    QAction *evaluate = findAction(window, QStringLiteral("Evaluate on a File…"));
    QVERIFY(evaluate && evaluate->isEnabled());
    QCOMPARE(window.evaluateOnFile(data), QString());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().at(1).toString(), QString());
    const QString summary = finished.last().at(0).toString();
    QVERIFY2(summary.contains("300 examples") && summary.contains("accuracy") &&
                 summary.contains("plants.csv"),
             qPrintable(summary));

    const QString other = writeFile(QDir(dir_.path()), "other.csv", "a,b\n1,2\n");
    QCOMPARE(window.evaluateOnFile(other), QString());
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.last().at(1).toString().contains("unknown column"),
             qPrintable(finished.last().at(1).toString()));
}

void TestRunWorkflow::aRunThatCannotContinueShowsItsDiagnosis() {
    // Micro-batch 4 may not shrink and no ladder rung may help: the injected out-of-memory
    // error pauses the run.
    const QString project =
        newProject("ui-oom.headroom", {"recovery.min_micro_batch=4", "recovery.ladder=none"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    qputenv("HEADROOM_FAILPOINT", "oom@step:3");
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    QCOMPARE(window.startRun(), QString());
    const bool done = finished.wait(120000);
    qunsetenv("HEADROOM_FAILPOINT");
    QVERIFY(done);
    const auto result = finished.at(0).at(0).value<headroom::RunResult>();
    QCOMPARE(name(result.state), QString("paused"));
    QCOMPARE(window.tabs()->currentWidget(), window.logView());
    const QString diagnosis = window.logView()->diagnosis();
    QVERIFY2(diagnosis.contains("memory.budget"), qPrintable(diagnosis));
    QCOMPARE(window.liveView()->memoryPlot()->markerCount(), 1); // the out_of_memory event
    QVERIFY(findAction(window, "Continue Last Run")->isEnabled());
}

void TestRunWorkflow::eventLoopStaysResponsiveDuringARun() {
    // A benchmark more than a test: how late a 5 ms timer fires while a GPT of the sample's
    // size trains at full speed. The bound only catches a UI thread that waits on the engine.
    const QString project =
        createTestProject(dir_.filePath("ui-stalls.headroom"), corpus_, "gpt",
                          {"model.layers=4", "model.heads=4", "model.dim=128", "model.seq_len=64",
                           "train.micro_batch=12", "train.steps=40", "train.eval_every=20",
                           "train.checkpoint_every=20"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QVector<qint64> lateness;
    QElapsedTimer clock;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(5);
    qint64 expected = 0;
    connect(&probe, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        lateness << std::max<qint64>(0, now - expected);
        expected = now + 5;
    });
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    QCOMPARE(window.startRun(), QString());
    clock.start();
    expected = 5;
    probe.start();
    QVERIFY(finished.wait(300000));
    probe.stop();
    std::sort(lateness.begin(), lateness.end());
    QVERIFY(lateness.size() > 10);
    const qint64 p99 = lateness.at(int(lateness.size() * 0.99));
    qInfo("event loop lateness over %lld ticks while training: p50 %lld ms, p99 %lld ms, max %lld "
          "ms",
          qint64(lateness.size()), lateness.at(lateness.size() / 2), p99, lateness.last());
    QVERIFY2(p99 < 250, "the UI thread never waits on the engine");
}

void TestRunWorkflow::aRunWrittenByTheCliShowsLive() {
    const QString cli = QStringLiteral(HEADROOM_CLI_PATH);
    if (!QFileInfo::exists(cli)) {
        QSKIP("headroom-cli is not built");
    }
    const QString project = newProject("cli-live.headroom", {"train.steps=400"});
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    window.runWatcher()->setInterval(50);

    QProcess process;
    std::int64_t shown_when_cli_ended = -1;
    connect(&process, &QProcess::finished, this,
            [&] { shown_when_cli_ended = window.liveView()->series().lastStep(); });
    process.start(cli, {"train", project});
    QVERIFY(process.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 120000);
    QCOMPARE(process.exitCode(), 0);
    // Steps arrived while the CLI was writing, not only after it closed the project.
    QVERIFY2(shown_when_cli_ended >= 100, qPrintable(QString::number(shown_when_cli_ended)));
    QTRY_COMPARE_WITH_TIMEOUT(window.liveView()->series().lastStep(), 400, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(window.runsPanel()->runCount(), 1, 10000);
    QCOMPARE(window.liveView()->lossPlot()->trainPointCount(), 400);
    QTRY_VERIFY(findAction(window, "Start Training")->isEnabled());
}

QTEST_MAIN(TestRunWorkflow)
#include "test_run_workflow.moc"
