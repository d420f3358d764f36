#include "profile/recorder.h"

#include "compat/profiler_state.h"
#include "profile/scopes.h"

#include <ATen/record_function.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace headroom::profile {

std::atomic<int> g_active_recordings{0};

void Scope::open(std::string name) {
    guard_.emplace(at::RecordScope::USER_SCOPE);
    if (guard_->isActive()) {
        guard_->before(std::move(name));
    }
}

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
}

double toUs(std::int64_t ns) {
    return static_cast<double>(ns) / 1000.0;
}

bool startsWith(const char *text, const char *prefix) {
    return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

enum class Kind : std::uint8_t { Operator, Backward, Module, Phase, Step };

const char *categoryOf(Kind kind) {
    switch (kind) {
    case Kind::Operator:
        return "operator";
    case Kind::Backward:
        return "backward";
    case Kind::Module:
        return "module";
    case Kind::Phase:
        return "phase";
    case Kind::Step:
        return "step";
    }
    return "operator";
}

struct Frame {
    Kind kind = Kind::Operator;
    int id = 0; // a name (operators, phases, steps) or a module
    std::int64_t start_ns = 0;
    std::int64_t child_ns = 0;
    std::int64_t self_memory = 0;
};

// This thread's open ranges for the recording with `serial`.
struct ThreadFrames {
    std::uint64_t serial = 0;
    int thread = 0;
    std::vector<Frame> stack;
    std::int64_t forward = -1; // the forward pass open on this thread
};
thread_local ThreadFrames t_frames;

std::atomic<std::uint64_t> g_next_serial{1};

// The operator the allocator works for: the innermost open operator range.
Frame *innermostOperator(ThreadFrames &frames) {
    for (auto it = frames.stack.rbegin(); it != frames.stack.rend(); ++it) {
        if (it->kind == Kind::Operator || it->kind == Kind::Backward) {
            return &*it;
        }
    }
    return nullptr;
}

int innermostModule(const ThreadFrames &frames) {
    for (auto it = frames.stack.rbegin(); it != frames.stack.rend(); ++it) {
        if (it->kind == Kind::Module) {
            return it->id;
        }
    }
    return -1;
}

} // namespace

class Recorder::Core final : public compat::MemoryReportSink {
public:
    explicit Core(std::size_t max_events)
        : serial_(g_next_serial.fetch_add(1)), max_events_(max_events) {}

    void begin() {
        origin_ns_ = nowNs();
        frames(); // the recording thread is thread 0
    }
    void end() { end_ns_ = nowNs(); }

    void enter(const at::RecordFunction &fn) {
        ThreadFrames &thread = frames();
        const char *name = fn.name();
        Frame frame;
        std::lock_guard<std::mutex> lock(mutex_);
        if (fn.scope() == at::RecordScope::USER_SCOPE && startsWith(name, kModulePrefix)) {
            frame.kind = Kind::Module;
            frame.id = internModule(innermostModule(thread), name + std::strlen(kModulePrefix));
        } else if (fn.scope() == at::RecordScope::USER_SCOPE && startsWith(name, kPhasePrefix)) {
            frame.kind = Kind::Phase;
            const char *phase = name + std::strlen(kPhasePrefix);
            frame.id = internName(phase, Kind::Phase);
            if (std::strcmp(phase, kForwardPhase) == 0) {
                thread.forward = forward_passes_++;
            }
        } else if (fn.scope() == at::RecordScope::USER_SCOPE && startsWith(name, kStepPrefix)) {
            frame.kind = Kind::Step;
            frame.id =
                internName("step " + std::string(name + std::strlen(kStepPrefix)), Kind::Step);
        } else {
            frame.kind =
                fn.scope() == at::RecordScope::BACKWARD_FUNCTION ? Kind::Backward : Kind::Operator;
            frame.id = internName(name, frame.kind);
        }
        frame.start_ns = nowNs();
        thread.stack.push_back(frame);
    }

