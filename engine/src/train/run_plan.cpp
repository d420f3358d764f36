#include "train/run_plan.h"

#include "train/checkpoint.h"
#include "util/hashing.h"

#include <filesystem>
#include <set>

namespace headroom::train {

namespace {

// Keys that may differ when resuming: they change neither the model nor the data order.
const std::set<std::string> &resumableKeys() {
    // model.base may move: the digest recorded with the project is checked on load.
    static const std::set<std::string> keys = {"train.steps",
                                               "train.epochs",
                                               "train.early_stopping",
                                               "train.checkpoint_every",
                                               "train.keep_checkpoints",
                                               "train.eval_every",
                                               "train.eval_batches",
                                               "train.threads",
                                               "distributed.timeout_s",
                                               "distributed.overlap",
                                               "distributed.bucket_kib",
                                               "distributed.backend",
                                               "device",
                                               "memory.budget",
                                               "recovery.min_micro_batch",
                                               "recovery.max_recoveries",
                                               "model.base",
                                               "model.attention"};
    return keys;
}

bool setsKey(const std::vector<std::string> &overrides, const std::string &key) {
    for (const std::string &assignment : overrides) {
        if (assignment.compare(0, assignment.find('='), key) == 0) {
            return true;
        }
    }
    return false;
}

// A train.steps given with --set is the run's length even where the project counts epochs.
void applyOverrides(Config &config, const std::vector<std::string> &overrides) {
    for (const std::string &assignment : overrides) {
        config.setAssignment(assignment);
    }
    if (setsKey(overrides, "train.steps") && !setsKey(overrides, "train.epochs")) {
        config.set("train.epochs", "0");
    }
}

} // namespace

RunPlan planRun(Project &project, const std::vector<std::string> &overrides, bool resume) {
    RunPlan plan;
    if (!resume) {
        plan.config = Config::fromJson(project.configJson());
        applyOverrides(plan.config, overrides);
        plan.config.validate();
        return plan;
    }

    const std::vector<RunRecord> runs = project.runs();
    for (auto run = runs.rbegin(); run != runs.rend() && !plan.resume_from; ++run) {
        plan.resume_from = project.latestCheckpoint(run->id);
    }
    if (!plan.resume_from) {
        throw ConfigError("nothing to resume: " + project.path() +
                          " has no run with a checkpoint; train without --resume first");
    }
    plan.resumed_run = plan.resume_from->run_id;
    plan.checkpoint_path =
        (std::filesystem::path(project.dataDirectory()) / plan.resume_from->path).string();
    if (!std::filesystem::exists(plan.checkpoint_path)) {
        throw ConfigError("cannot resume: checkpoint " + plan.checkpoint_path + " is missing");
    }
    if (util::sha256File(plan.checkpoint_path) != plan.resume_from->sha256) {
        throw ConfigError("cannot resume: checkpoint " + plan.checkpoint_path +
                          " does not match its recorded hash (damaged or half-written)");
    }

    const Config saved = Config::fromJson(readCheckpointMeta(plan.checkpoint_path).config_json);
    plan.config = saved;
    if (!saved.text("model.base").empty()) {
        // The base as the project locates it now (it may have moved since).
        plan.config.set("model.base", Config::fromJson(project.configJson()).text("model.base"));
    }
    applyOverrides(plan.config, overrides);
    for (const auto &[key, value] : plan.config.values()) {
        if (value != saved.text(key) && resumableKeys().count(key) == 0) {
            throw ConfigError("cannot change " + key +
                              " when resuming (it changes the model or "
                              "the data order); start a new run without --resume instead");
        }
    }
    // With train.epochs the step count follows from the data; the trainer checks it then.
    if (plan.config.real("train.epochs") <= 0 &&
        plan.config.integer("train.steps") <= plan.resume_from->step) {
        throw ConfigError("nothing to resume: the checkpoint is at step " +
                          std::to_string(plan.resume_from->step) + " and train.steps is " +
                          plan.config.text("train.steps") + "; raise it with --set train.steps=N");
    }
    plan.config.validate();
    return plan;
}

} // namespace headroom::train
