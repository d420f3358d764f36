#include "train/techniques.h"

#include "compat/autocast.h"
#include "compat/device_memory.h"
#include "compat/torch_compat.h"

#include <headroom/config.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace headroom::train {

namespace {

Precision parsePrecision(const std::string &text) {
    if (text == "bf16") {
        return Precision::Bf16;
    }
    if (text == "fp16") {
        return Precision::Fp16;
    }
    if (text == "fp32") {
        return Precision::Fp32;
    }
    throw ConfigError("bad value for precision: \"" + text + "\" (accepted: fp32, bf16, fp16)");
}

} // namespace

std::string precisionName(Precision precision) {
    switch (precision) {
    case Precision::Bf16:
        return "bf16";
    case Precision::Fp16:
        return "fp16";
    case Precision::Fp32:
        break;
    }
    return "fp32";
}

torch::ScalarType autocastDtype(Precision precision) {
    return precision == Precision::Fp16 ? torch::kFloat16 : torch::kBFloat16;
}

std::string Techniques::toJson() const {
    nlohmann::json document = {{"precision", precisionName(precision)},
                               {"checkpointing", checkpoint_every},
                               {"optimizer", adamw8bit ? "adamw8bit" : "adamw"},
                               {"offload", offload}};
    if (base_format != BaseFormat::Fp32) {
        document["base"] = baseFormatName(base_format);
    }
    return document.dump();
}

Techniques Techniques::fromJson(const std::string &json) {
    Techniques techniques;
    try {
        const nlohmann::json document = nlohmann::json::parse(json);
        techniques.precision = parsePrecision(document.at("precision").get<std::string>());
        techniques.checkpoint_every = document.at("checkpointing").get<std::int64_t>();
        techniques.adamw8bit = document.at("optimizer").get<std::string>() == "adamw8bit";
        techniques.offload = document.at("offload").get<bool>();
        // Absent in records written before bases could be quantized: fp32 then.
        if (document.contains("base")) {
            techniques.base_format = parseBaseFormat(document.at("base").get<std::string>());
        }
    } catch (const std::invalid_argument &error) {
        throw std::runtime_error(std::string("bad techniques record: ") + error.what());
    } catch (const nlohmann::json::exception &error) {
        throw std::runtime_error(std::string("bad techniques record: ") + error.what());
    }
    return techniques;
}

std::string Techniques::describe() const {
    std::vector<std::string> parts{precisionName(precision)};
    if (checkpoint_every == 1) {
        parts.emplace_back("checkpointing every block");
    } else if (checkpoint_every > 1) {
        parts.push_back("checkpointing every " + std::to_string(checkpoint_every) + " blocks");
    }
    if (adamw8bit) {
        parts.emplace_back("8-bit AdamW");
    }
    if (offload) {
        parts.emplace_back("optimizer offload");
    }
    if (base_format != BaseFormat::Fp32) {
        parts.push_back(baseFormatName(base_format) + " base");
    }
    std::string text;
    for (const std::string &part : parts) {
        text += (text.empty() ? "" : " · ") + part;
    }
    return text;
}

bool Techniques::operator==(const Techniques &other) const {
    return precision == other.precision && checkpoint_every == other.checkpoint_every &&
           adamw8bit == other.adamw8bit && offload == other.offload &&
           base_format == other.base_format;
}

Techniques techniquesFromConfig(const Config &config) {
    Techniques techniques;
    techniques.precision = parsePrecision(config.text("precision"));
    techniques.checkpoint_every = config.integer("checkpointing");
    techniques.adamw8bit = config.text("optimizer") == "adamw8bit";
    techniques.offload = config.text("offload.optimizer") == "on";
    techniques.base_format = parseBaseFormat(config.text("model.base_dtype"));
    return techniques;
}

std::string precisionUnsupportedReason(Precision precision, const torch::Device &device) {
    if (precision == Precision::Fp32) {
        return "";
    }
    const std::string reason =
        compat::autocastUnsupportedReason(device.type(), autocastDtype(precision));
    return reason.empty() ? "" : "precision=" + precisionName(precision) + ": " + reason;
}

void checkTechniques(const Techniques &techniques, const torch::Device &device,
                     const std::string &recipe) {
    if (const std::string reason = precisionUnsupportedReason(techniques.precision, device);
        !reason.empty()) {
        throw ConfigError(reason);
    }
    if (techniques.checkpoint_every > 0 && recipe == "tabular") {
        throw ConfigError("checkpointing applies to transformer blocks (recipe=gpt, "
                          "recipe=splade); the tabular recipe has none (use checkpointing=0)");
    }
    if (techniques.offload && !device.is_cuda()) {
        throw ConfigError("offload.optimizer=on moves optimizer state from GPU memory to host "
                          "memory; on " +
                          device.str() +
                          " it already lives in host memory, so it would save nothing "
                          "(use offload.optimizer=off, or optimizer=adamw8bit to shrink it)");
    }
    if (techniques.offload && techniques.adamw8bit) {
        throw ConfigError("offload.optimizer=on keeps fp32 state in host memory and cannot be "
                          "combined with optimizer=adamw8bit; choose one");
    }
}

