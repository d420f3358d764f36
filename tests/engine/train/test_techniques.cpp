#include "compat/torch_compat.h"
#include "sample_files.h"
#include "train/techniques.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/workflow.h>

#include <QTemporaryDir>
#include <QtTest>

using namespace headroom::train;
using namespace test_support;

class TestTechniques : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void configKeysBecomeTechniques();
    void techniquesRoundTripAsJson();
    void describeNamesWhatIsOn();
    void runsDescribeTheirTechniques();
    void refusedCombinationsNameTheAlternative_data();
    void refusedCombinationsNameTheAlternative();
    void ladderParsesInOrder();
    void badLaddersAreRejected_data();
    void badLaddersAreRejected();
    void rungsSkipWhatCannotHelp();
    void allocatorSettingsAreRefusedOffCuda();
    void checkpointedRunMatchesPlainRunWithDropout();
    void bf16RunLearnsAndRecordsItsTechnique();
    void adamw8bitRunResumesExactly();
    void sessionRefusesUnsupportedTechniquesAsBadInput_data();
    void sessionRefusesUnsupportedTechniquesAsBadInput();

private:
    QTemporaryDir dir_;
    QString text_path_;
};

void TestTechniques::initTestCase() {
    QVERIFY(dir_.isValid());
    text_path_ = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
}

void TestTechniques::configKeysBecomeTechniques() {
    headroom::Config config;
    QCOMPARE(techniquesFromConfig(config).describe(), std::string("fp32"));
    config.set("precision", "bf16");
    config.set("checkpointing", "2");
    config.set("optimizer", "adamw8bit");
    const Techniques techniques = techniquesFromConfig(config);
    QVERIFY(techniques.precision == Precision::Bf16);
    QCOMPARE(techniques.checkpoint_every, std::int64_t{2});
    QVERIFY(techniques.adamw8bit);
    QVERIFY(!techniques.offload);
    QVERIFY_THROWS_EXCEPTION(headroom::ConfigError, config.set("precision", "int8"));
}

void TestTechniques::techniquesRoundTripAsJson() {
    Techniques techniques;
    techniques.precision = Precision::Fp16;
    techniques.checkpoint_every = 3;
    techniques.offload = true;
    QVERIFY(Techniques::fromJson(techniques.toJson()) == techniques);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, Techniques::fromJson("{\"precision\":1}"));
}

void TestTechniques::describeNamesWhatIsOn() {
    Techniques techniques;
    techniques.precision = Precision::Bf16;
    techniques.checkpoint_every = 1;
    techniques.adamw8bit = true;
    QCOMPARE(techniques.describe(), std::string("bf16 · checkpointing every block · 8-bit AdamW"));
    techniques.checkpoint_every = 2;
    QVERIFY(techniques.describe().find("every 2 blocks") != std::string::npos);
}

void TestTechniques::runsDescribeTheirTechniques() {
    headroom::Config config;
    config.set("precision", "bf16");
    config.set("checkpointing", "2");
    headroom::RunRecord run;
    run.config_json = config.toJson();
    // Still running: from what its config asks for.
    QCOMPARE(headroom::describeTechniques(run), std::string("bf16 · checkpointing every 2 blocks"));
    // Ended: from its summary, where the ladder's rungs are included.
    run.summary_json = R"({"techniques":"bf16 · checkpointing every block · 8-bit AdamW"})";
    QCOMPARE(headroom::describeTechniques(run),
             std::string("bf16 · checkpointing every block · 8-bit AdamW"));
    run = headroom::RunRecord{};
    run.config_json = "not json";
    QCOMPARE(headroom::describeTechniques(run), std::string("fp32"));
}

void TestTechniques::refusedCombinationsNameTheAlternative_data() {
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("checkpointing");
    QTest::addColumn<bool>("offload");
    QTest::addColumn<bool>("adamw8bit");
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("expected");
#if !HEADROOM_TORCH_AT_LEAST(2, 2) // 2.2 and newer autocast fp16 on the CPU too
    QTest::newRow("fp16 on cpu") << "fp16" << 0 << false << false << "gpt"
                                 << "bf16";
#endif
    QTest::newRow("offload on cpu") << "fp32" << 0 << true << false << "gpt"
                                    << "use offload.optimizer=off";
    QTest::newRow("checkpointing tabular") << "fp32" << 1 << false << false << "tabular"
                                           << "use checkpointing=0";
}

