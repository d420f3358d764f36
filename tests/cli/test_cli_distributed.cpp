#include "cli_support.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

// Data-parallel training through the binary, over 127.0.0.1: train --nproc 2 against one
// process (with and without a sharded optimizer state, the gradient exchange overlapped with
// backward or after it), a bad torchrun environment, a rank that dies mid-run, a stop asked
// of one rank, and resuming with another number of ranks.
//
// Tolerance: two ranks sum their fp32 partial gradients (each weighted by its share of the
// step) where one process accumulates them micro-batch by micro-batch, so the weights differ
// in the last bits from the first update on. Over these few steps the losses agree to about
// 2e-7 relative (measured); 1e-5 relative leaves room for other CPUs' kernels.
class TestCliDistributed : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void twoRanksTrainLikeOne_data();
    void twoRanksTrainLikeOne();
    void badEnvironmentIsNamed_data();
    void badEnvironmentIsNamed();
    void missingProjectIsRefusedBeforeTheRanks();
    void killedRankEndsTheOther();
    void overlapChangesNoLoss_data();
    void overlapChangesNoLoss();
    void loraAdaptersTrainLikeOne();
    void outOfMemoryOnOneRankHalvesEveryRank_data();
    void outOfMemoryOnOneRankHalvesEveryRank();
    void shardedStateIsAboutHalf();
    void exhaustedRankPausesEveryRank();
    void stopOnOneRankStopsBothAndResumesOnOne_data();
    void stopOnOneRankStopsBothAndResumesOnOne();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString newProject(const QString &name, const QStringList &settings);

    QTemporaryDir dir_;
};

namespace {

constexpr double kRelativeLossTolerance = 1e-5;

const QStringList kTinyGpt = {"--set", "model.layers=2",        "--set", "model.heads=2",
                              "--set", "model.dim=32",          "--set", "model.seq_len=32",
                              "--set", "model.dropout=0.1",     "--set", "train.steps=6",
                              "--set", "train.lr=0.003",        "--set", "train.warmup_steps=0",
                              "--set", "train.eval_every=0",    "--set", "train.eval_batches=1",
                              "--set", "train.sample_tokens=0", "--set", "data.max_examples=300"};

test_support::CliResult runWithEnvironment(const QStringList &arguments,
                                           const QMap<QString, QString> &variables) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (auto it = variables.begin(); it != variables.end(); ++it) {
        environment.insert(it.key(), it.value());
    }
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(HEADROOM_CLI_PATH), arguments);
    if (!process.waitForFinished(300000)) {
        process.kill();
        return {};
    }
    test_support::CliResult result;
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

QList<QJsonObject> stepLines(const QByteArray &out) {
    QList<QJsonObject> steps;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object.value("type").toString() == "step") {
            steps.push_back(object);
        }
    }
    return steps;
}

// Empty when `actual` has one line per step of `expected` with the same loss (within the
// tolerance) and the same samples; else the first difference.
QString differenceInSteps(const QList<QJsonObject> &expected, const QList<QJsonObject> &actual) {
    if (actual.size() != expected.size()) {
        return QString("%1 steps, expected %2").arg(actual.size()).arg(expected.size());
    }
    for (int i = 0; i < expected.size(); ++i) {
        const double a = expected[i].value("loss").toDouble();
        const double b = actual[i].value("loss").toDouble();
        if (std::abs(a - b) > kRelativeLossTolerance * std::abs(a)) {
            return QString("step %1: loss %2, expected %3").arg(i + 1).arg(b).arg(a);
        }
        if (actual[i].value("samples_digest") != expected[i].value("samples_digest")) {
            return QString("step %1: other samples").arg(i + 1);
        }
    }
    return {};
}

QJsonArray runsOf(const QString &project) {
    const auto runs = test_support::runCli({"runs", project, "--json"});
    return QJsonDocument::fromJson(runs.out).array();
}

} // namespace

void TestCliDistributed::initTestCase() {
    QVERIFY(dir_.isValid());
}

