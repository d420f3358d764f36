// Preference pairs and objectives without a reference implementation at hand: pairs become two
// sequences sharing their prompt (cut as TRL cuts them), bad pairs are refused by line, a saved
// position keeps its pairs, the objectives' formulas on chosen values, the base computed with
// the adapters switched off, and the configurations refused by name. The comparison with an
// independent Python reference is test_preference_interop.
#include "causal_lm_support.h"
#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/record_reader.h"
#include "models/causal_lm.h"
#include "recipes/preference_objective.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"

#include <headroom/config.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

using namespace headroom;
using namespace headroom::data;
using headroom::train::PreferenceObjective;
using test_support::writeFile;

namespace {

std::vector<std::int32_t> bytes(const std::string &text) {
    return {text.begin(), text.end()};
}

std::vector<std::int32_t> realTokens(const Example &example) {
    return {example.tokens.begin(), example.tokens.begin() + example.real_tokens};
}

double logSigmoid(double x) {
    return -std::log1p(std::exp(-x));
}

} // namespace

class TestPreference : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pairsShareTheirPrompt();
    void longPromptsKeepTheirEnd();
    void promptsFillingTheWindowLeaveNoPairs();
    void badPairsAreRefusedWithTheirLine_data();
    void badPairsAreRefusedWithTheirLine();
    void supervisedTrainingRefusesPairs();
    void unpairedRecordsCarryTheirLabel();
    void conversationalPairsRenderThroughTheTemplate();
    void conversationalPairsMustShareTheirPrompt();
    void savedPositionKeepsThePairs();
    void objectivesFollowTheirFormulas();
    void adaptersOffComputeTheBase();
    void configurationsAreRefusedByName_data();
    void configurationsAreRefusedByName();

private:
    DataSpec spec(const std::string &content, std::int64_t seq_len = 15) {
        DataSpec s;
        s.path = writeFile(dir_, QString("pairs%1.jsonl").arg(++files_), content);
        s.format = Format::Jsonl;
        s.validation_fraction = 1; // the validation split reads every record in order
        s.shuffle_buffer = 1;
        s.seq_len = seq_len;
        s.preference = true;
        return s;
    }
    // The DataError a stream over `content` throws on its first example ("" when none).
    QString firstError(const DataSpec &s) {
        try {
            ExampleStream stream(s, Split::Validation, bytes_.get(), nullptr);
            Example example;
            while (stream.next(example)) {
            }
        } catch (const DataError &error) {
            return QString::fromStdString(error.what());
        }
        return {};
    }

    QTemporaryDir dir_;
    int files_ = 0;
    std::unique_ptr<Tokenizer> bytes_ = makeByteTokenizer();
};

void TestPreference::pairsShareTheirPrompt() {
    ExampleStream stream(spec(R"({"prompt": "ab", "chosen": "cde", "rejected": "f"})"
                              "\n"),
                         Split::Validation, bytes_.get(), nullptr);
    Example pair;
    QVERIFY(stream.next(pair));
    const std::int32_t end = bytes_->endOfTextId();
    std::vector<std::int32_t> chosen = bytes_->encodeStart("ab");
    const std::size_t prompt = chosen.size();
    for (const std::int32_t id : bytes("cde")) {
        chosen.push_back(id);
    }
    chosen.push_back(end);
    QCOMPARE(pair.tokens.size(), std::size_t{16}); // padded to the window like a prompt record
    QCOMPARE(realTokens(pair), chosen);
    QCOMPARE(pair.prompt_tokens, static_cast<std::int32_t>(prompt));
    QCOMPARE(pair.rejected.size(), std::size_t{1});
    const Example &rejected = pair.rejected.front();
    QCOMPARE(rejected.tokens.size(), std::size_t{16});
    QCOMPARE(rejected.prompt_tokens, static_cast<std::int32_t>(prompt));
    QCOMPARE(rejected.real_tokens, static_cast<std::int32_t>(prompt + 2));
    QCOMPARE(rejected.tokens[prompt], bytes("f").front());
    QCOMPARE(rejected.tokens[prompt + 1], end);
    QVERIFY(!stream.next(pair));
}