void TestTechniques::refusedCombinationsNameTheAlternative() {
    QFETCH(QString, precision);
    QFETCH(int, checkpointing);
    QFETCH(bool, offload);
    QFETCH(bool, adamw8bit);
    QFETCH(QString, recipe);
    QFETCH(QString, expected);
    headroom::Config config;
    config.set("precision", precision.toStdString());
    config.set("checkpointing", std::to_string(checkpointing));
    config.set("offload.optimizer", offload ? "on" : "off");
    config.set("optimizer", adamw8bit ? "adamw8bit" : "adamw");
    try {
        checkTechniques(techniquesFromConfig(config), torch::Device(torch::kCPU),
                        recipe.toStdString());
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).contains(expected), error.what());
    }
}

void TestTechniques::ladderParsesInOrder() {
    const std::vector<LadderRung> rungs = parseLadder("bf16, checkpointing,offload");
    QCOMPARE(rungs.size(), std::size_t{3});
    QVERIFY(rungs[0] == LadderRung::Bf16);
    QVERIFY(rungs[1] == LadderRung::Checkpointing);
    QVERIFY(rungs[2] == LadderRung::Offload);
    QVERIFY(parseLadder("none").empty());
    headroom::Config config;
    const std::vector<LadderRung> defaults = parseLadder(config.text("recovery.ladder"));
    QCOMPARE(defaults.size(), std::size_t{6});
    // The base is quantized after the cheaper rungs and before offload.
    QVERIFY(defaults[3] == LadderRung::Int8Base);
    QVERIFY(defaults[4] == LadderRung::Nf4Base);
    QVERIFY(defaults[5] == LadderRung::Offload);
}

void TestTechniques::badLaddersAreRejected_data() {
    QTest::addColumn<QString>("ladder");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown") << "checkpointing,fp8"
                             << "\"fp8\"";
    QTest::newRow("twice") << "bf16,bf16"
                           << "twice";
    QTest::newRow("empty item") << "bf16,,offload"
                                << "accepted";
}

void TestTechniques::badLaddersAreRejected() {
    QFETCH(QString, ladder);
    QFETCH(QString, expected);
    try {
        parseLadder(ladder.toStdString());
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).contains(expected), error.what());
        QVERIFY2(QString(error.what()).contains("recovery.ladder"), error.what());
    }
}

void TestTechniques::rungsSkipWhatCannotHelp() {
    const torch::Device cpu(torch::kCPU);
    Techniques active;
    QVERIFY(rungSkipReason(LadderRung::Checkpointing, active, cpu, "gpt").empty());
    QVERIFY(!rungSkipReason(LadderRung::Checkpointing, active, cpu, "tabular").empty());
    QVERIFY(rungSkipReason(LadderRung::Bf16, active, cpu, "gpt").empty());
    QVERIFY(rungSkipReason(LadderRung::AdamW8bit, active, cpu, "tabular").empty());
    QVERIFY(!rungSkipReason(LadderRung::Offload, active, cpu, "gpt").empty());
    active = withRung(withRung(active, LadderRung::Checkpointing), LadderRung::Bf16);
    QCOMPARE(active.checkpoint_every, std::int64_t{1});
    QVERIFY(active.precision == Precision::Bf16);
    QVERIFY(!rungSkipReason(LadderRung::Checkpointing, active, cpu, "gpt").empty());
    QVERIFY(!rungSkipReason(LadderRung::Bf16, active, cpu, "gpt").empty());

    // Quantizing the base: only a LoRA run's frozen pretrained base, and only more compactly.
    QVERIFY(QString::fromStdString(rungSkipReason(LadderRung::Nf4Base, active, cpu, "gpt"))
                .contains("weights that train need full precision"));
    QVERIFY(rungSkipReason(LadderRung::Int8Base, active, cpu, "gpt", true).empty());
    active = withRung(active, LadderRung::Int8Base);
    QVERIFY(active.base_format == headroom::BaseFormat::Int8);
    QCOMPARE(rungSkipReason(LadderRung::Int8Base, active, cpu, "gpt", true),
             std::string("the base is already int8"));
    QVERIFY(rungSkipReason(LadderRung::Nf4Base, active, cpu, "gpt", true).empty());
    active = withRung(active, LadderRung::Nf4Base);
    QVERIFY(!rungSkipReason(LadderRung::Int8Base, active, cpu, "gpt", true).empty());
    QCOMPARE(active.describe(), std::string("bf16 · checkpointing every block · nf4 base"));
    QVERIFY(Techniques::fromJson(active.toJson()) == active);
    // Records from before base formats existed read as fp32.
    QVERIFY(Techniques::fromJson(R"({"precision":"fp32","checkpointing":0,"optimizer":"adamw",)"
                                 R"("offload":false})")
                .base_format == headroom::BaseFormat::Fp32);
}

