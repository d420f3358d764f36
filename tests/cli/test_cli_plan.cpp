#include "cli_support.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

// `estimate`, `fit` and `profiles` through the binary, on a project made from the bundled
// sample. The estimator's numbers are not asserted here (test_plan does that); the output's
// shape, the JSON contract and the exit codes are.
class TestCliPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void helpListsThePlannerCommands();
    void estimatePrintsBreakdownAndRecommendation();
    void estimateJsonIsOneObject();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
    void fitThatCannotFitExitsWithThree();
    void profilesListsTheCatalogue();
    void profilesJsonIsOneObject();

private:
    using Result = test_support::CliResult;
    static Result cli(const QStringList &arguments);
    static QJsonObject parseObject(const QByteArray &out);

    QTemporaryDir dir_;
    QString project_;
};

TestCliPlan::Result TestCliPlan::cli(const QStringList &arguments) {
    return test_support::runCli(arguments);
}

QJsonObject TestCliPlan::parseObject(const QByteArray &out) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(out, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        return {};
    }
    return document.object();
}

void TestCliPlan::initTestCase() {
    QVERIFY(dir_.isValid());
    project_ = QDir(dir_.path()).filePath("sample.headroom");
    const Result result =
        cli({"new", project_, "--recipe", "gpt", "--data",
             QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt"), "--set",
             "model.layers=1", "--set", "model.dim=32", "--set", "model.heads=2", "--set",
             "model.seq_len=16", "--set", "train.micro_batch=4"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
}

void TestCliPlan::helpListsThePlannerCommands() {
    const Result result = cli({"--help"});
    QCOMPARE(result.exit_code, 0);
    for (const char *command : {"estimate", "fit", "profiles"}) {
        QVERIFY2(result.out.contains(command), command);
    }
}

void TestCliPlan::estimatePrintsBreakdownAndRecommendation() {
    const Result result = cli({"estimate", project_});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString out = QString::fromUtf8(result.out);
    for (const char *label :
         {"model:", "techniques:", "micro-batch x accumulation:", "weights", "gradients",
          "optimizer state", "activations", "overhead", "total peak", "budget", "recommendation"}) {
        QVERIFY2(out.contains(QLatin1String(label)), qPrintable(label + ("\n" + out)));
    }
    // The budget line ends in a verdict, whatever the numbers are.
    const QRegularExpression verdict(
        QStringLiteral(R"(budget +(none|\S+ \S+: (fits|does not fit by \S+ \S+)))"));
    QVERIFY2(verdict.match(out).hasMatch(), qPrintable(out));
}

void TestCliPlan::estimateJsonIsOneObject() {
    const Result result = cli({"estimate", project_, "--json", "--set", "precision=fp32"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QJsonObject document = parseObject(result.out);
    QVERIFY2(!document.isEmpty(), result.out.constData());
    QCOMPARE(document.keys(), (QStringList{"estimate", "plan"}));

    const QJsonObject estimate = document["estimate"].toObject();
    const QJsonObject breakdown = estimate["breakdown"].toObject();
    QCOMPARE(breakdown.keys(),
             (QStringList{"activations", "gradients", "optimizer", "overhead", "weights"}));
    for (const QString &key : breakdown.keys()) {
        QVERIFY2(breakdown[key].isDouble(), qPrintable(key));
    }
    for (const char *key : {"recipe", "model", "device", "techniques", "parameters", "trainable",
                            "micro_batch", "accumulation", "host_bytes", "model_peak", "correction",
                            "history_samples", "peak", "budget", "fits", "notes"}) {
        QVERIFY2(estimate.contains(key), key);
    }
    QVERIFY(estimate["fits"].isBool());
    QVERIFY(estimate["notes"].isArray());

    const QJsonObject plan = document["plan"].toObject();
    for (const char *key : {"feasible", "summary", "profile", "safety_margin", "overrides",
                            "decisions", "estimate", "alternatives"}) {
        QVERIFY2(plan.contains(key), key);
    }
    QVERIFY(plan["decisions"].isArray());
    QVERIFY(plan["alternatives"].isArray());
    QVERIFY(plan["estimate"].toObject().contains("breakdown"));
    QVERIFY(plan["profile"].toObject().contains("budget_bytes"));
    for (const QJsonValue &decision : plan["decisions"].toArray()) {
        QCOMPARE(decision.toObject().keys(), (QStringList{"reason", "setting", "value"}));
    }
}

void TestCliPlan::badInputExitsWithTwo_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("named");
    for (const char *command : {"estimate", "fit"}) {
        const QString name = QString::fromLatin1(command);
        QTest::addRow("%s unknown profile", command)
            << name << QStringList{"--profile", "quantum-9000gb"} << "quantum-9000gb";
        QTest::addRow("%s unknown key", command)
            << name << QStringList{"--set", "model.width=3"} << "model.width";
        QTest::addRow("%s bad value", command)
            << name << QStringList{"--set", "precision=fp8"} << "precision";
        QTest::addRow("%s not an assignment", command)
            << name << QStringList{"--set", "layers"} << "layers";
        QTest::addRow("%s missing project", command)
            << name << QStringList{"MISSING"} << "missing.headroom";
    }
}

void TestCliPlan::badInputExitsWithTwo() {
    QFETCH(QString, command);
    QFETCH(QStringList, arguments);
    QFETCH(QString, named);
    QStringList all{command};
    if (arguments.first() == "MISSING") {
        named = QDir(dir_.path()).filePath(named);
        all << named;
    } else {
        all << project_ << arguments;
    }
    const Result result = cli(all);
    QVERIFY2(result.exit_code == 2, qPrintable(result.err));
    QVERIFY2(result.err.contains(named), qPrintable(result.err));
    QVERIFY(result.out.isEmpty());
}

void TestCliPlan::fitThatCannotFitExitsWithThree() {
    const Result result = cli({"fit", project_, "--set", "memory.budget=64KiB", "--json"});
    QVERIFY2(result.exit_code == 3, qPrintable(result.err));
    QVERIFY2(result.err.contains("cannot fit"), qPrintable(result.err));
    const QJsonObject document = parseObject(result.out);
    QVERIFY2(!document.isEmpty(), result.out.constData());
    QVERIFY(document["probes"].isArray());
    QVERIFY(document["plan"].toObject().contains("summary"));
    QCOMPARE(document["stored"].toBool(true), false);
}

void TestCliPlan::profilesListsTheCatalogue() {
    const Result result = cli({"profiles"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    QVERIFY(result.out.startsWith("id "));
    QVERIFY(result.out.contains("--profile ID"));
}

void TestCliPlan::profilesJsonIsOneObject() {
    const Result result = cli({"profiles", "--json"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QJsonObject document = parseObject(result.out);
    QVERIFY2(!document.isEmpty(), result.out.constData());
    QVERIFY(document["version"].toInt() >= 1);
    QVERIFY(document["profiles"].isArray());
    QStringList ids;
    for (const QJsonValue &value : document["profiles"].toArray()) {
        const QJsonObject profile = value.toObject();
        for (const char *key : {"id", "label", "kind", "device", "memory_bytes", "budget_bytes",
                                "bf16", "fp16", "detected", "note"}) {
            QVERIFY2(profile.contains(key), key);
        }
        QVERIFY(QStringList({"cpu", "cuda", "mps"}).contains(profile["kind"].toString()));
        QVERIFY2(!ids.contains(profile["id"].toString()), "profile ids are unique");
        ids << profile["id"].toString();
    }
    for (const char *id : {"cuda-4gb", "cuda-8gb", "cuda-80gb", "mps-16gb", "mps-128gb", "cpu-32gb",
                           "detected-cpu"}) {
        QVERIFY2(ids.contains(id), id);
    }
}

QTEST_GUILESS_MAIN(TestCliPlan)
#include "test_cli_plan.moc"
