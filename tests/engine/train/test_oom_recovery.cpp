#include "compat/cpu_gemm.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/devices.h>
#include <headroom/project.h>
#include <headroom/speed_calibration.h>

#include <torch/torch.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace test_support;

namespace {
// Dropout off: after a recovery the micro-batches are cut differently, and only then do the
// losses of a recovered and an uninterrupted run agree to rounding.
const QStringList kRecoverable = {
    "model.layers=2",        "model.heads=2",        "model.dim=32",
    "model.seq_len=16",      "model.dropout=0",      "train.micro_batch=32",
    "train.lr=0.003",        "train.warmup_steps=2", "train.steps=8",
    "train.eval_every=4",    "train.eval_batches=2", "train.checkpoint_every=4",
    "data.shuffle_buffer=64"};

void expectSameRun(const Recorded &expected, const Recorded &actual) {
    QCOMPARE(actual.digests, expected.digests);
    QCOMPARE(actual.losses.size(), expected.losses.size());
    for (std::size_t i = 0; i < actual.losses.size(); ++i) {
        const double relative =
            std::abs(actual.losses[i] - expected.losses[i]) / std::abs(expected.losses[i]);
        QVERIFY2(relative < 1e-4, qPrintable(QString("step %1: %2 vs %3")
                                                 .arg(i + 1)
                                                 .arg(actual.losses[i], 0, 'g', 10)
                                                 .arg(expected.losses[i], 0, 'g', 10)));
    }
}
} // namespace

class TestOomRecovery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void classifiesOutOfMemory_data();
    void classifiesOutOfMemory();
    void budgetAllocatorCountsAndRefuses();
    void tightBudgetRecoversToALargerFittingBatch();
    void injectedOomsRecoverAtAnyStep_data();
    void injectedOomsRecoverAtAnyStep();
    void recoveryIsExactWithDropout_data();
    void recoveryIsExactWithDropout();
    void evaluationOomLeavesTheTrainingBatchAlone();
    void deviceFallbackGoesOnOnTheCpu_data();
    void deviceFallbackGoesOnOnTheCpu();
    void impossibleBudgetPausesWithADiagnosis_data();
    void impossibleBudgetPausesWithADiagnosis();
    void ladderSwitchesOnCheckpointingAtMicroBatchOne();
    void exhaustedLadderPausesAndSaysWhatItTried();
    void ladderSkipsAPrecisionCalibratedSlower();
    void otherErrorsAreNotRetried();
    void breakdownPartsSumToThePeak();
    void growingMemoryIsReportedOnce();

private:
    QString project(const QString &name, const QStringList &extra = {});
    std::uint64_t stepPeak(const QStringList &settings);

    QTemporaryDir dir_;
    QString corpus_;
    Recorder baseline_;
};

void TestOomRecovery::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = test_support::writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
    QCOMPARE(name(runSession(project("baseline.headroom"), baseline_).state),
             name(headroom::SessionState::Finished));
    QVERIFY(!hasEvent(baseline_, "oom_recovered"));
}

QString TestOomRecovery::project(const QString &file, const QStringList &extra) {
    return createTestProject(QDir(dir_.path()).filePath(file), corpus_, "gpt",
                             kRecoverable + extra);
}

void TestOomRecovery::classifiesOutOfMemory_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("oom");
    QTest::newRow("c10::OutOfMemoryError") << 0 << true;
    QTest::newRow("MPS message") << 1 << true;
    QTest::newRow("default CPU allocator message") << 2 << true;
    QTest::newRow("std::bad_alloc") << 3 << true;
    QTest::newRow("shape error") << 4 << false;
    QTest::newRow("std::runtime_error") << 5 << false;
}

void TestOomRecovery::classifiesOutOfMemory() {
    QFETCH(int, kind);
    QFETCH(bool, oom);
    try {
        switch (kind) {
        case 0:
            TORCH_CHECK_WITH(OutOfMemoryError, false,
                             "CUDA out of memory. Tried to allocate 2 GiB");
            break;
        case 1:
            TORCH_CHECK(false, "MPS backend out of memory (MPS allocated: 8 GB)");
            break;
        case 2:
            TORCH_CHECK(false, "[enforce fail] DefaultCPUAllocator: can't allocate memory");
            break;
        case 3:
            throw std::bad_alloc();
        case 4:
            TORCH_CHECK(false, "mat1 and mat2 shapes cannot be multiplied");
            break;
        default:
            throw std::runtime_error("out of memory"); // plain text is not evidence
        }
    } catch (const std::exception &error) {
        QCOMPARE(headroom::memory::isOutOfMemory(error), oom);
        return;
    }
    QFAIL("nothing was thrown");
}

