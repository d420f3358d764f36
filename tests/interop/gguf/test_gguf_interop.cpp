#include "cli_support.h"
#include "sample_files.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#ifndef HEADROOM_GGUF_REFERENCE_DIR
#define HEADROOM_GGUF_REFERENCE_DIR ""
#endif

// GGUF exports run in real llama.cpp (node-llama-cpp's prebuilt CPU build): the prompt ids and
// 32 greedy tokens equal Headroom's generate for every architecture at f32 and f16 (a LoRA run
// merged, llama3 and linear RoPE scaling, Mixtral's experts, Headroom's own GPT); the
// real Llama 3 and Qwen3 vocabularies tokenize as Headroom does; the quantized files decode in
// llama.cpp's gguf-py close to the weights; bad input is refused.
// The llama.cpp build, gguf-py and the tiny model folders come from the CTest fixture
// gguf_reference (tests/interop/gguf/setup.sh).
class TestGgufInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void greedyTokensMatchLlamaCpp_data();
    void greedyTokensMatchLlamaCpp();
    void realTokenizersTokenizeAsHeadroom_data();
    void realTokenizersTokenizeAsHeadroom();
    void loraRunIsMergedAsHeadroomRunsIt();
    void scratchGptMatchesLlamaCpp();
    void quantizedFilesDecodeInGgufPy();
    void ollamaModelfileStopsAtTheEnd();
    void badInputIsRefused_data();
    void badInputIsRefused();

private:
    using Result = test_support::CliResult;
    struct Greedy {
        QList<int> prompt, tokens;
        bool stopped = false; // llama.cpp: at an end-of-generation token, which it leaves out
    };
    static Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    // A project on the reference folder `model` (made once).
    QString project(const QString &model);
    QString exportGguf(const QString &project, const QString &quant, const QString &name,
                       const QStringList &extra = {});
    Greedy headroomGreedy(const QString &project, const QString &prompt, const QString &run);
    Greedy llamaGreedy(const QString &gguf, const QString &prompt);
    // Headroom's tokens as llama.cpp reports them: without the end-of-generation token.
    static void compareGreedy(Greedy headroom, const Greedy &llama);
    // tests/interop/gguf/check_quants.py on files[0] (f32) and the others: its report, or empty
    // after a failure (printed).
    QString checkQuants(const QStringList &files);

    QTemporaryDir dir_;
    QString reference_, data_;
    QMap<QString, QString> projects_;
    QMap<QString, Greedy> base_greedy_; // generate of the base, by model
};

namespace {

const QString kPrompt = QStringLiteral("The quick brown fox, it's 2024! Together   they ran.");

QList<int> ids(const QJsonValue &value) {
    QList<int> out;
    for (const QJsonValue &id : value.toArray()) {
        out.push_back(id.toInt());
    }
    return out;
}

} // namespace

void TestGgufInterop::initTestCase() {
    QVERIFY(dir_.isValid());
    reference_ = QStringLiteral(HEADROOM_GGUF_REFERENCE_DIR);
    QFile status(reference_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly)) {
        QSKIP("no GGUF interop reference: run tests/interop/gguf/setup.sh");
    }
    const QByteArray why = status.readAll().trimmed();
    if (!why.startsWith("ok")) {
        QSKIP(qPrintable("GGUF interop reference not prepared: " + QString::fromUtf8(why)));
    }
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(200));
}

QString TestGgufInterop::project(const QString &model) {
    if (!projects_.contains(model)) {
        const QString file = path(model + ".headroom");
        const Result made = cli({"new", file, "--base", reference_ + "/models/" + model, "--data",
                                 data_, "--set", "model.seq_len=32"});
        if (made.exit_code != 0) {
            qWarning().noquote() << made.err;
            return {};
        }
        projects_[model] = file;
    }
    return projects_[model];
}

QString TestGgufInterop::exportGguf(const QString &project, const QString &quant,
                                    const QString &name, const QStringList &extra) {
    const QString file = path(name + ".gguf");
    const Result written = cli(
        QStringList{"export", project, "--run", "-1", "--gguf", file, "--quant", quant} + extra);
    if (written.exit_code != 0) {
        qWarning().noquote() << written.err;
        return {};
    }
    return file;
}

