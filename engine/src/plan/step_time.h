#pragma once

// Seconds per optimizer step from the work a step does and the device's calibrated speed.

#include <headroom/config.h>
#include <headroom/plan.h>
#include <headroom/speed_calibration.h>

#include <optional>
#include <string>

namespace headroom::plan {

// The work of one optimizer step (forward, backward, the optimizer update).
struct StepWork {
    double matmul_flops = 0;     // 6 x matmul parameters x tokens, +2 x with checkpointing
    double attention_flops = 0;  // the T x T products, 3 passes (+1 with checkpointing)
    double elements = 0;         // elementwise work outside the calibrated block (dropout, copies)
    double gemm_rows_by_dim = 0; // a micro-batch's token rows x the model width: the GEMMs' size
};

// For the gpt recipe trained from scratch; nullopt where the step is not modelled (tabular,
// pretrained bases).
std::optional<StepWork> stepWork(const Config &config, const ModelFacts &facts);

// Seconds per optimizer step in `precision`; 0 when the calibration lacks that precision.
double predictStepSeconds(const StepWork &work, const SpeedCalibration &calibration,
                          const std::string &precision);

// Where a plan's speeds come from, in one line: the calibration, or constant factors.
std::string speedNote(const std::optional<SpeedCalibration> &calibration);

} // namespace headroom::plan
