#pragma once

// The state of one training run and its steps, shared by trainer.cpp (setup and loop),
// training_step.cpp (a step), oom_recovery.cpp (out-of-memory recovery and the escalation
// ladder), training_run_memory.cpp (memory meter, techniques, optimizer), training_records.cpp
// (evaluation, checkpoints, events, the run record) and profile_run.cpp (profiling).

#include "compat/autocast.h"
#include "data/example_stream.h"
#include "distributed/data_parallel.h"
#include "distributed/launch_environment.h"
#include "memory/memory_meter.h"
#include "models/moe_statistics.h"
#include "optim/fused_adamw.h"
#include "optim/loss_scaler.h"
#include "optim/schedule.h"
#include "recipes/preference_scoring.h"
#include "recipes/recipe.h"
#include "train/batch_shape.h"
#include "train/checkpoint.h"
#include "train/failpoints.h"
#include "train/prepared_data.h"
#include "train/run_plan.h"
#include "train/techniques.h"
#include "train/train_settings.h"
#include "train/trainer.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom::train {

// How a paused or stopped run goes on, in the words of both front ends.
inline const std::string kContinueHint =
    "continue the run (Run > Continue Last Run in the app, train --resume on the command line)";

using Clock = std::chrono::steady_clock;

// A failure that ends the run with a given kind; thrown inside the run, caught at its edge.
struct RunFailure {
    FailureKind kind;
    std::string message;
    RunStatus status = RunStatus::Failed; // Paused: resumable once the user changed something
};

// Bytes by role, from allocator deltas (CPU): weights and optimizer state around their
// creation, gradients and activations across a training step.
struct MemoryBreakdown {
    bool measured = false;
    std::uint64_t weights = 0;
    std::uint64_t optimizer = 0;
    std::uint64_t gradients = 0;
    std::uint64_t activations = 0;
    std::uint64_t peak = 0; // of the measured step
    std::int64_t step = 0;
    std::int64_t micro_batch = 0;
};

struct MemorySample {
    std::uint64_t live = 0;
    std::uint64_t peak = 0;
    std::uint64_t reserved = 0; // device allocator cache; 0 where there is none
    std::uint64_t rss = 0;      // the process's resident set
};

// Setup pieces shared by TrainingRun and the auto-fit probe runner (training_run_memory.cpp), so
// a probe step runs on exactly what a run would build.

// Applies the allocator settings (before any CUDA tensor), makes the device's memory meter and
// applies memory.budget to it.
std::unique_ptr<memory::MemoryMeter> makeBudgetedMeter(const Config &config,
                                                       const torch::Device &device);
// The configured techniques; throws ConfigError when the device or recipe cannot run them.
Techniques checkedTechniques(const Config &config, const torch::Device &device);
// Puts the techniques' activation checkpointing into effect on the recipe.
void applyCheckpointing(Recipe &recipe, const Techniques &techniques, const Config &config);
// Autocast for the forward pass as the techniques' precision asks (nothing for fp32).
compat::AutocastState autocastFor(const Techniques &techniques, const torch::Device &device);
AdamWOptions adamwOptionsFromConfig(const Config &config);
// The AdamW variant the techniques call for, over the recipe's trainable parameters or over
// `parameters`, and its kind().
std::unique_ptr<Optimizer> makeOptimizer(Recipe &recipe, const Techniques &techniques,
                                         const AdamWOptions &options);
std::unique_ptr<Optimizer> makeOptimizerOver(const std::vector<torch::Tensor> &parameters,
                                             const Techniques &techniques,
                                             const AdamWOptions &options);
std::string optimizerKind(const Techniques &techniques);

// Small enough to hit the first activation of any real forward pass.
constexpr std::uint64_t kInjectedOomMinBytes = 16 * 1024;
constexpr std::size_t kLeakWatchSteps = 20;

class TrainingRun {
public:
    TrainingRun(const SessionRequest &request, TrainerControl &control, ObserverHub &hub,
                PeakEstimator estimate_peak)
        : request_(request), control_(control), hub_(hub),
          estimate_peak_(std::move(estimate_peak)) {}

