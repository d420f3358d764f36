// A data-parallel run started from the app's side: headroom-cli train --nproc 2 as a child
// process, its end reported, a stop that every rank agrees on, and a missing headroom-cli.
#include "main_window/MainWindow.h"
#include "plots/RankPlot.h"
#include "runs/LocalRanksRun.h"
#include "runs/RunWatcher.h"
#include "views/LiveView.h"

#include <headroom/project.h>

#include <QAction>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::LocalRanksRun;

class TestLocalRanksRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void twoRanksTrainTheProject();
    void stopEndsEveryRankAtOneStep();
    void missingCliIsNamed();
    void theWindowStartsAndFollowsTheRanks();

private:
    QString newProject(const QString &name, int steps);
    QTemporaryDir dir_;
};

void TestLocalRanksRun::initTestCase() {
    QVERIFY(dir_.isValid());
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
}

QString TestLocalRanksRun::newProject(const QString &name, int steps) {
    const QString project = QDir(dir_.path()).filePath(name);
    QProcess process;
    process.start(QStringLiteral(HEADROOM_CLI_PATH),
                  {"new",      project,
                   "--recipe", "gpt",
                   "--data",   QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt"),
                   "--set",    "model.layers=2",
                   "--set",    "model.dim=32",
                   "--set",    "model.heads=2",
                   "--set",    "model.seq_len=32",
                   "--set",    QString("train.steps=%1").arg(steps),
                   "--set",    "train.eval_every=0",
                   "--set",    "train.sample_tokens=0",
                   "--set",    "data.max_examples=300"});
    return process.waitForFinished(120000) && process.exitCode() == 0 ? project : QString();
}

void TestLocalRanksRun::twoRanksTrainTheProject() {
    const QString project = newProject("two.headroom", 4);
    QVERIFY(!project.isEmpty());
    LocalRanksRun run;
    run.setCliPath(QStringLiteral(HEADROOM_CLI_PATH));
    QSignalSpy finished(&run, &LocalRanksRun::finished);
    QCOMPARE(run.start(project, 2, false), QString());
    QVERIFY(run.isRunning());
    QVERIFY(finished.wait(240000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    const headroom::Project opened = headroom::Project::openReadOnly(project.toStdString());
    const auto runs = opened.runs();
    QCOMPARE(runs.size(), std::size_t{1});
    QCOMPARE(runs[0].last_step, std::int64_t{4});
    const auto steps = opened.metrics(runs[0].id);
    QCOMPARE(steps.back().ranks.size(), std::size_t{2});
}

void TestLocalRanksRun::stopEndsEveryRankAtOneStep() {
    const QString project = newProject("stopped.headroom", 100000);
    QVERIFY(!project.isEmpty());
    LocalRanksRun run;
    run.setCliPath(QStringLiteral(HEADROOM_CLI_PATH));
    QSignalSpy finished(&run, &LocalRanksRun::finished);
    QCOMPARE(run.start(project, 2, false), QString());
    // Stop once training has begun (rank 0 has written a step).
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const headroom::Project opened = headroom::Project::openReadOnly(project.toStdString());
            const auto runs = opened.runs();
            return !runs.empty() && !opened.metrics(runs[0].id).empty();
        }(),
        120000);
    run.stop();
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    const headroom::Project opened = headroom::Project::openReadOnly(project.toStdString());
    QVERIFY(opened.runs()[0].status == headroom::RunStatus::Stopped);
}

void TestLocalRanksRun::missingCliIsNamed() {
    LocalRanksRun run;
    run.setCliPath(QDir(dir_.path()).filePath("no-such-cli"));
    const QString error = run.start(QDir(dir_.path()).filePath("p.headroom"), 2, false);
    QVERIFY2(error.contains("no-such-cli"), qPrintable(error));
    QVERIFY(!run.isRunning());
}

void TestLocalRanksRun::theWindowStartsAndFollowsTheRanks() {
    const QString project = newProject("window.headroom", 60);
    QVERIFY(!project.isEmpty());
    qputenv("HEADROOM_CLI", HEADROOM_CLI_PATH);
    headroom::ui::MainWindow window(nullptr, QDir(dir_.path()).filePath("settings.ini"));
    qunsetenv("HEADROOM_CLI");
    window.show();
    QCOMPARE(window.openProject(project), QString());
    window.runWatcher()->setInterval(50);
    QAction *start = nullptr;
    QAction *stop = nullptr;
    for (QAction *action : window.findChildren<QAction *>()) {
        const QString text = action->text().remove(QLatin1Char('&'));
        start = text == "Start on Several Processes…" ? action : start;
        stop = text == "Stop" ? action : stop;
    }
    QVERIFY(start && stop && start->isEnabled());
    QCOMPARE(window.startLocalRanks(2), QString());
    QVERIFY(!start->isEnabled());
    QVERIFY(stop->isEnabled());
    QVERIFY(!window.startRun().isEmpty()); // one run at a time
    // Rank 0's steps, with both ranks' figures, reach the Live view's Ranks plot.
    QTRY_VERIFY_WITH_TIMEOUT(window.liveView()->series().hasRanks(), 120000);
    QVERIFY(window.liveView()->rankPlot()->isVisibleTo(window.liveView()));
    QCOMPARE(window.liveView()->rankPlot()->rankCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), 120000);
    QTRY_COMPARE_WITH_TIMEOUT(window.liveView()->series().lastStep(), 60, 10000);
}

QTEST_MAIN(TestLocalRanksRun)
#include "test_local_ranks_run.moc"
