#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/hf_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace headroom::hf;

namespace {

namespace fs = std::filesystem;

const std::string kSource = "/models/x/config.json";

// The hub's config.json files, as published.
const char *const kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
  "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null,
  "summary_first_dropout": 0.1, "summary_proj_to_labels": true, "summary_type": "cls_index",
  "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}},
  "vocab_size": 50257
})";

const char *const kTinyLlama = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 5632, "max_position_embeddings": 2048, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 22, "num_key_value_heads": 4,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.35.0",
  "use_cache": true, "vocab_size": 32000
})";

const char *const kLlama32 = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
  "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256
})";

const char *const kQwen25 = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
  "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 24,
  "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
  "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.40.1", "use_cache": true, "use_mrope": false,
  "use_sliding_window": false, "vocab_size": 151936
})";

const char *const kMistral = R"({
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0",
  "use_cache": true, "vocab_size": 32000
})";

// mistralai/Mixtral-8x7B-v0.1's config.json.
const char *const kMixtral = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mixtral",
  "num_attention_heads": 32, "num_experts_per_tok": 2, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02,
  "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.36.0.dev0", "use_cache": true, "vocab_size": 32000
})";

ArchitectureConfig parse(const std::string &text) {
    return parseArchitectureConfig(text, kSource);
}