    RunResult run();

private:
    void setUp();
    void trainLoop();
    // Trains optimizer step `step_`+1; returns false when a stop abandoned it.
    bool trainOneStep();
    // Forward and backward over every micro-batch of this rank's share of the step's examples;
    // returns false when a stop abandoned it. Throws what the model throws (out-of-memory
    // included).
    bool accumulateGradients(const std::vector<data::Example> &examples,
                             const distributed::RankShare &share, std::int64_t step,
                             double &loss_value);
    // Distributed runs: joins the other ranks and checks that they run the same configuration.
    void connectRanks();
    // Only rank 0 of a distributed run opens the project for writing, and writes runs, metrics
    // and checkpoints unless it profiles.
    bool leadsRanks() const { return !launch_ || launch_->rank == 0; }
    bool writesProject() const { return leadsRanks() && !profiling(); }
    bool profiling() const { return request_.profile.has_value(); }
    // profile_run.cpp: the warm-up and profiled steps, recorded by a profile::Recorder.
    void checkProfileRequest() const;
    void profileLoop();
    // oom_recovery.cpp: halves the micro-batch after an out-of-memory error, or pauses the run with
    // a diagnosis (RunFailure) when nothing is left to try.
    void recoverFromOutOfMemory(std::int64_t step, const std::string &error);
    // device.fallback=cpu: moves the model, the optimizer state and the memory meter to the
    // CPU (a `device_fallback` event) so the step replays there. False when not allowed.
    bool fallBackToCpu(std::int64_t step, const std::string &error);
    // After an exchange that reported `failed_rank` out of memory with nothing left to try:
    // every rank drops the step, writes the checkpoint of its start and pauses (RunFailure).
    [[noreturn]] void pauseEveryRank(std::int64_t step, int failed_rank);
    void adoptPeerMicroBatch(std::int64_t step, const std::vector<std::int64_t> &micro_batches);
    // The oom_backward failpoint: an allocation of the last backward fails (after its first
    // bucket went out when the exchange overlaps it).
    void injectOutOfMemoryInBackward(distributed::OverlappedReducer *reducer, std::int64_t step);
    MemorySample sampleMemory() const;
    // Examples a step draws from the training stream: the effective batch, or its prompts when
    // each becomes several rows (online RL's groups).
    std::int64_t examplesPerStep() const {
        return shape_.effective_batch / recipe_->rowsPerExample();
    }
    // A reward that could not be computed: the step is dropped, the checkpoint of its start
    // written and the run paused with the reward's message.
    [[noreturn]] void pauseForReward(std::int64_t step, const std::string &message);

    // training_run_memory.cpp: memory meter and budget, techniques, optimizer (the ladder is in
    // oom_recovery.cpp).
    void setUpMemory(const Config &config);
    // Puts techniques_ into effect on the recipe (checkpointing); precision is read per step.
    void applyTechniques();
    std::unique_ptr<Optimizer> makeOptimizer();
    // Replaces the current fp32 optimizer (or a sharded one's range) for an adamw8bit or
    // offload rung.
    void switchOptimizer(LadderRung rung);
    // At the smallest micro-batch: switches on the next rung of recovery.ladder that changes
    // something (a `ladder` event each; skipped rungs are listed). False when none is left.
    bool climbLadder(std::int64_t step, const std::string &error);
    // The device's speed calibration for the ladder's precision rung: the cached one, else a
    // quick matmul-only measurement (unless HEADROOM_CALIBRATION=off); nullptr when neither.
    const SpeedCalibration *ladderSpeedCalibration();
    void releaseCachesIfDue(std::int64_t step);
    // Autocast for the forward pass as techniques_.precision asks (nothing for fp32).
    compat::AutocastState autocastState() const;
    // " ; ladder: checkpointing, bf16 (skipped: ...)" for the diagnosis; "" without a ladder.
    std::string ladderSummary() const;
    // Warns (an event, once) when live memory at step ends grew at every one of the last
    // kLeakWatchSteps steps: something keeps tensors alive from step to step.
    void watchForLeaks(std::int64_t step);
    void evaluate();
    // A greedy continuation of the first validation example (train.sample_tokens), as a
    // `sample` event.
    void emitSampleContinuation();
    // Keeps the best validation result (a checkpoint at its step when early stopping is on)
    // and decides whether early stopping is due.
    void trackBest(const EvalMetrics &metrics);
    void writeCheckpoint(const std::string &data_state);
    // A sharded optimizer's ranges go to rank 0 before it writes a checkpoint; every rank
    // calls it at the same checkpoints.
    void collectOptimizerShards();
    CheckpointMeta checkpointMeta(const std::string &data_state) const;
    // Writes the held best checkpoint, if there is one.
    void flushPendingBest();
    // Writes a checkpoint file of `step` with `write`, records it and prunes older ones; a
    // failure pauses the run (RunFailure) with the last good checkpoint kept.
    void storeCheckpointFile(std::int64_t step,
                             const std::function<void(const std::string &)> &write);
    // Deletes this run's checkpoints beyond the newest train.keep_checkpoints.
    void pruneCheckpoints();
    bool waitWhilePaused();
    // The data position of a step's start is needed only when a step is abandoned (stop,
    // out-of-memory pause). Instead of serializing the stream before every step, an anchor is
    // kept every few buffers' worth of examples and the stream is replayed from it on demand.
    void refreshStreamAnchor();
    // Moves the training stream back to the start of step step_ + 1; returns that position.
    std::string rewindToStepStart();
    // Ends the run after train.early_stopping passes without a better validation result.
    void stopEarly();
    void finish(RunStatus status, const std::string &message);
    // An event at the current step, or at `step` where it happened inside one.
    void emit(const std::string &kind, const std::string &message, nlohmann::json details = {},
              std::int64_t step = -1);

