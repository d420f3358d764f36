// Preference objectives against an independent Python reference (Debian's python3-torch,
// tests/interop/preference/reference_preference.py, written from TRL v0.25.1's trainers): on the
// tiny random Llama (LoRA and every weight) and GPT-2 (LoRA) folders of the pretrained_reference
// fixture, every objective's loss, per-pair log-probabilities, rewards and the gradient of every
// trained tensor equal the reference within 1e-5, at step 1 and after 3 updates (the policy moved,
// the reference still the base). DPO with LoRA starts at exactly ln 2. A precomputed reference's
// pass continues where a stopped one ended.
#include "hf/base_tokenizer.h"
#include "hf/model_folder.h"
#include "models/causal_lm.h"
#include "python_reference.h"
#include "recipes/preference_scoring.h"
#include "recipes/recipe.h"
#include "train/lora_setup.h"
#include "train/prepared_data.h"
#include "train/reference_pass.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

using namespace headroom;

namespace {

constexpr std::int64_t kSeqLen = 20;
constexpr int kPairs = 3;

QString referenceScript() {
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/preference/reference_preference.py");
}

// Pairs of random tokens: a shared prompt, two different completions, end-of-text, padded to the
// window as the data stream pads them.
std::vector<data::Example> randomPairs(std::int64_t vocab, std::int32_t end_of_text,
                                       std::uint32_t seed) {
    std::mt19937 random(seed);
    const auto token = [&] {
        return static_cast<std::int32_t>(random() % vocab);
    };
    const auto sequence = [&](const std::vector<std::int32_t> &prompt, int length) {
        data::Example example;
        example.tokens = prompt;
        for (int i = 0; i < length; ++i) {
            example.tokens.push_back(token());
        }
        example.tokens.push_back(end_of_text);
        example.prompt_tokens = static_cast<std::int32_t>(prompt.size());
        example.real_tokens = static_cast<std::int32_t>(example.tokens.size());
        example.tokens.resize(kSeqLen + 1, end_of_text);
        return example;
    };
    std::vector<data::Example> pairs;
    for (int p = 0; p < kPairs; ++p) {
        std::vector<std::int32_t> prompt(3 + random() % 4);
        for (std::int32_t &id : prompt) {
            id = token();
        }
        data::Example pair = sequence(prompt, 2 + static_cast<int>(random() % 6));
        pair.rejected.push_back(sequence(prompt, 2 + static_cast<int>(random() % 6)));
        pair.id = static_cast<std::uint64_t>(p);
        pairs.push_back(std::move(pair));
    }
    return pairs;
}

// Rows [B, width] of the chosen (or rejected) sequences, and which of their tokens are scored.
void sequenceTensors(const std::vector<data::Example> &pairs, bool rejected, std::int64_t width,
                     torch::Tensor &ids, torch::Tensor &scored) {
    ids = torch::zeros({kPairs, width}, torch::kInt64);
    scored = torch::zeros({kPairs, width}, torch::kFloat);
    for (int p = 0; p < kPairs; ++p) {
        const data::Example &s = rejected ? pairs[p].rejected.front() : pairs[p];
        for (std::int64_t t = 0; t < width; ++t) {
            ids[p][t] = s.tokens[static_cast<std::size_t>(t)];
            scored[p][t] = t >= s.prompt_tokens && t < s.real_tokens ? 1.0f : 0.0f;
        }
    }
}

// The reference's name of a projection: GPT-2's without the "transformer." prefix.
std::string referenceName(std::string path) {
    const std::string prefix = "transformer.";
    return path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : path;
}

} // namespace

class TestPreferenceInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesTheReference_data();
    void matchesTheReference();
    void precomputedReferenceContinuesAStoppedPass();

private:
    // Writes IN, runs the reference, compares; `gradients` by input name.
    void compareWithReference(const std::map<std::string, torch::Tensor> &inputs,
                              const std::map<std::string, std::string> &metadata,
                              const train::TrainingLoss &terms, const torch::Tensor &pair_logps,
                              const std::map<std::string, torch::Tensor> &gradients,
                              const QString &label);

    QString root_;
    QTemporaryDir dir_;
    int files_ = 0;
};

void TestPreferenceInterop::initTestCase() {
    root_ = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(root_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run tests/interop/pretrained/setup.sh");
    }
    const QString problem = test_support::pythonReferenceProblem();
    if (!problem.isEmpty()) {
        QSKIP(qPrintable(problem));
    }
}

