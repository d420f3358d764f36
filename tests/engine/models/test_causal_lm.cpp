// The pretrained-layout language model without files: checkpoint names, LoRA on named
// projections (merged weights compute what the adapters do), activation checkpointing with
// identical gradients, the KV cache, masked targets, and the sampler's top-k / top-p.
#include "models/causal_lm.h"
#include "models/generation.h"

#include <QtTest>

using headroom::models::CausalLm;
using headroom::models::CausalLmOptions;
using headroom::models::LmFamily;

namespace {

CausalLmOptions tinyOptions(LmFamily family) {
    CausalLmOptions options;
    options.family = family;
    options.vocab_size = 50;
    options.dim = 32;
    options.layers = 2;
    options.heads = 4;
    options.kv_heads = family == LmFamily::Gpt2 ? 4 : 2;
    options.head_dim = 8;
    options.hidden = 48;
    options.max_positions = 64;
    options.qkv_bias = family == LmFamily::Gpt2;
    options.tie_embeddings = family == LmFamily::Gpt2;
    return options;
}

CausalLm freshModel(LmFamily family, std::uint64_t seed = 1) {
    torch::manual_seed(seed);
    CausalLm model(tinyOptions(family));
    model->resetParameters();
    return model;
}

torch::Tensor tokens(std::int64_t rows, std::int64_t length) {
    return torch::randint(0, 50, {rows, length}, torch::kLong);
}

} // namespace

class TestCausalLm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesFollowTheCheckpointLayout_data();
    void namesFollowTheCheckpointLayout();
    void loraMergedStateComputesTheAdaptedModel();
    void loraRejectsUnknownProjections();
    void checkpointingKeepsGradients();
    void cacheMatchesFullForward();
    void maskedTargetsAreIgnored();
    void samplerRespectsTopKAndTopP();
};

void TestCausalLm::namesFollowTheCheckpointLayout_data() {
    QTest::addColumn<int>("family");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("llama") << static_cast<int>(LmFamily::Llama)
                           << QStringList{"model.embed_tokens.weight",
                                          "model.layers.0.input_layernorm.weight",
                                          "model.layers.0.self_attn.k_proj.weight",
                                          "model.layers.1.mlp.gate_proj.weight",
                                          "model.norm.weight",
                                          "lm_head.weight"};
    QTest::newRow("gpt2") << static_cast<int>(LmFamily::Gpt2)
                          << QStringList{"transformer.wte.weight",
                                         "transformer.wpe.weight",
                                         "transformer.h.0.ln_1.bias",
                                         "transformer.h.0.attn.c_attn.bias",
                                         "transformer.h.1.mlp.c_proj.weight",
                                         "transformer.ln_f.weight"};
}

void TestCausalLm::namesFollowTheCheckpointLayout() {
    QFETCH(int, family);
    QFETCH(QStringList, expected);
    const CausalLm model = freshModel(static_cast<LmFamily>(family));
    QStringList names;
    for (const auto &item : model->named_parameters()) {
        names << QString::fromStdString(item.key());
    }
    for (const QString &name : expected) {
        QVERIFY2(names.contains(name), qPrintable(name + " not in " + names.join(", ")));
    }
    QCOMPARE(names.contains("lm_head.weight"), family == static_cast<int>(LmFamily::Llama));
}

void TestCausalLm::loraMergedStateComputesTheAdaptedModel() {
    CausalLm model = freshModel(LmFamily::Llama);
    headroom::models::LoraOptions lora;
    lora.rank(4).alpha(8).dropout(0).targets({"q_proj", "down_proj"});
    model->enableLora(lora);
    QCOMPARE(model->loraAdapters().size(), std::size_t{4});
    QCOMPARE(model->loraAdapters().front().first, std::string("model.layers.0.self_attn.q_proj"));
    std::int64_t trainable = 0;
    for (const torch::Tensor &parameter : model->parameters()) {
        trainable += parameter.requires_grad() ? parameter.numel() : 0;
    }
    QCOMPARE(trainable, 2 * (4 * 32 + 32 * 4) + 2 * (4 * 48 + 32 * 4));
    {
        torch::NoGradGuard no_grad;
        for (auto &[path, adapter] : model->loraAdapters()) {
            adapter->b.normal_(0, 0.5);
        }
    }
    model->eval();
    const torch::Tensor input = tokens(2, 10);
    const torch::Tensor adapted = model->forward(input);

    CausalLm plain(tinyOptions(LmFamily::Llama));
    auto parameters = plain->named_parameters();
    torch::NoGradGuard no_grad;
    for (const auto &[name, tensor] : model->mergedState()) {
        QVERIFY2(parameters.contains(name), name.c_str());
        parameters[name].copy_(tensor);
    }
    plain->eval();
    QVERIFY((plain->forward(input) - adapted).abs().max().item<double>() < 1e-5);
}