void TestOomRecovery::budgetAllocatorCountsAndRefuses() {
    using namespace headroom::memory;
    installCountingCpuAllocator();
    const std::uint64_t before = cpuMemoryStats().live;
    {
        torch::Tensor block = torch::empty({1 << 20}, torch::kUInt8); // 1 MiB
        QCOMPARE(cpuMemoryStats().live, before + (1u << 20));
        resetCpuPeak();
        setCpuBudget(before + (3u << 20));
        torch::Tensor second = torch::empty({1 << 20}, torch::kUInt8);
        QVERIFY_THROWS_EXCEPTION(c10::OutOfMemoryError,
                                 torch::empty({2 << 20}, torch::kUInt8)); // would be 4 MiB
        QCOMPARE(cpuMemoryStats().live, before + (2u << 20));
        QCOMPARE(cpuMemoryStats().peak, before + (2u << 20));
        QVERIFY(cpuMemoryStats().refusals >= 1);
    }
    setCpuBudget(0);
    QCOMPARE(cpuMemoryStats().live, before);
    torch::Tensor big = torch::empty({8 << 20}, torch::kUInt8); // fine without a budget
    QCOMPARE(big.numel(), std::int64_t{8 << 20});
}

std::uint64_t TestOomRecovery::stepPeak(const QStringList &settings) {
    static int counter = 0;
    Recorder recorder;
    struct Peak final : headroom::SessionObserver {
        void onStep(const headroom::StepMetrics &m) override { peak = std::max(peak, m.mem_peak); }
        std::uint64_t peak = 0;
    } peak;
    headroom::SessionRequest request;
    request.project_path =
        project(QString("peak-%1.headroom").arg(++counter), settings).toStdString();
    request.max_steps = 2;
    headroom::Session session(request);
    session.addObserver(&peak);
    session.start();
    session.wait();
    return peak.peak;
}

void TestOomRecovery::tightBudgetRecoversToALargerFittingBatch() {
    // Measure what micro-batch 8 needs, then give a budget that holds 8 but not 16 or 32.
    const std::uint64_t peak8 = stepPeak({"train.micro_batch=8", "train.accumulation=4"});
    const std::uint64_t peak16 = stepPeak({"train.micro_batch=16", "train.accumulation=2"});
    QVERIFY2(peak16 > peak8, "a larger micro-batch must need more memory");
    const std::uint64_t budget = peak8 + (peak16 - peak8) / 4;

    Recorder recovered;
    const headroom::RunResult result =
        runSession(project("tight.headroom"), recovered, {QString("memory.budget=%1").arg(budget)});
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recovered, "oom_recovered"));
    QCOMPARE(recovered.micro_batches.front(), 8); // 32 -> 16 -> 8, within the first step
    QCOMPARE(recovered.accumulations.front(), 4); // effective batch 32 kept
    expectSameRun(baseline_.recorded, recovered.recorded);

    const headroom::Project opened =
        headroom::Project::open(QDir(dir_.path()).filePath("tight.headroom").toStdString());
    QCOMPARE(opened.run(result.run_id)->oom_recoveries, 2);
    int recorded_events = 0;
    for (const headroom::EventRecord &event : opened.events(result.run_id)) {
        recorded_events += event.event.kind == "oom_recovered" ? 1 : 0;
        if (event.event.kind == "oom_recovered") {
            QCOMPARE(event.event.step, 1);
            QVERIFY(QString::fromStdString(event.event.details).contains("bytes_at_failure"));
        }
    }
    QCOMPARE(recorded_events, 2);
}

void TestOomRecovery::injectedOomsRecoverAtAnyStep_data() {
    QTest::addColumn<QByteArray>("failpoints");
    QTest::addColumn<int>("recoveries");
    QTest::newRow("step 1") << QByteArray("oom@step:1") << 1;
    QTest::newRow("steps 3 and 7") << QByteArray("oom@step:3,oom@step:7") << 2;
    QTest::newRow("at a checkpoint step") << QByteArray("oom@step:4") << 1;
    QTest::newRow("last step") << QByteArray("oom@step:8") << 1;
}

