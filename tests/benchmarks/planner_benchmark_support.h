#pragma once

// What the planner benchmarks share: projects made from the bundled samples, and a run of N
// real training steps that reports its measured peak and recoveries.

#include <headroom/project.h>
#include <headroom/session.h>
#include <headroom/units.h>
#include <headroom/workflow.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace planner_benchmark {

inline std::string sourceRoot() {
    return HEADROOM_SOURCE_DIR;
}

inline std::string sampleCorpus() {
    return sourceRoot() + "/resources/sample/corpus.txt";
}
inline std::string sampleTable() {
    return sourceRoot() + "/resources/sample/greenhouse.csv";
}

inline std::string createProject(const std::string &path, const std::string &recipe,
                                 const std::string &data, std::vector<std::string> settings) {
    std::filesystem::remove(path);
    headroom::NewProjectRequest request;
    request.project_path = path;
    request.recipe = recipe;
    request.data_path = data;
    request.overrides = std::move(settings);
    headroom::createProject(request, [](const std::string &) {});
    return path;
}

struct MeasuredRun {
    bool finished = false;
    std::int64_t steps = 0;
    std::uint64_t peak = 0;
    std::int64_t oom_recoveries = 0;
    double seconds = 0;
    double tokens_per_s = 0; // median of the steps after the first
    std::string message;
};

class StepCounter : public headroom::SessionObserver {
public:
    void onStep(const headroom::StepMetrics &metrics) override {
        steps.fetch_add(1);
        tokens_per_s.push_back(metrics.tokens_per_s);
    }
    void onEvent(const headroom::EngineEvent &event) override {
        if (event.kind == "oom_recovered") {
            recoveries.fetch_add(1);
        }
    }
    std::atomic<std::int64_t> steps{0};
    std::atomic<std::int64_t> recoveries{0};
    std::vector<double> tokens_per_s; // written on the engine thread, read after wait()
};

// Trains `steps` optimizer steps with the project's config plus `overrides`; the peak is the
// run's measured allocator peak as stored in the project.
inline MeasuredRun trainSteps(const std::string &project_path, std::vector<std::string> overrides,
                              std::int64_t steps) {
    headroom::SessionRequest request;
    request.project_path = project_path;
    request.overrides = std::move(overrides);
    request.max_steps = steps;
    StepCounter counter;
    const auto started = std::chrono::steady_clock::now();
    headroom::RunResult result;
    {
        headroom::Session session(request);
        session.addObserver(&counter);
        session.start();
        result = session.wait();
    }
    MeasuredRun run;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run.steps = counter.steps.load();
    run.oom_recoveries = counter.recoveries.load();
    run.finished = result.failure == headroom::FailureKind::None && run.steps == steps;
    run.message = result.message;
    if (counter.tokens_per_s.size() > 1) {
        std::vector<double> rates(counter.tokens_per_s.begin() + 1, counter.tokens_per_s.end());
        std::nth_element(rates.begin(), rates.begin() + static_cast<long>(rates.size() / 2),
                         rates.end());
        run.tokens_per_s = rates[rates.size() / 2];
    }
    if (result.run_id > 0) {
        const headroom::Project project = headroom::Project::openReadOnly(project_path);
        if (const auto record = project.run(result.run_id)) {
            run.peak = record->peak_bytes;
        }
    }
    return run;
}

inline std::string mib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return text;
}

inline std::string joined(const std::vector<std::string> &parts, const char *separator = " ") {
    std::string text;
    for (const std::string &part : parts) {
        text += (text.empty() ? "" : separator) + part;
    }
    return text;
}

} // namespace planner_benchmark
