#include "train/trainer.h"

#include "data/data_error.h"
#include "data/example_stream.h"
#include "device/system_memory.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "project/timestamps.h"
#include "train/batch_shape.h"
#include "train/checkpoint.h"
#include "train/evaluation.h"
#include "train/failpoints.h"
#include "train/fused_adamw.h"
#include "train/recipe.h"
#include "train/run_config.h"
#include "train/run_setup.h"
#include "train/schedule.h"
#include "util/hashing.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

namespace headroom::train {

namespace {

using Clock = std::chrono::steady_clock;

// A failure that ends the run with a given kind; thrown inside the run, caught at its edge.
struct RunFailure {
    FailureKind kind;
    std::string message;
    RunStatus status = RunStatus::Failed; // Paused: resumable once the user changed something
};

struct MemorySample {
    std::uint64_t live = 0;
    std::uint64_t peak = 0;
};

// Small enough to hit the first activation of any real forward pass.
constexpr std::uint64_t kInjectedOomMinBytes = 16 * 1024;

class TrainingRun {
public:
    TrainingRun(const SessionRequest &request, TrainerControl &control, ObserverHub &hub)
        : request_(request), control_(control), hub_(hub) {}

    RunResult run();

private:
    void setUp();
    void trainLoop();
    // Trains optimizer step `step_`+1; returns false when a stop abandoned it.
    bool trainOneStep(const std::string &step_start_state);
    // Forward and backward over every micro-batch of the step; returns false when a stop
    // abandoned it. Throws what the model throws (out-of-memory included).
    bool accumulateGradients(const std::vector<data::Example> &examples, std::int64_t step,
                             double &loss_value);
    // Halves the micro-batch after an out-of-memory error, or pauses the run with a diagnosis
    // (RunFailure) when nothing is left to try.
    void recoverFromOutOfMemory(std::int64_t step, const std::string &error,
                                const std::string &step_start_state);
    MemorySample sampleMemory() const;
    void evaluate();
    void writeCheckpoint(const std::string &data_state);
    // Deletes this run's checkpoints beyond the newest train.keep_checkpoints.
    void pruneCheckpoints();
    bool waitWhilePaused();
    void finish(RunStatus status, const std::string &message);
    // An event at the current step, or at `step` where it happened inside one.
    void emit(const std::string &kind, const std::string &message, nlohmann::json details = {},
              std::int64_t step = -1);

    const SessionRequest &request_;
    TrainerControl &control_;
    ObserverHub &hub_;
    Failpoints failpoints_;

    std::optional<Project> project_;
    RunPlan plan_;
    std::unique_ptr<MetricsWriter> writer_;
    PreparedData data_;
    std::unique_ptr<Recipe> recipe_;
    std::unique_ptr<FusedAdamW> optimizer_;
    std::unique_ptr<data::ExampleStream> train_stream_;
    std::unique_ptr<data::ExampleStream> validation_stream_;
    LearningRateSchedule schedule_;
    BatchShape shape_;
    std::optional<OomBackoff> backoff_;
    std::vector<std::int64_t> micro_batch_history_;
    std::int64_t eval_micro_batch_ = 1;
    bool on_cpu_ = true;
    std::string device_name_;
    RunRecord record_;

