// exportHfFolder / exportPeftAdapter: a pretrained project's run written back
// in the layouts transformers and PEFT read.
#include "chat/chat_template.h"
#include "export/output_folder.h"
#include "export/safetensors.h"
#include "export/sharded_safetensors.h"
#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/encoder_config.h"
#include "hf/model_folder.h"
#include "hf/pretrained_encoder.h"
#include "hf/pretrained_model.h"
#include "hf/safetensors_file.h"
#include "hf/scratch_gpt.h"
#include "hf/stored_dtype.h"
#include "models/causal_lm.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

namespace fs = std::filesystem;

// Files of the base folder that describe the model and its tokenizer (not
// weights).
const char *const kCopiedFiles[] = {"config.json",
                                    "generation_config.json",
                                    "tokenizer.json",
                                    "tokenizer_config.json",
                                    "special_tokens_map.json",
                                    "vocab.json",
                                    "merges.txt",
                                    "vocab.txt",
                                    "tokenizer.model",
                                    "added_tokens.json",
                                    "chat_template.jinja",
                                    "chat_template.json"};

// A project that renders conversations with its own template (data.chat_template: chatml or a
// file) exports it as chat_template.jinja, which transformers reads before any other.
void writeChatTemplate(const workflow::RunModel &run, const std::string &project_path,
                       const fs::path &folder) {
    if (run.config.text("data.chat_template").empty()) {
        return;
    }
    try {
        exporting::writeTextFile(
            (folder / "chat_template.jinja").string(),
            train::chatTemplateSource(run.config, run.prepared, project_path).text);
    } catch (const ConfigError &error) {
        throw InputError(error.what());
    }
}

struct PretrainedRun {
    workflow::RunModel run;
    models::CausalLmImpl *model = nullptr;
    hf::ModelFolder folder;
    hf::ArchitectureConfig architecture;
};

PretrainedRun loadPretrainedRun(const std::string &project_path, std::int64_t run_id) {
    Project project = Project::openForReading(project_path);
    if (Config::fromJson(project.configJson()).text("model.base").empty()) {
        throw InputError(project_path + " was not created from a pretrained model (model.base "
                                        "is empty): export its weights with --weights FILE");
    }
    PretrainedRun result;
    result.run = workflow::loadRunModel(project, run_id);
    result.model = dynamic_cast<models::CausalLmImpl *>(result.run.recipe->module().get());
    if (result.model == nullptr || !result.run.prepared.base) {
        throw InputError("run " + std::to_string(result.run.run_id) +
                         " holds no pretrained language model");
    }
    result.folder = *result.run.prepared.base;
    result.architecture = hf::readArchitectureConfig(result.folder.config_path);
    return result;
}

// Stored dtype of each base tensor, so an export keeps the base's precision per
// tensor.
std::map<std::string, std::string> baseDtypes(const hf::ModelFolder &folder,
                                              const hf::ArchitectureConfig &architecture) {
    std::vector<hf::SafetensorsFile> files;
    for (const std::string &path : folder.weight_files) {
        files.push_back(hf::SafetensorsFile::open(path));
    }
    std::map<std::string, std::string> dtypes;
    for (const auto &[name, located] : hf::validateCheckpoint(folder, architecture, files)) {
        dtypes[name] = located.record.dtype;
    }
    return dtypes;
}

exporting::TensorView viewOf(const std::string &name, const torch::Tensor &tensor,
                             const std::string &dtype, std::vector<torch::Tensor> &keep_alive) {
    keep_alive.push_back(
        tensor.detach().to(torch::kCPU).to(hf::storedScalarType(dtype)).contiguous());
    const torch::Tensor &stored = keep_alive.back();
    exporting::TensorView view;
    view.name = name;
    view.dtype = dtype;
    view.shape = stored.sizes().vec();
    view.data = stored.data_ptr();
    view.bytes = static_cast<std::uint64_t>(stored.nbytes());
    return view;
}

} // namespace

