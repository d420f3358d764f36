#include "cli_support.h"
#include "sample_files.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// A tiny random Mixtral folder (2 layers of 4 experts, top-2; the CTest fixture
// pretrained_reference writes it) through the binary: new --base, LoRA on attention and experts
// with the routing figures in `train --json` and `runs --json`, exports in HF and PEFT layout
// that the pure-torch reference (tests/interop/pretrained/reference_lm.py) reads back, the base
// exported bit-exact, the memory techniques, out-of-memory recovery and refused folders.
class TestCliMixtral : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void newDescribesTheExperts();
    void loraOnExpertsTrainsReportsRoutingAndExports();
    void exportOfTheBaseIsBitExact();
    void techniquesTrainTheExperts_data();
    void techniquesTrainTheExperts();
    void oomRecoveryReplaysTheStep();
    void badFoldersAreRefused_data();
    void badFoldersAreRefused();

private:
    using Result = test_support::CliResult;
    Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString copyModel(const QString &as);
    QString newProject(const QString &name, const QString &base, const QStringList &settings = {});
    // The reference's greedy continuation of `prompt` on `folder` (with a PEFT adapter).
    QJsonArray referenceGreedy(const QString &folder, const QJsonArray &prompt,
                               const QString &adapter = {});

    QTemporaryDir dir_;
    QString data_;
    QString reference_;
};

namespace {

const QStringList kTiny = {"--set", "model.seq_len=16",      "--set", "train.micro_batch=2",
                           "--set", "train.steps=4",         "--set", "train.eval_every=2",
                           "--set", "train.eval_batches=1",  "--set", "train.checkpoint_every=2",
                           "--set", "data.max_examples=200", "--set", "train.lr=0.01"};

QList<QJsonObject> stepLines(const QByteArray &out) {
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object["type"].toString() == "step") {
            lines.push_back(object);
        }
    }
    return lines;
}

QJsonObject generateJson(const test_support::CliResult &result) {
    return QJsonDocument::fromJson(result.out.trimmed()).object();
}

// Per layer, four expert shares that sum to 1.
bool isExpertLoad(const QJsonValue &value) {
    const QJsonArray layers = value.toArray();
    if (layers.size() != 2) {
        return false;
    }
    for (const QJsonValue &layer : layers) {
        double sum = 0;
        for (const QJsonValue &share : layer.toArray()) {
            sum += share.toDouble();
        }
        if (layer.toArray().size() != 4 || std::abs(sum - 1) > 1e-9) {
            return false;
        }
    }
    return true;
}

// name -> (dtype[shape], bytes) of a safetensors file.
QMap<QString, QPair<QString, QByteArray>> readSafetensors(const QString &file) {
    QMap<QString, QPair<QString, QByteArray>> tensors;
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        return tensors;
    }
    const QByteArray bytes = in.readAll();
    const auto header_size = qFromLittleEndian<quint64>(bytes.constData());
    const QJsonObject header =
        QJsonDocument::fromJson(bytes.mid(8, static_cast<int>(header_size))).object();
    for (auto item = header.begin(); item != header.end(); ++item) {
        if (item.key() == "__metadata__") {
            continue;
        }
        const QJsonObject entry = item.value().toObject();
        const QJsonArray offsets = entry["data_offsets"].toArray();
        const qint64 begin = 8 + static_cast<qint64>(header_size) + offsets[0].toInteger();
        tensors[item.key()] = {
            entry["dtype"].toString() +
                QJsonDocument(entry["shape"].toArray()).toJson(QJsonDocument::Compact),
            bytes.mid(begin, offsets[1].toInteger() - offsets[0].toInteger())};
    }
    return tensors;
}

} // namespace

void TestCliMixtral::initTestCase() {
    QVERIFY(dir_.isValid());
    reference_ = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(reference_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run tests/interop/pretrained/setup.sh");
    }
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(300));
}

