#pragma once

// Shared pieces of the training tests: a tiny GPT config, an observer that records what a
// session reports, and helpers that create a project and run a session to its end.

#include <headroom/project.h>
#include <headroom/session.h>
#include <headroom/workflow.h>

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <algorithm>
#include <string>
#include <vector>

namespace test_support {

// A GPT small enough that a step takes milliseconds.
inline const QStringList kTinyGpt = {"model.layers=2",
                                     "model.heads=2",
                                     "model.dim=32",
                                     "model.seq_len=16",
                                     "train.micro_batch=4",
                                     "train.lr=0.003",
                                     "train.warmup_steps=2",
                                     "train.steps=16",
                                     "train.eval_every=8",
                                     "train.eval_batches=2",
                                     "train.checkpoint_every=4",
                                     "data.shuffle_buffer=64"};

struct Recorded {
    std::vector<double> losses;
    std::vector<std::string> digests;
};

class Recorder final : public headroom::SessionObserver {
public:
    void onStep(const headroom::StepMetrics &metrics) override {
        recorded.losses.push_back(metrics.loss);
        recorded.digests.push_back(metrics.samples_digest);
        micro_batches.push_back(metrics.micro_batch);
        steps.push_back(metrics);
        accumulations.push_back(metrics.accumulation);
        if (stop_at != 0 && metrics.step == stop_at && session != nullptr) {
            session->stop();
        }
        if (pause_at != 0 && metrics.step == pause_at && session != nullptr) {
            session->pause();
        }
    }
    void onEvent(const headroom::EngineEvent &event) override { events.push_back(event.kind); }
    void onEval(const headroom::EvalMetrics &metrics) override { last_eval = metrics; }

    Recorded recorded;
    std::vector<std::string> events;
    headroom::EvalMetrics last_eval;
    std::vector<int> micro_batches;
    std::vector<int> accumulations;
    std::vector<headroom::StepMetrics> steps; // everything each step reported
    headroom::Session *session = nullptr;
    std::int64_t stop_at = 0;
    std::int64_t pause_at = 0;
};

// Compared as names: readable failures, and QTest's toString does not know these enums.
inline QString name(headroom::SessionState state) {
    return QString::fromStdString(headroom::toString(state));
}
inline QString name(headroom::RunStatus status) {
    return QString::fromStdString(headroom::toString(status));
}

inline std::vector<std::string> toStd(const QStringList &list) {
    std::vector<std::string> result;
    for (const QString &item : list) {
        result.push_back(item.toStdString());
    }
    return result;
}

inline bool hasEvent(const Recorder &recorder, const std::string &kind) {
    return std::find(recorder.events.begin(), recorder.events.end(), kind) != recorder.events.end();
}

inline QString createTestProject(const QString &project_path, const QString &data_path,
                                 const QString &recipe, const QStringList &settings) {
    headroom::NewProjectRequest request;
    request.project_path = project_path.toStdString();
    request.recipe = recipe.toStdString();
    request.data_path = data_path.toStdString();
    request.overrides = toStd(settings);
    headroom::createProject(request, [](const std::string &) {});
    return project_path;
}

inline headroom::RunResult runSession(const QString &project, Recorder &recorder,
                                      const QStringList &overrides = {}, std::int64_t max_steps = 0,
                                      bool resume = false) {
    headroom::SessionRequest request;
    request.project_path = project.toStdString();
    request.overrides = toStd(overrides);
    request.max_steps = max_steps;
    request.resume = resume;
    headroom::Session session(request);
    recorder.session = &session;
    session.addObserver(&recorder);
    session.start();
    const headroom::RunResult result = session.wait();
    recorder.session = nullptr;
    return result;
}

// The highest step peak of a run (what the run records as its peak), taken from the steps
// themselves so that a failure after them (the end-of-run evaluation) does not hide it.
class PeakObserver final : public headroom::SessionObserver {
public:
    void onStep(const headroom::StepMetrics &metrics) override {
        peak = std::max(peak, metrics.mem_peak);
        ++steps;
    }
    std::uint64_t peak = 0;
    int steps = 0;
};

// The peak of a run of exactly `steps` steps with these settings; 0 when it ran another number.
inline std::uint64_t measuredPeak(const QString &project_path, const QStringList &settings,
                                  int steps = 2) {
    headroom::SessionRequest request;
    request.project_path = project_path.toStdString();
    request.overrides = toStd(settings);
    headroom::Session session(request);
    PeakObserver observer;
    session.addObserver(&observer);
    session.start();
    const headroom::RunResult result = session.wait();
    if (result.failure != headroom::FailureKind::None) {
        qWarning("the run failed after %d steps: %s", observer.steps, result.message.c_str());
    }
    return observer.steps == steps ? observer.peak : 0;
}

} // namespace test_support
