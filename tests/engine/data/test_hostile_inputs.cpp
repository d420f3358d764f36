// Files from an untrusted source (data files, configs, stored tokenizers) cause at worst a
// clear error naming the file, the line and the problem: the explicit size limits hold, and
// memory stays bounded however the input is shaped. The inputs of the fuzzers' findings are
// kept here as regression rows.
#include "data/data_error.h"
#include "data/line_reader.h"
#include "data/record_reader.h"
#include "tokenizers/tokenizer.h"

#include <headroom/config.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <sys/resource.h>

using headroom::data::DataError;
using headroom::data::Format;

namespace {

// Every row's file is generated: a few megabytes, never committed.
std::string repeat(const std::string &unit, std::size_t count) {
    std::string text;
    text.reserve(unit.size() * count);
    for (std::size_t i = 0; i < count; ++i) {
        text += unit;
    }
    return text;
}

std::string nested(int depth) {
    return R"({"text":"x","deep":)" + repeat("[", static_cast<std::size_t>(depth)) +
           repeat("]", static_cast<std::size_t>(depth)) + "}\n";
}

long peakRssKiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// Reads every record; returns the DataError's message, or "" when the file was accepted.
std::string readError(const std::string &path, Format format, bool want_text) {
    headroom::data::DataSpec spec;
    spec.path = path;
    spec.format = format;
    try {
        headroom::data::RecordReader reader(spec, want_text);
        headroom::data::Record record;
        while (reader.next(record)) {
        }
    } catch (const DataError &error) {
        return error.what();
    }
    return {};
}

const std::size_t kOverLine = headroom::data::kMaxRecordBytes + 1024;

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dataFiles_data();
    void dataFiles();
    void limitsAreNotOffByOne();
    void configs_data();
    void configs();
    void storedTokenizers();
};

void TestHostileInputs::dataFiles_data() {
    QTest::addColumn<int>("format");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected"); // part of the message, after "FILE:LINE: "
    QTest::addColumn<int>("line");         // the line the message names

    const auto row = [](const char *name, Format format, const std::string &content,
                        const char *expected, int line) {
        QTest::newRow(name) << static_cast<int>(format)
                            << QByteArray(content.data(), static_cast<int>(content.size()))
                            << expected << line;
    };
    row("text: endless line", Format::Text, "ok\n" + std::string(kOverLine, 'a'),
        "line is longer than 16 MiB", 2);
    row("text: binary", Format::Text, "ok\n\xff\xfe\x00\x01", "invalid UTF-8 at byte column 1", 2);
    row("text: overlong UTF-8", Format::Text, "\xc0\xaf\n", "invalid UTF-8", 1);
    row("csv: a record of commas", Format::Csv, "a,b\n" + std::string(kOverLine - 2048, ','),
        "more than 65536 fields", 2);
    row("csv: header of commas", Format::Csv, std::string(70000, ',') + "\n",
        "more than 65536 fields", 1);
    row("csv: huge column name", Format::Csv, std::string(5000, 'n') + ",b\n1,2\n",
        "the header names a column of 5000 bytes", 1);
    row("csv: quote left open", Format::Csv, "a,b\n\"open,2\n3,4\n",
        "unterminated quote: the quoted field 1", 2);
    row("csv: quote open for 16 MiB", Format::Csv,
        "a,b\n\"" + repeat(std::string(1023, 'x') + "\n", kOverLine / 1024),
        "CSV record is longer than 16 MiB", 2);
    row("csv: text after quote", Format::Csv, "a,b\n\"x\"y,2\n", "after the closing quote", 2);
    row("csv: duplicate column", Format::Csv, "a,a\n1,2\n", "names the column 'a' twice", 1);
    row("csv: ragged row", Format::Csv, "a,b\n1,2\n1,2,3\n", "row 2 has 3 fields", 3);
    row("jsonl: deep nesting", Format::Jsonl, nested(100000), "JSON nested deeper than 64", 1);
    row("jsonl: endless line", Format::Jsonl, "{\"text\":\"" + std::string(kOverLine, 'a'),
        "line is longer than 16 MiB", 1);
    row("jsonl: not an object", Format::Jsonl, "{\"text\":\"a\"}\n[1]\n",
        "expected one JSON object per line, found a JSON array", 2);
    row("jsonl: truncated", Format::Jsonl, "{\"text\":\"a\"}\n{\"text\":\"b", "malformed JSON", 2);
    row("jsonl: text not a string", Format::Jsonl, "{\"text\":{\"a\":1}}\n",
        "the field \"text\" is a object, expected a string", 1);
    // Found by fuzz_records: nlohmann reports a too-large number as out_of_range, not as a
    // parse error, and the reader let it escape.
    row("jsonl: number overflow (fuzz)", Format::Jsonl,
        "{\"text\":\"a\"}\n777e777777777777077777.5\n", "malformed JSON: ", 2);
    row("jsonl: control bytes", Format::Jsonl, std::string("{\"text\":\"a\x01\"}\n", 14),
        "malformed JSON", 1);
}

