#pragma once

// Pretrained Hugging Face models: what a model folder holds, and text generation from a
// project's runs. Plain C++ (no Torch), shared by headroom-cli and the desktop app.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// A model folder as the wizard and `new --base` describe it. Reading it checks config.json, the
// safetensors headers (names, shapes, dtypes) and the tokenizer, not the weights' values.
struct PretrainedInfo {
    std::string folder;
    std::string architecture; // "LlamaForCausalLM"
    std::string model_type;   // "llama"
    std::int64_t parameters = 0;
    std::int64_t layers = 0;
    std::int64_t dim = 0;
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    // Mixtral: experts per layer and experts each token is routed to; 0 = dense.
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    std::int64_t vocab_size = 0;
    std::int64_t context = 0; // max_position_embeddings / n_positions
    std::string dtype;        // of the stored weights: "BF16", or "F16, F32" when mixed
    std::uint64_t weight_bytes = 0;
    std::int64_t weight_files = 0; // 1, or the shards
    bool tied_embeddings = false;
    std::string tokenizer; // "tokenizer.json, vocabulary 32000"
    std::vector<std::string> eos_tokens;
    // A masked language model (BERT, DistilBERT: recipe=splade) rather than a causal one.
    bool encoder = false;
};

// Throws InputError naming the file and the problem (no config.json, pickle weights, an
// unsupported architecture, a missing shard, a shape mismatch, no tokenizer, ...).
PretrainedInfo inspectPretrained(const std::string &folder);

struct ChatTurn {
    std::string role; // system, user or assistant
    std::string content;
};

struct GenerateRequest {
    std::string project_path;
    // 0: the newest run with a checkpoint, or the imported base model when no run has one.
    // -1: the base model as imported (pretrained projects).
    std::int64_t run_id = 0;
    std::string prompt;
    // Chat instead of a prompt: the conversation so far, ending with the user's turn, rendered
    // with the project's chat template (data.chat_template, else model.base's) and the
    // assistant's header; generation stops at the template's end-of-turn.
    std::vector<ChatTurn> chat;
    std::int64_t max_tokens = 64;
    // Unset: the model folder's generation_config.json (greedy when it does not sample).
    std::optional<double> temperature; // 0 = greedy
    std::optional<std::int64_t> top_k;
    std::optional<double> top_p;
    std::uint64_t seed = 0;
};

struct GenerateResult {
    std::int64_t run_id = 0; // 0: the base model
    std::int64_t step = 0;
    std::vector<std::int32_t> prompt_tokens;
    std::vector<std::int32_t> tokens; // the new tokens only
    std::string text;                 // the new tokens decoded
    bool stopped_at_eos = false;
    double seconds = 0; // generation only (not loading)
};

// Loads the run's weights (CPU) and generates. on_text receives the decoded text as it grows,
// in pieces that are whole UTF-8 characters. Throws InputError (bad prompt, unknown run,
// ...), ProjectError.
GenerateResult generateText(const GenerateRequest &request,
                            const std::function<void(const std::string &)> &on_text = {},
                            const std::atomic<bool> *stop = nullptr);

} // namespace headroom