std::string errorOf(const std::function<void()> &action) {
    try {
        action();
    } catch (const ModelFolderError &error) {
        return error.what();
    }
    return "(no error)";
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

#define QVERIFY_CONTAINS(text, part)                                                               \
    QVERIFY2(contains((text), (part)), (std::string(text) + "\n  lacks: " + (part)).c_str())

void writeText(const fs::path &path, const std::string &text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

class TestArchitectureConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gpt2();
    void tinyLlama();
    void llama32WithLlama3Rope();
    void qwen25();
    void mistral();
    void mixtral();
    void acceptedVariants();
    void badConfigsAreRejected_data();
    void badConfigsAreRejected();
    void configFileErrors();
    void canonicalNames();
};

void TestArchitectureConfig::gpt2() {
    const ArchitectureConfig c = parse(kGpt2);
    QCOMPARE(c.architecture, std::string("GPT2LMHeadModel"));
    QCOMPARE(c.model_type, std::string("gpt2"));
    QVERIFY(c.family == ModelFamily::Gpt2);
    QCOMPARE(c.vocab_size, 50257);
    QCOMPARE(c.hidden_size, 768);
    QCOMPARE(c.layers, 12);
    QCOMPARE(c.heads, 12);
    QCOMPARE(c.kv_heads, 12);
    QCOMPARE(c.head_dim, 64);
    QCOMPARE(c.intermediate_size, 3072);
    QCOMPARE(c.max_positions, 1024);
    QCOMPARE(c.norm_eps, 1e-5);
    QCOMPARE(c.activation, std::string("gelu_new"));
    QVERIFY(c.qkv_bias && c.o_bias && c.mlp_bias && c.tie_word_embeddings);
    QCOMPARE(c.embedding_dropout, 0.1);
    QCOMPARE(c.residual_dropout, 0.1);
    QCOMPARE(c.attention_dropout, 0.1);
    QVERIFY(c.rope_scaling.type.empty());
    QCOMPARE(c.eos_token_ids, std::vector<std::int64_t>{50256});
    QCOMPARE(c.bos_token_ids, std::vector<std::int64_t>{50256});
    QVERIFY(!c.pad_token_id);
    QCOMPARE(parameterCount(c), 124439808);

    const std::vector<ExpectedTensor> tensors = expectedTensors(c);
    QCOMPARE(tensors.size(), std::size_t{2 + 12 * 12 + 2});
    QCOMPARE(tensors[0].name, std::string("transformer.wte.weight"));
    QCOMPARE(tensors[1].shape, (std::vector<std::int64_t>{1024, 768}));
    QCOMPARE(tensors[4].name, std::string("transformer.h.0.attn.c_attn.weight"));
    QCOMPARE(tensors[4].shape, (std::vector<std::int64_t>{768, 2304})); // Conv1D: [in, out]
    QCOMPARE(tensors[12].name, std::string("transformer.h.0.mlp.c_proj.weight"));
    QCOMPARE(tensors[12].shape, (std::vector<std::int64_t>{3072, 768}));
    QCOMPARE(tensors.back().name, std::string("transformer.ln_f.bias"));
}

void TestArchitectureConfig::tinyLlama() {
    const ArchitectureConfig c = parse(kTinyLlama);
    QVERIFY(c.family == ModelFamily::Llama);
    QCOMPARE(c.layers, 22);
    QCOMPARE(c.heads, 32);
    QCOMPARE(c.kv_heads, 4);
    QCOMPARE(c.head_dim, 64);
    QCOMPARE(c.intermediate_size, 5632);
    QCOMPARE(c.max_positions, 2048);
    QCOMPARE(c.norm_eps, 1e-5);
    QCOMPARE(c.rope_theta, 10000.0);
    QVERIFY(c.rope_scaling.type.empty());
    QVERIFY(!c.qkv_bias && !c.o_bias && !c.mlp_bias && !c.tie_word_embeddings);
    QVERIFY(!c.sliding_window);
    QCOMPARE(c.activation, std::string("silu"));
    QCOMPARE(c.torch_dtype, std::string("bfloat16"));
    QCOMPARE(c.attention_dropout, 0.0);
    QCOMPARE(c.residual_dropout, 0.0);
    QCOMPARE(parameterCount(c), 1100048384);
    const std::vector<ExpectedTensor> tensors = expectedTensors(c);
    QCOMPARE(tensors.size(), std::size_t{1 + 22 * 9 + 2});
    QCOMPARE(tensors[3].name, std::string("model.layers.0.self_attn.k_proj.weight"));
    QCOMPARE(tensors[3].shape, (std::vector<std::int64_t>{256, 2048}));
    QCOMPARE(tensors.back().name, std::string("lm_head.weight"));
}

void TestArchitectureConfig::llama32WithLlama3Rope() {
    const ArchitectureConfig c = parse(kLlama32);
    QCOMPARE(c.rope_scaling.type, std::string("llama3"));
    QCOMPARE(c.rope_scaling.factor, 32.0);
    QCOMPARE(c.rope_scaling.low_freq_factor, 1.0);
    QCOMPARE(c.rope_scaling.high_freq_factor, 4.0);
    QCOMPARE(c.rope_scaling.original_max_positions, 8192);
    QCOMPARE(c.rope_theta, 500000.0);
    QCOMPARE(c.max_positions, 131072);
    QVERIFY(c.tie_word_embeddings);
    QCOMPARE(c.kv_heads, 8);
    QCOMPARE(c.eos_token_ids, std::vector<std::int64_t>{128001});
    QCOMPARE(parameterCount(c), 1235814400);
    QCOMPARE(expectedTensors(c).back().name, std::string("model.norm.weight"));
}

void TestArchitectureConfig::qwen25() {
    const ArchitectureConfig c = parse(kQwen25);
    QCOMPARE(c.architecture, std::string("Qwen2ForCausalLM"));
    QCOMPARE(c.model_type, std::string("qwen2"));
    QCOMPARE(c.vocab_size, 151936);
    QCOMPARE(c.hidden_size, 896);
    QCOMPARE(c.heads, 14);
    QCOMPARE(c.kv_heads, 2);
    QCOMPARE(c.head_dim, 64);
    QVERIFY(c.qkv_bias && !c.o_bias && !c.mlp_bias && c.tie_word_embeddings);
    QVERIFY(!c.sliding_window); // use_sliding_window is false
    QCOMPARE(c.norm_eps, 1e-6);
    QCOMPARE(c.rope_theta, 1e6);
    QCOMPARE(parameterCount(c), 494032768);
    const std::vector<ExpectedTensor> tensors = expectedTensors(c);
    QCOMPARE(tensors[3].name, std::string("model.layers.0.self_attn.q_proj.bias"));
    QCOMPARE(tensors[5].name, std::string("model.layers.0.self_attn.k_proj.bias"));
    QCOMPARE(tensors[5].shape, std::vector<std::int64_t>{128});
    QCOMPARE(tensors[8].name, std::string("model.layers.0.self_attn.o_proj.weight"));
}

void TestArchitectureConfig::mistral() {
    const ArchitectureConfig c = parse(kMistral);
    QCOMPARE(c.architecture, std::string("MistralForCausalLM"));
    QCOMPARE(c.sliding_window, std::optional<std::int64_t>(4096));
    QCOMPARE(c.kv_heads, 8);
    QCOMPARE(c.max_positions, 32768);
    QVERIFY(!c.qkv_bias && !c.tie_word_embeddings);
    QCOMPARE(parameterCount(c), 7241732096);
}

void TestArchitectureConfig::mixtral() {
    ArchitectureConfig c = parse(kMixtral);
    QCOMPARE(c.architecture, std::string("MixtralForCausalLM"));
    QVERIFY(c.family == ModelFamily::Llama);
    QCOMPARE(c.experts, 8);
    QCOMPARE(c.experts_per_token, 2);
    QCOMPARE(c.router_aux_loss_coef, 0.02);
    QVERIFY(!c.output_router_logits);
    QCOMPARE(c.router_jitter, 0.0);
    QVERIFY(!c.sliding_window);
    QCOMPARE(parameterCount(c), 46702792704); // Mixtral-8x7B's 46.7 B
    const std::vector<ExpectedTensor> tensors = expectedTensors(c);
    QCOMPARE(tensors[6].name, std::string("model.layers.0.post_attention_layernorm.weight"));
    QCOMPARE(tensors[7].name, std::string("model.layers.0.block_sparse_moe.gate.weight"));
    QCOMPARE(tensors[7].shape, (std::vector<std::int64_t>{8, 4096}));
    QCOMPARE(tensors[8].name, std::string("model.layers.0.block_sparse_moe.experts.0.w1.weight"));
    QCOMPARE(tensors[8].shape, (std::vector<std::int64_t>{14336, 4096}));
    QCOMPARE(tensors[9].name, std::string("model.layers.0.block_sparse_moe.experts.0.w2.weight"));
    QCOMPARE(tensors[9].shape, (std::vector<std::int64_t>{4096, 14336}));
    QCOMPARE(tensors[31].name, std::string("model.layers.0.block_sparse_moe.experts.7.w3.weight"));
    QCOMPARE(tensors[32].name, std::string("model.layers.1.input_layernorm.weight"));
    // MixtralConfig's defaults: rope_theta 1e6, rms_norm_eps 1e-5, 8 experts, top-2.
    c = parse(R"({"model_type": "mixtral", "num_hidden_layers": 2, "num_local_experts": 4,
                  "router_jitter_noise": 0.1, "output_router_logits": true})");
    QCOMPARE(c.architecture, std::string("MixtralForCausalLM"));
    QCOMPARE(c.rope_theta, 1e6);
    QCOMPARE(c.norm_eps, 1e-5);
    QCOMPARE(c.kv_heads, 8);
    QCOMPARE(c.experts, 4);
    QCOMPARE(c.experts_per_token, 2);
    QCOMPARE(c.router_aux_loss_coef, 0.001);
    QVERIFY(c.output_router_logits);
    QCOMPARE(c.router_jitter, 0.1);
    // A dense model has no experts whatever keys it carries.
    QCOMPARE(parse(R"({"model_type": "mistral", "num_local_experts": 8})").experts, 0);
}

