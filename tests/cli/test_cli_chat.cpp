// Conversation data through the binary: `tokenize --chat` prints each conversation rendered with
// the tokenizer folder's chat template and its learned tokens, and a GPT trains on
// conversations with the built-in ChatML template; bad records name file and line.
#include "cli_support.h"
#include "sample_files.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

using test_support::runCli;

namespace {

const QString kByteLevelTokenizer =
    QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/tokenizers/bpe_byte_level/tokenizer.json");

// A template in the style of the real ones: specials from tokenizer_config.json, a system
// prompt, the generation prompt.
const QByteArray kTokenizerConfig = R"({
  "bos_token": "<s>",
  "eos_token": "</s>",
  "chat_template": "{{ bos_token }}{% for m in messages %}{{ '<' + m['role'] + '>' + m['content'] | trim + eos_token }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
})";

QByteArray conversations(int count) {
    QByteArray lines;
    for (int i = 0; i < count; ++i) {
        lines += R"({"messages": [{"role": "system", "content": "You answer briefly."}, )"
                 R"({"role": "user", "content": "What is )" +
                 QByteArray::number(i) +
                 R"( plus one?"}, {"role": "assistant", "content": "It is )" +
                 QByteArray::number(i + 1) +
                 R"(."}]})"
                 "\n";
    }
    return lines;
}

QList<QJsonObject> jsonLines(const QByteArray &out) {
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        if (!line.isEmpty()) {
            lines.push_back(QJsonDocument::fromJson(line).object());
        }
    }
    return lines;
}

} // namespace

class TestCliChat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void tokenizeChatMarksTheReplies();
    void tokenizeChatRefusesBadRecords();
    void trainsAGptOnConversations();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString tokenizer_;
};

void TestCliChat::initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(QDir(dir_.path()).mkdir("tokenizer"));
    tokenizer_ = path("tokenizer");
    QVERIFY(QFile::copy(kByteLevelTokenizer, tokenizer_ + "/tokenizer.json"));
    QVERIFY(!test_support::writeFile(QDir(tokenizer_), "tokenizer_config.json", kTokenizerConfig)
                 .isEmpty());
}

void TestCliChat::tokenizeChatMarksTheReplies() {
    const QString data = test_support::writeFile(QDir(dir_.path()), "two.jsonl", conversations(2));
    const auto result = runCli({"tokenize", "--tokenizer", tokenizer_, "--chat", data, "--json"});
    QCOMPARE(result.exit_code, 0);
    const QList<QJsonObject> records = jsonLines(result.out);
    QCOMPARE(records.size(), 2);
    QCOMPARE(records[1]["text"].toString(),
             QString("<s><system>You answer briefly.</s><user>What is 1 plus one?</s>"
                     "<assistant>It is 2.</s>"));
    QCOMPARE(records[1]["line"].toInt(), 2);
    const QJsonArray ids = records[1]["ids"].toArray();
    const QJsonArray train = records[1]["train"].toArray();
    QCOMPARE(train.size(), ids.size());
    int trained = 0;
    for (const QJsonValue &flag : train) {
        trained += flag.toInt();
    }
    QVERIFY(trained > 0 && trained < ids.size());
    QVERIFY(train.last().toInt() == 1); // the end-of-turn is learned
    QCOMPARE(records[1]["methods"].toArray().first().toString(), QString("prefix"));

    const auto shown = runCli({"tokenize", "--tokenizer", tokenizer_, "--chat", data});
    QCOMPARE(shown.exit_code, 0);
    QVERIFY2(QString::fromUtf8(shown.out).contains("<assistant>⟦It is 2.</s>⟧"),
             shown.out.constData());

    const auto prompted =
        runCli({"tokenize", "--tokenizer", tokenizer_, "--chat", data, "--chat-template", "chatml",
                "--add-generation-prompt", "--json"});
    QCOMPARE(prompted.exit_code, 0);
    QVERIFY(jsonLines(prompted.out)[0]["text"].toString().endsWith(
        "<|im_end|>\n<|im_start|>assistant\n"));
}

void TestCliChat::tokenizeChatRefusesBadRecords() {
    const QString data = test_support::writeFile(
        QDir(dir_.path()), "bad.jsonl",
        conversations(1) + R"({"messages": [{"role": "narrator", "content": "x"}]})"
                           "\n");
    const auto result = runCli({"tokenize", "--tokenizer", tokenizer_, "--chat", data, "--json"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("bad.jsonl:2:") && result.err.contains("unknown role"),
             qPrintable(result.err));
    const auto no_template =
        runCli({"tokenize", "--tokenizer", kByteLevelTokenizer, "--chat", data});
    QCOMPARE(no_template.exit_code, 2);
    QVERIFY2(no_template.err.contains("no chat template"), qPrintable(no_template.err));
}

void TestCliChat::trainsAGptOnConversations() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "chat.jsonl", conversations(40));
    const QStringList tiny = {"--set", "model.layers=1",      "--set", "model.heads=2",
                              "--set", "model.dim=16",        "--set", "model.seq_len=128",
                              "--set", "train.micro_batch=4", "--set", "train.steps=4",
                              "--set", "train.eval_every=2",  "--set", "train.eval_batches=1"};
    // Refused when the project is made, before anything trains: a scratch GPT has no template.
    const auto refused = runCli(
        QStringList{"new", path("without.headroom"), "--recipe", "gpt", "--data", data} + tiny);
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("data.chat_template=chatml"), qPrintable(refused.err));

    const QString project = path("chat.headroom");
    QCOMPARE(runCli(QStringList{"new", project, "--recipe", "gpt", "--data", data, "--set",
                                "data.chat_template=chatml"} +
                    tiny)
                 .exit_code,
             0);
    const auto trained = runCli({"train", project});
    QCOMPARE(trained.exit_code, 0);
    QVERIFY2(trained.err.contains("finished 4 steps"), qPrintable(trained.err));

    // The run answers a user's message rendered with the same template.
    const auto answered =
        runCli({"generate", project, "--chat", "--prompt", "What is 3 plus one?", "--system",
                "You answer briefly.", "--max-tokens", "12", "--json"});
    QCOMPARE(answered.exit_code, 0);
    const QJsonObject answer = QJsonDocument::fromJson(answered.out).object();
    const QJsonArray prompt = answer["prompt_tokens"].toArray();
    QCOMPARE(prompt.size(), int(std::string("<|im_start|>system\nYou answer briefly.<|im_end|>\n"
                                            "<|im_start|>user\nWhat is 3 plus one?<|im_end|>\n"
                                            "<|im_start|>assistant\n")
                                    .size())); // byte tokenizer: a token per byte
    QVERIFY(answer["tokens"].toArray().size() <= 12);
    // Exported with its template, as transformers and llama.cpp's converter read it.
    const QString exported = path("exported");
    QCOMPARE(runCli({"export", project, "--run", "1", "--hf", exported}).exit_code, 0);
    QFile written(exported + "/chat_template.jinja");
    QVERIFY(written.open(QIODevice::ReadOnly));
    QVERIFY(written.readAll().contains("<|im_start|>"));

    const auto both = runCli({"generate", project, "--system", "x", "--prompt", "y"});
    QCOMPARE(both.exit_code, 2); // --system needs --chat
}

QTEST_APPLESS_MAIN(TestCliChat)
#include "test_cli_chat.moc"
