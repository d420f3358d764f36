// config.json of a Hugging Face causal language model, read into the few numbers and switches
// the engine's GPT-2 and Llama-family models need. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

enum class ModelFamily { Gpt2, Llama }; // Llama covers llama, qwen2, mistral and mixtral

struct RopeScaling {
    std::string type; // "" (none), "linear" or "llama3"
    double factor = 1.0;
    double low_freq_factor = 1.0;  // llama3
    double high_freq_factor = 4.0; // llama3
    std::int64_t original_max_positions = 8192;
};

struct ArchitectureConfig {
    std::string architecture; // "GPT2LMHeadModel", "LlamaForCausalLM", "Qwen2ForCausalLM",
                              // "MistralForCausalLM", "MixtralForCausalLM"
    std::string model_type;   // "gpt2", "llama", "qwen2", "mistral", "mixtral"
    ModelFamily family = ModelFamily::Llama;
    std::int64_t vocab_size = 0, hidden_size = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0,
                 intermediate_size = 0, max_positions = 0;
    double norm_eps = 1e-5;
    double rope_theta = 10000.0;
    RopeScaling rope_scaling;
    bool qkv_bias = false, o_bias = false, mlp_bias = false; // gpt2: all true
    bool tie_word_embeddings = false;
    std::string activation;                     // "gelu_new" or "gelu" (exact; gpt2), or "silu"
    std::optional<std::int64_t> sliding_window; // every layer attends this many tokens back
    double embedding_dropout = 0, residual_dropout = 0, attention_dropout = 0;
    std::string torch_dtype; // as written ("bfloat16", "float16", "float32") or ""
    std::vector<std::int64_t> bos_token_ids, eos_token_ids;
    std::optional<std::int64_t> pad_token_id; // absent also when outside the vocabulary (-1)
    // Mixtral: every layer's MLP is a sparse Mixture-of-Experts block (num_local_experts
    // experts of width intermediate_size, num_experts_per_tok per token); 0 = dense MLPs.
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    double router_aux_loss_coef = 0;
    // transformers adds router_aux_loss_coef x the balancing loss to the training loss only
    // when this is true.
    bool output_router_logits = false;
    double router_jitter = 0; // router_jitter_noise
};

// "GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM, MistralForCausalLM, MixtralForCausalLM"
std::string supportedArchitectures();

// Parses config.json text. `source` (the file's path) starts every message. Throws
// ModelFolderError naming the key, its value and what was expected, for malformed JSON (with
// the parser's position), an unsupported architecture or setting, and sizes of the wrong type,
// inconsistent with each other or beyond sane limits.
ArchitectureConfig parseArchitectureConfig(const std::string &json_text, const std::string &source);
ArchitectureConfig readArchitectureConfig(const std::string &config_path);

} // namespace headroom::hf
