#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#ifndef HEADROOM_ENCODER_REFERENCE_DIR
#define HEADROOM_ENCODER_REFERENCE_DIR ""
#endif

// The SPLADE recipe through the binary: new on a BERT folder, training with its retrieval
// metrics, a step that is the same whatever the micro-batch (out-of-memory recovery included),
// encode, export --hf read back, and bad input named. The tiny random BERT comes from the CTest
// fixture encoder_reference (tests/interop/encoder/setup.sh).
class TestCliSplade : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void newPicksSpladeForAnEncoder();
    void trainingReportsRetrievalMetrics();
    void microBatchAndRecoveryDoNotChangeTheRun();
    void encodeWritesOneVectorPerLine();
    void exportedEncoderEncodesTheSame();
    void badRecordsAreNamed();
    void dataParallelRanksTrainTheSame();

private:
    using Result = test_support::CliResult;
    Result cli(const QStringList &arguments, const QByteArray &failpoint = {}) {
        return test_support::runCli(arguments, failpoint);
    }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString newProject(const QString &name, const QStringList &settings = {});

    QTemporaryDir dir_;
    QString base_;
    QString data_;
};

namespace {

// Words the fixture's WordPiece vocabulary (tests/data/tokenizers/wordpiece_bert) holds.
const char *const kWords[] = {"hello", "world", "new",  "york",  "text", "token",
                              "words", "they",  "cafe", "brown", "caps", "the"};

// Records whose positive shares the query's words, and a negative that does not.
QByteArray retrievalData(int records) {
    QJsonArray array;
    const int count = static_cast<int>(std::size(kWords));
    for (int i = 0; i < records; ++i) {
        const QString a = kWords[i % count];
        const QString b = kWords[(i * 5 + 3) % count];
        const QString c = kWords[(i * 7 + 1) % count];
        array.append(QJsonObject{{"query", a + " " + b},
                                 {"positive", a + " " + c + " " + b},
                                 {"negatives", QJsonArray{c + " " + c}}});
    }
    return QJsonDocument(array).toJson();
}

const QStringList kTiny = {"--set", "model.seq_len=12",    "--set", "train.micro_batch=8",
                           "--set", "train.steps=6",       "--set", "train.eval_every=3",
                           "--set", "train.lr=0.003",      "--set", "data.validation_fraction=0.25",
                           "--set", "train.warmup_steps=0"};

bool closeTo(double a, double b) {
    return std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b));
}

QByteArray readAll(const QString &file) {
    QFile in(file);
    return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
}

} // namespace

void TestCliSplade::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString reference = QStringLiteral(HEADROOM_ENCODER_REFERENCE_DIR);
    QFile status(reference + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no encoder reference folders: run tests/interop/encoder/setup.sh");
    }
    base_ = reference + "/reference/bert";
    data_ = test_support::writeFile(QDir(dir_.path()), "pairs.json", retrievalData(48));
}

QString TestCliSplade::newProject(const QString &name, const QStringList &settings) {
    const QString project = path(name + ".headroom");
    const Result result =
        cli(QStringList{"new", project, "--base", base_, "--data", data_} + kTiny + settings);
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return project;
}

void TestCliSplade::newPicksSpladeForAnEncoder() {
    const Result made =
        cli(QStringList{"new", path("pick.headroom"), "--base", base_, "--data", data_} + kTiny);
    QCOMPARE(made.exit_code, 0);
    QVERIFY2(made.out.contains("(recipe splade)"), made.out.constData());
    QVERIFY2(made.out.contains("BertForMaskedLM"), made.out.constData());
    QVERIFY2(made.out.contains("(json, 48 records"), made.out.constData());

    const Result gpt = cli(QStringList{"new", path("gpt.headroom"), "--recipe", "gpt", "--base",
                                       base_, "--data", data_} +
                           kTiny);
    QCOMPARE(gpt.exit_code, 2);
    QVERIFY2(gpt.err.contains("a masked language model: it fine-tunes with recipe=splade"),
             qPrintable(gpt.err));
    QVERIFY(!QFile::exists(path("gpt.headroom")));

    const Result scratch =
        cli({"new", path("scratch.headroom"), "--recipe", "splade", "--data", data_});
    QCOMPARE(scratch.exit_code, 2);
    QVERIFY2(scratch.err.contains("set model.base to a BERT or DistilBERT folder"),
             qPrintable(scratch.err));
}