TestGgufInterop::Greedy TestGgufInterop::headroomGreedy(const QString &project,
                                                        const QString &prompt, const QString &run) {
    const Result result = cli(
        {"generate", project, "--run", run, "--prompt", prompt, "--max-tokens", "32", "--json"});
    const QJsonObject json = QJsonDocument::fromJson(result.out).object();
    if (result.exit_code != 0 || json.isEmpty()) {
        qWarning().noquote() << result.err;
        return {};
    }
    return {ids(json["prompt_tokens"]), ids(json["tokens"])};
}

TestGgufInterop::Greedy TestGgufInterop::llamaGreedy(const QString &gguf, const QString &prompt) {
    QProcess node;
    node.start("node", {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/gguf/generate.js"),
                        reference_ + "/node_modules", gguf, prompt, "32"});
    if (!node.waitForFinished(120000) || node.exitCode() != 0) {
        qWarning().noquote() << node.readAllStandardError();
        return {};
    }
    const QJsonObject json = QJsonDocument::fromJson(node.readAllStandardOutput()).object();
    return {ids(json["prompt_tokens"]), ids(json["tokens"]), json["stopped"].toBool()};
}

void TestGgufInterop::compareGreedy(Greedy headroom, const Greedy &llama) {
    QVERIFY(!headroom.prompt.isEmpty());
    QCOMPARE(llama.prompt, headroom.prompt);
    if (llama.stopped && headroom.tokens.size() < 32 && !headroom.tokens.isEmpty()) {
        headroom.tokens.removeLast();
    }
    QCOMPARE(llama.tokens, headroom.tokens);
}

QString TestGgufInterop::checkQuants(const QStringList &files) {
    QProcess python;
    python.start(
        "/usr/bin/python3",
        QStringList{QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/gguf/check_quants.py"),
                    reference_ + "/llama.cpp/gguf-py"} +
            files);
    if (!python.waitForFinished(300000)) {
        return {};
    }
    const QString report =
        QString::fromUtf8(python.readAllStandardOutput() + python.readAllStandardError());
    if (python.exitCode() != 0) {
        qWarning().noquote() << report;
        return {};
    }
    return report;
}

void TestGgufInterop::greedyTokensMatchLlamaCpp_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("quant");
    for (const char *model : {"gpt2", "llama", "qwen2", "mistral", "mixtral"}) {
        for (const char *quant : {"f32", "f16"}) {
            QTest::addRow("%s %s", model, quant) << model << quant;
        }
    }
}

void TestGgufInterop::greedyTokensMatchLlamaCpp() {
    QFETCH(QString, model);
    QFETCH(QString, quant);
    const QString project = this->project(model);
    QVERIFY(!project.isEmpty());
    const QString gguf = exportGguf(project, quant, model + "-" + quant);
    QVERIFY(!gguf.isEmpty());
    if (!base_greedy_.contains(model)) {
        base_greedy_[model] = headroomGreedy(project, kPrompt, "-1");
    }
    compareGreedy(base_greedy_[model], llamaGreedy(gguf, kPrompt));
}

void TestGgufInterop::realTokenizersTokenizeAsHeadroom_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("specials");
    QTest::addColumn<bool>("nfc");
    QTest::newRow("llama3") << "llama3-tokenizer"
                            << R"(["<|begin_of_text|>","<|eot_id|>"])" << false;
    // Qwen's tokenizer NFC-normalizes, llama.cpp does not: equal on composed text.
    QTest::newRow("qwen3") << "qwen3-tokenizer"
                           << R"(["<|im_start|>","<|im_end|>","<|endoftext|>"])" << true;
}

