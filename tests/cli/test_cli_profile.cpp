#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

// `headroom-cli profile` as a user runs it: the tables, --json, --trace, and bad input refused
// with a message that names the problem.
class TestCliProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void printsOperatorAndModuleTables();
    void jsonIsSortedAndTraceIsWritten();
    void recordsNoRun();
    void badInputIsRefused_data();
    void badInputIsRefused();

private:
    using Result = test_support::CliResult;
    Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString project_;
    QString no_data_;
};

namespace {

const QStringList kTiny = {"--set", "model.layers=2",        "--set", "model.heads=2",
                           "--set", "model.dim=32",          "--set", "model.seq_len=16",
                           "--set", "train.micro_batch=4",   "--set", "train.steps=20",
                           "--set", "data.shuffle_buffer=64"};

} // namespace

void TestCliProfile::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    project_ = path("tiny.headroom");
    const Result made =
        cli(QStringList{"new", project_, "--recipe", "gpt", "--data", corpus} + kTiny);
    QVERIFY2(made.exit_code == 0, qPrintable(made.err));

    // A project whose data file has gone.
    const QString gone =
        test_support::writeFile(QDir(dir_.path()), "gone.txt", test_support::storyText(50));
    no_data_ = path("nodata.headroom");
    const Result orphan =
        cli(QStringList{"new", no_data_, "--recipe", "gpt", "--data", gone} + kTiny);
    QVERIFY2(orphan.exit_code == 0, qPrintable(orphan.err));
    QVERIFY(QFile::remove(gone));
}

void TestCliProfile::printsOperatorAndModuleTables() {
    const Result result = cli({"profile", project_, "--steps", "2", "--top", "5"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains("Profile of 2 steps (after 1 not recorded) on cpu"), qPrintable(out));
    QVERIFY(out.contains("self CPU mem"));
    QVERIFY(out.contains("(5 of "));
    QVERIFY(out.contains("aten::"));
    QVERIFY(out.contains("Activation memory held for backward"));
    for (const char *module : {"embeddings", "blocks.0", "blocks.1", "  attention", "  mlp"}) {
        QVERIFY2(out.contains(module), module);
    }
    QVERIFY(result.err.contains("profiling 2 steps"));
}

void TestCliProfile::jsonIsSortedAndTraceIsWritten() {
    const QString trace = path("trace.json");
    const Result result = cli({"profile", project_, "--steps", "1", "--json", "--sort", "calls",
                               "--trace", trace, "--set", "train.accumulation=2"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    QJsonParseError error;
    const QJsonObject json = QJsonDocument::fromJson(result.out.trimmed(), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json["type"].toString(), QString("profile"));
    QCOMPARE(json["steps"].toInt(), 1);
    QCOMPARE(json["accumulation"].toInt(), 2);
    const QJsonArray operators = json["operators"].toArray();
    QVERIFY(operators.size() > 20); // every operator without --top
    for (int i = 1; i < operators.size(); ++i) {
        QVERIFY(operators[i - 1].toObject()["calls"].toInteger() >=
                operators[i].toObject()["calls"].toInteger());
    }
    for (const QJsonValue &value : operators) {
        const QJsonObject row = value.toObject();
        QVERIFY(row["total_us"].toDouble() >= 0 && row["self_us"].toDouble() >= 0);
        QVERIFY(row.contains("self_cpu_memory") && row.contains("self_device_memory"));
    }
    QStringList modules;
    for (const QJsonValue &value : json["modules"].toArray()) {
        modules << value.toObject()["name"].toString();
    }
    QVERIFY2(modules.contains("blocks.1.mlp"), qPrintable(modules.join(", ")));
    QVERIFY(json["activation_bytes"].toInteger() > 0);
    QCOMPARE(json["forward_passes"].toInt(), 2);

    QFile file(trace);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject chrome = QJsonDocument::fromJson(file.readAll(), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray events = chrome["traceEvents"].toArray();
    int complete = 0;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        if (event["ph"].toString() == "X") {
            ++complete;
            QVERIFY(event["dur"].toDouble() >= 0 && event["ts"].toDouble() >= 0);
        }
    }
    QCOMPARE(qint64(complete), json["trace_events"].toInteger());
    QVERIFY(result.err.contains("chrome://tracing"));
}

void TestCliProfile::recordsNoRun() {
    const Result runs = cli({"runs", project_, "--json"});
    QCOMPARE(runs.exit_code, 0);
    QCOMPARE(QJsonDocument::fromJson(runs.out).array().size(), 0);
}

void TestCliProfile::badInputIsRefused_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("no steps") << QStringList{"--steps", "0"} << "--steps must be at least 1";
    QTest::newRow("negative warm-up") << QStringList{"--warmup", "-1"} << "--warmup";
    QTest::newRow("unwritable trace") << QStringList{"--trace", "/nonexistent/dir/trace.json"}
                                      << "cannot write the trace to /nonexistent/dir/trace.json";
    QTest::newRow("unknown sort") << QStringList{"--sort", "fast"}
                                  << "unknown sort 'fast': use one of time";
    QTest::newRow("bad key") << QStringList{"--set", "model.layerz=2"} << "model.layerz";
    QTest::newRow("no data") << QStringList{"--project-without-data"} << "gone.txt";
    QTest::newRow("no project") << QStringList{"--missing-project"} << "does not exist";
}

void TestCliProfile::badInputIsRefused() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QString project = project_;
    if (arguments == QStringList{"--project-without-data"}) {
        project = no_data_;
        arguments.clear();
    } else if (arguments == QStringList{"--missing-project"}) {
        project = path("missing.headroom");
        arguments.clear();
    }
    const Result result = cli(QStringList{"profile", project} + arguments);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
    QVERIFY(result.out.isEmpty());
    QVERIFY(!QFile::exists("/nonexistent/dir/trace.json"));
}

QTEST_GUILESS_MAIN(TestCliProfile)
#include "test_cli_profile.moc"
