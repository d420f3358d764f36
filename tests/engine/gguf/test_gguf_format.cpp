#include "gguf/gguf_architecture.h"
#include "gguf/gguf_quant_mix.h"
#include "gguf/gguf_quantize.h"
#include "gguf/gguf_tokenizer.h"
#include "gguf/gguf_writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

using namespace headroom::gguf;

// The Torch-free GGUF pieces: half and bfloat16 rounding, the block formats (round trips within
// their error bounds, the bytes of a q8_0 block), the bytes of a file's header, the writer's
// refusals, the per-tensor types of the quant mixes, and the tokenizer and architecture keys.
class TestGgufFormat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void halfRoundsToNearestEven();
    void bfloat16RoundsToNearestEven();
    void q8_0BlockBytes();
    void roundTripWithinBounds_data();
    void roundTripWithinBounds();
    void constantAndZeroBlocks_data();
    void constantAndZeroBlocks();
    void headerBytes();
    void writerRefusesBadPlans();
    void quantMixPerTensor();
    void preTokenizerNames();
    void vocabularyFromTokenizerJson();
    void hyperParametersHaveLlamaCppTypes();
    void tensorNames();
};

namespace {

std::vector<float> gaussian(std::size_t count, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(0.f, 0.05f);
    std::vector<float> values(count);
    for (float &value : values) {
        value = normal(generator);
    }
    return values;
}

double relativeRmsError(const std::vector<float> &got, const std::vector<float> &want) {
    double error = 0, norm = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        error += (got[i] - want[i]) * static_cast<double>(got[i] - want[i]);
        norm += want[i] * static_cast<double>(want[i]);
    }
    return std::sqrt(error / norm);
}

QByteArray fileBytes(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void appendLittle(QByteArray &out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.append(static_cast<char>((value >> (8 * i)) & 0xff));
    }
}

} // namespace

void TestGgufFormat::halfRoundsToNearestEven() {
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto half = static_cast<std::uint16_t>(bits);
        if ((half & 0x7C00) == 0x7C00 && (half & 0x3FF) != 0) {
            continue; // NaN
        }
        QCOMPARE(floatToHalf(halfToFloat(half)), half);
    }
    QCOMPARE(floatToHalf(1.f + std::ldexp(1.f, -11)), std::uint16_t(0x3C00)); // tie: even
    QCOMPARE(floatToHalf(1.f + 3 * std::ldexp(1.f, -11)), std::uint16_t(0x3C02));
    QCOMPARE(floatToHalf(65519.f), std::uint16_t(0x7BFF));
    QCOMPARE(floatToHalf(65520.f), std::uint16_t(0x7C00)); // rounds up to infinity
    QCOMPARE(floatToHalf(-std::ldexp(1.f, -24)), std::uint16_t(0x8001));
    QCOMPARE(floatToHalf(std::ldexp(1.f, -25)), std::uint16_t(0x0000)); // tie: even
    QCOMPARE(floatToHalf(1.5f * std::ldexp(1.f, -25)), std::uint16_t(0x0001));
    QCOMPARE(floatToHalf(NAN) & 0x7C00, 0x7C00);
    QVERIFY((floatToHalf(NAN) & 0x3FF) != 0);
}

void TestGgufFormat::bfloat16RoundsToNearestEven() {
    QCOMPARE(floatToBfloat16(1.f), std::uint16_t(0x3F80));
    QCOMPARE(floatToBfloat16(1.f + std::ldexp(1.f, -8)), std::uint16_t(0x3F80));
    QCOMPARE(floatToBfloat16(1.f + 3 * std::ldexp(1.f, -8)), std::uint16_t(0x3F82));
    QCOMPARE(bfloat16ToFloat(0xC040), -3.f);
    QVERIFY(std::isnan(bfloat16ToFloat(floatToBfloat16(NAN))));
}

