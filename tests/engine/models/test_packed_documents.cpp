// Packed rows (several documents side by side, data.packing=1): every document's per-token
// losses equal those of the document run alone, for the from-scratch GPT and the GPT-2, Llama
// (RoPE, grouped-query attention), Qwen2 (projection biases) and Mixtral (sparse MoE) paths, on
// the explicit attention path and on the fused one where this LibTorch has it.
#include "causal_lm_support.h"
#include "models/causal_lm.h"
#include "models/document_layout.h"
#include "models/gpt.h"

#include <QtTest>

#include <functional>
#include <vector>

using namespace headroom;

namespace {

constexpr std::int64_t kVocab = 48;

// Logits [B, T, V] of tokens [B, T], plain (no layout) or packed.
using LogitsOf =
    std::function<torch::Tensor(const torch::Tensor &, const models::DocumentLayout *)>;

LogitsOf causalLm(models::LmFamily family, bool qkv_bias, std::int64_t experts,
                  compat::AttentionPath path) {
    models::CausalLmOptions options = test_support::tinyLlamaOptions(40);
    options.family = family;
    options.qkv_bias = qkv_bias;
    options.o_bias = family == models::LmFamily::Gpt2;
    options.mlp_bias = family == models::LmFamily::Gpt2;
    if (family == models::LmFamily::Gpt2) {
        options.kv_heads = options.heads;
        options.tie_embeddings = true;
    }
    options.experts = experts;
    options.experts_per_token = experts > 0 ? 2 : 0;
    options.attention = path;
    torch::manual_seed(11);
    models::CausalLm model(options);
    model->resetParameters();
    {
        // Wider than the 0.02 initialisation, so positions and routing matter visibly.
        torch::NoGradGuard no_grad;
        for (auto &item : model->named_parameters()) {
            if (item.key().find("norm") == std::string::npos) {
                item.value().normal_(0.0, 0.2);
            }
        }
    }
    model->eval();
    return [model](const torch::Tensor &tokens,
                   const models::DocumentLayout *layout) mutable -> torch::Tensor {
        return layout != nullptr ? model->forward(tokens, *layout) : model->forward(tokens);
    };
}

LogitsOf scratchGpt(compat::AttentionPath path) {
    torch::manual_seed(12);
    models::Gpt model(models::GptOptions(kVocab, 32).layers(2).heads(4).dim(32).attention(path));
    model->eval();
    return [model](const torch::Tensor &tokens,
                   const models::DocumentLayout *layout) mutable -> torch::Tensor {
        return layout != nullptr ? model->forward(tokens, *layout) : model->forward(tokens);
    };
}

// Per-token next-token losses of a row's positions [begin, begin + size - 1) against the
// following tokens.
torch::Tensor documentLosses(const torch::Tensor &logits, const torch::Tensor &tokens,
                             std::int64_t begin, std::int64_t size) {
    const torch::Tensor predicted = logits.narrow(0, begin, size - 1);
    const torch::Tensor next = tokens.narrow(0, begin + 1, size - 1);
    return torch::nn::functional::cross_entropy(
        predicted, next, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
}

} // namespace

class TestPackedDocuments : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void packedRowsEqualDocumentsAlone_data();
    void packedRowsEqualDocumentsAlone();
    void layoutRestartsPositionsAndBlocksOtherDocuments();
};

void TestPackedDocuments::packedRowsEqualDocumentsAlone_data() {
    QTest::addColumn<int>("model");
    QTest::addColumn<int>("path");
    const int paths[] = {static_cast<int>(compat::AttentionPath::Explicit),
                         static_cast<int>(compat::AttentionPath::Sdpa)};
    const char *names[] = {"gpt", "gpt2", "llama", "qwen2", "mixtral"};
    for (const int path : paths) {
        if (path == static_cast<int>(compat::AttentionPath::Sdpa) && !compat::sdpaAvailable(true)) {
            continue; // LibTorch 1.13: the fused kernel does not exist
        }
        for (int model = 0; model < 5; ++model) {
            const QByteArray row =
                QByteArray(names[model]) + " " +
                compat::attentionPathName(static_cast<compat::AttentionPath>(path));
            QTest::newRow(row.constData()) << model << path;
        }
    }
}

