#include "cli_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

// LoRA through the binary: a base run on the sample text, a LoRA run on top of it (stopped
// and resumed), both exports, and the refusals.
class TestCliLora : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void loraWithoutBaseRunIsRefused();
    void baseOfAnotherShapeIsRefused_data();
    void baseOfAnotherShapeIsRefused();
    void loraRunTrainsAndResumes();
    void exportsAdaptersOnly();
    void exportsMergedWeightsUnderTheBaseNames();
    void loraRunAsBaseIsMergedFirst();
    void loraExportOfAPlainRunIsRefused();

private:
    using Result = test_support::CliResult;
    // One safetensors file: tensor name -> raw bytes and shape, plus the metadata.
    struct Tensors {
        QMap<QString, QByteArray> data;
        QMap<QString, QString> shapes;
        QJsonObject metadata;
    };
    Result cli(const QStringList &arguments);
    Tensors readSafetensors(const QString &file);
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString project_;
    std::int64_t lora_run_ = 0; // the resumed LoRA run that finished
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
                           "--set", "train.checkpoint_every=2",
                           "--set", "data.max_examples=400",
                           "--set", "train.lr=0.01"};
const QStringList kLora = {"--set", "lora.rank=4", "--set", "lora.base_run=1"};

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
} // namespace

TestCliLora::Result TestCliLora::cli(const QStringList &arguments) {
    return test_support::runCli(arguments);
}

TestCliLora::Tensors TestCliLora::readSafetensors(const QString &file) {
    Tensors tensors;
    QFile input(file);
    if (!input.open(QIODevice::ReadOnly)) {
        return tensors;
    }
    const QByteArray bytes = input.readAll();
    if (bytes.size() < 8) {
        return tensors;
    }
    const auto header_size = static_cast<qsizetype>(qFromLittleEndian<quint64>(bytes.constData()));
    const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, header_size)).object();
    for (auto it = header.begin(); it != header.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        if (it.key() == "__metadata__") {
            tensors.metadata = entry;
            continue;
        }
        const qint64 begin = entry["data_offsets"][0].toInteger();
        const qint64 end = entry["data_offsets"][1].toInteger();
        tensors.data[it.key()] = bytes.mid(8 + header_size + begin, end - begin);
        tensors.shapes[it.key()] = QJsonDocument(entry["shape"].toArray()).toJson();
    }
    return tensors;
}

void TestCliLora::initTestCase() {
    QVERIFY(dir_.isValid());
    project_ = path("lora.headroom");
    const QString corpus = QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt");
    const Result created =
        cli(QStringList{"new", project_, "--recipe", "gpt", "--data", corpus} + kTiny);
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    const Result base = cli({"train", project_});
    QVERIFY2(base.exit_code == 0, qPrintable(base.err));
    QVERIFY2(base.err.contains("finished 6 steps"), qPrintable(base.err));
}

void TestCliLora::loraWithoutBaseRunIsRefused() {
    const Result result = cli({"train", project_, "--set", "lora.rank=4"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("lora.rank=4 needs lora.base_run"), qPrintable(result.err));
}

void TestCliLora::baseOfAnotherShapeIsRefused_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<QString>("message");
    QTest::newRow("wider") << QStringList{"--set", "model.dim=32"}
                           << "run 1 has another model shape: model.dim is 16 there and 32 here";
    QTest::newRow("deeper") << QStringList{"--set", "model.layers=2"}
                            << "model.layers is 1 there and 2 here";
    QTest::newRow("no such run") << QStringList{"--set", "lora.base_run=9"} << "run 9 not found";
    QTest::newRow("unknown target") << QStringList{"--set", "lora.targets=qkv,ffn"}
                                    << "valid targets: qkv, attn_out, mlp_in, mlp_out";
}

void TestCliLora::baseOfAnotherShapeIsRefused() {
    QFETCH(QStringList, settings);
    QFETCH(QString, message);
    const Result result = cli(QStringList{"train", project_} + kLora + settings);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
}

