#include "cli_support.h"
#include "sample_files.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// Pretrained Hugging Face folders through the binary: new --base, generate before training,
// LoRA and full fine-tuning, exports in HF and PEFT layout read back, a moved or changed base,
// and folders that are refused. The tiny random folders come from the CTest fixture
// pretrained_reference (tests/interop/pretrained/setup.sh).
class TestCliPretrained : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void newDescribesTheBase();
    void generatesBeforeTraining();
    void loraRunTrainsGeneratesAndExports();
    void exportOfTheBaseIsBitExact();
    void shardedExportReadsBack();
    void fullFineTuneChangesTheWeights();
    void movedOrChangedBaseIsReported();
    void promptCompletionDataTeachesTheCompletion();
    void oomRecoveryReplaysTheStep();
    void sentencePieceOnlyBase();
    void badFoldersAreRefused_data();
    void badFoldersAreRefused();

private:
    using Result = test_support::CliResult;
    struct Tensors {
        QMap<QString, QByteArray> data;
        QMap<QString, QString> shapes;
    };
    Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    // A copy of a reference folder (the tests move and change their copies).
    QString copyModel(const QString &name, const QString &as);
    QString newProject(const QString &name, const QString &base, const QStringList &settings = {});
    static Tensors readSafetensors(const QString &file);
    static QJsonObject generateJson(const Result &result);

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

bool copyTree(const QString &from, const QString &to) {
    QDir().mkpath(to);
    QDirIterator files(from, QDir::Files);
    while (files.hasNext()) {
        files.next();
        if (!QFile::copy(files.filePath(), QDir(to).filePath(files.fileName()))) {
            return false;
        }
    }
    return true;
}
} // namespace

void TestCliPretrained::initTestCase() {
    QVERIFY(dir_.isValid());
    reference_ = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(reference_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run tests/interop/pretrained/setup.sh");
    }
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(300));
}

QString TestCliPretrained::copyModel(const QString &name, const QString &as) {
    const QString target = path(as);
    if (!copyTree(reference_ + "/reference/" + name, target)) {
        return {};
    }
    QFile::remove(QDir(target).filePath("reference.safetensors"));
    return target;
}

QString TestCliPretrained::newProject(const QString &name, const QString &base,
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

TestCliPretrained::Tensors TestCliPretrained::readSafetensors(const QString &file) {
    Tensors tensors;
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
        tensors.data[item.key()] =
            bytes.mid(begin, offsets[1].toInteger() - offsets[0].toInteger());
        tensors.shapes[item.key()] =
            entry["dtype"].toString() +
            QJsonDocument(entry["shape"].toArray()).toJson(QJsonDocument::Compact);
    }
    return tensors;
}

QJsonObject TestCliPretrained::generateJson(const Result &result) {
    return QJsonDocument::fromJson(result.out.trimmed()).object();
}

void TestCliPretrained::newDescribesTheBase() {
    const QString base = copyModel("llama", "llama-describe");
    const Result result =
        cli(QStringList{"new", path("describe.headroom"), "--base", base, "--data", data_} + kTiny);
    QCOMPARE(result.exit_code, 0);
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains("LlamaForCausalLM") && out.contains("3 layers") && out.contains("BF16") &&
                 out.contains("vocabulary 345"),
             qPrintable(out));
    // The project records the base; it does not copy the weights.
    QVERIFY(QFileInfo(path("describe.headroom")).size() < 200 * 1024);
}

void TestCliPretrained::generatesBeforeTraining() {
    const QString project = newProject("generate", copyModel("llama", "llama-generate"));
    QVERIFY(!project.isEmpty());
    const QStringList arguments = {"generate", project,        "--prompt", "The fox",
                                   "--json",   "--max-tokens", "12"};
    const Result first = cli(arguments);
    QCOMPARE(first.exit_code, 0);
    const QJsonObject json = generateJson(first);
    QVERIFY2(!json["prompt_tokens"].toArray().isEmpty(), first.out.constData());
    const QJsonArray tokens = json["tokens"].toArray();
    QVERIFY(!tokens.isEmpty() && tokens.size() <= 12);
    QVERIFY(json.contains("text"));
    // Greedy by default: the same every time, and the base is what --run -1 names.
    QCOMPARE(generateJson(cli(arguments)), json);
    QCOMPARE(generateJson(cli(arguments + QStringList{"--run", "-1"})), json);
    // Sampling with a seed repeats; another seed may differ but stays within the limit.
    const QStringList sampled = arguments + QStringList{"--temperature", "1.5", "--seed", "7"};
    QCOMPARE(generateJson(cli(sampled)), generateJson(cli(sampled)));

    const Result empty = cli({"generate", project, "--prompt", ""});
    QCOMPARE(empty.exit_code, 2);
    QVERIFY2(empty.err.contains("prompt"), qPrintable(empty.err));
    const Result bad_p = cli({"generate", project, "--prompt", "x", "--top-p", "1.5"});
    QCOMPARE(bad_p.exit_code, 2);
    QVERIFY2(bad_p.err.contains("--top-p"), qPrintable(bad_p.err));
}

