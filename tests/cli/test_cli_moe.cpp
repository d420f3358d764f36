#include "cli_support.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

// Mixture-of-Experts through the binary: the moe.* keys, the routing figures in `train --json`,
// `runs --json` and `export --metrics`, the model changes `plan` prices, and the refusals.
class TestCliMoe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void trainPrintsRoutingPerStep();
    void runsJsonIncludesRouting();
    void metricsExportHasRoutingColumns();
    void planPricesModelChanges();
    void badMoeSettingsAreRefused_data();
    void badMoeSettingsAreRefused();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString corpus_;
    QString project_;
    test_support::CliResult trained_;
};

namespace {
const QStringList kTinyMoe = {"--set", "model.layers=2",       "--set", "model.heads=2",
                              "--set", "model.dim=16",         "--set", "model.seq_len=16",
                              "--set", "moe.experts=4",        "--set", "moe.top_k=2",
                              "--set", "moe.every=2",          "--set", "moe.capacity_factor=1",
                              "--set", "train.micro_batch=4",  "--set", "train.steps=4",
                              "--set", "train.eval_every=2",   "--set", "train.eval_batches=1",
                              "--set", "data.max_examples=400"};

QList<QJsonObject> jsonLines(const QByteArray &out) {
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonDocument document = QJsonDocument::fromJson(line);
        if (document.isObject()) {
            lines.push_back(document.object());
        }
    }
    return lines;
}

// One block of moe.every=2 over two layers, four experts, shares summing to 1.
bool isExpertLoad(const QJsonValue &value) {
    const QJsonArray blocks = value.toArray();
    if (blocks.size() != 1 || blocks[0].toArray().size() != 4) {
        return false;
    }
    double sum = 0;
    for (const QJsonValue &share : blocks[0].toArray()) {
        sum += share.toDouble();
    }
    return std::abs(sum - 1.0) < 1e-9;
}
} // namespace

void TestCliMoe::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt");
    project_ = path("moe.headroom");
    const auto created = test_support::runCli(
        QStringList{"new", project_, "--recipe", "gpt", "--data", corpus_} + kTinyMoe);
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    trained_ = test_support::runCli({"train", project_, "--json"});
    QVERIFY2(trained_.exit_code == 0, qPrintable(trained_.err));
}

void TestCliMoe::trainPrintsRoutingPerStep() {
    int steps = 0;
    for (const QJsonObject &line : jsonLines(trained_.out)) {
        if (line["type"].toString() != "step") {
            continue;
        }
        ++steps;
        const QJsonObject moe = line["moe"].toObject();
        QVERIFY2(moe["aux_loss"].toDouble() > 0.5, qPrintable(QJsonDocument(line).toJson()));
        QVERIFY(moe["z_loss"].toDouble() > 0);
        QVERIFY(moe["dropped_fraction"].toDouble() >= 0);
        QVERIFY(moe["dropped_fraction"].toDouble() <= 1);
        QVERIFY(isExpertLoad(moe["expert_load"]));
    }
    QCOMPARE(steps, 4);
}

void TestCliMoe::runsJsonIncludesRouting() {
    const auto runs = test_support::runCli({"runs", project_, "--json"});
    QCOMPARE(runs.exit_code, 0);
    const QJsonArray list = QJsonDocument::fromJson(runs.out).array();
    QCOMPARE(list.size(), 1);
    const QJsonObject moe = list[0].toObject()["moe"].toObject();
    QCOMPARE(moe["steps"].toInt(), 4);
    QCOMPARE(moe["last"].toObject()["step"].toInt(), 4);
    QVERIFY(isExpertLoad(moe["last"].toObject()["expert_load"]));
    QVERIFY(isExpertLoad(moe["mean"].toObject()["expert_load"]));
    QVERIFY(moe["mean"].toObject()["aux_loss"].toDouble() > 0.5);
    QVERIFY(moe["mean"].toObject().contains("dropped_fraction"));
    // The summary is what the step lines said: the last step's figures and their means.
    QList<QJsonObject> step_moe;
    for (const QJsonObject &line : jsonLines(trained_.out)) {
        if (line["type"].toString() == "step") {
            step_moe.push_back(line["moe"].toObject());
        }
    }
    QCOMPARE(step_moe.size(), 4);
    for (const char *key : {"aux_loss", "z_loss", "dropped_fraction"}) {
        double sum = 0;
        for (const QJsonObject &step : step_moe) {
            sum += step[key].toDouble();
        }
        QVERIFY2(std::abs(moe["mean"].toObject()[key].toDouble() - sum / 4) < 1e-9, key);
        QVERIFY2(std::abs(moe["last"].toObject()[key].toDouble() -
                          step_moe.back()[key].toDouble()) < 1e-9,
                 key);
    }
    QCOMPARE(moe["last"].toObject()["expert_load"], step_moe.back()["expert_load"]);

    // A dense run has no routing.
    const QString dense = path("dense.headroom");
    QCOMPARE(test_support::runCli({"new", dense, "--recipe", "gpt", "--data", corpus_, "--set",
                                   "model.layers=1", "--set", "model.dim=16", "--set",
                                   "train.steps=1", "--set", "data.max_examples=200"})
                 .exit_code,
             0);
    QCOMPARE(test_support::runCli({"train", dense}).exit_code, 0);
    const QJsonArray dense_runs =
        QJsonDocument::fromJson(test_support::runCli({"runs", dense, "--json"}).out).array();
    QCOMPARE(dense_runs.size(), 1);
    QVERIFY(!dense_runs[0].toObject().contains("moe"));
}

