// Imported Hugging Face models against an independent Python reference (Debian's python3-torch,
// tests/interop/pretrained/reference_lm.py): tiny random GPT-2 (hub naming with mask buffers,
// and prefixed F16), Llama (BF16, GQA, llama3 RoPE scaling, untied), a sharded Llama (linear
// RoPE scaling, tied), Qwen2 (q/k/v bias, padded vocabulary), Mistral (head_dim given) and
// Mixtral (4 experts, top-2, GQA). The logits must match to 1e-4 in fp32 and greedy
// continuations must be identical, with and without the KV cache. For Mixtral also the routing
// decisions of every layer, the balancing loss and the training objective's gradient of every
// weight (1e-5). The folders are written by tests/interop/pretrained/setup.sh (CTest
// fixture pretrained_reference); without python3-torch this test skips and says why.
#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "hf/safetensors_file.h"
#include "models/causal_lm.h"
#include "models/generation.h"
#include "models/sparse_moe_block.h"

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
    void mixtralRoutesAndTrainsAsTheReference();

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
         {"gpt2", "gpt2-prefixed", "llama", "llama-sharded", "qwen2", "mistral", "mixtral"}) {
        QTest::newRow(name) << referenceRoot() + "/reference/" + name;
    }
}

void TestPretrainedInterop::matchesReference() {
    QFETCH(QString, folder);
    const std::string path = folder.toStdString();
    const headroom::hf::ModelFolder located = headroom::hf::locateModelFolder(path);
    headroom::models::CausalLm model = headroom::hf::loadPretrainedModel(located);
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

void TestPretrainedInterop::mixtralRoutesAndTrainsAsTheReference() {
    const std::string path = (referenceRoot() + "/reference/mixtral").toStdString();
    const headroom::hf::ModelFolder located = headroom::hf::locateModelFolder(path);
    headroom::models::CausalLm model = headroom::hf::loadPretrainedModel(located);
    const std::map<std::string, torch::Tensor> reference =
        readReference(path + "/reference.safetensors");
    const torch::Tensor inputs = reference.at("inputs");
    const auto rows = inputs.size(0);
    const auto maxDifference = [](const torch::Tensor &a, const torch::Tensor &b) {
        return (a - b).abs().max().item<double>();
    };

    // Each layer's MoE block on the reference's input to it: the same experts for every token,
    // in the same order, and the same output.
    model->eval();
    {
        torch::NoGradGuard no_grad;
        const double logits = maxDifference(model->forward(inputs), reference.at("logits"));
        qInfo("mixtral logits: max |difference| %.3g", logits);
        QVERIFY2(logits <= 1e-5, qPrintable(QString::number(logits)));
        auto modules = model->named_modules();
        for (int layer = 0; layer < 2; ++layer) {
            const std::string name = "model.layers." + std::to_string(layer) + ".block_sparse_moe";
            auto *block = modules[name]->as<headroom::models::SparseMoeBlockImpl>();
            QVERIFY(block != nullptr);
            const std::string index = std::to_string(layer);
            const headroom::models::SparseMoeOutput routed =
                block->forward(reference.at("moe_input." + index), rows);
            QVERIFY2(torch::equal(routed.selected, reference.at("routing." + index)),
                     qPrintable(QString("layer %1 routes differently").arg(layer)));
            const double output = maxDifference(routed.output, reference.at("moe_output." + index));
            QVERIFY2(output <= 1e-5, qPrintable(QString::number(output)));
        }
    }

    // Training: cross-entropy plus router_aux_loss_coef x the balancing loss (output_router_logits
    // is true in this folder), and its gradient of every weight.
    model->train();
    const headroom::hf::ArchitectureConfig config =
        headroom::hf::readArchitectureConfig(located.config_path);
    QVERIFY(config.output_router_logits);
    const headroom::models::CausalLmLoss terms = model->lossTerms(inputs, reference.at("targets"));
    QVERIFY(terms.moe.has_value());
    const double aux = maxDifference(terms.moe->aux_loss, reference.at("aux_loss"));
    QVERIFY2(aux <= 1e-5, qPrintable(QString::number(aux)));
    QCOMPARE(terms.moe->expert_counts.size(), std::size_t{2});
    QCOMPARE(terms.moe->expert_counts[0].sum().item<std::int64_t>(), inputs.numel() * 2);
    (terms.loss + config.router_aux_loss_coef * terms.moe->aux_loss).backward();
    double worst = 0;
    std::string worst_name;
    int compared = 0;
    for (const auto &item : model->named_parameters()) {
        const double difference =
            maxDifference(item.value().grad(), reference.at("grad." + item.key()));
        if (difference > worst) {
            worst = difference;
            worst_name = item.key();
        }
        ++compared;
    }
    qInfo("mixtral gradients: %d weights, max |difference| %.3g (%s)", compared, worst,
          worst_name.c_str());
    QCOMPARE(compared, 2 + 2 * (6 + 1 + 4 * 3) + 1); // embedding, head, 2 layers, final norm
    QVERIFY2(worst <= 1e-5, worst_name.c_str());
}

QTEST_GUILESS_MAIN(TestPretrainedInterop)
#include "test_pretrained_interop.moc"
