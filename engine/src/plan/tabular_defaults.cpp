#include "plan/tabular_defaults.h"

#include <algorithm>
#include <string>
#include <utility>

namespace headroom::plan {

namespace {

// Optimizer steps the default run may take at most: enough for a small MLP to converge on the
// sets measured in docs/BENCHMARKS.md, with early stopping ending most runs well before.
constexpr std::int64_t kStepBudget = 8000;
constexpr std::int64_t kMinEpochs = 20;
constexpr std::int64_t kMaxEpochs = 200;
// Early stopping waits this many epochs, and at least kPatienceSteps optimizer steps: a small
// set has few steps per epoch and a noisy validation split.
constexpr std::int64_t kPatience = 20;
constexpr std::int64_t kPatienceSteps = 150;
constexpr std::int64_t kMaxShuffleRows = 200000;

// An eighth of the training rows, within 32..256: a small set still gets several steps per
// epoch, and a large one steps that are not all overhead.
std::int64_t batchForRows(std::int64_t rows) {
    return std::clamp<std::int64_t>(rows / 8, 32, 256);
}

} // namespace

std::vector<PlanDecision> tabularDefaults(const data::TabularSchema &schema, const Config &config,
                                          const std::set<std::string> &given) {
    const auto mine = [&given](const char *key) {
        return given.count(key) == 0;
    };
    const std::int64_t rows = std::max<std::int64_t>(1, schema.train_rows);
    const std::int64_t batch = mine("train.micro_batch") ? std::min(batchForRows(rows), rows)
                                                         : config.integer("train.micro_batch");
    const std::int64_t accumulation =
        mine("train.accumulation") ? 1 : config.integer("train.accumulation");
    const std::int64_t effective = batch * accumulation;
    const std::int64_t steps_per_epoch = (rows + effective - 1) / effective;
    const std::int64_t epochs =
        std::clamp((kStepBudget + steps_per_epoch - 1) / steps_per_epoch, kMinEpochs, kMaxEpochs);
    const bool length_given = !mine("train.steps");
    const std::string epoch_text = std::to_string(steps_per_epoch) + " steps per epoch";

    std::vector<PlanDecision> all;
    all.push_back(
        {"train.micro_batch", std::to_string(batch),
         "batch of " + std::to_string(batch) + " for " + std::to_string(rows) + " training rows"});
    all.push_back({"train.accumulation", "1", "a small MLP needs no accumulation"});
    all.push_back({"train.lr", "0.002", "AdamW's rate for a small MLP at these batch sizes"});
    if (!length_given) {
        all.push_back({"train.epochs", std::to_string(epochs),
                       "at most " + std::to_string(epochs) + " passes (" + epoch_text +
                           "); early stopping usually ends the run sooner"});
    }
    all.push_back({"train.warmup_steps",
                   std::to_string(std::min<std::int64_t>(steps_per_epoch, 100)),
                   "warm up over the first epoch"});
    all.push_back({"train.eval_every", std::to_string(steps_per_epoch), "validate once per epoch"});
    all.push_back({"train.eval_batches", "0",
                   "validate on the whole validation split (" +
                       std::to_string(schema.validation_rows) + " rows)"});
    if (!length_given) {
        const std::int64_t patience =
            std::max(kPatience, (kPatienceSteps + steps_per_epoch - 1) / steps_per_epoch);
        all.push_back({"train.early_stopping", std::to_string(patience),
                       "stop after " + std::to_string(patience) +
                           " epochs without a lower validation loss and keep the best "
                           "checkpoint"});
    }
    all.push_back({"train.checkpoint_every", std::to_string(steps_per_epoch * 10),
                   "a checkpoint every 10 epochs besides the best one"});
    all.push_back(
        {"data.shuffle_buffer", std::to_string(std::min<std::int64_t>(rows, kMaxShuffleRows)),
         rows <= kMaxShuffleRows ? "shuffle every row each epoch" : "shuffle within 200000 rows"});

    std::vector<PlanDecision> decisions;
    for (PlanDecision &decision : all) {
        if (mine(decision.setting.c_str())) {
            decisions.push_back(std::move(decision));
        }
    }
    return decisions;
}

} // namespace headroom::plan