QString TestCliDistributed::newProject(const QString &name, const QStringList &settings) {
    const QString project = path(name);
    const auto created = test_support::runCli(
        QStringList{"new", project, "--recipe", "gpt", "--data",
                    QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt")} +
        kTinyGpt + settings);
    return created.exit_code == 0 ? project : QString();
}

void TestCliDistributed::twoRanksTrainLikeOne_data() {
    QTest::addColumn<QStringList>("settings");
    // 5 examples: rank 0 trains 3, rank 1 trains 2; the weights must make it one step of 5.
    QTest::newRow("uneven shares") << QStringList{"--set", "train.micro_batch=5"};
    // 6 examples in micro-batches of 2: each rank cuts its 3 into 2 + 1, unlike one process.
    QTest::newRow("accumulation") << QStringList{"--set", "train.micro_batch=2", "--set",
                                                 "train.accumulation=3"};
    // ZeRO-1: each rank updates its half of the parameters and broadcasts them.
    QTest::newRow("sharded AdamW")
        << QStringList{"--set", "train.micro_batch=3", "--set", "distributed.shard_optimizer=1"};
    QTest::newRow("sharded 8-bit AdamW")
        << QStringList{"--set", "train.micro_batch=3", "--set", "distributed.shard_optimizer=1",
                       "--set", "optimizer=adamw8bit"};
    // 1 KiB buckets: most go out during the last micro-batch's backward (the default 4 MiB
    // holds this whole model in one bucket, complete only at the end of backward).
    QTest::newRow("overlapped buckets, accumulation")
        << QStringList{"--set", "train.micro_batch=2",     "--set", "train.accumulation=3",
                       "--set", "distributed.bucket_kib=1"};
    // Checkpointed blocks back-propagate inside their own backward: hooks fire there.
    QTest::newRow("overlapped buckets, checkpointing")
        << QStringList{"--set", "train.micro_batch=3",     "--set", "checkpointing=1",
                       "--set", "distributed.bucket_kib=1"};
    QTest::newRow("overlapped buckets, sharded")
        << QStringList{"--set", "train.micro_batch=3",     "--set", "distributed.shard_optimizer=1",
                       "--set", "distributed.bucket_kib=1"};
}

void TestCliDistributed::twoRanksTrainLikeOne() {
    QFETCH(QStringList, settings);
    const QString single = newProject(QString(QTest::currentDataTag()) + "-1.headroom", settings);
    const QString pair = newProject(QString(QTest::currentDataTag()) + "-2.headroom", settings);
    QVERIFY(!single.isEmpty() && !pair.isEmpty());

    const auto one = test_support::runCli({"train", single, "--json"});
    QVERIFY2(one.exit_code == 0, qPrintable(one.err));
    const auto two = test_support::runCli({"train", pair, "--json", "--nproc", "2"});
#if HEADROOM_GLOO_BUILT
    QVERIFY2(two.exit_code == 0, qPrintable(two.err));
    // distributed.backend=auto on the CPU is Gloo.
    QVERIFY2(two.err.contains("joining the rendezvous at 127.0.0.1:") &&
                 two.err.contains(" (gloo, cpu)"),
             qPrintable(two.err));
#else
    QCOMPARE(two.exit_code, 2);
    QVERIFY2(two.err.contains("no Gloo backend"), qPrintable(two.err));
    QSKIP("this build has no Gloo backend: the refusal is what it can show");
#endif

    // Only rank 0's lines come out, once per step.
    const QList<QJsonObject> expected = stepLines(one.out);
    const QList<QJsonObject> actual = stepLines(two.out);
    QCOMPARE(actual.size(), 6);
    const QString difference = differenceInSteps(expected, actual);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    for (int i = 0; i < expected.size(); ++i) {
        // Each rank's peak memory and the throughput of its share, on rank 0's line.
        QVERIFY(!expected[i].contains("ranks"));
        const QJsonArray ranks = actual[i].value("ranks").toArray();
        QCOMPARE(ranks.size(), 2);
        for (int rank = 0; rank < 2; ++rank) {
            const QJsonObject figures = ranks[rank].toObject();
            QCOMPARE(figures.value("rank").toInt(), rank);
            QVERIFY(figures.value("mem_peak").toDouble() > 0);
            QVERIFY(figures.value("samples_per_s").toDouble() > 0);
        }
    }
    QVERIFY2(two.err.contains("[rank 1]"), qPrintable(two.err));

    // One run in the project, written by rank 0 alone.
    const QJsonArray runs = runsOf(pair);
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].toObject().value("status").toString(), QString("finished"));
    QCOMPARE(runs[0].toObject().value("last_step").toInt(), 6);
}

