#include <headroom/config.h>

#include <QtTest>

class TestConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultsCoverEveryKey();
    void acceptsGoodValues_data();
    void acceptsGoodValues();
    void rejectsBadValuesNamingKeyAndAccepted_data();
    void rejectsBadValuesNamingKeyAndAccepted();
    void unknownKeyListsKnownKeys();
    void assignmentNeedsKeyAndValue();
    void crossKeyValidation_data();
    void crossKeyValidation();
    void jsonRoundTripKeepsEveryValue();
    void jsonRejectsUnknownKeysAndBadShapes();
    void causalLmAndOlderGptBasesAreLanguageModels();
    void changedListsOnlyNonDefaults();
};

void TestConfig::defaultsCoverEveryKey() {
    const headroom::Config config;
    for (const headroom::KeySpec &spec : headroom::configKeys()) {
        QCOMPARE(config.text(spec.name), spec.default_value);
    }
    QCOMPARE(config.integer("train.micro_batch"), 12);
    QCOMPARE(config.text("device"), std::string("auto"));
}

void TestConfig::acceptsGoodValues_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("stored");
    QTest::newRow("choice") << "recipe"
                            << "tabular"
                            << "tabular";
    QTest::newRow("integer") << "train.micro_batch"
                             << "32"
                             << "32";
    QTest::newRow("real") << "train.lr"
                          << "1e-3"
                          << "1e-3";
    QTest::newRow("device cuda:1") << "device"
                                   << "cuda:1"
                                   << "cuda:1";
    QTest::newRow("device mps") << "device"
                                << "mps"
                                << "mps";
    QTest::newRow("distributed.backend nccl") << "distributed.backend"
                                              << "nccl"
                                              << "nccl";
    QTest::newRow("hidden widths") << "model.hidden"
                                   << "256,128,64"
                                   << "256,128,64";
    QTest::newRow("path") << "data.path"
                          << "data/corpus.txt"
                          << "data/corpus.txt";
    // Settings that read as on/off take the words people type.
    QTest::newRow("checkpointing=true") << "checkpointing"
                                        << "true"
                                        << "1";
    QTest::newRow("checkpointing=On") << "checkpointing"
                                      << "On"
                                      << "1";
    QTest::newRow("checkpointing=no") << "checkpointing"
                                      << "no"
                                      << "0";
    QTest::newRow("checkpointing=2") << "checkpointing"
                                     << "2"
                                     << "2";
    QTest::newRow("offload yes") << "offload.optimizer"
                                 << "yes"
                                 << "on";
    QTest::newRow("offload false") << "offload.optimizer"
                                   << "false"
                                   << "off";
    QTest::newRow("expandable segments 1") << "memory.expandable_segments"
                                           << "1"
                                           << "on";
    QTest::newRow("early stopping on") << "train.early_stopping"
                                       << "on"
                                       << "10";
    QTest::newRow("early stopping off") << "train.early_stopping"
                                        << "off"
                                        << "0";
    QTest::newRow("whole validation split") << "train.eval_batches"
                                            << "0"
                                            << "0";
}

void TestConfig::acceptsGoodValues() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, stored);
    headroom::Config config;
    config.set(key.toStdString(), value.toStdString());
    QCOMPARE(QString::fromStdString(config.text(key.toStdString())), stored);
}

void TestConfig::rejectsBadValuesNamingKeyAndAccepted_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("accepted");
    QTest::newRow("choice") << "recipe"
                            << "diffusion"
                            << "gpt, tabular";
    QTest::newRow("not a number") << "train.micro_batch"
                                  << "lots"
                                  << "whole number from 1";
    QTest::newRow("unknown backend") << "distributed.backend"
                                     << "mpi"
                                     << "auto, gloo, nccl";
    QTest::newRow("zero micro-batch") << "train.micro_batch"
                                      << "0"
                                      << "whole number from 1";
    QTest::newRow("fraction") << "train.steps"
                              << "2.5"
                              << "whole number";
    QTest::newRow("trailing junk") << "train.lr"
                                   << "0.1x"
                                   << "a number";
    QTest::newRow("negative lr") << "train.lr"
                                 << "-1"
                                 << "a number";
    QTest::newRow("nan") << "model.dropout"
                         << "nan"
                         << "a number";
    QTest::newRow("dropout too big") << "model.dropout"
                                     << "0.95"
                                     << "to 0.9";
    QTest::newRow("device") << "device"
                            << "tpu"
                            << "auto, cpu, cuda, cuda:N or mps";
    QTest::newRow("device index") << "device"
                                  << "cuda:x"
                                  << "cuda:N";
    QTest::newRow("hidden") << "model.hidden"
                            << "128,,64"
                            << "comma-separated";
    QTest::newRow("hidden zero") << "model.hidden"
                                 << "0"
                                 << "comma-separated";
    QTest::newRow("format") << "data.format"
                            << "parquet"
                            << "auto, text, jsonl, json, csv";
    // The message says what the number means and that the words work.
    QTest::newRow("checkpointing word") << "checkpointing"
                                        << "sometimes"
                                        << "true/on/yes (= 1) or false/off/no (= 0)";
    QTest::newRow("no words for a count") << "train.steps"
                                          << "true"
                                          << "a whole number from 1";
    QTest::newRow("epochs") << "train.epochs"
                            << "-1"
                            << "a number from 0";
}