QString TestCliMixtral::copyModel(const QString &as) {
    const QString target = path(as);
    QDir().mkpath(target);
    QDirIterator files(reference_ + "/reference/mixtral", QDir::Files);
    while (files.hasNext()) {
        files.next();
        if (files.fileName() != "reference.safetensors" &&
            !QFile::copy(files.filePath(), QDir(target).filePath(files.fileName()))) {
            return {};
        }
    }
    return target;
}

QString TestCliMixtral::newProject(const QString &name, const QString &base,
                                   const QStringList &settings) {
    const QString project = path(name + ".headroom");
    const Result result =
        cli(QStringList{"new", project, "--base", base, "--data", data_} + kTiny + settings);
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return project;
}

QJsonArray TestCliMixtral::referenceGreedy(const QString &folder, const QJsonArray &prompt,
                                           const QString &adapter) {
    QStringList arguments = {
        QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/pretrained/reference_lm.py"), folder};
    if (!adapter.isEmpty()) {
        arguments << "--adapter" << adapter;
    }
    for (const QJsonValue &id : prompt) {
        arguments << QString::number(id.toInt());
    }
    QProcess python;
    python.start("/usr/bin/python3", arguments);
    if (!python.waitForFinished(120000) || python.exitCode() != 0) {
        qWarning("%s", python.readAllStandardError().constData());
        return {};
    }
    // It prints a Python list: [1, 2, 3].
    return QJsonDocument::fromJson(python.readAllStandardOutput().trimmed()).array();
}

namespace {
QJsonArray firstOf(const QJsonArray &array, qsizetype count) {
    QJsonArray first;
    for (qsizetype index = 0; index < count && index < array.size(); ++index) {
        first.append(array[index]);
    }
    return first;
}
} // namespace

void TestCliMixtral::newDescribesTheExperts() {
    const Result result = cli(QStringList{"new", path("describe.headroom"), "--base",
                                          copyModel("mixtral-describe"), "--data", data_} +
                              kTiny);
    QCOMPARE(result.exit_code, 0);
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains("MixtralForCausalLM") && out.contains("2 layers") &&
                 out.contains("4 experts per layer, top-2"),
             qPrintable(out));
    const Result estimate = cli({"estimate", path("describe.headroom"), "--json"});
    QCOMPARE(estimate.exit_code, 0);
    QVERIFY2(estimate.out.contains("MoE 4 experts, top-2"), estimate.out.constData());
}

