// Importing a Hugging Face folder into float32 (hf::loadPretrainedModel), on a tiny Llama
// written here: each stored dtype (BF16, F16, F32) arrives exactly as torch converts it, and a
// tensor holding NaN or infinity is refused with its name, wherever it sits in the file.
#include "export/safetensors.h"
#include "hf/hf_error.h"
#include "hf/pretrained_model.h"
#include "memory/cpu_allocator.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace {

const char *const kConfig = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 16,
  "intermediate_size": 24, "num_attention_heads": 2, "num_key_value_heads": 1,
  "num_hidden_layers": 2, "vocab_size": 40, "max_position_embeddings": 32,
  "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": false,
  "hidden_act": "silu", "torch_dtype": "bfloat16"
})";

std::map<std::string, std::vector<std::int64_t>> shapes() {
    std::map<std::string, std::vector<std::int64_t>> result = {
        {"model.embed_tokens.weight", {40, 16}},
        {"model.norm.weight", {16}},
        {"lm_head.weight", {40, 16}}};
    for (int layer = 0; layer < 2; ++layer) {
        const std::string p = "model.layers." + std::to_string(layer) + ".";
        result[p + "input_layernorm.weight"] = {16};
        result[p + "post_attention_layernorm.weight"] = {16};
        result[p + "self_attn.q_proj.weight"] = {16, 16};
        result[p + "self_attn.k_proj.weight"] = {8, 16};
        result[p + "self_attn.v_proj.weight"] = {8, 16};
        result[p + "self_attn.o_proj.weight"] = {16, 16};
        result[p + "mlp.gate_proj.weight"] = {24, 16};
        result[p + "mlp.up_proj.weight"] = {24, 16};
        result[p + "mlp.down_proj.weight"] = {16, 24};
    }
    return result;
}

} // namespace

class TestPretrainedImport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void importsExactly_data();
    void importsExactly();
    void compactBaseNeverHoldsTheFp32Model_data();
    void compactBaseNeverHoldsTheFp32Model();

private:
    // A tiny Llama folder of `dtype` tensors in `dir`; the tensors as written.
    static std::map<std::string, torch::Tensor> writeFolder(const QTemporaryDir &dir,
                                                            const QString &dtype,
                                                            const QString &poisoned = {},
                                                            double value = 0);
};

void TestPretrainedImport::importsExactly_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("poisoned"); // tensor given a non-finite value, or ""
    QTest::addColumn<double>("value");
    QTest::newRow("BF16") << "BF16"
                          << "" << 0.0;
    QTest::newRow("F16") << "F16"
                         << "" << 0.0;
    QTest::newRow("F32") << "F32"
                         << "" << 0.0;
    QTest::newRow("BF16 NaN") << "BF16"
                              << "model.layers.1.mlp.up_proj.weight" << std::nan("");
    QTest::newRow("F16 infinity") << "F16"
                                  << "lm_head.weight" << -std::numeric_limits<double>::infinity();
    QTest::newRow("F32 NaN in a norm") << "F32"
                                       << "model.norm.weight" << std::nan("");
}

std::map<std::string, torch::Tensor> TestPretrainedImport::writeFolder(const QTemporaryDir &dir,
                                                                       const QString &dtype,
                                                                       const QString &poisoned,
                                                                       double value) {
    const torch::ScalarType type = dtype == "BF16"  ? torch::kBFloat16
                                   : dtype == "F16" ? torch::kHalf
                                                    : torch::kFloat;
    QFile config(dir.filePath("config.json"));
    if (!config.open(QIODevice::WriteOnly)) {
        return {};
    }
    config.write(kConfig);
    config.close();

    torch::manual_seed(3);
    std::map<std::string, torch::Tensor> stored;
    std::vector<headroom::exporting::TensorView> views;
    for (const auto &[name, shape] : shapes()) {
        torch::Tensor tensor = (torch::randn(shape) * 3.0).to(type).contiguous();
        if (name == poisoned.toStdString()) {
            tensor.view({-1}).narrow(0, tensor.numel() / 2, 1).fill_(value);
        }
        stored[name] = tensor;
        views.push_back({name, dtype.toStdString(), shape, tensor.data_ptr(), tensor.nbytes()});
    }
    headroom::exporting::writeSafetensors(dir.filePath("model.safetensors").toStdString(), views,
                                          {{"format", "pt"}});
    return stored;
}

void TestPretrainedImport::importsExactly() {
    QFETCH(QString, dtype);
    QFETCH(QString, poisoned);
    QFETCH(double, value);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::map<std::string, torch::Tensor> stored = writeFolder(dir, dtype, poisoned, value);
    QVERIFY(!stored.empty());

    if (!poisoned.isEmpty()) {
        try {
            headroom::hf::loadPretrainedModel(
                headroom::hf::locateModelFolder(dir.path().toStdString()));
            QFAIL("a non-finite weight was imported");
        } catch (const headroom::hf::ModelFolderError &error) {
            const QString message = error.what();
            QVERIFY2(message.contains(poisoned) && message.contains("NaN or infinite"),
                     qPrintable(message));
        }
        return;
    }
    const headroom::models::CausalLm model = headroom::hf::loadPretrainedModel(
        headroom::hf::locateModelFolder(dir.path().toStdString()));
    int compared = 0;
    for (const auto &item : model->named_parameters()) {
        QCOMPARE(item.value().scalar_type(), torch::kFloat);
        QVERIFY2(torch::equal(item.value(), stored.at(item.key()).to(torch::kFloat)),
                 item.key().c_str());
        ++compared;
    }
    QCOMPARE(compared, static_cast<int>(stored.size()));
}

void TestPretrainedImport::compactBaseNeverHoldsTheFp32Model_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("bf16") << "bf16";
    QTest::newRow("nf4") << "nf4";
}

void TestPretrainedImport::compactBaseNeverHoldsTheFp32Model() {
    // Imported into a compact format, the projection weights are converted one at a time: the
    // counting allocator's peak stays far below the fp32 projections' size.
    QFETCH(QString, format);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(!writeFolder(dir, "BF16").empty());
    std::int64_t projection_bytes = 0;
    for (const auto &[name, shape] : shapes()) {
        if (name.find("_proj") != std::string::npos) {
            projection_bytes += 4 * shape[0] * shape[1];
        }
    }
    headroom::memory::installCountingCpuAllocator();
    const std::uint64_t before = headroom::memory::cpuMemoryStats().live;
    headroom::memory::resetCpuPeak();
    const headroom::models::CausalLm model =
        headroom::hf::loadPretrainedModel(headroom::hf::locateModelFolder(dir.path().toStdString()),
                                          {}, headroom::parseBaseFormat(format.toStdString()));
    const std::uint64_t peak = headroom::memory::cpuMemoryStats().peak - before;
    const std::uint64_t held = headroom::memory::cpuMemoryStats().live - before;
    // Everything else (embedding, head, norms) is fp32: 2 x 40 x 16 floats.
    const std::uint64_t others = 4 * (2 * 40 * 16 + 5 * 16);
    qInfo("%s: fp32 projections %lld bytes; import peak %llu, held %llu", qPrintable(format),
          static_cast<long long>(projection_bytes), static_cast<unsigned long long>(peak),
          static_cast<unsigned long long>(held));
    QVERIFY2(peak < others + static_cast<std::uint64_t>(projection_bytes) * 3 / 4,
             qPrintable(QString::number(peak)));
    QCOMPARE(model->baseFormat(), headroom::parseBaseFormat(format.toStdString()));
}

QTEST_GUILESS_MAIN(TestPretrainedImport)
#include "test_pretrained_import.moc"
