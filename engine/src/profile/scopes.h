// Named ranges the profiler attributes time and memory to: parts of a model ("blocks.3",
// "attention") and phases of a training step (forward, backward, optimizer). They are LibTorch
// RecordFunction user scopes, so they also appear in the trace. While no profile records
// anywhere in the process a scope costs one relaxed atomic load and builds no name.
#pragma once

#include "profile/recording.h"

#include <ATen/record_function.h>

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::profile {

// Scope names carry these prefixes, which the recorder strips and files by kind.
inline constexpr const char *kModulePrefix = "module::";
inline constexpr const char *kPhasePrefix = "phase::";
inline constexpr const char *kStepPrefix = "step::";

class Scope {
public:
    Scope(const char *prefix, const char *name) {
        if (recording()) {
            open(std::string(prefix) + name);
        }
    }
    // An element of a list ("blocks.3"), or a number ("step::3") when list is "".
    Scope(const char *prefix, const char *list, std::int64_t index) {
        if (recording()) {
            open(std::string(prefix) + list + (*list != '\0' ? "." : "") + std::to_string(index));
        }
    }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

private:
    void open(std::string name);
    std::optional<at::RecordFunction> guard_;
};

// A part of a model, named relative to the enclosing part ("attention" in "blocks.3").
struct ModuleScope : Scope {
    explicit ModuleScope(const char *name) : Scope(kModulePrefix, name) {}
    ModuleScope(const char *list, std::int64_t index) : Scope(kModulePrefix, list, index) {}
};

// Phases of a training step; the end of a forward phase is when the recorder measures what
// each part holds for backward.
inline constexpr const char *kForwardPhase = "forward";
inline constexpr const char *kBackwardPhase = "backward";
inline constexpr const char *kOptimizerPhase = "optimizer";
struct PhaseScope : Scope {
    explicit PhaseScope(const char *phase) : Scope(kPhasePrefix, phase) {}
};

// One optimizer step ("step 3" in the trace).
struct StepScope : Scope {
    explicit StepScope(std::int64_t step) : Scope(kStepPrefix, "", step) {}
};

} // namespace headroom::profile
