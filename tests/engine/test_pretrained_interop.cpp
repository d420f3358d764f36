// Imported Hugging Face models against an independent Python reference (Debian's python3-torch,
// tests/interop/pretrained/reference_lm.py): tiny random GPT-2 (hub naming with mask buffers,
// and prefixed F16), Llama (BF16, GQA, llama3 RoPE scaling, untied), a sharded Llama (linear
// RoPE scaling, tied), Qwen2 (q/k/v bias, padded vocabulary) and Mistral (head_dim given). The
// logits must match to 1e-4 in fp32 and greedy continuations must be identical, with and
// without the KV cache. The folders are written by tests/interop/pretrained/setup.sh (CTest
// fixture pretrained_reference); without python3-torch this test skips and says why.
#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "hf/safetensors_file.h"
#include "models/causal_lm.h"
#include "models/generation.h"

#include <QFile>
#include <QtTest>

#include <map>
#include <string>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

namespace {

QString referenceRoot() {
    const QByteArray override = qgetenv("HEADROOM_PRETRAINED_REFERENCE_DIR");
    return override.isEmpty() ? QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR)
                              : QString::fromLocal8Bit(override);
}

// The reference tensors of a model folder, copied out of the mapping.
std::map<std::string, torch::Tensor> readReference(const std::string &path) {
    const headroom::hf::SafetensorsFile file = headroom::hf::SafetensorsFile::open(path);
    std::map<std::string, torch::Tensor> tensors;
    for (const headroom::hf::TensorRecord &record : file.tensors()) {
        const auto type = record.dtype == "I64" ? torch::kLong : torch::kFloat;
        tensors[record.name] = torch::from_blob(const_cast<std::uint8_t *>(file.data(record)),
                                                record.shape, torch::TensorOptions().dtype(type))
                                   .clone();
    }
    return tensors;
}

std::vector<std::int64_t> toVector(const torch::Tensor &ids) {
    const torch::Tensor contiguous = ids.contiguous();
    return {contiguous.data_ptr<std::int64_t>(),
            contiguous.data_ptr<std::int64_t>() + contiguous.numel()};
}

} // namespace

class TestPretrainedInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();

private:
    bool available_ = false;
};

void TestPretrainedInterop::initTestCase() {
    QFile status(referenceRoot() + "/status.txt");
    if (!status.open(QIODevice::ReadOnly)) {
        QSKIP("no reference: run tests/interop/pretrained/setup.sh (the CTest fixture)");
    }
    const QString text = QString::fromUtf8(status.readAll()).trimmed();
    if (!text.startsWith("ok")) {
        QSKIP(qPrintable("pretrained reference not available: " + text));
    }
    available_ = true;
    torch::manual_seed(0);
}

void TestPretrainedInterop::matchesReference_data() {
    QTest::addColumn<QString>("folder");
    for (const char *name :
         {"gpt2", "gpt2-prefixed", "llama", "llama-sharded", "qwen2", "mistral"}) {
        QTest::newRow(name) << referenceRoot() + "/reference/" + name;
    }
}

void TestPretrainedInterop::matchesReference() {
    QFETCH(QString, folder);
    const std::string path = folder.toStdString();
    headroom::models::CausalLm model = headroom::hf::loadPretrainedModel(path);
    model->eval();
    torch::NoGradGuard no_grad;
    std::map<std::string, torch::Tensor> reference = readReference(path + "/reference.safetensors");

    const torch::Tensor logits = model->forward(reference.at("inputs"));
    const double difference = (logits - reference.at("logits")).abs().max().item<double>();
    QVERIFY2(difference <= 1e-4, qPrintable(QString("max |logit difference| %1").arg(difference)));

    // The cache gives the same logits as one pass: the prompt, then one token at a time.
    const torch::Tensor inputs = reference.at("inputs").narrow(0, 0, 1);
    headroom::models::KvCache cache;
    std::vector<torch::Tensor> pieces = {model->forward(inputs.narrow(1, 0, 10), &cache)};
    for (std::int64_t position = 10; position < inputs.size(1); ++position) {
        pieces.push_back(model->forward(inputs.narrow(1, position, 1), &cache));
    }
    const double cached_difference =
        (torch::cat(pieces, 1) - logits.narrow(0, 0, 1)).abs().max().item<double>();
    QVERIFY2(cached_difference <= 1e-4,
             qPrintable(QString("cached vs full logits differ by %1").arg(cached_difference)));

    const headroom::hf::ModelFolder located = headroom::hf::locateModelFolder(path);
    const headroom::hf::ArchitectureConfig config =
        headroom::hf::readArchitectureConfig(located.config_path);
    headroom::models::SamplingOptions greedy;
    greedy.max_new_tokens = 32;
    greedy.eos_ids = headroom::hf::readGenerationDefaults(located, config).eos_token_ids;
    const std::vector<std::int64_t> expected = toVector(reference.at("greedy_tokens"));
    const std::vector<std::int64_t> prompt = toVector(reference.at("greedy_prompt"));
    for (const bool use_cache : {true, false}) {
        auto source = headroom::models::causalLmLogits(*model, torch::kCPU, use_cache);
        QCOMPARE(headroom::models::generateTokens(*source, prompt, greedy), expected);
    }
}

QTEST_GUILESS_MAIN(TestPretrainedInterop)
#include "test_pretrained_interop.moc"