void TestPreferenceInterop::matchesTheReference_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("objective");
    QTest::addColumn<bool>("lora");
    for (const char *objective : {"dpo", "ipo", "simpo", "orpo", "kto"}) {
        QTest::addRow("llama lora %s", objective) << "llama" << objective << true;
        QTest::addRow("llama full %s", objective) << "llama" << objective << false;
        QTest::addRow("gpt2 lora %s", objective) << "gpt2" << objective << true;
    }
}

void TestPreferenceInterop::matchesTheReference() {
    QFETCH(QString, folder);
    QFETCH(QString, objective);
    QFETCH(bool, lora);
    const std::string path = (root_ + "/reference/" + folder).toStdString();
    Config config;
    config.set("recipe", "causal_lm");
    config.set("model.base", path);
    config.set("tokenizer", "base");
    config.set("data.path", "pairs.jsonl");
    config.set("model.seq_len", std::to_string(kSeqLen));
    config.set("train.objective", objective.toStdString());
    config.set("pref.beta", "0.3");
    config.set("pref.label_smoothing", objective == "dpo" || objective == "simpo" ? "0.1" : "0");
    config.set("pref.simpo_gamma", "0.4");
    config.set("pref.orpo_lambda", "0.2");
    if (lora) {
        config.set("lora.rank", "4");
        config.set("lora.alpha", "8");
        config.set("lora.targets", "all-linear");
    }
    try {
        config.validate();
    } catch (const ConfigError &error) {
        QFAIL(error.what());
    }
    const hf::ModelFolder base = hf::locateModelFolder(path);
    std::unique_ptr<train::Recipe> recipe =
        train::makePretrainedRecipe(config, base, torch::Device(torch::kCPU));
    QCOMPARE(train::enableLoraFromConfig(config, *recipe), lora);
    auto *model = dynamic_cast<models::CausalLmImpl *>(recipe->module().get());
    QVERIFY(model != nullptr);
    const std::int64_t vocab = model->options().vocab_size;
    const bool kto = objective == "kto";
    std::vector<data::Example> pairs = randomPairs(vocab, 1, 7);
    if (kto) {
        // Unpaired records: each pair's chosen sequence, desirable or not in turn; the KL
        // estimate's mismatched sequences ride in the rejected slot for the reference.
        std::vector<data::Example> records;
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            data::Example record = pairs[i];
            record.rejected.clear();
            record.target = i % 2 == 0 ? 1 : 0;
            records.push_back(std::move(record));
        }
        train::ExampleBatch record_batch;
        for (const data::Example &record : records) {
            record_batch.push_back(&record);
        }
        const std::vector<data::Example> mismatched =
            train::ktoMismatchedSequences(record_batch, kSeqLen);
        for (std::size_t i = 0; i < records.size(); ++i) {
            pairs[i] = records[i];
            pairs[i].rejected.assign(1, mismatched[i]);
        }
    }
    train::ExampleBatch batch;
    for (const data::Example &pair : pairs) {
        batch.push_back(&pair);
    }
    const std::int64_t width = train::longestExample(pairs);
    std::map<std::string, torch::Tensor> inputs;
    sequenceTensors(pairs, false, width, inputs["chosen_ids"], inputs["chosen_scored"]);
    sequenceTensors(pairs, true, width, inputs["rejected_ids"], inputs["rejected_scored"]);
    std::vector<data::Example> records; // kto: what the recipe trains on, without the KL rows
    train::ExampleBatch record_batch;
    if (kto) {
        std::vector<float> labels;
        for (const data::Example &pair : pairs) {
            records.push_back(pair);
            records.back().rejected.clear();
            labels.push_back(static_cast<float>(pair.target));
        }
        for (const data::Example &record : records) {
            record_batch.push_back(&record);
        }
        inputs["labels"] = torch::tensor(labels);
    }
    const train::ExampleBatch &trained_batch = kto ? record_batch : batch;
    const std::vector<data::Example> &trained_examples = kto ? records : pairs;
    const std::map<std::string, std::string> metadata = {
        {"folder", path},
        {"objective", objective.toStdString()},
        {"beta", "0.3"},
        {"label_smoothing", config.text("pref.label_smoothing")},
        {"simpo_gamma", "0.4"},
        {"orpo_lambda", "0.2"},
        {"kto_desirable_weight", "1"},
        {"kto_undesirable_weight", "1"},
        {"mode", lora ? "lora" : "full"},
        {"lora_scale", "2"}};

    const std::vector<torch::Tensor> trained = train::trainableParameters(*recipe);
    torch::optim::SGD sgd(trained, torch::optim::SGDOptions(0.5));
    recipe->module()->train();
    for (int update = 0; update <= 3; update += 3) {
        const auto forward = [&] {
            recipe->beginStep(trained_examples);
            if (recipe->couplesExamples()) {
                recipe->prepareStep(trained_batch, trained_batch.size(), 0, 1);
            }
            return recipe->trainingLoss(trained_batch);
        };
        for (int step = 0; step < (update == 0 ? 0 : 3); ++step) {
            sgd.zero_grad();
            forward().objective.backward();
            sgd.step();
        }
        sgd.zero_grad();
        const train::TrainingLoss terms = forward();
        terms.objective.backward();
        std::map<std::string, torch::Tensor> with_policy = inputs;
        std::map<std::string, torch::Tensor> gradients;
        if (lora) {
            for (const auto &[projection, adapter] : model->loraAdapters()) {
                const std::string name = referenceName(projection);
                with_policy["lora_a." + name] = adapter->a.detach();
                with_policy["lora_b." + name] = adapter->b.detach();
                gradients["lora_a." + name] = adapter->a.grad();
                gradients["lora_b." + name] = adapter->b.grad();
            }
        } else {
            for (const auto &item : model->named_parameters()) {
                with_policy["policy." + item.key()] = item.value().detach();
                gradients["policy." + item.key()] = item.value().grad();
            }
        }
        if (objective == "dpo" && lora && update == 0) {
            QCOMPARE(terms.loss.item<float>(), static_cast<float>(std::log(2.0)));
        }
        if (kto && lora && update == 0) {
            QCOMPARE(terms.loss.item<float>(), 0.5f); // 1 - sigmoid(0): policy = reference
        }
        const torch::Tensor logps = torch::tensor(
            {terms.preference->chosen_logps, terms.preference->rejected_logps}, torch::kDouble);
        compareWithReference(
            with_policy, metadata, terms, logps, gradients,
            QString("%1 after %2 updates").arg(QTest::currentDataTag()).arg(update));
    }
}

