#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// `estimate` (with its plan) and `fit` through the binary on projects over pretrained bases: the
// breakdown names the architecture, LoRA and the techniques plan, bad LoRA targets are bad input,
// and a LoRA run's frozen base format (model.base_dtype) is one more choice of the plan.
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
    void planListsTheBaseFormats();
    void tightBudgetHoldsTheBaseCompact();
    void fullFineTuneKeepsAnFp32Base();

private:
    using Result = test_support::CliResult;
    static Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString newProject(const QString &name, const QString &base, const QString &micro_batch = "2");
    // The plan for a project over the llama folder with one micro-batch of one example per step,
    // so that each row of the plan's table shows its techniques' smallest peak.
    QJsonObject planJson(const QStringList &settings);
    // A memory.budget whose margin fits LoRA on an int8 or nf4 base, but on no less compact one.
    std::int64_t quantizedOnlyBudget();

    QTemporaryDir dir_;
    QString data_;
    QString reference_;
    QString llama_;
    QString batch_of_one_;
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
    batch_of_one_ = newProject("batch-of-one", "llama", "1");
    QVERIFY(!batch_of_one_.isEmpty());
}

QString TestCliPretrainedPlan::newProject(const QString &name, const QString &base,
                                          const QString &micro_batch) {
    const QString project = QDir(dir_.path()).filePath(name + ".headroom");
    const Result result =
        cli({"new", project, "--base", reference_ + "/reference/" + base, "--data", data_, "--set",
             "model.seq_len=32", "--set", "train.micro_batch=" + micro_batch, "--set",
             "data.max_examples=200"});
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

QJsonObject TestCliPretrainedPlan::planJson(const QStringList &settings) {
    QStringList arguments{"estimate", batch_of_one_, "--json"};
    for (const QString &setting : settings) {
        arguments << "--set" << setting;
    }
    const Result result = cli(arguments);
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return QJsonDocument::fromJson(result.out).object()["plan"].toObject();
}

std::int64_t TestCliPretrainedPlan::quantizedOnlyBudget() {
    const QJsonObject plan = planJson({"lora.rank=8"});
    double quantized = 1e18;
    double other = 1e18;
    for (const QJsonValue &row : plan["alternatives"].toArray()) {
        const QString techniques = row["techniques"].toString();
        const bool compact = techniques.contains("int8 base") || techniques.contains("nf4 base");
        double &smallest = compact ? quantized : other;
        smallest = std::min(smallest, row["peak"].toDouble());
    }
    if (quantized >= other) {
        return 0;
    }
    return static_cast<std::int64_t>((quantized + other) / 2 /
                                     (1 - plan["safety_margin"].toDouble()));
}

// A LoRA project's plan table has a row per base format, each with its peak and speed and the
// override that selects it; with room to spare the base stays fp32.
void TestCliPretrainedPlan::planListsTheBaseFormats() {
    const Result result =
        cli({"estimate", batch_of_one_, "--profile", "cpu-8gb", "--set", "lora.rank=8"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString out = QString::fromUtf8(result.out);
    for (const char *row : {"fp32 · bf16 base", "fp32 · int8 base", "fp32 · nf4 base",
                            "bf16 · checkpointing · nf4 base", "model.base_dtype = fp32"}) {
        QVERIFY2(out.contains(row), qPrintable(QString(row) + "\n" + out));
    }
    const QJsonObject plan = planJson({"lora.rank=8"});
    QStringList formats;
    for (const QJsonValue &row : plan["alternatives"].toArray()) {
        for (const QJsonValue &assignment : row["overrides"].toArray()) {
            if (assignment.toString().startsWith("model.base_dtype=")) {
                formats << assignment.toString().mid(17);
            }
        }
        QVERIFY(row["peak"].toInteger() > 0 && row["relative_speed"].toDouble() > 0);
    }
    for (const char *format : {"fp32", "bf16", "int8", "nf4"}) {
        QVERIFY2(formats.contains(format), format);
    }
    QVERIFY(plan["overrides"].toArray().contains("model.base_dtype=fp32"));
}

// A budget that only a quantized base fits: the plan holds the base in int8 or nf4, names the bytes
// it saves, and `fit` verifies it with real steps on that base and stores it.
void TestCliPretrainedPlan::tightBudgetHoldsTheBaseCompact() {
    const std::int64_t budget = quantizedOnlyBudget();
    QVERIFY(budget > 0);
    const QString limit = "memory.budget=" + QString::number(budget);
    const QJsonObject plan = planJson({"lora.rank=8", limit});
    QVERIFY(plan["feasible"].toBool());
    const QJsonArray overrides = plan["overrides"].toArray();
    QVERIFY2(overrides.contains("model.base_dtype=int8") ||
                 overrides.contains("model.base_dtype=nf4"),
             QJsonDocument(overrides).toJson().constData());
    bool named = false;
    for (const QJsonValue &decision : plan["decisions"].toArray()) {
        if (decision["setting"].toString() == "model.base_dtype") {
            named = decision["reason"].toString().contains("off the peak") &&
                    decision["reason"].toString().contains("slower (an estimate)");
        }
    }
    QVERIFY(named);

    const QString project = newProject("quantized", "llama", "1");
    QVERIFY(!project.isEmpty());
    const Result fitted = cli({"fit", project, "--set", "lora.rank=8", "--set", limit});
    QVERIFY2(fitted.exit_code == 0, qPrintable(fitted.err + fitted.out));
    const QString out = QString::fromUtf8(fitted.out);
    QVERIFY2(out.contains("stored in") &&
                 (out.contains("model.base_dtype=int8") || out.contains("model.base_dtype=nf4")),
             qPrintable(out));
}

// A full fine-tune trains every weight in fp32: no base format in its plan or its table, and where
// it cannot fit, the plan names the LoRA base that would.
void TestCliPretrainedPlan::fullFineTuneKeepsAnFp32Base() {
    const std::int64_t budget = quantizedOnlyBudget();
    QVERIFY(budget > 0);
    for (const QStringList &settings :
         {QStringList{}, QStringList{"memory.budget=" + QString::number(budget)}}) {
        const QJsonObject plan = planJson(settings);
        QVERIFY(!plan.isEmpty());
        for (const QJsonValue &row : plan["alternatives"].toArray()) {
            QVERIFY2(!row["techniques"].toString().contains("base"),
                     qPrintable(row["techniques"].toString()));
        }
        for (const QJsonValue &assignment : plan["overrides"].toArray()) {
            QVERIFY(!assignment.toString().startsWith("model.base_dtype"));
        }
        for (const QJsonValue &decision : plan["decisions"].toArray()) {
            QVERIFY(decision["setting"].toString() != "model.base_dtype");
        }
        if (!settings.isEmpty()) {
            QVERIFY(!plan["feasible"].toBool());
            const QString summary = plan["summary"].toString();
            QVERIFY2(summary.contains("lora.rank=8 model.base_dtype="), qPrintable(summary));
        }
    }
}

QTEST_GUILESS_MAIN(TestCliPretrainedPlan)
#include "test_cli_pretrained_plan.moc"
