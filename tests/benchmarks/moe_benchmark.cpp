// Mixture-of-Experts memory benchmarks (issue #21), run by moe.sh. Prints Markdown tables.
//
//   moe_benchmark dispatch [DIM TOKENS_PER_ROW ROWS]
//     Peak memory of forward + backward of one MoE layer: Headroom's sort/gather dispatch
//     (models/moe.h) against a naive dense-mask layer that runs every expert on every token
//     and multiplies by a tokens x experts gate mask, at 4 and 16 experts. Both use the same
//     weights and the same routing (the mask holds exactly the dispatch's kept gates), and
//     must give the same output. Peaks come from the counting CPU allocator.
//   moe_benchmark capacity [STEPS]
//     The largest MoE GPT along a ladder of layers x dim x experts that trains under
//     memory.budget=1GiB with plain fp32 AdamW and with the techniques (bf16 where this CPU's
//     speed calibration allows, else fp32; activation checkpointing; 8-bit AdamW): the
//     estimator picks the largest size it predicts to fit, real steps with OOM recovery off
//     confirm it (stepping down while a run fails).

#include "memory/cpu_allocator.h"
#include "models/expert_dispatch.h"
#include "models/moe.h"
#include "planner_benchmark_support.h"

#include <headroom/engine.h>
#include <headroom/plan.h>
#include <headroom/speed_calibration.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using namespace planner_benchmark;
using headroom::models::MoeLayer;
using headroom::models::MoeOptions;