void TestCliLora::loraRunTrainsAndResumes() {
    const Result first = cli(QStringList{"train", project_, "--steps", "3", "--json"} + kLora);
    QVERIFY2(first.exit_code == 0, qPrintable(first.err));
    // rank 4 on one block of width 16: 4 * (16+48 + 16+16 + 16+64 + 64+16) = 1024.
    QVERIFY2(first.err.contains("LoRA rank 4 on qkv,attn_out,mlp_in,mlp_out: 1024 trainable"),
             qPrintable(first.err));
    const QList<QJsonObject> lines = jsonLines(first.out);
    QVERIFY(!lines.isEmpty());
    QCOMPARE(lines.last()["status"].toString(), QString("stopped"));
    const qint64 first_run = lines.first()["run_id"].toInteger();
    QCOMPARE(first_run, 2);

    const Result rest = cli({"train", project_, "--resume", "--json"});
    QVERIFY2(rest.exit_code == 0, qPrintable(rest.err));
    const QList<QJsonObject> resumed = jsonLines(rest.out);
    QCOMPARE(resumed.first()["resumed_from"].toInteger(), first_run);
    QCOMPARE(resumed.first()["start_step"].toInt(), 3);
    QCOMPARE(resumed.last()["step"].toInt(), 6);
    QCOMPARE(resumed.last()["status"].toString(), QString("finished"));
    lora_run_ = resumed.first()["run_id"].toInteger();

    // The optimizer holds state for the 1024 adapter parameters only (two fp32 moments), not
    // for the 8704 of the whole model.
    const Result runs = cli({"runs", project_, "--json"});
    QCOMPARE(runs.exit_code, 0);
    bool found = false;
    for (const QJsonValue &value : QJsonDocument::fromJson(runs.out).array()) {
        const QJsonObject run = value.toObject();
        if (run["id"].toInteger() != lora_run_) {
            continue;
        }
        found = true;
        const QJsonObject breakdown = run["summary"]["memory_breakdown"].toObject();
        QVERIFY2(breakdown["optimizer"].toInteger() > 0, runs.out.constData());
        QVERIFY2(breakdown["optimizer"].toInteger() <= 2 * 4 * 1024 + 1024, runs.out.constData());
        QVERIFY2(breakdown["gradients"].toInteger() <= 4 * 1024 + 1024, runs.out.constData());
    }
    QVERIFY(found);
}