    std::int64_t step_ = 0;       // optimizer steps completed
    std::int64_t stop_after_ = 0; // step at which this session stops (max_steps)
    std::int64_t last_checkpoint_step_ = -1;
    std::int64_t last_eval_step_ = -1;
    std::uint64_t epoch_ = 0;
    std::optional<EvalMetrics> last_eval_;
    RunStatus failed_status_ = RunStatus::Failed;
    Clock::time_point started_;
    RunResult result_;
};

RunResult TrainingRun::run() {
    try {
        setUp();
        hub_.state(SessionState::Running, recipe_->describe());
        trainLoop();
    } catch (const RunFailure &failure) {
        result_.failure = failure.kind;
        result_.message = failure.message;
        failed_status_ = failure.status;
    } catch (const ConfigError &error) {
        result_.failure = FailureKind::BadInput;
        result_.message = error.what();
    } catch (const data::DataError &error) {
        result_.failure = FailureKind::BadInput;
        result_.message = error.what();
    } catch (const ProjectError &error) {
        result_.failure = FailureKind::BadInput;
        result_.message = error.what();
    } catch (const c10::Error &error) {
        result_.failure = FailureKind::Internal;
        result_.message = error.what_without_backtrace();
        if (memory::isOutOfMemory(error)) {
            // Outside a training step (setting up, evaluating, checkpointing): nothing to
            // shrink, so pause and say what to change.
            result_.failure = FailureKind::CannotContinue;
            result_.message = "out of memory outside a training step at step " +
                              std::to_string(step_) + ": " +
                              result_.message.substr(0, result_.message.find('\n')) +
                              ". Raise memory.budget or make the model smaller";
            failed_status_ = RunStatus::Paused;
        }
    } catch (const std::exception &error) {
        result_.failure = FailureKind::Internal;
        result_.message = error.what();
    }
    if (result_.failure != FailureKind::None) {
        result_.state =
            failed_status_ == RunStatus::Paused ? SessionState::Paused : SessionState::Failed;
        if (project_ && record_.id != 0) {
            try {
                finish(failed_status_, result_.message);
            } catch (const std::exception &) {
                // The run already failed; the first message is the one that matters.
            }
        }
    }
    memory::setCpuBudget(0);
    memory::failNextCpuAllocation(0);
    result_.run_id = record_.id;
    result_.last_step = step_;
    result_.target_steps = schedule_.total_steps;
    hub_.state(result_.state, result_.message);
    return result_;
}

void TrainingRun::setUp() {
    hub_.state(SessionState::Preparing, "opening " + request_.project_path);
    project_.emplace(Project::open(request_.project_path));
    project_->markAbandonedRunsInterrupted();
    plan_ = planRun(*project_, request_.overrides, request_.resume);
    const Config &config = plan_.config;
    try {
        failpoints_ = Failpoints::fromEnvironment();
    } catch (const std::invalid_argument &error) {
        throw ConfigError(error.what());
    }

    if (const std::int64_t threads = config.integer("train.threads"); threads > 0) {
        at::set_num_threads(static_cast<int>(threads));
    }
    const torch::Device device = resolveDevice(config.text("device"));
    device_name_ = device.str();
    on_cpu_ = device.is_cpu();
    memory::installCountingCpuAllocator();
    const std::uint64_t budget = config.bytes("memory.budget");
    if (budget != 0 && !on_cpu_) {
        throw ConfigError("memory.budget is enforced on cpu in this build; on " + device_name_ +
                          " use memory.budget=none for now");
    }
    memory::setCpuBudget(budget);

    data_ = prepareData(config, *project_, [this](const std::string &message) {
        hub_.state(SessionState::Preparing, message);
    });

    torch::manual_seed(static_cast<std::uint64_t>(config.integer("train.seed")));
    try {
        if (data_.tokenizer) {
            recipe_ = makeGptRecipe(config, data_.tokenizer->vocabSize(), device);
        } else {
            recipe_ = makeTabularRecipe(config, *data_.schema, device);
        }
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            throw;
        }
        throw RunFailure{
            FailureKind::CannotContinue,
            "the model alone does not fit: " +
                std::string(error.what()).substr(0, std::string(error.what()).find('\n')) +
                ". Make it smaller (model.dim, model.layers) or raise memory.budget",
            RunStatus::Paused};
    }
    CheckpointMeta resumed;
    if (plan_.resume_from) {
        hub_.state(SessionState::Preparing,
                   "loading checkpoint at step " + std::to_string(plan_.resume_from->step));
        // Weights first: loading replaces the parameters' storage, and the optimizer keeps
        // them in its own contiguous buffer.
        resumed = loadCheckpointWeights(plan_.checkpoint_path, *recipe_->module());
    }
    FusedAdamWOptions options;
    options.lr(config.real("train.lr")).weight_decay(config.real("train.weight_decay"));
    optimizer_ = std::make_unique<FusedAdamW>(recipe_->module()->parameters(), options);

    schedule_.peak_lr = config.real("train.lr");
    schedule_.min_ratio = config.real("train.min_lr_ratio");
    schedule_.warmup_steps = config.integer("train.warmup_steps");
    schedule_.total_steps = config.integer("train.steps");

    const data::TabularSchema *schema = data_.schema ? &*data_.schema : nullptr;
    train_stream_ = std::make_unique<data::ExampleStream>(data_.spec, data::Split::Train,
                                                          data_.tokenizer.get(), schema);
    validation_stream_ = std::make_unique<data::ExampleStream>(data_.spec, data::Split::Validation,
                                                               data_.tokenizer.get(), schema);

    if (plan_.resume_from) {
        const CheckpointMeta &meta = resumed;
        loadCheckpointOptimizer(plan_.checkpoint_path, *optimizer_);
        train_stream_->restoreState(meta.data_state);
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(meta.cpu_rng_state);
        step_ = meta.step;
        last_checkpoint_step_ = step_;
        epoch_ = train_stream_->epoch();
    }

