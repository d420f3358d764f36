#include "device/system_memory.h"
#include "distributed/sharded_optimizer.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "project/timestamps.h"
#include "recipes/sample_text.h"
#include "train/checkpoint.h"
#include "train/evaluation.h"
#include "train/training_run.h"
#include "util/hashing.h"

#include <headroom/plan.h>
#include <headroom/units.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

namespace headroom::train {

namespace {

// One memory-history row for a run that trained at least one step: the config as it ran at
// the end (its final micro-batch and what the recovery ladder switched on), the measured peak
// and the estimator's uncorrected peak for that config.
MemoryHistoryRecord runMemoryHistory(const RunRecord &run, const Config &config,
                                     std::int64_t micro_batch, const Techniques &techniques,
                                     const PreparedData &data, const std::string &device,
                                     const PeakEstimator &estimate_peak) {
    Config measured = config;
    measured.set("train.micro_batch", std::to_string(micro_batch));
    measured.set("precision", precisionName(techniques.precision));
    measured.set("checkpointing", std::to_string(techniques.checkpoint_every));
    measured.set("optimizer", techniques.adamw8bit ? "adamw8bit" : "adamw");
    measured.set("offload.optimizer", techniques.offload ? "on" : "off");
    MemoryHistoryRecord record;
    record.source = "run";
    record.run_id = run.id;
    record.device = device;
    record.recipe = config.text("recipe");
    record.config_json = measured.toJson();
    record.micro_batch = micro_batch;
    record.measured_peak = run.peak_bytes;
    if (estimate_peak) {
        record.predicted_peak = estimate_peak(measured, data);
    }
    return record;
}

} // namespace

void TrainingRun::evaluate() {
    last_eval_step_ = step_;
    const std::int64_t eval_batches = settings_.eval_batches;
    // Online RL validates prompts, each sampled a group of rows: as many rows as training's.
    const std::int64_t per_example = recipe_->rowsPerExample();
    const std::int64_t limit =
        eval_batches == 0
            ? std::numeric_limits<std::int64_t>::max()
            : std::max<std::int64_t>(1, eval_batches * settings_.micro_batch / per_example);
    bool inject_oom = failpoints_.at("oom_eval", step_);
    EvaluationOutcome outcome;
    const compat::ScopedAutocastState autocast(autocastState());
    try {
        outcome = evaluateSplit(*recipe_, *validation_stream_, limit, eval_micro_batch_,
                                [this, &inject_oom] {
                                    if (inject_oom) {
                                        meter_->injectOutOfMemory(kInjectedOomMinBytes);
                                        inject_oom = false;
                                    }
                                });
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            throw;
        }
        meter_->injectOutOfMemory(0);
        emit("eval_skipped", "validation skipped: out of memory even one example at a time");
        return;
    }
    meter_->injectOutOfMemory(0);
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
    const EvalMetrics metrics = evalMetrics(totals, *recipe_, step_);
    if (writer_) {
        writer_->post(metrics);
    }
    hub_.eval(metrics);
    record_.final_val_loss = metrics.loss;
    last_eval_ = metrics;
    trackBest(metrics);
    emitSampleContinuation();
}

void TrainingRun::emitSampleContinuation() {
    if (recipe_->expandsStep()) {
        // Online RL: completions the validation sampled, with their rewards.
        for (const std::string &sample : recipe_->evaluationSamples()) {
            emit("sample", sample, {{"completion", sample}});
        }
        return;
    }
    const std::int64_t new_tokens = settings_.sample_tokens;
    if (new_tokens == 0 || !data_.tokenizer) {
        return;
    }
    std::optional<SampleContinuation> sample;
    try {
        sample =
            continueValidationSample(*recipe_, *data_.tokenizer, *validation_stream_, new_tokens);
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            throw;
        }
        return; // a sample is not worth pausing the run for
    }
    if (sample) {
        emit("sample", sample->prompt + " → " + sample->continuation,
             {{"prompt", sample->prompt}, {"continuation", sample->continuation}});
    }
}

namespace {

// Whether `candidate` beats `best`: a lower validation loss (cross-entropy, or the squared
// error RMSE comes from), by more than a relative 1e-4 (scikit-learn's tol) so rounding is no
// progress. Not accuracy: on a validation split of a few dozen rows it moves in steps of
// several points and picks noise.
bool betterEvaluation(const EvalMetrics &candidate, const EvalMetrics &best) {
    constexpr double kMinRelativeImprovement = 1e-4;
    return candidate.loss < best.loss - kMinRelativeImprovement * std::abs(best.loss);
}

} // namespace