void TestCliLora::exportsAdaptersOnly() {
    QVERIFY(lora_run_ > 0);
    const QString file = path("adapters.safetensors");
    const Result result = cli({"export", project_, "--run", QString::number(lora_run_), "--weights",
                               file, "--lora", "adapters"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const Tensors adapters = readSafetensors(file);
    QCOMPARE(adapters.data.size(), 8); // 4 targets x (a, b), one block
    for (auto it = adapters.data.begin(); it != adapters.data.end(); ++it) {
        QVERIFY2(it.key().startsWith("blocks.0.lora_"), qPrintable(it.key()));
    }
    QCOMPARE(adapters.data["blocks.0.lora_qkv.a"].size(), 4 * 16 * 4);
    QCOMPARE(adapters.data["blocks.0.lora_qkv.b"].size(), 48 * 4 * 4);
    // B starts at zero; trained, it is not.
    QVERIFY(adapters.data["blocks.0.lora_qkv.b"] != QByteArray(48 * 4 * 4, '\0'));
    QCOMPARE(adapters.metadata["headroom.lora"].toString(), QString("adapters"));
    QCOMPARE(adapters.metadata["headroom.lora.rank"].toString(), QString("4"));
    QCOMPARE(adapters.metadata["headroom.lora.alpha"].toString(), QString("16"));
    QCOMPARE(adapters.metadata["headroom.lora.base_run"].toString(), QString("1"));
    QCOMPARE(adapters.metadata["headroom.lora.targets"].toString(),
             QString("qkv,attn_out,mlp_in,mlp_out"));
}

void TestCliLora::exportsMergedWeightsUnderTheBaseNames() {
    QVERIFY(lora_run_ > 0);
    const QString run = QString::number(lora_run_);
    QCOMPARE(
        cli({"export", project_, "--run", "1", "--weights", path("base.safetensors")}).exit_code,
        0);
    QCOMPARE(cli({"export", project_, "--run", run, "--weights", path("merged.safetensors"),
                  "--lora", "merged"})
                 .exit_code,
             0);
    QCOMPARE(
        cli({"export", project_, "--run", run, "--weights", path("default.safetensors")}).exit_code,
        0);
    const Tensors base = readSafetensors(path("base.safetensors"));
    const Tensors merged = readSafetensors(path("merged.safetensors"));
    const Tensors by_default = readSafetensors(path("default.safetensors"));
    QVERIFY(!base.data.isEmpty());
    QCOMPARE(merged.data.keys(), base.data.keys());
    QCOMPARE(merged.shapes, base.shapes);
    QCOMPARE(by_default.data, merged.data); // merged is the default for a LoRA run
    QCOMPARE(merged.metadata["headroom.lora"].toString(), QString("merged"));
    // The merged config is a plain model's.
    const QJsonObject config =
        QJsonDocument::fromJson(merged.metadata["headroom.config"].toString().toUtf8()).object();
    QCOMPARE(config["lora.rank"].toString(), QString("0"));

    // The trainer kept every frozen weight bit for bit; the adapted ones moved.
    const QStringList adapted = {"blocks.0.qkv.weight", "blocks.0.proj.weight",
                                 "blocks.0.fc.weight", "blocks.0.fc_out.weight"};
    for (const QString &name : base.data.keys()) {
        if (adapted.contains(name)) {
            QVERIFY2(merged.data[name] != base.data[name], qPrintable(name));
        } else {
            QVERIFY2(merged.data[name] == base.data[name], qPrintable(name + " changed"));
        }
    }
}

void TestCliLora::loraRunAsBaseIsMergedFirst() {
    QVERIFY(QFile::exists(path("merged.safetensors")));
    const Result trained =
        cli({"train", project_, "--steps", "1", "--set", "lora.rank=2", "--set",
             "lora.base_run=" + QString::number(lora_run_), "--set", "lora.targets=qkv"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const QString run = QString::number(lora_run_ + 1);
    QCOMPARE(
        cli({"export", project_, "--run", run, "--weights", path("stacked.safetensors")}).exit_code,
        0);
    // Everything but the newly adapted qkv is the earlier LoRA run's merged weights.
    const Tensors earlier = readSafetensors(path("merged.safetensors"));
    const Tensors stacked = readSafetensors(path("stacked.safetensors"));
    QCOMPARE(stacked.data.keys(), earlier.data.keys());
    for (const QString &name : earlier.data.keys()) {
        if (name != "blocks.0.qkv.weight") {
            QVERIFY2(stacked.data[name] == earlier.data[name], qPrintable(name + " differs"));
        }
    }
}

void TestCliLora::loraExportOfAPlainRunIsRefused() {
    const Result plain = cli(
        {"export", project_, "--run", "1", "--weights", path("x.safetensors"), "--lora", "merged"});
    QCOMPARE(plain.exit_code, 2);
    QVERIFY2(plain.err.contains("run 1 is not a LoRA run"), qPrintable(plain.err));
    QVERIFY(!QFile::exists(path("x.safetensors")));
    const Result bad = cli(
        {"export", project_, "--run", "1", "--weights", path("y.safetensors"), "--lora", "both"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("--lora"), qPrintable(bad.err));
}

QTEST_GUILESS_MAIN(TestCliLora)
#include "test_cli_lora.moc"