void TestPreferenceInterop::compareWithReference(
    const std::map<std::string, torch::Tensor> &inputs,
    const std::map<std::string, std::string> &metadata, const train::TrainingLoss &terms,
    const torch::Tensor &pair_logps, const std::map<std::string, torch::Tensor> &gradients,
    const QString &label) {
    const QString in = dir_.filePath(QString("in%1.safetensors").arg(++files_));
    const QString out = dir_.filePath(QString("out%1.safetensors").arg(files_));
    std::map<std::string, torch::Tensor> typed;
    for (const auto &[name, tensor] : inputs) {
        typed[name] = name.find("_ids") != std::string::npos ? tensor : tensor.to(torch::kFloat);
    }
    // Token ids stay int64: writeReferenceTensors writes F32, so ids go through a float copy
    // that is exact for the tiny vocabularies here.
    test_support::writeReferenceTensors(in, typed, metadata);
    const QString failure = test_support::runReference(referenceScript(), in, out);
    QVERIFY2(failure.isEmpty(), qPrintable(label + ": " + failure));
    const std::map<std::string, torch::Tensor> reference = test_support::readReferenceTensors(out);
    const auto close = [&](double ours, double theirs, const std::string &what) {
        QVERIFY2(std::abs(ours - theirs) <= 1e-5 * std::max(1.0, std::abs(theirs)),
                 qPrintable(QString("%1: %2 is %3, the reference %4")
                                .arg(label, QString::fromStdString(what))
                                .arg(ours, 0, 'g', 10)
                                .arg(theirs, 0, 'g', 10)));
    };
    close(terms.loss.item<double>(), reference.at("loss").item<double>(), "loss");
    if (reference.count("kl") != 0) { // kto: its figures are means over desirable records
        close(terms.preference->kl, reference.at("kl").item<double>(), "KL estimate");
        const torch::Tensor desirable = inputs.at("labels").gt(0.5);
        close(terms.preference->chosen_rewards,
              reference.at("chosen_rewards").index({desirable}).mean().item<double>(),
              "mean reward of desirable records");
    } else {
        close(pair_logps[0].item<double>(), reference.at("chosen_logps").mean().item<double>(),
              "mean chosen log-probability");
        close(pair_logps[1].item<double>(), reference.at("rejected_logps").mean().item<double>(),
              "mean rejected log-probability");
        close(terms.preference->chosen_rewards,
              reference.at("chosen_rewards").mean().item<double>(), "mean chosen reward");
        close(terms.preference->reward_margin,
              (reference.at("chosen_rewards") - reference.at("rejected_rewards"))
                  .mean()
                  .item<double>(),
              "mean reward margin");
    }
    for (const auto &[name, gradient] : gradients) {
        const auto theirs = reference.find("grad." + name);
        QVERIFY2(theirs != reference.end(),
                 qPrintable(label + ": no reference gradient " + QString::fromStdString(name)));
        QVERIFY2(gradient.defined(),
                 qPrintable(label + ": no gradient for " + QString::fromStdString(name)));
        const double scale = std::max(1.0, theirs->second.abs().max().item<double>());
        const double difference = (gradient.to(torch::kDouble).reshape(theirs->second.sizes()) -
                                   theirs->second.to(torch::kDouble))
                                      .abs()
                                      .max()
                                      .item<double>();
        QVERIFY2(difference <= 1e-5 * scale,
                 qPrintable(QString("%1: gradient of %2 differs by %3")
                                .arg(label, QString::fromStdString(name))
                                .arg(difference)));
    }
}