void TestCliSplade::trainingReportsRetrievalMetrics() {
    const QString project = newProject("metrics");
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 6);
    for (const QJsonObject &step : steps) {
        const QJsonObject splade = step["splade"].toObject();
        QVERIFY(std::isfinite(step["loss"].toDouble()));
        QVERIFY(splade["flops_q"].toDouble() > 0);
        QVERIFY(splade["flops_d"].toDouble() > 0);
        QVERIFY(splade["query_nonzeros"].toDouble() >= 1);
        QVERIFY(splade["passage_nonzeros"].toDouble() >= 1);
        QCOMPARE(splade["lambda_q"].toDouble(), 0.0005);
    }
    const QList<QJsonObject> evals = test_support::jsonLinesOfType(trained.out, "eval");
    QCOMPARE(evals.size(), 2);
    for (const QJsonObject &eval : evals) {
        const double mrr = eval["mrr_at_10"].toDouble(-1);
        const double recall = eval["recall_at_100"].toDouble(-1);
        QVERIFY2(mrr > 0 && mrr <= 1, qPrintable(QString::number(mrr)));
        // Every validation passage is within the top 100 of so small a corpus.
        QCOMPARE(recall, 1.0);
    }
    QVERIFY2(trained.err.contains("MRR@10"), qPrintable(trained.err));
    QVERIFY2(trained.err.contains("non-zeros q"), qPrintable(trained.err));

    const Result runs = cli({"runs", project});
    QVERIFY2(runs.out.contains("run 1 validation: MRR@10 "), runs.out.constData());

    const QString csv = path("metrics.csv");
    QCOMPARE(cli({"export", project, "--run", "1", "--metrics", csv}).exit_code, 0);
    const QList<QByteArray> rows = readAll(csv).split('\n');
    QVERIFY(rows[0].contains("splade_flops_q,splade_flops_d,splade_query_nonzeros,"
                             "splade_passage_nonzeros,val_mrr_at_10,val_recall_at_100"));
    QVERIFY2(!rows[3].endsWith(",,"), rows[3].constData()); // step 3 was evaluated

    const Result evaluated = cli({"evaluate", project, "--data", data_, "--json"});
    QVERIFY2(evaluated.exit_code == 0, qPrintable(evaluated.err));
    const QJsonObject report = QJsonDocument::fromJson(evaluated.out).object();
    QCOMPARE(report["task"].toString(), QString("retrieval"));
    QCOMPARE(report["examples"].toInt(), 48);
    QVERIFY(report["mrr_at_10"].toDouble() > 0);
}

void TestCliSplade::microBatchAndRecoveryDoNotChangeTheRun() {
    // In-batch negatives couple the step's examples: cut in micro-batches of 2, or recovering
    // from an out-of-memory error at step 2, the step must still be the whole batch's.
    const QString whole = newProject("whole");
    const QString cut =
        newProject("cut", {"--set", "train.micro_batch=2", "--set", "train.accumulation=4"});
    const QString recovered = newProject("recovered");
    QVERIFY(!whole.isEmpty() && !cut.isEmpty() && !recovered.isEmpty());
    const Result a = cli({"train", whole, "--json"});
    const Result b = cli({"train", cut, "--json"});
    const Result c = cli({"train", recovered, "--json"}, "oom@step:2");
    QVERIFY2(a.exit_code == 0 && b.exit_code == 0 && c.exit_code == 0,
             qPrintable(a.err + b.err + c.err));
    const QList<QJsonObject> expected = test_support::jsonLinesOfType(a.out, "step");
    for (const Result *other : {&b, &c}) {
        const QList<QJsonObject> actual = test_support::jsonLinesOfType(other->out, "step");
        QCOMPARE(actual.size(), expected.size());
        for (int i = 0; i < expected.size(); ++i) {
            QCOMPARE(actual[i]["samples_digest"], expected[i]["samples_digest"]);
            QVERIFY2(closeTo(actual[i]["loss"].toDouble(), expected[i]["loss"].toDouble()),
                     qPrintable(QString("step %1: %2 vs %3")
                                    .arg(i + 1)
                                    .arg(actual[i]["loss"].toDouble(), 0, 'g', 10)
                                    .arg(expected[i]["loss"].toDouble(), 0, 'g', 10)));
        }
    }
    QCOMPARE(test_support::jsonLinesOfType(c.out, "step")[1]["micro_batch"].toInt(), 4);
    QVERIFY(c.out.contains("\"kind\":\"oom_recovered\""));
}