// A splade run: its fine-tuned encoder in the base's BertForMaskedLM / DistilBertForMaskedLM
// layout, which a SPLADE library loads as it loads the base.
HfExport exportEncoderRun(Project &project, std::int64_t run_id, const std::string &folder,
                          std::uint64_t max_shard_bytes) {
    workflow::RunModel run = workflow::loadRunModel(project, run_id);
    auto encoder = std::dynamic_pointer_cast<models::BertEncoderImpl>(run.recipe->module());
    if (!encoder || !run.prepared.base) {
        throw InputError("run " + std::to_string(run.run_id) + " holds no BERT-family encoder");
    }
    const hf::ModelFolder &base = *run.prepared.base;
    const exporting::WrittenWeights written =
        hf::exportEncoder(models::BertEncoder(encoder), hf::readEncoderConfig(base.config_path),
                          base, folder, max_shard_bytes);
    return {run.step, "fp32", written.files};
}

// A GPT trained from scratch as GPT2LMHeadModel (hf/scratch_gpt.h), with a tokenizer that gives
// the project's ids: tokenizer.json for the byte tokenizer, the project's SentencePiece model as
// tokenizer.model (LlamaTokenizer) for bpe/unigram.
HfExport exportScratchGptRun(Project &project, const std::string &project_path, std::int64_t run_id,
                             const std::string &folder, std::uint64_t max_shard_bytes) {
    if (run_id < 0) {
        throw InputError("run -1 is the base of a pretrained project; " + project_path +
                         " trains a GPT from scratch: give the id of a run (see `runs`)");
    }
    workflow::RunModel run = workflow::loadRunModel(project, run_id);
    auto *gpt = dynamic_cast<models::GptImpl *>(run.recipe->module().get());
    if (gpt == nullptr) {
        throw InputError("run " + std::to_string(run.run_id) + " holds no GPT");
    }
    const data::Tokenizer &tokenizer = *run.prepared.tokenizer;
    if (gpt->options().moe().experts() > 0) {
        throw InputError("run " + std::to_string(run.run_id) + " has mixture-of-experts blocks (" +
                         "moe.experts = " + std::to_string(gpt->options().moe().experts()) +
                         "), which GPT2LMHeadModel does not have: export the weights with "
                         "--weights FILE.safetensors instead");
    }
    exporting::prepareOutputFolder(folder);
    std::vector<torch::Tensor> keep_alive;
    std::vector<exporting::TensorView> views;
    for (const auto &[name, tensor] : hf::gpt2StateOf(*gpt)) {
        views.push_back(viewOf(name, tensor, "F32", keep_alive));
    }
    const exporting::WrittenWeights written =
        exporting::writeModelWeights(folder, views, {{"format", "pt"}}, max_shard_bytes);
    const std::int64_t end_of_text = tokenizer.endOfTextId();
    const fs::path out(folder);
    exporting::writeTextFile((out / "config.json").string(),
                             hf::gpt2ConfigJson(gpt->options(), end_of_text));
    exporting::writeTextFile((out / "generation_config.json").string(),
                             hf::gpt2GenerationConfigJson(end_of_text));
    const std::map<std::string, std::string> tokenizer_files =
        tokenizer.kind() == data::TokenizerKind::Byte
            ? hf::byteTokenizerFiles(gpt->options().seq_len())
            : hf::sentencePieceTokenizerFiles(tokenizer.serialize(), gpt->options().seq_len());
    for (const auto &[name, text] : tokenizer_files) {
        exporting::writeTextFile((out / name).string(), text);
    }
    writeChatTemplate(run, project_path, out);
    return {run.step, "fp32", written.files};
}

