// The speed calibration: what a measurement records, the per-user cache (round trip, other
// devices kept, stale entries ignored), and what the planner and the escalation ladder do
// with a calibration that shows bf16 much slower than fp32. No timing assertions: timings
// are in tests/benchmarks/step_time.sh.
#include "compat/cpu_gemm.h"
#include "device/cpu_flags.h"
#include "plan/model_facts.h"
#include "plan/step_time.h"
#include "train/techniques.h"

#include <headroom/devices.h>
#include <headroom/plan.h>
#include <headroom/speed_calibration.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

// A calibration of this machine's CPU as it is now (so not stale) with made-up speeds.
SpeedCalibration cpuCalibration(double bf16_ratio) {
    const DeviceReport report = detectDevices();
    SpeedCalibration calibration;
    calibration.version = kSpeedCalibrationVersion;
    calibration.device = "cpu";
    calibration.device_name = report.cpu.model.empty() ? "CPU" : report.cpu.model;
    calibration.torch_version = report.torch_version;
    calibration.threads = report.cpu.torch_threads;
    calibration.cpu_gemm = headroom::compat::cpuGemmDescription();
    calibration.cpu_flags = {"avx2"};
    calibration.measured_at = 1700000000;
    const auto speed = [](const char *precision, double ratio) {
        PrecisionSpeed result;
        result.precision = precision;
        result.supported = true;
        result.matmul_gflops = 100 * ratio;
        result.attention_gflops = 20 * ratio;
        result.elementwise_gelems = 1;
        result.training_gflops = 50 * ratio;
        return result;
    };
    const PrecisionSpeed fp32 = speed("fp32", 1);
    const PrecisionSpeed bf16 = speed("bf16", bf16_ratio);
    PrecisionSpeed fp16;
    fp16.precision = "fp16";
    fp16.unsupported_reason = "fp16 autocast on the CPU needs LibTorch 2.2";
    calibration.precisions = {fp32, bf16, fp16};
    return calibration;
}

Config smallGpt() {
    Config config;
    for (const char *assignment : {"model.layers=2", "model.heads=2", "model.dim=64",
                                   "model.seq_len=32", "train.micro_batch=8", "device=cpu"}) {
        config.setAssignment(assignment);
    }
    return config;
}

// smallGpt (dim 64, seq 32, 8 sequences, 2 layers) with MoE blocks.
Config moeGpt(int experts, int top_k, const char *capacity_factor = "0",
              const char *expert_hidden = "0") {
    Config config = smallGpt();
    config.setAssignment("moe.experts=" + std::to_string(experts));
    config.setAssignment("moe.top_k=" + std::to_string(top_k));
    config.setAssignment(std::string("moe.capacity_factor=") + capacity_factor);
    config.setAssignment(std::string("moe.expert_hidden=") + expert_hidden);
    return config;
}

plan::StepWork workOf(const Config &config) {
    const std::optional<plan::StepWork> work = plan::stepWork(config, plan::gptFacts(257));
    return work ? *work : plan::StepWork{};
}

HardwareProfile thisCpu() {
    for (const HardwareProfile &profile : detectedProfiles(detectDevices())) {
        if (profile.device == "cpu") {
            return profile;
        }
    }
    return {};
}

} // namespace

