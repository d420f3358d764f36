#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cmath>

// The headless workflow as a user scripts it: new, train, runs, export, through the binary.
class TestCliWorkflow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void newRejectsBadInput_data();
    void newRejectsBadInput();
    void trainPrintsContractJsonLines();
    void trainStopsAndResumes();
    void trainRefusesMoreStepsThanTheRunHas();
    void booleanWordsSwitchTechniques();
    void evaluateMeasuresAHeldOutFile();
    void sigtermStopsWithACheckpoint();
    void nanLossExitsWithThree();
    void impossibleBudgetExitsWithThree();
    void runsListsRunsAsJson();
    void exportWritesMetricsCsv();
    void exportWritesSafetensors();
    void exportOfUnknownRunIsBadInput();
    void sentencePieceVocabularyTravelsWithTheWeights();
    void tooSmallSentencePieceVocabularyIsBadInput();

private:
    using Result = test_support::CliResult;
    Result cli(const QStringList &arguments, const QByteArray &failpoint = {});
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString makeProject(const QString &name);

    QTemporaryDir dir_;
    QString corpus_;
    QString trained_; // a project with one finished run
};

namespace {
const QStringList kTiny = {"--set", "model.layers=1",
                           "--set", "model.heads=2",
                           "--set", "model.dim=16",
                           "--set", "model.seq_len=16",
                           "--set", "train.micro_batch=4",
                           "--set", "train.steps=6",
                           "--set", "train.eval_every=3",
                           "--set", "train.eval_batches=1",
                           "--set", "train.checkpoint_every=2"};

QList<QJsonObject> jsonLines(const QByteArray &out) {
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        if (line.isEmpty()) {
            continue;
        }
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            return {};
        }
        lines.push_back(document.object());
    }
    return lines;
}
} // namespace

TestCliWorkflow::Result TestCliWorkflow::cli(const QStringList &arguments,
                                             const QByteArray &failpoint) {
    return test_support::runCli(arguments, failpoint);
}

QString TestCliWorkflow::makeProject(const QString &name) {
    const Result result =
        cli(QStringList{"new", path(name), "--recipe", "gpt", "--data", corpus_} + kTiny);
    return result.exit_code == 0 ? path(name) : QString();
}

void TestCliWorkflow::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    trained_ = makeProject("trained.headroom");
    QVERIFY(!trained_.isEmpty());
    const Result result = cli({"train", trained_});
    QCOMPARE(result.exit_code, 0);
    QVERIFY2(result.err.contains("finished 6 steps"), qPrintable(result.err));
}

void TestCliWorkflow::newRejectsBadInput_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("named");
    const QByteArray good = test_support::storyText(40);
    QTest::newRow("missing data file")
        << QStringList{"--recipe", "gpt", "--data", "/nonexistent/corpus.txt"} << QByteArray()
        << "/nonexistent/corpus.txt: no such file";
    QTest::newRow("unknown key") << QStringList{"--recipe", "gpt", "--set", "model.width=3"} << good
                                 << "unknown key 'model.width'";
    QTest::newRow("bad value") << QStringList{"--recipe", "gpt", "--set", "train.lr=fast"} << good
                               << "train.lr";
    QTest::newRow("unknown recipe") << QStringList{"--recipe", "diffusion"} << good << "diffusion";
    QTest::newRow("empty file") << QStringList{"--recipe", "gpt"} << QByteArray() << "empty";
    QTest::newRow("invalid utf-8")
        << QStringList{"--recipe", "gpt"} << QByteArray("fine line\nbad \xc3\x28 here\n") << ":2:";
}

void TestCliWorkflow::newRejectsBadInput() {
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, data);
    QFETCH(QString, named);
    static int counter = 0;
    const QString project = path(QString("bad-%1.headroom").arg(++counter));
    QStringList full{"new", project};
    full += arguments;
    if (!arguments.contains("--data")) {
        full << "--data"
             << test_support::writeFile(QDir(dir_.path()), QString("in-%1.txt").arg(counter), data);
    }
    const Result result = cli(full);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(named), qPrintable(result.err));
    for (const char *suffix : {"", "-wal", "-shm", "-journal", "-lock", ".d"}) {
        QVERIFY2(!QFile::exists(project + suffix),
                 qPrintable(project + suffix + ": a failed new must leave nothing behind"));
    }

    // An existing project is never overwritten.
    const Result again = cli({"new", trained_, "--recipe", "gpt", "--data", corpus_});
    QCOMPARE(again.exit_code, 2);
    QVERIFY(again.err.contains("already exists"));
}