void TestOomRecovery::injectedOomsRecoverAtAnyStep() {
    QFETCH(QByteArray, failpoints);
    QFETCH(int, recoveries);
    static int counter = 0;
    qputenv("HEADROOM_FAILPOINT", failpoints);
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project(QString("inject-%1.headroom").arg(++counter)), recorder);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QCOMPARE(static_cast<int>(std::count(recorder.events.begin(), recorder.events.end(),
                                         std::string("oom_recovered"))),
             recoveries);
    expectSameRun(baseline_.recorded, recorder.recorded);
}

void TestOomRecovery::recoveryIsExactWithDropout_data() {
    QTest::addColumn<QByteArray>("failpoints");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<bool>("bitwise");
    // Recovered at the first step, the run trains at micro-batch 16 from the start: exactly the
    // run started there, bit for bit, dropout masks and all.
    QTest::newRow("oom at step 1") << QByteArray("oom@step:1") << QStringList{} << true;
    QTest::newRow("oom at step 3") << QByteArray("oom@step:3") << QStringList{} << false;
    QTest::newRow("oom at step 2, checkpointing recomputes")
        << QByteArray("oom@step:2") << QStringList{"checkpointing=1"} << false;
    // Packed windows (each line of the story a document): the halves are padded to their own
    // longest window, so the same losses up to rounding.
    QTest::newRow("oom at step 3, packed")
        << QByteArray("oom@step:3") << QStringList{"data.packing=1"} << false;
}

void TestOomRecovery::recoveryIsExactWithDropout() {
    QFETCH(QByteArray, failpoints);
    QFETCH(QStringList, extra);
    QFETCH(bool, bitwise);
    static int counter = 0;
    ++counter;
    const QStringList dropout = QStringList{"model.dropout=0.2"} + extra;
    Recorder started;
    runSession(project(QString("dropout-start-%1.headroom").arg(counter),
                       dropout + QStringList{"train.micro_batch=16", "train.accumulation=2"}),
               started);
    qputenv("HEADROOM_FAILPOINT", failpoints);
    Recorder recovered;
    const headroom::RunResult result =
        runSession(project(QString("dropout-oom-%1.headroom").arg(counter), dropout), recovered);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recovered, "oom_recovered"));
    QCOMPARE(recovered.micro_batches.back(), 16);
    QCOMPARE(recovered.recorded.digests, started.recorded.digests);
    for (std::size_t i = 0; i < started.recorded.losses.size(); ++i) {
        const double a = recovered.recorded.losses[i];
        const double b = started.recorded.losses[i];
        const QString text =
            QString("step %1: %2 vs %3").arg(i + 1).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
        if (bitwise) {
            QVERIFY2(a == b, qPrintable(text));
        } else {
            // Steps before the recovery sum 32 examples in one pass, not two: rounding only.
            QVERIFY2(std::abs(a - b) / std::abs(b) < 1e-5, qPrintable(text));
        }
    }
}

void TestOomRecovery::evaluationOomLeavesTheTrainingBatchAlone() {
    qputenv("HEADROOM_FAILPOINT", "oom_eval@step:4");
    Recorder recorder;
    const headroom::RunResult result = runSession(project("eval.headroom"), recorder);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recorder, "eval_oom_backoff"));
    QVERIFY(!hasEvent(recorder, "oom_recovered"));
    for (const int micro_batch : recorder.micro_batches) {
        QCOMPARE(micro_batch, 32);
    }
    expectSameRun(baseline_.recorded, recorder.recorded);
}

void TestOomRecovery::deviceFallbackGoesOnOnTheCpu_data() {
    QTest::addColumn<QString>("fallback");
    QTest::addColumn<bool>("moves");
    QTest::newRow("device.fallback=cpu") << "cpu" << true;
    QTest::newRow("device.fallback=off halves instead") << "off" << false;
}

void TestOomRecovery::deviceFallbackGoesOnOnTheCpu() {
    // The failpoint makes step 3's out-of-memory error one of a GPU with nothing left to try;
    // the run moves to the CPU (here: the same device, through the whole path: optimizer state
    // parameter by parameter, model, meter) and replays step 3 at the same micro-batch.
    QFETCH(QString, fallback);
    QFETCH(bool, moves);
    static int counter = 0;
    qputenv("HEADROOM_FAILPOINT", "oom@step:3,fallback@step:3");
    Recorder recorder;
    const headroom::RunResult result = runSession(
        project(QString("fallback-%1.headroom").arg(++counter), {"device.fallback=" + fallback}),
        recorder);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QCOMPARE(hasEvent(recorder, "device_fallback"), moves);
    QCOMPARE(hasEvent(recorder, "oom_recovered"), !moves);
    QCOMPARE(recorder.micro_batches.back(), moves ? 32 : 16);
    expectSameRun(baseline_.recorded, recorder.recorded);
}