HfExport exportHfFolder(const std::string &project_path, std::int64_t run_id,
                        const std::string &folder, std::uint64_t max_shard_bytes) {
    if (max_shard_bytes == 0) {
        throw InputError("the max shard size must be above zero bytes");
    }
    {
        Project project = Project::openForReading(project_path);
        const Config config = Config::fromJson(project.configJson());
        if (config.text("recipe") == "splade") {
            return exportEncoderRun(project, run_id, folder, max_shard_bytes);
        }
        if (config.isLanguageModel() && config.text("model.base").empty()) {
            return exportScratchGptRun(project, project_path, run_id, folder, max_shard_bytes);
        }
    }
    PretrainedRun source = loadPretrainedRun(project_path, run_id);
    exporting::prepareOutputFolder(folder);
    const std::map<std::string, std::string> dtypes =
        baseDtypes(source.folder, source.architecture);
    std::vector<torch::Tensor> keep_alive;
    std::vector<exporting::TensorView> views;
    for (const auto &[name, tensor] : source.model->mergedState()) {
        const auto dtype = dtypes.find(name);
        torch::Tensor stored =
            hf::storedTransposed(source.architecture, name) ? tensor.t() : tensor;
        views.push_back(
            viewOf(name, stored, dtype != dtypes.end() ? dtype->second : "F32", keep_alive));
    }
    const exporting::WrittenWeights written =
        exporting::writeModelWeights(folder, views, {{"format", "pt"}}, max_shard_bytes);
    for (const char *name : kCopiedFiles) {
        const fs::path from = fs::path(source.folder.folder) / name;
        std::error_code error;
        if (fs::is_regular_file(from, error)) {
            fs::copy_file(from, fs::path(folder) / name, error);
            if (error) {
                throw InputError("cannot copy " + from.string() + ": " + error.message());
            }
        }
    }
    writeChatTemplate(source.run, project_path, folder);
    return {source.run.step, baseFormatName(source.model->baseFormat()), written.files};
}

std::uint64_t parseMaxShardSize(const std::string &text) {
    return exporting::parseMaxShardSize(text);
}

std::int64_t exportPeftAdapter(const std::string &project_path, std::int64_t run_id,
                               const std::string &folder) {
    PretrainedRun source = loadPretrainedRun(project_path, run_id);
    if (!source.model->loraOptions()) {
        throw InputError("run " + std::to_string(source.run.run_id) +
                         " is not a LoRA run (lora.rank is 0): it has no adapter; export the "
                         "whole model with --hf DIR");
    }
    exporting::prepareOutputFolder(folder);
    const models::LoraOptions &lora = *source.model->loraOptions();
    std::vector<torch::Tensor> keep_alive;
    std::vector<exporting::TensorView> views;
    for (const auto &[path, adapter] : source.model->loraAdapters()) {
        const std::string prefix = "base_model.model." + path;
        views.push_back(viewOf(prefix + ".lora_A.weight", adapter->a, "F32", keep_alive));
        views.push_back(viewOf(prefix + ".lora_B.weight", adapter->b, "F32", keep_alive));
    }
    exporting::writeSafetensors((fs::path(folder) / "adapter_model.safetensors").string(), views,
                                {{"format", "pt"}});
    const nlohmann::ordered_json config = {
        {"alpha_pattern", nlohmann::json::object()},
        {"base_model_name_or_path", source.folder.folder},
        {"bias", "none"},
        {"fan_in_fan_out", source.architecture.family == hf::ModelFamily::Gpt2},
        {"inference_mode", true},
        {"init_lora_weights", true},
        {"lora_alpha", lora.alpha()},
        {"lora_dropout", lora.dropout()},
        {"modules_to_save", nullptr},
        {"peft_type", "LORA"},
        {"r", lora.rank()},
        {"rank_pattern", nlohmann::json::object()},
        {"target_modules", lora.targets()},
        {"task_type", "CAUSAL_LM"},
        {"use_dora", false},
        {"use_rslora", false}};
    exporting::writeTextFile((fs::path(folder) / "adapter_config.json").string(),
                             config.dump(2) + "\n");
    return source.run.step;
}

} // namespace headroom
