#include "optim/schedule.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/session.h>
#include <headroom/workflow.h>

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>

using namespace test_support;

class TestTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void scheduleWarmsUpThenDecays();
    void sameSeedGivesSameLosses();
    void resumeContinuesExactly_data();
    void resumeContinuesExactly();
    void stopMidRunCheckpointsAndResumes();
    void pauseWaitsUntilResumed();
    void nanLossStopsTheRunCleanly();
    void badDataMidRunIsBadInput();
    void runIsRecordedInTheProject();
    void tabularClassifierLearns();
    void tabularRegressorReportsRmse();

private:
    QString newProject(const QString &name, const QStringList &settings,
                       const QString &recipe = QStringLiteral("gpt"));
    headroom::RunResult train(const QString &project, Recorder &recorder,
                              const QStringList &overrides = {}, std::int64_t max_steps = 0,
                              bool resume = false);

    QTemporaryDir dir_;
    QString corpus_;
    QString table_;
};

void TestTraining::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(300));
    table_ = test_support::writeFile(QDir(dir_.path()), "table.csv", test_support::tabularCsv(400));
    QVERIFY(!corpus_.isEmpty() && !table_.isEmpty());
}

QString TestTraining::newProject(const QString &name, const QStringList &settings,
                                 const QString &recipe) {
    return createTestProject(QDir(dir_.path()).filePath(name), recipe == "gpt" ? corpus_ : table_,
                             recipe, settings);
}

headroom::RunResult TestTraining::train(const QString &project, Recorder &recorder,
                                        const QStringList &overrides, std::int64_t max_steps,
                                        bool resume) {
    return runSession(project, recorder, overrides, max_steps, resume);
}

void TestTraining::scheduleWarmsUpThenDecays() {
    headroom::train::LearningRateSchedule schedule;
    schedule.peak_lr = 1.0;
    schedule.min_ratio = 0.1;
    schedule.warmup_steps = 10;
    schedule.total_steps = 110;
    QCOMPARE(schedule.at(1), 0.1);
    QCOMPARE(schedule.at(10), 1.0);
    QVERIFY(std::abs(schedule.at(60) - 0.55) < 1e-12); // halfway through the cosine
    QVERIFY(std::abs(schedule.at(110) - 0.1) < 1e-12);
    QVERIFY(schedule.at(30) > schedule.at(31));
}

void TestTraining::sameSeedGivesSameLosses() {
    Recorder first, second, other_seed;
    QCOMPARE(name(train(newProject("seed-a.headroom", kTinyGpt), first).state),
             name(headroom::SessionState::Finished));
    QCOMPARE(name(train(newProject("seed-b.headroom", kTinyGpt), second).state),
             name(headroom::SessionState::Finished));
    QCOMPARE(first.recorded.losses.size(), std::size_t{16});
    QCOMPARE(first.recorded.losses, second.recorded.losses);
    QCOMPARE(first.recorded.digests, second.recorded.digests);
    QVERIFY(first.recorded.losses.back() < first.recorded.losses.front());

    train(newProject("seed-c.headroom", kTinyGpt + QStringList{"train.seed=99"}), other_seed);
    QVERIFY(other_seed.recorded.losses != first.recorded.losses);
    QVERIFY(other_seed.recorded.digests != first.recorded.digests);
}

void TestTraining::resumeContinuesExactly_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<int>("first_part");
    QTest::newRow("at a checkpoint") << kTinyGpt << 8;
    QTest::newRow("between checkpoints") << kTinyGpt << 6;
    QTest::newRow("accumulation 2, no dropout")
        << (kTinyGpt + QStringList{"train.accumulation=2", "model.dropout=0"}) << 5;
}

