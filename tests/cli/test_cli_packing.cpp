// data.packing through the binary: a packed run's step lines report far less padding than an
// unpacked run on the same short conversations, the tokenize statistics estimate both, a
// packing with a stride is refused by name, and `evaluate --run -1` needs a pretrained base.
#include "cli_support.h"
#include "sample_files.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using test_support::runCli;

namespace {

// Conversations of 60 to 230 tokens (byte tokenizer, ChatML), of 15 different lengths.
QByteArray conversations(int count) {
    QByteArray lines;
    for (int i = 0; i < count; ++i) {
        lines += R"({"messages": [{"role": "user", "content": "Count )" + QByteArray::number(i) +
                 R"(."}, {"role": "assistant", "content": "It is)" + QByteArray(i % 15 * 12, 'x') +
                 R"(."}]})"
                 "\n";
    }
    return lines;
}

QByteArray instructions(int count) {
    QByteArray lines;
    for (int i = 0; i < count; ++i) {
        lines += R"({"prompt": "Spell )" + QByteArray::number(i) + R"(", "completion": ")" +
                 QByteArray(i % 17 + 3, 'x') + "\"}\n";
    }
    return lines;
}

// The mean padding_fraction of a train --json run's step lines; -1 when a step line lacks it.
double meanPadding(const QByteArray &out, int *steps) {
    double sum = 0;
    *steps = 0;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object["type"].toString() != "step") {
            continue;
        }
        if (!object.contains("padding_fraction")) {
            return -1; // every step line must carry it
        }
        sum += object["padding_fraction"].toDouble();
        ++*steps;
    }
    return *steps > 0 ? sum / *steps : -1;
}

} // namespace

class TestCliPacking : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void packedRunsComputeLessPadding();
    void tokenizeStatsEstimateThePadding();
    void refusesPackingWithAStride();
    void evaluatingTheBaseNeedsAPretrainedProject();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
};

void TestCliPacking::packedRunsComputeLessPadding() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "chat.jsonl", conversations(60));
    const QStringList tiny = {"--set", "model.layers=1",
                              "--set", "model.heads=2",
                              "--set", "model.dim=16",
                              "--set", "model.seq_len=512",
                              "--set", "train.micro_batch=4",
                              "--set", "train.steps=3",
                              "--set", "data.chat_template=chatml"};
    double padding[2] = {0, 0};
    for (const int packing : {0, 1}) {
        const QString project = path(QString("chat%1.headroom").arg(packing));
        QCOMPARE(runCli(QStringList{"new", project, "--recipe", "gpt", "--data", data, "--set",
                                    QString("data.packing=%1").arg(packing)} +
                        tiny)
                     .exit_code,
                 0);
        const auto trained = runCli({"train", project, "--json"});
        QCOMPARE(trained.exit_code, 0);
        int steps = 0;
        padding[packing] = meanPadding(trained.out, &steps);
        QCOMPARE(steps, 3);
    }
    // One conversation per row pads each row to the longest of its micro-batch (about 16 %
    // here); packed, only the end of each window of 513 is padding (about 4 %).
    QVERIFY2(padding[1] >= 0 && padding[1] < 0.5 * padding[0] && padding[0] > 0.08,
             qPrintable(QString("packed %1, unpacked %2").arg(padding[1]).arg(padding[0])));
}

void TestCliPacking::tokenizeStatsEstimateThePadding() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "pairs.jsonl", instructions(400));
    const QString project = path("pairs.headroom");
    QCOMPARE(
        runCli({"new", project, "--recipe", "gpt", "--data", data, "--set", "model.seq_len=256"})
            .exit_code,
        0);
    const auto stats =
        runCli({"tokenize", "--tokenizer", project, "--file", data, "--stats", "--json"});
    QCOMPARE(stats.exit_code, 0);
    const QJsonObject padding = QJsonDocument::fromJson(stats.out).object()["padding"].toObject();
    QVERIFY2(padding["unpacked"].toDouble() > 0.2 && padding["packed"].toDouble() < 0.1,
             stats.out.constData());
}

void TestCliPacking::refusesPackingWithAStride() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "strided.jsonl", instructions(10));
    const auto refused = runCli({"new", path("strided.headroom"), "--recipe", "gpt", "--data", data,
                                 "--set", "data.packing=1", "--set", "data.stride=8"});
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("data.stride") && refused.err.contains("data.packing"),
             qPrintable(refused.err));
}

void TestCliPacking::evaluatingTheBaseNeedsAPretrainedProject() {
    const QString data = test_support::writeFile(QDir(dir_.path()), "base.jsonl", instructions(10));
    const QString project = path("scratch.headroom");
    QCOMPARE(runCli({"new", project, "--recipe", "gpt", "--data", data}).exit_code, 0);
    const auto refused = runCli({"evaluate", project, "--run", "-1", "--data", data});
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("not a pretrained project"), qPrintable(refused.err));
}

QTEST_APPLESS_MAIN(TestCliPacking)
#include "test_cli_packing.moc"