// The real Llama 3 and Qwen3 vocabularies (llama-bpe and qwen2 pre-tokenizers, 128 K and 151 K
// ids, special tokens inside the text) tokenize the tokenizer interop test's texts as Headroom
// does.
void TestGgufInterop::realTokenizersTokenizeAsHeadroom() {
    QFETCH(QString, model);
    QFETCH(QString, specials);
    QFETCH(bool, nfc);
    if (!QFile::exists(reference_ + "/models/" + model + "/tokenizer.json")) {
        QSKIP("the npm tokenizer packages are not installed");
    }
    const QString project = this->project(model);
    QVERIFY(!project.isEmpty());
    const QString gguf = path(model + ".gguf");
    const Result written =
        cli({"export", project, "--run", "-1", "--gguf", gguf, "--quant", "f32"});
    QVERIFY2(written.exit_code == 0, qPrintable(written.err));
    QCOMPARE(written.err.contains("NFC-normalizes"), nfc);
    QProcess node;
    QStringList arguments = {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/gguf/tokenize.js"),
                             reference_ + "/node_modules", gguf, specials};
    if (nfc) {
        arguments.push_back("nfc");
    }
    node.start("node", arguments);
    QVERIFY(node.waitForFinished(120000));
    QVERIFY2(node.exitCode() == 0, node.readAllStandardError().constData());
    const QJsonObject llama = QJsonDocument::fromJson(node.readAllStandardOutput()).object();
    const QJsonArray texts = llama["texts"].toArray();
    const QJsonArray llama_ids = llama["ids"].toArray();
    QCOMPARE(texts.size(), 2);
    for (int i = 0; i < texts.size(); ++i) {
        const Result headroom =
            cli({"tokenize", "--tokenizer", project, "--text", texts[i].toString(), "--json"});
        QCOMPARE(headroom.exit_code, 0);
        const QList<int> want = ids(QJsonDocument::fromJson(headroom.out).object()["ids"]);
        QVERIFY(!want.isEmpty());
        QCOMPARE(ids(llama_ids[i]), want);
    }
}

// A LoRA run's adapters merged into the weights, tensor by tensor.
void TestGgufInterop::loraRunIsMergedAsHeadroomRunsIt() {
    const QString project = path("lora.headroom");
    QCOMPARE(cli({"new", project, "--base", reference_ + "/models/llama", "--data", data_, "--set",
                  "model.seq_len=32", "--set", "lora.rank=4", "--set", "train.lr=0.01", "--set",
                  "train.micro_batch=4"})
                 .exit_code,
             0);
    QCOMPARE(cli({"train", project, "--steps", "10"}).exit_code, 0);
    const QString gguf = path("lora.gguf");
    const Result written = cli({"export", project, "--run", "1", "--gguf", gguf, "--quant", "f32"});
    QVERIFY2(written.exit_code == 0, qPrintable(written.err));
    const Greedy run = headroomGreedy(project, kPrompt, "1");
    QVERIFY(run.tokens != headroomGreedy(project, kPrompt, "-1").tokens); // training changed it
    compareGreedy(run, llamaGreedy(gguf, kPrompt));
}

// Headroom's own GPT (byte tokenizer, exact GELU where llama.cpp's gpt2 has the tanh one),
// trained a little: the same prompt ids and the same greedy tokens.
void TestGgufInterop::scratchGptMatchesLlamaCpp() {
    const QString project = path("scratch.headroom");
    QCOMPARE(cli({"new", project, "--recipe", "gpt", "--data", data_, "--set", "model.layers=2",
                  "--set", "model.dim=64", "--set", "model.heads=4", "--set", "model.seq_len=64",
                  "--set", "train.micro_batch=8", "--set", "train.lr=0.003"})
                 .exit_code,
             0);
    QCOMPARE(cli({"train", project, "--steps", "60"}).exit_code, 0);
    const QString gguf = path("scratch.gguf");
    const Result written = cli({"export", project, "--run", "1", "--gguf", gguf, "--quant", "f32"});
    QVERIFY2(written.exit_code == 0, qPrintable(written.err));
    QVERIFY2(written.err.contains("tanh approximation"), qPrintable(written.err));
    const QString prompt = QStringLiteral("The fox");
    compareGreedy(headroomGreedy(project, prompt, "1"), llamaGreedy(gguf, prompt));
}

