// Hardware profiles and the plan chooser: a config that fits as is, one that needs bf16 and
// checkpointing, one that cannot fit, the time-memory table, and profiles for machines this
// one is not.
#include "plan/model_facts.h"

#include <headroom/plan.h>
#include <headroom/units.h>

#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;

Config tinyGpt(const std::vector<std::string> &settings) {
    Config config;
    for (const char *assignment : {"model.layers=2", "model.heads=2", "model.dim=32",
                                   "model.seq_len=16", "train.micro_batch=4", "device=cpu"}) {
        config.setAssignment(assignment);
    }
    for (const std::string &assignment : settings) {
        config.setAssignment(assignment);
    }
    return config;
}

HardwareProfile cpuWithBudget(std::uint64_t budget) {
    HardwareProfile profile = findHardwareProfile("cpu-16gb", DeviceReport{});
    profile.budget_bytes = budget;
    return profile;
}

Config withBudget(Config config, std::uint64_t budget) {
    config.set("memory.budget", std::to_string(budget));
    return config;
}

std::uint64_t peakWith(Config config, const std::vector<std::string> &settings) {
    for (const std::string &assignment : settings) {
        config.setAssignment(assignment);
    }
    return estimateMemory(config, plan::gptFacts(257)).peak;
}

bool has(const std::vector<std::string> &overrides, const std::string &assignment) {
    return std::find(overrides.begin(), overrides.end(), assignment) != overrides.end();
}

} // namespace

