#include "train/trainer.h"

#include "compat/device_memory.h"
#include "data/data_error.h"
#include "data/example_stream.h"
#include "device/resolve_device.h"
#include "device/system_memory.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "optim/fused_adamw.h"
#include "optim/schedule.h"
#include "project/timestamps.h"
#include "recipes/recipe.h"
#include "train/batch_shape.h"
#include "train/checkpoint.h"
#include "train/evaluation.h"
#include "train/failpoints.h"
#include "train/lora_setup.h"
#include "train/prepared_data.h"
#include "train/reference_pass.h"
#include "train/run_plan.h"
#include "train/step_count.h"
#include "train/training_run.h"
#include "util/hashing.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

namespace headroom::train {

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
    } catch (const distributed::DistributedError &error) {
        result_.failure = FailureKind::CannotContinue;
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
    if (meter_) {
        meter_->applyBudget(0);
        meter_->injectOutOfMemory(0);
    }
    result_.run_id = record_.id;
    result_.last_step = step_;
    result_.target_steps = schedule_.total_steps;
    hub_.state(result_.state, result_.message);
    return result_;
}

void TrainingRun::setUp() {
    hub_.state(SessionState::Preparing, "opening " + request_.project_path);
    if (profiling()) {
        checkProfileRequest();
    } else {
        launch_ = distributed::launchEnvironmentOfProcess();
    }
    if (leadsRanks()) {
        project_.emplace(Project::open(request_.project_path));
        project_->markAbandonedRunsInterrupted();
    } else {
        // The other ranks only read: rank 0 holds the writer's lock and writes for the run.
        project_.emplace(Project::openReadOnly(request_.project_path));
    }
    plan_ = planRun(*project_, request_.overrides, request_.resume);
    const Config &config = plan_.config;
    settings_ = TrainSettings::fromConfig(config);
    try {
        failpoints_ = Failpoints::fromEnvironment();
    } catch (const std::invalid_argument &error) {
        throw ConfigError(error.what());
    }

    if (settings_.threads > 0) {
        at::set_num_threads(static_cast<int>(settings_.threads));
    }
    // A rank of a distributed run takes the GPU of its LOCAL_RANK (device=cuda or auto).
    const torch::Device device =
        launch_ ? device::resolveRankDevice(config.text("device"), launch_->local_rank)
                : device::resolveDevice(config.text("device"));
    if (launch_ && device.is_cuda()) {
        compat::setCurrentCudaDevice(device.index());
    }
    device_ = device;
    device_name_ = device.str();
    on_cpu_ = device.is_cpu();
    setUpMemory(config);
    if (launch_ && config.text("train.objective") == "grpo") {
        throw ConfigError("train.objective=grpo runs in one process: its groups of completions "
                          "are sampled and scored together (run it without several ranks)");
    }
    if (launch_) {
        connectRanks();
    }
    if (launch_ || plan_.config.integer("distributed.ranks") != 1) {
        // What the estimate divides a sharded optimizer state by: this run's ranks.
        plan_.config.set("distributed.ranks", std::to_string(launch_ ? launch_->world_size : 1));
    }

    // Rank 0 may store what it prepares (a trained tokenizer) in the project; the other ranks
    // read it from there afterwards.
    const std::string preparing = "preparing the data";
    if (parallel_ && !parallel_->isLeader()) {
        parallel_->waitForLeader(preparing);
    }
    data_ = prepareData(config, *project_, [this](const std::string &message) {
        hub_.state(SessionState::Preparing, message);
    });
    if (parallel_ && parallel_->isLeader()) {
        parallel_->leaderFinished(preparing);
    }

    torch::manual_seed(static_cast<std::uint64_t>(settings_.seed));
    const std::uint64_t live_before_model = meter_->read().live;
    try {
        recipe_ = makeRecipe(config, data_, device, [this](const std::string &message) {
            hub_.state(SessionState::Preparing, message);
        });
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
    setUpLora(config, *project_, *recipe_, plan_.resume_from.has_value(),
              [this](const std::string &message) { hub_.state(SessionState::Preparing, message); });
    if (recipe_->precomputesReference()) {
        // Before the optimizer: a frozen reference copy is released once its table exists.
        std::shared_ptr<const ReferenceTable> table = precomputedReference(
            *recipe_, data_, config, *project_, leadsRanks(), settings_.micro_batch,
            [this](const std::string &message) { hub_.state(SessionState::Preparing, message); },
            [this] { return control_.stop.load(); });
        if (!table) {
            throw RunFailure{FailureKind::CannotContinue,
                             "stopped while computing the reference log-probabilities; what was "
                             "computed is stored, the next run continues from there",
                             RunStatus::Stopped};
        }
        recipe_->useReferenceTable(std::move(table));
    }
    const std::uint64_t live_before_optimizer = meter_->read().live;
    breakdown_.weights = live_before_optimizer - live_before_model;
    CheckpointMeta resumed;
    if (plan_.resume_from) {
        hub_.state(SessionState::Preparing,
                   "loading checkpoint at step " + std::to_string(plan_.resume_from->step));
        // Weights first: loading replaces the parameters' storage, and the optimizer keeps
        // them in its own contiguous buffer.
        resumed = loadCheckpointWeights(plan_.checkpoint_path, *recipe_->module());
        if (!resumed.techniques.empty()) {
            techniques_ = Techniques::fromJson(resumed.techniques); // rungs the ladder added
        }
    }
    applyTechniques();
    optimizer_options_ = adamwOptionsFromConfig(config);
    const std::uint64_t live_before_state = meter_->read().live;
    optimizer_ = makeOptimizer();
    // The fused optimizer moves the parameters into its own buffer (one freed, one
    // allocated): what remains is its state.
    breakdown_.optimizer = meter_->read().live - live_before_state;
    if (parallel_) {
        parallel_->requireSameOnAllRanks("model", recipe_->describe() + ", " +
                                                      std::to_string(optimizer_->parameterCount()) +
                                                      " trained parameters");
        // The same seed gives every rank the same weights; the broadcast makes sure of it.
        parallel_->broadcastParameters(optimizer_->parameters());
    }

    schedule_.peak_lr = settings_.lr;
    schedule_.min_ratio = settings_.min_lr_ratio;
    schedule_.warmup_steps = settings_.warmup_steps;
    schedule_.total_steps = resolveTotalSteps(plan_.config, data_);

    if (plan_.resume_from && schedule_.total_steps <= plan_.resume_from->step) {
        throw ConfigError("nothing to resume: the checkpoint is at step " +
                          std::to_string(plan_.resume_from->step) + " and the run has " +
                          std::to_string(schedule_.total_steps) +
                          " steps; make it longer with --set train.epochs=N or train.steps=N");
    }

    const data::TabularSchema *schema = data_.schema ? &*data_.schema : nullptr;
    train_stream_ = std::make_unique<data::ExampleStream>(data_.spec, data::Split::Train,
                                                          data_.tokenizer.get(), schema);
    validation_stream_ = std::make_unique<data::ExampleStream>(data_.spec, data::Split::Validation,
                                                               data_.tokenizer.get(), schema);

    if (plan_.resume_from) {
        const CheckpointMeta &meta = resumed;
        loadCheckpointOptimizer(plan_.checkpoint_path, *optimizer_);
        loadCheckpointLossScaler(plan_.checkpoint_path, *scaler_);
        train_stream_->restoreState(meta.data_state);
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(meta.cpu_rng_state);
        step_ = meta.step;
        last_checkpoint_step_ = step_;
        epoch_ = train_stream_->epoch();
    }

    shape_.micro_batch = settings_.micro_batch;
    shape_.effective_batch = shape_.micro_batch * settings_.accumulation;
    if (plan_.resume_from && resumed.micro_batch > 0) {
        shape_.micro_batch = resumed.micro_batch; // keep what earlier recoveries found
    }
    micro_batch_history_ = {shape_.micro_batch};
    backoff_.emplace(settings_.min_micro_batch, settings_.max_recoveries);
    eval_micro_batch_ = settings_.micro_batch;

    stop_after_ = schedule_.total_steps;
    if (profiling()) {
        // The schedule's learning rate past train.steps stays at its minimum: a profile may
        // be longer than the run it measures.
        stop_after_ = request_.profile->warmup_steps + request_.profile->steps;
    } else if (request_.max_steps > 0) {
        if (step_ + request_.max_steps > schedule_.total_steps) {
            throw ConfigError(tooManyStepsMessage(plan_.config, request_.max_steps, step_,
                                                  schedule_.total_steps));
        }
        stop_after_ = step_ + request_.max_steps;
    }
    if (writesProject()) {
        record_.id = project_->beginRun(config.toJson(), device_name_, schedule_.total_steps,
                                        plan_.resumed_run);
        record_ = *project_->run(record_.id);
        writer_ = std::make_unique<MetricsWriter>(project_->path(), record_.id);
    }
    record_.last_step = step_;
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

void TrainingRun::connectRanks() {
    const auto timeout = std::chrono::seconds(plan_.config.integer("distributed.timeout_s"));
    const std::string &device_text = plan_.config.text("device");
    const distributed::Backend backend =
        distributed::chooseBackend(plan_.config.text("distributed.backend"), device_,
                                   compat::ncclAvailable(), compat::glooAvailable());
    if (backend == distributed::Backend::Nccl && launch_->local_rank > 0 &&
        device_text.rfind("cuda:", 0) == 0) {
        throw ConfigError("device=" + device_text +
                          " puts every rank of this machine on one GPU, which NCCL refuses; set "
                          "device=cuda (each rank takes cuda:LOCAL_RANK) or "
                          "distributed.backend=gloo");
    }
    hub_.state(SessionState::Preparing,
               "rank " + std::to_string(launch_->rank) + " of " +
                   std::to_string(launch_->world_size) + ": joining the rendezvous at " +
                   launch_->master_addr + ":" + std::to_string(launch_->master_port) + " (" +
                   distributed::backendName(backend) + ", " + device_.str() + ")");
    parallel_ = distributed::DataParallel::connect(*launch_, timeout, backend, device_);
    parallel_->requireSameOnAllRanks("configuration",
                                     plan_.config.toJson() + (request_.resume ? " --resume" : "") +
                                         " --steps " + std::to_string(request_.max_steps));
    if (plan_.config.integer("distributed.overlap") != 0) {
        parallel_->enableOverlap(plan_.config.integer("distributed.bucket_kib") * 1024);
    }
}

void TrainingRun::refreshStreamAnchor() {
    // Serializing the stream costs about its shuffle buffer; doing it once per this many
    // examples keeps it a small share of a step however small the model is.
    constexpr std::int64_t kExamplesPerBufferBetweenAnchors = 8;
    const std::int64_t drawn = (step_ - anchor_.step) * examplesPerStep();
    const std::int64_t spacing =
        kExamplesPerBufferBetweenAnchors *
        std::max<std::int64_t>(plan_.config.integer("data.shuffle_buffer"), 1024);
    if (anchor_.step < 0 || drawn >= spacing) {
        anchor_.state = train_stream_->saveState();
        anchor_.step = step_;
    }
}

std::string TrainingRun::rewindToStepStart() {
    train_stream_->restoreState(anchor_.state);
    data::Example skipped;
    for (std::int64_t i = (step_ - anchor_.step) * examplesPerStep(); i > 0; --i) {
        train_stream_->next(skipped);
    }
    anchor_.state = train_stream_->saveState();
    anchor_.step = step_;
    return anchor_.state;
}

void TrainingRun::stopEarly() {
    early_stopped_ = true;
    if (last_checkpoint_step_ != step_) {
        writeCheckpoint(train_stream_->saveState());
    }
    const std::string patience = plan_.config.text("train.early_stopping");
    char best_loss[32];
    std::snprintf(best_loss, sizeof best_loss, "%.4f", best_eval_ ? best_eval_->loss : 0.0);
    const std::string message = "stopped early at step " + std::to_string(step_) + " of " +
                                std::to_string(schedule_.total_steps) + ": " + patience +
                                " validation passes without a lower validation loss; the best "
                                "checkpoint (step " +
                                std::to_string(best_step_) + ", validation loss " + best_loss +
                                ") is the run's result (export and evaluate use it)";
    emit("early_stopped", message,
         {{"best_step", best_step_},
          {"patience", settings_.early_stopping},
          {"best_val_loss", best_eval_ ? best_eval_->loss : 0.0}});
    finish(RunStatus::Finished, message);
}

bool TrainingRun::waitWhilePaused() {
    if (!control_.pause.load()) {
        return true;
    }
    record_.status = RunStatus::Paused;
    if (writesProject()) {
        project_->updateRun(record_);
    }
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
    if (writesProject()) {
        project_->updateRun(record_);
    }
    hub_.state(SessionState::Running, "resumed at step " + std::to_string(step_ + 1));
    return true;
}

void TrainingRun::trainLoop() {
    if (profiling()) {
        profileLoop();
        return;
    }
    const std::int64_t checkpoint_every = settings_.checkpoint_every;
    const std::int64_t eval_every = settings_.eval_every;
    while (step_ < stop_after_) {
        refreshStreamAnchor();
        // Ranks stop together, at a step's end (agreed in trainOneStep's exchange).
        const bool stop_here =
            parallel_ ? agreed_stop_ : control_.stop.load() || !waitWhilePaused();
        if (stop_here || !trainOneStep()) {
            hub_.state(SessionState::Stopping, "stopping at step " + std::to_string(step_));
            if (last_checkpoint_step_ != step_) {
                writeCheckpoint(rewindToStepStart());
            }
            finish(
                RunStatus::Stopped,
                "stopped at step " + std::to_string(step_) +
                    (parallel_ ? " on every rank; " + std::string(kContinueHint) : std::string()));
            return;
        }
        if (eval_every > 0 && step_ % eval_every == 0) {
            evaluate();
        }
        if (checkpoint_every > 0 && step_ % checkpoint_every == 0 &&
            last_checkpoint_step_ != step_) {
            writeCheckpoint(train_stream_->saveState());
        }
        if (early_stop_due_) {
            stopEarly();
            return;
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
                                       std::to_string(schedule_.total_steps) + " (--steps); " +
                                       kContinueHint);
    }
}

RunResult runTraining(const SessionRequest &request, TrainerControl &control, ObserverHub &hub,
                      const PeakEstimator &estimate_peak) {
    TrainingRun run(request, control, hub, estimate_peak);
    return run.run();
}

} // namespace headroom::train