void TestCliPretrained::loraRunTrainsGeneratesAndExports() {
    // An F32 base, so the merged export computes exactly what base + adapters compute.
    const QString base = copyModel("mistral", "mistral-lora");
    const QString project =
        newProject("lora", base, {"--set", "lora.rank=4", "--set", "lora.targets=q_proj,v_proj"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("LoRA rank 4 on q_proj,v_proj"), qPrintable(trained.err));

    // The checkpoint holds the adapters (and their optimizer state), not the base.
    qint64 checkpoint_bytes = 0;
    QDirIterator checkpoints(project + ".d", QDir::Files, QDirIterator::Subdirectories);
    while (checkpoints.hasNext()) {
        checkpoints.next();
        checkpoint_bytes = std::max(checkpoint_bytes, checkpoints.fileInfo().size());
    }
    const qint64 base_bytes = QFileInfo(QDir(base).filePath("model.safetensors")).size();
    QVERIFY2(
        checkpoint_bytes > 0 && checkpoint_bytes < base_bytes / 4,
        qPrintable(QString("checkpoint %1 bytes, base %2").arg(checkpoint_bytes).arg(base_bytes)));

    const QStringList generate = {"generate", project,        "--prompt", "Mira painted",
                                  "--json",   "--max-tokens", "10"};
    const Result tuned = cli(generate + QStringList{"--run", "1"});
    QCOMPARE(tuned.exit_code, 0);

    const Result adapter = cli({"export", project, "--run", "1", "--adapter", path("adapter")});
    QVERIFY2(adapter.exit_code == 0, qPrintable(adapter.err));
    QFile config_file(path("adapter/adapter_config.json"));
    QVERIFY(config_file.open(QIODevice::ReadOnly));
    const QJsonObject config = QJsonDocument::fromJson(config_file.readAll()).object();
    QCOMPARE(config["peft_type"].toString(), QString("LORA"));
    QCOMPARE(config["r"].toInt(), 4);
    QCOMPARE(config["target_modules"].toArray(), (QJsonArray{"q_proj", "v_proj"}));
    const Tensors adapters = readSafetensors(path("adapter/adapter_model.safetensors"));
    QCOMPARE(adapters.data.size(), 2 * 2 * 2); // 2 layers x 2 targets x (A, B)
    QCOMPARE(
        adapters.shapes.value("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"),
        QString("F32[4,64]"));
    QCOMPARE(
        adapters.shapes.value("base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"),
        QString("F32[16,4]"));

    // The merged export is a plain model: imported again, it continues as the LoRA run does.
    const Result merged = cli({"export", project, "--run", "1", "--hf", path("merged")});
    QVERIFY2(merged.exit_code == 0, qPrintable(merged.err));
    const QString reimported = newProject("reimported", path("merged"));
    QVERIFY(!reimported.isEmpty());
    QCOMPARE(generateJson(cli({"generate", reimported, "--prompt", "Mira painted", "--json",
                               "--max-tokens", "10"})),
             generateJson(tuned));
}

void TestCliPretrained::exportOfTheBaseIsBitExact() {
    // Hub-style GPT-2 names (no "transformer." prefix, mask buffers): the export writes the
    // names transformers saves today, with the same bytes.
    const QString base = copyModel("gpt2", "gpt2-roundtrip");
    const QString project = newProject("roundtrip", base);
    QVERIFY(!project.isEmpty());
    const Result exported = cli({"export", project, "--run", "-1", "--hf", path("gpt2-out")});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    const Tensors original = readSafetensors(QDir(base).filePath("model.safetensors"));
    const Tensors written = readSafetensors(path("gpt2-out/model.safetensors"));
    int compared = 0;
    for (auto item = original.data.begin(); item != original.data.end(); ++item) {
        if (item.key().endsWith(".attn.bias")) {
            continue; // a causal-mask buffer, not a weight
        }
        const QString name = "transformer." + item.key();
        QVERIFY2(written.data.contains(name), qPrintable(name));
        QCOMPARE(written.shapes.value(name), original.shapes.value(item.key()));
        QVERIFY2(written.data.value(name) == item.value(), qPrintable(name));
        ++compared;
    }
    QCOMPARE(written.data.size(), compared);
    QVERIFY(QFile::exists(path("gpt2-out/config.json")));
    QVERIFY(QFile::exists(path("gpt2-out/tokenizer.json")));
}

void TestCliPretrained::shardedExportReadsBack() {
    // Above --max-shard-size the weights are split as save_pretrained splits them; imported
    // again and exported whole, every tensor has the bytes of the original.
    const QString base = copyModel("llama", "llama-shard-source");
    const QString project = newProject("shard-source", base);
    QVERIFY(!project.isEmpty());
    const QString sharded = path("llama-sharded-out");
    const Result exported =
        cli({"export", project, "--run", "-1", "--hf", sharded, "--max-shard-size", "20KiB"});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    QVERIFY2(exported.err.contains("shards"), qPrintable(exported.err));
    QVERIFY(!QFile::exists(sharded + "/model.safetensors"));
    QFile index_file(sharded + "/model.safetensors.index.json");
    QVERIFY(index_file.open(QIODevice::ReadOnly));
    const QJsonObject index = QJsonDocument::fromJson(index_file.readAll()).object();
    const QJsonObject weight_map = index["weight_map"].toObject();
    const Tensors original = readSafetensors(QDir(base).filePath("model.safetensors"));
    QCOMPARE(weight_map.size(), original.data.size());
    QSet<QString> shards;
    qint64 total = 0;
    for (auto item = weight_map.begin(); item != weight_map.end(); ++item) {
        shards.insert(item.value().toString());
        total += original.data.value(item.key()).size();
    }
    QVERIFY2(shards.size() > 2, qPrintable(QString::number(shards.size())));
    QVERIFY(shards.contains(
        QString("model-00001-of-%1.safetensors").arg(shards.size(), 5, 10, QChar('0'))));
    QCOMPARE(index["metadata"].toObject()["total_size"].toInteger(), total);
    for (const QString &shard : shards) {
        QVERIFY(QFileInfo(sharded + "/" + shard).size() < 20 * 1024 + 4096 ||
                readSafetensors(sharded + "/" + shard).data.size() == 1);
    }

    // The reference reads the sharded folder through its index: the same greedy tokens as
    // from the original folder.
    const auto greedy = [](const QString &folder) {
        QProcess python;
        python.start(
            "/usr/bin/python3",
            {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/pretrained/reference_lm.py"),
             folder, "1", "2", "3"});
        python.waitForFinished(120000);
        return python.exitCode() == 0 ? python.readAllStandardOutput()
                                      : "failed: " + python.readAllStandardError();
    };
    const QByteArray expected = greedy(base);
    QVERIFY2(!expected.startsWith("failed"), expected.constData());
    QCOMPARE(greedy(sharded), expected);

    // Headroom imports the shards and writes them back as one file, bit-exact.
    const QString again = newProject("shard-again", sharded);
    QVERIFY(!again.isEmpty());
    const Result whole = cli({"export", again, "--run", "-1", "--hf", path("llama-whole")});
    QVERIFY2(whole.exit_code == 0, qPrintable(whole.err));
    const Tensors written = readSafetensors(path("llama-whole/model.safetensors"));
    QCOMPARE(written.shapes, original.shapes);
    QCOMPARE(written.data, original.data);

    for (const QString bad : {"0", "big", "5XB", "-3MB"}) {
        const Result refused =
            cli({"export", project, "--run", "-1", "--hf", path("never"), "--max-shard-size", bad});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("--max-shard-size") && refused.err.contains(bad),
                 qPrintable(refused.err));
    }
    QVERIFY(!QFile::exists(path("never")));
    const Result without_hf = cli({"export", project, "--run", "-1", "--weights",
                                   path("w.safetensors"), "--max-shard-size", "1GB"});
    QCOMPARE(without_hf.exit_code, 2);
    QVERIFY2(without_hf.err.contains("--hf"), qPrintable(without_hf.err));
}

