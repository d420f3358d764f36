#pragma once

// Tiny Hugging Face model folders for the desktop's pretrained-model tests: config.json,
// generation_config.json, tokenizer files (the byte-level BPE fixture, 345 ids) and small
// pseudo-random F32 weights in model.safetensors. A few hundred kilobytes; generated text is
// gibberish, which is all a UI test needs.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace test_support {

struct TinyTensor {
    QString name;
    std::vector<std::int64_t> shape;
    float fill = 0; // 0: pseudo-random; else every element (norm weights)
};

inline QByteArray safetensorsBytes(const std::vector<TinyTensor> &tensors) {
    QJsonObject header;
    QByteArray data;
    std::uint32_t state = 12345;
    for (const TinyTensor &tensor : tensors) {
        std::int64_t count = 1;
        QJsonArray shape;
        for (const std::int64_t size : tensor.shape) {
            count *= size;
            shape.append(qint64(size));
        }
        const qint64 begin = data.size();
        for (std::int64_t i = 0; i < count; ++i) {
            state = state * 1664525u + 1013904223u;
            const float value =
                tensor.fill != 0 ? tensor.fill : (float(state >> 8) / float(1 << 24) - 0.5f) * 0.2f;
            char bytes[4];
            std::memcpy(bytes, &value, 4);
            data.append(bytes, 4);
        }
        header.insert(tensor.name, QJsonObject{{"dtype", "F32"},
                                               {"shape", shape},
                                               {"data_offsets", QJsonArray{begin, data.size()}}});
    }
    header.insert("__metadata__", QJsonObject{{"format", "pt"}});
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0) {
        json.append(' ');
    }
    QByteArray bytes(8, '\0');
    const std::uint64_t size = std::uint64_t(json.size());
    for (int i = 0; i < 8; ++i) {
        bytes[i] = char((size >> (8 * i)) & 0xff);
    }
    return bytes + json + data;
}

inline bool writeBytes(const QString &path, const QByteArray &bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

// "gpt2" (GPT2LMHeadModel, 1 layer, width 16) or "llama" (LlamaForCausalLM, 1 layer, width 16,
// 2 heads, 1 key/value head, untied). Returns the folder, empty when it could not be written.
inline QString writeTinyHfModel(const QString &folder, const QString &kind) {
    constexpr std::int64_t vocab = 345, dim = 16, positions = 512;
    if (!QDir().mkpath(folder)) {
        return {};
    }
    const QDir dir(folder);
    std::vector<TinyTensor> tensors;
    QJsonObject config;
    if (kind == QLatin1String("gpt2")) {
        config = QJsonObject{{"architectures", QJsonArray{"GPT2LMHeadModel"}},
                             {"model_type", "gpt2"},
                             {"vocab_size", qint64(vocab)},
                             {"n_embd", qint64(dim)},
                             {"n_head", 2},
                             {"n_layer", 1},
                             {"n_positions", qint64(positions)},
                             {"bos_token_id", 340},
                             {"eos_token_id", 340},
                             {"tie_word_embeddings", true},
                             {"torch_dtype", "float32"}};
        tensors = {{"transformer.wte.weight", {vocab, dim}},
                   {"transformer.wpe.weight", {positions, dim}},
                   {"transformer.h.0.ln_1.weight", {dim}, 1.0f},
                   {"transformer.h.0.ln_1.bias", {dim}},
                   {"transformer.h.0.attn.c_attn.weight", {dim, 3 * dim}},
                   {"transformer.h.0.attn.c_attn.bias", {3 * dim}},
                   {"transformer.h.0.attn.c_proj.weight", {dim, dim}},
                   {"transformer.h.0.attn.c_proj.bias", {dim}},
                   {"transformer.h.0.ln_2.weight", {dim}, 1.0f},
                   {"transformer.h.0.ln_2.bias", {dim}},
                   {"transformer.h.0.mlp.c_fc.weight", {dim, 4 * dim}},
                   {"transformer.h.0.mlp.c_fc.bias", {4 * dim}},
                   {"transformer.h.0.mlp.c_proj.weight", {4 * dim, dim}},
                   {"transformer.h.0.mlp.c_proj.bias", {dim}},
                   {"transformer.ln_f.weight", {dim}, 1.0f},
                   {"transformer.ln_f.bias", {dim}}};
    } else {
        constexpr std::int64_t head_dim = 8, inner = 32;
        config = QJsonObject{{"architectures", QJsonArray{"LlamaForCausalLM"}},
                             {"model_type", "llama"},
                             {"vocab_size", qint64(vocab)},
                             {"hidden_size", qint64(dim)},
                             {"intermediate_size", qint64(inner)},
                             {"num_hidden_layers", 1},
                             {"num_attention_heads", 2},
                             {"num_key_value_heads", 1},
                             {"max_position_embeddings", qint64(positions)},
                             {"rms_norm_eps", 1e-5},
                             {"bos_token_id", 343},
                             {"eos_token_id", 340},
                             {"tie_word_embeddings", false},
                             {"torch_dtype", "float32"}};
        const QString layer = QStringLiteral("model.layers.0.");
        tensors = {{"model.embed_tokens.weight", {vocab, dim}},
                   {layer + "input_layernorm.weight", {dim}, 1.0f},
                   {layer + "self_attn.q_proj.weight", {2 * head_dim, dim}},
                   {layer + "self_attn.k_proj.weight", {head_dim, dim}},
                   {layer + "self_attn.v_proj.weight", {head_dim, dim}},
                   {layer + "self_attn.o_proj.weight", {dim, 2 * head_dim}},
                   {layer + "post_attention_layernorm.weight", {dim}, 1.0f},
                   {layer + "mlp.gate_proj.weight", {inner, dim}},
                   {layer + "mlp.up_proj.weight", {inner, dim}},
                   {layer + "mlp.down_proj.weight", {dim, inner}},
                   {"model.norm.weight", {dim}, 1.0f},
                   {"lm_head.weight", {vocab, dim}}};
    }
    const QJsonObject generation{{"bos_token_id", config.value("bos_token_id")},
                                 {"eos_token_id", config.value("eos_token_id")}};
    const QJsonObject tokenizer_config{{"bos_token", "<sep>"},
                                       {"eos_token", "<sep>"},
                                       {"add_bos_token", false},
                                       {"add_eos_token", false},
                                       {"model_max_length", qint64(positions)}};
    QFile tokenizer(QStringLiteral(HEADROOM_SOURCE_DIR) +
                    QStringLiteral("/tests/data/tokenizers/bpe_byte_level/tokenizer.json"));
    if (!tokenizer.open(QIODevice::ReadOnly)) {
        return {};
    }
    const bool written =
        writeBytes(dir.filePath("config.json"), QJsonDocument(config).toJson()) &&
        writeBytes(dir.filePath("generation_config.json"), QJsonDocument(generation).toJson()) &&
        writeBytes(dir.filePath("tokenizer_config.json"),
                   QJsonDocument(tokenizer_config).toJson()) &&
        writeBytes(dir.filePath("tokenizer.json"), tokenizer.readAll()) &&
        writeBytes(dir.filePath("model.safetensors"), safetensorsBytes(tensors));
    return written ? folder : QString();
}

} // namespace test_support
