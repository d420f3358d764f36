#include "train/trainer.h"

#include "data/data_error.h"
#include "data/example_stream.h"
#include "device/system_memory.h"
#include "project/timestamps.h"
#include "train/checkpoint.h"
#include "train/failpoints.h"
#include "train/fused_adamw.h"
#include "train/recipe.h"
#include "train/run_config.h"
#include "train/run_setup.h"
#include "train/schedule.h"
#include "util/hashing.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

namespace headroom::train {

void ObserverHub::started(const RunInfo &info) const {
    for (SessionObserver *observer : observers_) {
        observer->onRunStarted(info);
    }
}

void ObserverHub::step(const StepMetrics &metrics) const {
    for (SessionObserver *observer : observers_) {
        observer->onStep(metrics);
    }
}

void ObserverHub::eval(const EvalMetrics &metrics) const {
    for (SessionObserver *observer : observers_) {
        observer->onEval(metrics);
    }
}

void ObserverHub::event(const EngineEvent &event) const {
    for (SessionObserver *observer : observers_) {
        observer->onEvent(event);
    }
}

void ObserverHub::state(SessionState state, const std::string &message) {
    state_.store(state);
    for (SessionObserver *observer : observers_) {
        observer->onStateChanged(state, message);
    }
}

namespace {

using Clock = std::chrono::steady_clock;

// A failure that ends the run with a given kind; thrown inside the run, caught at its edge.
struct RunFailure {
    FailureKind kind;
    std::string message;
};

class TrainingRun {
public:
    TrainingRun(const SessionRequest &request, TrainerControl &control, ObserverHub &hub)
        : request_(request), control_(control), hub_(hub),
          failpoints_(Failpoints::fromEnvironment()) {}

    RunResult run();

private:
    void setUp();
    void trainLoop();
    // Trains optimizer step `step_`+1; returns false when a stop abandoned it.
    bool trainOneStep(const std::string &step_start_state);
    void evaluate();
    void writeCheckpoint(const std::string &data_state);
    // Deletes this run's checkpoints beyond the newest train.keep_checkpoints.
    void pruneCheckpoints();
    bool waitWhilePaused();
    void finish(RunStatus status, const std::string &message);
    void emit(const std::string &kind, const std::string &message, nlohmann::json details = {});

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
    std::string device_name_;
    RunRecord record_;

    std::int64_t step_ = 0;       // optimizer steps completed
    std::int64_t stop_after_ = 0; // step at which this session stops (max_steps)
    std::int64_t last_checkpoint_step_ = -1;
    std::int64_t last_eval_step_ = -1;
    std::uint64_t epoch_ = 0;
    std::optional<EvalMetrics> last_eval_;
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
    } catch (const std::exception &error) {
        result_.failure = FailureKind::Internal;
        result_.message = error.what();
    }
    if (result_.failure != FailureKind::None) {
        result_.state = SessionState::Failed;
        if (project_ && record_.id != 0) {
            try {
                finish(RunStatus::Failed, result_.message);
            } catch (const std::exception &) {
                // The run already failed; the first message is the one that matters.
            }
        }
    }
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

    if (const std::int64_t threads = config.integer("train.threads"); threads > 0) {
        at::set_num_threads(static_cast<int>(threads));
    }
    const torch::Device device = resolveDevice(config.text("device"));
    device_name_ = device.str();

    data_ = prepareData(config, *project_, [this](const std::string &message) {
        hub_.state(SessionState::Preparing, message);
    });

    torch::manual_seed(static_cast<std::uint64_t>(config.integer("train.seed")));
    if (data_.tokenizer) {
        recipe_ = makeGptRecipe(config, data_.tokenizer->vocabSize(), device);
    } else {
        recipe_ = makeTabularRecipe(config, *data_.schema, device);
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

void TrainingRun::emit(const std::string &kind, const std::string &message,
                       nlohmann::json details) {
    EngineEvent event;
    event.kind = kind;
    event.step = step_;
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
    const auto micro_batch = static_cast<std::size_t>(plan_.config.integer("train.micro_batch"));
    const auto accumulation = static_cast<std::size_t>(plan_.config.integer("train.accumulation"));
    const std::size_t effective_batch = micro_batch * accumulation;

    std::vector<data::Example> examples(effective_batch);
    std::vector<std::uint64_t> ids;
    ids.reserve(effective_batch);
    for (data::Example &example : examples) {
        train_stream_->next(example);
        ids.push_back(example.id);
    }

    const double lr = schedule_.at(step);
    optimizer_->options().lr(lr);
    optimizer_->zeroGrad();

    double loss_value = 0;
    for (std::size_t start = 0; start < effective_batch; start += micro_batch) {
        if (control_.stop.load()) {
            optimizer_->zeroGrad();
            train_stream_->restoreState(step_start_state);
            return false;
        }
        ExampleBatch batch;
        for (std::size_t i = start; i < start + micro_batch; ++i) {
            batch.push_back(&examples[i]);
        }
        const double share =
            static_cast<double>(batch.size()) / static_cast<double>(effective_batch);
        torch::Tensor loss = recipe_->loss(batch);
        if (failpoints_.nanLossAt(step)) {
            loss = loss * std::numeric_limits<double>::quiet_NaN();
        }
        (loss * share).backward();
        loss_value += loss.item<double>() * share;
    }

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
    metrics.micro_batch = static_cast<int>(micro_batch);
    metrics.accumulation = static_cast<int>(accumulation);
    metrics.samples_per_s = static_cast<double>(effective_batch) / seconds;
    metrics.tokens_per_s = metrics.samples_per_s * static_cast<double>(recipe_->tokensPerExample());
    metrics.mem_live = device::processResidentBytes();
    metrics.mem_peak = device::processPeakResidentBytes();
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

void TrainingRun::evaluate() {
    last_eval_step_ = step_;
    const auto limit =
        plan_.config.integer("train.eval_batches") * plan_.config.integer("train.micro_batch");
    const auto micro_batch = static_cast<std::size_t>(plan_.config.integer("train.micro_batch"));
    const std::shared_ptr<torch::nn::Module> module = recipe_->module();
    module->eval();
    EvalTotals totals;
    {
        torch::NoGradGuard no_grad;
        validation_stream_->reset();
        std::vector<data::Example> examples;
        data::Example example;
        std::int64_t taken = 0;
        bool more = true;
        while (more && taken < limit) {
            examples.clear();
            while (examples.size() < micro_batch && taken < limit &&
                   (more = validation_stream_->next(example))) {
                examples.push_back(std::move(example));
                ++taken;
            }
            if (examples.empty()) {
                break;
            }
            ExampleBatch batch;
            for (const data::Example &item : examples) {
                batch.push_back(&item);
            }
            recipe_->evaluate(batch, totals);
        }
    }
    module->train();
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