void TestCliPretrained::fullFineTuneChangesTheWeights() {
    // bf16 autocast, and a sample continuation at each validation (decoded one token at a
    // time, in the weights' precision).
    const QString base = copyModel("gpt2", "gpt2-full");
    const QString project = newProject("full", base, {"--set", "precision=bf16"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.out.contains("\"kind\":\"sample\""), trained.out.constData());
    const Result exported = cli({"export", project, "--run", "1", "--hf", path("full-out")});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    const Tensors original = readSafetensors(QDir(base).filePath("model.safetensors"));
    const Tensors tuned = readSafetensors(path("full-out/model.safetensors"));
    QCOMPARE(tuned.shapes.value("transformer.h.0.attn.c_attn.weight"),
             original.shapes.value("h.0.attn.c_attn.weight"));
    QVERIFY(tuned.data.value("transformer.h.0.attn.c_attn.weight") !=
            original.data.value("h.0.attn.c_attn.weight"));
}

void TestCliPretrained::movedOrChangedBaseIsReported() {
    const QString base = copyModel("qwen2", "qwen2-moving");
    const QString project = newProject("moving", base);
    QVERIFY(!project.isEmpty());
    QVERIFY(QDir().rename(base, path("qwen2-moved")));
    const Result missing = cli({"generate", project, "--prompt", "Tomas"});
    QCOMPARE(missing.exit_code, 2);
    QVERIFY2(missing.err.contains("missing") && missing.err.contains("model.base"),
             qPrintable(missing.err));
    // Pointing the project at the new place works: the contents are the recorded ones.
    const Result moved =
        cli({"train", project, "--steps", "1", "--set", "model.base=" + path("qwen2-moved")});
    QVERIFY2(moved.exit_code == 0, qPrintable(moved.err));

    QVERIFY(QDir().rename(path("qwen2-moved"), base));
    QFile weights(QDir(base).filePath("model.safetensors"));
    QVERIFY(weights.open(QIODevice::ReadWrite));
    weights.seek(weights.size() - 2);
    weights.write(QByteArray(2, '\0'));
    weights.close();
    const Result changed = cli({"generate", project, "--prompt", "Tomas", "--run", "-1"});
    QCOMPARE(changed.exit_code, 2);
    QVERIFY2(changed.err.contains("not the one this project was created from"),
             qPrintable(changed.err));
}

void TestCliPretrained::promptCompletionDataTeachesTheCompletion() {
    // Prompts vary, the completion is always the same: learnt from the completion tokens only,
    // the model answers every prompt with it.
    QByteArray records;
    for (int index = 0; index < 120; ++index) {
        records += QString("{\"prompt\": \"Tomas %1 found\", \"completion\": \" the key\"}\n")
                       .arg(index * 7)
                       .toUtf8();
    }
    const QString data = test_support::writeFile(QDir(dir_.path()), "answers.jsonl", records);
    const QString project = path("answers.headroom");
    const Result created =
        cli(QStringList{"new", project, "--base", copyModel("gpt2", "gpt2-sft"), "--data", data} +
            kTiny +
            QStringList{"--set", "train.steps=60", "--set", "train.lr=0.003", "--set",
                        "train.micro_batch=8", "--set", "model.dropout=0"});
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    // A pretrained causal base is what the project says it trains.
    QVERIFY2(created.out.contains("(recipe causal_lm)"), created.out.constData());
    const Result trained = cli({"train", project});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const Result answer =
        cli({"generate", project, "--prompt", "Tomas 1234 found", "--max-tokens", "8", "--json"});
    QCOMPARE(answer.exit_code, 0);
    const QString text = generateJson(answer)["text"].toString();
    QVERIFY2(text.startsWith(" the key"), qPrintable(text));
}

void TestCliPretrained::oomRecoveryReplaysTheStep() {
    // An out-of-memory error in step 2 of a LoRA run halves the micro-batch and replays the
    // same samples: every step's loss and samples equal those of a run without the fault.
    const QString project = newProject("oom", copyModel("llama", "llama-oom"),
                                       {"--set", "lora.rank=4", "--set", "train.micro_batch=4",
                                        "--set", "lora.targets=all-linear"});
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
        // The same samples; the loss differs only by summation order (2 x 2 rows vs 4).
        const double loss = expected[index]["loss"].toDouble();
        QVERIFY(std::abs(actual[index]["loss"].toDouble() - loss) <= 1e-6 * loss);
    }
    QCOMPARE(actual.last()["micro_batch"].toInt(), 2);
}