void TrainingRun::trackBest(const EvalMetrics &metrics) {
    if (!std::isfinite(metrics.loss)) {
        return;
    }
    if (best_eval_ && !betterEvaluation(metrics, *best_eval_)) {
        ++evals_without_improvement_;
        const std::int64_t patience = settings_.early_stopping;
        early_stop_due_ = patience > 0 && evals_without_improvement_ >= patience;
        return;
    }
    best_eval_ = metrics;
    evals_without_improvement_ = 0;
    if (settings_.early_stopping > 0) {
        // The weights export and evaluate use: kept on disk whatever train.keep_checkpoints
        // says. Taken at the end of step_, so the stream's state is that step's too.
        best_step_ = step_;
        if (last_checkpoint_step_ == step_) {
            return;
        }
        // A small model improves often and its checkpoint is cheap to hold: it waits in
        // memory until the next checkpoint or the run's end, and a better one replaces it
        // without ever touching the disk.
        constexpr std::int64_t kHeldBestParameters = std::int64_t{2} << 20;
        if (recipe_->parameterCount() <= kHeldBestParameters) {
            collectOptimizerShards();
            pending_best_.step = step_;
            if (writesProject()) {
                pending_best_.bytes =
                    serializeCheckpoint(*recipe_->module(), *optimizer_,
                                        checkpointMeta(train_stream_->saveState()), scaler_.get());
            }
        } else {
            writeCheckpoint(train_stream_->saveState());
        }
    }
}

CheckpointMeta TrainingRun::checkpointMeta(const std::string &data_state) const {
    CheckpointMeta meta;
    meta.step = step_;
    meta.run_id = record_.id;
    meta.config_json = plan_.config.toJson();
    meta.data_state = data_state;
    meta.micro_batch = shape_.micro_batch;
    meta.techniques = techniques_.toJson();
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    meta.cpu_rng_state = generator.get_state();
    return meta;
}

void TrainingRun::writeCheckpoint(const std::string &data_state) {
    if (pending_best_.step == step_) {
        flushPendingBest(); // the best of this very step is this step's checkpoint
        last_checkpoint_step_ = step_;
        return;
    }
    flushPendingBest();
    const CheckpointMeta meta = checkpointMeta(data_state);
    collectOptimizerShards();
    storeCheckpointFile(step_, [&](const std::string &path) {
        saveCheckpoint(path, *recipe_->module(), *optimizer_, meta, scaler_.get());
    });
    last_checkpoint_step_ = step_;
}

void TrainingRun::collectOptimizerShards() {
    if (auto *sharded = dynamic_cast<distributed::ShardedOptimizer *>(optimizer_.get())) {
        sharded->collectShards("step " + std::to_string(step_));
    }
}

void TrainingRun::flushPendingBest() {
    if (pending_best_.step < 0) {
        return;
    }
    const PendingCheckpoint pending = std::move(pending_best_);
    pending_best_ = {};
    storeCheckpointFile(pending.step, [&pending](const std::string &path) {
        writeCheckpointBytes(path, pending.bytes);
    });
}

void TrainingRun::storeCheckpointFile(std::int64_t step,
                                      const std::function<void(const std::string &)> &write) {
    if (!writesProject()) {
        return; // rank 0 of a distributed run holds the same weights and writes them
    }
    const std::string relative =
        "run-" + std::to_string(record_.id) + "/step-" + std::to_string(step) + ".pt";
    const std::filesystem::path path = std::filesystem::path(project_->dataDirectory()) / relative;
    std::filesystem::create_directories(path.parent_path());
    CheckpointRecord checkpoint;
    checkpoint.run_id = record_.id;
    checkpoint.step = step;
    checkpoint.path = relative;
    try {
        write(path.string());
        checkpoint.sha256 = util::sha256File(path.string());
        checkpoint.bytes = std::filesystem::file_size(path);
        // A recorded checkpoint is where a resumed run starts: every metric up to it must be
        // committed first, or a kill now would leave a gap nobody re-does.
        writer_->flush();
        project_->addCheckpoint(checkpoint);
    } catch (const std::exception &error) {
        if (memory::isOutOfMemory(error)) {
            throw;
        }
        // A full disk, a read-only folder, a permission: the run pauses and the last good
        // checkpoint stays what --resume continues from.
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        const std::string kept =
            last_checkpoint_step_ >= 0
                ? "the checkpoint at step " + std::to_string(last_checkpoint_step_) + " is kept"
                : "there is no earlier checkpoint";
        throw RunFailure{
            FailureKind::CannotContinue,
            "cannot save the checkpoint at step " + std::to_string(step) + ": " +
                std::string(error.what()).substr(0, std::string(error.what()).find('\n')) + "; " +
                kept + ". Free disk space or fix the folder's permissions, then " + kContinueHint,
            RunStatus::Paused};
    }
    pruneCheckpoints();
    emit("checkpoint", "checkpoint at step " + std::to_string(step),
         {{"path", relative}, {"sha256", checkpoint.sha256}, {"bytes", checkpoint.bytes}}, step);
}

