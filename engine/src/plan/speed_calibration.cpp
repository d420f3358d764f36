// Measures matmul, attention, elementwise and whole-block training throughput per precision on
// one device. The
// precisions are timed side by side, shape by shape, so a machine whose load changes during
// the measurement still gives fair ratios.
#include "compat/attention.h"
#include "compat/autocast.h"
#include "compat/cpu_gemm.h"
#include "device/cpu_flags.h"
#include "device/resolve_device.h"
#include "models/cpu_linear.h"
#include "util/text.h"

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/speed_calibration.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <optional>

namespace headroom {

namespace {

using Clock = std::chrono::steady_clock;

enum class Op {
    Matmul,
    Attention,
    Elementwise,
    TrainingBlock,
    SmallTrainingBlock,
    TallTrainingBlock
};

// One timed piece of work: `run` does it once on tensors made by `prepare`; `work` is its
// FLOPs (elements for the elementwise op).
struct Shape {
    Op op;
    double work;
    std::function<std::function<void()>(const torch::TensorOptions &)> prepare;
};

// The GEMMs of one transformer block at `dim` over `tokens` rows, as the GPT's linear layers
// compute them (models/cpu_linear.h; weights [out, in]; some kernels pick another path for other
// layouts): the fused qkv
// and output projections and the two MLP layers.
Shape blockGemms(std::int64_t tokens, std::int64_t dim) {
    const double flops = 2.0 * static_cast<double>(tokens * dim * dim) * (3 + 1 + 4 + 4);
    return {Op::Matmul, flops, [tokens, dim](const torch::TensorOptions &options) {
                const torch::Tensor x = torch::randn({tokens, dim}, options);
                const torch::Tensor qkv = torch::randn({3 * dim, dim}, options);
                const torch::Tensor out = torch::randn({dim, dim}, options);
                const torch::Tensor up = torch::randn({4 * dim, dim}, options);
                const torch::Tensor down = torch::randn({dim, 4 * dim}, options);
                return std::function<void()>([=] {
                    const torch::Tensor hidden = models::cpuLinear(x, up);
                    (void)models::cpuLinear(x, qkv);
                    (void)models::cpuLinear(x, out);
                    models::cpuLinear(hidden, down).flatten()[0].item<float>();
                });
            }};
}

// Causal self-attention as the models run it; counted as the full T x T products.
Shape attention(std::int64_t batch, std::int64_t length, std::int64_t dim, std::int64_t heads) {
    const double flops = 4.0 * static_cast<double>(batch * length * length * dim);
    return {Op::Attention, flops, [=](const torch::TensorOptions &options) {
                const torch::Tensor qkv = torch::randn({batch, length, 3 * dim}, options);
                return std::function<void()>(
                    [=] { compat::causalSelfAttention(qkv, heads, 0).flatten()[0].item<float>(); });
            }};
}

// GELU and a residual add over an MLP activation: the memory-bound share of a step.
Shape elementwise(std::int64_t rows, std::int64_t columns) {
    return {Op::Elementwise, static_cast<double>(rows * columns),
            [rows, columns](const torch::TensorOptions &options) {
                const torch::Tensor a = torch::randn({rows, columns}, options);
                const torch::Tensor b = torch::randn({rows, columns}, options);
                return std::function<void()>(
                    [=] { at::gelu(a).add_(b).flatten()[0].item<float>(); });
            }};
}

// Forward and backward of one GPT block (norms, fused qkv, causal attention, output projection,
// GELU MLP, residuals) with fp32 weights, under autocast for bf16 and fp16 as training runs it:
// the casts and the memory-bound ops are in this rate, unlike in the bare GEMMs'. Counted as
// the model FLOPs of stepWork (engine/src/plan/step_time.cpp) for the same shape.
Shape trainingBlock(std::int64_t batch, std::int64_t length, std::int64_t dim, std::int64_t heads,
                    Op op = Op::TrainingBlock) {
    const auto tokens = static_cast<double>(batch * length);
    const double flops = 6 * 12 * tokens * static_cast<double>(dim * dim) +
                         3 * 4 * tokens * static_cast<double>(length * dim);
    return {
        op, flops, [=](const torch::TensorOptions &options) {
            const torch::TensorOptions fp32 = options.dtype(torch::kFloat32);
            const auto weight = [&](std::int64_t out, std::int64_t in) {
                return (torch::randn({out, in}, fp32) * 0.02).requires_grad_();
            };
            const std::vector<torch::Tensor> weights{weight(3 * dim, dim), weight(dim, dim),
                                                     weight(4 * dim, dim), weight(dim, 4 * dim)};
            const torch::Tensor x = torch::randn({batch * length, dim}, fp32);
            const torch::ScalarType dtype = options.dtype().toScalarType();
            const torch::DeviceType device = options.device().type();
            return std::function<void()>([=] {
                torch::AutoGradMode grad(true);
                std::optional<compat::AutocastGuard> autocast;
                if (dtype != torch::kFloat32) {
                    autocast.emplace(device, dtype);
                }
                const torch::Tensor qkv = models::cpuLinear(at::layer_norm(x, {dim}), weights[0]);
                const torch::Tensor attended =
                    compat::causalSelfAttention(qkv.view({batch, length, 3 * dim}), heads, 0);
                const torch::Tensor residual = x + models::cpuLinear(attended, weights[1]);
                const torch::Tensor hidden =
                    at::gelu(models::cpuLinear(at::layer_norm(residual, {dim}), weights[2]));
                const torch::Tensor out = residual + models::cpuLinear(hidden, weights[3]);
                out.to(torch::kFloat32).square().mean().backward();
                for (const torch::Tensor &parameter : weights) {
                    parameter.mutable_grad().reset();
                }
            });
        }};
}

// The short blocks are the ones step_time.cpp places at kShortBlockTokens x kShortBlockDim.
std::vector<Shape> calibrationShapes() {
    constexpr std::int64_t short_batch = 4;
    constexpr std::int64_t short_length = 128;
    static_assert(short_batch * short_length == kShortBlockTokens);
    return {
        blockGemms(512, 256),
        blockGemms(512, 512),
        blockGemms(512, 1024),
        attention(8, 256, 256, 4),
        attention(8, 256, 512, 8),
        elementwise(512, 1024),
        elementwise(512, 4096),
        trainingBlock(short_batch, short_length, 256, 4),
        trainingBlock(short_batch, short_length, kShortBlockDim, 6),
        trainingBlock(kTallBlockBatch, kTallBlockLength, kTallBlockDim, 6, Op::TallTrainingBlock),
        trainingBlock(kSmallBlockBatch, kSmallBlockLength, kSmallBlockDim, 4,
                      Op::SmallTrainingBlock)};
}

struct Tally {
    double work = 0;
    double seconds = 0;
};

struct PrecisionRun {
    PrecisionSpeed speed;
    torch::ScalarType dtype;
    std::map<Op, Tally> tallies;
    double first_seconds = 0; // per repetition of the first shape
};

using util::firstLine;

std::vector<std::string> readCpuFlagsOrEmpty() {
    try {
        return device::readCpuVectorFlags();
    } catch (const std::exception &) {
        return {};
    }
}

std::string deviceName(const torch::Device &device, const DeviceReport &report) {
    if (device.is_cuda()) {
        for (const CudaDeviceInfo &gpu : report.cuda) {
            if (gpu.index == device.index()) {
                return gpu.name;
            }
        }
        return "CUDA GPU";
    }
    if (device.is_mps()) {
        return "Apple GPU";
    }
    return report.cpu.model.empty() ? std::string("CPU") : report.cpu.model;
}

std::string canonicalDevice(const torch::Device &device) {
    if (device.is_cuda()) {
        return "cuda:" + std::to_string(device.has_index() ? device.index() : 0);
    }
    return device.str();
}

// Times `run` until `slice` seconds passed (at least once, at most 50 times). The median
// repetition stands for all: on a shared machine one descheduled repetition can take several
// times the others.
Tally timeRepeated(const std::function<void()> &run, double work, double slice) {
    std::vector<double> durations;
    const Clock::time_point start = Clock::now();
    while (durations.size() < 50) {
        const Clock::time_point before = Clock::now();
        run();
        const Clock::time_point after = Clock::now();
        durations.push_back(std::chrono::duration<double>(after - before).count());
        if (std::chrono::duration<double>(after - start).count() >= slice) {
            break;
        }
    }
    std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
    const double median = durations[durations.size() / 2];
    return {work * static_cast<double>(durations.size()),
            median * static_cast<double>(durations.size())};
}

double throughput(const Tally &tally, double scale) {
    return tally.seconds > 0 ? tally.work / tally.seconds / scale : 0;
}

} // namespace

SpeedCalibration calibrateSpeed(const CalibrationOptions &options) {
    const torch::Device device = device::resolveDevice(options.device);
    const DeviceReport report = detectDevices();
    const Clock::time_point started = Clock::now();

    SpeedCalibration calibration;
    calibration.version = kSpeedCalibrationVersion;
    calibration.device = canonicalDevice(device);
    calibration.device_name = deviceName(device, report);
    calibration.torch_version = report.torch_version;
    calibration.threads = at::get_num_threads();
    if (calibration.device == "cpu") {
        calibration.cpu_gemm = compat::cpuGemmDescription(); // a GPU's matmuls do not use it
    }
    calibration.cpu_flags = readCpuFlagsOrEmpty();

    std::vector<PrecisionRun> runs;
    for (const auto &[name, dtype] :
         {std::pair{"fp32", torch::kFloat32}, std::pair{"bf16", torch::kBFloat16},
          std::pair{"fp16", torch::kHalf}}) {
        PrecisionRun run{{}, dtype, {}, 0};
        run.speed.precision = name;
        run.speed.supported = true;
        if (dtype != torch::kFloat32) {
            run.speed.unsupported_reason = compat::autocastUnsupportedReason(device.type(), dtype);
            run.speed.supported = run.speed.unsupported_reason.empty();
        }
        runs.push_back(run);
    }

    std::vector<Shape> shapes = calibrationShapes();
    if (options.quick) {
        shapes.resize(1);
    }
    const auto measuring = [](const PrecisionRun &run) {
        return run.speed.supported && !run.speed.stopped_early;
    };
    torch::NoGradGuard no_grad;
    for (std::size_t index = 0; index < shapes.size(); ++index) {
        const Shape &shape = shapes[index];
        const auto active = static_cast<double>(std::count_if(runs.begin(), runs.end(), measuring));
        const double slice =
            options.time_budget_s / static_cast<double>(shapes.size()) / std::max(1.0, active);
        for (PrecisionRun &run : runs) {
            if (!measuring(run)) {
                continue;
            }
            try {
                const std::function<void()> once =
                    shape.prepare(torch::TensorOptions().dtype(run.dtype).device(device));
                once(); // first-call setup (kernel selection, allocator) is not the speed
                const Tally tally = timeRepeated(once, shape.work, slice);
                Tally &sum = run.tallies[shape.op];
                sum.work += tally.work;
                sum.seconds += tally.seconds;
                if (index == 0) {
                    run.first_seconds = tally.seconds * shape.work / tally.work;
                }
            } catch (const std::exception &error) {
                // c10::Error, or oneDNN's own (dnnl::error: bf16 under DNNL_MAX_CPU_ISA=AVX2).
                const auto *torch_error = dynamic_cast<const c10::Error *>(&error);
                run.speed.supported = false;
                run.speed.unsupported_reason = firstLine(
                    torch_error != nullptr ? torch_error->what_without_backtrace() : error.what());
                continue;
            }
            const double fp32_first = runs.front().first_seconds;
            if (index == 0 && &run != &runs.front() &&
                run.first_seconds > options.give_up_ratio * fp32_first) {
                run.speed.stopped_early = true;
            }
        }
    }

    const std::map<Op, Tally> &reference = runs.front().tallies;
    for (PrecisionRun &run : runs) {
        if (!run.speed.supported) {
            calibration.precisions.push_back(run.speed);
            continue;
        }
        // A precision that stopped early is as much slower on every op as on the first shape.
        const double slowdown =
            run.speed.stopped_early ? run.first_seconds / runs.front().first_seconds : 0;
        const auto rate = [&](Op op, double scale) {
            if (slowdown > 0) {
                const auto measured = reference.find(op);
                return measured == reference.end() ? 0.0
                                                   : throughput(measured->second, scale) / slowdown;
            }
            const auto found = run.tallies.find(op);
            return found == run.tallies.end() ? 0.0 : throughput(found->second, scale);
        };
        run.speed.matmul_gflops = rate(Op::Matmul, 1e9);
        run.speed.attention_gflops = rate(Op::Attention, 1e9);
        run.speed.elementwise_gelems = rate(Op::Elementwise, 1e9);
        run.speed.training_gflops = rate(Op::TrainingBlock, 1e9);
        run.speed.tall_training_gflops = rate(Op::TallTrainingBlock, 1e9);
        run.speed.small_training_gflops = rate(Op::SmallTrainingBlock, 1e9);
        calibration.precisions.push_back(run.speed);
    }
    calibration.measured_at = static_cast<std::int64_t>(std::time(nullptr));
    calibration.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return calibration;
}

} // namespace headroom
