#include "cli_support.h"
#include "sample_files.h"

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// A LoRA run on a frozen base held in bf16, int8 or nf4 (model.base_dtype) through the binary:
// its validation loss against the fp32 base's, generation and a merged export of the run, the
// escalation ladder quantizing the base after an out-of-memory error at micro-batch 1 and a
// resumed run keeping it, and a full fine-tune refused. The tiny random folders come from the
// CTest fixture pretrained_reference (tests/interop/pretrained/setup.sh).
class TestCliQuantizedBase : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void validationLossFollowsTheBase_data();
    void validationLossFollowsTheBase();
    void fullFineTuneIsRefused();
    void ladderQuantizesTheBase();
    void cacheServesTheNextRun();

private:
    using Result = test_support::CliResult;
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString newProject(const QString &name, const QStringList &settings);

    QTemporaryDir dir_;
    QString data_;
    QString base_;
};

namespace {
const QStringList kTiny = {"--set", "model.seq_len=16",      "--set", "train.micro_batch=2",
                           "--set", "train.steps=4",         "--set", "train.eval_every=2",
                           "--set", "train.eval_batches=2",  "--set", "train.checkpoint_every=2",
                           "--set", "data.max_examples=200", "--set", "train.lr=0.01",
                           "--set", "lora.rank=4",           "--set", "lora.targets=all-linear"};

} // namespace

void TestCliQuantizedBase::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString reference = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(reference + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run tests/interop/pretrained/setup.sh");
    }
    base_ = reference + "/reference/llama";
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(300));
}

QString TestCliQuantizedBase::newProject(const QString &name, const QStringList &settings) {
    const QString project = path(name + ".headroom");
    const Result result = test_support::runCli(
        QStringList{"new", project, "--base", base_, "--data", data_} + kTiny + settings);
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return project;
}

void TestCliQuantizedBase::validationLossFollowsTheBase_data() {
    QTest::addColumn<QString>("format");
    // Relative, against the same run on the fp32 base. The fixture's weights are random, with
    // none of a trained model's redundancy: nf4 moves its loss by about 3 % (8.63 vs 8.35).
    QTest::addColumn<double>("tolerance");
    QTest::newRow("bf16") << "bf16" << 0.002;
    QTest::newRow("int8") << "int8" << 0.005;
    QTest::newRow("nf4") << "nf4" << 0.05;
}

void TestCliQuantizedBase::validationLossFollowsTheBase() {
    QFETCH(QString, format);
    QFETCH(double, tolerance);
    const QString reference = newProject("fp32-" + format, {});
    const QString project =
        newProject(format, {"--set", "model.base_dtype=" + format, "--set", "precision=fp32"});
    QVERIFY(!reference.isEmpty() && !project.isEmpty());
    const Result expected = test_support::runCli({"train", reference, "--json"});
    const Result trained = test_support::runCli({"train", project, "--json"});
    QVERIFY2(expected.exit_code == 0, qPrintable(expected.err));
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("frozen projections held as " + format), qPrintable(trained.err));
    // The quantized weights still count as the model's parameters.
    const QRegularExpression counted("trainable of (\\d+) parameters");
    QCOMPARE(counted.match(trained.err).captured(1), counted.match(expected.err).captured(1));
    QVERIFY(!counted.match(trained.err).captured(1).isEmpty());
    const QList<QJsonObject> expected_evals = test_support::jsonLinesOfType(expected.out, "eval");
    const QList<QJsonObject> evals = test_support::jsonLinesOfType(trained.out, "eval");
    QCOMPARE(evals.size(), expected_evals.size());
    QVERIFY(!evals.isEmpty());
    for (int index = 0; index < evals.size(); ++index) {
        const double want = expected_evals[index]["loss"].toDouble();
        const double got = evals[index]["loss"].toDouble();
        QVERIFY2(std::abs(got - want) <= tolerance * want,
                 qPrintable(QString("%1 base: validation loss %2, fp32 base %3")
                                .arg(format)
                                .arg(got)
                                .arg(want)));
    }

    // The run generates, and its merged export is a plain model that says what it came from.
    const Result generated = test_support::runCli(
        {"generate", project, "--run", "1", "--prompt", "Mira", "--max-tokens", "4", "--json"});
    QVERIFY2(generated.exit_code == 0, qPrintable(generated.err));
    const Result exported =
        test_support::runCli({"export", project, "--run", "1", "--hf", path("merged-" + format)});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    QVERIFY2(exported.err.contains("held its base as " + format +
                                   ": the folder has that base "
                                   "dequantized"),
             qPrintable(exported.err));
    QVERIFY(QFileInfo::exists(path("merged-" + format + "/model.safetensors")));
}