void TestPreference::longPromptsKeepTheirEnd() {
    DataSpec s = spec(R"({"prompt": "abcdefgh", "chosen": "xyz0123456789", "rejected": "q"})"
                      "\n",
                      9);
    s.max_prompt_len = 3;
    ExampleStream stream(s, Split::Validation, bytes_.get(), nullptr);
    Example pair;
    QVERIFY(stream.next(pair));
    QCOMPARE(pair.prompt_tokens, 3);
    // The prompt's last three bytes, then the chosen completion cut at the window's 10 tokens.
    QCOMPARE(realTokens(pair), bytes("fghxyz0123"));
    QCOMPARE(realTokens(pair.rejected.front()),
             (std::vector<std::int32_t>{'f', 'g', 'h', 'q', bytes_->endOfTextId()}));
}

void TestPreference::promptsFillingTheWindowLeaveNoPairs() {
    DataSpec s = spec(R"({"prompt": "a long prompt", "chosen": "yes", "rejected": "no"})"
                      "\n",
                      8);
    s.validation_fraction = 0;
    try {
        ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
        Example example;
        stream.next(example);
        QFAIL("a prompt that fills the window made a pair");
    } catch (const DataError &error) {
        const QString message = error.what();
        QVERIFY2(message.contains("leaving no completion") &&
                     message.contains("data.max_prompt_len"),
                 qPrintable(message));
    }
}

void TestPreference::badPairsAreRefusedWithTheirLine_data() {
    QTest::addColumn<QString>("record");
    QTest::addColumn<QString>("problem");
    QTest::newRow("identical") << R"({"prompt": "p", "chosen": "same", "rejected": "same"})"
                               << "identical";
    QTest::newRow("empty chosen") << R"({"prompt": "p", "chosen": " ", "rejected": "no"})"
                                  << "the chosen completion is empty";
    QTest::newRow("missing rejected") << R"({"prompt": "p", "chosen": "yes"})"
                                      << "\"rejected\" is missing";
    QTest::newRow("messages and text")
        << R"({"prompt": "p", "chosen": [{"role": "assistant", "content": "a"}], "rejected": "b"})"
        << "\"rejected\" must be one too";
    QTest::newRow("number") << R"({"prompt": 3, "chosen": "a", "rejected": "b"})"
                            << "\"prompt\" is a number";
}

void TestPreference::badPairsAreRefusedWithTheirLine() {
    QFETCH(QString, record);
    QFETCH(QString, problem);
    const DataSpec s = spec(R"({"prompt": "fine", "chosen": "a", "rejected": "b"})"
                            "\n" +
                            record.toStdString() + "\n");
    const QString message = firstError(s);
    QVERIFY2(message.startsWith(QString::fromStdString(s.path) + ":2: "), qPrintable(message));
    QVERIFY2(message.contains(problem), qPrintable(message));
}

void TestPreference::supervisedTrainingRefusesPairs() {
    DataSpec s = spec(R"({"prompt": "p", "chosen": "a", "rejected": "b"})"
                      "\n");
    s.preference = false;
    const QString message = firstError(s);
    QVERIFY2(message.contains(":1: ") && message.contains("train.objective=dpo"),
             qPrintable(message));
}

namespace {

// The tokens of an example the loss scores (trained), and those before them, as bytes.
std::string scoredText(const Example &sequence) {
    std::string text;
    for (std::int32_t t = 1; t < sequence.real_tokens; ++t) {
        if (sequence.trained[static_cast<std::size_t>(t)] == 1) {
            text.push_back(static_cast<char>(sequence.tokens[static_cast<std::size_t>(t)]));
        }
    }
    return text;
}

} // namespace