void TestCliMixtral::loraOnExpertsTrainsReportsRoutingAndExports() {
    // F32 base, so the merged export computes exactly what base + adapters compute.
    const QString base = copyModel("mixtral-lora");
    const QString project = newProject(
        "lora", base, {"--set", "lora.rank=4", "--set", "lora.targets=q_proj,v_proj,w1,w2,w3"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("MoE 4 experts, top-2"), qPrintable(trained.err));
    const QList<QJsonObject> steps = stepLines(trained.out);
    QCOMPARE(steps.size(), 4);
    for (const QJsonObject &step : steps) {
        const QJsonObject moe = step["moe"].toObject();
        // transformers' balancing loss: top_k (2) when balanced, at most experts (4).
        QVERIFY2(moe["aux_loss"].toDouble() >= 1.9 && moe["aux_loss"].toDouble() <= 4,
                 qPrintable(QJsonDocument(step).toJson()));
        QCOMPARE(moe["dropped_fraction"].toDouble(), 0.0); // Mixtral drops no token
        QVERIFY(isExpertLoad(moe["expert_load"]));
    }
    const Result runs = cli({"runs", project, "--json"});
    QCOMPARE(runs.exit_code, 0);
    const QJsonObject summary =
        QJsonDocument::fromJson(runs.out).array()[0].toObject()["moe"].toObject();
    QCOMPARE(summary["steps"].toInt(), 4);
    QVERIFY(isExpertLoad(summary["last"].toObject()["expert_load"]));

    const QStringList generate = {"generate",     project,  "--prompt",
                                  "Mira painted", "--json", "--max-tokens",
                                  "12",           "--run",  "1"};
    const QJsonObject tuned = generateJson(cli(generate));
    QVERIFY(!tuned["tokens"].toArray().isEmpty());

    const Result adapter = cli({"export", project, "--run", "1", "--adapter", path("adapter")});
    QVERIFY2(adapter.exit_code == 0, qPrintable(adapter.err));
    const auto adapters = readSafetensors(path("adapter/adapter_model.safetensors"));
    // 2 layers x (2 attention projections + 4 experts x 3) x (A, B)
    QCOMPARE(adapters.size(), 2 * (2 + 4 * 3) * 2);
    QCOMPARE(adapters
                 .value("base_model.model.model.layers.1.block_sparse_moe.experts.3.w2.lora_A."
                        "weight")
                 .first,
             QString("F32[4,64]"));
    QFile config_file(path("adapter/adapter_config.json"));
    QVERIFY(config_file.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(config_file.readAll()).object()["target_modules"].toArray(),
             (QJsonArray{"q_proj", "v_proj", "w1", "w2", "w3"}));

    const Result merged = cli({"export", project, "--run", "1", "--hf", path("merged")});
    QVERIFY2(merged.exit_code == 0, qPrintable(merged.err));
    const QString reimported = newProject("reimported", path("merged"));
    QVERIFY(!reimported.isEmpty());
    const QJsonObject again = generateJson(
        cli({"generate", reimported, "--prompt", "Mira painted", "--json", "--max-tokens", "12"}));
    QCOMPARE(again, tuned);

    // The reference reads both exports: the merged folder, and the base with the PEFT adapter.
    const QJsonArray expected = tuned["tokens"].toArray();
    const QJsonArray prompt = tuned["prompt_tokens"].toArray();
    QCOMPARE(firstOf(referenceGreedy(path("merged"), prompt), expected.size()), expected);
    QCOMPARE(firstOf(referenceGreedy(base, prompt, path("adapter")), expected.size()), expected);
}

void TestCliMixtral::exportOfTheBaseIsBitExact() {
    const QString base = copyModel("mixtral-roundtrip");
    const QString project = newProject("roundtrip", base);
    QVERIFY(!project.isEmpty());
    const Result exported = cli({"export", project, "--run", "-1", "--hf", path("roundtrip-out")});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    const auto original = readSafetensors(QDir(base).filePath("model.safetensors"));
    const auto written = readSafetensors(path("roundtrip-out/model.safetensors"));
    QCOMPARE(written.keys(), original.keys());
    for (auto item = original.begin(); item != original.end(); ++item) {
        QVERIFY2(written.value(item.key()) == item.value(), qPrintable(item.key()));
    }
    QVERIFY(written.contains("model.layers.1.block_sparse_moe.gate.weight"));
    // Imported again, it generates what the base generates.
    const QString again = newProject("roundtrip-again", path("roundtrip-out"));
    QVERIFY(!again.isEmpty());
    const QStringList prompt = {"--prompt", "The fox", "--json", "--max-tokens", "8"};
    QCOMPARE(generateJson(cli(QStringList{"generate", again} + prompt)),
             generateJson(cli(QStringList{"generate", project} + prompt)));
}

void TestCliMixtral::techniquesTrainTheExperts_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::newRow("full fine-tune, bf16, checkpointing, 8-bit AdamW")
        << QStringList{"precision=bf16", "checkpointing=1", "optimizer=adamw8bit"};
    QTest::newRow("lora all-linear on an nf4 base")
        << QStringList{"lora.rank=4", "lora.targets=all-linear", "model.base_dtype=nf4"};
    QTest::newRow("lora experts on an int8 base, bf16, checkpointing")
        << QStringList{"lora.rank=4", "lora.targets=experts_in,experts_out",
                       "model.base_dtype=int8", "precision=bf16", "checkpointing=1"};
}

