// Capacity under a memory budget (issue #6): with memory.budget=1GiB on the CPU, the largest
// GPT (seq 256, effective batch 16) that trains STEPS steps with plain fp32 AdamW and no
// techniques, against the largest that trains with the planner's plan. Both sides train for
// real under the budget with OOM recovery off, so a plan that does not fit fails instead of
// being rescued. Prints a Markdown table. Run with tests/benchmarks/planner_benchmarks.sh.
//
//   capacity_benchmark [STEPS]     (default 50)

#include "planner_benchmark_support.h"

#include <headroom/config.h>
#include <headroom/engine.h>
#include <headroom/plan.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using namespace planner_benchmark;

namespace {

struct ModelSize {
    int layers;
    int dim;
};

// Growing by roughly 15-30 % in parameters per rung; heads of width 64.
const std::vector<ModelSize> kLadder = {
    {2, 128},  {4, 192},  {4, 256},  {5, 256},  {6, 256},  {5, 320},  {6, 320},
    {6, 384},  {8, 384},  {8, 448},  {8, 512},  {10, 512}, {10, 576}, {12, 576},
    {12, 640}, {12, 704}, {12, 768}, {14, 768}, {16, 768}, {16, 896}, {16, 1024},
};

std::vector<std::string> sizeSettings(const ModelSize &size) {
    return {"model.layers=" + std::to_string(size.layers), "model.dim=" + std::to_string(size.dim),
            "model.heads=" + std::to_string(std::max(1, size.dim / 64))};
}

// Effective batch 16 at seq 256, no recovery: the configuration has to fit as it is.
std::vector<std::string> runSettings(std::int64_t steps) {
    return {"device=cpu",
            "memory.budget=1GiB",
            "model.seq_len=256",
            "train.steps=" + std::to_string(steps),
            "train.warmup_steps=5",
            "train.eval_every=0",
            "train.checkpoint_every=0",
            "recovery.ladder=none",
            "recovery.max_recoveries=0"};
}

const std::vector<std::string> kPlain = {"precision=fp32",       "checkpointing=0",
                                         "optimizer=adamw",      "offload.optimizer=off",
                                         "train.micro_batch=16", "train.accumulation=1"};

std::vector<std::string> concat(std::vector<std::string> first,
                                const std::vector<std::string> &second) {
    first.insert(first.end(), second.begin(), second.end());
    return first;
}

struct Attempt {
    ModelSize size{};
    std::int64_t parameters = 0;
    std::string plan;
    std::uint64_t predicted = 0;
    MeasuredRun run;
};

void printAttempt(const char *side, const Attempt &attempt) {
    std::printf(
        "| %s | %d x %d | %.2f M | %s | %s | %s | %s | %lld/%lld | %s |\n", side,
        attempt.size.layers, attempt.size.dim, static_cast<double>(attempt.parameters) / 1e6,
        attempt.plan.c_str(), attempt.predicted ? mib(attempt.predicted).c_str() : "-",
        attempt.run.peak ? mib(attempt.run.peak).c_str() : "-",
        attempt.run.finished ? "trained" : "failed", static_cast<long long>(attempt.run.steps),
        static_cast<long long>(attempt.run.steps + (attempt.run.finished ? 0 : 1)),
        attempt.run.finished ? "" : attempt.run.message.substr(0, 80).c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    const std::int64_t steps = argc > 1 ? std::atoll(argv[1]) : 50;
    if (steps < 1) {
        std::cerr << "usage: capacity_benchmark [STEPS]\n";
        return 2;
    }
    headroom::initializeEngine();
    const std::filesystem::path work =
        std::filesystem::temp_directory_path() / "headroom-capacity-benchmark";
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);
    const std::string project =
        createProject((work / "capacity.headroom").string(), "gpt", sampleCorpus(),
                      concat(runSettings(steps), {"model.dropout=0.1"}));

    std::printf("memory.budget=1GiB on the CPU, seq 256, effective batch 16, %lld steps, OOM "
                "recovery off\n\n",
                static_cast<long long>(steps));
    std::printf("| side | layers x dim | parameters | plan | predicted | measured peak | result | "
                "steps | message |\n|---|---|---|---|---|---|---|---|---|\n");

    // Plain: up the ladder until a size fails (it fails in its first step).
    Attempt plain_best;
    for (const ModelSize &size : kLadder) {
        Attempt attempt;
        attempt.size = size;
        attempt.plan = "fp32 AdamW, micro-batch 16";
        const std::vector<std::string> settings =
            concat(concat(runSettings(steps), sizeSettings(size)), kPlain);
        headroom::PlanRequest request{project, settings, ""};
        const headroom::MemoryEstimate estimate = headroom::estimateMemory(request);
        attempt.parameters = estimate.parameters;
        attempt.predicted = estimate.peak;
        attempt.run = trainSteps(project, settings, steps);
        printAttempt("plain", attempt);
        if (!attempt.run.finished) {
            break;
        }
        plain_best = attempt;
    }

    // Planner: down the ladder from the largest size the planner calls feasible, training
    // each plan until one trains.
    Attempt planned_best;
    for (auto size = kLadder.rbegin(); size != kLadder.rend(); ++size) {
        const std::vector<std::string> settings =
            concat(concat(runSettings(steps), sizeSettings(*size)),
                   {"train.micro_batch=16", "train.accumulation=1"});
        const headroom::Plan plan = headroom::recommendPlan({project, settings, ""});
        if (!plan.feasible) {
            continue;
        }
        Attempt attempt;
        attempt.size = *size;
        attempt.parameters = plan.estimate.parameters;
        attempt.predicted = plan.estimate.peak;
        char text[160];
        std::snprintf(text, sizeof text, "%s, micro-batch %lld x %lld",
                      plan.estimate.techniques.c_str(),
                      static_cast<long long>(plan.estimate.micro_batch),
                      static_cast<long long>(plan.estimate.accumulation));
        attempt.plan = text;
        attempt.run = trainSteps(project, concat(settings, plan.overrides), steps);
        printAttempt("planner", attempt);
        if (attempt.run.finished && attempt.run.oom_recoveries == 0) {
            planned_best = attempt;
            break;
        }
    }

    if (plain_best.parameters == 0 || planned_best.parameters == 0) {
        std::cerr << "no size trained on one side\n";
        return 1;
    }
    const double ratio =
        static_cast<double>(planned_best.parameters) / static_cast<double>(plain_best.parameters);
    std::printf("\nLargest plain: %d x %d (%.2f M parameters, peak %s). Largest with the "
                "planner: %d x %d (%.2f M, peak %s, %s, %.0f tokens/s). Ratio %.1fx (target "
                ">= 2.5x).\n",
                plain_best.size.layers, plain_best.size.dim,
                static_cast<double>(plain_best.parameters) / 1e6, mib(plain_best.run.peak).c_str(),
                planned_best.size.layers, planned_best.size.dim,
                static_cast<double>(planned_best.parameters) / 1e6,
                mib(planned_best.run.peak).c_str(), planned_best.plan.c_str(),
                planned_best.run.tokens_per_s, ratio);
    std::filesystem::remove_all(work);
    return ratio >= 2.5 ? 0 : 1;
}