void TestCliMoe::metricsExportHasRoutingColumns() {
    const QString csv = path("metrics.csv");
    const auto exported =
        test_support::runCli({"export", project_, "--run", "1", "--metrics", csv});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    const QList<QByteArray> header = lines[0].split(',');
    for (const char *column :
         {"moe_aux_loss", "moe_z_loss", "moe_dropped_fraction", "moe_load_0_0", "moe_load_0_3"}) {
        QVERIFY2(header.contains(column), column);
    }
    QVERIFY(!header.contains("moe_load_1_0")); // one MoE block
    QCOMPARE(lines[4].split(',').size(), header.size());
}

// `plan` (estimate's alias) lists half the experts and top-1; capacity 1 and two layers leave
// no capacity or every-other-block change.
void TestCliMoe::planPricesModelChanges() {
    const auto json = test_support::runCli({"plan", project_, "--json"});
    QVERIFY2(json.exit_code == 0, qPrintable(json.err));
    const QJsonObject plan = QJsonDocument::fromJson(json.out).object()["plan"].toObject();
    const QJsonArray variants = plan["variants"].toArray();
    QCOMPARE(variants.size(), 2);
    QCOMPARE(variants[0].toObject()["overrides"].toArray()[0].toString(), QString("moe.experts=2"));
    QCOMPARE(variants[1].toObject()["overrides"].toArray()[0].toString(), QString("moe.top_k=1"));
    QVERIFY(variants[0].toObject()["parameters"].toDouble() <
            plan["estimate"].toObject()["parameters"].toDouble());
    QVERIFY(variants[0].toObject()["peak"].toDouble() > 0);

    const auto text = test_support::runCli({"plan", project_});
    QVERIFY2(text.exit_code == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("changes to the model") &&
                 text.out.contains("2 experts instead of 4") && text.out.contains("moe.top_k=1"),
             text.out.constData());
}

void TestCliMoe::badMoeSettingsAreRefused_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString table = QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/greenhouse.csv");
    QTest::newRow("tabular") << QStringList{"--recipe", "tabular", "--data",
                                            table,      "--set",   "moe.experts=4"}
                             << "moe.experts=4: Mixture-of-Experts blocks are part of the gpt "
                                "recipe";
    QTest::newRow("top_k above experts")
        << QStringList{"--recipe", "gpt", "--set", "moe.experts=2", "--set", "moe.top_k=3"}
        << "moe.top_k (3) must be at most moe.experts (2)";
    QTest::newRow("bad value") << QStringList{"--recipe", "gpt", "--set", "moe.jitter=2"}
                               << "bad value '2' for moe.jitter";
}

void TestCliMoe::badMoeSettingsAreRefused() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    static int counter = 0;
    QStringList command = {"new", path(QString("bad-%1.headroom").arg(++counter))};
    if (!arguments.contains("--data")) {
        command << "--data" << corpus_;
    }
    const auto result = test_support::runCli(command + arguments);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
}

QTEST_GUILESS_MAIN(TestCliMoe)
#include "test_cli_moe.moc"