    shape_.micro_batch = config.integer("train.micro_batch");
    shape_.effective_batch = shape_.micro_batch * config.integer("train.accumulation");
    if (plan_.resume_from && resumed.micro_batch > 0) {
        shape_.micro_batch = resumed.micro_batch; // keep what earlier recoveries found
    }
    micro_batch_history_ = {shape_.micro_batch};
    backoff_.emplace(config.integer("recovery.min_micro_batch"),
                     config.integer("recovery.max_recoveries"));
    eval_micro_batch_ = config.integer("train.micro_batch");

    stop_after_ = schedule_.total_steps;
    if (request_.max_steps > 0) {
        stop_after_ = std::min(stop_after_, step_ + request_.max_steps);
    }
    record_.id =
        project_->beginRun(config.toJson(), device_name_, schedule_.total_steps, plan_.resumed_run);
    record_ = *project_->run(record_.id);
    record_.last_step = step_;
    writer_ = std::make_unique<MetricsWriter>(project_->path(), record_.id);
    started_ = Clock::now();

    RunInfo info;
    info.run_id = record_.id;
    info.resumed_from = plan_.resumed_run;
    info.start_step = step_;
    info.stop_step = stop_after_;
    info.target_steps = schedule_.total_steps;
    info.device = device_name_;
    info.model = recipe_->describe();
    hub_.started(info);
    if (plan_.resume_from) {
        emit("resumed",
             "resumed run " + std::to_string(plan_.resumed_run) + " at step " +
                 std::to_string(step_),
             {{"from_run", plan_.resumed_run}, {"checkpoint", plan_.resume_from->path}});
    }
}

void TrainingRun::emit(const std::string &kind, const std::string &message, nlohmann::json details,
                       std::int64_t step) {
    EngineEvent event;
    event.kind = kind;
    event.step = step >= 0 ? step : step_;
    event.message = message;
    event.details = details.is_null() ? "{}" : details.dump();
    writer_->post(event);
    hub_.event(event);
}

bool TrainingRun::waitWhilePaused() {
    if (!control_.pause.load()) {
        return true;
    }
    record_.status = RunStatus::Paused;
    project_->updateRun(record_);
    hub_.state(SessionState::Paused, "paused after step " + std::to_string(step_));
    {
        std::unique_lock<std::mutex> lock(control_.mutex);
        // Polls as well, so a stop requested from a signal handler (no notify) is seen.
        while (!control_.wake.wait_for(lock, std::chrono::milliseconds(250), [this] {
            return !control_.pause.load() || control_.stop.load();
        })) {
        }
    }
    if (control_.stop.load()) {
        return false;
    }
    record_.status = RunStatus::Running;
    project_->updateRun(record_);
    hub_.state(SessionState::Running, "resumed at step " + std::to_string(step_ + 1));
    return true;
}

void TrainingRun::trainLoop() {
    const std::int64_t checkpoint_every = plan_.config.integer("train.checkpoint_every");
    const std::int64_t eval_every = plan_.config.integer("train.eval_every");
    while (step_ < stop_after_) {
        const std::string step_start_state = train_stream_->saveState();
        if (control_.stop.load() || !waitWhilePaused() || !trainOneStep(step_start_state)) {
            hub_.state(SessionState::Stopping, "stopping at step " + std::to_string(step_));
            if (last_checkpoint_step_ != step_) {
                writeCheckpoint(step_start_state);
            }
            finish(RunStatus::Stopped, "stopped at step " + std::to_string(step_));
            return;
        }
        if (eval_every > 0 && step_ % eval_every == 0) {
            evaluate();
        }
        if (checkpoint_every > 0 && step_ % checkpoint_every == 0) {
            writeCheckpoint(train_stream_->saveState());
        }
    }
    if (last_eval_step_ != step_) {
        evaluate();
    }
    if (last_checkpoint_step_ != step_) {
        writeCheckpoint(train_stream_->saveState());
    }
    if (step_ >= schedule_.total_steps) {
        finish(RunStatus::Finished, "finished " + std::to_string(step_) + " steps");
    } else {
        finish(RunStatus::Stopped, "stopped at step " + std::to_string(step_) + " of " +
                                       std::to_string(schedule_.total_steps) +
                                       " (--steps); continue with --resume");
    }
}

bool TrainingRun::trainOneStep(const std::string &step_start_state) {
    const Clock::time_point step_started = Clock::now();
    const std::int64_t step = step_ + 1;
    const auto effective_batch = static_cast<std::size_t>(shape_.effective_batch);

    std::vector<data::Example> examples(effective_batch);
    std::vector<std::uint64_t> ids;
    ids.reserve(effective_batch);
    for (data::Example &example : examples) {
        train_stream_->next(example);
        ids.push_back(example.id);
    }

    const double lr = schedule_.at(step);
    optimizer_->options().lr(lr);
    if (failpoints_.at("error", step)) {
        TORCH_CHECK(false, "injected error at step ", step, " (HEADROOM_FAILPOINT)");
    }
    if (failpoints_.at("oom", step) && on_cpu_) {
        memory::failNextCpuAllocation(kInjectedOomMinBytes);
    }
    if (on_cpu_) {
        memory::resetCpuPeak();
    }

    // The same samples are replayed from the step's start after an out-of-memory error, in
    // smaller micro-batches: the effective batch, the schedule and the step count stay.
    double loss_value = 0;
    for (;;) {
        optimizer_->zeroGrad();
        try {
            if (!accumulateGradients(examples, step, loss_value)) {
                optimizer_->zeroGrad();
                train_stream_->restoreState(step_start_state);
                return false;
            }
            break;
        } catch (const std::exception &error) {
            if (!memory::isOutOfMemory(error)) {
                throw;
            }
            optimizer_->zeroGrad();
            recoverFromOutOfMemory(step, error.what(), step_start_state);
        }
    }
    memory::failNextCpuAllocation(0);

    if (!std::isfinite(loss_value)) {
        emit("nan_loss",
             "loss became " + std::to_string(loss_value) + " at step " + std::to_string(step) +
                 "; weights of step " + std::to_string(step_) + " are kept",
             {{"loss", std::to_string(loss_value)}, {"lr", lr}});
        throw RunFailure{FailureKind::CannotContinue,
                         "the loss is not finite at step " + std::to_string(step) +
                             " (try a lower train.lr or train.grad_clip); the last checkpoint "
                             "is at step " +
                             std::to_string(std::max<std::int64_t>(last_checkpoint_step_, 0))};
    }

    const double clip = plan_.config.real("train.grad_clip");
    const double grad_norm =
        optimizer_->clipGradNorm(clip > 0 ? clip : std::numeric_limits<double>::infinity());
    if (!std::isfinite(grad_norm)) {
        optimizer_->zeroGrad();
        emit("nan_loss",
             "the gradient norm became " + std::to_string(grad_norm) + " at step " +
                 std::to_string(step),
             {{"grad_norm", std::to_string(grad_norm)}, {"lr", lr}});
        throw RunFailure{FailureKind::CannotContinue, "the gradients are not finite at step " +
                                                          std::to_string(step) +
                                                          " (try a lower train.lr)"};
    }
    optimizer_->step();
    step_ = step;

    const double seconds = std::chrono::duration<double>(Clock::now() - step_started).count();
    StepMetrics metrics;
    metrics.step = step;
    metrics.loss = loss_value;
    metrics.lr = lr;
    metrics.grad_norm = grad_norm;
    metrics.micro_batch = static_cast<int>(shape_.micro_batch);
    metrics.accumulation = static_cast<int>(shape_.accumulation());
    metrics.samples_per_s = static_cast<double>(effective_batch) / seconds;
    metrics.tokens_per_s = metrics.samples_per_s * static_cast<double>(recipe_->tokensPerExample());
    const MemorySample memory = sampleMemory();
    metrics.mem_live = memory.live;
    metrics.mem_peak = memory.peak;
    metrics.elapsed_s = std::chrono::duration<double>(Clock::now() - started_).count();
    metrics.samples_digest = util::digestIds(ids);
    writer_->post(metrics);
    hub_.step(metrics);

    record_.last_step = step;
    record_.final_loss = loss_value;
    record_.peak_bytes = std::max(record_.peak_bytes, metrics.mem_peak);
    if (train_stream_->epoch() != epoch_) {
        epoch_ = train_stream_->epoch();
        emit("epoch", "started epoch " + std::to_string(epoch_ + 1) + " of the training data",
             {{"epoch", epoch_}});
    }
    return true;
}

bool TrainingRun::accumulateGradients(const std::vector<data::Example> &examples, std::int64_t step,
                                      double &loss_value) {
    loss_value = 0;
    const std::size_t total = examples.size();
    const auto micro_batch = static_cast<std::size_t>(shape_.micro_batch);
    for (std::size_t start = 0; start < total; start += micro_batch) {
        if (control_.stop.load()) {
            return false;
        }
        ExampleBatch batch;
        for (std::size_t i = start; i < std::min(total, start + micro_batch); ++i) {
            batch.push_back(&examples[i]);
        }
        const double share = static_cast<double>(batch.size()) / static_cast<double>(total);
        torch::Tensor loss = recipe_->loss(batch);
        if (failpoints_.at("nan_loss", step)) {
            loss = loss * std::numeric_limits<double>::quiet_NaN();
        }
        (loss * share).backward();
        loss_value += loss.item<double>() * share;
    }
    return true;
}

void TrainingRun::recoverFromOutOfMemory(std::int64_t step, const std::string &error,
                                         const std::string &step_start_state) {
    const MemorySample memory = sampleMemory();
    const std::string first_line = error.substr(0, error.find('\n'));
    const std::optional<BatchShape> smaller = backoff_->next(shape_);
    if (!smaller) {
        std::string tried;
        for (const std::int64_t micro_batch : micro_batch_history_) {
            tried += (tried.empty() ? "" : " -> ") + std::to_string(micro_batch);
        }
        const std::uint64_t budget = plan_.config.bytes("memory.budget");
        const std::string diagnosis =
            "out of memory at step " + std::to_string(step) + " with micro-batch " +
            std::to_string(shape_.micro_batch) + " (" + first_line + "); peak seen " +
            formatBytes(std::max(record_.peak_bytes, memory.peak)) + ", budget " +
            (budget != 0 ? formatBytes(budget) : std::string("none")) + "; tried micro-batch " +
            tried +
            ". Raise memory.budget, or make the model or model.seq_len smaller, then "
            "continue with --resume";
        emit("out_of_memory", diagnosis,
             {{"micro_batch", shape_.micro_batch},
              {"bytes_at_failure", memory.live},
              {"budget", budget},
              {"device", device_name_}},
             step);
        train_stream_->restoreState(step_start_state);
        if (last_checkpoint_step_ != step_) {
            writeCheckpoint(step_start_state);
        }
        throw RunFailure{FailureKind::CannotContinue, diagnosis, RunStatus::Paused};
    }
    emit("oom_recovered",
         "out of memory at step " + std::to_string(step) + ": micro-batch " +
             std::to_string(shape_.micro_batch) + " -> " + std::to_string(smaller->micro_batch) +
             ", accumulation " + std::to_string(smaller->accumulation()) + ", same samples",
         {{"from", shape_.micro_batch},
          {"to", smaller->micro_batch},
          {"accumulation", smaller->accumulation()},
          {"device", device_name_},
          {"bytes_at_failure", memory.live},
          {"error", first_line}},
         step);
    shape_ = *smaller;
    micro_batch_history_.push_back(shape_.micro_batch);
    record_.oom_recoveries = backoff_->recoveries();
}

MemorySample TrainingRun::sampleMemory() const {
    if (on_cpu_) {
        const memory::CpuMemoryStats stats = memory::cpuMemoryStats();
        return {stats.live, stats.peak};
    }
    return {device::processResidentBytes(), device::processPeakResidentBytes()};
}

void TrainingRun::evaluate() {
    last_eval_step_ = step_;
    const std::int64_t limit =
        plan_.config.integer("train.eval_batches") * plan_.config.integer("train.micro_batch");
    bool inject_oom = failpoints_.at("oom_eval", step_) && on_cpu_;
    EvaluationOutcome outcome;
    try {
        outcome =
            evaluateSplit(*recipe_, *validation_stream_, limit, eval_micro_batch_, [&inject_oom] {
                if (inject_oom) {
                    memory::failNextCpuAllocation(kInjectedOomMinBytes);
                    inject_oom = false;
                }
            });
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            throw;
        }
        memory::failNextCpuAllocation(0);
        emit("eval_skipped", "validation skipped: out of memory even one example at a time");
        return;
    }
    memory::failNextCpuAllocation(0);
    if (outcome.micro_batch != eval_micro_batch_) {
        emit("eval_oom_backoff",
             "out of memory during validation: its batch went from " +
                 std::to_string(eval_micro_batch_) + " to " + std::to_string(outcome.micro_batch) +
                 " (training keeps micro-batch " + std::to_string(shape_.micro_batch) + ")",
             {{"from", eval_micro_batch_}, {"to", outcome.micro_batch}});
        eval_micro_batch_ = outcome.micro_batch;
    }
    const EvalTotals &totals = outcome.totals;
    if (totals.examples == 0) {
        return; // no validation split (data.validation_fraction=0 or a tiny file)
    }
    EvalMetrics metrics;
    metrics.step = step_;
    metrics.examples = totals.examples;
    const auto count = static_cast<double>(totals.examples);
    metrics.loss = totals.loss_sum / count;
    metrics.accuracy = recipe_->reportsAccuracy() ? totals.correct / count
                                                  : std::numeric_limits<double>::quiet_NaN();
    metrics.rmse = recipe_->reportsRmse() ? std::sqrt(totals.squared_error / count)
                                          : std::numeric_limits<double>::quiet_NaN();
    writer_->post(metrics);
    hub_.eval(metrics);
    record_.final_val_loss = metrics.loss;
    last_eval_ = metrics;
}