// ggml-common.h: block_q8_0 is an f16 scale amax/127 and 32 int8 codes round(x / scale).
void TestGgufFormat::q8_0BlockBytes() {
    std::vector<float> x(32);
    for (int j = 0; j < 32; ++j) {
        x[j] = static_cast<float>(j - 16) / 4.f; // -4 .. 3.75
    }
    const std::vector<std::uint8_t> bytes = quantizeRows(x.data(), 1, 32, TensorType::Q8_0);
    QCOMPARE(bytes.size(), std::size_t(34));
    const std::uint16_t scale = floatToHalf(4.f / 127.f);
    QCOMPARE(bytes[0] | (bytes[1] << 8), int(scale));
    for (int j = 0; j < 32; ++j) {
        const int code = static_cast<int>(std::lround(x[j] * 127.f / 4.f));
        QCOMPARE(static_cast<int>(static_cast<std::int8_t>(bytes[2 + j])), code);
    }
    const std::vector<float> y = dequantizeRows(bytes.data(), 1, 32, TensorType::Q8_0);
    const float d = halfToFloat(scale);
    for (int j = 0; j < 32; ++j) {
        QVERIFY(std::fabs(y[j] - x[j]) <= 0.5f * d + 4.f * 1e-3f);
    }
}

void TestGgufFormat::roundTripWithinBounds_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("bound");
    QTest::addColumn<int>("bytesPerBlock");
    // Gaussian values: each bit of code halves the error.
    QTest::newRow("f16") << int(TensorType::F16) << 1e-3 << 2;
    QTest::newRow("bf16") << int(TensorType::BF16) << 5e-3 << 2;
    QTest::newRow("q8_0") << int(TensorType::Q8_0) << 0.01 << 34;
    QTest::newRow("q6_K") << int(TensorType::Q6_K) << 0.025 << 210;
    QTest::newRow("q5_K") << int(TensorType::Q5_K) << 0.045 << 176;
    QTest::newRow("q5_0") << int(TensorType::Q5_0) << 0.06 << 22;
    QTest::newRow("q5_1") << int(TensorType::Q5_1) << 0.06 << 24;
    QTest::newRow("q4_K") << int(TensorType::Q4_K) << 0.09 << 144;
    QTest::newRow("q4_0") << int(TensorType::Q4_0) << 0.12 << 18;
}

void TestGgufFormat::roundTripWithinBounds() {
    QFETCH(int, type);
    QFETCH(double, bound);
    QFETCH(int, bytesPerBlock);
    const auto tensor_type = static_cast<TensorType>(type);
    QCOMPARE(blockBytes(tensor_type), std::int64_t(bytesPerBlock));
    const std::int64_t rows = 8, row = 512;
    const std::vector<float> x = gaussian(static_cast<std::size_t>(rows * row), 7);
    const std::vector<std::uint8_t> bytes = quantizeRows(x.data(), rows, row, tensor_type);
    QCOMPARE(bytes.size(), static_cast<std::size_t>(rows * rowBytes(tensor_type, row)));
    const std::vector<float> y = dequantizeRows(bytes.data(), rows, row, tensor_type);
    const double error = relativeRmsError(y, x);
    QVERIFY2(error < bound, qPrintable(QString::number(error)));
    QVERIFY(error > 0);
}

void TestGgufFormat::constantAndZeroBlocks_data() {
    QTest::addColumn<int>("type");
    for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0, TensorType::Q5_1,
                            TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
        QTest::newRow(tensorTypeName(type).c_str()) << int(type);
    }
}

void TestGgufFormat::constantAndZeroBlocks() {
    QFETCH(int, type);
    const auto tensor_type = static_cast<TensorType>(type);
    for (float value : {0.f, 0.25f, -0.75f}) {
        const std::vector<float> x(256, value);
        const std::vector<std::uint8_t> bytes = quantizeRows(x.data(), 1, 256, tensor_type);
        const std::vector<float> y = dequantizeRows(bytes.data(), 1, 256, tensor_type);
        for (float got : y) {
            QVERIFY2(std::fabs(got - value) <= 2e-3f * std::fabs(value) + 1e-7f,
                     qPrintable(QString("%1 for %2").arg(got).arg(value)));
        }
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             quantizeRows(std::vector<float>(48).data(), 1, 48, tensor_type));
}