void TestTraining::resumeContinuesExactly() {
    QFETCH(QStringList, settings);
    QFETCH(int, first_part);
    static int counter = 0;
    ++counter;
    Recorder whole;
    train(newProject(QString("whole-%1.headroom").arg(counter), settings), whole);

    const QString project = newProject(QString("parts-%1.headroom").arg(counter), settings);
    Recorder head, tail;
    const headroom::RunResult stopped = train(project, head, {}, first_part);
    QCOMPARE(name(stopped.state), name(headroom::SessionState::Stopped));
    QCOMPARE(stopped.last_step, first_part);
    const headroom::RunResult resumed = train(project, tail, {}, 0, true);
    QCOMPARE(name(resumed.state), name(headroom::SessionState::Finished));
    QCOMPARE(resumed.last_step, 16);

    Recorded joined = head.recorded;
    joined.losses.insert(joined.losses.end(), tail.recorded.losses.begin(),
                         tail.recorded.losses.end());
    joined.digests.insert(joined.digests.end(), tail.recorded.digests.begin(),
                          tail.recorded.digests.end());
    QCOMPARE(joined.digests, whole.recorded.digests);
    QCOMPARE(joined.losses.size(), whole.recorded.losses.size());
    for (std::size_t i = 0; i < joined.losses.size(); ++i) {
        const double relative = std::abs(joined.losses[i] - whole.recorded.losses[i]) /
                                std::abs(whole.recorded.losses[i]);
        QVERIFY2(relative < 1e-6, qPrintable(QString("step %1: %2 vs %3")
                                                 .arg(i + 1)
                                                 .arg(joined.losses[i], 0, 'g', 10)
                                                 .arg(whole.recorded.losses[i], 0, 'g', 10)));
    }
    QVERIFY(std::find(tail.events.begin(), tail.events.end(), "resumed") != tail.events.end());
}

void TestTraining::stopMidRunCheckpointsAndResumes() {
    const QString project = newProject("stop.headroom", kTinyGpt);
    Recorder recorder;
    recorder.stop_at = 5;
    const headroom::RunResult result = train(project, recorder);
    QCOMPARE(name(result.state), name(headroom::SessionState::Stopped));
    QCOMPARE(result.last_step, 5);

    const headroom::Project opened = headroom::Project::open(project.toStdString());
    const auto run = opened.run(result.run_id);
    QVERIFY(run);
    QCOMPARE(name(run->status), name(headroom::RunStatus::Stopped));
    const auto checkpoint = opened.latestCheckpoint(result.run_id);
    QVERIFY(checkpoint);
    QCOMPARE(checkpoint->step, 5);

    Recorder rest;
    const headroom::RunResult resumed = train(project, rest, {}, 0, true);
    QCOMPARE(name(resumed.state), name(headroom::SessionState::Finished));
    QCOMPARE(rest.recorded.losses.size(), std::size_t{11});
}

void TestTraining::pauseWaitsUntilResumed() {
    const QString project = newProject("pause.headroom", kTinyGpt);
    headroom::SessionRequest request;
    request.project_path = project.toStdString();
    headroom::Session session(request);
    Recorder recorder;
    recorder.session = &session;
    recorder.pause_at = 3;
    session.addObserver(&recorder);
    session.start();
    QTRY_COMPARE_WITH_TIMEOUT(name(session.state()), name(headroom::SessionState::Paused), 60000);
    QCOMPARE(recorder.recorded.losses.size(), std::size_t{3});
    session.resume();
    const headroom::RunResult result = session.wait();
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QCOMPARE(recorder.recorded.losses.size(), std::size_t{16});
}

void TestTraining::nanLossStopsTheRunCleanly() {
    const QString project = newProject("nan.headroom", kTinyGpt);
    qputenv("HEADROOM_FAILPOINT", "nan_loss@step:6");
    Recorder recorder;
    const headroom::RunResult result = train(project, recorder);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Failed));
    QVERIFY(result.failure == headroom::FailureKind::CannotContinue);
    QCOMPARE(result.last_step, 5);
    QVERIFY(QString::fromStdString(result.message).contains("not finite at step 6"));
    QVERIFY(std::find(recorder.events.begin(), recorder.events.end(), "nan_loss") !=
            recorder.events.end());

    const headroom::Project opened = headroom::Project::open(project.toStdString());
    QCOMPARE(name(opened.run(result.run_id)->status), name(headroom::RunStatus::Failed));
    QCOMPARE(opened.latestCheckpoint(result.run_id)->step, 4); // the last good one
    bool recorded = false;
    for (const headroom::EventRecord &event : opened.events(result.run_id)) {
        recorded = recorded || event.event.kind == "nan_loss";
    }
    QVERIFY(recorded);
}