void TestCliMixtral::techniquesTrainTheExperts() {
    QFETCH(QStringList, settings);
    static int count = 0;
    ++count;
    QStringList arguments;
    for (const QString &setting : settings) {
        arguments << "--set" << setting;
    }
    const QString project = newProject(QString("technique-%1").arg(count),
                                       copyModel(QString("mixtral-technique-%1").arg(count)),
                                       arguments + QStringList{"--set", "train.steps=2"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const QList<QJsonObject> steps = stepLines(trained.out);
    QCOMPARE(steps.size(), 2);
    for (const QJsonObject &step : steps) {
        QVERIFY(std::isfinite(step["loss"].toDouble()));
        QVERIFY(isExpertLoad(step["moe"].toObject()["expert_load"]));
    }
}

void TestCliMixtral::oomRecoveryReplaysTheStep() {
    // An out-of-memory error in step 2 halves the micro-batch and replays the same samples: the
    // losses, balancing loss included, equal those of a run without the fault (the balancing
    // loss is per sequence, so cutting the step does not change it).
    const QString project =
        newProject("oom", copyModel("mixtral-oom"),
                   {"--set", "lora.rank=4", "--set", "train.micro_batch=4", "--set",
                    "lora.targets=all-linear", "--set", "lora.dropout=0.1"});
    QVERIFY(!project.isEmpty());
    const Result clean = cli({"train", project, "--json"});
    QVERIFY2(clean.exit_code == 0, qPrintable(clean.err));
    const Result faulty = test_support::runCli({"train", project, "--json"}, "oom@step:2");
    QVERIFY2(faulty.exit_code == 0, qPrintable(faulty.err));
    QVERIFY2(faulty.out.contains("\"oom_recovered\""), faulty.out.constData());
    const QList<QJsonObject> expected = stepLines(clean.out);
    const QList<QJsonObject> actual = stepLines(faulty.out);
    QCOMPARE(actual.size(), expected.size());
    for (int index = 0; index < expected.size(); ++index) {
        QCOMPARE(actual[index]["samples_digest"], expected[index]["samples_digest"]);
        for (const QJsonObject *line : {&expected[index], &actual[index]}) {
            QVERIFY(line->contains("moe"));
        }
        const double loss = expected[index]["loss"].toDouble();
        QVERIFY(std::abs(actual[index]["loss"].toDouble() - loss) <= 1e-5 * loss);
        const double aux = expected[index]["moe"].toObject()["aux_loss"].toDouble();
        QVERIFY(std::abs(actual[index]["moe"].toObject()["aux_loss"].toDouble() - aux) <=
                1e-5 * aux);
        QCOMPARE(actual[index]["moe"].toObject()["expert_load"],
                 expected[index]["moe"].toObject()["expert_load"]);
    }
    QCOMPARE(actual.last()["micro_batch"].toInt(), 2);
}

void TestCliMixtral::badFoldersAreRefused_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("message");
    QTest::newRow("top-k above the experts")
        << "\"num_experts_per_tok\": 2"
        << "\"num_experts_per_tok\": 5"
        << "config.json: num_experts_per_tok is 5, expected at most num_local_experts 4";
    // The weights hold 4 experts per layer; config.json says 8.
    QTest::newRow("fewer experts stored") << "\"num_local_experts\": 4"
                                          << "\"num_local_experts\": 8"
                                          << "block_sparse_moe.gate.weight has shape [4, 32], "
                                             "config.json (hidden_size 32, num_local_experts 8) "
                                             "needs [8, 32]";
    QTest::newRow("more experts stored")
        << "\"num_local_experts\": 4"
        << "\"num_local_experts\": 2"
        << "unexpected tensor model.layers.0.block_sparse_moe.experts.2.w1.weight: a "
           "MixtralForCausalLM with 2 layers and 2 experts per layer as config.json describes "
           "has no such weight";
}

void TestCliMixtral::badFoldersAreRefused() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, message);
    static int count = 0;
    const QString base = copyModel(QString("mixtral-bad-%1").arg(++count));
    QFile config(QDir(base).filePath("config.json"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QByteArray text = config.readAll();
    config.close();
    QVERIFY(text.contains(from.toUtf8()));
    text.replace(from.toUtf8(), to.toUtf8());
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write(text);
    config.close();
    const QString project = path(QString("bad-%1.headroom").arg(count));
    const Result result = cli({"new", project, "--base", base, "--data", data_});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
    QVERIFY(!QFile::exists(project));
}

QTEST_GUILESS_MAIN(TestCliMixtral)
#include "test_cli_mixtral.moc"