void TrainingRun::writeCheckpoint(const std::string &data_state) {
    const std::string relative =
        "run-" + std::to_string(record_.id) + "/step-" + std::to_string(step_) + ".pt";
    const std::filesystem::path path = std::filesystem::path(project_->dataDirectory()) / relative;
    std::filesystem::create_directories(path.parent_path());

    CheckpointMeta meta;
    meta.step = step_;
    meta.run_id = record_.id;
    meta.config_json = plan_.config.toJson();
    meta.data_state = data_state;
    meta.micro_batch = shape_.micro_batch;
    {
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        meta.cpu_rng_state = generator.get_state();
    }
    saveCheckpoint(path.string(), *recipe_->module(), *optimizer_, meta);

    CheckpointRecord checkpoint;
    checkpoint.run_id = record_.id;
    checkpoint.step = step_;
    checkpoint.path = relative;
    checkpoint.sha256 = util::sha256File(path.string());
    checkpoint.bytes = std::filesystem::file_size(path);
    project_->addCheckpoint(checkpoint);
    last_checkpoint_step_ = step_;
    pruneCheckpoints();
    emit("checkpoint", "checkpoint at step " + std::to_string(step_),
         {{"path", relative}, {"sha256", checkpoint.sha256}, {"bytes", checkpoint.bytes}});
}