void TestCliQuantizedBase::fullFineTuneIsRefused() {
    const QString project = path("full.headroom");
    const Result result =
        test_support::runCli(QStringList{"new", project, "--base", base_, "--data", data_, "--set",
                                         "lora.rank=0", "--set", "model.base_dtype=nf4"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("model.base_dtype=nf4") &&
                 result.err.contains("lora.rank=0 fine-tunes every weight"),
             qPrintable(result.err));
    QVERIFY(!QFileInfo::exists(project));
}

void TestCliQuantizedBase::ladderQuantizesTheBase() {
    // At micro-batch 1 an out-of-memory error climbs the ladder; with only nf4 on it, the base is
    // quantized and the same step replayed.
    const QString project = newProject("ladder", {"--set", "train.micro_batch=1", "--set",
                                                  "recovery.ladder=nf4", "--set", "train.steps=6"});
    QVERIFY(!project.isEmpty());
    const Result first =
        test_support::runCli({"train", project, "--json", "--steps", "3"}, "oom@step:2");
    QVERIFY2(first.exit_code == 0, qPrintable(first.err));
    const QList<QJsonObject> ladder = test_support::jsonLinesOfType(first.out, "event");
    bool switched = false;
    for (const QJsonObject &event : ladder) {
        switched = switched || (event["kind"].toString() == "ladder" &&
                                event["message"].toString().contains("nf4 base"));
    }
    QVERIFY2(switched, first.out.constData());
    QCOMPARE(test_support::jsonLinesOfType(first.out, "step").size(), 3);

    // Resumed, the run keeps the quantized base (the checkpoint records it).
    const Result resumed = test_support::runCli({"train", project, "--resume", "--json"});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    QCOMPARE(test_support::jsonLinesOfType(resumed.out, "step").size(), 3);
    const Result runs = test_support::runCli({"runs", project});
    QVERIFY2(runs.out.contains("nf4 base"), runs.out.constData());
}

void TestCliQuantizedBase::cacheServesTheNextRun() {
    // The first run quantizes the base and caches it next to the project; the next takes the
    // cached codes and trains exactly as the first did; a damaged cache is reported and replaced.
    const QString project = newProject("cached", {"--set", "model.base_dtype=nf4"});
    QVERIFY(!project.isEmpty());
    const Result first = test_support::runCli({"train", project, "--json"});
    QVERIFY2(first.exit_code == 0, qPrintable(first.err));
    QVERIFY2(first.err.contains("quantized base cached for the next run"), qPrintable(first.err));
    const QDir cache_folder(project + "-cache");
    const QStringList cached = cache_folder.entryList({"quantized-base-nf4-*.safetensors"});
    QCOMPARE(cached.size(), 1);

    const Result second = test_support::runCli({"train", project, "--json"});
    QVERIFY2(second.exit_code == 0, qPrintable(second.err));
    QVERIFY2(second.err.contains("quantized projections from the cache"), qPrintable(second.err));
    const auto losses = [](const Result &result) {
        QList<double> values;
        for (const QJsonObject &eval : test_support::jsonLinesOfType(result.out, "eval")) {
            values.push_back(eval["loss"].toDouble());
        }
        return values;
    };
    QVERIFY(!losses(first).isEmpty());
    QCOMPARE(losses(second), losses(first));

    QFile file(cache_folder.filePath(cached.front()));
    QVERIFY(file.open(QIODevice::ReadWrite));
    const qint64 offset = file.size() - 3;
    char byte = 0;
    QVERIFY(file.seek(offset) && file.getChar(&byte));
    QVERIFY(file.seek(offset) && file.putChar(static_cast<char>(byte ^ 0x55)));
    file.close();
    const Result third = test_support::runCli({"train", project, "--json"});
    QVERIFY2(third.exit_code == 0, qPrintable(third.err));
    QVERIFY2(third.err.contains("not using the quantized-base cache") &&
                 third.err.contains("damaged") &&
                 third.err.contains("quantized base cached for the next run"),
             qPrintable(third.err));
    QCOMPARE(losses(third), losses(first));
}

QTEST_GUILESS_MAIN(TestCliQuantizedBase)
#include "test_cli_quantized_base.moc"
