#pragma once

// The memory-saving techniques a run uses (precision, activation checkpointing, 8-bit or
// offloaded optimizer state), which of them the device and recipe allow, and the escalation
// ladder that out-of-memory recovery climbs once the micro-batch is 1.

#include "util/base_format.h"

#include <headroom/speed_calibration.h>

#include <torch/torch.h>

#include <string>
#include <vector>

namespace headroom {
class Config;
}

namespace headroom::train {

enum class Precision { Fp32, Bf16, Fp16 };

struct Techniques {
    Precision precision = Precision::Fp32;
    std::int64_t checkpoint_every = 0; // 0 = off, k = every k-th block
    bool adamw8bit = false;
    bool offload = false;
    BaseFormat base_format = BaseFormat::Fp32; // a pretrained LoRA base (model.base_dtype)

    // {"precision":"bf16","checkpointing":1,"optimizer":"adamw8bit","offload":false,
    // "base":"nf4"}; stored
    // in checkpoints so a resumed run keeps what the ladder switched on.
    std::string toJson() const;
    static Techniques fromJson(const std::string &json);
    // "bf16 · checkpointing every block · 8-bit AdamW"; "fp32" when nothing is on.
    std::string describe() const;
    bool operator==(const Techniques &other) const;
};

std::string precisionName(Precision precision);
torch::ScalarType autocastDtype(Precision precision);

Techniques techniquesFromConfig(const Config &config);

// Throws ConfigError naming the unsupported combination and the alternative.
void checkTechniques(const Techniques &techniques, const torch::Device &device,
                     const std::string &recipe);

// "" when `precision` runs on `device`, else why not (naming what to use instead).
std::string precisionUnsupportedReason(Precision precision, const torch::Device &device);

// PYTORCH_CUDA_ALLOC_CONF text for memory.expandable_segments, memory.max_split_size and
// memory.gc_threshold ("" when none is set). Throws ConfigError when a setting is set but the
// device or LibTorch cannot apply it.
std::string allocatorSettings(const Config &config, const torch::Device &device);

// Int8Base and Nf4Base quantize the frozen base of a LoRA run on a pretrained model.
enum class LadderRung { Checkpointing, Bf16, AdamW8bit, Int8Base, Nf4Base, Offload };

std::string rungName(LadderRung rung);
// recovery.ladder: a comma list of rung names, or "none". Throws ConfigError listing the
// valid names.
std::vector<LadderRung> parseLadder(const std::string &text);
// "" when the rung would change something now, else why it is skipped. frozen_base: the run
// trains LoRA adapters on a pretrained base (model.base with lora.rank > 0). calibration: the
// device's measured speed; the precision rung is skipped where it shows bf16 slower than fp32.
std::string rungSkipReason(LadderRung rung, const Techniques &active, const torch::Device &device,
                           const std::string &recipe, bool frozen_base = false,
                           const SpeedCalibration *calibration = nullptr);
// The techniques with the rung switched on.
Techniques withRung(Techniques techniques, LadderRung rung);

} // namespace headroom::train
