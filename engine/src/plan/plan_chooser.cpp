// The plan chooser: every combination of techniques the device allows, at every micro-batch
// that divides the effective batch, estimated; the fastest that fits the budget with the
// safety margin wins. Speeds are relative factors per technique and device (measured on the
// CPU, see docs/BENCHMARKS.md; published figures elsewhere), times a batch-efficiency term;
// with a calibration of the device, precision speeds and step times come from it instead.
#include "plan/model_facts.h"
#include "plan/model_variants.h"
#include "plan/planner_request.h"
#include "plan/preference_decision.h"
#include "plan/step_time.h"
#include "util/base_format.h"

#include <headroom/plan.h>
#include <headroom/units.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace headroom {

namespace {

constexpr double kSafetyMargin = 0.1;

struct Option {
    std::string precision = "fp32";
    std::int64_t checkpointing = 0;
    std::string optimizer = "adamw";
    bool offload = false;
    // model.base_dtype, chosen for a pretrained base under LoRA only ("" = not the planner's)
    std::string base_dtype;
    std::int64_t micro_batch = 1;
    std::int64_t accumulation = 1;
    MemoryEstimate estimate;
    double speed = 1;
    double step_seconds = 0; // calibrated prediction; 0 = none
    bool fits = false;
};

// The base formats are estimates, not measurements: a half-precision base converts each
// projection weight per use, int8 and nf4 dequantize it twice per step (forward and backward).
struct SpeedFactors {
    double half = 1, checkpointing = 1, adamw8bit = 1, offload = 1;
    double half_base = 1, int8_base = 1, nf4_base = 1;
};

SpeedFactors speedFactors(ProfileKind kind) {
    switch (kind) {
    case ProfileKind::Cuda:
        return {1.6, 0.75, 0.95, 0.5, 0.97, 0.75, 0.7};
    case ProfileKind::Mps:
        return {1, 0.75, 0.6, 1, 0.97, 0.75, 0.7};
    case ProfileKind::Cpu:
        break;
    }
    // docs/BENCHMARKS.md, 10 M GPT on 2 cores; the base formats: +10-25 % step time (estimate)
    return {0.86, 0.66, 0.95, 1, 0.97, 0.87, 0.82};
}

double baseSpeed(const SpeedFactors &factors, const std::string &base_dtype) {
    if (base_dtype.empty() || base_dtype == "fp32") {
        return 1;
    }
    return base_dtype == "int8" ? factors.int8_base
                                : (base_dtype == "nf4" ? factors.nf4_base : factors.half_base);
}

// The option's techniques' speed relative to fp32 without them, at the same micro-batch.
double techniqueSpeed(const Option &option, const SpeedFactors &factors) {
    return (option.precision == "fp32" ? 1 : factors.half) *
           (option.checkpointing > 0 ? factors.checkpointing : 1) *
           (option.optimizer == "adamw8bit" ? factors.adamw8bit : 1) *
           (option.offload ? factors.offload : 1) * baseSpeed(factors, option.base_dtype);
}

// Small micro-batches waste time in per-call overhead; tokens per call decide it.
double batchEfficiency(std::int64_t micro_batch, double units_per_example) {
    const double units = static_cast<double>(micro_batch) * units_per_example;
    return units / (units + 1.0);
}

std::vector<std::int64_t> divisors(std::int64_t value) {
    std::vector<std::int64_t> result;
    for (std::int64_t candidate = 1; candidate <= value; ++candidate) {
        if (value % candidate == 0) {
            result.push_back(candidate);
        }
    }
    return result;
}

std::string describeOption(const Option &option) {
    std::vector<std::string> parts;
    parts.push_back(option.precision);
    if (option.checkpointing > 0) {
        parts.emplace_back("checkpointing");
    }
    if (option.optimizer == "adamw8bit") {
        parts.emplace_back("8-bit AdamW");
    }
    if (option.offload) {
        parts.emplace_back("offloaded optimizer");
    }
    if (!option.base_dtype.empty() && option.base_dtype != "fp32") {
        parts.push_back(option.base_dtype + " base");
    }
    std::string text;
    for (const std::string &part : parts) {
        text += (text.empty() ? "" : " · ") + part;
    }
    return text;
}

std::vector<std::string> optionOverrides(const Option &option) {
    std::vector<std::string> overrides{"precision=" + option.precision,
                                       "checkpointing=" + std::to_string(option.checkpointing),
                                       "optimizer=" + option.optimizer,
                                       std::string("offload.optimizer=") +
                                           (option.offload ? "on" : "off"),
                                       "train.micro_batch=" + std::to_string(option.micro_batch),
                                       "train.accumulation=" + std::to_string(option.accumulation)};
    if (!option.base_dtype.empty()) {
        overrides.push_back("model.base_dtype=" + option.base_dtype);
    }
    return overrides;
}

bool sameTechniques(const Option &a, const Option &b) {
    return a.precision == b.precision && a.checkpointing == b.checkpointing &&
           a.optimizer == b.optimizer && a.offload == b.offload && a.base_dtype == b.base_dtype;
}

// The formats a LoRA run's frozen base may take, least compact first: fp32, the half precision
// this device has, int8 and nf4 (and the configured one).
std::vector<std::string> baseFormats(const Config &config, const HardwareProfile &profile) {
    std::vector<std::string> formats{"fp32", profile.bf16 ? "bf16" : "fp16", "int8", "nf4"};
    const std::string configured = config.text("model.base_dtype");
    if (std::find(formats.begin(), formats.end(), configured) == formats.end()) {
        formats.insert(formats.begin() + 2, configured);
    }
    return formats;
}

// The peak of `config` with LoRA adapters (the default rank, the configured targets) on a base
// held in `base_dtype` and the techniques in `overrides`; nothing when the targets do not name
// this model's projections.
std::optional<MemoryEstimate> withLora(Config config, const ModelFacts &facts,
                                       const std::vector<std::string> &overrides,
                                       const std::string &base_dtype = "fp32") {
    if (config.text("recipe") == "splade") {
        return std::nullopt; // the encoder trains every weight: no adapters
    }
    for (const std::string &assignment : overrides) {
        config.setAssignment(assignment);
    }
    config.set("lora.rank", "8");
    config.set("model.base_dtype", base_dtype);
    // With LoRA a preference objective's reference is the base itself, no copy to hold.
    config.set("pref.reference_dtype", "fp32");
    try {
        return estimateMemory(config, facts);
    } catch (const ConfigError &) {
        return std::nullopt;
    }
}

// What a full fine-tune that cannot fit could do instead: LoRA adapters at the micro-batch of the
// smallest option, on the least compact frozen base that fits within `limit` with some
// combination of techniques (the fastest such).
std::string loraHint(const Config &config, const ModelFacts &facts, const Option &smallest,
                     const std::vector<Option> &combinations,
                     const std::vector<std::string> &formats, const SpeedFactors &factors,
                     double limit) {
    const std::string at = " at micro-batch " + std::to_string(smallest.micro_batch) + ")";
    // A preference objective's reference copy goes with LoRA: its format setting too.
    const std::string lora_keys = config.text("pref.reference_dtype") == "fp32"
                                      ? "lora.rank=8"
                                      : "lora.rank=8 pref.reference_dtype=fp32";
    const std::optional<MemoryEstimate> lora = withLora(config, facts, optionOverrides(smallest));
    if (!lora) {
        return "make the model smaller";
    }
    if (limit > 0 && static_cast<double>(lora->peak) > limit) {
        for (const std::string &format : formats) {
            std::optional<Option> fastest;
            for (Option option : combinations) {
                option.micro_batch = smallest.micro_batch;
                option.accumulation = smallest.accumulation;
                const std::optional<MemoryEstimate> estimate =
                    withLora(config, facts, optionOverrides(option), format);
                option.speed = techniqueSpeed(option, factors);
                if (estimate && static_cast<double>(estimate->peak) <= limit &&
                    (!fastest || option.speed > fastest->speed)) {
                    option.estimate = *estimate;
                    fastest = option;
                }
            }
            if (!fastest) {
                continue;
            }
            const std::string with = " with " + describeOption(*fastest) + " needs " +
                                     formatBytes(fastest->estimate.peak) + at;
            return format == "fp32"
                       ? "train LoRA adapters instead of every weight (" + lora_keys + with
                       : "train LoRA adapters on the base held in " + format +
                             " instead of every weight (" + lora_keys +
                             " model.base_dtype=" + format + with;
        }
    }
    return "train LoRA adapters instead of every weight (" + lora_keys + " needs " +
           formatBytes(lora->peak) + at;
}

// The frozen base's format: the bytes it saves against fp32 with the same techniques and
// micro-batch, its estimated cost in step time, and the fastest plan with a less compact base.
PlanDecision baseDecision(const std::vector<Option> &options, const Option &best,
                          const Option *less_compact, const SpeedFactors &factors) {
    if (best.base_dtype == "fp32") {
        return {"model.base_dtype", "fp32",
                "the frozen base stays in fp32, the fastest: the plan fits without a compact one"};
    }
    Option in_fp32 = best;
    in_fp32.base_dtype = "fp32";
    const auto fp32 = std::find_if(options.begin(), options.end(), [&](const Option &option) {
        return sameTechniques(option, in_fp32) && option.micro_batch == best.micro_batch;
    });
    std::string reason = "the frozen attention and MLP weights held in " + best.base_dtype;
    if (fp32 != options.end() && fp32->estimate.peak > best.estimate.peak) {
        reason += ": weights " + formatBytes(best.estimate.weights) + " instead of " +
                  formatBytes(fp32->estimate.weights) + " in fp32, " +
                  formatBytes(fp32->estimate.peak - best.estimate.peak) + " off the peak";
    }
    char text[200];
    std::snprintf(text, sizeof text, "; steps about %ld %% slower (an estimate)",
                  std::lround(100 / baseSpeed(factors, best.base_dtype) - 100));
    reason += text;
    if (less_compact == nullptr) {
        return {"model.base_dtype", best.base_dtype,
                reason + "; with a less compact base nothing fits the budget"};
    }
    std::snprintf(text, sizeof text,
                  "; the fastest plan with a less compact base (%s) runs at %.2fx instead of %.2fx",
                  describeOption(*less_compact).c_str(), less_compact->speed, best.speed);
    return {"model.base_dtype", best.base_dtype, reason + text};
}

// LoRA is the user's choice, never the planner's: the decision says what it costs or saves.
PlanDecision loraDecision(const Config &base, const ModelFacts &facts, const Option &best) {
    const std::int64_t rank = base.integer("lora.rank");
    if (rank > 0) {
        return {"lora.rank", std::to_string(rank),
                "adapters on " + base.text("lora.targets") + ": " +
                    std::to_string(best.estimate.trainable) + " of " +
                    std::to_string(best.estimate.parameters) +
                    " parameters train, and only they have gradients and optimizer state"};
    }
    const std::optional<MemoryEstimate> lora = withLora(base, facts, optionOverrides(best));
    std::string reason = "full fine-tune: every parameter trains";
    if (lora) {
        reason += "; LoRA adapters (lora.rank=8) would need " + formatBytes(lora->peak) +
                  " instead of " + formatBytes(best.estimate.peak);
    }
    return {"lora.rank", "0", reason};
}

} // namespace

