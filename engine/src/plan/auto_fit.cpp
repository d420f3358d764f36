// Auto-fit: verifies the recommended plan with real training steps under the budget. The
// micro-batch is searched (grow, then bisect) with at most kMaxFitProbes probes, the chosen
// one keeps the effective batch, and the result is stored in the project.
#include "memory/oom.h"
#include "plan/probe_runner.h"
#include "train/run_plan.h"
#include "util/text.h"

#include <headroom/devices.h>
#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

namespace headroom {

namespace {

// Bisection stops once the largest fitting and smallest failing micro-batch are this close,
// relative to the largest fitting one.
constexpr double kBisectTolerance = 0.1;

std::string keyOf(const std::string &assignment) {
    return assignment.substr(0, assignment.find('='));
}

bool isBatchKey(const std::string &assignment) {
    const std::string key = keyOf(assignment);
    return key == "train.micro_batch" || key == "train.accumulation";
}

// Later assignments of a key replace earlier ones; the order of first appearance stays.
std::vector<std::string> mergeAssignments(const std::vector<std::string> &assignments) {
    std::vector<std::string> merged;
    for (const std::string &assignment : assignments) {
        auto same_key = std::find_if(merged.begin(), merged.end(), [&](const std::string &kept) {
            return keyOf(kept) == keyOf(assignment);
        });
        if (same_key != merged.end()) {
            *same_key = assignment;
        } else {
            merged.push_back(assignment);
        }
    }
    return merged;
}

using util::firstLine;

// The config measured at micro-batch `micro_batch`, with the accumulation that covers the
// effective batch.
Config configAt(Config config, std::int64_t micro_batch, std::int64_t effective_batch) {
    config.set("train.micro_batch", std::to_string(micro_batch));
    config.set("train.accumulation",
               std::to_string(std::max<std::int64_t>(1, effective_batch / micro_batch)));
    return config;
}

// The probes of the micro-batch search, and what they found.
class MicroBatchSearch {
public:
    using ProbeFunction = std::function<FitProbe(std::int64_t)>;

    MicroBatchSearch(ProbeFunction probe, const FitProgress &progress)
        : probe_(std::move(probe)), progress_(progress) {}

    bool probesLeft() const { return static_cast<int>(probes_.size()) < kMaxFitProbes; }

    // Probes `micro_batch` and returns whether it fits.
    bool run(std::int64_t micro_batch) {
        FitProbe probe = probe_(micro_batch);
        if (probe.fits) {
            largest_fitting_ = std::max(largest_fitting_, micro_batch);
        } else if (smallest_failing_ == 0 || micro_batch < smallest_failing_) {
            smallest_failing_ = micro_batch;
        }
        probes_.push_back(probe);
        if (progress_) {
            progress_(probes_.back());
        }
        return probe.fits;
    }

    // Grows from `start` (doubling up to `upper`) or halves below it until one fits, then
    // bisects between the largest fitting and the smallest failing micro-batch.
    void search(std::int64_t start, std::int64_t upper) {
        std::int64_t micro_batch = start;
        if (run(micro_batch)) {
            while (micro_batch < upper && probesLeft()) {
                micro_batch = std::min(micro_batch * 2, upper);
                if (!run(micro_batch)) {
                    break;
                }
            }
        } else {
            while (micro_batch > 1 && probesLeft()) {
                micro_batch = std::max<std::int64_t>(1, micro_batch / 2);
                if (run(micro_batch)) {
                    break;
                }
            }
        }
        if (largest_fitting_ == 0) {
            return;
        }
        while (smallest_failing_ != 0 && probesLeft()) {
            const std::int64_t gap = smallest_failing_ - largest_fitting_;
            const double tolerance =
                std::max(1.0, kBisectTolerance * static_cast<double>(largest_fitting_));
            if (static_cast<double>(gap) <= tolerance) {
                break;
            }
            run(largest_fitting_ + gap / 2);
        }
    }