void TestCliPretrained::sentencePieceOnlyBase() {
    // A Llama folder whose only tokenizer is a SentencePiece tokenizer.model (as Llama 2 and
    // Mistral v0.1 checkpoints often come): a tiny unigram model trained by python3-sentencepiece
    // with the ids it gives in expected.json.
    const QString base = copyModel("llama", "llama-spm");
    QVERIFY(!base.isEmpty());
    const QDir folder(base);
    QVERIFY(QFile::remove(folder.filePath("tokenizer.json")));
    QVERIFY(QFile::remove(folder.filePath("tokenizer_config.json")));
    const QString fixture = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/sentencepiece/unigram");
    QVERIFY(QFile::copy(fixture + "/tokenizer.model", folder.filePath("tokenizer.model")));
    QFile expected_file(fixture + "/expected.json");
    QVERIFY(expected_file.open(QIODevice::ReadOnly));
    const QJsonArray cases =
        QJsonDocument::fromJson(expected_file.readAll()).object()["cases"].toArray();
    QJsonArray hello_ids;
    for (const QJsonValue &row : cases) {
        if (row["text"].toString() == "Hello world") {
            hello_ids = row["ids"].toArray();
        }
    }
    QVERIFY(!hello_ids.isEmpty());

    const Result tokenized =
        cli({"tokenize", "--tokenizer", base, "--text", "Hello world", "--json"});
    if (tokenized.err.contains("AddressSanitizer")) {
        QSKIP("this build cannot load the SentencePiece module (AddressSanitizer)");
    }
    QVERIFY2(tokenized.exit_code == 0, qPrintable(tokenized.err));

    const QString project = path("spm.headroom");
    const Result created =
        cli(QStringList{"new", project, "--base", base, "--data", data_} + kTiny);
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    QVERIFY2(created.out.contains("tokenizer.model, vocabulary 340"), created.out.constData());

    const QJsonObject encoded = QJsonDocument::fromJson(tokenized.out.trimmed()).object();
    QCOMPARE(encoded["ids"].toArray(), hello_ids);
    QCOMPARE(encoded["text"].toString(), QString("<s>Hello world"));

    const Result generated =
        cli({"generate", project, "--prompt", "Hello world", "--json", "--max-tokens", "4"});
    QVERIFY2(generated.exit_code == 0, qPrintable(generated.err));
    QCOMPARE(generateJson(generated)["prompt_tokens"].toArray(), hello_ids);
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QCOMPARE(stepLines(trained.out).size(), 4);
}