void TestCliWorkflow::trainPrintsContractJsonLines() {
    const QString project = makeProject("json.headroom");
    const Result result = cli({"train", project, "--json"});
    QCOMPARE(result.exit_code, 0);
    const QList<QJsonObject> lines = jsonLines(result.out);
    QVERIFY2(!lines.isEmpty(), result.out.constData());
    QCOMPARE(lines.first()["type"].toString(), QString("start"));
    QCOMPARE(lines.last()["type"].toString(), QString("done"));
    QCOMPARE(lines.last()["status"].toString(), QString("finished"));
    int steps = 0, evals = 0, checkpoints = 0;
    for (const QJsonObject &line : lines) {
        const QString type = line["type"].toString();
        if (type == "step") {
            ++steps;
            QCOMPARE(line["step"].toInt(), steps);
            for (const char *key : {"loss", "lr", "micro_batch", "accumulation", "tokens_per_s",
                                    "samples_per_s", "mem_live", "mem_peak", "samples_digest"}) {
                QVERIFY2(line.contains(key), key);
            }
            QCOMPARE(line["micro_batch"].toInt(), 4);
            QCOMPARE(line["samples_digest"].toString().size(), 16);
            QVERIFY(line["tokens_per_s"].toDouble() > 0);
            QVERIFY(line["mem_peak"].toDouble() > 0);
        } else if (type == "eval") {
            ++evals;
        } else if (type == "event" && line["kind"].toString() == "checkpoint") {
            ++checkpoints;
            QVERIFY(line.contains("sha256"));
        }
    }
    QCOMPARE(steps, 6);
    QCOMPARE(evals, 2);
    QCOMPARE(checkpoints, 3);
    // Human text goes to stderr only.
    QVERIFY(result.err.contains("step"));
}

void TestCliWorkflow::trainStopsAndResumes() {
    const QString project = makeProject("resume.headroom");
    const Result first = cli({"train", project, "--steps", "3", "--json"});
    QCOMPARE(first.exit_code, 0);
    QCOMPARE(jsonLines(first.out).last()["status"].toString(), QString("stopped"));
    // --set before the positional PROJECT takes exactly one value.
    const Result rest = cli({"train", "--set", "train.steps=6", project, "--resume", "--json"});
    QCOMPARE(rest.exit_code, 0);
    const QList<QJsonObject> lines = jsonLines(rest.out);
    QCOMPARE(lines.first()["start_step"].toInt(), 3);
    QCOMPARE(lines.last()["step"].toInt(), 6);
    QCOMPARE(lines.last()["status"].toString(), QString("finished"));

    const Result forbidden = cli({"train", project, "--resume", "--set", "model.dim=32"});
    QCOMPARE(forbidden.exit_code, 2);
    QVERIFY(forbidden.err.contains("cannot change model.dim"));
}

void TestCliWorkflow::trainRefusesMoreStepsThanTheRunHas() {
    const QString project = makeProject("too-many.headroom");
    const Result fresh = cli({"train", project, "--steps", "10"});
    QCOMPARE(fresh.exit_code, 2);
    QVERIFY2(fresh.err.contains("--steps 10 asks for more steps than the run has") &&
                 fresh.err.contains("train.steps=6") && fresh.err.contains("--set train.steps=N"),
             qPrintable(fresh.err));
    const Result none = cli({"runs", project, "--json"});
    QCOMPARE(none.exit_code, 0);
    QVERIFY2(!none.out.contains("\"id\""), none.out.constData()); // refused before any run began

    QCOMPARE(cli({"train", project, "--steps", "4"}).exit_code, 0);
    const Result resumed = cli({"train", project, "--resume", "--steps", "3"});
    QCOMPARE(resumed.exit_code, 2);
    QVERIFY2(resumed.err.contains("at step 4 of 6, so 2 remain"), qPrintable(resumed.err));
    QCOMPARE(cli({"train", project, "--resume", "--steps", "2"}).exit_code, 0);
}

