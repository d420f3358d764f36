// previewData / modelFactsFor: what the config wizard reads before a project exists.
#include "sample_files.h"

#include <headroom/data_preview.h>

#include <QTemporaryDir>
#include <QtTest>

#include <string>

using headroom::Config;
using headroom::InputError;
using test_support::writeFile;

class TestDataPreview : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void previewsGoodFiles_data();
    void previewsGoodFiles();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void gptFactsCountTheVocabulary_data();
    void gptFactsCountTheVocabulary();
    void tabularFactsFollowTheSchema();
    void tabularFactsFollowTheTarget();

private:
    Config configFor(const std::string &recipe) const {
        Config config;
        config.set("recipe", recipe);
        return config;
    }
    QTemporaryDir dir_;
    std::string text_;
    std::string csv_;
};

void TestDataPreview::initTestCase() {
    QVERIFY(dir_.isValid());
    text_ = writeFile(dir_, "story.txt", test_support::storyText(40).toStdString());
    csv_ = writeFile(dir_, "table.csv", test_support::tabularCsv(60).toStdString());
    writeFile(dir_, "records.jsonl", std::string("{\"text\":\"one\"}\n{\"text\":\"two\"}\n"));
}

void TestDataPreview::previewsGoodFiles_data() {
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("format");
    QTest::addColumn<qint64>("records");
    QTest::addColumn<QStringList>("columns");
    QTest::addColumn<QString>("firstPreview");
    QTest::newRow("text") << "gpt"
                          << "story.txt"
                          << "text" << qint64(40) << QStringList()
                          << "The fox found the brass key.";
    QTest::newRow("csv") << "tabular"
                         << "table.csv"
                         << "csv" << qint64(60) << QStringList{"x", "y", "colour", "label"}
                         << "-4.00";
    QTest::newRow("jsonl") << "gpt"
                           << "records.jsonl"
                           << "jsonl" << qint64(2) << QStringList{"text"} << "one";
}

void TestDataPreview::previewsGoodFiles() {
    QFETCH(QString, recipe);
    QFETCH(QString, file);
    QFETCH(QString, format);
    QFETCH(qint64, records);
    QFETCH(QStringList, columns);
    QFETCH(QString, firstPreview);
    const headroom::DataPreview preview = headroom::previewData(
        configFor(recipe.toStdString()), dir_.filePath(file).toStdString(), 3);
    QCOMPARE(QString::fromStdString(preview.format), format);
    QCOMPARE(qint64(preview.records), records);
    QVERIFY(preview.bytes > 0);
    QStringList got_columns;
    for (const std::string &column : preview.columns) {
        got_columns << QString::fromStdString(column);
    }
    QCOMPARE(got_columns, columns);
    QVERIFY(!preview.preview.empty());
    QVERIFY(preview.preview.size() <= 3);
    QVERIFY2(QString::fromStdString(preview.preview.front()).contains(firstPreview),
             preview.preview.front().c_str());
}

void TestDataPreview::refusesBadFiles_data() {
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("contents"); // empty: the file is not created
    QTest::addColumn<QStringList>("messageParts");
    QTest::newRow("missing") << "gpt"
                             << "missing.txt" << QByteArray()
                             << QStringList{"missing.txt", "no such file"};
    QTest::newRow("ragged csv") << "tabular"
                                << "ragged.csv" << QByteArray("a,b,label\n1,2,x\n3\n")
                                << QStringList{"ragged.csv", "3"};
    QTest::newRow("bad json") << "gpt"
                              << "bad.jsonl" << QByteArray("{\"text\":\"ok\"}\n{\"text\": oops}\n")
                              << QStringList{"bad.jsonl:2"};
    QTest::newRow("tabular on text")
        << "tabular"
        << "plain.txt" << QByteArray("hello\n") << QStringList{"plain.txt", "CSV"};
    QTest::newRow("empty") << "gpt"
                           << "empty.txt" << QByteArray(" ") << QStringList{"empty.txt"};
}

void TestDataPreview::refusesBadFiles() {
    QFETCH(QString, recipe);
    QFETCH(QString, file);
    QFETCH(QByteArray, contents);
    QFETCH(QStringList, messageParts);
    std::string path = dir_.filePath(file).toStdString();
    if (!contents.isEmpty()) {
        path = writeFile(dir_, file,
                         contents.trimmed().isEmpty() ? std::string() : contents.toStdString());
    }
    for (const bool facts : {false, true}) {
        if (facts && recipe == "gpt" && file != "missing.txt") {
            continue; // gpt facts come from the tokenizer, not from every record
        }
        try {
            if (facts) {
                headroom::modelFactsFor(configFor(recipe.toStdString()), path);
            } else {
                headroom::previewData(configFor(recipe.toStdString()), path, 5);
            }
            QFAIL("no InputError");
        } catch (const InputError &error) {
            const QString message = QString::fromUtf8(error.what());
            for (const QString &part : messageParts) {
                QVERIFY2(message.contains(part), qPrintable(message));
            }
        }
    }
}

void TestDataPreview::gptFactsCountTheVocabulary_data() {
    QTest::addColumn<QString>("tokenizer");
    QTest::addColumn<QString>("vocabSize");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("byte ignores vocab_size") << "byte"
                                             << "4000" << qint64(-1);
    QTest::newRow("bpe counts vocab_size") << "bpe"
                                           << "300" << qint64(300);
    QTest::newRow("unigram counts vocab_size") << "unigram"
                                               << "512" << qint64(512);
}

void TestDataPreview::gptFactsCountTheVocabulary() {
    QFETCH(QString, tokenizer);
    QFETCH(QString, vocabSize);
    QFETCH(qint64, expected);
    Config config = configFor("gpt");
    config.set("tokenizer", tokenizer.toStdString());
    config.set("tokenizer.vocab_size", vocabSize.toStdString());
    const headroom::ModelFacts facts = headroom::modelFactsFor(config, text_);
    if (expected < 0) {
        QVERIFY(facts.vocab_size >= 256 && facts.vocab_size < 4000); // the bytes and specials
    } else {
        QCOMPARE(qint64(facts.vocab_size), expected);
    }
    QCOMPARE(facts.numeric_features, 0);
}

void TestDataPreview::tabularFactsFollowTheSchema() {
    const headroom::ModelFacts facts = headroom::modelFactsFor(configFor("tabular"), csv_);
    QCOMPARE(facts.numeric_features, 2);                  // x, y
    QCOMPARE(facts.cardinalities.size(), std::size_t(1)); // colour
    QCOMPARE(facts.cardinalities.front(), 4);             // red, green, blue + unknown
    QCOMPARE(facts.outputs, 2);                           // high, low
    // The estimator accepts them as they are.
    const headroom::MemoryEstimate estimate = headroom::estimateMemory(configFor("tabular"), facts);
    QVERIFY(estimate.parameters > 0);
}

void TestDataPreview::tabularFactsFollowTheTarget() {
    Config config = configFor("tabular");
    config.set("data.target", "x");
    config.set("data.task", "regression");
    const headroom::ModelFacts facts = headroom::modelFactsFor(config, csv_);
    QCOMPARE(facts.outputs, 1);
    QCOMPARE(facts.numeric_features, 1); // y; x is the target now
    config.set("data.target", "nope");
    QVERIFY_THROWS_EXCEPTION(InputError, headroom::modelFactsFor(config, csv_));
}

QTEST_GUILESS_MAIN(TestDataPreview)
#include "test_data_preview.moc"