// pref.precompute_reference: a pass stopped part-way stores what it computed; the next pass
// computes only the rest, and the table equals one computed in a single pass.
void TestPreferenceInterop::precomputedReferenceContinuesAStoppedPass() {
    const std::string folder = (root_ + "/reference/llama").toStdString();
    QFile data_file(dir_.filePath("pass-pairs.jsonl"));
    QVERIFY(data_file.open(QIODevice::WriteOnly));
    for (int i = 0; i < 30; ++i) {
        data_file.write(QString("{\"prompt\": \"Count %1\", \"chosen\": \" %2\", \"rejected\": "
                                "\" %3 and more\"}\n")
                            .arg(i)
                            .arg(i + 1)
                            .arg(i * 7)
                            .toUtf8());
    }
    data_file.close();
    Config config;
    config.set("recipe", "causal_lm");
    config.set("model.base", folder);
    config.set("tokenizer", "base");
    config.set("data.path", data_file.fileName().toStdString());
    config.set("model.seq_len", "24");
    config.set("train.objective", "dpo");
    config.set("lora.rank", "4");
    config.set("pref.precompute_reference", "1");
    const hf::ModelFolder base = hf::locateModelFolder(folder);
    std::unique_ptr<train::Recipe> recipe =
        train::makePretrainedRecipe(config, base, torch::Device(torch::kCPU));
    QVERIFY(train::enableLoraFromConfig(config, *recipe));
    QVERIFY(recipe->precomputesReference());
    train::PreparedData data;
    data.spec = train::dataSpecFromConfig(config, "");
    data.tokenizer = hf::loadBaseTokenizer(base);

    QStringList messages;
    const auto progress = [&](const std::string &message) {
        messages << QString::fromStdString(message);
    };
    Project project =
        Project::create(dir_.filePath("pass.headroom").toStdString(), config.toJson());
    int polls = 0;
    QVERIFY(train::precomputedReference(*recipe, data, config, project, true, 2, progress,
                                        [&] { return ++polls == 3; }) == nullptr);
    const auto continued = train::precomputedReference(*recipe, data, config, project, true, 2,
                                                       progress, [] { return false; });
    QVERIFY(continued != nullptr);
    QVERIFY2(messages.join('\n').contains("continuing the reference log-probabilities after the "
                                          "4 pairs"),
             qPrintable(messages.join('\n')));
    Project other =
        Project::create(dir_.filePath("single.headroom").toStdString(), config.toJson());
    const auto single = train::precomputedReference(*recipe, data, config, other, false, 5,
                                                    progress, [] { return false; });
    QCOMPARE(continued->size(), std::size_t{30});
    QCOMPARE(single->size(), std::size_t{30});
    // Batches of other sizes pad to other widths: the sums agree to rounding.
    for (const auto &[ordinal, sums] : *single) {
        const auto found = continued->find(ordinal);
        QVERIFY(found != continued->end());
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(std::abs(found->second[i] - sums[i]) <= 1e-4f * std::abs(sums[i]),
                     qPrintable(QString("pair %1: %2 against %3")
                                    .arg(ordinal)
                                    .arg(found->second[i])
                                    .arg(sums[i])));
        }
    }
    messages.clear();
    QVERIFY(train::precomputedReference(*recipe, data, config, project, true, 2, progress,
                                        [] { return true; }) != nullptr);
    QVERIFY2(messages.join('\n').contains("30 pairs from the project"),
             qPrintable(messages.join('\n')));
}

QTEST_GUILESS_MAIN(TestPreferenceInterop)
#include "test_preference_interop.moc"