void TrainingRun::pruneCheckpoints() {
    const auto keep = static_cast<std::size_t>(settings_.keep_checkpoints);
    std::vector<CheckpointRecord> checkpoints = project_->checkpoints(record_.id);
    if (checkpoints.size() <= keep) {
        return;
    }
    std::sort(checkpoints.begin(), checkpoints.end(),
              [](const CheckpointRecord &a, const CheckpointRecord &b) { return a.step < b.step; });
    for (std::size_t i = 0; i + keep < checkpoints.size(); ++i) {
        if (checkpoints[i].step == best_step_) {
            continue;
        }
        project_->removeCheckpoint(checkpoints[i].id);
        std::error_code ignored;
        std::filesystem::remove(
            std::filesystem::path(project_->dataDirectory()) / checkpoints[i].path, ignored);
    }
}

void TrainingRun::finish(RunStatus status, const std::string &message) {
    if (project_ && record_.id != 0) {
        try {
            flushPendingBest();
        } catch (const RunFailure &) {
            // The disk refused it; the run's result falls back to its latest checkpoint.
            best_step_ = -1;
        }
    }
    if (writer_) {
        try {
            writer_->flush();
        } catch (const ProjectError &) {
            // Rows the disk refused stay in the writer, which retries them until it closes;
            // the run's own record below matters more.
        }
    }
    record_.status = status;
    record_.ended_at = project::isoTimestampNow();
    record_.message = message;
    nlohmann::json summary =
        nlohmann::json::parse(record_.summary_json.empty() ? "{}" : record_.summary_json);
    summary["model"] = recipe_ ? recipe_->describe() : "";
    if (breakdown_.measured) {
        summary["memory_breakdown"] = {{"weights", breakdown_.weights},
                                       {"gradients", breakdown_.gradients},
                                       {"optimizer", breakdown_.optimizer},
                                       {"activations", breakdown_.activations},
                                       {"peak", breakdown_.peak},
                                       {"step", breakdown_.step},
                                       {"micro_batch", breakdown_.micro_batch}};
    }
    summary["parameters"] = recipe_ ? recipe_->parameterCount() : 0;
    summary["techniques"] = techniques_.describe();
    if (!ladder_tried_.empty()) {
        summary["ladder"] = ladder_tried_;
    }
    // With early stopping the run's result is its best checkpoint: its figures are the run's.
    const std::optional<EvalMetrics> &result_eval = best_step_ >= 0 ? best_eval_ : last_eval_;
    if (result_eval && std::isfinite(result_eval->accuracy)) {
        summary["val_accuracy"] = result_eval->accuracy;
    }
    if (result_eval && std::isfinite(result_eval->rmse)) {
        summary["val_rmse"] = result_eval->rmse;
    }
    if (result_eval && std::isfinite(result_eval->reward)) {
        summary["val_reward"] = result_eval->reward;
    }
    if (result_eval && std::isfinite(result_eval->r2)) {
        summary["val_r2"] = result_eval->r2;
    }
    if (result_eval && std::isfinite(result_eval->mrr_at_10)) {
        summary["val_mrr_at_10"] = result_eval->mrr_at_10;
        summary["val_recall_at_100"] = result_eval->recall_at_100;
    }
    if (best_step_ >= 0 && best_eval_) {
        summary["best_step"] = best_step_;
        summary["best_val_loss"] = best_eval_->loss;
        record_.final_val_loss = best_eval_->loss;
    }
    if (early_stopped_) {
        summary["early_stopped_at"] = step_;
    }
    if (data_.schema) {
        summary["task"] = data_.schema->classification ? "classification" : "regression";
        summary["target"] = data_.schema->target;
        summary["task_reason"] = data_.schema->task_reason;
    }
    record_.summary_json = summary.dump();
    if (writesProject()) {
        project_->updateRun(record_);
    }
    if (writesProject() && record_.peak_bytes > 0) { // no step, nothing measured
        try {
            project_->addMemoryHistory(runMemoryHistory(record_, plan_.config, shape_.micro_batch,
                                                        techniques_, data_, device_name_,
                                                        estimate_peak_));
        } catch (const std::exception &) {
            // Best effort: the history only refines later estimates; the run is recorded.
        }
    }

    result_.final_loss = record_.final_loss;
    result_.final_val_loss = record_.final_val_loss;
    result_.message = message;
    if (result_.failure == FailureKind::None) {
        result_.state =
            status == RunStatus::Finished ? SessionState::Finished : SessionState::Stopped;
    }
}

void TrainingRun::emit(const std::string &kind, const std::string &message, nlohmann::json details,
                       std::int64_t step) {
    EngineEvent event;
    event.kind = kind;
    event.step = step >= 0 ? step : step_;
    event.message = message;
    event.details = details.is_null() ? "{}" : details.dump();
    if (writer_) {
        writer_->post(event);
    }
    hub_.event(event);
}

} // namespace headroom::train