void TestPreference::conversationalPairsRenderThroughTheTemplate() {
    // TRL's explicit-prompt form and its implicit-prompt form of the same pair.
    const std::string explicit_prompt =
        R"({"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], )"
        R"("chosen": [{"role": "assistant", "content": "Hello!"}], )"
        R"("rejected": [{"role": "assistant", "content": "Go away."}]})";
    const std::string implicit_prompt =
        R"({"chosen": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, )"
        R"({"role": "assistant", "content": "Hello!"}], )"
        R"("rejected": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, )"
        R"({"role": "assistant", "content": "Go away."}]})";
    DataSpec s = spec(explicit_prompt + "\n" + implicit_prompt + "\n", 127);
    s.chat_data = std::make_shared<const chat::ChatData>(
        chat::ChatData{chat::ChatTemplate(chat::chatmlTemplate()), chat::TrainOn::Assistant});
    ExampleStream stream(s, Split::Validation, bytes_.get(), nullptr);
    Example first;
    Example second;
    QVERIFY(stream.next(first));
    QVERIFY(stream.next(second));
    QCOMPARE(first.tokens, second.tokens);
    QCOMPARE(first.rejected.front().tokens, second.rejected.front().tokens);
    // Only the last reply and its end-of-turn are scored; the prompt's turns are not.
    QCOMPARE(scoredText(first).substr(0, 6), std::string("Hello!"));
    QVERIFY(scoredText(first).find("<|im_end|>") != std::string::npos);
    QVERIFY(scoredText(first).find("Hi") == std::string::npos);
    QCOMPARE(scoredText(first.rejected.front()).substr(0, 8), std::string("Go away."));
    const std::string rendered(first.tokens.begin(), first.tokens.begin() + first.real_tokens);
    QVERIFY2(rendered.rfind("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi", 0) ==
                 0,
             rendered.c_str());
    // Without a template the pair cannot be rendered: said with its line.
    s.chat_data.reset();
    const QString message = firstError(s);
    QVERIFY2(message.contains(":1: ") && message.contains("data.chat_template=chatml"),
             qPrintable(message));
}

void TestPreference::conversationalPairsMustShareTheirPrompt() {
    const QString different = firstError(spec(
        R"({"chosen": [{"role": "user", "content": "A"}, {"role": "assistant", "content": "x"}], )"
        R"("rejected": [{"role": "user", "content": "B"}, {"role": "assistant", "content": "y"}]})"
        "\n"));
    QVERIFY2(different.contains("share every message before their last reply"),
             qPrintable(different));
    const QString no_reply = firstError(spec(
        R"({"prompt": [{"role": "user", "content": "A"}], "chosen": [{"role": "user", "content": "x"}], )"
        R"("rejected": [{"role": "assistant", "content": "y"}]})"
        "\n"));
    QVERIFY2(no_reply.contains("chosen conversation must end with an assistant reply"),
             qPrintable(no_reply));
    const QString text_prompt =
        firstError(spec(R"({"prompt": "A", "chosen": [{"role": "assistant", "content": "x"}], )"
                        R"("rejected": [{"role": "assistant", "content": "y"}]})"
                        "\n"));
    QVERIFY2(text_prompt.contains("\"prompt\" must be a list of messages too"),
             qPrintable(text_prompt));
}

void TestPreference::unpairedRecordsCarryTheirLabel() {
    DataSpec s = spec(R"({"prompt": "p", "completion": "good", "label": true})"
                      "\n"
                      R"({"prompt": "q", "completion": "bad", "label": false})"
                      "\n");
    s.preference = false;
    s.unpaired = true;
    ExampleStream stream(s, Split::Validation, bytes_.get(), nullptr);
    Example desirable;
    Example undesirable;
    QVERIFY(stream.next(desirable));
    QVERIFY(stream.next(undesirable));
    QCOMPARE(desirable.target, 1.0);
    QCOMPARE(undesirable.target, 0.0);
    QVERIFY(desirable.rejected.empty());
    QCOMPARE(desirable.prompt_tokens, static_cast<std::int32_t>(bytes_->encodeStart("p").size()));
    // Without a label, or with one that is not true or false: refused with the line.
    s = spec(R"({"prompt": "p", "completion": "c", "label": "yes"})"
             "\n");
    s.preference = false;
    s.unpaired = true;
    QVERIFY2(firstError(s).contains(":1: the field \"label\" is a string"),
             qPrintable(firstError(s)));
    // Only a boolean label makes a file KTO data.
    QVERIFY(!startsWithUnpairedPreference(s));
    DataSpec booleans = spec(R"({"prompt": "p", "completion": "c", "label": true})"
                             "\n");
    booleans.preference = false;
    QVERIFY(startsWithUnpairedPreference(booleans));
    // Supervised training refuses labelled records: it would learn the undesirable ones too.
    s.unpaired = false;
    QVERIFY2(firstError(s).isEmpty(), qPrintable(firstError(s))); // a string label is no label
    s = spec(R"({"prompt": "p", "completion": "c", "label": false})"
             "\n");
    s.preference = false;
    QVERIFY2(firstError(s).contains("set train.objective=kto"), qPrintable(firstError(s)));
}