void TestHostileInputs::dataFiles() {
    QFETCH(int, format);
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QFETCH(int, line);
    QTemporaryDir dir;
    const std::string path = dir.filePath("hostile.data").toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out.write(content.constData(), content.size());
    }
    const long rss_before = peakRssKiB();
    const std::string error =
        readError(path, static_cast<Format>(format), static_cast<Format>(format) != Format::Csv);
    const long grown_mib = (peakRssKiB() - rss_before) / 1024;

    const std::string where = path + ":" + std::to_string(line) + ": ";
    QVERIFY2(error.rfind(where, 0) == 0, error.substr(0, 300).c_str());
    QVERIFY2(error.find(expected.toStdString()) != std::string::npos, error.substr(0, 300).c_str());
    // The largest input is 16 MiB; a reader may hold a line and its fields once or twice.
    QVERIFY2(grown_mib < 160, std::to_string(grown_mib).c_str());
}

void TestHostileInputs::limitsAreNotOffByOne() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("edge.csv").toStdString();
    // Exactly kMaxCsvFields columns, the first name exactly kMaxColumnNameBytes long.
    std::string header(headroom::data::kMaxColumnNameBytes, 'n');
    for (std::size_t column = 1; column < headroom::data::kMaxCsvFields; ++column) {
        header += ",c" + std::to_string(column);
    }
    const std::string row(headroom::data::kMaxCsvFields - 1, ',');
    {
        std::ofstream out(path, std::ios::binary);
        out << header << "\n" << row << "\n";
    }
    QCOMPARE(readError(path, Format::Csv, false), std::string());

    const std::string jsonl = dir.filePath("edge.jsonl").toStdString();
    std::ofstream(jsonl) << nested(headroom::data::kMaxJsonDepth - 1);
    QCOMPARE(readError(jsonl, Format::Jsonl, true), std::string());
}

void TestHostileInputs::configs_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("too large") << QString::fromStdString("{\"x\":\"" + std::string(2 << 20, 'a') +
                                                         "\"}")
                               << "a config is at most 1 MiB";
    QTest::newRow("deep") << QString::fromStdString("{\"a\":" + repeat("[", 50000) +
                                                    repeat("]", 50000) + "}")
                          << "nested deeper than 16 levels";
    QTest::newRow("nested object") << R"({"train.lr":{"v":1}})"
                                   << "bad value for train.lr: expected a string or a number";
    QTest::newRow("not an object") << "[1,2]"
                                   << "config must be a JSON object";
    QTest::newRow("truncated") << R"({"train.lr":"0.1)"
                               << "config is not valid JSON";
    QTest::newRow("huge number") << R"({"train.steps":1e400})"
                                 << "config is not valid JSON";
    QTest::newRow("unknown key") << R"({"../../etc":"1"})"
                                 << "unknown key '../../etc'";
}

void TestHostileInputs::configs() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
        headroom::Config::fromJson(json.toStdString());
        QFAIL("the config was accepted");
    } catch (const headroom::ConfigError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos,
                 message.substr(0, 300).c_str());
    }
}

void TestHostileInputs::storedTokenizers() {
    using headroom::data::TokenizerKind;
    const std::string huge(headroom::data::kMaxTokenizerBytes + 1, 'x');
    try {
        headroom::data::loadTokenizer(TokenizerKind::Bpe, huge);
        QFAIL("a 64 MiB + 1 byte tokenizer was accepted");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find("over the limit of 64 MiB") != std::string::npos,
                 error.what());
    }
    // Garbage that is small enough is handed to SentencePiece, which must refuse it (or the
    // module is missing in this build): an error either way, never a crash.
    for (const std::string &garbage :
         {std::string("\x0a\x05hello", 7), std::string(4096, '\xff'), std::string()}) {
        bool refused = false;
        try {
            headroom::data::loadTokenizer(TokenizerKind::Unigram, garbage);
        } catch (const std::exception &) {
            refused = true;
        }
        QVERIFY(refused);
    }
}

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