void TestCliWorkflow::booleanWordsSwitchTechniques() {
    const Result created = cli(QStringList{"new", path("words.headroom"), "--recipe", "gpt",
                                           "--data", corpus_, "--set", "checkpointing=true"} +
                               kTiny);
    QCOMPARE(created.exit_code, 0);
    const Result estimate = cli({"estimate", path("words.headroom"), "--json"});
    QCOMPARE(estimate.exit_code, 0);
    QVERIFY2(estimate.out.contains("checkpointing every block"), estimate.out.constData());
    const Result bad = cli({"estimate", path("words.headroom"), "--set", "checkpointing=maybe"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("1 = every block") || bad.err.contains("true/on/yes (= 1)"),
             qPrintable(bad.err));
}

void TestCliWorkflow::evaluateMeasuresAHeldOutFile() {
    const QString train =
        test_support::writeFile(QDir(dir_.path()), "train.csv", test_support::tabularCsv(300));
    QByteArray held_out = test_support::tabularCsv(360);
    // The last 60 rows as their own file, with the header.
    const QList<QByteArray> lines = held_out.split('\n');
    QByteArray test = lines.first() + '\n';
    for (int i = 301; i < lines.size(); ++i) {
        if (!lines[i].isEmpty()) {
            test += lines[i] + '\n';
        }
    }
    const QString test_file = test_support::writeFile(QDir(dir_.path()), "test.csv", test);
    const QString project = path("tabular.headroom");
    const Result created = cli({"new", project, "--recipe", "tabular", "--data", train});
    QCOMPARE(created.exit_code, 0);
    QVERIFY2(created.out.contains("train.epochs=") && created.out.contains("early stopping"),
             created.out.constData());
    // The defaults chosen from the data, early stopping included.
    QCOMPARE(cli({"train", project}).exit_code, 0);
    const Result evaluated = cli({"evaluate", project, "--data", test_file, "--json"});
    QCOMPARE(evaluated.exit_code, 0);
    const QJsonObject report = QJsonDocument::fromJson(evaluated.out).object();
    QCOMPARE(report["examples"].toInt(), 60);
    QCOMPARE(report["task"].toString(), QString("classification"));
    QCOMPARE(report["checkpoint"].toString(), QString("best"));
    // A share of 60 rows; the label is a linear rule of x and y, which the MLP learns.
    const double correct = report["accuracy"].toDouble() * 60;
    QVERIFY2(std::abs(correct - std::round(correct)) < 1e-9 && correct >= 57,
             evaluated.out.constData());
    QVERIFY(!report.contains("r2"));

    const Result missing = cli({"evaluate", project, "--data", path("nope.csv")});
    QCOMPARE(missing.exit_code, 2);
    QVERIFY2(missing.err.contains("nope.csv: no such file"), qPrintable(missing.err));
}

void TestCliWorkflow::sigtermStopsWithACheckpoint() {
    const QString project = makeProject("sigterm.headroom");
    QProcess process;
    process.start(QStringLiteral(HEADROOM_CLI_PATH),
                  {"train", project, "--json", "--set", "train.steps=100000"});
    QVERIFY(process.waitForStarted());
    // Wait for the first step line, then ask it to stop as a service manager would.
    QByteArray seen;
    while (!seen.contains("\"type\":\"step\"")) {
        QVERIFY(process.waitForReadyRead(120000));
        seen += process.readAllStandardOutput();
    }
    process.terminate();
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    seen += process.readAllStandardOutput();
    const QList<QJsonObject> lines = jsonLines(seen);
    QCOMPARE(lines.last()["status"].toString(), QString("stopped"));
    bool checkpointed = false;
    for (const QJsonObject &line : lines) {
        checkpointed = checkpointed || line["kind"].toString() == "checkpoint";
    }
    QVERIFY(checkpointed);
}

void TestCliWorkflow::nanLossExitsWithThree() {
    const QString project = makeProject("nan.headroom");
    const Result result = cli({"train", project, "--json"}, "nan_loss@step:2");
    QCOMPARE(result.exit_code, 3);
    QVERIFY(result.err.contains("could not continue"));
    bool event = false;
    for (const QJsonObject &line : jsonLines(result.out)) {
        event = event || line["kind"].toString() == "nan_loss";
    }
    QVERIFY(event);
}

void TestCliWorkflow::impossibleBudgetExitsWithThree() {
    const QString project = makeProject("budget.headroom");
    const Result result = cli({"train", project, "--json", "--set", "memory.budget=64KiB"});
    QCOMPARE(result.exit_code, 3);
    QVERIFY2(result.err.contains("memory.budget"), qPrintable(result.err));
    QCOMPARE(jsonLines(result.out).last()["status"].toString(), QString("paused"));
    const Result bad = cli({"train", project, "--set", "memory.budget=lots"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY(bad.err.contains("memory.budget"));
}

void TestCliWorkflow::runsListsRunsAsJson() {
    const Result result = cli({"runs", trained_, "--json"});
    QCOMPARE(result.exit_code, 0);
    const QJsonArray runs = QJsonDocument::fromJson(result.out).array();
    QCOMPARE(runs.size(), 1);
    const QJsonObject run = runs.first().toObject();
    QCOMPARE(run["status"].toString(), QString("finished"));
    QCOMPARE(run["last_step"].toInt(), 6);
    QVERIFY(run["final_loss"].isDouble());
    const Result table = cli({"runs", trained_});
    QCOMPARE(table.exit_code, 0);
    QVERIFY(table.out.contains("finished"));
}

void TestCliWorkflow::exportWritesMetricsCsv() {
    const QString csv = path("metrics.csv");
    const Result result = cli({"export", trained_, "--run", "1", "--metrics", csv});
    QCOMPARE(result.exit_code, 0);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = file.readAll().trimmed().split('\n');
    QCOMPARE(rows.size(), 7);
    QVERIFY(rows.first().startsWith("step,loss,lr,"));
    QVERIFY(rows.first().endsWith("val_loss,val_accuracy,val_rmse"));
    QVERIFY(rows.at(3).startsWith("3,"));
    QVERIFY(!rows.at(3).split(',').at(12).isEmpty()); // validation at step 3
}

void TestCliWorkflow::exportWritesSafetensors() {
    const QString weights = path("model.safetensors");
    const Result result = cli({"export", trained_, "--run", "1", "--weights", weights});
    QCOMPARE(result.exit_code, 0);
    QFile file(weights);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.size() > 8);
    const quint64 header_size = qFromLittleEndian<quint64>(bytes.constData());
    QVERIFY(header_size % 8 == 0);
    const QJsonObject header =
        QJsonDocument::fromJson(bytes.mid(8, static_cast<qsizetype>(header_size))).object();
    QVERIFY(header.contains("__metadata__"));
    QCOMPARE(header["__metadata__"].toObject()["headroom.recipe"].toString(), QString("gpt"));
    quint64 total = 0;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            continue;
        }
        const QJsonObject entry = it.value().toObject();
        QCOMPARE(entry["dtype"].toString(), QString("F32"));
        const QJsonArray offsets = entry["data_offsets"].toArray();
        quint64 elements = 1;
        for (const QJsonValue &dimension : entry["shape"].toArray()) {
            elements *= static_cast<quint64>(dimension.toInteger());
        }
        QCOMPARE(static_cast<quint64>(offsets[1].toInteger() - offsets[0].toInteger()),
                 elements * 4);
        total += elements * 4;
    }
    QCOMPARE(static_cast<quint64>(bytes.size()), 8 + header_size + total);
}

