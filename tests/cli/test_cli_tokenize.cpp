// headroom-cli tokenize: ids, tokens and the decoded text as JSON, the ids equal to the
// reference's (fixtures made by Hugging Face tokenizers), and exit code 2 for bad input.
#include "cli_support.h"
#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using test_support::runCli;

namespace {

const QString kFixtures = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/tokenizers");

QJsonObject fixtureCase(const QString &fixture, const QString &text) {
    QFile file(kFixtures + "/" + fixture + "/cases.json");
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    const QJsonArray cases = QJsonDocument::fromJson(file.readAll()).object()["cases"].toArray();
    for (const QJsonValue &c : cases) {
        if (c.toObject()["text"].toString() == text) {
            return c.toObject();
        }
    }
    return {};
}

} // namespace

class TestCliTokenize : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void printsReferenceIdsAsJson_data();
    void printsReferenceIdsAsJson();
    void badInputExitsWithTwo();
    void aProjectTokenizesWithItsOwnTokenizer();
    void fileStatisticsWithAProjectsTokenizer();
    void fileStatisticsRefuseBadInput();
};

void TestCliTokenize::printsReferenceIdsAsJson_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("text");
    QTest::newRow("metaspace first, specials") << "bpe_metaspace_first"
                                               << "Hello <sep> world";
    QTest::newRow("byte level, added tokens") << "bpe_byte_level"
                                              << "hello [MASK] world";
    QTest::newRow("bert") << "wordpiece_bert"
                          << "HELLO WORLD";
}

void TestCliTokenize::printsReferenceIdsAsJson() {
    QFETCH(QString, fixture);
    QFETCH(QString, text);
    const QJsonObject expected = fixtureCase(fixture, text);
    QVERIFY(!expected.isEmpty());
    for (const bool special : {true, false}) {
        QStringList arguments = {"tokenize", "--tokenizer", kFixtures + "/" + fixture,
                                 "--text",   text,          "--json"};
        if (!special) {
            arguments << "--no-special";
        }
        const auto result = runCli(arguments);
        QCOMPARE(result.exit_code, 0);
        const QJsonObject out = QJsonDocument::fromJson(result.out).object();
        QCOMPARE(out["ids"].toArray(), expected[special ? "ids" : "ids_nospecial"].toArray());
        if (special) {
            QCOMPARE(out["tokens"].toArray(), expected["tokens"].toArray());
            QCOMPARE(out["text"].toString(), expected["decoded"].toString());
        }
    }
}

void TestCliTokenize::badInputExitsWithTwo() {
    const auto missing = runCli({"tokenize", "--tokenizer", "/no/such/folder", "--text", "x"});
    QCOMPARE(missing.exit_code, 2);
    QVERIFY2(missing.err.contains("/no/such/folder"), qPrintable(missing.err));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile bad(dir.filePath("tokenizer.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"model":{"type":"WordLevel","vocab":{}},"pre_tokenizer":{"type":"Foo"}})");
    bad.close();
    const auto unknown = runCli({"tokenize", "--tokenizer", dir.path(), "--text", "x", "--json"});
    QCOMPARE(unknown.exit_code, 2);
    QVERIFY2(
        unknown.err.contains("tokenizer.json: /pre_tokenizer/type: unknown pre-tokenizer 'Foo'"),
        qPrintable(unknown.err));
}

void TestCliTokenize::aProjectTokenizesWithItsOwnTokenizer() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString corpus =
        test_support::writeFile(QDir(dir.path()), "corpus.txt", test_support::storyText(50));
    const QString project = dir.filePath("story.headroom");
    QCOMPARE(runCli({"new", project, "--recipe", "gpt", "--data", corpus}).exit_code, 0);
    // The byte tokenizer: one id per UTF-8 byte, "é" is two.
    const auto result = runCli({"tokenize", "--tokenizer", project, "--text", "Hé", "--json"});
    QCOMPARE(result.exit_code, 0);
    const QJsonObject out = QJsonDocument::fromJson(result.out).object();
    QCOMPARE(out["tokenizer"].toString(), QString("byte"));
    QCOMPARE(out["ids"].toArray(), (QJsonArray{72, 0xc3, 0xa9}));
    QCOMPARE(out["text"].toString(), QString("Hé"));

    const QString table =
        test_support::writeFile(QDir(dir.path()), "table.csv", test_support::tabularCsv(40));
    const QString tabular = dir.filePath("table.headroom");
    QCOMPARE(runCli({"new", tabular, "--recipe", "tabular", "--data", table}).exit_code, 0);
    const auto refused = runCli({"tokenize", "--tokenizer", tabular, "--text", "x"});
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("only language models (gpt, causal_lm) have a tokenizer"),
             qPrintable(refused.err));
}