namespace plan {

Plan choosePlan(const Config &base, const ModelFacts &given_facts, const HardwareProfile &profile,
                const std::vector<MemoryHistoryRecord> &history,
                const std::optional<SpeedCalibration> &calibration) {
    // A pretrained base's config.json is read once, not for every option.
    const ModelFacts facts = withPretrained(base, given_facts);
    Plan plan;
    plan.profile = profile;
    plan.safety_margin = kSafetyMargin;
    plan.speed_calibrated = calibration.has_value();
    plan.speed_note = speedNote(calibration);
    Config config = base;
    const std::uint64_t budget = config.bytes("memory.budget");
    const double limit = static_cast<double>(budget) * (1.0 - kSafetyMargin);
    const bool gpt = config.isLanguageModel();
    // Transformer blocks that checkpointing can recompute: gpt's and the splade encoder's.
    const bool blocks = gpt || config.text("recipe") == "splade";
    const bool pretrained = !config.text("model.base").empty();
    const std::int64_t effective =
        config.integer("train.micro_batch") * config.integer("train.accumulation");
    const double units =
        blocks ? static_cast<double>(config.integer("model.seq_len")) / 32.0 : 0.125;
    SpeedFactors factors = speedFactors(profile.kind);

    std::vector<std::string> precisions{"fp32"};
    if (profile.bf16) {
        precisions.emplace_back("bf16");
    } else if (profile.fp16) {
        precisions.emplace_back("fp16");
    }
    // A precision the calibration measured slower than fp32 (or could not run) is not offered.
    std::string slow_precision;
    if (calibration && precisions.size() > 1) {
        const std::string &half = precisions.back();
        const PrecisionSpeed *speed = calibration->find(half);
        slow_precision = slowPrecisionReason(*calibration, half);
        if (speed != nullptr && !speed->supported) {
            slow_precision =
                half + " does not run on " + calibration->device + ": " + speed->unsupported_reason;
        }
        if (!slow_precision.empty()) {
            precisions.pop_back();
        } else if (calibration->matmulRatio(half) > 0) {
            factors.half = calibration->matmulRatio(half);
        }
    }
    // Seconds of `option`'s step at `config` (already set to it); 0 when not modelled.
    const auto stepSeconds = [&](const Config &at, const Option &option) {
        const std::optional<StepWork> work = stepWork(at, facts);
        if (!calibration || !work) {
            return 0.0;
        }
        Option others = option;
        others.precision = "fp32";
        others.checkpointing = 0; // both are in the work and the calibrated rates
        return predictStepSeconds(*work, *calibration, option.precision) /
               techniqueSpeed(others, factors) / batchEfficiency(option.micro_batch, units);
    };
    double reference_seconds = 0;
    {
        Config reference = config;
        Option fp32;
        fp32.micro_batch = config.integer("train.micro_batch");
        fp32.accumulation = config.integer("train.accumulation");
        for (const std::string &assignment : optionOverrides(fp32)) {
            reference.setAssignment(assignment);
        }
        reference_seconds = stepSeconds(reference, fp32);
    }
    const std::vector<std::int64_t> checkpointing =
        blocks ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{0};
    std::vector<std::pair<std::string, bool>> optimizers{{"adamw", false}, {"adamw8bit", false}};
    if (profile.kind == ProfileKind::Cuda) {
        optimizers.emplace_back("adamw", true);
    }
    // The frozen base of a LoRA run is one more technique; a full fine-tune trains it in fp32.
    const bool lora_base = pretrained && base.integer("lora.rank") > 0;
    const std::vector<std::string> formats =
        lora_base ? baseFormats(base, profile) : std::vector<std::string>{""};

    const double reference_efficiency = batchEfficiency(config.integer("train.micro_batch"), units);
    std::vector<Option> options;
    std::vector<Option> combinations;
    for (const std::string &precision : precisions) {
        for (const std::int64_t every : checkpointing) {
            for (const auto &[optimizer, offload] : optimizers) {
                for (const std::string &base_dtype : formats) {
                    Option option;
                    option.precision = precision;
                    option.checkpointing = every;
                    option.optimizer = optimizer;
                    option.offload = offload;
                    option.base_dtype = base_dtype;
                    combinations.push_back(option);
                }
            }
        }
    }
    for (const Option &combination : combinations) {
        for (const std::int64_t micro_batch : divisors(effective)) {
            Option option = combination;
            option.micro_batch = micro_batch;
            option.accumulation = effective / micro_batch;
            for (const std::string &assignment : optionOverrides(option)) {
                config.setAssignment(assignment);
            }
            option.estimate = estimateMemory(config, facts);
            applyHistoryCorrection(option.estimate, history);
            option.fits = budget == 0 || static_cast<double>(option.estimate.peak) <= limit;
            option.speed = techniqueSpeed(option, factors) * batchEfficiency(micro_batch, units) /
                           reference_efficiency;
            option.step_seconds = stepSeconds(config, option);
            if (option.step_seconds > 0 && reference_seconds > 0) {
                option.speed = reference_seconds / option.step_seconds;
            }
            options.push_back(option);
        }
    }

    // One row per combination of techniques: its fastest fitting micro-batch, else its
    // smallest footprint.
    std::vector<Option> rows;
    for (const Option &option : options) {
        auto row = std::find_if(rows.begin(), rows.end(),
                                [&](const Option &other) { return sameTechniques(option, other); });
        if (row == rows.end()) {
            rows.push_back(option);
            continue;
        }
        const bool better = option.fits != row->fits
                                ? option.fits
                                : (option.fits ? option.speed > row->speed
                                               : option.estimate.peak < row->estimate.peak);
        if (better) {
            *row = option;
        }
    }
    std::sort(rows.begin(), rows.end(), [](const Option &a, const Option &b) {
        return a.speed != b.speed ? a.speed > b.speed : a.estimate.peak < b.estimate.peak;
    });
    std::uint64_t smallest_faster = UINT64_MAX;
    for (const Option &row : rows) {
        PlanAlternative alternative;
        alternative.techniques = describeOption(row);
        alternative.micro_batch = row.micro_batch;
        alternative.accumulation = row.accumulation;
        alternative.peak = row.estimate.peak;
        alternative.relative_speed = row.speed;
        alternative.step_seconds = row.step_seconds;
        alternative.fits = row.fits;
        alternative.pareto = row.estimate.peak < smallest_faster;
        smallest_faster = std::min(smallest_faster, row.estimate.peak);
        alternative.overrides = optionOverrides(row);
        plan.alternatives.push_back(alternative);
    }

    const auto best =
        std::find_if(rows.begin(), rows.end(), [](const Option &row) { return row.fits; });
    if (best == rows.end()) {
        const auto smallest =
            std::min_element(rows.begin(), rows.end(), [](const Option &a, const Option &b) {
                return a.estimate.peak < b.estimate.peak;
            });
        plan.feasible = false;
        plan.estimate = smallest->estimate;
        const std::uint64_t fixed = smallest->estimate.weights + smallest->estimate.optimizer;
        plan.summary = "cannot fit: even " + describeOption(*smallest) + " at micro-batch " +
                       std::to_string(smallest->micro_batch) + " needs " +
                       formatBytes(smallest->estimate.peak) + " of the " + formatBytes(budget) +
                       " budget less the " + std::to_string(static_cast<int>(kSafetyMargin * 100)) +
                       " % margin (weights and optimizer state alone: " + formatBytes(fixed) +
                       "); " +
                       (pretrained && base.integer("lora.rank") == 0
                            ? loraHint(config, facts, *smallest, combinations,
                                       baseFormats(base, profile), factors, budget == 0 ? 0 : limit)
                            : "make the model smaller") +
                       " or plan for a larger profile";
        plan.variants = plan::modelVariants(base, optionOverrides(*smallest), facts,
                                            budget == 0 ? 0 : limit, history, calibration);
        return plan;
    }

    plan.feasible = true;
    plan.variants = plan::modelVariants(base, optionOverrides(*best), facts,
                                        budget == 0 ? 0 : limit, history, calibration);
    plan.estimate = best->estimate;
    plan.step_seconds = best->step_seconds;
    plan.overrides = optionOverrides(*best);
    const Option *as_configured = nullptr;
    for (const Option &option : options) {
        if (option.precision == base.text("precision") &&
            option.checkpointing == (base.integer("checkpointing") > 0 ? 1 : 0) &&
            option.optimizer == base.text("optimizer") &&
            (option.base_dtype.empty() || option.base_dtype == base.text("model.base_dtype")) &&
            option.offload == (base.text("offload.optimizer") == "on") &&
            option.micro_batch == base.integer("train.micro_batch")) {
            as_configured = &option;
        }
    }
    const bool unchanged = as_configured != nullptr && as_configured->fits &&
                           sameTechniques(*as_configured, *best) &&
                           as_configured->micro_batch == best->micro_batch;
    plan.summary = unchanged ? "fits as configured: " + formatBytes(best->estimate.peak) + " of " +
                                   (budget ? formatBytes(budget) : std::string("no budget"))
                             : "needs " + describeOption(*best) + " at micro-batch " +
                                   std::to_string(best->micro_batch) + " x " +
                                   std::to_string(best->accumulation) + ": " +
                                   formatBytes(best->estimate.peak) + " of " + formatBytes(budget);

    // One line per decision: what the best plan without this choice would look like.
    const auto bestWhere = [&](const std::function<bool(const Option &)> &keep) -> const Option * {
        const Option *found = nullptr;
        for (const Option &option : options) {
            if (option.fits && keep(option) && (found == nullptr || option.speed > found->speed)) {
                found = &option;
            }
        }
        return found;
    };
    const auto reasonFor = [&](bool on, const std::function<bool(const Option &)> &without,
                               const std::string &what) {
        const Option *alternative = bestWhere(without);
        if (!on) {
            return what + " is not needed: the plan fits without it";
        }
        if (alternative == nullptr) {
            return "without " + what + " nothing fits the budget";
        }
        char text[160];
        std::snprintf(text, sizeof text,
                      "the fastest plan without %s runs at %.2fx instead of %.2fx", what.c_str(),
                      alternative->speed, best->speed);
        return std::string(text);
    };
    if (budget != 0) {
        plan.decisions.push_back(
            {"memory.budget", formatBytes(budget),
             profile.id.empty() ? "as configured" : profile.label + ": " + profile.note});
    }
    plan.decisions.push_back(
        {"precision", best->precision,
         slow_precision.empty()
             ? reasonFor(
                   best->precision != "fp32", [](const Option &o) { return o.precision == "fp32"; },
                   "mixed precision")
             : slow_precision + " (calibrated): not considered"});
    if (blocks) {
        plan.decisions.push_back(
            {"checkpointing", std::to_string(best->checkpointing),
             reasonFor(
                 best->checkpointing > 0, [](const Option &o) { return o.checkpointing == 0; },
                 "activation checkpointing")});
    }
    plan.decisions.push_back(
        {"optimizer", best->optimizer,
         reasonFor(
             best->optimizer == "adamw8bit",
             [](const Option &o) { return o.optimizer != "adamw8bit"; }, "8-bit AdamW")});
    if (profile.kind == ProfileKind::Cuda) {
        plan.decisions.push_back(
            {"offload.optimizer", best->offload ? "on" : "off",
             reasonFor(
                 best->offload, [](const Option &o) { return !o.offload; }, "optimizer offload")});
    }
    if (lora_base) {
        const int chosen = compactness(parseBaseFormat(best->base_dtype));
        plan.decisions.push_back(
            baseDecision(options, *best, bestWhere([chosen](const Option &o) {
                             return compactness(parseBaseFormat(o.base_dtype)) < chosen;
                         }),
                         factors));
    }
    if (pretrained || base.integer("lora.rank") > 0) {
        plan.decisions.push_back(loraDecision(base, facts, *best));
    }
    if (const std::optional<PlanDecision> reference =
            preferenceReferenceDecision(base, facts, optionOverrides(*best))) {
        plan.decisions.push_back(*reference);
    }
    std::string batch_reason = "keeps the effective batch of " + std::to_string(effective);
    const auto larger = std::find_if(options.begin(), options.end(), [&](const Option &o) {
        return sameTechniques(o, *best) && o.micro_batch > best->micro_batch;
    });
    if (larger != options.end() && !larger->fits) {
        batch_reason += "; micro-batch " + std::to_string(larger->micro_batch) + " would need " +
                        formatBytes(larger->estimate.peak);
    }
    plan.decisions.push_back(
        {"train.micro_batch",
         std::to_string(best->micro_batch) + " x " + std::to_string(best->accumulation),
         batch_reason});
    return plan;
}

} // namespace plan

} // namespace headroom
