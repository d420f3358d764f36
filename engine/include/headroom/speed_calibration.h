#pragma once

// Measured speed of this machine: matmul, attention and elementwise throughput per precision
// on one device, cached per user (a machine property, not a project one) and keyed by what
// changes it (device name, LibTorch version, thread count). The planner turns it into step
// times and precision speed factors. No Torch types here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct DeviceReport;

// One precision's measured throughput. GFLOP/s for matmul and attention; elementwise in
// billions of elements per second (a GELU-and-add pass, the memory-bound part of a step).
struct PrecisionSpeed {
    std::string precision; // "fp32" | "bf16" | "fp16"
    bool supported = false;
    std::string unsupported_reason; // when !supported: why (from LibTorch or the device)
    double matmul_gflops = 0;
    double attention_gflops = 0;
    double elementwise_gelems = 0;
    // Model FLOPs per second of a GPT block's forward and backward under this precision's
    // autocast: what the step-time estimate divides by (0 in a quick calibration).
    double training_gflops = 0;
    // The same for a tall block (8x the rows) and a small one (the sample GPT's: dim 128):
    // GEMM kernels run faster on larger matrices (oneDNN on AVX-512 by 1.5x and more between
    // the short and the tall block), and a small block pays per-operator costs. 0: not measured.
    double tall_training_gflops = 0;
    double small_training_gflops = 0;
    // Hopelessly slow: only the first shape was timed, the rest extrapolated from its ratio
    // to fp32.
    bool stopped_early = false;
};

struct SpeedCalibration {
    int version = 0;                        // kSpeedCalibrationVersion when written
    std::string device;                     // "cpu", "cuda:0", "mps"
    std::string device_name;                // CPU model or GPU name
    std::string torch_version;              // "1.13.0"
    int threads = 0;                        // LibTorch intra-op threads while measuring
    std::string cpu_gemm;                   // what ran fp32 GEMMs on the CPU: "oneDNN", "BLAS ..."
    std::vector<std::string> cpu_flags;     // "avx2", "avx512f", "avx512_bf16", "amx_bf16", ...
    std::vector<PrecisionSpeed> precisions; // fp32 first
    std::int64_t measured_at = 0;           // Unix seconds
    double seconds = 0;                     // how long the measurement took

    // nullptr when the precision was not measured.
    const PrecisionSpeed *find(const std::string &precision) const;
    // Matmul throughput relative to fp32 (2.0: twice as fast); 0 when unsupported or unknown.
    double matmulRatio(const std::string &precision) const;
};

// Versions: 2: fp32 timed through the GPT's oneDNN linear path (models/cpu_linear), which version 1
// calibrations under-estimate. 3: that path is oneDNN or ATen's BLAS, whichever
// compat::preferredCpuGemm picks, recorded in cpu_gemm.
// 4: a small and a tall training block too.
constexpr int kSpeedCalibrationVersion = 4;

// The calibration's training blocks: a small one of 12 x 64 token rows at dim 128 (the sample
// GPT's block and micro-batch), short ones of 4 x 128 rows at dim 256 and 384, and a tall one of
// 16 x 256 rows at dim 384 (the 10.7 M benchmark GPT's). The step-time estimate interpolates
// between them by rows x dim of a micro-batch's GEMMs.
constexpr std::int64_t kSmallBlockBatch = 12;
constexpr std::int64_t kSmallBlockLength = 64;
constexpr std::int64_t kSmallBlockDim = 128;
constexpr std::int64_t kShortBlockTokens = 4 * 128;
constexpr std::int64_t kShortBlockDim = 384;
constexpr std::int64_t kTallBlockBatch = 16;
constexpr std::int64_t kTallBlockLength = 256;
constexpr std::int64_t kTallBlockDim = 384;

// "bf16 is 15x slower than fp32 on this CPU" when the calibration measured `precision`'s
// matmuls slower than fp32's; "" when it is as fast or faster, or was not measured. The
// planner does not choose such a precision and the escalation ladder skips it.
std::string slowPrecisionReason(const SpeedCalibration &calibration, const std::string &precision);

struct CalibrationOptions {
    std::string device = "cpu"; // "cpu", "cuda", "cuda:N", "mps"
    // Total wall time to aim for; every shape is timed at least once, so a slow machine may
    // take longer.
    double time_budget_s = 3.0;
    // A precision whose first shape takes longer than this many times fp32's stops there.
    double give_up_ratio = 10.0;
    // Only the smallest block's GEMMs (a few MiB, well under a second): enough to tell whether
    // a precision is slower than fp32, not for step times. Such a result is not for the cache.
    bool quick = false;
};

// Times representative shapes (the GEMMs of a transformer block at dim 256-1024, causal
// attention, an elementwise pass) in fp32, bf16 and fp16. Precisions the device cannot run
// are marked unsupported. Throws InputError for a device this build or machine does not have.
SpeedCalibration calibrateSpeed(const CalibrationOptions &options = {});

// The cache file: $HEADROOM_CACHE_DIR/speed-calibration.json when that is set, else
// $XDG_CACHE_HOME/headroom/..., else ~/.cache/headroom/...
std::string speedCalibrationCachePath();

// "" when `calibration` describes `device` on this machine and LibTorch as they are now,
// else why it is stale ("measured with LibTorch 1.13.0, this is 2.6.0").
std::string calibrationStaleReason(const SpeedCalibration &calibration, const DeviceReport &report);

// The cached calibration of `device` ("cuda" means "cuda:0") when one is there and not stale.
std::optional<SpeedCalibration> cachedSpeedCalibration(const std::string &device,
                                                       const DeviceReport &report);
std::optional<SpeedCalibration> cachedSpeedCalibration(const std::string &device);
// Replaces the cache entry of the same device (other devices' entries stay); written to a
// temp file and renamed. Throws std::runtime_error when the folder cannot be written.
void storeSpeedCalibration(const SpeedCalibration &calibration);

// The lines of `devices` that show a calibration: one per precision.
std::vector<std::string> describeSpeedCalibration(const SpeedCalibration &calibration);

std::string toJson(const SpeedCalibration &calibration, int indent = -1);
// Throws InputError on malformed text.
SpeedCalibration speedCalibrationFromJson(const std::string &text);

} // namespace headroom