    void leave() {
        const std::int64_t now = nowNs();
        ThreadFrames &thread = frames();
        if (thread.stack.empty()) {
            return; // opened before this recording started
        }
        const Frame frame = thread.stack.back();
        thread.stack.pop_back();
        const std::int64_t total = now - frame.start_ns;
        if (!thread.stack.empty()) {
            thread.stack.back().child_ns += total;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        std::string event_name;
        if (frame.kind == Kind::Module) {
            ModuleStats &module = modules_[static_cast<std::size_t>(frame.id)];
            module.time_ns += total;
            ++module.calls;
            event_name = module.path;
        } else {
            NameStats &stats = names_[static_cast<std::size_t>(frame.id)];
            ++stats.calls;
            stats.total_ns += total;
            stats.self_ns += total - frame.child_ns;
            event_name = stats.name;
            if (frame.kind == Kind::Phase && stats.name == kForwardPhase && thread.forward >= 0) {
                measureForward(thread.forward);
                thread.forward = -1;
            }
        }
        if (trace_.size() < max_events_) {
            TraceEvent event;
            event.name = std::move(event_name);
            event.category = categoryOf(frame.kind);
            event.start_us = toUs(frame.start_ns - origin_ns_);
            event.duration_us = toUs(total);
            event.thread = thread.thread;
            event.self_memory = frame.self_memory;
            trace_.push_back(std::move(event));
        } else {
            truncated_ = true;
        }
    }

    void onMemory(void *ptr, std::int64_t bytes, std::uint64_t total_allocated,
                  c10::Device device) override {
        ThreadFrames &thread = frames();
        Frame *op = innermostOperator(thread);
        if (op != nullptr) {
            op->self_memory += bytes;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        NameStats &stats = names_[static_cast<std::size_t>(op != nullptr ? op->id : memoryRow())];
        const bool cpu = device.is_cpu();
        (cpu ? stats.cpu_net : stats.device_net) += bytes;
        if (bytes > 0) {
            (cpu ? stats.cpu_allocated : stats.device_allocated) +=
                static_cast<std::uint64_t>(bytes);
            if (thread.forward >= 0) {
                live_[ptr] = {static_cast<std::uint64_t>(bytes), innermostModule(thread),
                              thread.forward};
            }
        } else {
            live_.erase(ptr);
        }
        sampleMemory(device, total_allocated);
    }

    void fill(ProfileReport &report) const {
        std::lock_guard<std::mutex> lock(mutex_);
        report.wall_us = toUs(end_ns_ - origin_ns_);
        report.operators.clear();
        for (const NameStats &stats : names_) {
            if (stats.kind != Kind::Operator && stats.kind != Kind::Backward) {
                continue;
            }
            if (stats.calls == 0 && stats.cpu_net == 0 && stats.device_net == 0) {
                continue; // the memory row when every change happened inside an operator
            }
            OperatorProfile row;
            row.name = stats.name;
            row.calls = stats.calls;
            row.total_us = toUs(stats.total_ns);
            row.self_us = toUs(stats.self_ns);
            row.self_cpu_memory = stats.cpu_net;
            row.self_device_memory = stats.device_net;
            row.cpu_allocated = stats.cpu_allocated;
            row.device_allocated = stats.device_allocated;
            report.operators.push_back(std::move(row));
        }
        std::stable_sort(report.operators.begin(), report.operators.end(),
                         [](const OperatorProfile &a, const OperatorProfile &b) {
                             return a.self_us > b.self_us;
                         });

        report.modules.clear();
        std::uint64_t attributed = 0;
        for (std::size_t id = 0; id < modules_.size(); ++id) {
            const ModuleStats &stats = modules_[id];
            ModuleProfile row;
            row.name = stats.path;
            row.parent = stats.parent >= 0 ? modules_[static_cast<std::size_t>(stats.parent)].path
                                           : std::string();
            row.depth = stats.depth;
            row.activation_bytes = id < best_held_.size() ? best_held_[id] : 0;
            row.time_us = toUs(stats.time_ns);
            row.calls = stats.calls;
            if (stats.parent < 0) {
                attributed += row.activation_bytes;
            }
            report.modules.push_back(std::move(row));
        }
        if (best_total_ > attributed) {
            ModuleProfile outside;
            outside.name = kOutsideModules;
            outside.activation_bytes = best_total_ - attributed;
            report.modules.push_back(std::move(outside));
        }
        report.activation_bytes = best_total_;
        report.forward_passes = forward_passes_;
        report.trace = trace_;
        report.memory_samples = samples_;
        report.thread_names = thread_names_;
        report.trace_truncated = truncated_;
    }

private:
    struct NameStats {
        std::string name;
        Kind kind = Kind::Operator;
        std::int64_t calls = 0;
        std::int64_t total_ns = 0;
        std::int64_t self_ns = 0;
        std::int64_t cpu_net = 0;
        std::int64_t device_net = 0;
        std::uint64_t cpu_allocated = 0;
        std::uint64_t device_allocated = 0;
    };
    struct ModuleStats {
        std::string path;
        int parent = -1;
        int depth = 0;
        std::int64_t time_ns = 0;
        std::int64_t calls = 0;
    };
    struct Allocation {
        std::uint64_t bytes = 0;
        int module = -1;
        std::int64_t forward = -1;
    };

    ThreadFrames &frames() {
        if (t_frames.serial != serial_) {
            std::lock_guard<std::mutex> lock(mutex_);
            t_frames = ThreadFrames();
            t_frames.serial = serial_;
            t_frames.thread = static_cast<int>(thread_names_.size());
            thread_names_.push_back(thread_names_.empty()
                                        ? std::string("training thread")
                                        : "LibTorch thread " + std::to_string(t_frames.thread));
        }
        return t_frames;
    }

    int internName(const std::string &name, Kind kind) {
        const auto found = name_ids_.find(name);
        if (found != name_ids_.end()) {
            return found->second;
        }
        const int id = static_cast<int>(names_.size());
        NameStats stats;
        stats.name = name;
        stats.kind = kind;
        names_.push_back(std::move(stats));
        name_ids_.emplace(name, id);
        return id;
    }

    int memoryRow() {
        if (memory_row_ < 0) {
            memory_row_ = internName("[memory]", Kind::Operator);
        }
        return memory_row_;
    }

    int internModule(int parent, const std::string &name) {
        const auto key = std::make_pair(parent, name);
        const auto found = module_ids_.find(key);
        if (found != module_ids_.end()) {
            return found->second;
        }
        const int id = static_cast<int>(modules_.size());
        ModuleStats stats;
        stats.parent = parent;
        if (parent >= 0) {
            const ModuleStats &above = modules_[static_cast<std::size_t>(parent)];
            stats.path = above.path + "." + name;
            stats.depth = above.depth + 1;
        } else {
            stats.path = name;
        }
        modules_.push_back(std::move(stats));
        module_ids_.emplace(key, id);
        return id;
    }

    // What the allocations of forward pass `forward` that are still alive hold, per module;
    // the largest pass is kept.
    void measureForward(std::int64_t forward) {
        std::vector<std::uint64_t> held(modules_.size(), 0);
        std::uint64_t total = 0;
        for (const auto &item : live_) {
            const Allocation &allocation = item.second;
            if (allocation.forward != forward) {
                continue;
            }
            total += allocation.bytes;
            for (int module = allocation.module; module >= 0;
                 module = modules_[static_cast<std::size_t>(module)].parent) {
                held[static_cast<std::size_t>(module)] += allocation.bytes;
            }
        }
        if (total >= best_total_) {
            best_total_ = total;
            best_held_ = std::move(held);
        }
    }

    void sampleMemory(c10::Device device, std::uint64_t live) {
        // Samples closer than this replace each other: the counter track stays readable and
        // the trace small, at the price of peaks shorter than it.
        constexpr std::int64_t kMinSpacingNs = 20000;
        const std::string name = device.str();
        const std::int64_t now = nowNs();
        auto &last = last_sample_[name];
        if (last.first > 0 && now - last.first < kMinSpacingNs) {
            samples_[last.second].live_bytes = live;
            return;
        }
        if (samples_.size() + trace_.size() >= max_events_) {
            truncated_ = true;
            return;
        }
        samples_.push_back({toUs(now - origin_ns_), name, live});
        last = {now, samples_.size() - 1};
    }

    const std::uint64_t serial_;
    const std::size_t max_events_;
    std::int64_t origin_ns_ = 0;
    std::int64_t end_ns_ = 0;
    mutable std::mutex mutex_;
    std::vector<NameStats> names_;
    std::unordered_map<std::string, int> name_ids_;
    int memory_row_ = -1;
    std::vector<ModuleStats> modules_;
    std::map<std::pair<int, std::string>, int> module_ids_;
    std::unordered_map<void *, Allocation> live_;
    std::int64_t forward_passes_ = 0;
    std::uint64_t best_total_ = 0;
    std::vector<std::uint64_t> best_held_;
    std::vector<TraceEvent> trace_;
    std::vector<MemorySampleEvent> samples_;
    std::map<std::string, std::pair<std::int64_t, std::size_t>> last_sample_;
    std::vector<std::string> thread_names_;
    bool truncated_ = false;
};

namespace {

Recorder::Core *currentCore() {
    return dynamic_cast<Recorder::Core *>(compat::currentProfilerSink());
}

std::unique_ptr<at::ObserverContext> onEnter(const at::RecordFunction &fn) {
    if (Recorder::Core *core = currentCore()) {
        core->enter(fn);
    }
    return nullptr;
}

void onLeave(const at::RecordFunction &, at::ObserverContext *) {
    if (Recorder::Core *core = currentCore()) {
        core->leave();
    }
}

} // namespace

Recorder::Recorder(std::size_t max_trace_events)
    : core_(std::make_shared<Core>(max_trace_events)) {}

Recorder::~Recorder() {
    stop();
}

void Recorder::start() {
    if (callback_ != 0) {
        return;
    }
    core_->begin();
    debug_info_ = std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE,
                                                        compat::makeProfilerState(core_));
    callback_ = at::addThreadLocalCallback(at::RecordFunctionCallback(&onEnter, &onLeave));
    g_active_recordings.fetch_add(1);
}

void Recorder::stop() {
    if (callback_ == 0) {
        return;
    }
    g_active_recordings.fetch_sub(1);
    at::removeCallback(callback_);
    callback_ = 0;
    debug_info_.reset();
    core_->end();
}

void Recorder::fillReport(ProfileReport &report) const {
    core_->fill(report);
}

} // namespace headroom::profile