void TestPreference::savedPositionKeepsThePairs() {
    std::string content;
    for (int i = 0; i < 40; ++i) {
        content += "{\"prompt\": \"q" + std::to_string(i) + "\", \"chosen\": \"good" +
                   std::to_string(i) + "\", \"rejected\": \"bad" + std::to_string(i % 7) + "\"}\n";
    }
    DataSpec s = spec(content);
    s.validation_fraction = 0;
    s.shuffle_buffer = 8;
    ExampleStream first(s, Split::Train, bytes_.get(), nullptr);
    Example example;
    for (int i = 0; i < 5; ++i) {
        QVERIFY(first.next(example));
    }
    const std::string state = first.saveState();
    ExampleStream second(s, Split::Train, bytes_.get(), nullptr);
    second.restoreState(state);
    for (int i = 0; i < 50; ++i) {
        Example expected;
        Example resumed;
        QVERIFY(first.next(expected));
        QVERIFY(second.next(resumed));
        QCOMPARE(resumed.id, expected.id);
        QCOMPARE(resumed.tokens, expected.tokens);
        QCOMPARE(resumed.rejected.size(), std::size_t{1});
        QCOMPARE(resumed.rejected.front().tokens, expected.rejected.front().tokens);
        QCOMPARE(resumed.rejected.front().real_tokens, expected.rejected.front().real_tokens);
        QCOMPARE(resumed.rejected.front().prompt_tokens, expected.rejected.front().prompt_tokens);
    }
}

void TestPreference::objectivesFollowTheirFormulas() {
    // Two pairs: sums of log-probabilities and scored tokens, chosen rows first.
    const train::SequenceLogps policy{torch::tensor({-4.0f, -6.0f, -9.0f, -5.0f}),
                                      torch::tensor({2.0f, 3.0f, 3.0f, 1.0f})};
    const train::SequenceLogps reference{torch::tensor({-5.0f, -6.5f, -8.0f, -5.5f}),
                                         torch::tensor({2.0f, 3.0f, 3.0f, 1.0f})};
    const double beta = 0.2;
    const double smoothing = 0.1;
    train::PreferenceOptions options;
    options.beta = beta;
    options.label_smoothing = smoothing;
    options.simpo_gamma = 0.3;
    options.orpo_lambda = 0.25;
    const auto check = [](const train::PreferenceTerms &terms, const double expected[2]) {
        QVERIFY(std::abs(terms.pair_losses[0].item<double>() - expected[0]) < 1e-6);
        QVERIFY(std::abs(terms.pair_losses[1].item<double>() - expected[1]) < 1e-6);
        QVERIFY(std::abs(terms.loss.item<double>() - (expected[0] + expected[1]) / 2) < 1e-6);
    };
    const double policy_sums[2][2] = {{-4, -9}, {-6, -5}}; // [pair][chosen, rejected]
    const double reference_sums[2][2] = {{-5, -8}, {-6.5, -5.5}};
    const double counts[2][2] = {{2, 3}, {3, 1}};

    options.objective = PreferenceObjective::Dpo;
    double dpo[2];
    for (int p = 0; p < 2; ++p) {
        const double margin =
            (policy_sums[p][0] - policy_sums[p][1]) - (reference_sums[p][0] - reference_sums[p][1]);
        dpo[p] =
            -logSigmoid(beta * margin) * (1 - smoothing) - logSigmoid(-beta * margin) * smoothing;
    }
    const train::PreferenceTerms dpo_terms = train::preferenceTerms(options, policy, reference);
    check(dpo_terms, dpo);
    QVERIFY(std::abs(dpo_terms.chosen_rewards[0].item<double>() - beta * 1.0) < 1e-6);
    QVERIFY(std::abs(dpo_terms.rejected_rewards[0].item<double>() - beta * -1.0) < 1e-6);

    options.objective = PreferenceObjective::Ipo;
    double ipo[2];
    for (int p = 0; p < 2; ++p) {
        const double margin =
            (policy_sums[p][0] / counts[p][0] - policy_sums[p][1] / counts[p][1]) -
            (reference_sums[p][0] / counts[p][0] - reference_sums[p][1] / counts[p][1]);
        ipo[p] = std::pow(margin - 1 / (2 * beta), 2);
    }
    check(train::preferenceTerms(options, policy, reference), ipo);

    options.objective = PreferenceObjective::Simpo;
    double simpo[2];
    for (int p = 0; p < 2; ++p) {
        const double margin =
            policy_sums[p][0] / counts[p][0] - policy_sums[p][1] / counts[p][1] - 0.3 / beta;
        simpo[p] =
            -logSigmoid(beta * margin) * (1 - smoothing) - logSigmoid(-beta * margin) * smoothing;
    }
    check(train::preferenceTerms(options, policy, {}), simpo);

    options.objective = PreferenceObjective::Orpo;
    double orpo[2];
    for (int p = 0; p < 2; ++p) {
        const double chosen = policy_sums[p][0] / counts[p][0];
        const double rejected = policy_sums[p][1] / counts[p][1];
        const double log_odds =
            (chosen - rejected) - (std::log1p(-std::exp(chosen)) - std::log1p(-std::exp(rejected)));
        orpo[p] = -chosen - 0.25 * logSigmoid(log_odds);
    }
    check(train::preferenceTerms(options, policy, {}), orpo);

    // The policy equal to its reference: DPO's loss is ln 2 exactly, the rewards 0.
    options.objective = PreferenceObjective::Dpo;
    options.label_smoothing = 0;
    const train::PreferenceTerms same = train::preferenceTerms(options, policy, policy);
    QCOMPARE(same.loss.item<float>(), static_cast<float>(std::log(2.0)));
    QCOMPARE(same.chosen_rewards.abs().sum().item<float>(), 0.0f);
}

