#include "gguf/gguf_architecture.h"

#include <cmath>
#include <map>
#include <regex>

namespace headroom::gguf {

namespace {

std::uint32_t u32(std::int64_t value) {
    return static_cast<std::uint32_t>(value);
}

// Layer-relative transformers name -> GGUF name ("blk.N." added).
const std::map<std::string, std::string> &gpt2LayerNames() {
    static const std::map<std::string, std::string> names = {
        {"ln_1.weight", "attn_norm.weight"},          {"ln_1.bias", "attn_norm.bias"},
        {"attn.c_attn.weight", "attn_qkv.weight"},    {"attn.c_attn.bias", "attn_qkv.bias"},
        {"attn.c_proj.weight", "attn_output.weight"}, {"attn.c_proj.bias", "attn_output.bias"},
        {"ln_2.weight", "ffn_norm.weight"},           {"ln_2.bias", "ffn_norm.bias"},
        {"mlp.c_fc.weight", "ffn_up.weight"},         {"mlp.c_fc.bias", "ffn_up.bias"},
        {"mlp.c_proj.weight", "ffn_down.weight"},     {"mlp.c_proj.bias", "ffn_down.bias"},
    };
    return names;
}

const std::map<std::string, std::string> &llamaLayerNames() {
    static const std::map<std::string, std::string> names = {
        {"input_layernorm.weight", "attn_norm.weight"},
        {"self_attn.q_proj.weight", "attn_q.weight"},
        {"self_attn.q_proj.bias", "attn_q.bias"},
        {"self_attn.k_proj.weight", "attn_k.weight"},
        {"self_attn.k_proj.bias", "attn_k.bias"},
        {"self_attn.v_proj.weight", "attn_v.weight"},
        {"self_attn.v_proj.bias", "attn_v.bias"},
        {"self_attn.o_proj.weight", "attn_output.weight"},
        {"self_attn.o_proj.bias", "attn_output.bias"},
        {"post_attention_layernorm.weight", "ffn_norm.weight"},
        {"mlp.gate_proj.weight", "ffn_gate.weight"},
        {"mlp.gate_proj.bias", "ffn_gate.bias"},
        {"mlp.up_proj.weight", "ffn_up.weight"},
        {"mlp.up_proj.bias", "ffn_up.bias"},
        {"mlp.down_proj.weight", "ffn_down.weight"},
        {"mlp.down_proj.bias", "ffn_down.bias"},
        {"block_sparse_moe.gate.weight", "ffn_gate_inp.weight"},
    };
    return names;
}

[[noreturn]] void noPlace(const hf::ArchitectureConfig &config, const std::string &name) {
    throw GgufError("the tensor " + name + " of this " + config.architecture +
                    " has no place in llama.cpp's " + ggufArchitecture(config) + " architecture");
}

} // namespace

std::string ggufArchitecture(const hf::ArchitectureConfig &config) {
    if (config.model_type == "gpt2") {
        return "gpt2";
    }
    if (config.model_type == "llama" || config.model_type == "mistral" ||
        config.model_type == "mixtral") {
        return "llama";
    }
    if (config.model_type == "qwen2") {
        return "qwen2";
    }
    throw GgufError("GGUF export supports gpt2, llama, mistral, mixtral and qwen2 models; this "
                    "one is " +
                    config.model_type + " (" + config.architecture + ")");
}

void addHyperParameters(const hf::ArchitectureConfig &config, Metadata &metadata) {
    const std::string arch = ggufArchitecture(config);
    metadata.setString("general.architecture", arch);
    const std::string p = arch + ".";
    metadata.setU32(p + "context_length", u32(config.max_positions));
    metadata.setU32(p + "embedding_length", u32(config.hidden_size));
    metadata.setU32(p + "feed_forward_length", u32(config.intermediate_size));
    metadata.setU32(p + "block_count", u32(config.layers));
    metadata.setU32(p + "attention.head_count", u32(config.heads));
    if (arch == "gpt2") {
        metadata.setF32(p + "attention.layer_norm_epsilon", static_cast<float>(config.norm_eps));
        return;
    }
    metadata.setU32(p + "attention.head_count_kv", u32(config.kv_heads));
    metadata.setF32(p + "rope.freq_base", static_cast<float>(config.rope_theta));
    metadata.setF32(p + "attention.layer_norm_rms_epsilon", static_cast<float>(config.norm_eps));
    metadata.setU32(p + "attention.key_length", u32(config.head_dim));
    metadata.setU32(p + "attention.value_length", u32(config.head_dim));
    metadata.setU32(p + "rope.dimension_count", u32(config.head_dim));
    metadata.setU32(p + "vocab_size", u32(config.vocab_size));
    if (config.rope_scaling.type == "linear") {
        metadata.setString(p + "rope.scaling.type", "linear");
        metadata.setF32(p + "rope.scaling.factor", static_cast<float>(config.rope_scaling.factor));
    }
    if (config.experts > 0) {
        metadata.setU32(p + "expert_count", u32(config.experts));
        metadata.setU32(p + "expert_used_count", u32(config.experts_per_token));
    }
}

GgufTensorName ggufTensorName(const hf::ArchitectureConfig &config, const std::string &hf_name) {
    const bool gpt2 = ggufArchitecture(config) == "gpt2";
    const bool permuted = ggufArchitecture(config) == "llama";
    static const std::map<std::string, std::string> kTop = {
        {"transformer.wte.weight", "token_embd.weight"},
        {"transformer.wpe.weight", "position_embd.weight"},
        {"transformer.ln_f.weight", "output_norm.weight"},
        {"transformer.ln_f.bias", "output_norm.bias"},
        {"model.embed_tokens.weight", "token_embd.weight"},
        {"model.norm.weight", "output_norm.weight"},
        {"lm_head.weight", "output.weight"},
    };
    if (const auto top = kTop.find(hf_name); top != kTop.end()) {
        return {top->second, TensorTransform::None, std::nullopt};
    }
    static const std::regex kLayer(R"(^(?:transformer\.h|model\.layers)\.(\d+)\.(.+)$)");
    static const std::regex kExpert(R"(^block_sparse_moe\.experts\.(\d+)\.(w[123])\.weight$)");
    std::smatch layer;
    if (!std::regex_match(hf_name, layer, kLayer)) {
        noPlace(config, hf_name);
    }
    const std::string block = "blk." + layer[1].str() + ".";
    const std::string rest = layer[2].str();
    std::smatch expert;
    if (!gpt2 && std::regex_match(rest, expert, kExpert)) {
        static const std::map<std::string, std::string> kExperts = {{"w1", "ffn_gate_exps.weight"},
                                                                    {"w2", "ffn_down_exps.weight"},
                                                                    {"w3", "ffn_up_exps.weight"}};
        return {block + kExperts.at(expert[2].str()), TensorTransform::None,
                std::stoll(expert[1].str())};
    }
    const auto &names = gpt2 ? gpt2LayerNames() : llamaLayerNames();
    const auto found = names.find(rest);
    if (found == names.end()) {
        noPlace(config, hf_name);
    }
    TensorTransform transform = TensorTransform::None;
    if (permuted && rest.rfind("self_attn.q_proj.", 0) == 0) {
        transform = TensorTransform::PermuteQueryHeads;
    } else if (permuted && rest.rfind("self_attn.k_proj.", 0) == 0) {
        transform = TensorTransform::PermuteKeyHeads;
    }
    return {block + found->second, transform, std::nullopt};
}

std::vector<float> llama3RopeFactors(const hf::ArchitectureConfig &config) {
    if (config.rope_scaling.type != "llama3") {
        return {};
    }
    const hf::RopeScaling &scaling = config.rope_scaling;
    const double old_context = static_cast<double>(scaling.original_max_positions);
    const double low_wavelength = old_context / scaling.low_freq_factor;
    const double high_wavelength = old_context / scaling.high_freq_factor;
    std::vector<float> factors;
    for (std::int64_t i = 0; i < config.head_dim; i += 2) {
        // float32 as torch computes the frequencies in convert_hf_to_gguf
        const float frequency =
            1.0f / std::pow(static_cast<float>(config.rope_theta),
                            static_cast<float>(i) / static_cast<float>(config.head_dim));
        const double wavelength = 2 * M_PI / frequency;
        if (wavelength < high_wavelength) {
            factors.push_back(1.0f);
        } else if (wavelength > low_wavelength) {
            factors.push_back(static_cast<float>(scaling.factor));
        } else {
            const double smooth = (old_context / wavelength - scaling.low_freq_factor) /
                                  (scaling.high_freq_factor - scaling.low_freq_factor);
            factors.push_back(static_cast<float>(1 / ((1 - smooth) / scaling.factor + smooth)));
        }
    }
    return factors;
}

} // namespace headroom::gguf