void TestCliPretrained::badFoldersAreRefused_data() {
    QTest::addColumn<QString>("change"); // what is done to a copy of the gpt2 folder
    QTest::addColumn<QString>("message");
    QTest::newRow("no config.json") << "remove config.json"
                                    << "config.json";
    QTest::newRow("pickle weights") << "pickle"
                                    << "pytorch_model.bin";
    QTest::newRow("other architecture") << "bert"
                                        << "BertForMaskedLM";
    QTest::newRow("truncated weights") << "truncate"
                                       << "model.safetensors";
    QTest::newRow("no tokenizer") << "remove tokenizer.json"
                                  << "tokenizer";
}

void TestCliPretrained::badFoldersAreRefused() {
    QFETCH(QString, change);
    QFETCH(QString, message);
    static int count = 0;
    const QString base = copyModel("gpt2", QString("bad-%1").arg(++count));
    const QDir folder(base);
    if (change.startsWith("remove ")) {
        QVERIFY(QFile::remove(folder.filePath(change.mid(7))));
    } else if (change == "pickle") {
        QVERIFY(QFile::rename(folder.filePath("model.safetensors"),
                              folder.filePath("pytorch_model.bin")));
    } else if (change == "bert") {
        QFile config(folder.filePath("config.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        QByteArray text = config.readAll();
        config.close();
        text.replace("GPT2LMHeadModel", "BertForMaskedLM");
        QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
        config.write(text);
    } else if (change == "truncate") {
        QFile weights(folder.filePath("model.safetensors"));
        QVERIFY(weights.resize(weights.size() / 2));
    }
    const QString project = path(QString("bad-%1.headroom").arg(count));
    const Result result = cli({"new", project, "--base", base, "--data", data_});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
    QVERIFY(!QFile::exists(project));
}

QTEST_GUILESS_MAIN(TestCliPretrained)
#include "test_cli_pretrained.moc"
