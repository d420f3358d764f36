// CSV (RFC 4180) reading: quoting, embedded commas/newlines, CRLF, line numbers, bad rows.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/record_reader.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

using namespace headroom::data;
using test_support::writeFile;

namespace {

// Rows as "field|field|...", for readable data rows.
QStringList joinedRows(const std::vector<std::vector<std::string>> &rows) {
    QStringList joined;
    for (const auto &row : rows) {
        QStringList fields;
        for (const std::string &field : row) {
            fields << QString::fromStdString(field);
        }
        joined << fields.join('|');
    }
    return joined;
}

} // namespace

class TestDataCsv : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesRfc4180_data();
    void parsesRfc4180();
    void resumesAtSavedPosition();
    void textColumnFeedsTheTokenStream();
    void inspectShowsHeaderAndPreview();
    void badData_data();
    void badData();

private:
    DataSpec spec(const std::string &content) {
        DataSpec s;
        s.path = writeFile(dir_, QString("table%1.csv").arg(++files_), content);
        s.format = Format::Csv;
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        return s;
    }

    QTemporaryDir dir_;
    int files_ = 0;
};

void TestDataCsv::parsesRfc4180_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("header");
    QTest::addColumn<QStringList>("rows");
    QTest::addColumn<QList<int>>("lines");
    QTest::newRow("plain") << QByteArray("a,b\n1,2\n3,4\n") << "a|b" << QStringList{"1|2", "3|4"}
                           << QList<int>{2, 3};
    QTest::newRow("quoted comma") << QByteArray("a,b\n\"x,y\",2\n") << "a|b" << QStringList{"x,y|2"}
                                  << QList<int>{2};
    QTest::newRow("doubled quotes") << QByteArray("a,b\n\"say \"\"hi\"\"\",\"\"\n") << "a|b"
                                    << QStringList{"say \"hi\"|"} << QList<int>{2};
    QTest::newRow("embedded newline") << QByteArray("a,b\n\"line1\nline2\",2\n3,4\n") << "a|b"
                                      << QStringList{"line1\nline2|2", "3|4"} << QList<int>{2, 4};
    QTest::newRow("crlf") << QByteArray("a,b\r\n1,2\r\n\"q\r\nr\",3\r\n") << "a|b"
                          << QStringList{"1|2", "q\r\nr|3"} << QList<int>{2, 3};
    QTest::newRow("empty fields") << QByteArray("a,b,c\n,,\n") << "a|b|c" << QStringList{"||"}
                                  << QList<int>{2};
    QTest::newRow("no final newline")
        << QByteArray("a,b\n1,2") << "a|b" << QStringList{"1|2"} << QList<int>{2};
    QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF"
                                                   "a,b\n1,2\n")
                                     << "a|b" << QStringList{"1|2"} << QList<int>{2};
    QTest::newRow("blank lines skipped") << QByteArray("a,b\n\n1,2\r\n\r\n\n5,6\n\n") << "a|b"
                                         << QStringList{"1|2", "5|6"} << QList<int>{3, 6};
    QTest::newRow("quote inside unquoted field")
        << QByteArray("a,b\n5\" pipe,x\n") << "a|b" << QStringList{"5\" pipe|x"} << QList<int>{2};
    QTest::newRow("multibyte") << QByteArray("name,city\n\"Zoë\",Zürich\n") << "name|city"
                               << QStringList{"Zoë|Zürich"} << QList<int>{2};
}

void TestDataCsv::parsesRfc4180() {
    QFETCH(QByteArray, content);
    QFETCH(QString, header);
    QFETCH(QStringList, rows);
    QFETCH(QList<int>, lines);
    RecordReader reader(spec(content.toStdString()), false);
    QCOMPARE(joinedRows({reader.columns()}).join(""), header);
    std::vector<std::vector<std::string>> got;
    QList<int> got_lines;
    Record record;
    while (reader.next(record)) {
        QCOMPARE(record.ordinal, static_cast<std::int64_t>(got.size()));
        got.push_back(record.fields);
        got_lines << static_cast<int>(record.line);
    }
    QCOMPARE(joinedRows(got), rows);
    QCOMPARE(got_lines, lines);
}