void TestCliDistributed::badEnvironmentIsNamed_data() {
    QTest::addColumn<QStringList>("assignments"); // NAME=VALUE
    QTest::addColumn<QStringList>("arguments");   // after train PROJECT
    QTest::addColumn<QString>("named");
    QTest::newRow("rank not a number")
        << QStringList{"WORLD_SIZE=2", "RANK=one", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=29511"}
        << QStringList{} << "RANK='one'";
    QTest::newRow("no master port")
        << QStringList{"WORLD_SIZE=2", "RANK=1", "MASTER_ADDR=127.0.0.1"} << QStringList{}
        << "MASTER_PORT is not set";
    QTest::newRow("--nproc under a launcher")
        << QStringList{"WORLD_SIZE=2", "RANK=0"} << QStringList{"--nproc", "2"}
        << "RANK is already set";
#if !HEADROOM_NCCL_BUILT
    QTest::newRow("nccl in a build without it")
        << QStringList{} << QStringList{"--nproc", "2", "--set", "distributed.backend=nccl"}
        << "this build of LibTorch has no NCCL backend; use distributed.backend=gloo";
#else
    QTest::newRow("nccl on the cpu")
        << QStringList{}
        << QStringList{"--nproc", "2", "--set", "device=cpu", "--set", "distributed.backend=nccl"}
        << "distributed.backend=nccl exchanges GPU tensors";
#endif
}

void TestCliDistributed::badEnvironmentIsNamed() {
    QFETCH(QStringList, assignments);
    QFETCH(QStringList, arguments);
    QFETCH(QString, named);
    const QString project = newProject(QString(QTest::currentDataTag()) + ".headroom", {});
    QVERIFY(!project.isEmpty());
    QMap<QString, QString> variables;
    for (const QString &assignment : assignments) {
        variables.insert(assignment.section('=', 0, 0), assignment.section('=', 1));
    }
    const auto result = runWithEnvironment(QStringList{"train", project} + arguments, variables);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(named), qPrintable(result.err));
    QCOMPARE(runsOf(project).size(), 0);
}

void TestCliDistributed::missingProjectIsRefusedBeforeTheRanks() {
    const auto result = test_support::runCli({"train", path("missing.headroom"), "--nproc", "2"});
    QCOMPARE(result.exit_code, 2);
    QCOMPARE(result.err.count("does not exist"), 1);
    QVERIFY2(!result.err.contains("[rank"), qPrintable(result.err));
}

void TestCliDistributed::killedRankEndsTheOther() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    const QString project = newProject("killed.headroom", {"--set", "train.micro_batch=4"});
    QVERIFY(!project.isEmpty());
    constexpr int kTimeoutSeconds = 20;
    QElapsedTimer elapsed;
    elapsed.start();
    const auto result =
        runWithEnvironment({"train", project, "--nproc", "2", "--set",
                            QString("distributed.timeout_s=%1").arg(kTimeoutSeconds)},
                           {{"HEADROOM_FAILPOINT", "kill@step:3@rank:1"}});
    QVERIFY2(elapsed.elapsed() < kTimeoutSeconds * 1000, qPrintable(result.err));
    QCOMPARE(result.exit_code, 3);
    QVERIFY2(result.err.contains("rank 1 was killed by signal 9"), qPrintable(result.err));
    // Rank 0's own diagnosis names the rank it waited for.
    QVERIFY2(result.err.contains("rank 0: the gradient exchange of step 3 failed: rank 1 did "
                                 "not reach it"),
             qPrintable(result.err));
    const QJsonArray runs = runsOf(project);
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].toObject().value("status").toString(), QString("failed"));
    QCOMPARE(runs[0].toObject().value("last_step").toInt(), 2);
}

void TestCliDistributed::overlapChangesNoLoss_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::newRow("accumulation") << QStringList{"--set", "train.micro_batch=2", "--set",
                                                 "train.accumulation=3"};
    QTest::newRow("checkpointing")
        << QStringList{"--set", "train.micro_batch=3", "--set", "checkpointing=1"};
}