std::string allocatorSettings(const Config &config, const torch::Device &device) {
    std::vector<std::string> settings;
    std::vector<std::string> keys;
    if (config.text("memory.expandable_segments") == "on") {
        if (const std::string reason = compat::expandableSegmentsUnsupportedReason();
            !reason.empty()) {
            throw ConfigError("memory.expandable_segments=on: " + reason);
        }
        settings.emplace_back("expandable_segments:True");
        keys.emplace_back("memory.expandable_segments");
    }
    if (const std::uint64_t split = config.bytes("memory.max_split_size"); split != 0) {
        settings.push_back("max_split_size_mb:" +
                           std::to_string(std::max<std::uint64_t>(split / (1024 * 1024), 1)));
        keys.emplace_back("memory.max_split_size");
    }
    if (const double threshold = config.real("memory.gc_threshold"); threshold > 0) {
        std::ostringstream text;
        text << "garbage_collection_threshold:" << threshold;
        settings.push_back(text.str());
        keys.emplace_back("memory.gc_threshold");
    }
    if (settings.empty()) {
        return "";
    }
    if (!device.is_cuda()) {
        throw ConfigError(keys.front() + " tunes the CUDA caching allocator; on " + device.str() +
                          " there is none (leave it at its default)");
    }
    std::string joined;
    for (const std::string &setting : settings) {
        joined += (joined.empty() ? "" : ",") + setting;
    }
    return joined;
}

std::string rungName(LadderRung rung) {
    switch (rung) {
    case LadderRung::Checkpointing:
        return "checkpointing";
    case LadderRung::Bf16:
        return "bf16";
    case LadderRung::AdamW8bit:
        return "adamw8bit";
    case LadderRung::Int8Base:
        return "int8";
    case LadderRung::Nf4Base:
        return "nf4";
    case LadderRung::Offload:
        return "offload";
    }
    return "";
}

std::vector<LadderRung> parseLadder(const std::string &text) {
    std::vector<LadderRung> rungs;
    if (text == "none" || text.empty()) {
        return rungs;
    }
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        const auto begin = item.find_first_not_of(' ');
        const auto end = item.find_last_not_of(' ');
        item = begin == std::string::npos ? "" : item.substr(begin, end - begin + 1);
        bool known = false;
        for (const LadderRung rung :
             {LadderRung::Checkpointing, LadderRung::Bf16, LadderRung::AdamW8bit,
              LadderRung::Int8Base, LadderRung::Nf4Base, LadderRung::Offload}) {
            if (item == rungName(rung)) {
                for (const LadderRung seen : rungs) {
                    if (seen == rung) {
                        throw ConfigError("recovery.ladder names " + item + " twice");
                    }
                }
                rungs.push_back(rung);
                known = true;
            }
        }
        if (!known) {
            throw ConfigError("bad value for recovery.ladder: \"" + item +
                              "\" (accepted: a comma list of checkpointing, bf16, adamw8bit, "
                              "int8, nf4, offload; or none)");
        }
    }
    return rungs;
}

std::string rungSkipReason(LadderRung rung, const Techniques &active, const torch::Device &device,
                           const std::string &recipe, bool frozen_base,
                           const SpeedCalibration *calibration) {
    switch (rung) {
    case LadderRung::Checkpointing:
        if (recipe == "tabular") {
            return "the tabular recipe has no blocks to checkpoint";
        }
        return active.checkpoint_every == 1 ? "already on for every block" : "";
    case LadderRung::Bf16:
        if (active.precision != Precision::Fp32) {
            return "already at " + precisionName(active.precision);
        }
        if (std::string reason = precisionUnsupportedReason(Precision::Bf16, device);
            !reason.empty() || calibration == nullptr) {
            return reason;
        }
        return slowPrecisionReason(*calibration, "bf16");
    case LadderRung::AdamW8bit:
        if (active.adamw8bit) {
            return "already on";
        }
        return active.offload ? "optimizer state is offloaded to host memory" : "";
    case LadderRung::Int8Base:
    case LadderRung::Nf4Base: {
        if (!frozen_base) {
            return "only the frozen base of a LoRA run on a pretrained model (model.base with "
                   "lora.rank > 0) is quantized; weights that train need full precision";
        }
        const BaseFormat format = rung == LadderRung::Int8Base ? BaseFormat::Int8 : BaseFormat::Nf4;
        if (compactness(active.base_format) >= compactness(format)) {
            return "the base is already " + baseFormatName(active.base_format);
        }
        return "";
    }
    case LadderRung::Offload:
        if (active.offload) {
            return "already on";
        }
        if (!device.is_cuda()) {
            return "optimizer state already lives in host memory on " + device.str();
        }
        return active.adamw8bit ? "8-bit AdamW is on" : "";
    }
    return "";
}

Techniques withRung(Techniques techniques, LadderRung rung) {
    switch (rung) {
    case LadderRung::Checkpointing:
        techniques.checkpoint_every = 1;
        break;
    case LadderRung::Bf16:
        techniques.precision = Precision::Bf16;
        break;
    case LadderRung::AdamW8bit:
        techniques.adamw8bit = true;
        break;
    case LadderRung::Int8Base:
        techniques.base_format = BaseFormat::Int8;
        break;
    case LadderRung::Nf4Base:
        techniques.base_format = BaseFormat::Nf4;
        break;
    case LadderRung::Offload:
        techniques.offload = true;
        break;
    }
    return techniques;
}

} // namespace headroom::train