class TestPlanChooser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void catalogueCoversTheIssuesMachines() {
        std::vector<std::string> ids;
        for (const HardwareProfile &profile : hardwareProfiles()) {
            ids.push_back(profile.id);
            QVERIFY(profile.budget_bytes > 0 && profile.budget_bytes < profile.memory_bytes);
            QVERIFY(!profile.label.empty() && !profile.note.empty());
        }
        for (const char *id :
             {"mps-8gb", "mps-16gb", "mps-24gb", "mps-32gb", "mps-64gb", "mps-128gb", "cuda-4gb",
              "cuda-6gb", "cuda-8gb", "cuda-12gb", "cuda-16gb", "cuda-24gb", "cuda-48gb",
              "cuda-80gb", "cpu-8gb", "cpu-16gb", "cpu-32gb"}) {
            QVERIFY2(std::count(ids.begin(), ids.end(), id) == 1, id);
        }
        QVERIFY(hardwareProfilesVersion() >= 1);
        const HardwareProfile small = findHardwareProfile("cuda-6gb", DeviceReport{});
        QVERIFY(!small.bf16 && small.fp16);
        QVERIFY(findHardwareProfile("cuda-8gb", DeviceReport{}).bf16);
        const HardwareProfile mac = findHardwareProfile("mps-16gb", DeviceReport{});
        QCOMPARE(mac.budget_bytes, 16 * kGiB / 3 * 2); // what Metal lets a process use
    }

    void profileSetsDeviceAndBudget() {
        Config config;
        applyHardwareProfile(findHardwareProfile("cuda-8gb", DeviceReport{}), config);
        QCOMPARE(QString::fromStdString(config.text("device")), QString("cuda"));
        const std::uint64_t budget = config.bytes("memory.budget");
        QVERIFY(budget > 7 * kGiB && budget < 8 * kGiB);
    }

    void detectedProfilesDescribeThisMachine() {
        DeviceReport report;
        report.cpu.total_bytes = 16 * kGiB;
        report.cpu.logical_cores = 8;
        CudaDeviceInfo gpu;
        gpu.index = 0;
        gpu.name = "Test GPU";
        gpu.total_bytes = 12 * kGiB;
        gpu.supports_bf16 = true;
        report.cuda.push_back(gpu);
        const std::vector<HardwareProfile> detected = detectedProfiles(report);
        QCOMPARE(detected.size(), std::size_t{2});
        QCOMPARE(QString::fromStdString(detected[0].device), QString("cuda:0"));
        QVERIFY(detected[0].detected && detected[0].bf16);
        QCOMPARE(QString::fromStdString(findHardwareProfile("detected-cpu", report).device),
                 QString("cpu"));
    }

    void unknownProfileListsTheChoices() {
        try {
            findHardwareProfile("cuda-7gb", DeviceReport{});
            QFAIL("no error");
        } catch (const ConfigError &error) {
            const QString message = error.what();
            QVERIFY(message.contains("cuda-7gb"));
            QVERIFY(message.contains("cuda-8gb"));
        }
    }

    void fitsAsConfigured() {
        const Config config = withBudget(tinyGpt({}), 1 * kGiB);
        const Plan plan = recommendPlan(config, plan::gptFacts(257), cpuWithBudget(1 * kGiB));
        QVERIFY(plan.feasible);
        QVERIFY2(plan.summary.rfind("fits as configured", 0) == 0, plan.summary.c_str());
        QVERIFY(has(plan.overrides, "precision=fp32"));
        QVERIFY(has(plan.overrides, "train.micro_batch=4"));
        QVERIFY(!plan.decisions.empty());
    }

    // Long sequences: activations dominate; the effective batch is one sequence, so only
    // techniques can help. The budget sits just above bf16 + checkpointing.
    void needsBf16AndCheckpointing() {
        const Config base = tinyGpt({"model.seq_len=512", "model.dim=64", "model.heads=4",
                                     "model.layers=4", "train.micro_batch=1"});
        const std::uint64_t target = peakWith(base, {"precision=bf16", "checkpointing=1"});
        const auto budget = static_cast<std::uint64_t>(static_cast<double>(target) / 0.9 * 1.01);
        const double limit = 0.9 * static_cast<double>(budget);
        // The test is well-posed only if nothing without both techniques fits.
        QVERIFY(static_cast<double>(peakWith(base, {"checkpointing=1", "optimizer=adamw8bit"})) >
                limit);
        QVERIFY(static_cast<double>(peakWith(base, {"precision=bf16", "optimizer=adamw8bit"})) >
                limit);
        const Plan plan =
            recommendPlan(withBudget(base, budget), plan::gptFacts(257), cpuWithBudget(budget));
        QVERIFY(plan.feasible);
        QVERIFY(has(plan.overrides, "precision=bf16"));
        QVERIFY(has(plan.overrides, "checkpointing=1"));
        QVERIFY(has(plan.overrides, "optimizer=adamw")); // 8-bit is slower and not needed
        QVERIFY(plan.estimate.peak <= budget);
        const auto precision =
            std::find_if(plan.decisions.begin(), plan.decisions.end(),
                         [](const PlanDecision &d) { return d.setting == "precision"; });
        QVERIFY(precision != plan.decisions.end());
        QCOMPARE(QString::fromStdString(precision->reason),
                 QString("without mixed precision nothing fits the budget"));
    }

    void keepsTheEffectiveBatchWhenShrinkingTheMicroBatch() {
        const Config base = tinyGpt({"train.micro_batch=16", "train.accumulation=2"});
        const std::uint64_t at_four =
            peakWith(base, {"train.micro_batch=4", "train.accumulation=8"});
        const auto budget = static_cast<std::uint64_t>(static_cast<double>(at_four) / 0.9 * 1.02);
        const Plan plan =
            recommendPlan(withBudget(base, budget), plan::gptFacts(257), cpuWithBudget(budget));
        QVERIFY(plan.feasible);
        QVERIFY(plan.estimate.micro_batch * plan.estimate.accumulation == 32);
        QVERIFY(plan.estimate.micro_batch >= 4);
        QVERIFY(plan.estimate.micro_batch < 16);
    }

    void cannotFitSaysWhy() {
        const std::uint64_t budget = 64 * 1024; // below the weights alone
        const Plan plan = recommendPlan(withBudget(tinyGpt({}), budget), plan::gptFacts(257),
                                        cpuWithBudget(budget));
        QVERIFY(!plan.feasible);
        QVERIFY2(plan.summary.rfind("cannot fit", 0) == 0, plan.summary.c_str());
        QVERIFY(plan.summary.find("weights and optimizer state alone") != std::string::npos);
        QVERIFY(plan.overrides.empty());
    }

    void alternativesFormATimeMemoryTable() {
        const Config base = tinyGpt({"model.seq_len=128", "train.micro_batch=8"});
        const std::uint64_t budget = 64 * 1024 * 1024;
        const Plan plan =
            recommendPlan(withBudget(base, budget), plan::gptFacts(257), cpuWithBudget(budget));
        QVERIFY(plan.alternatives.size() >= 8); // fp32/bf16 x checkpointing x optimizer
        std::uint64_t smallest = UINT64_MAX;
        for (std::size_t i = 0; i < plan.alternatives.size(); ++i) {
            const PlanAlternative &row = plan.alternatives[i];
            if (i > 0) {
                QVERIFY(row.relative_speed <= plan.alternatives[i - 1].relative_speed);
            }
            QCOMPARE(row.pareto, row.peak < smallest);
            smallest = std::min(smallest, row.peak);
            QVERIFY(!row.overrides.empty());
        }
        QVERIFY(plan.alternatives.front().pareto);
    }

    // A MoE GPT's model changes, each priced alone with the plan's techniques; dense models,
    // and changes that would leave no choice (2 experts halved), get none.
    void expertModelsListTheirModelChanges() {
        const std::uint64_t budget = 64 * 1024 * 1024;
        const Config moe =
            withBudget(tinyGpt({"model.seq_len=64", "model.layers=4", "moe.experts=8",
                                "moe.top_k=2", "moe.capacity_factor=1.5"}),
                       budget);
        const Plan plan = recommendPlan(moe, plan::gptFacts(257), cpuWithBudget(budget));
        QVERIFY(plan.feasible);
        std::vector<std::string> offered;
        for (const PlanVariant &variant : plan.variants) {
            QCOMPARE(variant.overrides.size(), std::size_t(1));
            offered.push_back(variant.overrides.front());
            // Priced with the plan's techniques and micro-batch, as its own estimate would be.
            Config changed = moe;
            for (const std::string &assignment : plan.overrides) {
                changed.setAssignment(assignment);
            }
            changed.setAssignment(variant.overrides.front());
            const MemoryEstimate estimate = estimateMemory(changed, plan::gptFacts(257));
            QCOMPARE(variant.peak, estimate.peak);
            QCOMPARE(variant.parameters, estimate.parameters);
            QVERIFY(variant.fits);
            // Every change is a smaller model or fewer routed tokens.
            QVERIFY2(variant.peak <= plan.estimate.peak, variant.change.c_str());
        }
        QCOMPARE(offered, (std::vector<std::string>{"moe.experts=4", "moe.top_k=1",
                                                    "moe.capacity_factor=1", "moe.every=2"}));
        // Half the experts halves the experts' weights; top-1 keeps them.
        QVERIFY(plan.variants[0].parameters < plan.estimate.parameters);
        QCOMPARE(plan.variants[1].parameters, plan.estimate.parameters);

        const Plan dense = recommendPlan(withBudget(tinyGpt({}), budget), plan::gptFacts(257),
                                         cpuWithBudget(budget));
        QVERIFY(dense.variants.empty());
        const Plan two =
            recommendPlan(withBudget(tinyGpt({"moe.experts=2", "moe.top_k=1",
                                              "moe.capacity_factor=1", "model.layers=1"}),
                                     budget),
                          plan::gptFacts(257), cpuWithBudget(budget));
        QVERIFY2(two.variants.empty(), two.variants.empty() ? "" : two.variants[0].change.c_str());
    }

    // Below a capacity factor of 1 the experts hold fewer tokens, and the estimate says so;
    // above 1 nothing changes (tokens are gathered, not padded to capacity).
    void capacityBelowOneShrinksTheExpertActivations() {
        const Config moe = tinyGpt({"model.seq_len=64", "moe.experts=4", "moe.top_k=2"});
        const std::uint64_t at_one = peakWith(moe, {"moe.capacity_factor=1"});
        QCOMPARE(peakWith(moe, {"moe.capacity_factor=1.25"}), at_one);
        QCOMPARE(peakWith(moe, {"moe.capacity_factor=0"}), at_one);
        QVERIFY(peakWith(moe, {"moe.capacity_factor=0.5"}) < at_one);
    }
};

QTEST_GUILESS_MAIN(TestPlanChooser)
#include "test_plan_chooser.moc"