namespace {

using Clock = std::chrono::steady_clock;

struct PeakRun {
    std::uint64_t peak = 0; // above the live bytes before the forward pass
    double seconds = 0;
    torch::Tensor output;
};

// The naive layer: all experts on all tokens, [tokens, experts] gate mask. The mask is built
// from the dispatch's own routing decisions, so both layers compute the same function.
torch::Tensor naiveForward(MoeLayer &layer, const torch::Tensor &x) {
    const MoeOptions &options = layer->options();
    const std::int64_t rows = x.size(0);
    const std::int64_t length = x.size(1);
    const std::int64_t tokens = rows * length;
    const std::int64_t k = options.top_k();
    const torch::Tensor flat = x.reshape({tokens, -1});
    const torch::Tensor logits = headroom::models::routerLogits(flat, layer->router->weight);
    const auto top = torch::softmax(logits, -1).topk(k, -1);
    const torch::Tensor top_probabilities = std::get<0>(top);
    const torch::Tensor gates =
        k == 1 ? top_probabilities : top_probabilities / top_probabilities.sum(-1, true);
    const headroom::models::ExpertAssignments assignments =
        headroom::models::sortAssignments(std::get<1>(top), rows, length, options.experts(),
                                          headroom::models::expertCapacity(options, length));
    const torch::Tensor kept_token = assignments.kept.div(k, "floor");
    const torch::Tensor kept_expert =
        std::get<1>(top).reshape({-1}).index_select(0, assignments.kept);
    const torch::Tensor mask =
        torch::zeros({tokens, options.experts()}, gates.options())
            .index_put({kept_token, kept_expert},
                       gates.reshape({-1}).index_select(0, assignments.kept));
    torch::Tensor output = torch::zeros_like(flat);
    for (std::int64_t e = 0; e < options.experts(); ++e) {
        auto expert =
            layer->experts[static_cast<std::size_t>(e)]->as<headroom::models::ExpertMlp>();
        const torch::Tensor y = expert->fc_out(torch::gelu(expert->fc(flat)));
        output = output + y * mask.narrow(1, e, 1);
    }
    return output.view(x.sizes());
}

PeakRun measure(MoeLayer &layer, const torch::Tensor &x, const torch::Tensor &grad_output,
                bool naive) {
    layer->zero_grad(/*set_to_none=*/true);
    headroom::memory::resetCpuPeak();
    const std::uint64_t before = headroom::memory::cpuMemoryStats().live;
    const Clock::time_point start = Clock::now();
    PeakRun run;
    {
        torch::Tensor objective;
        if (naive) {
            run.output = naiveForward(layer, x);
            objective = (run.output * grad_output).sum();
        } else {
            headroom::models::MoeOutput routed = layer->forward(x);
            run.output = routed.output;
            // The balancing and z losses are the dispatch's own extra work; both weighted
            // as the recipe's defaults.
            objective =
                (run.output * grad_output).sum() + 0.01 * routed.aux_loss + 0.001 * routed.z_loss;
        }
        objective.backward();
    }
    run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.peak = headroom::memory::cpuMemoryStats().peak - before;
    run.output = run.output.detach();
    return run;
}

int dispatchBenchmark(std::int64_t dim, std::int64_t length, std::int64_t rows) {
    headroom::initializeEngine();
    headroom::memory::installCountingCpuAllocator();
    std::printf("One MoE layer, forward + backward: dim %lld, expert hidden %lld, %lld x %lld "
                "tokens, top-2, capacity factor 1.25, fp32, %d threads. Peak: the counting "
                "allocator's, above the live bytes before the forward pass (so the experts' "
                "weight gradients are in it, alike for both).\n\n",
                static_cast<long long>(dim), static_cast<long long>(4 * dim),
                static_cast<long long>(rows), static_cast<long long>(length),
                at::get_num_threads());
    std::printf("| experts | parameters | dispatch peak | dense-mask peak | dense-mask / "
                "dispatch | dispatch time | dense-mask time | max abs output diff |\n"
                "|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (const std::int64_t experts : {4, 16}) {
        torch::manual_seed(7);
        MoeLayer layer(dim, MoeOptions().experts(experts).top_k(2).capacity_factor(1.25));
        layer->resetParameters(0.02, 0.02 / std::sqrt(8.0));
        std::int64_t parameters = 0;
        for (const torch::Tensor &parameter : layer->parameters()) {
            parameters += parameter.numel();
        }
        const torch::Tensor x = torch::randn({rows, length, dim});
        const torch::Tensor grad_output = torch::randn({rows, length, dim});
        measure(layer, x, grad_output, false); // warm-up: allocator pools, kernel choices
        const PeakRun dispatch = measure(layer, x, grad_output, false);
        const PeakRun naive = measure(layer, x, grad_output, true);
        const double difference = (dispatch.output - naive.output).abs().max().item<double>();
        if (difference > 1e-4) {
            status = 1;
        }
        std::printf("| %lld | %.2f M | %s | %s | %.1fx | %.2f s | %.2f s | %.1e |\n",
                    static_cast<long long>(experts), static_cast<double>(parameters) / 1e6,
                    mib(dispatch.peak).c_str(), mib(naive.peak).c_str(),
                    static_cast<double>(naive.peak) / static_cast<double>(dispatch.peak),
                    dispatch.seconds, naive.seconds, difference);
        std::fflush(stdout);
    }
    return status;
}

struct Rung {
    int layers;
    int dim;
    int experts;
};

// Roughly 1.2-1.5x more parameters per rung; heads of width 64, expert hidden 4 x dim, top-2.
const std::vector<Rung> kLadder = {
    {2, 128, 4}, {4, 128, 4}, {4, 192, 4},  {4, 256, 4},  {6, 256, 4},  {4, 256, 8},
    {6, 256, 8}, {8, 256, 8}, {6, 320, 8},  {8, 320, 8},  {8, 384, 8},  {10, 384, 8},
    {8, 448, 8}, {8, 512, 8}, {10, 512, 8}, {8, 512, 16}, {10, 512, 16}};

std::vector<std::string> rungSettings(const Rung &rung) {
    return {"model.layers=" + std::to_string(rung.layers),
            "model.dim=" + std::to_string(rung.dim),
            "model.heads=" + std::to_string(std::max(1, rung.dim / 64)),
            "moe.experts=" + std::to_string(rung.experts),
            "moe.top_k=2",
            "moe.capacity_factor=1.25"};
}

std::vector<std::string> concat(std::vector<std::string> first,
                                const std::vector<std::string> &second) {
    first.insert(first.end(), second.begin(), second.end());
    return first;
}

// Parameters a token passes through: the unchosen experts of each MoE block left out.
std::int64_t activeParameters(const Rung &rung, std::int64_t total) {
    const std::int64_t hidden = 4 * rung.dim;
    const std::int64_t expert = 2 * rung.dim * hidden + hidden + rung.dim;
    return total - rung.layers * (rung.experts - 2) * expert;
}

std::string sizeName(const Rung &rung) {
    return std::to_string(rung.layers) + " x " + std::to_string(rung.dim) + " x " +
           std::to_string(rung.experts) + "E";
}

// Down from the largest rung the estimator fits, training each until one trains.
void largestThatTrains(const char *side, const std::string &project,
                       const std::vector<std::string> &settings,
                       const std::vector<headroom::MemoryEstimate> &estimates, std::int64_t steps) {
    for (std::size_t index = kLadder.size(); index-- > 0;) {
        if (!estimates[index].fits) {
            continue;
        }
        const MeasuredRun run =
            trainSteps(project, concat(settings, rungSettings(kLadder[index])), steps);
        const std::int64_t total = estimates[index].parameters;
        std::printf("| %s | %s | %.1f M | %.1f M | %s | %s | %s | %lld/%lld | %.0f | %s |\n", side,
                    sizeName(kLadder[index]).c_str(), static_cast<double>(total) / 1e6,
                    static_cast<double>(activeParameters(kLadder[index], total)) / 1e6,
                    mib(estimates[index].peak).c_str(), run.peak ? mib(run.peak).c_str() : "-",
                    run.finished && run.oom_recoveries == 0 ? "trained" : "failed",
                    static_cast<long long>(run.steps), static_cast<long long>(steps),
                    run.tokens_per_s, run.finished ? "" : run.message.substr(0, 80).c_str());
        std::fflush(stdout);
        if (run.finished && run.oom_recoveries == 0) {
            return;
        }
    }
}

int capacityBenchmark(std::int64_t steps) {
    headroom::initializeEngine();
    std::string precision = "bf16";
    std::optional<headroom::SpeedCalibration> calibration = headroom::cachedSpeedCalibration("cpu");
    if (!calibration) {
        calibration = headroom::calibrateSpeed();
        headroom::storeSpeedCalibration(*calibration);
    }
    const std::string slow = headroom::slowPrecisionReason(*calibration, "bf16");
    const headroom::PrecisionSpeed *bf16 = calibration->find("bf16");
    if (!slow.empty() || bf16 == nullptr || !bf16->supported) {
        precision = "fp32";
    }
    const std::vector<std::string> run = {"device=cpu",
                                          "memory.budget=1GiB",
                                          "model.seq_len=256",
                                          "model.dropout=0",
                                          "train.micro_batch=16",
                                          "train.accumulation=1",
                                          "train.steps=" + std::to_string(steps),
                                          "train.warmup_steps=1",
                                          "train.eval_every=0",
                                          "train.checkpoint_every=0",
                                          "recovery.ladder=none",
                                          "recovery.max_recoveries=0"};
    const std::vector<std::string> plain = {"precision=fp32", "checkpointing=0", "optimizer=adamw",
                                            "offload.optimizer=off"};
    const std::vector<std::string> techniques = {"precision=" + precision, "checkpointing=1",
                                                 "optimizer=adamw8bit", "offload.optimizer=off"};
    const std::filesystem::path work =
        std::filesystem::temp_directory_path() / "headroom-moe-capacity-benchmark";
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);
    const std::string project =
        createProject((work / "moe.headroom").string(), "gpt", sampleCorpus(),
                      concat(run, rungSettings(kLadder.front())));