void TestOomRecovery::impossibleBudgetPausesWithADiagnosis_data() {
    QTest::addColumn<bool>("model_fits");
    QTest::newRow("not even one example") << true;
    QTest::newRow("not even the model") << false;
}

void TestOomRecovery::impossibleBudgetPausesWithADiagnosis() {
    QFETCH(bool, model_fits);
    static int counter = 0;
    // Just under what micro-batch 1 needs: the model and optimizer fit, one example does not.
    const std::uint64_t budget =
        model_fits ? stepPeak({"train.micro_batch=1", "train.accumulation=32"}) - 2048 : 64 * 1024;
    Recorder recorder;
    const headroom::RunResult result = runSession(
        project(QString("impossible-%1.headroom").arg(++counter)), recorder,
        {QString("memory.budget=%1").arg(budget), "train.steps=2", "recovery.ladder=none"});
    QCOMPARE(name(result.state), name(headroom::SessionState::Paused));
    QVERIFY(result.failure == headroom::FailureKind::CannotContinue);
    const QString message = QString::fromStdString(result.message);
    QVERIFY2(message.contains(model_fits ? "micro-batch 1" : "model alone does not fit"),
             qPrintable(message));
    QVERIFY2(message.contains("memory.budget"), qPrintable(message));
    if (model_fits) {
        QVERIFY2(message.contains("tried micro-batch 32 -> 16 -> 8 -> 4 -> 2 -> 1"),
                 qPrintable(message));
        QVERIFY(hasEvent(recorder, "out_of_memory"));
    }
    QVERIFY(recorder.recorded.losses.empty());
}

void TestOomRecovery::ladderSwitchesOnCheckpointingAtMicroBatchOne() {
    // Between what micro-batch 1 needs with and without checkpointing: halving alone cannot
    // help, the checkpointing rung can, and the run continues with the same samples.
    const std::uint64_t plain = stepPeak({"train.micro_batch=1", "train.accumulation=32"});
    const std::uint64_t checkpointed =
        stepPeak({"train.micro_batch=1", "train.accumulation=32", "checkpointing=1"});
    QVERIFY2(checkpointed < plain, qPrintable(QString("%1 vs %2").arg(checkpointed).arg(plain)));
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project("ladder.headroom"), recorder,
                   {QString("memory.budget=%1").arg((plain + checkpointed) / 2),
                    "recovery.ladder=checkpointing,bf16"});
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recorder, "ladder"));
    QCOMPARE(recorder.micro_batches.back(), 1);
    QCOMPARE(recorder.accumulations.back(), 32);
    // Checkpointing recomputes exactly what plain training computed: same samples, same
    // losses.
    expectSameRun(baseline_.recorded, recorder.recorded);
    const headroom::Project opened =
        headroom::Project::open(QDir(dir_.path()).filePath("ladder.headroom").toStdString());
    const QJsonObject summary =
        QJsonDocument::fromJson(QByteArray::fromStdString(opened.runs().back().summary_json))
            .object();
    QVERIFY2(summary["techniques"].toString().contains("checkpointing"),
             qPrintable(summary["techniques"].toString()));
}

void TestOomRecovery::exhaustedLadderPausesAndSaysWhatItTried() {
    // Well under what micro-batch 1 needs with every rung of this ladder on, above what the
    // model and its optimizer state need.
    const std::uint64_t budget = stepPeak({"train.micro_batch=1", "train.accumulation=32",
                                           "checkpointing=1", "precision=bf16"}) *
                                 85 / 100;
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project("ladder-exhausted.headroom"), recorder,
                   {QString("memory.budget=%1").arg(budget), "train.steps=2",
                    "recovery.ladder=checkpointing,bf16,offload"});
    QCOMPARE(name(result.state), name(headroom::SessionState::Paused));
    const QString message = QString::fromStdString(result.message);
    QVERIFY2(message.contains("escalation ladder: checkpointing, bf16, offload (skipped"),
             qPrintable(message));
    QCOMPARE(static_cast<int>(
                 std::count(recorder.events.begin(), recorder.events.end(), std::string("ladder"))),
             2);
    QVERIFY(hasEvent(recorder, "out_of_memory"));
}