void TestPreference::adaptersOffComputeTheBase() {
    torch::manual_seed(3);
    models::CausalLm model(test_support::tinyLlamaOptions());
    model->resetParameters();
    model->eval();
    const torch::Tensor tokens = torch::randint(0, 48, {2, 9}, torch::kInt64);
    torch::NoGradGuard no_grad;
    const torch::Tensor base = model->forward(tokens);
    model->enableLora(models::LoraOptions().rank(4).targets({"q_proj", "v_proj", "down_proj"}));
    model->eval(); // the new adapters' dropout off
    for (const auto &[name, adapter] : model->loraAdapters()) {
        adapter->b.normal_(0, 0.5);
    }
    const torch::Tensor adapted = model->forward(tokens);
    QVERIFY((adapted - base).abs().max().item<float>() > 1e-3);
    {
        const models::ScopedAdaptersOff off;
        QVERIFY(!models::adaptersOn());
        QVERIFY(torch::equal(model->forward(tokens), base));
    }
    QVERIFY(models::adaptersOn());
    QVERIFY(torch::equal(model->forward(tokens), adapted));
}

void TestPreference::configurationsAreRefusedByName_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<QString>("named");
    const QStringList base = {"recipe=causal_lm", "model.base=m", "tokenizer=base"};
    QTest::newRow("no base") << QStringList{"train.objective=dpo"} << "model.base";
    QTest::newRow("beta with sft") << QStringList{"pref.beta=0.5"} << "pref.beta=0.5";
    QTest::newRow("packing") << base + QStringList{"train.objective=orpo", "data.packing=1"}
                             << "data.packing=0";
    QTest::newRow("csv") << base + QStringList{"train.objective=simpo", "data.format=csv"}
                         << "data.format=csv";
    QTest::newRow("reference format with lora")
        << base + QStringList{"train.objective=dpo", "lora.rank=8", "pref.reference_dtype=int8"}
        << "adapters switched off";
    QTest::newRow("kto precomputed")
        << base + QStringList{"train.objective=kto", "pref.precompute_reference=1"}
        << "cannot be computed ahead";
    QTest::newRow("precompute without reference")
        << base + QStringList{"train.objective=simpo", "pref.precompute_reference=1"}
        << "has no reference model";
    QTest::newRow("reference format without reference")
        << base + QStringList{"train.objective=orpo", "pref.reference_dtype=nf4"} << "has none";
}

void TestPreference::configurationsAreRefusedByName() {
    QFETCH(QStringList, settings);
    QFETCH(QString, named);
    Config config;
    config.set("data.path", "pairs.jsonl");
    for (const QString &setting : settings) {
        config.setAssignment(setting.toStdString());
    }
    try {
        config.validate();
        QFAIL("the configuration was accepted");
    } catch (const ConfigError &error) {
        QVERIFY2(QString(error.what()).contains(named), error.what());
    }
}

QTEST_GUILESS_MAIN(TestPreference)
#include "test_preference.moc"