// GGUF v3: magic, version, tensor and key counts, the key/values, the tensor infos (dims
// innermost first, type, offset in the data section), padding to the alignment, the data.
void TestGgufFormat::headerBytes() {
    QTemporaryDir dir;
    const QString path = dir.filePath("tiny.gguf");
    Metadata metadata;
    metadata.setU32("a.n", 7);
    metadata.setStrings("b", {"x", "yz"});
    metadata.setU32("a.n", 9); // keeps its place
    const std::vector<TensorPlan> plan = {{"t", {2, 1}, TensorType::F32},
                                          {"u", {32}, TensorType::Q8_0}};
    FileWriter writer(path.toStdString(), metadata, plan);
    const float t[2] = {1.f, -2.f};
    writer.writeNextTensor(t, sizeof t);
    std::vector<float> u(32, 0.5f);
    const std::vector<std::uint8_t> q = quantizeRows(u.data(), 1, 32, TensorType::Q8_0);
    writer.writeNextTensor(q.data(), q.size());
    writer.finish();

    QByteArray want("GGUF");
    appendLittle(want, 3, 4);
    appendLittle(want, 2, 8); // tensors
    appendLittle(want, 2, 8); // key/values
    appendLittle(want, 3, 8);
    want += "a.n";
    appendLittle(want, 4, 4); // u32
    appendLittle(want, 9, 4);
    appendLittle(want, 1, 8);
    want += "b";
    appendLittle(want, 9, 4); // array
    appendLittle(want, 8, 4); // of strings
    appendLittle(want, 2, 8);
    appendLittle(want, 1, 8);
    want += "x";
    appendLittle(want, 2, 8);
    want += "yz";
    appendLittle(want, 1, 8);
    want += "t";
    appendLittle(want, 2, 4);
    appendLittle(want, 2, 8);
    appendLittle(want, 1, 8);
    appendLittle(want, 0, 4); // f32
    appendLittle(want, 0, 8);
    appendLittle(want, 1, 8);
    want += "u";
    appendLittle(want, 1, 4);
    appendLittle(want, 32, 8);
    appendLittle(want, 8, 4);  // q8_0
    appendLittle(want, 32, 8); // 8 bytes of t, padded to 32
    want.append(QByteArray((32 - want.size() % 32) % 32, '\0'));
    want.append(reinterpret_cast<const char *>(t), sizeof t);
    want.append(QByteArray(24, '\0'));
    want.append(reinterpret_cast<const char *>(q.data()), static_cast<int>(q.size()));
    want.append(QByteArray((32 - want.size() % 32) % 32, '\0'));

    const QByteArray got = fileBytes(path);
    QCOMPARE(got.toHex(), want.toHex());
    QCOMPARE(writer.fileBytes(), static_cast<std::uint64_t>(want.size()));
    QCOMPARE(plannedFileBytes(metadata, plan), static_cast<std::uint64_t>(want.size()));
    QVERIFY(!QFile::exists(path + ".partial"));
}

void TestGgufFormat::writerRefusesBadPlans() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.gguf").toStdString();
    const Metadata metadata;
    QVERIFY_THROWS_EXCEPTION(GgufError,
                             FileWriter(path, metadata, {{"t", {2}, TensorType::F32}, {"t", {2}}}));
    QVERIFY_THROWS_EXCEPTION(GgufError,
                             FileWriter(path, metadata, {{"t", {48}, TensorType::Q8_0}}));
    QVERIFY_THROWS_EXCEPTION(GgufError, FileWriter(path, metadata, {{"t", {0}, TensorType::F32}}));
    {
        FileWriter writer(path, metadata, {{"t", {4}, TensorType::F32}});
        const float values[4] = {};
        QVERIFY_THROWS_EXCEPTION(GgufError, writer.writeNextTensor(values, 8));
        QVERIFY_THROWS_EXCEPTION(GgufError, writer.finish());
    } // abandoned: nothing is left behind
    QVERIFY(!QFile::exists(dir.filePath("bad.gguf")));
    QVERIFY(!QFile::exists(dir.filePath("bad.gguf.partial")));
}