void TestArchitectureConfig::acceptedVariants() {
    // No architectures: the model_type decides; transformers' defaults fill the rest.
    ArchitectureConfig c = parse(R"({"model_type": "mistral", "num_attention_heads": 8,
                                     "hidden_size": 512, "sliding_window": null})");
    QCOMPARE(c.architecture, std::string("MistralForCausalLM"));
    QCOMPARE(c.kv_heads, 8);
    QCOMPARE(c.intermediate_size, 14336);
    QVERIFY(!c.sliding_window);
    c = parse(R"({"architectures": ["GPT2LMHeadModel"], "n_ctx": 256, "n_inner": null,
                  "activation_function": "gelu_pytorch_tanh", "reorder_and_upcast_attn": true,
                  "tie_word_embeddings": false, "pad_token_id": -1})");
    QCOMPARE(c.model_type, std::string("gpt2"));
    QCOMPARE(c.max_positions, 256);
    QCOMPARE(c.intermediate_size, 3072);
    QCOMPARE(c.activation, std::string("gelu_new"));
    QVERIFY(!c.pad_token_id);
    QCOMPARE(expectedTensors(c).back().name, std::string("lm_head.weight"));
    // transformers' default ids only where the vocabulary has them.
    c = parse(R"({"architectures": ["GPT2LMHeadModel"], "vocab_size": 16})");
    QVERIFY(c.bos_token_ids.empty() && c.eos_token_ids.empty());
    // head_dim given: the projections need not be square (Mistral-Nemo).
    c = parse(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 5120, "head_dim": 128,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_act": "swish",
                  "eos_token_id": [2, 3], "pad_token_id": 11, "dtype": "float16"})");
    QCOMPARE(expectedTensors(c)[2].shape, (std::vector<std::int64_t>{4096, 5120}));
    QCOMPARE(expectedTensors(c)[5].shape, (std::vector<std::int64_t>{5120, 4096}));
    QCOMPARE(c.eos_token_ids, (std::vector<std::int64_t>{2, 3}));
    QCOMPARE(c.pad_token_id, std::optional<std::int64_t>(11));
    QCOMPARE(c.torch_dtype, std::string("float16"));
    // Qwen2's window applies from layer max_window_layers on: all layers, or none.
    c = parse(R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 4,
                  "use_sliding_window": true, "max_window_layers": 0, "sliding_window": 512})");
    QCOMPARE(c.sliding_window, std::optional<std::int64_t>(512));
    c = parse(R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 4,
                  "use_sliding_window": true, "max_window_layers": 4})");
    QVERIFY(!c.sliding_window);
    // Linear scaling with the old "type" key, and transformers 5's rope_parameters.
    c = parse(R"({"architectures": ["LlamaForCausalLM"],
                  "rope_scaling": {"type": "linear", "factor": 4}})");
    QCOMPARE(c.rope_scaling.type, std::string("linear"));
    QCOMPARE(c.rope_scaling.factor, 4.0);
    c = parse(R"({"architectures": ["LlamaForCausalLM"],
                  "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}})");
    QVERIFY(c.rope_scaling.type.empty());
    QCOMPARE(c.rope_theta, 500000.0);
    c = parse(R"({"architectures": ["LlamaForCausalLM", "Other"], "attention_bias": true,
                  "mlp_bias": true, "rope_scaling": {"rope_type": "default"}})");
    QVERIFY(c.qkv_bias && c.o_bias && c.mlp_bias);
    QCOMPARE(expectedTensors(c)[9].name, std::string("model.layers.0.self_attn.o_proj.bias"));
}

