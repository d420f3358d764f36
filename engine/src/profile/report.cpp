#include "profile/recording.h"

#include <headroom/config.h>
#include <headroom/profile.h>

#include <ATen/record_function.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

namespace headroom {

namespace {

// Chrome trace process id: one process, the profiled training.
constexpr int kTracePid = 1;

std::int64_t selfMemory(const OperatorProfile &row) {
    return row.self_cpu_memory + row.self_device_memory;
}

} // namespace

OperatorSort parseOperatorSort(const std::string &text) {
    if (text == "time") {
        return OperatorSort::Time;
    }
    if (text == "self_time") {
        return OperatorSort::SelfTime;
    }
    if (text == "self_memory") {
        return OperatorSort::SelfMemory;
    }
    if (text == "calls") {
        return OperatorSort::Calls;
    }
    throw InputError("unknown sort '" + text + "': use one of time, self_time, self_memory, calls");
}

std::string toString(OperatorSort sort) {
    switch (sort) {
    case OperatorSort::Time:
        return "time";
    case OperatorSort::SelfTime:
        return "self_time";
    case OperatorSort::SelfMemory:
        return "self_memory";
    case OperatorSort::Calls:
        return "calls";
    }
    return "time";
}

std::vector<OperatorProfile> sortedOperators(const std::vector<OperatorProfile> &operators,
                                             OperatorSort sort, std::size_t top) {
    std::vector<OperatorProfile> rows = operators;
    const auto key = [sort](const OperatorProfile &row) {
        switch (sort) {
        case OperatorSort::Time:
            return std::make_tuple(row.total_us, static_cast<double>(row.calls));
        case OperatorSort::SelfTime:
            return std::make_tuple(row.self_us, row.total_us);
        case OperatorSort::SelfMemory:
            return std::make_tuple(static_cast<double>(selfMemory(row)), row.self_us);
        case OperatorSort::Calls:
            return std::make_tuple(static_cast<double>(row.calls), row.total_us);
        }
        return std::make_tuple(row.total_us, 0.0);
    };
    std::stable_sort(
        rows.begin(), rows.end(),
        [&key](const OperatorProfile &a, const OperatorProfile &b) { return key(a) > key(b); });
    if (top > 0 && rows.size() > top) {
        rows.resize(top);
    }
    return rows;
}

std::string profileJson(const ProfileReport &report,
                        const std::vector<OperatorProfile> &operators) {
    nlohmann::json rows = nlohmann::json::array();
    for (const OperatorProfile &row : operators) {
        rows.push_back({{"name", row.name},
                        {"calls", row.calls},
                        {"total_us", row.total_us},
                        {"self_us", row.self_us},
                        {"self_cpu_memory", row.self_cpu_memory},
                        {"self_device_memory", row.self_device_memory},
                        {"cpu_allocated", row.cpu_allocated},
                        {"device_allocated", row.device_allocated}});
    }
    nlohmann::json modules = nlohmann::json::array();
    for (const ModuleProfile &module : report.modules) {
        modules.push_back({{"name", module.name},
                           {"parent", module.parent},
                           {"depth", module.depth},
                           {"activation_bytes", module.activation_bytes},
                           {"time_us", module.time_us},
                           {"calls", module.calls}});
    }
    const nlohmann::json json = {{"type", "profile"},
                                 {"device", report.device},
                                 {"model", report.model},
                                 {"steps", report.steps},
                                 {"warmup_steps", report.warmup_steps},
                                 {"micro_batch", report.micro_batch},
                                 {"accumulation", report.accumulation},
                                 {"wall_s", report.wall_us / 1e6},
                                 {"operators", rows},
                                 {"modules", modules},
                                 {"activation_bytes", report.activation_bytes},
                                 {"forward_passes", report.forward_passes},
                                 {"measured_activation_bytes", report.measured_activation_bytes},
                                 {"trace_events", report.trace.size()},
                                 {"trace_truncated", report.trace_truncated}};
    return json.dump();
}

std::string chromeTraceJson(const ProfileReport &report) {
    nlohmann::json events = nlohmann::json::array();
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", kTracePid},
         {"tid", 0},
         {"args", {{"name", "Headroom profile: " + report.model + " on " + report.device}}}});
    for (std::size_t thread = 0; thread < report.thread_names.size(); ++thread) {
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", kTracePid},
                          {"tid", thread + 1},
                          {"args", {{"name", report.thread_names[thread]}}}});
    }
    // Recorded as they ended (inner ranges first); viewers read them more easily in the order
    // they began, outer ranges first.
    std::vector<const TraceEvent *> ordered;
    ordered.reserve(report.trace.size());
    for (const TraceEvent &event : report.trace) {
        ordered.push_back(&event);
    }
    std::stable_sort(ordered.begin(), ordered.end(), [](const TraceEvent *a, const TraceEvent *b) {
        return std::make_tuple(a->thread, a->start_us, -a->duration_us) <
               std::make_tuple(b->thread, b->start_us, -b->duration_us);
    });
    for (const TraceEvent *event : ordered) {
        nlohmann::json line = {
            {"name", event->name},      {"cat", event->category},          {"ph", "X"},
            {"ts", event->start_us},    {"dur", event->duration_us},       {"pid", kTracePid},
            {"tid", event->thread + 1}, {"args", nlohmann::json::object()}};
        if (event->self_memory != 0) {
            line["args"]["self_memory_bytes"] = event->self_memory;
        }
        events.push_back(std::move(line));
    }
    for (const MemorySampleEvent &sample : report.memory_samples) {
        events.push_back({{"name", "memory " + sample.device},
                          {"cat", "memory"},
                          {"ph", "C"},
                          {"ts", sample.time_us},
                          {"pid", kTracePid},
                          {"tid", 0},
                          {"args", {{"live_bytes", sample.live_bytes}}}});
    }
    const nlohmann::json trace = {{"traceEvents", std::move(events)},
                                  {"displayTimeUnit", "ms"},
                                  {"otherData",
                                   {{"device", report.device},
                                    {"model", report.model},
                                    {"steps", report.steps},
                                    {"warmup_steps", report.warmup_steps},
                                    {"truncated", report.trace_truncated}}}};
    return trace.dump();
}

void writeChromeTrace(const ProfileReport &report, const std::string &path) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) {
        throw InputError("cannot write the trace to " + path + ": " + std::strerror(errno));
    }
    file << chromeTraceJson(report);
    file.close();
    if (!file) {
        throw InputError("cannot write the trace to " + path + ": " + std::strerror(errno));
    }
}

bool profilerCallbacksInstalled() {
    return profile::recording() || at::hasThreadLocalCallbacks();
}

} // namespace headroom
