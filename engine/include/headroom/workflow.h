#pragma once

#include <headroom/metrics.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace headroom {

struct RunRecord;

// The non-training steps of the workflow, shared by headroom-cli and the desktop app. They
// throw InputError (bad data, config or arguments; the message names the problem) or
// ProjectError (the project file).

struct NewProjectRequest {
    std::string project_path;
    std::string recipe;                 // "gpt" | "tabular"
    std::string data_path;              // as the user typed it (relative to the working directory)
    std::string base_path;              // optional: a Hugging Face model folder to fine-tune
    std::string config_json;            // optional: a JSON object of key: value settings
    std::vector<std::string> overrides; // "key=value", applied last
};

// Validates the settings and the whole data file, prepares the tokenizer (SentencePiece is
// trained here) or the tabular schema, then creates the project. With a base model (base_path
// or model.base): the folder is checked (config, weight headers, tokenizer) and recorded by
// path and digest, not copied. Nothing is written when a
// check fails. Returns lines describing what was created.
std::vector<std::string> createProject(const NewProjectRequest &request,
                                       const std::function<void(const std::string &)> &progress);

// Writes a run's step metrics (with validation figures at the steps that have them) as CSV.
// Returns the number of rows written.
std::int64_t exportMetricsCsv(const std::string &project_path, std::int64_t run_id,
                              const std::string &csv_path);

// What to export of a LoRA run (lora.rank > 0).
enum class LoraExport {
    Default,  // merged for a LoRA run, the plain weights otherwise
    Adapters, // only the adapter tensors ("blocks.N.lora_<target>.a"/".b"), metadata
              // headroom.lora.rank/alpha/dropout/targets/base_run
    Merged,   // the base names with W + B A * alpha/rank: loads like a plain export
};
// "adapters" / "merged"; throws InputError listing the choices for anything else.
LoraExport parseLoraExport(const std::string &text);

// Writes the weights of a run's latest checkpoint as safetensors, with the config, recipe,
// tokenizer and step in the metadata. Returns the step of the exported checkpoint. Adapters
// or Merged for a run without LoRA is an InputError.
std::int64_t exportWeights(const std::string &project_path, std::int64_t run_id,
                           const std::string &safetensors_path,
                           LoraExport lora = LoraExport::Default);

// A run as a Hugging Face folder (folder must be new or empty). A pretrained project's run
// (run_id -1: its base as imported): config.json, generation and tokenizer files copied from
// the base, the weights in the base's tensor names, layout and per-tensor dtype, a LoRA run's
// adapters merged. A GPT trained from scratch (recipe gpt without model.base): as
// GPT2LMHeadModel (activation_function "gelu"), F32, with a tokenizer.json equivalent to the
// byte tokenizer or, for a SentencePiece tokenizer, its model as tokenizer.model for
// LlamaTokenizer; a project with MoE blocks is an InputError. A
// splade run: its encoder in the base's layout. Weights above max_shard_bytes are split as
// save_pretrained splits them (model-0000K-of-0000N.safetensors and
// model.safetensors.index.json). InputError for a tabular project or max_shard_bytes 0.
constexpr std::uint64_t kDefaultMaxShardBytes = 5'000'000'000ULL; // transformers' "5GB"
struct HfExport {
    std::int64_t step = 0;
    // How the run held its frozen base (model.base_dtype, or a ladder rung): other than "fp32",
    // the written weights are that base dequantized, adapters merged in.
    std::string base_format = "fp32";
    // The weight files written: model.safetensors, or the shards (the index beside them).
    std::vector<std::string> weight_files;
};
HfExport exportHfFolder(const std::string &project_path, std::int64_t run_id,
                        const std::string &folder,
                        std::uint64_t max_shard_bytes = kDefaultMaxShardBytes);
// "5GB", "500MB", "2GiB" or bytes, as transformers reads max_shard_size (GB = 10^9, GiB =
// 2^30). Throws InputError naming the text and the accepted forms; zero is refused.
std::uint64_t parseMaxShardSize(const std::string &text);
// A LoRA run's adapters in PEFT layout: adapter_config.json and adapter_model.safetensors
// (base_model.model.<module>.lora_A.weight [r, in] / lora_B.weight [out, r], F32).
std::int64_t exportPeftAdapter(const std::string &project_path, std::int64_t run_id,
                               const std::string &folder);

// A run's result weights measured on a data file with the training data's layout (a held-out
// test set: the same CSV columns, or text for gpt).
struct EvaluationReport {
    std::int64_t run_id = 0;
    std::int64_t step = 0; // of the checkpoint evaluated
    bool latest = true;    // false: the best checkpoint (early stopping), not the last
    std::string task;      // "classification" | "regression" | "language-model"
    EvalMetrics metrics;   // accuracy or RMSE and R^2 where the task has them, else NaN
};
// run_id 0 = the newest run with a checkpoint (else the base of a pretrained project), -1 = the
// base (the report's run_id is then 0, its step 0). Every record of the file is evaluated on the
// CPU. Throws InputError: unknown run, no checkpoint, missing file, a record that does not fit
// the training data (unknown column or class: FILE:LINE: problem).
EvaluationReport evaluateRun(const std::string &project_path, std::int64_t run_id,
                             const std::string &data_path);

// What the tokenizer a GPT project trains with (byte, or its stored SentencePiece model) makes of
// a text: the ids, each id decoded alone (a byte of a multi-byte character is not valid UTF-8
// alone), and all ids decoded. Throws InputError for a tabular project, ProjectError for a file
// that is not a project.
struct ProjectTokenization {
    std::string tokenizer; // "byte" | "bpe" | "unigram"
    std::vector<std::int32_t> ids;
    std::vector<std::string> pieces;
    std::string text;
};
ProjectTokenization tokenizeWithProject(const std::string &project_path, const std::string &text);

// What a run used to save memory, as `runs` and the desktop show it: "bf16 · checkpointing
// every block · 8-bit AdamW" from the run's summary once it ended (ladder rungs included), else
// from its config; "fp32" when nothing is on.
std::string describeTechniques(const RunRecord &run);

} // namespace headroom
