// The checks of train.objective with the keys of its objective: preference tuning (pref.*) and
// online RL (grpo.*).
#include "config/changed_keys.h"
#include "rewards/rewards.h"

#include <headroom/config.h>

#include <string>

namespace headroom {

void Config::validatePreference() const {
    const std::string &objective = text("train.objective");
    if (objective == "sft") {
        for (const char *prefix : {"pref.", "data.max_prompt_len", "grpo."}) {
            if (const KeySpec *changed = firstChangedKey(*this, prefix)) {
                throw ConfigError(changed->name + "=" + text(changed->name) +
                                  " is a setting of the preference and RL objectives; "
                                  "train.objective is sft (set train.objective=dpo, ipo, simpo, "
                                  "orpo, kto or grpo)");
            }
        }
        return;
    }
    if (objective == "grpo") {
        if (const KeySpec *changed = firstChangedKey(*this, "pref.")) {
            throw ConfigError(changed->name + "=" + text(changed->name) +
                              " is a setting of the preference objectives; train.objective=grpo "
                              "has its own (grpo.*)");
        }
        return;
    }
    if (const KeySpec *changed = firstChangedKey(*this, "grpo.")) {
        throw ConfigError(changed->name + "=" + text(changed->name) +
                          " is a setting of train.objective=grpo; train.objective is " + objective);
    }
    if (!isLanguageModelRecipe(text("recipe")) || text("model.base").empty()) {
        throw ConfigError("train.objective=" + objective +
                          " tunes a pretrained language model on preference pairs: set "
                          "model.base to a Hugging Face model folder");
    }
    if (integer("data.packing") == 1) {
        throw ConfigError("train.objective=" + objective +
                          " compares a pair's two completions, which data.packing=1 would "
                          "place in different windows: set data.packing=0");
    }
    const std::string &format = text("data.format");
    if (format != "auto" && format != "jsonl" && format != "json") {
        throw ConfigError("data.format=" + format + " does not hold preference records: train." +
                          "objective=" + objective + " reads jsonl or json records with " +
                          (objective == "kto" ? "\"prompt\", \"completion\" and \"label\""
                                              : "\"prompt\", \"chosen\" and \"rejected\""));
    }
    const bool reference = objective == "dpo" || objective == "ipo" || objective == "kto";
    if (objective == "kto" && integer("pref.precompute_reference") == 1) {
        throw ConfigError("pref.precompute_reference=1 does not work with train.objective=kto: "
                          "its KL term pairs each prompt with another completion of the same "
                          "step, which cannot be computed ahead");
    }
    if (integer("pref.precompute_reference") == 1 && !reference) {
        throw ConfigError("pref.precompute_reference=1 stores the reference model's "
                          "log-probabilities; train.objective=" +
                          objective + " has no reference model (dpo and ipo have)");
    }
    if (text("pref.reference_dtype") != "fp32" && (!reference || integer("lora.rank") > 0)) {
        throw ConfigError(
            "pref.reference_dtype=" + text("pref.reference_dtype") +
            (reference ? " sets how a frozen copy of the base is held; with LoRA (lora.rank > 0) "
                         "the reference is the base itself with the adapters switched off"
                       : " sets how the reference model is held; train.objective=" + objective +
                             " has none"));
    }
}

std::string rewardSpecProblem(const std::string &spec, const std::string &answer_pattern) {
    if (spec.empty()) {
        return "grpo.reward is empty: say what a completion earns, e.g. exact:answer (the final "
               "number equals the record's \"answer\"), regex:PATTERN, format:PATTERN, length:N "
               "or command:CMD";
    }
    try {
        rewards::RewardOptions options;
        options.answer_pattern = answer_pattern;
        const rewards::RewardSet checked(rewards::parseRewardSpec(spec), options);
    } catch (const std::invalid_argument &error) {
        return error.what();
    }
    return {};
}

void Config::validateGrpo() const {
    if (text("train.objective") != "grpo") {
        return;
    }
    if (!isLanguageModelRecipe(text("recipe")) || text("model.base").empty()) {
        throw ConfigError("train.objective=grpo trains a pretrained language model on its own "
                          "sampled completions: set model.base to a Hugging Face model folder");
    }
    if (text("grpo.reward").empty()) {
        throw ConfigError("train.objective=grpo needs grpo.reward, what a completion earns: "
                          "e.g. grpo.reward=exact:answer (the final number equals the record's "
                          "\"answer\"), regex:PATTERN, format:PATTERN, length:N or command:CMD");
    }
    const std::string problem = rewardSpecProblem(text("grpo.reward"), text("grpo.answer_pattern"));
    if (!problem.empty()) {
        throw ConfigError(problem);
    }
    if (integer("data.packing") == 1) {
        throw ConfigError("train.objective=grpo samples completions for each prompt; "
                          "data.packing=1 packs training text and cannot go with it: set "
                          "data.packing=0");
    }
    const std::string &format = text("data.format");
    if (format != "auto" && format != "jsonl" && format != "json") {
        throw ConfigError("data.format=" + format +
                          " does not hold prompts: train.objective=grpo reads jsonl or json "
                          "records with \"prompt\" (or \"messages\")");
    }
    const std::int64_t group = integer("grpo.group_size");
    const std::int64_t completions = integer("train.micro_batch") * integer("train.accumulation");
    if (completions % group != 0) {
        throw ConfigError(
            "train.objective=grpo: a step trains on train.micro_batch x train.accumulation = " +
            std::to_string(completions) + " completions, which must be whole groups of " +
            "grpo.group_size=" + std::to_string(group) +
            " (e.g. train.micro_batch=" + std::to_string(group) + ", train.accumulation=1)");
    }
}

} // namespace headroom