void TestCliTokenize::fileStatisticsWithAProjectsTokenizer() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QDir folder(dir.path());
    const QString corpus =
        test_support::writeFile(folder, "corpus.txt", test_support::storyText(50));
    const QString project = dir.filePath("story.headroom");
    QCOMPARE(
        runCli({"new", project, "--recipe", "gpt", "--data", corpus, "--set", "model.seq_len=6"})
            .exit_code,
        0);
    // Byte tokens per line, the newline included: 3, 1, 6.
    const QString lines = test_support::writeFile(folder, "lines.txt", "ab\n\nhello\n");
    const auto result =
        runCli({"tokenize", "--tokenizer", project, "--file", lines, "--stats", "--json"});
    QCOMPARE(result.exit_code, 0);
    const QJsonObject out = QJsonDocument::fromJson(result.out).object();
    QCOMPARE(out["tokenizer"].toString(), QString("byte"));
    QCOMPARE(out["records"].toInt(), 3);
    QCOMPARE(out["bytes"].toInt(), 10);
    QVERIFY(out["whole_file"].toBool());
    QCOMPARE(out["tokens"].toInt(), 10);
    const QJsonObject per_record = out["tokens_per_record"].toObject();
    QCOMPARE(per_record["median"].toDouble(), 3.0);
    QCOMPARE(per_record["p95"].toInt(), 6);
    QCOMPARE(per_record["max"].toInt(), 6);
    QCOMPARE(out["seq_len"].toInt(), 6); // the project's model.seq_len
    QCOMPARE(out["longer_than_window"].toInt(), 0);
    const QJsonObject sample = out["sample"].toObject();
    QCOMPARE(sample["line"].toInt(), 1);
    QCOMPARE(sample["ids"].toArray(), (QJsonArray{97, 98, 10}));

    const auto shorter =
        runCli({"tokenize", "--tokenizer", project, "--file", lines, "--seq-len", "4"});
    QCOMPARE(shorter.exit_code, 0);
    QVERIFY2(shorter.out.contains("tokens per line: mean 3.3, median 3.0, p95 6, max 6"),
             shorter.out.constData());
    QVERIFY2(shorter.out.contains("1 lines longer than one training window (4 + 1 tokens)"),
             shorter.out.constData());
}

void TestCliTokenize::fileStatisticsRefuseBadInput() {
    const QString tokenizer = kFixtures + "/bpe_metaspace_first";
    const auto missing =
        runCli({"tokenize", "--tokenizer", tokenizer, "--file", "/no/such/data.txt", "--stats"});
    QCOMPARE(missing.exit_code, 2);
    QVERIFY2(missing.err.contains("/no/such/data.txt: no such file"), qPrintable(missing.err));
    const auto neither = runCli({"tokenize", "--tokenizer", tokenizer});
    QCOMPARE(neither.exit_code, 2);
    QVERIFY2(neither.err.contains("--text, --file or --chat"), qPrintable(neither.err));
    const auto both = runCli({"tokenize", "--tokenizer", tokenizer, "--text", "x", "--file", "y"});
    QCOMPARE(both.exit_code, 2);
}

QTEST_GUILESS_MAIN(TestCliTokenize)
#include "test_cli_tokenize.moc"