void TestArchitectureConfig::badConfigsAreRejected_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    const QString llama = R"({"architectures": ["LlamaForCausalLM"], %1})";
    const QString gpt2 = R"({"architectures": ["GPT2LMHeadModel"], %1})";
    const QString mixtral = R"({"architectures": ["MixtralForCausalLM"], %1})";
    const QString supported = "supported: GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM, "
                              "MistralForCausalLM, MixtralForCausalLM";
    QTest::newRow("malformed") << "{\n  \"model_type\": \"llama\",,\n}"
                               << "malformed JSON: parse error at line 2, column 25";
    QTest::newRow("not an object") << "[1]"
                                   << "the top level is an array";
    QTest::newRow("bert") << R"({"architectures": ["BertForMaskedLM"], "model_type": "bert"})"
                          << "architectures names \"BertForMaskedLM\", which is not supported; " +
                                 supported;
    QTest::newRow("qwen2 moe") << R"({"architectures": ["Qwen2MoeForCausalLM"]})"
                               << "\"Qwen2MoeForCausalLM\", which is not supported; " + supported;
    QTest::newRow("mixtral top-k above experts")
        << mixtral.arg(R"("num_local_experts": 4, "num_experts_per_tok": 5)")
        << "num_experts_per_tok is 5, expected at most num_local_experts 4";
    QTest::newRow("mixtral default top-k above experts")
        << mixtral.arg(R"("num_local_experts": 1)") << "num_experts_per_tok is 2 (the default)";
    QTest::newRow("mixtral no experts")
        << mixtral.arg(R"("num_local_experts": 0)") << "num_local_experts is 0";
    QTest::newRow("mixtral experts as text")
        << mixtral.arg(R"("num_local_experts": "8")") << "num_local_experts is \"8\"";
    QTest::newRow("mixtral too many experts")
        << mixtral.arg(R"("num_local_experts": 1024)") << "num_local_experts is 1024";
    QTest::newRow("mixtral negative coefficient")
        << mixtral.arg(R"("router_aux_loss_coef": -0.5)") << "router_aux_loss_coef is -0.5";
    QTest::newRow("mixtral jitter 1")
        << mixtral.arg(R"("router_jitter_noise": 1.0)") << "router_jitter_noise is 1";
    QTest::newRow("mixtral router logits as text")
        << mixtral.arg(R"("output_router_logits": "yes")") << "output_router_logits is \"yes\"";
    QTest::newRow("mixtral as mistral") << mixtral.arg(R"("model_type": "mistral")")
                                        << "model_type \"mistral\" does not fit architectures "
                                           "\"MixtralForCausalLM\"";
    QTest::newRow("model_type only") << R"({"model_type": "t5"})"
                                     << "model_type is \"t5\", which is not supported";
    QTest::newRow("neither") << R"({"hidden_size": 64})"
                             << "names neither architectures nor model_type; " + supported;
    QTest::newRow("mismatch") << llama.arg(R"("model_type": "gpt2")")
                              << "model_type \"gpt2\" does not fit architectures "
                                 "\"LlamaForCausalLM\"";
    QTest::newRow("GPTQ quantized") << llama.arg(R"("quantization_config": {"bits": 4,
                                                       "quant_method": "gptq"})")
                                    << "quantization_config: this model was quantized by another "
                                       "tool (quant_method \"gptq\"); Headroom imports F32, F16 "
                                       "or BF16 weights";
    QTest::newRow("architectures string") << R"({"architectures": "LlamaForCausalLM"})"
                                          << "architectures is \"LlamaForCausalLM\", expected a "
                                             "list";
    QTest::newRow("size as string") << llama.arg(R"("hidden_size": "2048")")
                                    << "hidden_size is \"2048\", expected an integer from 1 to "
                                       "65536";
    QTest::newRow("size as float") << llama.arg(R"("num_hidden_layers": 2.0)")
                                   << "num_hidden_layers is 2, expected an integer";
    QTest::newRow("negative vocab") << llama.arg(R"("vocab_size": -5)")
                                    << "vocab_size is -5, expected an integer from 1 to 4194304";
    QTest::newRow("huge vocab") << llama.arg(R"("vocab_size": 5000000)") << "vocab_size is 5000000";
    QTest::newRow("u64 max") << llama.arg(R"("intermediate_size": 18446744073709551615)")
                             << "intermediate_size is 18446744073709551615, expected";
    QTest::newRow("too many layers") << llama.arg(R"("num_hidden_layers": 2000)")
                                     << "num_hidden_layers is 2000, expected an integer from 1 "
                                        "to 1024";
    QTest::newRow("too wide") << llama.arg(R"("hidden_size": 131072)") << "hidden_size is 131072";
    QTest::newRow("zero heads") << llama.arg(R"("num_attention_heads": 0)")
                                << "num_attention_heads is 0";
    QTest::newRow("heads not dividing hidden")
        << llama.arg(R"("hidden_size": 64, "num_attention_heads": 3, "num_key_value_heads": 1)")
        << "num_attention_heads is 3, expected a divisor of hidden_size 64 when head_dim is not "
           "given";
    QTest::newRow("kv not dividing heads")
        << llama.arg(R"("hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 3)")
        << "num_key_value_heads is 3, expected a divisor of num_attention_heads 4";
    QTest::newRow("more kv than heads")
        << llama.arg(R"("hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 8)")
        << "num_key_value_heads is 8, expected an integer from 1 to 4";
    QTest::newRow("odd head size")
        << llama.arg(R"("hidden_size": 60, "num_attention_heads": 4)") << "the head size 15";
    QTest::newRow("gelu llama") << llama.arg(R"("hidden_act": "gelu")")
                                << "hidden_act is \"gelu\", expected \"silu\"";
    QTest::newRow("yarn") << llama.arg(R"("rope_scaling": {"rope_type": "yarn", "factor": 4})")
                          << "rope_scaling.rope_type is \"yarn\", expected default, linear or "
                             "llama3";
    QTest::newRow("dynamic") << llama.arg(R"("rope_scaling": {"type": "dynamic", "factor": 2})")
                             << "rope_scaling.type is \"dynamic\"";
    QTest::newRow("llama3 incomplete")
        << llama.arg(R"("rope_scaling": {"rope_type": "llama3", "factor": 8,
                         "high_freq_factor": 4, "original_max_position_embeddings": 8192})")
        << "rope_scaling.low_freq_factor is missing; rope_type llama3 needs it";
    QTest::newRow("linear without factor")
        << llama.arg(R"("rope_scaling": {"type": "linear"})") << "rope_scaling.factor is missing";
    QTest::newRow("rope_scaling string") << llama.arg(R"("rope_scaling": "linear")")
                                         << "rope_scaling is \"linear\", expected null or an "
                                            "object";
    QTest::newRow("rope_theta zero") << llama.arg(R"("rope_theta": 0)") << "rope_theta is 0";
    QTest::newRow("eps as string")
        << llama.arg(R"("rms_norm_eps": "1e-5")") << "rms_norm_eps is \"1e-5\", expected a number";
    QTest::newRow("tie as string") << llama.arg(R"("tie_word_embeddings": "yes")")
                                   << "tie_word_embeddings is \"yes\", expected true or false";
    QTest::newRow("dropout 1.5") << llama.arg(R"("attention_dropout": 1.5)")
                                 << "attention_dropout is 1.5, expected a number from 0 to 0.99";
    QTest::newRow("eos outside vocab") << llama.arg(R"("vocab_size": 100, "eos_token_id": 100)")
                                       << "eos_token_id is 100, expected a token id from 0 to 99";
    QTest::newRow("eos list with text") << llama.arg(R"("eos_token_id": [2, "</s>"])")
                                        << "eos_token_id holds \"</s>\", expected a token id";
    QTest::newRow("pad as text") << llama.arg(R"("pad_token_id": "0")")
                                 << "pad_token_id is \"0\", expected an integer or null";
    QTest::newRow("qwen2 mixed window")
        << R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 24,
               "use_sliding_window": true, "max_window_layers": 21})"
        << "max_window_layers is 21, expected 0 or at least num_hidden_layers 24";
    QTest::newRow("gpt2 relu") << gpt2.arg(R"("activation_function": "relu")")
                               << "activation_function is \"relu\", expected \"gelu_new\"";
    QTest::newRow("gpt2 layer scaling") << gpt2.arg(R"("scale_attn_by_inverse_layer_idx": true)")
                                        << "scale_attn_by_inverse_layer_idx is true, expected "
                                           "false";
    QTest::newRow("gpt2 unscaled") << gpt2.arg(R"("scale_attn_weights": false)")
                                   << "scale_attn_weights is false, expected true";
    QTest::newRow("gpt2 heads") << gpt2.arg(R"("n_head": 5)")
                                << "n_head is 5, expected a divisor of n_embd 768";
    QTest::newRow("gpt2 default heads") << gpt2.arg(R"("n_embd": 100)")
                                        << "n_head is 12 (the default), expected a divisor of "
                                           "n_embd 100";
    QTest::newRow("qwen2 default window layers")
        << R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 32,
               "use_sliding_window": true})"
        << "max_window_layers is 28 (the default), expected 0 or at least num_hidden_layers 32";
    QTest::newRow("mistral default kv")
        << R"({"architectures": ["MistralForCausalLM"], "num_attention_heads": 12,
               "hidden_size": 768})"
        << "num_key_value_heads is 8 (the default), expected a divisor of num_attention_heads 12";
    QTest::newRow("rope_theta null, rope_parameters bad")
        << llama.arg(R"("rope_theta": null, "rope_parameters": {"rope_theta": "big"})")
        << "rope_parameters.rope_theta is \"big\", expected a number from 1 to 1e+12";
    QTest::newRow("gpt2 n_inner") << gpt2.arg(R"("n_inner": "3072")") << "n_inner is \"3072\"";
    QTest::newRow("gpt2 positions") << gpt2.arg(R"("n_positions": 0)") << "n_positions is 0";
}