void TestCliSplade::encodeWritesOneVectorPerLine() {
    const QString project = newProject("encode");
    QVERIFY(!project.isEmpty());
    QCOMPARE(cli({"train", project}).exit_code, 0);
    const QString input = test_support::writeFile(
        QDir(dir_.path()), "texts.txt",
        QByteArray("hello world\n\n{\"id\": \"doc-7\", \"text\": \"new york text\"}\ncafe\n"));
    const QString output = path("vectors.jsonl");
    const Result encoded =
        cli({"encode", project, "--input", input, "--output", output, "--top", "5"});
    QVERIFY2(encoded.exit_code == 0, qPrintable(encoded.err));
    QVERIFY2(encoded.err.contains("3 texts encoded"), qPrintable(encoded.err));
    QVERIFY2(encoded.err.contains("(run 1 step 6)"), qPrintable(encoded.err));
    const QList<QByteArray> lines = readAll(output).trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    const QJsonObject first = QJsonDocument::fromJson(lines[0]).object();
    QCOMPARE(first["id"].toInt(), 1);
    QCOMPARE(QJsonDocument::fromJson(lines[1]).object()["id"].toString(), QString("doc-7"));
    QCOMPARE(QJsonDocument::fromJson(lines[2]).object()["id"].toInt(), 4);
    const QJsonObject vector = first["vector"].toObject();
    QCOMPARE(vector.size(), 5);
    for (const QString &token : vector.keys()) {
        QVERIFY(vector[token].toDouble() > 0);
    }

    const QString bad =
        test_support::writeFile(QDir(dir_.path()), "bad.txt", QByteArray("fine\n{\"id\": 3}\n"));
    const Result refused = cli({"encode", project, "--input", bad, "--output", path("bad.jsonl")});
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("bad.txt:2: the JSON object has no string field \"text\""),
             qPrintable(refused.err));
    QVERIFY(!QFile::exists(path("bad.jsonl")));
    QVERIFY(!QFile::exists(path("bad.jsonl.partial")));
}

void TestCliSplade::exportedEncoderEncodesTheSame() {
    const QString project = newProject("export");
    QVERIFY(!project.isEmpty());
    QCOMPARE(cli({"train", project}).exit_code, 0);
    const QString folder = path("exported");
    const Result exported = cli({"export", project, "--run", "1", "--hf", folder});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    for (const char *file : {"config.json", "model.safetensors", "tokenizer.json"}) {
        QVERIFY2(QFile::exists(QDir(folder).filePath(file)), file);
    }
    // The exported folder is a base like any other: its vectors are the run's.
    const QString again = path("again.headroom");
    QCOMPARE(cli(QStringList{"new", again, "--base", folder, "--data", data_} + kTiny).exit_code,
             0);
    const QString input =
        test_support::writeFile(QDir(dir_.path()), "probe.txt", QByteArray("hello new york\n"));
    QCOMPARE(cli({"encode", project, "--input", input, "--output", path("run.jsonl")}).exit_code,
             0);
    QCOMPARE(cli({"encode", again, "--run", "-1", "--input", input, "--output", path("base.jsonl")})
                 .exit_code,
             0);
    const QJsonObject from_run =
        QJsonDocument::fromJson(readAll(path("run.jsonl"))).object()["vector"].toObject();
    const QJsonObject from_export =
        QJsonDocument::fromJson(readAll(path("base.jsonl"))).object()["vector"].toObject();
    QCOMPARE(from_export.keys(), from_run.keys());
    for (const QString &token : from_run.keys()) {
        QVERIFY(closeTo(from_export[token].toDouble(), from_run[token].toDouble()));
    }
}

void TestCliSplade::badRecordsAreNamed() {
    const QString bad =
        test_support::writeFile(QDir(dir_.path()), "bad.jsonl",
                                QByteArray("{\"query\": \"hello\", \"positive\": \"world\"}\n"
                                           "{\"query\": \"hello\", \"positives\": []}\n"));
    const Result refused =
        cli(QStringList{"new", path("bad.headroom"), "--base", base_, "--data", bad} + kTiny);
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("bad.jsonl:2: the field \"positives\" is an empty array"),
             qPrintable(refused.err));
}

void TestCliSplade::dataParallelRanksTrainTheSame() {
#if HEADROOM_GLOO_BUILT
    // Each rank computes the whole step's loss and back-propagates its share of it: two ranks
    // train as one process does.
    const QString one = newProject("one-rank");
    const QString two = newProject("two-ranks");
    QVERIFY(!one.isEmpty() && !two.isEmpty());
    const Result a = cli({"train", one, "--json", "--steps", "3"});
    const Result b = cli({"train", two, "--json", "--steps", "3", "--nproc", "2"});
    QVERIFY2(a.exit_code == 0 && b.exit_code == 0, qPrintable(a.err + b.err));
    const QList<QJsonObject> expected = test_support::jsonLinesOfType(a.out, "step");
    const QList<QJsonObject> actual = test_support::jsonLinesOfType(b.out, "step");
    QCOMPARE(actual.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(actual[i]["samples_digest"], expected[i]["samples_digest"]);
        QVERIFY(closeTo(actual[i]["loss"].toDouble(), expected[i]["loss"].toDouble()));
    }
#else
    QSKIP("this build has no Gloo backend for data-parallel training");
#endif
}

QTEST_GUILESS_MAIN(TestCliSplade)
#include "test_cli_splade.moc"