// llama-quantize's choices (llama-quant.cpp): 1-D tensors and norms f32, the output q6_K,
// attn_v and ffn_down of the first and last eighth and every third layer q6_K in the _m
// mixes, and the fallbacks for rows that do not split into 256.
void TestGgufFormat::quantMixPerTensor() {
    const ModelShape shape{16, 0, true};
    const auto type = [&](ExportQuant quant, const std::string &name,
                          std::vector<std::int64_t> dims) {
        return tensorTypeFor(quant, name, dims, shape);
    };
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.0.attn_norm.weight", {512}), TensorType::F32);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.0.attn_q.bias", {512}), TensorType::F32);
    QCOMPARE(type(ExportQuant::Q4_K_M, "output.weight", {512, 1000}), TensorType::Q6_K);
    QCOMPARE(type(ExportQuant::Q8_0, "output.weight", {512, 1000}), TensorType::Q8_0);
    QCOMPARE(type(ExportQuant::Q4_K_M, "token_embd.weight", {512, 1000}), TensorType::Q4_K);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.0.attn_v.weight", {512, 512}), TensorType::Q6_K);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.3.attn_v.weight", {512, 512}), TensorType::Q4_K);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.4.ffn_down.weight", {512, 512}), TensorType::Q6_K);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.15.ffn_down.weight", {512, 512}), TensorType::Q6_K);
    QCOMPARE(type(ExportQuant::Q5_K_M, "blk.5.attn_q.weight", {512, 512}), TensorType::Q5_K);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.5.attn_q.weight", {96, 512}), TensorType::Q5_0);
    QCOMPARE(type(ExportQuant::Q5_K_M, "blk.5.attn_q.weight", {96, 512}), TensorType::Q5_1);
    QCOMPARE(type(ExportQuant::Q6_K, "blk.5.attn_q.weight", {96, 512}), TensorType::Q8_0);
    QCOMPARE(type(ExportQuant::Q4_K_M, "blk.5.attn_q.weight", {40, 512}), TensorType::F16);
    QCOMPARE(type(ExportQuant::F16, "blk.5.attn_q.weight", {40, 512}), TensorType::F16);
    QCOMPARE(type(ExportQuant::F32, "blk.5.attn_q.weight", {40, 512}), TensorType::F32);
    QCOMPARE(tensorTypeFor(ExportQuant::Q4_K_M, "token_embd.weight", {512, 1000},
                           ModelShape{16, 0, false}),
             TensorType::Q6_K); // tied: the embedding is the output
    QCOMPARE(parseExportQuant("Q4_K_M"), ExportQuant::Q4_K_M);
    QVERIFY_THROWS_EXCEPTION(GgufError, parseExportQuant("q3_k"));
}

void TestGgufFormat::preTokenizerNames() {
    QCOMPARE(
        preTokenizerName(
            R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})",
            "t"),
        std::string("gpt-2"));
    const std::string split =
        R"({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N})";
    const std::string rest =
        R"(| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]})";
    QCOMPARE(preTokenizerName(split + "{1,3}" + rest, "t"), std::string("llama-bpe"));
    QCOMPARE(preTokenizerName(split + rest, "t"), std::string("qwen2"));
    try {
        preTokenizerName(split + "{1,4}" + rest, "tok.json");
        QFAIL("an unknown regex was accepted");
    } catch (const GgufError &error) {
        QVERIFY2(QString(error.what()).contains("tok.json: llama.cpp has no pre-tokenizer name"),
                 error.what());
    }
    QVERIFY_THROWS_EXCEPTION(
        GgufError, preTokenizerName(R"({"type":"ByteLevel","add_prefix_space":true})", "t"));
    QVERIFY_THROWS_EXCEPTION(GgufError,
                             preTokenizerName(R"({"type":"Metaspace","replacement":"_"})", "t"));
}

void TestGgufFormat::vocabularyFromTokenizerJson() {
    const std::string json = R"({
      "added_tokens": [{"id": 3, "content": "<s>", "special": true},
                       {"id": 4, "content": "hi there", "special": false}],
      "normalizer": null,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
      "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [3], "tokens": ["<s>"]}}},
      "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}})";
    const Vocabulary vocabulary = headroom::gguf::vocabularyFromTokenizerJson(json, "t", 6);
    QCOMPARE(vocabulary.tokens,
             (std::vector<std::string>{"a", "b", "ab", "<s>", "hi there", "[PAD5]"}));
    QCOMPARE(vocabulary.token_types, (std::vector<std::int32_t>{1, 1, 1, 3, 4, 5}));
    QCOMPARE(vocabulary.merges, std::vector<std::string>{"a b"});
    QVERIFY(vocabulary.add_bos);
    QCOMPARE(vocabulary.bos.value_or(-1), std::int64_t(3));
    QVERIFY(!vocabulary.add_eos);
    QVERIFY_THROWS_EXCEPTION(GgufError, headroom::gguf::vocabularyFromTokenizerJson(json, "t", 4));
    Metadata metadata;
    addVocabulary(vocabulary, metadata);
    QVERIFY(std::holds_alternative<std::uint32_t>(*metadata.find("tokenizer.ggml.bos_token_id")));
    QVERIFY(std::holds_alternative<bool>(*metadata.find("tokenizer.ggml.add_bos_token")));
    QVERIFY(std::holds_alternative<std::vector<std::int32_t>>(
        *metadata.find("tokenizer.ggml.token_type")));
    QCOMPARE(std::get<std::string>(*metadata.find("tokenizer.ggml.pre")), std::string("gpt-2"));
}