void TrainingRun::pruneCheckpoints() {
    const auto keep = static_cast<std::size_t>(plan_.config.integer("train.keep_checkpoints"));
    std::vector<CheckpointRecord> checkpoints = project_->checkpoints(record_.id);
    if (checkpoints.size() <= keep) {
        return;
    }
    std::sort(checkpoints.begin(), checkpoints.end(),
              [](const CheckpointRecord &a, const CheckpointRecord &b) { return a.step < b.step; });
    for (std::size_t i = 0; i + keep < checkpoints.size(); ++i) {
        project_->removeCheckpoint(checkpoints[i].id);
        std::error_code ignored;
        std::filesystem::remove(
            std::filesystem::path(project_->dataDirectory()) / checkpoints[i].path, ignored);
    }
}

void TrainingRun::finish(RunStatus status, const std::string &message) {
    if (writer_) {
        writer_->flush();
    }
    record_.status = status;
    record_.ended_at = project::isoTimestampNow();
    record_.message = message;
    nlohmann::json summary =
        nlohmann::json::parse(record_.summary_json.empty() ? "{}" : record_.summary_json);
    summary["model"] = recipe_ ? recipe_->describe() : "";
    summary["parameters"] = recipe_ ? recipe_->parameterCount() : 0;
    if (last_eval_ && std::isfinite(last_eval_->accuracy)) {
        summary["val_accuracy"] = last_eval_->accuracy;
    }
    if (last_eval_ && std::isfinite(last_eval_->rmse)) {
        summary["val_rmse"] = last_eval_->rmse;
    }
    if (data_.schema) {
        summary["task"] = data_.schema->classification ? "classification" : "regression";
        summary["target"] = data_.schema->target;
        summary["task_reason"] = data_.schema->task_reason;
    }
    record_.summary_json = summary.dump();
    project_->updateRun(record_);

    result_.final_loss = record_.final_loss;
    result_.final_val_loss = record_.final_val_loss;
    result_.message = message;
    if (result_.failure == FailureKind::None) {
        result_.state =
            status == RunStatus::Finished ? SessionState::Finished : SessionState::Stopped;
    }
}

} // namespace

RunResult runTraining(const SessionRequest &request, TrainerControl &control, ObserverHub &hub) {
    TrainingRun run(request, control, hub);
    return run.run();
}

} // namespace headroom::train