class TestSpeedCalibration : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        QVERIFY(cache_.isValid());
        qputenv("HEADROOM_CACHE_DIR", cache_.path().toUtf8());
        QFile::remove(QString::fromStdString(speedCalibrationCachePath()));
    }

    void measurementRecordsMachineAndPrecisions() {
        CalibrationOptions options;
        options.time_budget_s = 0.05;
        options.quick = true;
        const SpeedCalibration calibration = calibrateSpeed(options);
        const DeviceReport report = detectDevices();
        QCOMPARE(calibration.device, std::string("cpu"));
        QCOMPARE(calibration.torch_version, report.torch_version);
        QCOMPARE(calibration.threads, report.cpu.torch_threads);
        QCOMPARE(calibration.cpu_gemm, headroom::compat::cpuGemmDescription());
        QVERIFY(!calibration.device_name.empty());
        QVERIFY(calibration.measured_at > 0);
        QVERIFY(calibrationStaleReason(calibration, report).empty());
        QCOMPARE(calibration.precisions.size(), std::size_t{3});
        const PrecisionSpeed *fp32 = calibration.find("fp32");
        QVERIFY(fp32 != nullptr && fp32->supported && fp32->matmul_gflops > 0);
        for (const PrecisionSpeed &speed : calibration.precisions) {
            // Each precision either ran or says why it cannot.
            QVERIFY2(speed.supported ? speed.matmul_gflops > 0 : !speed.unsupported_reason.empty(),
                     speed.precision.c_str());
        }
    }

    void fullMeasurementCoversAttentionAndElementwise() {
        CalibrationOptions options;
        options.time_budget_s = 0.05;
        const SpeedCalibration calibration = calibrateSpeed(options);
        const PrecisionSpeed *fp32 = calibration.find("fp32");
        QVERIFY(fp32->attention_gflops > 0 && fp32->elementwise_gelems > 0 &&
                fp32->training_gflops > 0 && fp32->tall_training_gflops > 0 &&
                fp32->small_training_gflops > 0);
        QVERIFY(!describeSpeedCalibration(calibration).empty());
    }

    void unknownDeviceIsBadInput() {
        CalibrationOptions options;
        options.device = "cuda:7";
        QVERIFY_THROWS_EXCEPTION(InputError, calibrateSpeed(options));
    }

    void cpuFlagsKeepVectorInstructions() {
        QCOMPARE(
            device::vectorFlagsOf("fpu sse4_2 avx2 avx512f avx512_bf16 amx_tile ht avx2"),
            (std::vector<std::string>{"amx_tile", "avx2", "avx512_bf16", "avx512f", "sse4_2"}));
    }

    void cacheRoundTripsPerDevice() {
        QVERIFY(!cachedSpeedCalibration("cpu").has_value());
        const SpeedCalibration cpu = cpuCalibration(0.05);
        SpeedCalibration gpu = cpu;
        gpu.device = "cuda:0";
        gpu.device_name = "Some GPU";
        storeSpeedCalibration(gpu);
        storeSpeedCalibration(cpu);
        storeSpeedCalibration(cpu); // replaces, does not duplicate
        const std::optional<SpeedCalibration> loaded = cachedSpeedCalibration("cpu");
        QVERIFY(loaded.has_value());
        QCOMPARE(toJson(*loaded), toJson(cpu));
        QFile file(QString::fromStdString(speedCalibrationCachePath()));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QCOMPARE(text.count("\"device\": \"cpu\""), 1);
        QCOMPARE(text.count("\"device\": \"cuda:0\""), 1);
        QVERIFY(!QDir(cache_.path()).entryList().join(' ').contains(".tmp"));
        QCOMPARE(toJson(speedCalibrationFromJson(toJson(cpu))), toJson(cpu));
        QVERIFY_THROWS_EXCEPTION(InputError, speedCalibrationFromJson("{\"device\": 1}"));
    }

    void staleEntriesAreNotUsed_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("expected");
        QTest::newRow("libtorch") << "torch"
                                  << "LibTorch";
        QTest::newRow("cpu model") << "name"
                                   << "measured on";
        QTest::newRow("threads") << "threads"
                                 << "threads";
        // fp32 timed on oneDNN says nothing about OpenBLAS's speed, and the other way round.
        QTest::newRow("fp32 gemm") << "gemm"
                                   << "measured with fp32 GEMMs on";
    }

    void staleEntriesAreNotUsed() {
        QFETCH(QString, field);
        QFETCH(QString, expected);
        SpeedCalibration calibration = cpuCalibration(0.05);
        if (field == "torch") {
            calibration.torch_version = "0.4.0";
        } else if (field == "name") {
            calibration.device_name = "Another CPU";
        } else if (field == "gemm") {
            calibration.cpu_gemm = "another GEMM library";
        } else {
            calibration.threads += 3;
        }
        const QString reason =
            QString::fromStdString(calibrationStaleReason(calibration, detectDevices()));
        QVERIFY2(reason.contains(expected), qPrintable(reason));
        storeSpeedCalibration(calibration);
        QVERIFY(!cachedSpeedCalibration("cpu").has_value());
    }

    void slowPrecisionIsNamed() {
        QCOMPARE(slowPrecisionReason(cpuCalibration(0.05), "bf16"),
                 std::string("bf16 is 20x slower than fp32 on this CPU"));
        QVERIFY(slowPrecisionReason(cpuCalibration(1.5), "bf16").empty());
        QVERIFY(slowPrecisionReason(cpuCalibration(0.05), "fp16").empty()); // unsupported
    }

    void plannerAvoidsASlowPrecision() {
        const HardwareProfile profile = thisCpu();
        QVERIFY(profile.bf16);
        const Plan plan =
            recommendPlan(smallGpt(), plan::gptFacts(257), profile, cpuCalibration(0.05));
        QVERIFY(plan.feasible && plan.speed_calibrated);
        QVERIFY(plan.step_seconds > 0);
        for (const PlanAlternative &alternative : plan.alternatives) {
            QVERIFY2(alternative.techniques.find("bf16") == std::string::npos,
                     alternative.techniques.c_str());
            QVERIFY(alternative.step_seconds > 0);
        }
        const auto precision = std::find_if(
            plan.decisions.begin(), plan.decisions.end(),
            [](const PlanDecision &decision) { return decision.setting == "precision"; });
        QCOMPARE(precision->value, std::string("fp32"));
        QVERIFY2(QString::fromStdString(precision->reason).contains("20x slower"),
                 precision->reason.c_str());
    }

    void plannerUsesAFastPrecisionsMeasuredSpeed() {
        const Plan plan =
            recommendPlan(smallGpt(), plan::gptFacts(257), thisCpu(), cpuCalibration(3.0));
        QCOMPARE(plan.alternatives.front().techniques, std::string("bf16"));
        const auto fp32 = std::find_if(
            plan.alternatives.begin(), plan.alternatives.end(),
            [](const PlanAlternative &alternative) { return alternative.techniques == "fp32"; });
        QVERIFY(fp32 != plan.alternatives.end());
        QVERIFY(plan.alternatives.front().step_seconds < fp32->step_seconds);
        QVERIFY(plan.alternatives.front().relative_speed > 1);
        QVERIFY(QString::fromStdString(toJson(plan)).contains("\"step_seconds\""));
    }

    void withoutCalibrationTheConstantsStay() {
        const Plan plan = recommendPlan(smallGpt(), plan::gptFacts(257), thisCpu(), std::nullopt);
        QVERIFY(!plan.speed_calibrated);
        QCOMPARE(plan.step_seconds, 0.0);
        QVERIFY2(QString::fromStdString(plan.speed_note).contains("uncalibrated"),
                 plan.speed_note.c_str());
        // The cached calibration of this machine is what the planner finds on its own.
        storeSpeedCalibration(cpuCalibration(0.05));
        QVERIFY(recommendPlan(smallGpt(), plan::gptFacts(257), thisCpu()).speed_calibrated);
    }

    // The routed experts' work: top_k expert MLPs per token, whatever the number of experts.
    void moeWorkScalesWithTopKNotWithExperts() {
        // One expert MLP (dim 64, hidden 256) on 8 x 32 tokens, 2 layers, forward + backward.
        const double expert = 3 * 8 * 32 * 2 * (2 * 2 * 64 * 256.0);
        const plan::StepWork top1 = workOf(moeGpt(4, 1));
        const plan::StepWork top2 = workOf(moeGpt(4, 2));
        const plan::StepWork top2of16 = workOf(moeGpt(16, 2));
        QVERIFY(top1.matmul_flops > 0);
        QVERIFY(qAbs(top2.matmul_flops - top1.matmul_flops - expert) < 1e-6 * expert);
        // 12 more experts add only their router columns (2 x dim FLOPs per token each).
        const double router = 3 * 8 * 32 * 2 * (2 * 64 * 12.0);
        QVERIFY(qAbs(top2of16.matmul_flops - top2.matmul_flops - router) < 1e-6 * router);
        QVERIFY(top2of16.matmul_flops < 1.01 * top2.matmul_flops);
        QCOMPARE(top2of16.elements, top2.elements);
        QVERIFY(top2.elements > top1.elements); // dispatch work per assignment
        QCOMPARE(top2.attention_flops, top1.attention_flops);

        // Top-2 of experts half as wide as the dense MLP: the dense GEMMs plus the router.
        const plan::StepWork dense = workOf(smallGpt());
        const plan::StepWork half = workOf(moeGpt(8, 2, "0", "128"));
        const double routers = 3 * 8 * 32 * 2 * (2 * 64 * 8.0);
        QVERIFY(qAbs(half.matmul_flops - dense.matmul_flops - routers) < 1e-6 * routers);

        // A capacity of half the assignments (factor 0.5) keeps at most half of the experts'
        // work; a generous one changes nothing.
        const plan::StepWork halved = workOf(moeGpt(4, 2, "0.5"));
        QVERIFY(qAbs(top2.matmul_flops - halved.matmul_flops - expert) < 1e-6 * expert);
        QCOMPARE(workOf(moeGpt(4, 2, "2")).matmul_flops, top2.matmul_flops);

        // The planner's predicted step follows: top-2 slower than top-1, 16 experts about as
        // fast as 4.
        const SpeedCalibration calibration = cpuCalibration(1.0);
        const double seconds1 = plan::predictStepSeconds(top1, calibration, "fp32");
        const double seconds2 = plan::predictStepSeconds(top2, calibration, "fp32");
        const double seconds16 = plan::predictStepSeconds(top2of16, calibration, "fp32");
        QVERIFY(seconds1 > 0 && seconds2 > seconds1);
        QVERIFY(qAbs(seconds16 - seconds2) < 0.01 * seconds2);
    }

    void tallMicroBatchesUseTheTallBlockRate() {
        // Blocks at the calibration's short size run at training_gflops, at its tall size (and
        // beyond) at tall_training_gflops, in between at a rate between the two; blocks at the
        // small size and below at small_training_gflops.
        SpeedCalibration calibration = cpuCalibration(1.0);
        PrecisionSpeed &fp32 = calibration.precisions.front();
        fp32.elementwise_gelems = 1e9; // leave only the block's work
        const auto seconds = [&](const Config &config) {
            const plan::StepWork work = workOf(config);
            return plan::predictStepSeconds(work, calibration, "fp32") * 1e9 /
                   (work.matmul_flops + work.attention_flops);
        };
        Config tall = smallGpt();
        for (const char *assignment :
             {"model.dim=384", "model.heads=6", "model.seq_len=256", "train.micro_batch=32"}) {
            tall.setAssignment(assignment);
        }
        Config middle = tall;
        middle.setAssignment("train.micro_batch=4");
        const double short_rate = 1 / seconds(smallGpt());
        const double no_tall_rate = 1 / seconds(tall);
        fp32.tall_training_gflops = 2 * fp32.training_gflops;
        const auto near = [](double a, double b) {
            return qAbs(a - b) < 1e-6 * b;
        };
        QVERIFY(near(1 / seconds(smallGpt()), short_rate));
        QVERIFY(near(no_tall_rate, short_rate)); // an older calibration: one rate for all
        QVERIFY(near(1 / seconds(tall), 2 * short_rate));
        const double middle_rate = 1 / seconds(middle);
        QVERIFY2(middle_rate > 1.2 * short_rate && middle_rate < 1.8 * short_rate,
                 qPrintable(QString::number(middle_rate / short_rate)));
        fp32.small_training_gflops = fp32.training_gflops / 2;
        QVERIFY(near(1 / seconds(smallGpt()), short_rate / 2));
        QVERIFY(near(1 / seconds(tall), 2 * short_rate));
    }

    void ladderSkipsASlowPrecisionWithTheReason() {
        using namespace headroom::train;
        const torch::Device cpu(torch::kCPU);
        const Techniques fp32;
        const SpeedCalibration slow = cpuCalibration(0.05);
        QCOMPARE(rungSkipReason(LadderRung::Bf16, fp32, cpu, "gpt", false, &slow),
                 std::string("bf16 is 20x slower than fp32 on this CPU"));
        const SpeedCalibration fast = cpuCalibration(2.0);
        QVERIFY(rungSkipReason(LadderRung::Bf16, fp32, cpu, "gpt", false, &fast).empty());
        QVERIFY(rungSkipReason(LadderRung::Bf16, fp32, cpu, "gpt").empty());
    }

private:
    QTemporaryDir cache_;
};

QTEST_GUILESS_MAIN(TestSpeedCalibration)
#include "test_speed_calibration.moc"