    // The measured peak at `micro_batch`, else a linear interpolation between the nearest
    // fitting probes around it (the next larger one's peak when none is below). Exact tells
    // which.
    std::optional<double> peakAt(std::int64_t micro_batch, bool &exact) const {
        const FitProbe *below = nullptr;
        const FitProbe *above = nullptr;
        for (const FitProbe &probe : probes_) {
            if (!probe.fits) {
                continue;
            }
            if (probe.micro_batch == micro_batch) {
                exact = true;
                return static_cast<double>(probe.peak);
            }
            if (probe.micro_batch < micro_batch &&
                (below == nullptr || probe.micro_batch > below->micro_batch)) {
                below = &probe;
            }
            if (probe.micro_batch > micro_batch &&
                (above == nullptr || probe.micro_batch < above->micro_batch)) {
                above = &probe;
            }
        }
        exact = false;
        if (above == nullptr) {
            return std::nullopt;
        }
        if (below == nullptr) {
            return static_cast<double>(above->peak);
        }
        const double share = static_cast<double>(micro_batch - below->micro_batch) /
                             static_cast<double>(above->micro_batch - below->micro_batch);
        return static_cast<double>(below->peak) +
               share * (static_cast<double>(above->peak) - static_cast<double>(below->peak));
    }

    const std::vector<FitProbe> &probes() const { return probes_; }
    std::int64_t largestFitting() const { return largest_fitting_; }

private:
    ProbeFunction probe_;
    const FitProgress &progress_;
    std::vector<FitProbe> probes_;
    std::int64_t largest_fitting_ = 0;
    std::int64_t smallest_failing_ = 0; // 0 = none failed
};

std::vector<std::int64_t> divisorsDescending(std::int64_t value) {
    std::vector<std::int64_t> divisors;
    for (std::int64_t candidate = value; candidate >= 1; --candidate) {
        if (value % candidate == 0) {
            divisors.push_back(candidate);
        }
    }
    return divisors;
}

// The largest divisor of the effective batch that ran and whose peak keeps the margin
// (without a budget: the largest that ran); 0 when none does.
std::int64_t chooseMicroBatch(const MicroBatchSearch &search, std::int64_t effective_batch,
                              double limit, bool has_budget) {
    for (const std::int64_t divisor : divisorsDescending(effective_batch)) {
        if (divisor > search.largestFitting()) {
            continue;
        }
        bool exact = false;
        const std::optional<double> peak = search.peakAt(divisor, exact);
        if (!has_budget || (peak && *peak <= limit)) {
            return divisor;
        }
    }
    return 0;
}

void storeResult(Project &project, const std::vector<std::string> &overrides) {
    Config stored = Config::fromJson(project.configJson());
    for (const std::string &assignment : overrides) {
        stored.setAssignment(assignment);
    }
    stored.validate();
    project.setConfigJson(stored.toJson());
}

void recordProbes(Project &project, const std::vector<FitProbe> &probes, const Config &config,
                  const ModelFacts &facts, const std::string &device,
                  std::int64_t effective_batch) {
    for (const FitProbe &probe : probes) {
        if (!probe.fits) {
            continue;
        }
        const Config measured = configAt(config, probe.micro_batch, effective_batch);
        MemoryHistoryRecord record;
        record.source = "fit";
        record.run_id = 0;
        record.device = device;
        record.recipe = config.text("recipe");
        record.config_json = measured.toJson();
        record.micro_batch = probe.micro_batch;
        record.predicted_peak = estimateMemory(measured, facts).model_peak;
        record.measured_peak = probe.peak;
        project.addMemoryHistory(record);
    }
}

std::string budgetText(std::uint64_t budget) {
    return budget != 0 ? formatBytes(budget) : std::string("none");
}

} // namespace

FitResult fitPlan(const PlanRequest &request, const FitProgress &progress) {
    FitResult result;
    Project project = Project::open(request.project_path);
    Config config = train::planRun(project, request.overrides, false).config;
    if (!request.profile.empty()) {
        applyHardwareProfile(findHardwareProfile(request.profile, detectDevices()), config);
    }
    const std::int64_t effective_batch =
        config.integer("train.micro_batch") * config.integer("train.accumulation");
    result.plan = recommendPlan(request);
    const Plan &plan = result.plan;
    const double margin = plan.safety_margin; // 0.1 in an empty plan as well
    Config probed = config;
    for (const std::string &assignment : plan.overrides) {
        probed.setAssignment(assignment);
    }
    probed.validate();
    const std::uint64_t budget = probed.bytes("memory.budget");
    const std::string suggestion =
        plan.summary.empty()
            ? std::string("raise memory.budget, switch on bf16 or checkpointing, or make the "
                          "model or model.seq_len smaller")
            : plan.summary;

    std::unique_ptr<plan::ProbeRunner> runner;
    try {
        runner = std::make_unique<plan::ProbeRunner>(probed, project);
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            throw;
        }
        result.plan.feasible = false;
        result.message = "the model alone does not fit in memory.budget " + budgetText(budget) +
                         " (" + firstLine(error.what()) + "): " + suggestion;
        return result;
    }

