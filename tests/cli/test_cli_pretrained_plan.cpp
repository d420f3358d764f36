#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// `estimate` (with its plan) and `fit` through the binary on projects over pretrained bases: the
// breakdown names the architecture, LoRA and the techniques plan, bad LoRA targets are bad input.
// The tiny folders come from the CTest fixture pretrained_reference; the estimator's accuracy is
// test_pretrained_memory's.
class TestCliPretrainedPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void estimateNamesTheArchitecture();
    void estimateJsonCarriesThePlan();
    void everyFamilyEstimates_data();
    void everyFamilyEstimates();
    void badLoraTargetIsBadInput();
    void fitStoresAMicroBatch();

private:
    using Result = test_support::CliResult;
    static Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString newProject(const QString &name, const QString &base);

    QTemporaryDir dir_;
    QString data_;
    QString reference_;
    QString llama_;
};

void TestCliPretrainedPlan::initTestCase() {
    QVERIFY(dir_.isValid());
    reference_ = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(reference_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run "
              "tests/interop/pretrained/setup.sh");
    }
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(300));
    llama_ = newProject("llama", "llama");
    QVERIFY(!llama_.isEmpty());
}

QString TestCliPretrainedPlan::newProject(const QString &name, const QString &base) {
    const QString project = QDir(dir_.path()).filePath(name + ".headroom");
    const Result result =
        cli({"new", project, "--base", reference_ + "/reference/" + base, "--data", data_, "--set",
             "model.seq_len=32", "--set", "train.micro_batch=2", "--set", "data.max_examples=200"});
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return project;
}

void TestCliPretrainedPlan::estimateNamesTheArchitecture() {
    const Result result = cli({"estimate", llama_, "--profile", "cpu-8gb"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains("model: LlamaForCausalLM · 3 layers") &&
                 out.contains("4 heads (2 key/value)") && out.contains("vocab 345"),
             qPrintable(out));
    for (const char *part : {"weights", "gradients", "optimizer state", "activations", "total peak",
                             "recommendation for", "lora.rank = 0"}) {
        QVERIFY2(out.contains(part), part);
    }
}

void TestCliPretrainedPlan::estimateJsonCarriesThePlan() {
    const Result result = cli({"estimate", llama_, "--json", "--set", "lora.rank=8", "--set",
                               "lora.targets=q_proj,v_proj", "--set", "memory.budget=64MiB"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QJsonObject document = QJsonDocument::fromJson(result.out).object();
    const QJsonObject estimate = document["estimate"].toObject();
    QVERIFY(estimate["model"].toString().startsWith("LlamaForCausalLM"));
    QVERIFY(estimate["trainable"].toInteger() > 0);
    QVERIFY(estimate["trainable"].toInteger() * 10 < estimate["parameters"].toInteger());
    const QJsonObject breakdown = estimate["breakdown"].toObject();
    QVERIFY(breakdown["activations"].toInteger() > 0);
    QCOMPARE(breakdown["optimizer"].toInteger(), 8 * estimate["trainable"].toInteger());
    const QJsonObject plan = document["plan"].toObject();
    QVERIFY(plan["feasible"].toBool());
    bool names_lora = false;
    for (const QJsonValue &decision : plan["decisions"].toArray()) {
        names_lora = names_lora || (decision["setting"].toString() == "lora.rank" &&
                                    decision["value"].toString() == "8");
    }
    QVERIFY(names_lora);
}

void TestCliPretrainedPlan::everyFamilyEstimates_data() {
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("architecture");
    QTest::newRow("gpt2") << "gpt2"
                          << "GPT2LMHeadModel";
    QTest::newRow("qwen2") << "qwen2"
                           << "Qwen2ForCausalLM";
    QTest::newRow("mistral") << "mistral"
                             << "MistralForCausalLM";
}

void TestCliPretrainedPlan::everyFamilyEstimates() {
    QFETCH(QString, base);
    QFETCH(QString, architecture);
    const QString project = newProject(base, base);
    QVERIFY(!project.isEmpty());
    for (const QStringList &settings :
         {QStringList{}, QStringList{"--set", "precision=bf16", "--set", "checkpointing=1"},
          QStringList{"--set", "lora.rank=4", "--set", "lora.targets=all-linear"}}) {
        const Result result = cli(QStringList{"estimate", project} + settings);
        QVERIFY2(result.exit_code == 0, qPrintable(result.err));
        QVERIFY2(QString::fromUtf8(result.out).contains("model: " + architecture),
                 result.out.constData());
    }
}

void TestCliPretrainedPlan::badLoraTargetIsBadInput() {
    const Result result =
        cli({"estimate", llama_, "--set", "lora.rank=4", "--set", "lora.targets=c_attn"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("c_attn") && result.err.contains("q_proj"),
             qPrintable(result.err));
}

void TestCliPretrainedPlan::fitStoresAMicroBatch() {
    const Result result = cli({"fit", llama_, "--set", "memory.budget=256MiB", "--set",
                               "train.accumulation=2", "--set", "lora.rank=4"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains("predicted peak") && out.contains("stored in"), qPrintable(out));
}

QTEST_GUILESS_MAIN(TestCliPretrainedPlan)
#include "test_cli_pretrained_plan.moc"
