// The step-time model: the matmul and attention FLOPs of a GPT step over the calibrated
// training-block throughput (forward and backward of one block under the precision's
// autocast, so casts and memory-bound ops are in it; a small, a short and a tall block,
// interpolated by the micro-batch's GEMM size), plus the elementwise work the block
// leaves out (dropouts, head splits, embeddings, the optimizer update) at the calibrated fp32
// elementwise rate. Both constants are fitted with tests/benchmarks/step_time.sh on the
// machine in docs/BENCHMARKS.md.
//
// An MoE block (models/moe.h) counts the work its tokens are routed to, not the experts it
// has: the attention GEMMs, the router, and per token top_k expert MLPs (2 x dim x hidden
// weights each) scaled down by what capacity can drop at best (balanced routing), plus the
// dispatch's gathers, gate products and scatter-adds as elementwise work per kept assignment.
#include "plan/step_time.h"

#include "models/gpt.h"
#include "recipes/recipe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace headroom::plan {

namespace {

// Calibrated block rate / the rate a whole step's FLOPs run at.
constexpr double kEfficiency = 1.0;
// Elementwise passes over tokens x layers x dim per forward or backward pass outside the
// calibrated block; its share of a step is the larger, the smaller the model.
constexpr double kElementPassesPerLayer = 25;
// Elementwise passes over dim per kept expert assignment and forward or backward pass: the
// gather of the token, the gate product, the scatter-add and their gradients, the sort.
constexpr double kDispatchPassesPerAssignment = 6;

// The share of a token's top_k assignments an expert's capacity keeps when routing is
// balanced: capacity x experts slots for length x top_k assignments per sequence.
double keptShare(const models::MoeOptions &moe, std::int64_t length) {
    const std::int64_t capacity = models::expertCapacity(moe, length);
    if (capacity == 0) {
        return 1.0;
    }
    return std::min(1.0, static_cast<double>(capacity * moe.experts()) /
                             static_cast<double>(length * moe.top_k()));
}

// The calibrated block rate for GEMMs of this size: geometric between the two nearest of the
// small, short and tall blocks (kernel efficiency grows roughly with the logarithm of the
// matrices' size), the end points' rates beyond them. A point not measured is left out.
double blockGflops(const PrecisionSpeed &speed, const StepWork &work) {
    std::vector<std::pair<double, double>> points; // (rows x dim, GFLOP/s), by size
    if (speed.small_training_gflops > 0) {
        points.emplace_back(
            static_cast<double>(kSmallBlockBatch * kSmallBlockLength * kSmallBlockDim),
            speed.small_training_gflops);
    }
    points.emplace_back(static_cast<double>(kShortBlockTokens * kShortBlockDim),
                        speed.training_gflops);
    if (speed.tall_training_gflops > 0) {
        points.emplace_back(static_cast<double>(kTallBlockBatch * kTallBlockLength * kTallBlockDim),
                            speed.tall_training_gflops);
    }
    const double size = std::max(work.gemm_rows_by_dim, 1.0);
    if (size <= points.front().first) {
        return points.front().second;
    }
    for (std::size_t index = 1; index < points.size(); ++index) {
        const auto &[low_size, low_rate] = points[index - 1];
        const auto &[high_size, high_rate] = points[index];
        if (size < high_size) {
            const double position = std::log(size / low_size) / std::log(high_size / low_size);
            return low_rate * std::pow(high_rate / low_rate, position);
        }
    }
    return points.back().second;
}

} // namespace

std::optional<StepWork> stepWork(const Config &config, const ModelFacts &facts) {
    if (!config.isLanguageModel() || !config.text("model.base").empty() || facts.vocab_size <= 0) {
        return std::nullopt;
    }
    const models::GptOptions options = train::gptOptionsFromConfig(config, facts.vocab_size);
    const auto layers = static_cast<double>(options.layers());
    const auto dim = static_cast<double>(options.dim());
    const auto length = static_cast<double>(options.seq_len());
    const auto vocab = static_cast<double>(facts.vocab_size);
    const auto sequences = static_cast<double>(config.integer("train.micro_batch") *
                                               config.integer("train.accumulation"));
    const double tokens = sequences * length;
    const bool checkpointing = config.integer("checkpointing") > 0;

    // Forward FLOPs per token: 2 per weight of the block GEMMs (qkv, output, MLP) and the head;
    // an MoE block's MLP is its router and the kept share of top_k experts.
    const models::MoeOptions &moe = options.moe();
    double block_forward = 0;
    double assignments = 0; // kept expert assignments per token, over all blocks
    for (std::int64_t layer = 0; layer < options.layers(); ++layer) {
        if (!models::isMoeBlock(options, layer)) {
            block_forward += 2 * 12 * dim * dim;
            continue;
        }
        const auto hidden = static_cast<double>(models::expertHidden(moe, options.dim()));
        const double kept = static_cast<double>(moe.top_k()) * keptShare(moe, options.seq_len());
        block_forward += 2 * (4 * dim * dim + static_cast<double>(moe.experts()) * dim +
                              kept * 2 * dim * hidden);
        assignments += kept;
    }
    const double head_forward = 2 * dim * vocab;
    // Backward is twice the forward; checkpointing recomputes the blocks' forward once more.
    const double passes = checkpointing ? 4 : 3;
    StepWork work;
    work.matmul_flops = tokens * (passes * block_forward + 3 * head_forward);
    work.attention_flops = passes * layers * sequences * 4 * length * length * dim;
    work.gemm_rows_by_dim = static_cast<double>(config.integer("train.micro_batch")) * length * dim;
    work.elements = passes *
                    (kElementPassesPerLayer * layers + kDispatchPassesPerAssignment * assignments) *
                    tokens * dim;
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
    return (work.matmul_flops + work.attention_flops) / (blockGflops(*speed, work) * 1e9) /
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
