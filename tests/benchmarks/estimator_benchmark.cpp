// The estimator on configurations larger than the test grid's: its predicted peak against the
// counting allocator's measured peak of two real training steps, and how long estimate and
// plan take in the process (what the desktop wizard calls on every toggle). Prints a Markdown
// table. Run with tests/benchmarks/planner_benchmarks.sh (about 10 minutes on 2 cores).

#include "planner_benchmark_support.h"

#include <headroom/config.h>
#include <headroom/engine.h>
#include <headroom/plan.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using namespace planner_benchmark;

namespace {

struct GridRow {
    std::string project; // "gpt", "lora", "tabular"
    std::vector<std::string> settings;
};

const std::vector<std::string> kTwoSteps = {
    "train.steps=2",        "train.eval_every=0", "train.checkpoint_every=0",
    "train.warmup_steps=1", "memory.budget=none", "device=cpu"};

const std::vector<std::string> kGpt384 = {"model.layers=6", "model.dim=384", "model.heads=6",
                                          "model.seq_len=256"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string> &more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

std::vector<GridRow> grid() {
    return {
        {"gpt",
         {"model.layers=4", "model.dim=256", "model.heads=4", "model.seq_len=256",
          "train.micro_batch=8"}},
        {"gpt", with(kGpt384, {"train.micro_batch=4"})},
        {"gpt", with(kGpt384, {"train.micro_batch=8", "precision=bf16"})},
        {"gpt", with(kGpt384, {"train.micro_batch=8", "checkpointing=1"})},
        {"gpt", with(kGpt384, {"train.micro_batch=8", "checkpointing=2", "precision=bf16"})},
        {"gpt", with(kGpt384, {"train.micro_batch=4", "optimizer=adamw8bit"})},
        {"gpt", with(kGpt384, {"train.micro_batch=4", "train.accumulation=4"})},
        {"gpt",
         {"model.layers=4", "model.dim=256", "model.heads=4", "model.seq_len=512",
          "train.micro_batch=2"}},
        {"gpt",
         {"model.layers=8", "model.dim=512", "model.heads=8", "model.seq_len=128",
          "train.micro_batch=4", "precision=bf16", "checkpointing=1", "optimizer=adamw8bit"}},
        {"gpt",
         {"model.layers=12", "model.dim=768", "model.heads=12", "model.seq_len=256",
          "train.micro_batch=1", "checkpointing=1", "optimizer=adamw8bit"}},
        {"lora", {"train.micro_batch=8", "lora.rank=8", "lora.base_run=1"}},
        {"lora",
         {"train.micro_batch=8", "lora.rank=16", "lora.base_run=1", "precision=bf16",
          "checkpointing=1"}},
        {"tabular", {"model.hidden=1024,1024,512", "train.micro_batch=1024"}},
        {"tabular", {"model.hidden=1024,1024,512", "train.micro_batch=1024", "precision=bf16"}},
        {"tabular",
         {"model.hidden=4096,4096", "train.micro_batch=256", "optimizer=adamw8bit",
          "model.embedding_dim=16"}},
    };
}

template <typename Work> double medianMilliseconds(int repeats, Work &&work) {
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        const auto started = std::chrono::steady_clock::now();
        work();
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

double errorPercent(std::uint64_t predicted, std::uint64_t measured) {
    return 100.0 * (static_cast<double>(predicted) - static_cast<double>(measured)) /
           static_cast<double>(measured);
}

std::string percent(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", value);
    return text;
}

} // namespace

int main(int argc, char **argv) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    headroom::initializeEngine();
    const std::filesystem::path work =
        std::filesystem::temp_directory_path() / "headroom-estimator-benchmark";
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);

    const std::string gpt = createProject((work / "gpt.headroom").string(), "gpt", sampleCorpus(),
                                          {"model.dropout=0.1"});
    const std::string tabular = createProject((work / "tabular.headroom").string(), "tabular",
                                              sampleTable(), {"data.target=health"});
    // LoRA adapters train on top of a base run of the same shape: one step with a checkpoint.
    const std::string lora = createProject((work / "lora.headroom").string(), "gpt", sampleCorpus(),
                                           with(kGpt384, {"train.steps=1"}));
    if (!trainSteps(lora, {"train.checkpoint_every=1"}, 1).finished) {
        std::cerr << "the LoRA base run failed\n";
        return 1;
    }
    const auto projectPath = [&](const std::string &name) {
        return name == "gpt" ? gpt : name == "lora" ? lora : tabular;
    };

    std::cout << "| project | settings | parameters | predicted | measured | error | "
                 "with history | error | estimate | plan |\n"
              << "|---|---|---|---|---|---|---|---|---|---|\n";
    std::vector<double> model_errors;
    std::vector<double> corrected_errors;
    double slowest_estimate = 0;
    double slowest_plan = 0;
    for (const GridRow &row : grid()) {
        headroom::PlanRequest request;
        request.project_path = projectPath(row.project);
        request.overrides = with(kTwoSteps, row.settings);
        headroom::MemoryEstimate estimate;
        const double estimate_ms =
            medianMilliseconds(21, [&] { estimate = headroom::estimateMemory(request); });
        const double plan_ms = medianMilliseconds(5, [&] { headroom::recommendPlan(request); });
        const MeasuredRun run = trainSteps(request.project_path, request.overrides, 2);
        if (!run.finished || run.peak == 0) {
            std::cerr << joined(row.settings) << ": training failed: " << run.message << "\n";
            return 1;
        }
        const double model_error = errorPercent(estimate.model_peak, run.peak);
        const double corrected_error = errorPercent(estimate.peak, run.peak);
        model_errors.push_back(std::abs(model_error));
        corrected_errors.push_back(std::abs(corrected_error));
        slowest_estimate = std::max(slowest_estimate, estimate_ms);
        slowest_plan = std::max(slowest_plan, plan_ms);
        char times[64];
        std::snprintf(times, sizeof times, "%.2f ms | %.1f ms", estimate_ms, plan_ms);
        std::cout << "| " << row.project << " | " << joined(row.settings) << " | "
                  << estimate.parameters << " | " << mib(estimate.model_peak) << " | "
                  << mib(run.peak) << " | " << percent(model_error) << " | " << mib(estimate.peak)
                  << " (x" << estimate.correction << ", " << estimate.history_samples << " runs) | "
                  << percent(corrected_error) << " | " << times << " |" << std::endl;
    }
    const auto median = [](std::vector<double> values) {
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
    };
    std::printf("\n%zu configurations. Analytic model: median |error| %.2f %%, worst %.2f %%. "
                "With the memory-history correction: median %.2f %%, worst %.2f %%.\n"
                "Slowest estimate %.2f ms, slowest plan %.1f ms (in process, median of repeats).\n",
                model_errors.size(), median(model_errors),
                *std::max_element(model_errors.begin(), model_errors.end()),
                median(corrected_errors),
                *std::max_element(corrected_errors.begin(), corrected_errors.end()),
                slowest_estimate, slowest_plan);
    std::filesystem::remove_all(work);
    return 0;
}