// Every block format written (llama-wide has rows of 256 and 512: no k-quant falls back), read
// by llama.cpp's own gguf-py and dequantized there, is close to the f32 export, and the formats
// gguf-py quantizes too are its bytes exactly; llama.cpp loads the q4_k_m file and tokenizes the
// prompt as Headroom does.
void TestGgufInterop::quantizedFilesDecodeInGgufPy() {
    const QString project = this->project("llama-wide");
    QVERIFY(!project.isEmpty());
    QStringList files;
    for (const char *quant : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k_m", "q5_k_m", "q6_k"}) {
        files.push_back(exportGguf(project, quant, QString("wide-") + quant));
        QVERIFY(!files.back().isEmpty());
    }
    const QString report = checkQuants(files);
    QVERIFY2(report.contains("Q4_K:") && report.contains("Q5_K:") && report.contains("Q6_K:") &&
                 report.contains("Q8_0:") && report.contains("Q4_0:"),
             qPrintable(report));
    // Rows of 64: the k-quants fall back to q5_0, q5_1 and q8_0 as llama-quantize does.
    const QString narrow = this->project("llama");
    QVERIFY(!narrow.isEmpty());
    QStringList fallbacks;
    for (const char *quant : {"f32", "q4_k_m", "q5_k_m", "q6_k"}) {
        fallbacks.push_back(exportGguf(narrow, quant, QString("narrow-") + quant));
        QVERIFY(!fallbacks.back().isEmpty());
    }
    const QString fallback_report = checkQuants(fallbacks);
    QVERIFY2(fallback_report.contains("Q5_0:") && fallback_report.contains("Q5_1:") &&
                 !fallback_report.contains("_K:"),
             qPrintable(fallback_report));
    const Greedy headroom = headroomGreedy(project, kPrompt, "-1");
    const Greedy quantized = llamaGreedy(files[5], kPrompt);
    QCOMPARE(quantized.prompt, headroom.prompt);
    QCOMPARE(quantized.tokens.size(), 32);
}

void TestGgufInterop::ollamaModelfileStopsAtTheEnd() {
    const QString project = this->project("llama");
    QVERIFY(!project.isEmpty());
    QVERIFY(!exportGguf(project, "q8_0", "ollama", {"--ollama"}).isEmpty());
    QFile modelfile(path("Modelfile"));
    QVERIFY(modelfile.open(QIODevice::ReadOnly));
    const QByteArray text = modelfile.readAll();
    QVERIFY2(text.startsWith("FROM ./ollama.gguf\n"), text.constData());
    QVERIFY2(text.contains("PARAMETER stop \"<|endoftext|>\"\n"), text.constData());
}

void TestGgufInterop::badInputIsRefused_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown quant") << QStringList{"--gguf", "x.gguf", "--quant", "q3_k_s"}
                                   << "unknown GGUF quantization 'q3_k_s'";
    QTest::newRow("missing folder")
        << QStringList{"--gguf", "no/such/folder/x.gguf"} << "does not exist";
    QTest::newRow("gguf with hf") << QStringList{"--gguf", "x.gguf", "--hf", "out"} << "excludes";
    QTest::newRow("quant without gguf")
        << QStringList{"--quant", "f16", "--hf", "out"} << "requires --gguf";
    QTest::newRow("tokenizer llama.cpp cannot reproduce")
        << QStringList{"--gguf", "x.gguf", "--base-tokenizer-nfkc"} << "normalizer";
}

void TestGgufInterop::badInputIsRefused() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QString project = this->project("gpt2");
    if (arguments.removeAll("--base-tokenizer-nfkc") > 0) {
        // the gpt2 folder with a tokenizer that lowercases and NFKC-normalizes
        const QString base = path("gpt2-nfkc");
        QDir().mkpath(base);
        for (const QString &name : QDir(reference_ + "/models/gpt2").entryList(QDir::Files)) {
            QFile::copy(reference_ + "/models/gpt2/" + name, base + "/" + name);
        }
        QFile::remove(base + "/tokenizer.json");
        QVERIFY(QFile::copy(QStringLiteral(HEADROOM_SOURCE_DIR
                                           "/tests/data/tokenizers/bpe_byte_level/tokenizer.json"),
                            base + "/tokenizer.json"));
        project = path("nfkc.headroom");
        QCOMPARE(cli({"new", project, "--base", base, "--data", data_}).exit_code, 0);
    }
    QVERIFY(!project.isEmpty());
    const QDir previous = QDir::current();
    QDir::setCurrent(dir_.path());
    const Result result = cli(QStringList{"export", project, "--run", "-1"} + arguments);
    QDir::setCurrent(previous.path());
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(message), qPrintable(result.err));
    QVERIFY(!QFile::exists(path("x.gguf")));
    QVERIFY(!QFile::exists(path("x.gguf.partial")));
}

QTEST_GUILESS_MAIN(TestGgufInterop)
#include "test_gguf_interop.moc"
