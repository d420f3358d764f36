#pragma once

// The profiler: a few real training steps of a project's configuration, measured per operator
// (time, calls, self memory), per module (activation memory held for backward) and as a
// Chrome trace. It runs through the trainer (Session with SessionRequest::profile) and records
// no run in the project file.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct ProfileOptions {
    std::int64_t steps = 5;        // profiled optimizer steps, at least 1
    std::int64_t warmup_steps = 1; // trained first and not recorded (allocator and caches warm)
    // Trace events kept at most; beyond it the tables still count, the trace stops growing.
    std::size_t max_trace_events = 500000;
};

// One operator (aten::addmm, AddmmBackward0, ...) summed over the profiled steps. Self figures
// leave out the operators it called. Memory is what the allocators reported while the operator
// was the innermost one on its thread: allocated bytes, and net bytes (allocated minus freed).
struct OperatorProfile {
    std::string name;
    std::int64_t calls = 0;
    double total_us = 0; // wall time on the host, inclusive
    double self_us = 0;
    std::int64_t self_cpu_memory = 0; // net bytes
    std::int64_t self_device_memory = 0;
    std::uint64_t cpu_allocated = 0;
    std::uint64_t device_allocated = 0;
};

// A named part of the model ("blocks.3", its "blocks.3.attention"). activation_bytes: bytes
// allocated inside it during a forward pass and still alive when that forward pass ended,
// i.e. held for backward; a module includes its children.
struct ModuleProfile {
    std::string name;   // full path, "blocks.3.attention"
    std::string parent; // "" for a top-level part
    int depth = 0;
    std::uint64_t activation_bytes = 0;
    double time_us = 0; // wall time inside it (forward, and recomputation in backward)
    std::int64_t calls = 0;
};

// A complete event ("ph":"X") of the Chrome trace; times in microseconds from the recording's
// start.
struct TraceEvent {
    std::string name;
    std::string category; // "operator", "backward", "module", "phase", "step"
    double start_us = 0;
    double duration_us = 0;
    int thread = 0;
    std::int64_t self_memory = 0; // net bytes allocated while it was innermost (operators)
};

// A counter sample ("ph":"C"): the allocator's live bytes on a device.
struct MemorySampleEvent {
    double time_us = 0;
    std::string device; // "cpu", "cuda:0"
    std::uint64_t live_bytes = 0;
};

struct ProfileReport {
    std::string device;
    std::string model; // Recipe::describe()
    std::int64_t steps = 0;
    std::int64_t warmup_steps = 0;
    std::int64_t micro_batch = 0;
    std::int64_t accumulation = 0;
    double wall_us = 0; // the profiled steps, end to end

    std::vector<OperatorProfile> operators; // by self time, largest first
    std::vector<ModuleProfile> modules;     // model order, parents before children
    // The forward pass whose held bytes were largest: everything allocated during it and alive
    // at its end (module rows partition it, with "(outside modules)" for the rest).
    std::uint64_t activation_bytes = 0;
    std::int64_t forward_passes = 0;
    // The trainer's own measure on the first step: peak above the step's start minus the
    // gradients (0 when not measured).
    std::uint64_t measured_activation_bytes = 0;

    std::vector<TraceEvent> trace;
    std::vector<MemorySampleEvent> memory_samples;
    std::vector<std::string> thread_names; // index = TraceEvent::thread
    bool trace_truncated = false;
};

// The name of the module row that holds activations allocated outside every named part.
inline const char *const kOutsideModules = "(outside modules)";

enum class OperatorSort { Time, SelfTime, SelfMemory, Calls };
// "time", "self_time", "self_memory", "calls"; throws InputError naming the accepted values.
OperatorSort parseOperatorSort(const std::string &text);
std::string toString(OperatorSort sort);
// Largest first; `top` 0 keeps all. SelfMemory orders by CPU plus device net bytes.
std::vector<OperatorProfile> sortedOperators(const std::vector<OperatorProfile> &operators,
                                             OperatorSort sort, std::size_t top = 0);

// The report as one JSON object (what `profile --json` prints), operators in the given order.
std::string profileJson(const ProfileReport &report, const std::vector<OperatorProfile> &operators);
// {"traceEvents":[...]} for chrome://tracing and Perfetto.
std::string chromeTraceJson(const ProfileReport &report);
// Writes chromeTraceJson to path; throws InputError naming the path when it cannot.
void writeChromeTrace(const ProfileReport &report, const std::string &path);

// Whether a profile records anywhere in the process, or a LibTorch RecordFunction callback is
// installed on this thread: the profiler leaves none behind, so training outside a profile
// pays nothing for it.
bool profilerCallbacksInstalled();

} // namespace headroom