void TestCliWorkflow::exportOfUnknownRunIsBadInput() {
    const Result result = cli({"export", trained_, "--run", "42", "--metrics", path("x.csv")});
    QCOMPARE(result.exit_code, 2);
    QVERIFY(result.err.contains("run 42 not found"));
    const Result both = cli({"export", trained_, "--run", "1"});
    QCOMPARE(both.exit_code, 2);
}

void TestCliWorkflow::sentencePieceVocabularyTravelsWithTheWeights() {
    const QString project = path("bpe.headroom");
    const Result created =
        cli(QStringList{"new", project, "--recipe", "gpt", "--data", corpus_, "--set",
                        "tokenizer=bpe", "--set", "tokenizer.vocab_size=300"} +
            kTiny);
    if (created.exit_code != 0 && created.err.contains("SentencePiece")) {
        // Sanitizer builds cannot load the SentencePiece module (RTLD_DEEPBIND).
        QSKIP(qPrintable(created.err));
    }
    QCOMPARE(created.exit_code, 0);
    QVERIFY2(created.out.contains("tokenizer bpe"), created.out.constData());
    QCOMPARE(cli({"train", project, "--steps", "2"}).exit_code, 0);
    const QString weights = path("bpe.safetensors");
    QCOMPARE(cli({"export", project, "--run", "1", "--weights", weights}).exit_code, 0);
    QFile file(weights);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const quint64 header_size = qFromLittleEndian<quint64>(bytes.constData());
    const QJsonObject metadata =
        QJsonDocument::fromJson(bytes.mid(8, static_cast<qsizetype>(header_size)))
            .object()["__metadata__"]
            .toObject();
    QCOMPARE(metadata["headroom.tokenizer"].toString(), QString("bpe"));
    const QByteArray model =
        QByteArray::fromBase64(metadata["headroom.tokenizer_model_base64"].toString().toLatin1());
    QVERIFY(model.size() > 1000); // a serialized SentencePiece model proto
}

// SentencePiece refuses a vocabulary below its fixed pieces plus the text's characters: that is
// the user's setting, so exit 2 with the key and the smallest size that works, and no project.
void TestCliWorkflow::tooSmallSentencePieceVocabularyIsBadInput() {
    const QString project = path("tiny-vocab.headroom");
    const Result refused =
        cli(QStringList{"new", project, "--recipe", "gpt", "--data", corpus_, "--set",
                        "tokenizer=unigram", "--set", "tokenizer.vocab_size=64"} +
            kTiny);
    if (refused.err.contains("use tokenizer=byte")) { // no SentencePiece in this build
        QSKIP(qPrintable(refused.err));
    }
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(!refused.err.contains("internal error"), qPrintable(refused.err));
    QVERIFY2(
        refused.err.contains("tokenizer.vocab_size=64 is too small") &&
            refused.err.contains("corpus.txt") &&
            refused.err.contains(QRegularExpression("set tokenizer.vocab_size to \\d+ or more")),
        qPrintable(refused.err));
    QVERIFY(!QFile::exists(project));
    QVERIFY(!QFile::exists(project + "-lock"));
}

QTEST_GUILESS_MAIN(TestCliWorkflow)
#include "test_cli_workflow.moc"
