// The engine bridge: what a real (tiny) training run reports reaches the UI thread in order,
// batched, and run control works mid-run.
#include "runs/SessionController.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/project.h>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace test_support;
using headroom::SessionState;
using headroom::ui::SessionController;

class TestSessionController : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void deliversStepsThenAFinishedState();
    void pauseResumeAndStopMidRun();
    void destroyingTheControllerStopsWithACheckpoint();
    void refusesASecondStartAndReportsBadInput();

private:
    QString newProject(const QString &name, const QStringList &extra = {});

    QTemporaryDir dir_;
    QString corpus_;
};

void TestSessionController::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
}

QString TestSessionController::newProject(const QString &name, const QStringList &extra) {
    return createTestProject(QDir(dir_.path()).filePath(name), corpus_, "gpt", kTinyGpt + extra);
}

namespace {
QVector<qint64> collectSteps(const QSignalSpy &spy) {
    QVector<qint64> steps;
    for (const QList<QVariant> &call : spy) {
        for (const headroom::StepMetrics &metrics :
             call.at(0).value<QVector<headroom::StepMetrics>>()) {
            steps << metrics.step;
        }
    }
    return steps;
}

QStringList collectStates(const QSignalSpy &spy) {
    QStringList states;
    for (const QList<QVariant> &call : spy) {
        states << name(call.at(0).value<SessionState>());
    }
    return states;
}
} // namespace

void TestSessionController::deliversStepsThenAFinishedState() {
    const QString project = newProject("finish.headroom");
    SessionController controller;
    QSignalSpy started(&controller, &SessionController::runStarted);
    QSignalSpy steps(&controller, &SessionController::stepsArrived);
    QSignalSpy evals(&controller, &SessionController::evalsArrived);
    QSignalSpy events(&controller, &SessionController::eventArrived);
    QSignalSpy states(&controller, &SessionController::stateChanged);
    QSignalSpy finished(&controller, &SessionController::finished);

    headroom::SessionRequest request;
    request.project_path = project.toStdString();
    QVERIFY(controller.start(request));
    QVERIFY(controller.isActive());
    QVERIFY(finished.wait(120000));

    QCOMPARE(started.count(), 1);
    const auto info = started.at(0).at(0).value<headroom::RunInfo>();
    QCOMPARE(info.target_steps, 16);
    QVector<qint64> expected;
    for (qint64 step = 1; step <= 16; ++step) {
        expected << step;
    }
    QCOMPARE(collectSteps(steps), expected); // every step once, in order
    QVERIFY(steps.count() <= 16);            // batches, never more signals than steps
    QCOMPARE(evals.count() > 0, true);
    bool checkpoint = false;
    for (const QList<QVariant> &call : events) {
        checkpoint |= call.at(0).value<headroom::EngineEvent>().kind == "checkpoint";
    }
    QVERIFY(checkpoint);
    const QStringList state_names = collectStates(states);
    QVERIFY2(state_names.contains("running"), qPrintable(state_names.join(',')));
    QCOMPARE(state_names.last(), QString("finished"));
    const auto result = finished.at(0).at(0).value<headroom::RunResult>();
    QCOMPARE(name(result.state), QString("finished"));
    QCOMPARE(result.last_step, 16);
    QVERIFY(!controller.isActive());
    QCOMPARE(name(controller.state()), QString("finished"));
}

void TestSessionController::pauseResumeAndStopMidRun() {
    const QString project = newProject("control.headroom", {"train.steps=400"});
    SessionController controller;
    QSignalSpy steps(&controller, &SessionController::stepsArrived);
    QSignalSpy finished(&controller, &SessionController::finished);
    headroom::SessionRequest request;
    request.project_path = project.toStdString();
    QVERIFY(controller.start(request));

    QTRY_VERIFY_WITH_TIMEOUT(!collectSteps(steps).isEmpty(), 60000);
    controller.pause();
    QTRY_COMPARE_WITH_TIMEOUT(name(controller.state()), QString("paused"), 30000);
    // The engine reports Paused after its last step; the bridge delivers steps first.
    const qint64 paused_at = collectSteps(steps).last();
    QVERIFY(paused_at < 400);
    {
        const headroom::Project reader = headroom::Project::open(project.toStdString());
        QCOMPARE(name(reader.runs().back().status), QString("paused"));
    }

    controller.resume();
    QTRY_VERIFY_WITH_TIMEOUT(collectSteps(steps).last() > paused_at, 30000);
    QCOMPARE(name(controller.state()), QString("running"));

    controller.stop();
    QVERIFY(controller.isStopRequested());
    QVERIFY(finished.wait(60000));
    const auto result = finished.at(0).at(0).value<headroom::RunResult>();
    QCOMPARE(name(result.state), QString("stopped"));
    QVERIFY(result.last_step < 400);
    QCOMPARE(collectSteps(steps).last(), result.last_step);
    const headroom::Project reader = headroom::Project::open(project.toStdString());
    const auto checkpoint = reader.latestCheckpoint(result.run_id);
    QVERIFY(checkpoint);
    QCOMPARE(checkpoint->step, result.last_step);
    QCOMPARE(name(reader.runs().back().status), QString("stopped"));
}

void TestSessionController::destroyingTheControllerStopsWithACheckpoint() {
    const QString project = newProject("destroy.headroom", {"train.steps=400"});
    {
        SessionController controller;
        QSignalSpy steps(&controller, &SessionController::stepsArrived);
        headroom::SessionRequest request;
        request.project_path = project.toStdString();
        QVERIFY(controller.start(request));
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() > 0, 60000);
    }
    const headroom::Project reader = headroom::Project::open(project.toStdString());
    const headroom::RunRecord run = reader.runs().back();
    QCOMPARE(name(run.status), QString("stopped"));
    QVERIFY(run.last_step > 0 && run.last_step < 400);
    const auto checkpoint = reader.latestCheckpoint(run.id);
    QVERIFY(checkpoint);
    QCOMPARE(checkpoint->step, run.last_step);
}

void TestSessionController::refusesASecondStartAndReportsBadInput() {
    SessionController controller;
    QSignalSpy finished(&controller, &SessionController::finished);
    headroom::SessionRequest request;
    request.project_path = QDir(dir_.path()).filePath("missing.headroom").toStdString();
    QVERIFY(controller.start(request));
    QVERIFY(!controller.start(request));
    QVERIFY(finished.wait(30000));
    const auto result = finished.at(0).at(0).value<headroom::RunResult>();
    QCOMPARE(name(result.state), QString("failed"));
    QVERIFY(result.failure == headroom::FailureKind::BadInput);
    QVERIFY2(QString::fromStdString(result.message).contains("missing.headroom"),
             result.message.c_str());
    QVERIFY(!controller.isActive());
}

QTEST_MAIN(TestSessionController)
#include "test_session_controller.moc"