void TestTechniques::allocatorSettingsAreRefusedOffCuda() {
    headroom::Config config;
    const torch::Device cpu(torch::kCPU);
    QCOMPARE(allocatorSettings(config, cpu), std::string());
    config.set("memory.max_split_size", "512MiB");
    try {
        allocatorSettings(config, cpu);
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).contains("memory.max_split_size"), error.what());
        QVERIFY2(QString(error.what()).contains("CUDA"), error.what());
    }
    headroom::Config expandable;
    expandable.set("memory.expandable_segments", "on");
#if TORCH_VERSION_MAJOR < 2
    try {
        allocatorSettings(expandable, cpu);
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).contains("2.1"), error.what());
    }
#endif
}

void TestTechniques::checkpointedRunMatchesPlainRunWithDropout() {
    // Dropout on: recomputation must replay the same masks, so the runs agree exactly.
    const QStringList settings = kTinyGpt + QStringList{"model.dropout=0.2", "train.steps=6"};
    Recorder plain;
    QCOMPARE(name(runSession(createTestProject(dir_.filePath("plain.headroom"), text_path_, "gpt",
                                               settings),
                             plain)
                      .state),
             name(headroom::SessionState::Finished));
    Recorder checkpointed;
    QCOMPARE(name(runSession(createTestProject(dir_.filePath("ckpt.headroom"), text_path_, "gpt",
                                               settings),
                             checkpointed, {"checkpointing=1"})
                      .state),
             name(headroom::SessionState::Finished));
    QCOMPARE(checkpointed.recorded.digests, plain.recorded.digests);
    QCOMPARE(checkpointed.recorded.losses, plain.recorded.losses);
}

void TestTechniques::bf16RunLearnsAndRecordsItsTechnique() {
    const QString project = createTestProject(dir_.filePath("bf16.headroom"), text_path_, "gpt",
                                              kTinyGpt + QStringList{"train.steps=30"});
    Recorder recorder;
    QCOMPARE(name(runSession(project, recorder, {"precision=bf16"}).state),
             name(headroom::SessionState::Finished));
    QVERIFY2(recorder.recorded.losses.back() < 0.8 * recorder.recorded.losses.front(),
             qPrintable(QString("%1 -> %2")
                            .arg(recorder.recorded.losses.front())
                            .arg(recorder.recorded.losses.back())));
    const headroom::Project opened = headroom::Project::open(project.toStdString());
    QVERIFY(QString::fromStdString(opened.runs().back().summary_json).contains("bf16"));
}

void TestTechniques::adamw8bitRunResumesExactly() {
    const QStringList settings = kTinyGpt + QStringList{"optimizer=adamw8bit", "model.dim=64"};
    Recorder whole;
    runSession(createTestProject(dir_.filePath("8bit-whole.headroom"), text_path_, "gpt", settings),
               whole);
    const QString split_project =
        createTestProject(dir_.filePath("8bit-split.headroom"), text_path_, "gpt", settings);
    Recorder first;
    runSession(split_project, first, {}, 8);
    Recorder second;
    QCOMPARE(name(runSession(split_project, second, {}, 0, true).state),
             name(headroom::SessionState::Finished));
    std::vector<double> joined = first.recorded.losses;
    joined.insert(joined.end(), second.recorded.losses.begin(), second.recorded.losses.end());
    QCOMPARE(joined, whole.recorded.losses);
}

void TestTechniques::sessionRefusesUnsupportedTechniquesAsBadInput_data() {
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QString>("expected");
#if !HEADROOM_TORCH_AT_LEAST(2, 2)
    QTest::newRow("fp16") << "precision=fp16"
                          << "bf16";
#endif
    QTest::newRow("offload") << "offload.optimizer=on"
                             << "offload.optimizer=off";
    QTest::newRow("gc threshold") << "memory.gc_threshold=0.6"
                                  << "memory.gc_threshold";
    QTest::newRow("ladder") << "recovery.ladder=shrink"
                            << "recovery.ladder";
}

void TestTechniques::sessionRefusesUnsupportedTechniquesAsBadInput() {
    QFETCH(QString, setting);
    QFETCH(QString, expected);
    static int counter = 0;
    const QString project = createTestProject(
        dir_.filePath(QString("refused-%1.headroom").arg(++counter)), text_path_, "gpt", kTinyGpt);
    Recorder recorder;
    const headroom::RunResult result = runSession(project, recorder, {setting});
    QVERIFY(result.failure == headroom::FailureKind::BadInput);
    QVERIFY2(QString::fromStdString(result.message).contains(expected), result.message.c_str());
    QVERIFY(recorder.recorded.losses.empty());
}

QTEST_GUILESS_MAIN(TestTechniques)
#include "test_techniques.moc"