void TestDataCsv::resumesAtSavedPosition() {
    RecordReader reader(spec("a,b\n1,\"x\ny\"\n2,z\n3,w\n"), false);
    Record record;
    QVERIFY(reader.next(record));
    const RecordPosition after_first = reader.position();
    QVERIFY(reader.next(record));
    QCOMPARE(record.fields[0], std::string("2"));
    reader.seek(after_first);
    QVERIFY(reader.next(record));
    QCOMPARE(record.fields[1], std::string("z"));
    QCOMPARE(record.line, std::int64_t{4});
    QCOMPARE(record.ordinal, std::int64_t{1});
    reader.rewind();
    QVERIFY(reader.next(record));
    QCOMPARE(record.fields[1], std::string("x\ny"));
}

void TestDataCsv::textColumnFeedsTheTokenStream() {
    DataSpec s = spec("id,text\n1,\"hi, you\"\n2,yo\n");
    s.seq_len = 10;
    const auto bytes = makeByteTokenizer();
    ExampleStream stream(s, Split::Train, bytes.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    const std::vector<std::int32_t> expected = {'h', 'i', ',', ' ', 'y', 'o',
                                                'u', 256, 'y', 'o', 256};
    QVERIFY(example.tokens == expected);

    s.text_field = "body";
    try {
        ExampleStream missing(s, Split::Train, bytes.get(), nullptr);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(QString(error.what()),
                 QString::fromStdString(s.path) +
                     ": unknown text column 'body'; the header has: id, text");
    }
}

void TestDataCsv::inspectShowsHeaderAndPreview() {
    DataSpec s = spec("x,label\n1,\"a,b\"\n2,c\n3,d\n");
    s.target = "label";
    const DataSummary summary = inspectData(s, 2);
    QVERIFY(summary.format == Format::Csv);
    QCOMPARE(summary.records, std::int64_t{3});
    QVERIFY(summary.columns == (std::vector<std::string>{"x", "label"}));
    QVERIFY(summary.preview == (std::vector<std::string>{"1, a,b", "2, c"}));
    s.max_examples = 1; // inspection describes the whole file
    QCOMPARE(inspectData(s).records, std::int64_t{3});
}

void TestDataCsv::badData_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("ragged row") << QByteArray("a,b\n1,2\n1,2,3\n") << "" << 3
                                << "row 2 has 3 fields, the header has 2";
    QTest::newRow("short row") << QByteArray("a,b,c\n1,2,3\n4\n") << "" << 3
                               << "row 2 has 1 field, the header has 3";
    QTest::newRow("ragged after multi-line record")
        << QByteArray("a,b\n\"x\ny\nz\",1\n1,2,3\n") << "" << 5 << "row 2 has 3 fields";
    QTest::newRow("unterminated quote") << QByteArray("a,b\n1,2\n3,\"open\n4,5\n") << "" << 3
                                        << "unterminated quote: the quoted field 2";
    QTest::newRow("text after closing quote") << QByteArray("a,b\n\"x\"y,2\n") << "" << 2
                                              << "unexpected character 'y' after the "
                                                 "closing quote of field 1";
    QTest::newRow("unknown target") << QByteArray("a,b\n1,2\n") << "nope" << 0
                                    << "unknown target column 'nope'; the header has: a, b";
    QTest::newRow("header only") << QByteArray("a,b\r\n") << "" << 0
                                 << "the file has a header but no data rows";
    QTest::newRow("duplicate column")
        << QByteArray("a,b,a\n1,2,3\n") << "" << 1 << "the header names the column 'a' twice";
    QTest::newRow("invalid UTF-8 inside quotes")
        << QByteArray("a,b\n\"ok\nbad\xff\",1\n") << "" << 3 << "invalid UTF-8 at byte column 4";
    QTest::newRow("empty") << QByteArray() << "" << 0 << "the file is empty";
}

void TestDataCsv::badData() {
    QFETCH(QByteArray, content);
    QFETCH(QString, target);
    QFETCH(int, line);
    QFETCH(QString, problem);
    DataSpec s = spec(content.toStdString());
    s.target = target.toStdString();
    try {
        inspectData(s);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), static_cast<std::int64_t>(line));
        QVERIFY2(QString(error.what()).contains(problem), error.what());
        const QString prefix = QString::fromStdString(s.path) +
                               (line > 0 ? QString(":%1: ").arg(line) : QString(": "));
        QVERIFY2(QString(error.what()).startsWith(prefix), error.what());
    }
}

QTEST_GUILESS_MAIN(TestDataCsv)
#include "test_data_csv.moc"