void TestCliDistributed::overlapChangesNoLoss() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    // Two ranks sum the same two partial gradients whenever the buckets go out: the losses
    // of distributed.overlap=0 and =1 are the same numbers, not merely close.
    QFETCH(QStringList, settings);
    const QString tag = QTest::currentDataTag();
    const QString after = newProject("after-" + tag + ".headroom",
                                     settings + QStringList{"--set", "distributed.overlap=0"});
    const QString during = newProject("during-" + tag + ".headroom",
                                      settings + QStringList{"--set", "distributed.bucket_kib=1"});
    QVERIFY(!after.isEmpty() && !during.isEmpty());
    const auto a = test_support::runCli({"train", after, "--json", "--nproc", "2"});
    const auto b = test_support::runCli({"train", during, "--json", "--nproc", "2"});
    QVERIFY2(a.exit_code == 0 && b.exit_code == 0, qPrintable(a.err + b.err));
    const QList<QJsonObject> expected = stepLines(a.out);
    const QList<QJsonObject> actual = stepLines(b.out);
    QCOMPARE(actual.size(), 6);
    QCOMPARE(expected.size(), 6);
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(actual[i].value("loss").toDouble(), expected[i].value("loss").toDouble());
        QCOMPARE(actual[i].value("samples_digest"), expected[i].value("samples_digest"));
    }
}

void TestCliDistributed::loraAdaptersTrainLikeOne() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    // LoRA on run 1's checkpoint: the frozen base has no gradients and no buckets; the
    // adapters' buckets go out during backward. Runs 2 (one process) and 3 (two ranks) train
    // the same adapters from the same base.
    const QString project = newProject("lora.headroom", {"--set", "train.micro_batch=4"});
    QVERIFY(!project.isEmpty());
    const auto base = test_support::runCli({"train", project, "--steps", "2"});
    QVERIFY2(base.exit_code == 0, qPrintable(base.err));
    const QStringList lora = {"--set",           "lora.rank=2", "--set",
                              "lora.base_run=1", "--set",       "distributed.bucket_kib=1",
                              "--json"};
    const auto one = test_support::runCli(QStringList{"train", project} + lora);
    const auto two = test_support::runCli(QStringList{"train", project, "--nproc", "2"} + lora);
    QVERIFY2(one.exit_code == 0 && two.exit_code == 0, qPrintable(one.err + two.err));
    const QString difference = differenceInSteps(stepLines(one.out), stepLines(two.out));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    QCOMPARE(stepLines(two.out).size(), 6);
}

void TestCliDistributed::outOfMemoryOnOneRankHalvesEveryRank_data() {
    QTest::addColumn<QString>("failpoint");
    QTest::addColumn<QStringList>("exchange");
    // At the step's first activation, before any bucket went out.
    QTest::newRow("in forward") << "oom@step:2@rank:1" << QStringList{};
    QTest::newRow("in forward, exchange after backward")
        << "oom@step:2@rank:1" << QStringList{"--set", "distributed.overlap=0"};
    // Right after rank 1's first bucket went out: it keeps that bucket's sum and replays
    // the rest, while rank 0 has sent every bucket and waits for them.
    QTest::newRow("after the first bucket went out")
        << "oom_backward@step:2@rank:1" << QStringList{"--set", "distributed.bucket_kib=1"};
}