void TestConfig::rejectsBadValuesNamingKeyAndAccepted() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, accepted);
    headroom::Config config;
    const std::string before = config.text(key.toStdString());
    try {
        config.set(key.toStdString(), value.toStdString());
        QFAIL("accepted a bad value");
    } catch (const headroom::ConfigError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains(key), qPrintable(message));
        QVERIFY2(message.contains(value), qPrintable(message));
        QVERIFY2(message.contains(accepted), qPrintable(message));
    }
    QCOMPARE(config.text(key.toStdString()), before);
}

void TestConfig::unknownKeyListsKnownKeys() {
    headroom::Config config;
    try {
        config.set("train.microbatch", "4");
        QFAIL("accepted an unknown key");
    } catch (const headroom::ConfigError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY(message.contains("unknown key 'train.microbatch'"));
        QVERIFY(message.contains("train.micro_batch"));
    }
}

void TestConfig::assignmentNeedsKeyAndValue() {
    headroom::Config config;
    config.setAssignment("train.steps=30");
    QCOMPARE(config.integer("train.steps"), 30);
    config.setAssignment("data.text_field=body=text");
    QCOMPARE(config.text("data.text_field"), std::string("body=text"));
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError, config.setAssignment("train.steps"));
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError, config.setAssignment("=3"));
}

void TestConfig::crossKeyValidation_data() {
    QTest::addColumn<QStringList>("assignments");
    QTest::addColumn<QString>("problem");
    QTest::newRow("no data") << QStringList{} << "data.path is empty";
    QTest::newRow("dim vs heads") << QStringList{"data.path=x.txt", "model.dim=100",
                                                 "model.heads=3"}
                                  << "divisible by model.heads";
    QTest::newRow("tabular needs csv")
        << QStringList{"data.path=x.jsonl", "recipe=tabular", "data.format=jsonl"}
        << "tabular data must be csv";
    QTest::newRow("epochs need a known row count")
        << QStringList{"data.path=x.txt", "train.epochs=3"}
        << "train.epochs works for recipe=tabular";
    QTest::newRow("stride beyond window")
        << QStringList{"data.path=x.txt", "model.seq_len=32", "data.stride=64"} << "data.stride";
    QTest::newRow("causal_lm needs a base")
        << QStringList{"data.path=x.txt", "recipe=causal_lm"}
        << "recipe=causal_lm fine-tunes a pretrained causal language model: set model.base";
    QTest::newRow("causal_lm trains by steps")
        << QStringList{"data.path=x.txt", "recipe=causal_lm", "model.base=m", "tokenizer=base",
                       "train.epochs=1"}
        << "for recipe=causal_lm set train.steps";
}

void TestConfig::crossKeyValidation() {
    QFETCH(QStringList, assignments);
    QFETCH(QString, problem);
    headroom::Config config;
    for (const QString &assignment : assignments) {
        config.setAssignment(assignment.toStdString());
    }
    try {
        config.validate();
        QFAIL("validate() accepted an inconsistent config");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(problem), error.what());
    }
}

void TestConfig::jsonRoundTripKeepsEveryValue() {
    headroom::Config config;
    config.set("recipe", "tabular");
    config.set("train.lr", "0.0125");
    config.set("data.path", "plants \"2024\".csv");
    const headroom::Config copy = headroom::Config::fromJson(config.toJson());
    QCOMPARE(copy.values(), config.values());
}

void TestConfig::jsonRejectsUnknownKeysAndBadShapes() {
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError,
                             headroom::Config::fromJson(R"({"model.width": "3"})"));
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError, headroom::Config::fromJson("[1, 2]"));
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError, headroom::Config::fromJson("{\"recipe\":"));
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError,
                             headroom::Config::fromJson(R"({"train.steps": [3]})"));
    // Numbers and booleans are accepted as JSON values too.
    const headroom::Config config =
        headroom::Config::fromJson(R"({"train.steps": 40, "train.lr": 0.01})");
    QCOMPARE(config.integer("train.steps"), 40);
    QCOMPARE(config.real("train.lr"), 0.01);
}

// A pretrained causal base is recipe=causal_lm; projects written before say gpt with a base, and
// both are language models.
void TestConfig::causalLmAndOlderGptBasesAreLanguageModels() {
    for (const char *recipe : {"causal_lm", "gpt"}) {
        headroom::Config config;
        for (const char *assignment :
             {"data.path=x.txt", "model.base=models/tiny", "tokenizer=base", "lora.rank=8"}) {
            config.setAssignment(assignment);
        }
        config.set("recipe", recipe);
        config.validate();
        QVERIFY(config.isLanguageModel());
        QCOMPARE(headroom::Config::fromJson(config.toJson()).text("recipe"), std::string(recipe));
    }
    QVERIFY(headroom::isLanguageModelRecipe("gpt"));
    QVERIFY(!headroom::isLanguageModelRecipe("tabular"));
    QVERIFY(!headroom::isLanguageModelRecipe("splade"));
}

void TestConfig::changedListsOnlyNonDefaults() {
    headroom::Config config;
    QVERIFY(config.changed().empty());
    config.set("train.steps", "77");
    config.set("recipe", "gpt"); // the default
    const auto changed = config.changed();
    QCOMPARE(changed.size(), std::size_t{1});
    QCOMPARE(changed.at("train.steps"), std::string("77"));
}

QTEST_GUILESS_MAIN(TestConfig)
#include "test_config.moc"