void TestTraining::badDataMidRunIsBadInput() {
    QTemporaryDir own;
    const QString data =
        test_support::writeFile(QDir(own.path()), "bad.txt", test_support::storyText(50));
    headroom::NewProjectRequest request;
    request.project_path = QDir(own.path()).filePath("bad.headroom").toStdString();
    request.recipe = "gpt";
    request.data_path = data.toStdString();
    request.overrides = toStd(kTinyGpt);
    headroom::createProject(request, [](const std::string &) {});
    // The file goes bad after the project was made: invalid UTF-8 on line 3.
    QByteArray broken = test_support::storyText(50);
    broken.insert(broken.indexOf('\n', broken.indexOf('\n') + 1) + 3, "\xff\xfe");
    test_support::writeFile(QDir(own.path()), "bad.txt", broken);

    Recorder recorder;
    const headroom::RunResult result =
        train(QString::fromStdString(request.project_path), recorder);
    QVERIFY2(result.failure == headroom::FailureKind::BadInput, result.message.c_str());
    QVERIFY2(QString::fromStdString(result.message).contains("bad.txt:3"), result.message.c_str());
}

void TestTraining::runIsRecordedInTheProject() {
    const QString project = newProject("record.headroom", kTinyGpt);
    Recorder recorder;
    const headroom::RunResult result = train(project, recorder);
    const headroom::Project opened = headroom::Project::open(project.toStdString());
    const auto run = opened.run(result.run_id);
    QVERIFY(run);
    QCOMPARE(name(run->status), name(headroom::RunStatus::Finished));
    QCOMPARE(run->last_step, 16);
    QVERIFY(run->final_loss.has_value());
    QVERIFY(run->final_val_loss.has_value());
    const std::vector<headroom::StepMetrics> metrics = opened.metrics(result.run_id);
    QCOMPARE(metrics.size(), std::size_t{16});
    QCOMPARE(metrics.back().samples_digest, recorder.recorded.digests.back());
    QCOMPARE(opened.evaluations(result.run_id).size(), std::size_t{2}); // steps 8 and 16
    // Four were written (every 4 steps); the newest three are kept.
    const std::vector<headroom::CheckpointRecord> kept = opened.checkpoints(result.run_id);
    QCOMPARE(kept.size(), std::size_t{3});
    std::vector<std::int64_t> steps;
    for (const headroom::CheckpointRecord &checkpoint : kept) {
        steps.push_back(checkpoint.step);
        QVERIFY(QFile::exists(QDir(QString::fromStdString(opened.dataDirectory()))
                                  .filePath(QString::fromStdString(checkpoint.path))));
    }
    std::sort(steps.begin(), steps.end());
    QCOMPARE(steps, (std::vector<std::int64_t>{8, 12, 16}));
    QVERIFY(!QFile::exists(QDir(QString::fromStdString(opened.dataDirectory()))
                               .filePath(QString("run-%1/step-4.pt").arg(result.run_id))));
}

void TestTraining::tabularClassifierLearns() {
    const QString project = newProject(
        "table.headroom",
        {"data.target=label", "train.micro_batch=32", "train.lr=0.01", "train.steps=120",
         "train.eval_every=0", "train.eval_batches=4", "model.hidden=32,16", "model.dropout=0"},
        "tabular");
    Recorder recorder;
    QCOMPARE(name(runSession(project, recorder).state), name(headroom::SessionState::Finished));
    const double accuracy = recorder.last_eval.accuracy;
    QVERIFY2(accuracy > 0.85, qPrintable(QString::number(accuracy)));
}

void TestTraining::tabularRegressorReportsRmse() {
    // Predict y from the other columns: x and the label carry part of it.
    const QString project = newProject("regress.headroom",
                                       {"data.target=y", "train.micro_batch=32", "train.lr=0.01",
                                        "train.steps=60", "train.eval_every=0", "model.dropout=0"},
                                       "tabular");
    Recorder recorder;
    QCOMPARE(name(runSession(project, recorder).state), name(headroom::SessionState::Finished));
    QVERIFY(std::isnan(recorder.last_eval.accuracy));
    // y spans -4..4 (standard deviation about 2.3); knowing the label and x helps a lot.
    const double rmse = recorder.last_eval.rmse;
    QVERIFY2(rmse > 0 && rmse < 2.0, qPrintable(QString::number(rmse)));
    const headroom::Project opened = headroom::Project::open(project.toStdString());
    QVERIFY(QString::fromStdString(opened.runs().back().summary_json).contains("val_rmse"));
}

QTEST_GUILESS_MAIN(TestTraining)
#include "test_training.moc"
