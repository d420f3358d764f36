#include "device/system_memory.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "models/keyed_dropout.h"
#include "profile/scopes.h"
#include "project/timestamps.h"
#include "rewards/rewards.h"
#include "train/checkpoint.h"
#include "train/evaluation.h"
#include "train/training_run.h"
#include "util/hashing.h"

#include <headroom/units.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>

namespace headroom::train {

namespace {

// Arms the overlapped gradient exchange for one backward (nothing without one).
class ArmedBackward {
public:
    explicit ArmedBackward(distributed::OverlappedReducer *reducer) : reducer_(reducer) {
        if (reducer_ != nullptr) {
            reducer_->arm();
        }
    }
    ~ArmedBackward() {
        if (reducer_ != nullptr) {
            reducer_->setAfterEarlyLaunch(nullptr);
            reducer_->disarm(completed_);
        }
    }
    ArmedBackward(const ArmedBackward &) = delete;
    ArmedBackward &operator=(const ArmedBackward &) = delete;
    void completed() const { completed_ = true; }
    distributed::OverlappedReducer *reducer() const { return reducer_; }

private:
    distributed::OverlappedReducer *reducer_;
    mutable bool completed_ = false;
};

} // namespace

bool TrainingRun::trainOneStep() {
    const Clock::time_point step_started = Clock::now();
    const std::int64_t step = step_ + 1;
    const profile::StepScope step_scope(step);
    const auto effective_batch = static_cast<std::size_t>(shape_.effective_batch);

    std::vector<data::Example> examples(static_cast<std::size_t>(examplesPerStep()));
    std::vector<std::uint64_t> ids;
    ids.reserve(effective_batch);
    for (data::Example &example : examples) {
        train_stream_->next(example);
        ids.push_back(example.id);
    }

    const double lr = schedule_.at(step);
    optimizer_->setLearningRate(lr);
    if (failpoints_.at("kill", step)) {
        std::raise(SIGKILL);
    }
    if (failpoints_.at("stop", step)) {
        control_.stop.store(true);
    }
    // Every rank draws the whole step from the same stream and trains on its block of it.
    const distributed::RankShare share =
        parallel_ ? parallel_->share(effective_batch) : distributed::RankShare{0, effective_batch};
    if (failpoints_.at("error", step)) {
        TORCH_CHECK(false, "injected error at step ", step, " (HEADROOM_FAILPOINT)");
    }
    if (failpoints_.at("oom", step)) {
        meter_->injectOutOfMemory(kInjectedOomMinBytes);
    }
    // The same samples are replayed from the step's start after an out-of-memory error, in
    // smaller micro-batches: the effective batch, the schedule and the step count stay.
    double loss_value = 0;
    std::uint64_t live_at_start = 0;
    // Dropout off the CPU falls back to the device's generator (models/keyed_dropout.h): it
    // is put back when the step is replayed after an out-of-memory error, so a replay at the
    // same micro-batch (after a ladder rung) draws the same masks there too.
    at::Generator step_generator = at::globalContext().defaultGenerator(
        device_.is_cpu() || device_.is_cuda() ? device_ : torch::Device(torch::kCPU));
    torch::Tensor step_start_rng;
    {
        std::lock_guard<std::mutex> lock(step_generator.mutex());
        step_start_rng = step_generator.get_state();
    }
    if (parallel_) {
        parallel_->beginStep(optimizer_->parameters(), step);
    }
    for (;;) {
        optimizer_->zeroGrad();
        meter_->resetPeak();
        live_at_start = meter_->read().live;
        try {
            if (!accumulateGradients(examples, share, step, loss_value)) {
                optimizer_->zeroGrad();
                rewindToStepStart();
                return false;
            }
            break;
        } catch (const rewards::RewardError &error) {
            pauseForReward(step, error.what());
        } catch (const std::exception &error) {
            if (!memory::isOutOfMemory(error)) {
                throw;
            }
            // Buckets already sent keep their sums (distributed/gradient_buckets.h).
            optimizer_->zeroGrad();
            recoverFromOutOfMemory(step, error.what());
            if (parallel_ && parallel_->overlap()) {
                parallel_->overlap()->relearn(); // a ladder rung may have changed the model
            }
            if (!exhausted_diagnosis_.empty()) {
                break; // a distributed run: the step's exchange pauses every rank
            }
            std::lock_guard<std::mutex> lock(step_generator.mutex());
            step_generator.set_state(step_start_rng);
        }
    }
    meter_->injectOutOfMemory(0);
    if (parallel_) {
        // The gradient buckets not sent during the last backward (all of them with
        // distributed.overlap=0), then the step's report. A stop or pause asked of any rank ends
        // the run on every rank after this step (a rank that left alone would leave the others
        // waiting in the next exchange).
        distributed::DataParallel::StepReport report;
        report.micro_batch = shape_.micro_batch;
        report.stop_requested = control_.stop.load() || control_.pause.load();
        report.cannot_continue = !exhausted_diagnosis_.empty();
        report.peak_bytes = meter_->read().peak;
        report.compute_seconds = std::chrono::duration<double>(Clock::now() - step_started).count();
        report.examples = static_cast<std::int64_t>(share.count);
        const distributed::DataParallel::StepExchange exchange =
            parallel_->allReduceGradients(optimizer_->parameters(), loss_value, step, report);
        if (exchange.failed_rank >= 0) {
            pauseEveryRank(step, exchange.failed_rank);
        }
        adoptPeerMicroBatch(step, exchange.micro_batches);
        agreed_stop_ = exchange.stop;
        rank_figures_.clear();
        for (std::size_t rank = 0; rank < exchange.figures.size(); ++rank) {
            const auto &figures = exchange.figures[rank];
            RankStepMetrics metrics;
            metrics.rank = static_cast<int>(rank);
            metrics.mem_peak = figures.peak_bytes;
            metrics.samples_per_s =
                figures.compute_seconds > 0
                    ? static_cast<double>(figures.examples) / figures.compute_seconds
                    : 0;
            rank_figures_.push_back(metrics);
        }
    }
    if (breakdown_due_) {
        const memory::MemoryReading stats = meter_->read();
        breakdown_.gradients = stats.live > live_at_start ? stats.live - live_at_start : 0;
        const std::uint64_t above_start = stats.peak - live_at_start;
        breakdown_.activations =
            above_start > breakdown_.gradients ? above_start - breakdown_.gradients : 0;
        breakdown_.peak = stats.peak;
        breakdown_.step = step;
        breakdown_.micro_batch = shape_.micro_batch;
        breakdown_.measured = true;
        breakdown_due_ = false;
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

    // fp16: an overflow in the scaled gradients skips this step's update and backs the scale
    // off; the step still counts (its samples were seen), as with PyTorch's GradScaler.
    const bool finite = scaler_->unscaleAndCheck(optimizer_->parameters());
    scaler_->update(!finite);
    double grad_norm = std::numeric_limits<double>::quiet_NaN();
    if (finite) {
        const profile::PhaseScope phase(profile::kOptimizerPhase);
        const double clip = settings_.grad_clip;
        grad_norm =
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
    } else {
        optimizer_->zeroGrad();
        emit("loss_scale_backoff",
             "fp16 gradients overflowed at step " + std::to_string(step) +
                 ": update skipped, loss scale now " + std::to_string(scaler_->currentScale()),
             {{"loss_scale", scaler_->currentScale()}, {"skipped_steps", scaler_->skippedSteps()}},
             step);
    }
    step_ = step;
    watchForLeaks(step);
    releaseCachesIfDue(step);

    const double seconds = std::chrono::duration<double>(Clock::now() - step_started).count();
    StepMetrics metrics;
    metrics.step = step;
    metrics.loss = loss_value;
    metrics.lr = lr;
    metrics.grad_norm = grad_norm;
    metrics.micro_batch = static_cast<int>(shape_.micro_batch);
    metrics.accumulation = static_cast<int>(shape_.accumulation());
    metrics.samples_per_s = static_cast<double>(effective_batch) / seconds;
    const std::vector<data::Example> &trained = recipe_->expandsStep() ? step_rows_ : examples;
    const std::int64_t real_tokens = recipe_->tokensOf(trained);
    metrics.tokens_per_s = static_cast<double>(real_tokens) / seconds;
    const std::int64_t computed = recipe_->computedTokensOf(trained);
    metrics.padding_fraction =
        computed > 0 ? 1.0 - static_cast<double>(real_tokens) / static_cast<double>(computed) : 0;
    const MemorySample memory = sampleMemory();
    metrics.mem_live = memory.live;
    metrics.mem_peak = memory.peak;
    metrics.mem_reserved = memory.reserved;
    metrics.mem_rss = memory.rss;
    metrics.loss_scale = scaler_->enabled() ? scaler_->currentScale() : 0;
    metrics.skipped_steps = scaler_->skippedSteps();
    metrics.elapsed_s = std::chrono::duration<double>(Clock::now() - started_).count();
    metrics.samples_digest = util::digestIds(ids);
    metrics.moe = moe_step_.metrics();
    metrics.retrieval = retrieval_step_;
    metrics.preference = preference_step_.means();
    metrics.grpo = recipe_->grpoStepMetrics();
    metrics.ranks = rank_figures_;
    if (writer_) {
        writer_->post(metrics);
    }
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

bool TrainingRun::accumulateGradients(const std::vector<data::Example> &examples,
                                      const distributed::RankShare &share, std::int64_t step,
                                      double &loss_value) {
    loss_value = 0;
    moe_step_.reset();
    retrieval_step_.reset();
    preference_step_.reset();
    // Shares of the whole step's batch: summed over the ranks they give the single-process
    // gradient and loss.
    const auto micro_batch = static_cast<std::size_t>(shape_.micro_batch);
    const std::vector<data::Example> *rows = &examples;
    if (recipe_->expandsStep()) {
        // Online RL: the step trains on completions sampled for its prompts.
        const compat::ScopedAutocastState autocast(autocastState());
        const profile::PhaseScope phase(profile::kForwardPhase);
        step_rows_ = recipe_->expandStep(examples, micro_batch, step);
        rows = &step_rows_;
    }
    const std::size_t total = rows->size();
    const std::size_t end = share.first + share.count;
    const std::uint64_t dropout_seed =
        models::dropoutStepSeed(static_cast<std::uint64_t>(settings_.seed), step);
    recipe_->beginStep(*rows);
    if (recipe_->couplesExamples()) {
        // Every rank computes the whole step's loss (it couples all examples), then
        // back-propagates its own share of it.
        ExampleBatch all;
        for (const data::Example &example : *rows) {
            all.push_back(&example);
        }
        const compat::ScopedAutocastState autocast(autocastState());
        const profile::PhaseScope phase(profile::kForwardPhase);
        // A rank that trains only its share must not take the single pass of a whole step.
        recipe_->prepareStep(all, std::min(micro_batch, std::max<std::size_t>(1, share.count)),
                             dropout_seed, step);
    }
    for (std::size_t start = share.first; start < end; start += micro_batch) {
        if (!parallel_ && control_.stop.load()) {
            return false;
        }
        ExampleBatch batch;
        for (std::size_t i = start; i < std::min(end, start + micro_batch); ++i) {
            batch.push_back(&(*rows)[i]);
        }
        const double share = static_cast<double>(batch.size()) / static_cast<double>(total);
        // Dropout masks keyed by the step and each example's place in it, for forward and the
        // backward's recomputation alike: the same whatever the micro-batch.
        const models::ScopedDropoutKey dropout_key(dropout_seed, static_cast<std::int64_t>(start),
                                                   static_cast<std::int64_t>(batch.size()));
        TrainingLoss terms;
        {
            const compat::ScopedAutocastState autocast(autocastState());
            const profile::PhaseScope phase(profile::kForwardPhase);
            terms = recipe_->trainingLoss(batch);
        }
        torch::Tensor loss = terms.loss.to(torch::kFloat32);
        torch::Tensor objective = terms.objective.to(torch::kFloat32);
        if (failpoints_.at("nan_loss", step)) {
            loss = loss * std::numeric_limits<double>::quiet_NaN();
            objective = objective * std::numeric_limits<double>::quiet_NaN();
        }
        terms.loss = torch::Tensor();
        terms.objective = torch::Tensor();
        {
            const profile::PhaseScope phase(profile::kBackwardPhase);
            // Only the last micro-batch's backward finishes gradients: its buckets may go out
            // while it runs.
            const bool last = start + micro_batch >= end;
            const ArmedBackward armed(last && parallel_ ? parallel_->overlap() : nullptr);
            if (last && failpoints_.at("oom_backward", step) && oom_backward_step_ != step) {
                injectOutOfMemoryInBackward(armed.reducer(), step);
            }
            scaler_->scale(terms.step_total ? objective : objective * share).backward();
            armed.completed();
        }
        objective = torch::Tensor();
        loss_value += loss.item<double>() * share;
        if (terms.moe) {
            moe_step_.add(*terms.moe, share);
        }
        if (terms.retrieval) {
            retrieval_step_ = terms.retrieval;
        }
        if (terms.preference) {
            preference_step_.add(*terms.preference, share);
        }
    }
    return true;
}

void TrainingRun::pauseForReward(std::int64_t step, const std::string &message) {
    optimizer_->zeroGrad();
    emit("reward_failed", message, {}, step);
    const std::string step_start_state = rewindToStepStart();
    if (last_checkpoint_step_ != step_) {
        writeCheckpoint(step_start_state);
    }
    throw RunFailure{FailureKind::CannotContinue,
                     message + "; the run is paused at step " + std::to_string(step_) +
                         ": once the reward works, " + kContinueHint,
                     RunStatus::Paused};
}

void TrainingRun::watchForLeaks(std::int64_t step) {
    if (growth_reported_) {
        return;
    }
    if (step >= 1 && failpoints_.atOrAfter("leak", step)) {
        injected_leak_.push_back(torch::ones({64 * 1024}, torch::kFloat32));
    }
    live_after_steps_.push_back(meter_->read().live);
    if (live_after_steps_.size() > kLeakWatchSteps + 1) {
        live_after_steps_.erase(live_after_steps_.begin());
    }
    if (live_after_steps_.size() <= kLeakWatchSteps) {
        return;
    }
    for (std::size_t i = 1; i < live_after_steps_.size(); ++i) {
        if (live_after_steps_[i] <= live_after_steps_[i - 1]) {
            return;
        }
    }
    const std::uint64_t from = live_after_steps_.front();
    const std::uint64_t to = live_after_steps_.back();
    growth_reported_ = true;
    emit("memory_growing",
         "live memory grew at the end of each of the last " + std::to_string(kLeakWatchSteps) +
             " steps, from " + formatBytes(from) + " to " + formatBytes(to) +
             ": something keeps tensors alive between steps",
         {{"from", from}, {"to", to}, {"steps", kLeakWatchSteps}});
}

MemorySample TrainingRun::sampleMemory() const {
    const memory::MemoryReading reading = meter_->read();
    return {reading.live, reading.peak, reading.reserved, device::processResidentBytes()};
}

} // namespace headroom::train