void TestCliDistributed::outOfMemoryOnOneRankHalvesEveryRank() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    QFETCH(QString, failpoint);
    QFETCH(QStringList, exchange);
    // Each rank trains 4 of the step's 8 examples in one micro-batch of 4; rank 1 runs out of
    // memory at step 2, halves and replays its share; from step 3 both ranks run micro-batch 2.
    const QStringList settings = {"--set", "train.micro_batch=4", "--set", "train.accumulation=2"};
    const QString tag = QString(QTest::currentDataTag()).replace(' ', '-').remove(',');
    const QString single = newProject("oom-1-" + tag + ".headroom", settings);
    const QString pair = newProject("oom-2-" + tag + ".headroom", settings + exchange);
    QVERIFY(!single.isEmpty() && !pair.isEmpty());
    const auto one = test_support::runCli({"train", single, "--json"});
    const auto two = runWithEnvironment({"train", pair, "--json", "--nproc", "2"},
                                        {{"HEADROOM_FAILPOINT", failpoint}});
    QVERIFY2(one.exit_code == 0 && two.exit_code == 0, qPrintable(one.err + two.err));
    const QList<QJsonObject> expected = stepLines(one.out);
    const QList<QJsonObject> actual = stepLines(two.out);
    const QString difference = differenceInSteps(expected, actual);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    for (int i = 0; i < expected.size(); ++i) {
        // The step that recovered reports the shape it ends with, as in one process.
        QCOMPARE(actual[i].value("micro_batch").toInt(), i < 1 ? 4 : 2);
    }
    QVERIFY2(two.out.contains("out of memory on rank 1 at step 2: micro-batch 4 -> 2 on every "
                              "rank from step 3"),
             two.out.constData());
    const QJsonArray runs = runsOf(pair);
    QCOMPARE(runs[0].toObject().value("oom_recoveries").toInt(), 1);
}

namespace {

std::uint64_t optimizerBytes(const QJsonArray &runs) {
    const QJsonObject breakdown =
        runs.last().toObject().value("summary").toObject().value("memory_breakdown").toObject();
    return static_cast<std::uint64_t>(breakdown.value("optimizer").toDouble());
}

} // namespace

void TestCliDistributed::shardedStateIsAboutHalf() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    // Rank 0's measured optimizer state with and without sharding, 2 ranks each.
    const QStringList settings = {"--set", "train.micro_batch=4", "--set", "train.steps=2"};
    const QString whole = newProject("state-whole.headroom", settings);
    const QString sharded = newProject(
        "state-sharded.headroom", settings + QStringList{"--set", "distributed.shard_optimizer=1"});
    QVERIFY(!whole.isEmpty() && !sharded.isEmpty());
    const auto a = test_support::runCli({"train", whole, "--nproc", "2"});
    const auto b = test_support::runCli({"train", sharded, "--nproc", "2"});
    QVERIFY2(a.exit_code == 0 && b.exit_code == 0, qPrintable(a.err + b.err));
    const std::uint64_t full = optimizerBytes(runsOf(whole));
    const std::uint64_t half = optimizerBytes(runsOf(sharded));
    QVERIFY2(full > 0, "no measured optimizer state");
    // Whole parameters per rank: the split is as even as the parameters' sizes allow.
    const double ratio = static_cast<double>(half) / static_cast<double>(full);
    QVERIFY2(ratio > 0.35 && ratio < 0.65,
             qPrintable(QString("sharded %1 of %2 bytes").arg(half).arg(full)));
    // The estimate for 2 ranks knows the share.
    const auto estimate =
        test_support::runCli({"estimate", sharded, "--set", "distributed.ranks=2", "--json"});
    QVERIFY2(estimate.exit_code == 0, qPrintable(estimate.err));
    const double estimated = QJsonDocument::fromJson(estimate.out)
                                 .object()
                                 .value("estimate")
                                 .toObject()
                                 .value("breakdown")
                                 .toObject()
                                 .value("optimizer")
                                 .toDouble();
    qInfo("optimizer state of rank 0: %llu bytes measured, %.0f estimated (unsharded %llu)",
          static_cast<unsigned long long>(half), estimated, static_cast<unsigned long long>(full));
    QVERIFY2(std::abs(estimated - static_cast<double>(half)) <= 0.15 * static_cast<double>(half),
             qPrintable(QString("estimated %1, measured %2").arg(estimated).arg(half)));
}

void TestCliDistributed::stopOnOneRankStopsBothAndResumesOnOne_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<QStringList>("first_ranks");  // extra arguments of the stopped train
    QTest::addColumn<QStringList>("resume_ranks"); // and of the resumed one
    QTest::addColumn<int>("stopped_at");
    const QStringList sharded = {"--set", "distributed.shard_optimizer=1"};
    const QStringList two = {"--nproc", "2"};
    // Two ranks finish the step the stop was asked in; one process abandons it.
    QTest::newRow("whole state, 2 -> 1") << QStringList{} << two << QStringList{} << 3;
    QTest::newRow("sharded state, 2 -> 1") << sharded << two << QStringList{} << 3;
    QTest::newRow("sharded state, 2 -> 2") << sharded << two << two << 3;
    QTest::newRow("whole state, 1 -> sharded 2") << sharded << QStringList{} << two << 2;
}

