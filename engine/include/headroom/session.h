#pragma once

#include <headroom/metrics.h>
#include <headroom/profile.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

enum class SessionState { Idle, Preparing, Running, Paused, Stopping, Finished, Stopped, Failed };
std::string toString(SessionState state);

// Why a session ended without finishing; the CLI maps these to its exit codes.
enum class FailureKind { None, BadInput, CannotContinue, Internal };

// What a run is, once it has been planned and is about to take its first step.
struct RunInfo {
    std::int64_t run_id = 0;
    std::int64_t resumed_from = 0; // run id, 0 for a fresh run
    std::int64_t start_step = 0;   // steps already done (checkpoint step on resume)
    std::int64_t stop_step = 0;    // this session stops after this step
    std::int64_t target_steps = 0; // train.steps
    std::string device;
    std::string model; // "GPT · 4 layers · ..."
};

// Callbacks run on the engine thread: copy what you need and return quickly.
class SessionObserver {
public:
    virtual ~SessionObserver() = default;
    virtual void onRunStarted(const RunInfo &) {}
    virtual void onStep(const StepMetrics &) {}
    virtual void onEval(const EvalMetrics &) {}
    virtual void onEvent(const EngineEvent &) {}
    // message says what is happening ("training the tokenizer", "stopped at step 40", ...).
    virtual void onStateChanged(SessionState, const std::string &message) {}
};

struct SessionRequest {
    std::string project_path;
    // "key=value" overrides for this run only (recorded on the run, not saved as the project's
    // config). On resume only keys that do not change the model or data may differ.
    std::vector<std::string> overrides;
    // Optimizer steps to run in this session before stopping with a checkpoint; 0 = until
    // train.steps is reached.
    std::int64_t max_steps = 0;
    // Continue the latest run from its last checkpoint.
    bool resume = false;
    // Profile instead of training: warm-up and profiled steps of the configuration from its
    // initial weights (never a checkpoint), with no evaluation or checkpoint and no run
    // recorded in the project (a tokenizer or schema the data needs is still stored, as the
    // first run would store it). RunResult::profile holds the report.
    std::optional<ProfileOptions> profile;
};

struct RunResult {
    std::int64_t run_id = 0;
    SessionState state = SessionState::Idle;
    FailureKind failure = FailureKind::None;
    std::int64_t last_step = 0;
    std::int64_t target_steps = 0;
    std::optional<double> final_loss;
    std::optional<double> final_val_loss;
    std::string message;
    std::shared_ptr<const ProfileReport> profile; // a profile that finished
};

// One training run on its own engine thread. Control calls are safe from any thread.
class Session {
public:
    explicit Session(SessionRequest request);
    ~Session(); // stops (with a checkpoint) and joins

    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    void addObserver(SessionObserver *observer); // before start()

    void start();
    void pause(); // waits between optimizer steps until resume() or stop()
    void resume();
    void stop(); // abandons the current step cleanly, checkpoints, returns
    // Async-signal-safe variant of stop() for SIGINT/SIGTERM handlers.
    void requestStopFromSignal() noexcept;

    SessionState state() const;
    RunResult wait(); // blocks until the engine thread has returned

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace headroom