void TestCausalLm::loraRejectsUnknownProjections() {
    CausalLm model = freshModel(LmFamily::Gpt2);
    headroom::models::LoraOptions lora;
    lora.targets({"q_proj"});
    try {
        model->enableLora(lora);
        QFAIL("q_proj accepted on GPT-2");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString(error.what()).contains("c_attn"), error.what());
    }
}

void TestCausalLm::checkpointingKeepsGradients() {
    const torch::Tensor input = tokens(2, 12);
    std::vector<torch::Tensor> gradients[2];
    for (const std::int64_t every : {0, 1}) {
        CausalLm model = freshModel(LmFamily::Llama, 5);
        model->train();
        model->setCheckpointEvery(every);
        model->loss(input, tokens(2, 12).fill_(3)).backward();
        for (const torch::Tensor &parameter : model->parameters()) {
            gradients[every].push_back(parameter.grad().clone());
        }
    }
    for (std::size_t index = 0; index < gradients[0].size(); ++index) {
        QVERIFY(torch::equal(gradients[0][index], gradients[1][index]));
    }
}

void TestCausalLm::cacheMatchesFullForward() {
    for (const LmFamily family : {LmFamily::Gpt2, LmFamily::Llama}) {
        CausalLm model = freshModel(family, 3);
        model->eval();
        torch::NoGradGuard no_grad;
        const torch::Tensor input = tokens(1, 20);
        const torch::Tensor full = model->forward(input);
        headroom::models::KvCache cache;
        const torch::Tensor first = model->forward(input.narrow(1, 0, 15), &cache);
        const torch::Tensor rest = model->forward(input.narrow(1, 15, 5), &cache);
        QCOMPARE(cache.length, std::int64_t{20});
        QVERIFY((torch::cat({first, rest}, 1) - full).abs().max().item<double>() < 1e-5);
        const torch::Tensor last = model->forward(input, nullptr, true);
        QVERIFY((last.select(1, 0) - full.select(1, 19)).abs().max().item<double>() < 1e-6);
    }
}

void TestCausalLm::maskedTargetsAreIgnored() {
    CausalLm model = freshModel(LmFamily::Llama);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor input = tokens(1, 8);
    torch::Tensor targets = tokens(1, 8);
    torch::Tensor masked = targets.clone();
    masked.narrow(1, 0, 4).fill_(-100);
    const torch::Tensor logits = model->forward(input).view({8, 50});
    const double expected = torch::nn::functional::cross_entropy(logits.narrow(0, 4, 4),
                                                                 targets.view({8}).narrow(0, 4, 4))
                                .item<double>();
    QVERIFY(std::abs(model->loss(input, masked).item<double>() - expected) < 1e-5);
}

void TestCausalLm::samplerRespectsTopKAndTopP() {
    const torch::Tensor logits = torch::tensor({0.0, 3.0, 2.9, -1.0, 2.8}, torch::kFloat);
    torch::Generator generator = at::detail::createCPUGenerator(11);
    headroom::models::SamplingOptions options;
    QCOMPARE(headroom::models::sampleToken(logits, options, generator), std::int64_t{1});
    options.temperature = 1.0;
    options.top_k = 2;
    std::set<std::int64_t> seen;
    for (int draw = 0; draw < 200; ++draw) {
        seen.insert(headroom::models::sampleToken(logits, options, generator));
    }
    QCOMPARE(seen, (std::set<std::int64_t>{1, 2}));
    options.top_k = 0;
    options.top_p = 0.3; // the most likely token alone holds more than 30 %
    for (int draw = 0; draw < 50; ++draw) {
        QCOMPARE(headroom::models::sampleToken(logits, options, generator), std::int64_t{1});
    }
}

QTEST_GUILESS_MAIN(TestCausalLm)
#include "test_causal_lm.moc"