void TestCliDistributed::stopOnOneRankStopsBothAndResumesOnOne() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    QFETCH(QStringList, settings);
    QFETCH(QStringList, first_ranks);
    QFETCH(QStringList, resume_ranks);
    QFETCH(int, stopped_at);
    const QStringList shape = {"--set", "train.micro_batch=2", "--set", "train.accumulation=2"};
    const QString tag = QString(QTest::currentDataTag()).replace(' ', '-').remove(',');
    const QString single = newProject(tag + "-single.headroom", shape);
    const QString pair = newProject(tag + "-pair.headroom", shape + settings);
    QVERIFY(!single.isEmpty() && !pair.isEmpty());
    const auto one = test_support::runCli({"train", single, "--json"});
    QVERIFY2(one.exit_code == 0, qPrintable(one.err));

    // The last rank is asked to stop at the start of step 3.
    const QString rank = first_ranks.isEmpty() ? "0" : "1";
    const auto stopped = runWithEnvironment(QStringList{"train", pair, "--json"} + first_ranks,
                                            {{"HEADROOM_FAILPOINT", "stop@step:3@rank:" + rank}});
    QVERIFY2(stopped.exit_code == 0, qPrintable(stopped.err));
    QCOMPARE(stepLines(stopped.out).size(), stopped_at);
    QJsonArray runs = runsOf(pair);
    QCOMPARE(runs[0].toObject().value("status").toString(), QString("stopped"));
    QCOMPARE(runs[0].toObject().value("last_step").toInt(), stopped_at);

    const auto resumed =
        test_support::runCli(QStringList{"train", pair, "--resume", "--json"} + resume_ranks);
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    const QString difference =
        differenceInSteps(stepLines(one.out), stepLines(stopped.out) + stepLines(resumed.out));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    runs = runsOf(pair);
    QCOMPARE(runs.last().toObject().value("status").toString(), QString("finished"));
}

void TestCliDistributed::exhaustedRankPausesEveryRank() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#endif
    // Nothing left to try on rank 1 at step 2 (no smaller micro-batch, no ladder): both ranks
    // drop step 2, write the checkpoint of its start and pause with rank 1's diagnosis.
    const QStringList settings = {
        "--set", "train.micro_batch=4",  "--set", "recovery.min_micro_batch=4",
        "--set", "recovery.ladder=none", "--set", "distributed.shard_optimizer=1"};
    const QString single = newProject("exhausted-1.headroom", settings);
    const QString pair = newProject("exhausted-2.headroom", settings);
    QVERIFY(!single.isEmpty() && !pair.isEmpty());
    const auto one = test_support::runCli({"train", single, "--json"});
    QVERIFY2(one.exit_code == 0, qPrintable(one.err));
    QElapsedTimer elapsed;
    elapsed.start();
    const auto paused = runWithEnvironment({"train", pair, "--json", "--nproc", "2"},
                                           {{"HEADROOM_FAILPOINT", "oom@step:2@rank:1"}});
    QVERIFY2(elapsed.elapsed() < 60000, "the ranks waited for a timeout");
    QCOMPARE(paused.exit_code, 3);
    QVERIFY2(paused.err.contains("rank 1: out of memory at step 2"), qPrintable(paused.err));
    QJsonArray runs = runsOf(pair);
    QCOMPARE(runs[0].toObject().value("status").toString(), QString("paused"));
    QCOMPARE(runs[0].toObject().value("last_step").toInt(), 1);

    const auto resumed =
        test_support::runCli({"train", pair, "--resume", "--json", "--nproc", "2"});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    const QString difference =
        differenceInSteps(stepLines(one.out), stepLines(paused.out) + stepLines(resumed.out));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

QTEST_GUILESS_MAIN(TestCliDistributed)
#include "test_cli_distributed.moc"
