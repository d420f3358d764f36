// The step-time model: the matmul and attention FLOPs of a GPT step over the calibrated
// training-block throughput (forward and backward of one block under the precision's
// autocast, so casts and memory-bound ops are in it), plus the elementwise work the block
// leaves out (dropouts, head splits, embeddings, the optimizer update) at the calibrated fp32
// elementwise rate. Both constants are fitted with tests/benchmarks/step_time.sh on the
// machine in docs/BENCHMARKS.md.
#include "plan/step_time.h"

#include <cstdio>

namespace headroom::plan {

namespace {

// Calibrated block rate / the rate a whole step's FLOPs run at.
constexpr double kEfficiency = 1.0;
// Elementwise passes over tokens x layers x dim per forward or backward pass outside the
// calibrated block; its share of a step is the larger, the smaller the model.
constexpr double kElementPassesPerLayer = 25;

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
    work.elements = passes * kElementPassesPerLayer * tokens * layers * dim;
    return work;
}

double predictStepSeconds(const StepWork &work, const SpeedCalibration &calibration,
                          const std::string &precision) {
    const PrecisionSpeed *speed = calibration.find(precision);
    const PrecisionSpeed *fp32 = calibration.find("fp32");
    if (speed == nullptr || !speed->supported || speed->training_gflops <= 0 || fp32 == nullptr ||
        fp32->elementwise_gelems <= 0) {
        return 0;
    }
    // Autocast leaves dropout, copies and the optimizer in fp32.
    return (work.matmul_flops + work.attention_flops) / (speed->training_gflops * 1e9) /
               kEfficiency +
           work.elements / (fp32->elementwise_gelems * 1e9);
}

std::string speedNote(const std::optional<SpeedCalibration> &calibration) {
    if (!calibration) {
        return "speeds uncalibrated: constant factors per technique (measure this machine with "
               "headroom-cli devices --calibrate)";
    }
    char text[160];
    std::snprintf(text, sizeof text, "speeds calibrated on %s (%s, LibTorch %s, %d threads)",
                  calibration->device.c_str(), calibration->device_name.c_str(),
                  calibration->torch_version.c_str(), calibration->threads);
    return text;
}

} // namespace headroom::plan