    MicroBatchSearch search(
        [&](std::int64_t micro_batch) {
            return runner->probe(micro_batch, micro_batch < effective_batch ? 2 : 1);
        },
        progress);
    const std::int64_t start =
        std::clamp<std::int64_t>(probed.integer("train.micro_batch"), 1, effective_batch);
    search.search(start, effective_batch);
    result.largest_fitting = search.largestFitting();

    if (result.largest_fitting == 0) {
        const FitProbe &smallest = search.probes().back();
        result.probes = search.probes();
        result.plan.feasible = false;
        result.message = "does not fit: micro-batch " + std::to_string(smallest.micro_batch) +
                         " ran out of memory at a peak of " + formatBytes(smallest.peak) +
                         " with memory.budget " + budgetText(budget) + " (" + smallest.error +
                         "): " + suggestion;
        return result;
    }

    const double limit = (1.0 - margin) * static_cast<double>(budget);
    std::int64_t chosen = chooseMicroBatch(search, effective_batch, limit, budget != 0);
    std::string caveat;
    if (chosen == 0) {
        chosen = 1;
        caveat = "; even micro-batch 1 leaves less than the " +
                 std::to_string(static_cast<int>(std::lround(margin * 100))) +
                 " % safety margin free";
    }
    bool exact = false;
    std::optional<double> peak = search.peakAt(chosen, exact);
    // Verify an interpolated choice while probes remain; a failure moves to the next divisor.
    while (!exact && search.probesLeft()) {
        if (search.run(chosen)) {
            peak = search.peakAt(chosen, exact);
            break;
        }
        const std::vector<std::int64_t> divisors = divisorsDescending(effective_batch);
        const auto next = std::upper_bound(divisors.begin(), divisors.end(), chosen,
                                           std::greater<std::int64_t>());
        if (next == divisors.end()) {
            break;
        }
        chosen = *next;
        peak = search.peakAt(chosen, exact);
    }
    if (!exact) {
        caveat += "; the peak at micro-batch " + std::to_string(chosen) +
                  " is interpolated between probes";
    }
    result.probes = search.probes();
    result.largest_fitting = search.largestFitting();
    result.micro_batch = chosen;
    result.accumulation = effective_batch / chosen;
    result.measured_peak = peak ? static_cast<std::uint64_t>(std::llround(*peak)) : 0;
    const ModelFacts facts = runner->facts();
    const std::string device = runner->device();
    result.predicted_peak =
        estimateMemory(configAt(probed, chosen, effective_batch), facts).model_peak;
    runner.reset(); // removes the budget before anything is written

    std::vector<std::string> overrides = request.overrides;
    for (const std::string &assignment : plan.overrides) {
        overrides.push_back(assignment);
    }
    overrides.erase(std::remove_if(overrides.begin(), overrides.end(), isBatchKey),
                    overrides.end());
    overrides.push_back("train.micro_batch=" + std::to_string(result.micro_batch));
    overrides.push_back("train.accumulation=" + std::to_string(result.accumulation));
    result.overrides = mergeAssignments(overrides);
    storeResult(project, result.overrides);
    recordProbes(project, result.probes, probed, facts, device, effective_batch);
    result.stored = true;
    result.plan.feasible = true;
    if (result.plan.summary.empty()) {
        result.plan.summary = "fits as configured";
    }
    result.message = "micro-batch " + std::to_string(result.micro_batch) + " x accumulation " +
                     std::to_string(result.accumulation) + " (effective batch " +
                     std::to_string(effective_batch) + "): peak " +
                     formatBytes(result.measured_peak) + ", memory.budget " + budgetText(budget) +
                     "; largest fitting micro-batch " + std::to_string(result.largest_fitting) +
                     caveat;
    return result;
}

} // namespace headroom
