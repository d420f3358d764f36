#include "hf/architecture_config.h"

#include "hf/hf_error.h"
#include "hf/json_file.h"

#include <array>
#include <limits>

namespace headroom::hf {

namespace {

using nlohmann::json;

using namespace config_limits;
constexpr std::int64_t kMaxHeadDim = 4096;
constexpr std::int64_t kMaxExperts = 256; // models::kMaxSparseExperts

struct Kind {
    const char *architecture;
    const char *model_type;
    ModelFamily family;
};

constexpr std::array<Kind, 5> kKinds = {{
    {"GPT2LMHeadModel", "gpt2", ModelFamily::Gpt2},
    {"LlamaForCausalLM", "llama", ModelFamily::Llama},
    {"Qwen2ForCausalLM", "qwen2", ModelFamily::Llama},
    {"MistralForCausalLM", "mistral", ModelFamily::Llama},
    {"MixtralForCausalLM", "mixtral", ModelFamily::Llama},
}};

// transformers' defaults for the keys a config.json may leave out, per model_type.
struct Defaults {
    std::int64_t vocab, hidden, intermediate, layers, heads;
    std::optional<std::int64_t> kv_heads; // nullopt: as many as heads
    std::int64_t max_positions;
    std::optional<std::int64_t> bos, eos;
    std::optional<std::int64_t> sliding_window;
    double norm_eps = 1e-6;
    double rope_theta = 10000.0;
};

Defaults defaultsFor(const std::string &model_type) {
    if (model_type == "qwen2") {
        return {151936, 4096, 22016, 32, 32, 32, 32768, std::nullopt, std::nullopt, 4096};
    }
    if (model_type == "mistral") {
        return {32000, 4096, 14336, 32, 32, 8, 4096 * 32, 1, 2, 4096};
    }
    if (model_type == "mixtral") {
        return {32000, 4096, 14336, 32, 32, 8, 4096 * 32, 1, 2, std::nullopt, 1e-5, 1e6};
    }
    return {32000, 4096, 11008, 32, 32, std::nullopt, 2048, 1, 2, std::nullopt}; // llama
}

// For a size that may come from a default: "n_head is 12 (the default), expected ...".
[[noreturn]] void failSize(const JsonFields &fields, const std::string &key, std::int64_t value,
                           const std::string &expected) {
    throw ModelFolderError(fields.name(key) + " is " + std::to_string(value) +
                           (fields.has(key) ? "" : " (the default)") + ", expected " + expected);
}

const Kind *kindByArchitecture(const std::string &name) {
    for (const Kind &kind : kKinds) {
        if (name == kind.architecture) {
            return &kind;
        }
    }
    return nullptr;
}

const Kind *kindByModelType(const std::string &name) {
    for (const Kind &kind : kKinds) {
        if (name == kind.model_type) {
            return &kind;
        }
    }
    return nullptr;
}

void readKind(const JsonFields &fields, ArchitectureConfig &config) {
    const json &root = fields.object();
    std::optional<std::string> architecture;
    if (fields.has("architectures")) {
        const json &list = root.at("architectures");
        bool strings = list.is_array();
        for (const json &item : list.is_array() ? list : json::array()) {
            strings = strings && item.is_string();
        }
        if (!strings) {
            fields.fail("architectures", "a list of class names such as [\"LlamaForCausalLM\"]");
        }
        if (!list.empty()) {
            architecture = list.front().get<std::string>();
        }
    }
    const std::optional<std::string> model_type = fields.optionalString("model_type");
    const std::string supported = "; supported: " + supportedArchitectures();
    const Kind *by_architecture = nullptr;
    if (architecture) {
        by_architecture = kindByArchitecture(*architecture);
        if (by_architecture == nullptr) {
            failIn(fields.source(), "architectures names " + describeJson(json(*architecture)) +
                                        ", which is not supported" + supported);
        }
    }
    const Kind *by_model_type = nullptr;
    if (model_type) {
        by_model_type = kindByModelType(*model_type);
        if (by_model_type == nullptr) {
            failIn(fields.source(), "model_type is " + describeJson(json(*model_type)) +
                                        ", which is not supported; supported: gpt2, llama, qwen2, "
                                        "mistral, mixtral");
        }
    }
    if (by_architecture == nullptr && by_model_type == nullptr) {
        failIn(fields.source(), "names neither architectures nor model_type" + supported);
    }
    // Within the Llama family the configs are interchangeable, but not with Mixtral's experts.
    const auto sparse = [](const Kind *kind) {
        return std::string(kind->model_type) == "mixtral";
    };
    if (by_architecture != nullptr && by_model_type != nullptr &&
        (by_architecture->family != by_model_type->family ||
         sparse(by_architecture) != sparse(by_model_type))) {
        failIn(fields.source(), "model_type \"" + std::string(by_model_type->model_type) +
                                    "\" does not fit architectures \"" +
                                    by_architecture->architecture + "\"");
    }
    const Kind &kind = by_architecture != nullptr ? *by_architecture : *by_model_type;
    config.architecture = kind.architecture;
    // The model_type picks transformers' config class and so the defaults; the architecture
    // picks the model class and so the biases and the attention window.
    config.model_type = (by_model_type != nullptr ? *by_model_type : kind).model_type;
    config.family = kind.family;
}

std::vector<std::int64_t> readTokenIds(const JsonFields &fields, const std::string &key,
                                       std::optional<std::int64_t> fallback,
                                       std::int64_t vocab_size) {
    const json &root = fields.object();
    if (!root.contains(key)) {
        // transformers' default, where the vocabulary has it.
        return fallback && *fallback < vocab_size ? std::vector<std::int64_t>{*fallback}
                                                  : std::vector<std::int64_t>{};
    }
    const json &value = root.at(key);
    const std::string expected = "a token id from 0 to " + std::to_string(vocab_size - 1) +
                                 " (vocab_size " + std::to_string(vocab_size) +
                                 "), a list of them, or null";
    std::vector<std::int64_t> ids;
    for (const json &item : value.is_array() ? value : json::array({value})) {
        if (item.is_null() && !value.is_array()) {
            continue;
        }
        if (!item.is_number_unsigned() ||
            item.get<std::uint64_t>() >= static_cast<std::uint64_t>(vocab_size)) {
            throw ModelFolderError(fields.name(key) + (value.is_array() ? " holds " : " is ") +
                                   describeJson(item) + ", expected " + expected);
        }
        ids.push_back(item.get<std::int64_t>());
    }
    return ids;
}

void readRope(const JsonFields &fields, ArchitectureConfig &config, double default_theta) {
    const json &root = fields.object();
    // transformers 5 writes rope_parameters {rope_type, rope_theta, ...}; older versions wrote
    // rope_theta and rope_scaling {rope_type or type, factor, ...} at the top level.
    const char *scaling_key = fields.has("rope_scaling")      ? "rope_scaling"
                              : fields.has("rope_parameters") ? "rope_parameters"
                                                              : nullptr;
    config.rope_theta = fields.optionalNumber("rope_theta", 1.0, 1e12).value_or(default_theta);
    if (scaling_key == nullptr) {
        return;
    }
    const json &scaling = root.at(scaling_key);
    if (!scaling.is_object()) {
        fields.fail(scaling_key, "null or an object with rope_type and its parameters");
    }
    const JsonFields rope(scaling, fields.source(), std::string(scaling_key) + ".");
    if (!fields.has("rope_theta")) {
        config.rope_theta = rope.number("rope_theta", default_theta, 1.0, 1e12);
    }
    const std::string type_key = rope.has("rope_type") ? "rope_type" : "type";
    std::string type = rope.optionalString(type_key).value_or("default");
    if (type == "default") {
        return;
    }
    if (type != "linear" && type != "llama3") {
        rope.fail(type_key, "default, linear or llama3 (the rotary embeddings this engine has)");
    }
    config.rope_scaling.type = type;
    const auto required = [&](const std::string &key) {
        if (!rope.has(key)) {
            throw ModelFolderError(rope.name(key) + " is missing; rope_type " + type + " needs it");
        }
    };
    required("factor");
    config.rope_scaling.factor = rope.number("factor", 1.0, 1e-3, 1e6);
    if (type == "llama3") {
        for (const char *key :
             {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
            required(key);
        }
        config.rope_scaling.low_freq_factor = rope.number("low_freq_factor", 1.0, 1e-6, 1e6);
        config.rope_scaling.high_freq_factor = rope.number("high_freq_factor", 4.0, 1e-6, 1e6);
        config.rope_scaling.original_max_positions =
            rope.integer("original_max_position_embeddings", 8192, 1, kMaxPositions);
        if (!(config.rope_scaling.high_freq_factor > config.rope_scaling.low_freq_factor)) {
            rope.fail("high_freq_factor", "a number above low_freq_factor");
        }
    }
}

void readGpt2(const JsonFields &fields, ArchitectureConfig &config) {
    config.vocab_size = fields.integer("vocab_size", 50257, 1, kMaxVocab);
    config.max_positions =
        fields.has("n_positions") || !fields.has("n_ctx")
            ? fields.integer("n_positions", 1024, 1, kMaxPositions)
            : fields.integer("n_ctx", 1024, 1, kMaxPositions); // configs of the first ports
    config.hidden_size = fields.integer("n_embd", 768, 1, kMaxHidden);
    config.layers = fields.integer("n_layer", 12, 1, kMaxLayers);
    config.heads = fields.integer("n_head", 12, 1, kMaxHeads);
    if (config.hidden_size % config.heads != 0) {
        failSize(fields, "n_head", config.heads,
                 "a divisor of n_embd " + std::to_string(config.hidden_size));
    }
    config.kv_heads = config.heads;
    config.head_dim = config.hidden_size / config.heads;
    config.intermediate_size =
        fields.optionalInteger("n_inner", 1, kMaxIntermediate).value_or(4 * config.hidden_size);
    const std::string activation =
        fields.optionalString("activation_function").value_or("gelu_new");
    if (activation != "gelu_new" && activation != "gelu_pytorch_tanh" && activation != "gelu") {
        fields.fail("activation_function",
                    "\"gelu_new\" or \"gelu_pytorch_tanh\" (the same tanh approximation), or "
                    "\"gelu\" (exact, erf)");
    }
    config.activation = activation == "gelu" ? "gelu" : "gelu_new";
    config.norm_eps = fields.number("layer_norm_epsilon", 1e-5, 1e-12, 1.0);
    config.residual_dropout = fields.number("resid_pdrop", 0.1, 0.0, 0.99);
    config.embedding_dropout = fields.number("embd_pdrop", 0.1, 0.0, 0.99);
    config.attention_dropout = fields.number("attn_pdrop", 0.1, 0.0, 0.99);
    if (!fields.boolean("scale_attn_weights", true)) {
        fields.fail("scale_attn_weights", "true (attention without 1/sqrt(head size) is not "
                                          "supported)");
    }
    if (fields.boolean("scale_attn_by_inverse_layer_idx", false)) {
        fields.fail("scale_attn_by_inverse_layer_idx", "false (per-layer attention scaling is "
                                                       "not supported)");
    }
    // reorder_and_upcast_attn only changes the precision of the attention scores: accepted.
    fields.boolean("reorder_and_upcast_attn", false);
    config.qkv_bias = config.o_bias = config.mlp_bias = true;
    config.tie_word_embeddings = fields.boolean("tie_word_embeddings", true);
    config.bos_token_ids = readTokenIds(fields, "bos_token_id", 50256, config.vocab_size);
    config.eos_token_ids = readTokenIds(fields, "eos_token_id", 50256, config.vocab_size);
}

void readSlidingWindow(const JsonFields &fields, ArchitectureConfig &config,
                       const Defaults &defaults) {
    if (config.architecture == "MistralForCausalLM" ||
        config.architecture == "MixtralForCausalLM") {
        config.sliding_window = fields.object().contains("sliding_window")
                                    ? fields.optionalInteger("sliding_window", 1, kMaxPositions)
                                    : defaults.sliding_window;
        return;
    }
    if (config.architecture != "Qwen2ForCausalLM" || !fields.boolean("use_sliding_window", false)) {
        return;
    }
    // Qwen2 slides the window in the layers from max_window_layers on.
    const std::int64_t full_layers = fields.integer("max_window_layers", 28, 0, kMaxLayers);
    if (full_layers >= config.layers) {
        return;
    }
    if (full_layers != 0) {
        failSize(fields, "max_window_layers", full_layers,
                 "0 or at least num_hidden_layers " + std::to_string(config.layers) +
                     " with use_sliding_window true (a mix of sliding-window and full "
                     "attention layers is not supported)");
    }
    config.sliding_window = fields.object().contains("sliding_window")
                                ? fields.optionalInteger("sliding_window", 1, kMaxPositions)
                                : defaults.sliding_window;
}

// MixtralForCausalLM's sparse MoE blocks, with transformers' MixtralConfig defaults.
void readExperts(const JsonFields &fields, ArchitectureConfig &config) {
    config.experts = fields.integer("num_local_experts", 8, 1, kMaxExperts);
    config.experts_per_token = fields.integer("num_experts_per_tok", 2, 1, kMaxExperts);
    if (config.experts_per_token > config.experts) {
        failSize(fields, "num_experts_per_tok", config.experts_per_token,
                 "at most num_local_experts " + std::to_string(config.experts) +
                     " (each token is routed to that many different experts)");
    }
    config.router_aux_loss_coef = fields.number("router_aux_loss_coef", 0.001, 0.0, 1000.0);
    config.output_router_logits = fields.boolean("output_router_logits", false);
    config.router_jitter = fields.number("router_jitter_noise", 0.0, 0.0, 0.99);
}

void readLlama(const JsonFields &fields, ArchitectureConfig &config) {
    const Defaults defaults = defaultsFor(config.model_type);
    config.vocab_size = fields.integer("vocab_size", defaults.vocab, 1, kMaxVocab);
    config.hidden_size = fields.integer("hidden_size", defaults.hidden, 1, kMaxHidden);
    config.intermediate_size =
        fields.integer("intermediate_size", defaults.intermediate, 1, kMaxIntermediate);
    config.layers = fields.integer("num_hidden_layers", defaults.layers, 1, kMaxLayers);
    config.heads = fields.integer("num_attention_heads", defaults.heads, 1, kMaxHeads);
    config.kv_heads =
        fields.object().contains("num_key_value_heads")
            ? fields.optionalInteger("num_key_value_heads", 1, config.heads).value_or(config.heads)
            : defaults.kv_heads.value_or(config.heads);
    if (config.kv_heads > config.heads) {
        // Only reachable through a default (mistral's 8) with fewer heads than that.
        throw ModelFolderError(fields.name("num_key_value_heads") +
                               " is missing, and its default " + std::to_string(config.kv_heads) +
                               " is more than num_attention_heads " + std::to_string(config.heads));
    }
    if (config.heads % config.kv_heads != 0) {
        failSize(fields, "num_key_value_heads", config.kv_heads,
                 "a divisor of num_attention_heads " + std::to_string(config.heads));
    }
    if (const auto head_dim = fields.optionalInteger("head_dim", 1, kMaxHeadDim)) {
        config.head_dim = *head_dim;
    } else if (config.hidden_size % config.heads != 0) {
        failSize(fields, "num_attention_heads", config.heads,
                 "a divisor of hidden_size " + std::to_string(config.hidden_size) +
                     " when head_dim is not given");
    } else {
        config.head_dim = config.hidden_size / config.heads;
    }
    if (config.head_dim % 2 != 0) {
        throw ModelFolderError(fields.source() + ": the head size " +
                               std::to_string(config.head_dim) +
                               " (head_dim, or hidden_size / num_attention_heads) is odd; rotary "
                               "embeddings need an even one");
    }
    config.max_positions =
        fields.integer("max_position_embeddings", defaults.max_positions, 1, kMaxPositions);
    const std::string activation = fields.optionalString("hidden_act").value_or("silu");
    if (activation != "silu" && activation != "swish") {
        fields.fail("hidden_act",
                    "\"silu\" (the only activation supported for " + config.architecture + ")");
    }
    config.activation = "silu";
    config.norm_eps = fields.number("rms_norm_eps", defaults.norm_eps, 1e-12, 1.0);
    readRope(fields, config, defaults.rope_theta);
    config.attention_dropout = fields.number("attention_dropout", 0.0, 0.0, 0.99);
    if (config.architecture == "LlamaForCausalLM") {
        config.qkv_bias = config.o_bias = fields.boolean("attention_bias", false);
        config.mlp_bias = fields.boolean("mlp_bias", false);
    } else if (config.architecture == "Qwen2ForCausalLM") {
        config.qkv_bias = true; // Qwen2's q, k and v projections always have a bias
    }
    readSlidingWindow(fields, config, defaults);
    if (config.architecture == "MixtralForCausalLM") {
        readExperts(fields, config);
    }
    config.tie_word_embeddings = fields.boolean("tie_word_embeddings", false);
    config.bos_token_ids = readTokenIds(fields, "bos_token_id", defaults.bos, config.vocab_size);
    config.eos_token_ids = readTokenIds(fields, "eos_token_id", defaults.eos, config.vocab_size);
}

} // namespace

std::string supportedArchitectures() {
    std::string list;
    for (const Kind &kind : kKinds) {
        list += (list.empty() ? "" : ", ") + std::string(kind.architecture);
    }
    return list;
}

ArchitectureConfig parseArchitectureConfig(const std::string &json_text,
                                           const std::string &source) {
    const json root = parseJson(json_text, source);
    if (!root.is_object()) {
        failIn(source, "the top level is " + describeJson(root) + ", expected a JSON object");
    }
    if (root.contains("quantization_config")) {
        const json &quantization = root.at("quantization_config");
        const std::string method = quantization.is_object() &&
                                           quantization.contains("quant_method") &&
                                           quantization.at("quant_method").is_string()
                                       ? quantization.at("quant_method").get<std::string>()
                                       : "unknown";
        failIn(source, "quantization_config: this model was quantized by another tool "
                       "(quant_method \"" +
                           method +
                           "\"); Headroom imports F32, F16 or BF16 weights and quantizes the "
                           "frozen base itself (model.base_dtype=int8 or nf4): use the "
                           "unquantized original of this model");
    }
    const JsonFields fields(root, source);
    ArchitectureConfig config;
    readKind(fields, config);
    if (config.family == ModelFamily::Gpt2) {
        readGpt2(fields, config);
    } else {
        readLlama(fields, config);
    }
    // Older files say torch_dtype, transformers 5 writes dtype.
    config.torch_dtype = fields.torchDtype();
    // -1 (the old "no padding token") and other ids outside the vocabulary mean none.
    config.pad_token_id = fields.optionalTokenId("pad_token_id", config.vocab_size);
    return config;
}

ArchitectureConfig readArchitectureConfig(const std::string &config_path) {
    return parseArchitectureConfig(readTextFile(config_path, kMaxConfigBytes), config_path);
}

} // namespace headroom::hf