    const SessionRequest &request_;
    TrainerControl &control_;
    ObserverHub &hub_;
    PeakEstimator estimate_peak_;
    Failpoints failpoints_;
    std::optional<distributed::LaunchEnvironment> launch_; // set in a distributed run
    std::unique_ptr<distributed::DataParallel> parallel_;

    std::optional<Project> project_;
    RunPlan plan_;
    TrainSettings settings_; // plan_.config, parsed once
    std::unique_ptr<MetricsWriter> writer_;
    PreparedData data_;
    std::unique_ptr<Recipe> recipe_;
    std::unique_ptr<Optimizer> optimizer_;
    std::unique_ptr<data::ExampleStream> train_stream_;
    std::unique_ptr<data::ExampleStream> validation_stream_;
    LearningRateSchedule schedule_;
    BatchShape shape_;
    std::optional<OomBackoff> backoff_;
    std::vector<std::int64_t> micro_batch_history_;
    std::int64_t eval_micro_batch_ = 1;
    bool on_cpu_ = true;
    torch::Device device_{torch::kCPU};
    std::unique_ptr<memory::MemoryMeter> meter_;
    Techniques techniques_;
    std::vector<LadderRung> ladder_;
    std::vector<std::string> ladder_tried_; // rungs applied or skipped, for the diagnosis
    std::optional<SpeedCalibration> speed_calibration_;
    bool speed_calibration_looked_up_ = false;
    AdamWOptions optimizer_options_;
    std::unique_ptr<DynamicLossScaler> scaler_;          // fp16 only; disabled otherwise
    MoeStepStatistics moe_step_;                         // the current step's MoE routing
    std::optional<RetrievalStepMetrics> retrieval_step_; // splade: the current step's figures
    PreferenceStepMeans preference_step_; // preference objectives: the current step's figures
    std::int64_t peer_recoveries_ = 0;    // micro-batch halvings taken over from other ranks
    MemoryBreakdown breakdown_;
    bool breakdown_due_ = true; // measure at the next step (first step, after a recovery)
    // Leak watch: live bytes at the end of recent steps; warned once per run.
    std::vector<std::uint64_t> live_after_steps_;
    std::vector<data::Example> step_rows_; // online RL: the current step's rows (expandStep)
    bool growth_reported_ = false;
    std::vector<torch::Tensor> injected_leak_;
    std::string device_name_;
    RunRecord record_;

    std::int64_t step_ = 0;       // optimizer steps completed
    std::int64_t stop_after_ = 0; // step at which this session stops (max_steps)
    std::int64_t last_checkpoint_step_ = -1;
    std::int64_t last_eval_step_ = -1;
    std::uint64_t epoch_ = 0;
    struct StreamAnchor {
        std::string state;
        std::int64_t step = -1;
    } anchor_;
    std::optional<EvalMetrics> last_eval_;
    std::optional<EvalMetrics> best_eval_;
    std::int64_t best_step_ = -1; // early stopping: the checkpoint that is the run's result
    struct PendingCheckpoint {
        std::int64_t step = -1;
        std::string bytes;
    } pending_best_; // the best checkpoint of a small model, not written yet
    std::int64_t evals_without_improvement_ = 0;
    bool early_stop_due_ = false;
    // A distributed run: some rank was asked to stop or pause; all stop after this step.
    bool agreed_stop_ = false;
    // A distributed run: this rank ran out of memory with nothing left to try (the diagnosis).
    std::string exhausted_diagnosis_;
    std::int64_t oom_backward_step_ = 0;        // the oom_backward failpoint fired in this step
    std::vector<RankStepMetrics> rank_figures_; // this step's, from the exchange
    bool early_stopped_ = false;
    RunStatus failed_status_ = RunStatus::Failed;
    Clock::time_point started_;
    RunResult result_;
};

} // namespace headroom::train
