#include "train/train_settings.h"

#include <headroom/config.h>

namespace headroom::train {

TrainSettings TrainSettings::fromConfig(const Config &config) {
    TrainSettings settings;
    settings.micro_batch = config.integer("train.micro_batch");
    settings.accumulation = config.integer("train.accumulation");
    settings.lr = config.real("train.lr");
    settings.min_lr_ratio = config.real("train.min_lr_ratio");
    settings.warmup_steps = config.integer("train.warmup_steps");
    settings.weight_decay = config.real("train.weight_decay");
    settings.grad_clip = config.real("train.grad_clip");
    settings.seed = config.integer("train.seed");
    settings.threads = config.integer("train.threads");
    settings.eval_every = config.integer("train.eval_every");
    settings.eval_batches = config.integer("train.eval_batches");
    settings.checkpoint_every = config.integer("train.checkpoint_every");
    settings.keep_checkpoints = config.integer("train.keep_checkpoints");
    settings.early_stopping = config.integer("train.early_stopping");
    settings.sample_tokens = config.integer("train.sample_tokens");
    settings.min_micro_batch = config.integer("recovery.min_micro_batch");
    settings.max_recoveries = config.integer("recovery.max_recoveries");
    settings.memory_budget = config.bytes("memory.budget");
    settings.clear_every = config.integer("memory.clear_every");
    return settings;
}

} // namespace headroom::train