void TestArchitectureConfig::badConfigsAreRejected() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    const std::string message = errorOf([&] { parse(json.toStdString()); });
    QVERIFY_CONTAINS(message, kSource + ": ");
    QVERIFY_CONTAINS(message, expected.toStdString());
}

void TestArchitectureConfig::configFileErrors() {
    QTemporaryDir dir;
    const fs::path path = fs::path(dir.path().toStdString()) / "config.json";
    QVERIFY_CONTAINS(errorOf([&] { readArchitectureConfig(path.string()); }), path.string());
    writeText(path, std::string("{\"model_type\": \"llama\xff\"}"));
    QVERIFY_CONTAINS(errorOf([&] { readArchitectureConfig(path.string()); }),
                     path.string() + ": not UTF-8 text (byte 21)");
    writeText(path, kTinyLlama);
    QCOMPARE(readArchitectureConfig(path.string()).layers, 22);
}

void TestArchitectureConfig::canonicalNames() {
    const ArchitectureConfig gpt2 = parse(kGpt2);
    QCOMPARE(canonicalTensorName(gpt2, "h.0.attn.c_attn.weight"),
             std::optional<std::string>("transformer.h.0.attn.c_attn.weight"));
    QCOMPARE(canonicalTensorName(gpt2, "wte.weight"),
             std::optional<std::string>("transformer.wte.weight"));
    QCOMPARE(canonicalTensorName(gpt2, "transformer.ln_f.bias"),
             std::optional<std::string>("transformer.ln_f.bias"));
    QCOMPARE(canonicalTensorName(gpt2, "h.3.attn.c_attn.bias"),
             std::optional<std::string>("transformer.h.3.attn.c_attn.bias"));
    QVERIFY(!canonicalTensorName(gpt2, "h.0.attn.bias"));
    QVERIFY(!canonicalTensorName(gpt2, "transformer.h.11.attn.masked_bias"));
    QCOMPARE(canonicalTensorName(gpt2, "lm_head.weight"),
             std::optional<std::string>("lm_head.weight"));

    const ArchitectureConfig llama = parse(kTinyLlama);
    QCOMPARE(canonicalTensorName(llama, "model.norm.weight"),
             std::optional<std::string>("model.norm.weight"));
    QCOMPARE(canonicalTensorName(llama, "layers.1.mlp.up_proj.weight"),
             std::optional<std::string>("model.layers.1.mlp.up_proj.weight"));
    QVERIFY(!canonicalTensorName(llama, "model.layers.0.self_attn.rotary_emb.inv_freq"));
}

QTEST_GUILESS_MAIN(TestArchitectureConfig)
#include "test_architecture_config.moc"