    std::printf("memory.budget=1GiB on the CPU, seq 256, micro-batch 16, top-2 of E experts "
                "(hidden 4 x dim, capacity factor 1.25), %lld steps, OOM recovery off. "
                "Techniques: %s (%s), checkpointing=1, adamw8bit.\n\n",
                static_cast<long long>(steps), precision.c_str(),
                slow.empty() ? "the calibration allows bf16" : slow.c_str());
    std::printf("Estimates (layers x dim x experts):\n\n| size | parameters | active | plain "
                "estimate | techniques estimate |\n|---|---|---|---|---|\n");
    std::vector<headroom::MemoryEstimate> plain_estimates;
    std::vector<headroom::MemoryEstimate> technique_estimates;
    for (const Rung &rung : kLadder) {
        plain_estimates.push_back(headroom::estimateMemory(
            {project, concat(concat(run, plain), rungSettings(rung)), ""}));
        technique_estimates.push_back(headroom::estimateMemory(
            {project, concat(concat(run, techniques), rungSettings(rung)), ""}));
        const std::int64_t total = plain_estimates.back().parameters;
        std::printf("| %s | %.1f M | %.1f M | %s%s | %s%s |\n", sizeName(rung).c_str(),
                    static_cast<double>(total) / 1e6,
                    static_cast<double>(activeParameters(rung, total)) / 1e6,
                    mib(plain_estimates.back().peak).c_str(),
                    plain_estimates.back().fits ? "" : " (over)",
                    mib(technique_estimates.back().peak).c_str(),
                    technique_estimates.back().fits ? "" : " (over)");
    }
    std::printf("\nConfirmed with real steps:\n\n| side | size | parameters | active | "
                "estimate | measured peak | result | steps | tokens/s | message |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    largestThatTrains("plain fp32 AdamW", project, concat(run, plain), plain_estimates, steps);
    largestThatTrains("techniques", project, concat(run, techniques), technique_estimates, steps);
    std::filesystem::remove_all(work);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    const std::string mode = argc > 1 ? argv[1] : "";
    try {
        if (mode == "dispatch") {
            return dispatchBenchmark(argc > 2 ? std::atoll(argv[2]) : 512,
                                     argc > 3 ? std::atoll(argv[3]) : 256,
                                     argc > 4 ? std::atoll(argv[4]) : 8);
        }
        if (mode == "capacity") {
            const std::int64_t steps = argc > 2 ? std::atoll(argv[2]) : 3;
            if (steps >= 1) {
                return capacityBenchmark(steps);
            }
        }
    } catch (const std::exception &error) {
        std::cerr << "moe_benchmark: " << error.what() << "\n";
        return 1;
    }
    std::cerr << "usage: moe_benchmark dispatch [DIM LENGTH ROWS] | capacity [STEPS]\n";
    return 2;
}