void TestOomRecovery::ladderSkipsAPrecisionCalibratedSlower() {
    // A cached calibration of this CPU that measured bf16 20x slower than fp32: the ladder
    // passes over its bf16 rung with that reason instead of making the run 20x slower.
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    const QByteArray previous_cache = qgetenv("HEADROOM_CACHE_DIR");
    qputenv("HEADROOM_CACHE_DIR", cache.path().toUtf8());
    const headroom::DeviceReport report = headroom::detectDevices();
    headroom::SpeedCalibration calibration;
    calibration.version = headroom::kSpeedCalibrationVersion;
    calibration.device = "cpu";
    calibration.device_name = report.cpu.model.empty() ? "CPU" : report.cpu.model;
    calibration.torch_version = report.torch_version;
    calibration.threads = report.cpu.torch_threads;
    calibration.cpu_gemm = headroom::compat::cpuGemmDescription();
    for (const auto &[precision, gflops] : {std::pair{"fp32", 100.0}, std::pair{"bf16", 5.0}}) {
        headroom::PrecisionSpeed speed;
        speed.precision = precision;
        speed.supported = true;
        speed.matmul_gflops = gflops;
        calibration.precisions.push_back(speed);
    }
    headroom::storeSpeedCalibration(calibration);

    const std::uint64_t budget = stepPeak({"train.micro_batch=1", "train.accumulation=32",
                                           "checkpointing=1", "precision=bf16"}) *
                                 85 / 100;
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project("ladder-slow-bf16.headroom"), recorder,
                   {QString("memory.budget=%1").arg(budget), "train.steps=2",
                    "recovery.ladder=checkpointing,bf16"});
    qputenv("HEADROOM_CACHE_DIR", previous_cache);
    QCOMPARE(name(result.state), name(headroom::SessionState::Paused));
    const QString message = QString::fromStdString(result.message);
    QVERIFY2(message.contains("bf16 (skipped: bf16 is 20x slower than fp32 on this CPU)"),
             qPrintable(message));
}

void TestOomRecovery::otherErrorsAreNotRetried() {
    qputenv("HEADROOM_FAILPOINT", "error@step:2");
    Recorder recorder;
    const headroom::RunResult result = runSession(project("error.headroom"), recorder);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Failed));
    QVERIFY(result.failure == headroom::FailureKind::Internal);
    QVERIFY(QString::fromStdString(result.message).contains("injected error at step 2"));
    QVERIFY(!hasEvent(recorder, "oom_recovered"));
    QCOMPARE(recorder.recorded.losses.size(), std::size_t{1});
}

void TestOomRecovery::breakdownPartsSumToThePeak() {
    const headroom::Project opened =
        headroom::Project::open(QDir(dir_.path()).filePath("baseline.headroom").toStdString());
    const headroom::RunRecord run = opened.runs().back();
    const QJsonObject breakdown =
        QJsonDocument::fromJson(QByteArray::fromStdString(run.summary_json))
            .object()["memory_breakdown"]
            .toObject();
    const double weights = breakdown["weights"].toDouble();
    const double gradients = breakdown["gradients"].toDouble();
    const double optimizer = breakdown["optimizer"].toDouble();
    const double activations = breakdown["activations"].toDouble();
    const double peak = breakdown["peak"].toDouble();
    QVERIFY(weights > 0 && activations > 0);
    // AdamW keeps two moments per weight; gradients are one per weight.
    QVERIFY2(std::abs(optimizer - 2 * weights) < 0.05 * optimizer,
             qPrintable(QString("optimizer %1 vs weights %2").arg(optimizer).arg(weights)));
    QVERIFY2(std::abs(gradients - weights) < 0.05 * weights,
             qPrintable(QString("gradients %1 vs weights %2").arg(gradients).arg(weights)));
    const double sum = weights + gradients + optimizer + activations;
    QVERIFY2(std::abs(sum - peak) < 0.05 * peak,
             qPrintable(QString("parts %1 vs peak %2").arg(sum).arg(peak)));
    // The step lines' peak is the same measurement.
    QCOMPARE(static_cast<double>(opened.metrics(run.id).front().mem_peak), peak);
}

void TestOomRecovery::growingMemoryIsReportedOnce() {
    // A healthy run's live memory is flat from step to step: no warning.
    QVERIFY(!hasEvent(baseline_, "memory_growing"));
    qputenv("HEADROOM_FAILPOINT", "leak@step:3");
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project("leak.headroom"), recorder,
                   {"train.steps=30", "train.eval_every=0", "train.checkpoint_every=0"});
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QCOMPARE(static_cast<int>(std::count(recorder.events.begin(), recorder.events.end(),
                                         std::string("memory_growing"))),
             1);
}

QTEST_GUILESS_MAIN(TestOomRecovery)
#include "test_oom_recovery.moc"