// llama.cpp refuses an i32 where it reads a u32: counts u32, epsilons and RoPE values f32.
void TestGgufFormat::hyperParametersHaveLlamaCppTypes() {
    headroom::hf::ArchitectureConfig config;
    config.architecture = "LlamaForCausalLM";
    config.model_type = "llama";
    config.vocab_size = 100;
    config.hidden_size = 64;
    config.layers = 2;
    config.heads = 4;
    config.kv_heads = 2;
    config.head_dim = 16;
    config.intermediate_size = 128;
    config.max_positions = 256;
    config.rope_scaling.type = "linear";
    config.rope_scaling.factor = 2.0;
    Metadata metadata;
    addHyperParameters(config, metadata);
    QCOMPARE(std::get<std::string>(*metadata.find("general.architecture")), std::string("llama"));
    for (const char *key :
         {"llama.context_length", "llama.embedding_length", "llama.feed_forward_length",
          "llama.block_count", "llama.attention.head_count", "llama.attention.head_count_kv",
          "llama.rope.dimension_count"}) {
        QVERIFY2(std::holds_alternative<std::uint32_t>(*metadata.find(key)), key);
    }
    QCOMPARE(std::get<std::uint32_t>(*metadata.find("llama.attention.head_count_kv")), 2u);
    for (const char *key : {"llama.attention.layer_norm_rms_epsilon", "llama.rope.freq_base",
                            "llama.rope.scaling.factor"}) {
        QVERIFY2(std::holds_alternative<float>(*metadata.find(key)), key);
    }
    config.model_type = "phi3";
    QVERIFY_THROWS_EXCEPTION(GgufError, addHyperParameters(config, metadata));
}

void TestGgufFormat::tensorNames() {
    headroom::hf::ArchitectureConfig llama;
    llama.architecture = "LlamaForCausalLM";
    llama.model_type = "llama";
    const GgufTensorName q = ggufTensorName(llama, "model.layers.3.self_attn.q_proj.weight");
    QCOMPARE(q.name, std::string("blk.3.attn_q.weight"));
    QVERIFY(q.transform == TensorTransform::PermuteQueryHeads);
    QVERIFY(ggufTensorName(llama, "model.layers.0.self_attn.k_proj.weight").transform ==
            TensorTransform::PermuteKeyHeads);
    QCOMPARE(ggufTensorName(llama, "lm_head.weight").name, std::string("output.weight"));
    QVERIFY_THROWS_EXCEPTION(GgufError,
                             ggufTensorName(llama, "model.layers.0.self_attn.rotary.inv_freq"));
    headroom::hf::ArchitectureConfig qwen2 = llama;
    qwen2.model_type = "qwen2";
    QVERIFY(ggufTensorName(qwen2, "model.layers.0.self_attn.q_proj.bias").transform ==
            TensorTransform::None);
    headroom::hf::ArchitectureConfig gpt2;
    gpt2.architecture = "GPT2LMHeadModel";
    gpt2.model_type = "gpt2";
    QCOMPARE(ggufTensorName(gpt2, "transformer.h.1.attn.c_attn.weight").name,
             std::string("blk.1.attn_qkv.weight"));
    QCOMPARE(ggufTensorName(gpt2, "transformer.wpe.weight").name,
             std::string("position_embd.weight"));
}

QTEST_GUILESS_MAIN(TestGgufFormat)
#include "test_gguf_format.moc"
