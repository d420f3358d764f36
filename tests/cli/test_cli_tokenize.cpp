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
    QVERIFY2(refused.err.contains("only gpt projects have a tokenizer"), qPrintable(refused.err));
}

QTEST_GUILESS_MAIN(TestCliTokenize)
#include "test_cli_tokenize.moc"
