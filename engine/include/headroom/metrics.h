#pragma once

#include <cstdint>
#include <string>

namespace headroom {

// One optimizer step, as observers, the project file and `train --json` see it.
struct StepMetrics {
    std::int64_t step = 0; // 1-based optimizer step
    double loss = 0;
    double lr = 0;
    double grad_norm = 0;
    int micro_batch = 0;
    int accumulation = 0;
    double tokens_per_s = 0;
    double samples_per_s = 0;
    std::uint64_t mem_live = 0;
    std::uint64_t mem_peak = 0;
    std::uint64_t mem_reserved = 0; // device allocator cache (CUDA, MPS); 0 on CPU
    std::uint64_t mem_rss = 0;      // resident set of the process
    double loss_scale = 0;          // fp16 dynamic loss scale; 0 when not scaling
    std::int64_t skipped_steps = 0; // steps skipped so far because scaled gradients overflowed
    double elapsed_s = 0;           // since the run (or resumed run) started
    std::string samples_digest;
};

// A validation pass. accuracy is for classifiers, rmse for regressors; NaN when not applicable.
struct EvalMetrics {
    std::int64_t step = 0;
    double loss = 0;
    double accuracy = 0;
    double rmse = 0;
    std::int64_t examples = 0;
    double r2 = 0; // regression: 1 - squared error / variance of the targets; NaN otherwise
};

// Something that happened during a run: "checkpoint", "nan_loss", "eval", "oom_recovered", ...
// details is a JSON object text with the kind-specific fields.
struct EngineEvent {
    std::string kind;
    std::int64_t step = 0;
    std::string message;
    std::string details = "{}";
};

} // namespace headroom