void TestPackedDocuments::packedRowsEqualDocumentsAlone() {
    QFETCH(int, model);
    QFETCH(int, path);
    const auto attention = static_cast<compat::AttentionPath>(path);
    LogitsOf logits_of;
    switch (model) {
    case 0:
        logits_of = scratchGpt(attention);
        break;
    case 1:
        logits_of = causalLm(models::LmFamily::Gpt2, true, 0, attention);
        break;
    case 2:
        logits_of = causalLm(models::LmFamily::Llama, false, 0, attention);
        break;
    case 3:
        logits_of = causalLm(models::LmFamily::Llama, true, 0, attention);
        break;
    default:
        logits_of = causalLm(models::LmFamily::Llama, false, 4, attention);
        break;
    }
    torch::NoGradGuard no_grad;
    // Two rows of 24 tokens: three documents and padding, then two documents filling the row.
    const std::int64_t length = 24;
    const std::vector<std::vector<std::int32_t>> documents = {{7, 9, 5}, {13, 11}};
    torch::manual_seed(3);
    const torch::Tensor tokens = torch::randint(0, kVocab, {2, length}, torch::kLong);
    const models::DocumentLayout layout =
        models::documentLayout(documents, length, torch::Device(torch::kCPU));
    const torch::Tensor packed = logits_of(tokens, &layout);
    // Without the layout the later documents see the earlier ones: the comparison can fail.
    const torch::Tensor unpacked = logits_of(tokens, nullptr);
    QVERIFY(
        (documentLosses(unpacked[0], tokens[0], 7, 9) - documentLosses(packed[0], tokens[0], 7, 9))
            .abs()
            .max()
            .item<double>() > 1e-3);
    for (std::int64_t row = 0; row < 2; ++row) {
        std::int64_t begin = 0;
        for (const std::int32_t size : documents[static_cast<std::size_t>(row)]) {
            const torch::Tensor alone_tokens = tokens[row].narrow(0, begin, size);
            const torch::Tensor alone = logits_of(alone_tokens.unsqueeze(0), nullptr)[0];
            const torch::Tensor expected = documentLosses(alone, alone_tokens, 0, size);
            const torch::Tensor actual = documentLosses(packed[row], tokens[row], begin, size);
            const double difference = (actual - expected).abs().max().item<double>();
            QVERIFY2(
                difference <= 1e-5,
                qPrintable(
                    QString("row %1, document at %2: %3").arg(row).arg(begin).arg(difference)));
            begin += size;
        }
    }
}

void TestPackedDocuments::layoutRestartsPositionsAndBlocksOtherDocuments() {
    const models::DocumentLayout layout =
        models::documentLayout({{2, 3}, {6}}, 5, torch::Device(torch::kCPU));
    QCOMPARE(layout.positions.sizes().vec(), (std::vector<std::int64_t>{2, 5}));
    const std::vector<std::int64_t> first(layout.positions[0].data_ptr<std::int64_t>(),
                                          layout.positions[0].data_ptr<std::int64_t>() + 5);
    QCOMPARE(first, (std::vector<std::int64_t>{0, 1, 0, 1, 2}));
    // A row cut short keeps counting its one document.
    QCOMPARE(layout.positions[1][4].item<std::int64_t>(), std::int64_t{4});
    QCOMPARE(layout.mask.sizes().vec(), (std::vector<std::int64_t>{2, 1, 5, 5}));
    QVERIFY(layout.mask[0][0][1][0].item<bool>());  // same document, earlier key
    QVERIFY(!layout.mask[0][0][2][1].item<bool>()); // the next document starts afresh
    QVERIFY(layout.mask[0][0][4][2].item<bool>());
    QVERIFY(!layout.mask[0][0][3][4].item<bool>()); // never a later key
}

QTEST_APPLESS_MAIN(TestPackedDocuments)
#include "test_packed_documents.moc"
