#include "data/data_error.h"
#include "export/safetensors.h"
#include "models/causal_lm.h"
#include "models/gpt.h"
#include "models/lora.h"
#include "recipes/recipe.h"
#include "train/checkpoint.h"
#include "train/lora_setup.h"
#include "train/prepared_data.h"
#include "util/base64.h"
#include "workflow/run_lookup.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace headroom {

namespace {

std::string number(double value) {
    if (!std::isfinite(value)) {
        return "";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

} // namespace

LoraExport parseLoraExport(const std::string &text) {
    if (text == "adapters") {
        return LoraExport::Adapters;
    }
    if (text == "merged") {
        return LoraExport::Merged;
    }
    throw InputError("--lora " + text + ": expected adapters or merged");
}

std::int64_t exportMetricsCsv(const std::string &project_path, std::int64_t run_id,
                              const std::string &csv_path) {
    const Project project = Project::openForReading(project_path);
    workflow::requireRun(project, run_id);
    std::map<std::int64_t, EvalMetrics> evaluations;
    for (const EvalRecord &record : project.evaluations(run_id)) {
        evaluations[record.metrics.step] = record.metrics;
    }
    const std::string temp_path = csv_path + ".partial";
    std::ofstream out(temp_path, std::ios::trunc);
    if (!out) {
        throw InputError("cannot write " + csv_path);
    }
    const std::vector<StepMetrics> steps = project.metrics(run_id);
    // A Mixture-of-Experts run adds its routing: the losses, the dropped share and one column
    // per block and expert (moe_load_B_E), shaped as its first step with MoE metrics.
    std::vector<std::size_t> moe_shape;
    for (const StepMetrics &metrics : steps) {
        if (metrics.moe) {
            for (const std::vector<double> &block : metrics.moe->expert_load) {
                moe_shape.push_back(block.size());
            }
            break;
        }
    }
    const bool moe = std::any_of(steps.begin(), steps.end(), [](const StepMetrics &metrics) {
        return metrics.moe.has_value();
    });
    const bool retrieval = std::any_of(steps.begin(), steps.end(), [](const StepMetrics &metrics) {
        return metrics.retrieval.has_value();
    });
    out << "step,loss,lr,grad_norm,micro_batch,accumulation,tokens_per_s,samples_per_s,"
           "mem_live,mem_peak,mem_reserved,mem_rss,loss_scale,skipped_steps,elapsed_s,"
           "samples_digest,val_loss,val_accuracy,val_rmse";
    if (moe) {
        out << ",moe_aux_loss,moe_z_loss,moe_dropped_fraction";
        for (std::size_t block = 0; block < moe_shape.size(); ++block) {
            for (std::size_t e = 0; e < moe_shape[block]; ++e) {
                out << ",moe_load_" << block << '_' << e;
            }
        }
    }
    if (retrieval) {
        out << ",splade_flops_q,splade_flops_d,splade_query_nonzeros,splade_passage_nonzeros,"
               "val_mrr_at_10,val_recall_at_100";
    }
    out << '\n';
    std::int64_t rows = 0;
    for (const StepMetrics &metrics : steps) {
        out << metrics.step << ',' << number(metrics.loss) << ',' << number(metrics.lr) << ','
            << number(metrics.grad_norm) << ',' << metrics.micro_batch << ','
            << metrics.accumulation << ',' << number(metrics.tokens_per_s) << ','
            << number(metrics.samples_per_s) << ',' << metrics.mem_live << ',' << metrics.mem_peak
            << ',' << metrics.mem_reserved << ',' << metrics.mem_rss << ','
            << number(metrics.loss_scale) << ',' << metrics.skipped_steps << ','
            << number(metrics.elapsed_s) << ',' << metrics.samples_digest << ',';
        const auto evaluation = evaluations.find(metrics.step);
        if (evaluation != evaluations.end()) {
            out << number(evaluation->second.loss) << ',' << number(evaluation->second.accuracy)
                << ',' << number(evaluation->second.rmse);
        } else {
            out << ",,";
        }
        if (moe) {
            const MoeStepMetrics empty;
            const MoeStepMetrics &routing = metrics.moe ? *metrics.moe : empty;
            out << ',' << (metrics.moe ? number(routing.aux_loss) : "") << ','
                << (metrics.moe ? number(routing.z_loss) : "") << ','
                << (metrics.moe ? number(routing.dropped_fraction) : "");
            for (std::size_t block = 0; block < moe_shape.size(); ++block) {
                for (std::size_t e = 0; e < moe_shape[block]; ++e) {
                    const bool present =
                        block < routing.expert_load.size() && e < routing.expert_load[block].size();
                    out << ',' << (present ? number(routing.expert_load[block][e]) : "");
                }
            }
        }
        if (retrieval) {
            if (metrics.retrieval) {
                out << ',' << number(metrics.retrieval->flops_q) << ','
                    << number(metrics.retrieval->flops_d) << ','
                    << number(metrics.retrieval->query_nonzeros) << ','
                    << number(metrics.retrieval->passage_nonzeros);
            } else {
                out << ",,,,";
            }
            if (evaluation != evaluations.end()) {
                out << ',' << number(evaluation->second.mrr_at_10) << ','
                    << number(evaluation->second.recall_at_100);
            } else {
                out << ",,";
            }
        }
        out << '\n';
        ++rows;
    }
    out.close();
    if (!out) {
        throw InputError("cannot write " + csv_path + " (disk full?)");
    }
    std::filesystem::rename(temp_path, csv_path);
    return rows;
}

std::int64_t exportWeights(const std::string &project_path, std::int64_t run_id,
                           const std::string &safetensors_path, LoraExport lora) {
    Project project = Project::openForReading(project_path);
    workflow::requireRun(project, run_id);
    const std::optional<CheckpointRecord> checkpoint = project.resultCheckpoint(run_id);
    if (!checkpoint) {
        throw InputError("run " + std::to_string(run_id) + " has no checkpoint to export");
    }
    const std::string path =
        (std::filesystem::path(project.dataDirectory()) / checkpoint->path).string();
    const train::CheckpointMeta meta = train::readCheckpointMeta(path);
    const Config config = Config::fromJson(meta.config_json);
    const bool lora_run = config.integer("lora.rank") > 0;
    if (!lora_run && lora != LoraExport::Default) {
        throw InputError("run " + std::to_string(run_id) +
                         " is not a LoRA run (lora.rank is 0): it has no adapters to export; "
                         "leave out --lora");
    }

    train::PreparedData prepared;
    try {
        prepared = train::prepareData(config, project, [](const std::string &) {});
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    const torch::Device cpu(torch::kCPU);
    std::unique_ptr<train::Recipe> recipe = train::makeRecipe(config, prepared, cpu);
    // A LoRA run's checkpoint holds the adapters next to the frozen base: add them first.
    const bool lora_enabled = train::enableLoraFromConfig(config, *recipe);
    train::loadCheckpointWeights(path, *recipe->module());
    auto *gpt_lora =
        lora_enabled ? dynamic_cast<models::GptImpl *>(recipe->module().get()) : nullptr;
    auto *pretrained_lora =
        lora_enabled ? dynamic_cast<models::CausalLmImpl *>(recipe->module().get()) : nullptr;

    // Tied weights are one tensor: export it once, under its first name.
    std::vector<torch::Tensor> keep_alive;
    std::vector<exporting::TensorView> views;
    std::set<const void *> seen;
    auto add = [&](const std::string &name, const torch::Tensor &tensor) {
        if (!seen.insert(tensor.data_ptr()).second) {
            return;
        }
        torch::Tensor contiguous = tensor.detach().to(torch::kCPU).contiguous();
        const bool is_float = contiguous.scalar_type() == torch::kFloat32;
        if (!is_float && contiguous.scalar_type() != torch::kInt64) {
            contiguous = contiguous.to(torch::kFloat32);
        }
        exporting::TensorView view;
        view.name = name;
        view.dtype = contiguous.scalar_type() == torch::kInt64 ? "I64" : "F32";
        view.shape = contiguous.sizes().vec();
        view.data = contiguous.data_ptr();
        view.bytes = static_cast<std::uint64_t>(contiguous.nbytes());
        keep_alive.push_back(contiguous);
        views.push_back(view);
    };
    std::string exported_config = meta.config_json;
    if (!lora_enabled) {
        for (const auto &item : recipe->module()->named_parameters()) {
            add(item.key(), item.value());
        }
        for (const auto &item : recipe->module()->named_buffers()) {
            add(item.key(), item.value());
        }
    } else if (lora == LoraExport::Adapters) {
        for (const auto &[name, tensor] : models::loraAdapterTensors(*recipe->module())) {
            add(name, tensor);
        }
    } else {
        for (const auto &[name, tensor] :
             gpt_lora != nullptr ? gpt_lora->mergedState() : pretrained_lora->mergedState()) {
            add(name, tensor);
        }
        // Merged weights are a plain model: its config trains and exports without LoRA.
        Config plain = config;
        for (const char *key :
             {"lora.rank", "lora.alpha", "lora.dropout", "lora.targets", "lora.base_run"}) {
            plain.set(key, findConfigKey(key)->default_value);
        }
        exported_config = plain.toJson();
    }
    std::map<std::string, std::string> metadata = {{"format", "pt"},
                                                   {"headroom.recipe", config.text("recipe")},
                                                   {"headroom.model", recipe->describe()},
                                                   {"headroom.step", std::to_string(meta.step)},
                                                   {"headroom.run", std::to_string(run_id)},
                                                   {"headroom.config", exported_config}};
    if (lora_enabled) {
        metadata["headroom.lora"] = lora == LoraExport::Adapters ? "adapters" : "merged";
        for (const char *key :
             {"lora.rank", "lora.alpha", "lora.dropout", "lora.targets", "lora.base_run"}) {
            metadata[std::string("headroom.") + key] = config.text(key);
        }
        if (gpt_lora != nullptr) {
            metadata["headroom.lora.targets"] =
                models::formatLoraTargets(gpt_lora->loraOptions()->targets());
        }
    }
    if (prepared.tokenizer) {
        metadata["headroom.tokenizer"] = config.text("tokenizer");
        const std::string model = prepared.tokenizer->serialize();
        if (!model.empty()) {
            // The vocabulary travels with the weights: a SentencePiece model proto.
            metadata["headroom.tokenizer_model_base64"] = util::base64Encode(model);
        }
    }
    if (prepared.schema) {
        metadata["headroom.tabular_schema"] = prepared.schema->toJson();
    }
    exporting::writeSafetensors(safetensors_path, views, metadata);
    return meta.step;
}

} // namespace headroom
