// Plain-text streaming: windows, stride, separators, the split, shuffling and bad data.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace headroom::data;
using test_support::writeFile;

namespace {

std::uint64_t epochOf(std::uint64_t id) {
    return id >> 48;
}
std::uint64_t ordinalOf(std::uint64_t id) {
    return id & ((std::uint64_t{1} << 48) - 1);
}

std::string asText(const std::vector<std::int32_t> &tokens) {
    return makeByteTokenizer()->decode(tokens);
}

// Examples of the first training epoch, in stream order when shuffle_buffer is 1.
std::vector<Example> firstEpoch(ExampleStream &stream) {
    std::vector<Example> examples;
    Example example;
    while (stream.next(example) && epochOf(example.id) == 0) {
        examples.push_back(example);
        if (examples.size() > 10000) {
            break;
        }
    }
    return examples;
}

std::vector<Example> readAll(ExampleStream &validation) {
    std::vector<Example> examples;
    Example example;
    while (validation.next(example)) {
        examples.push_back(example);
    }
    return examples;
}

std::string numberedLines(int count) {
    std::string text;
    for (int i = 0; i < count; ++i) {
        char line[16];
        std::snprintf(line, sizeof line, "line%03d\n", i);
        text += line;
    }
    return text;
}

} // namespace

class TestDataText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void windowsFollowSeqLenAndStride_data();
    void windowsFollowSeqLenAndStride();
    void trainWrapsIntoNextEpoch();
    void emptyLinesAndCrlfAreKept();
    void maxExamplesCapsRecords();
    void splitIsDeterministicAndDisjoint();
    void validationIsFiniteAndResets();
    void shuffleDependsOnSeedOnly();
    void hugeShuffleBufferHoldsOneEpoch();
    void badData_data();
    void badData();
    void missingFile();
    void lineLongerThanLimit();
    void noTrainingExamples_data();
    void noTrainingExamples();
    void formatNames();

private:
    DataSpec spec(const std::string &content, const QString &name = "data.txt") {
        DataSpec s;
        s.path = writeFile(dir_, name, content);
        s.format = Format::Text;
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        return s;
    }

    QTemporaryDir dir_;
    std::unique_ptr<Tokenizer> bytes_ = makeByteTokenizer();
};

void TestDataText::windowsFollowSeqLenAndStride_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<int>("seqLen");
    QTest::addColumn<int>("stride");
    QTest::addColumn<QStringList>("windows");
    QTest::newRow("stride = seq_len") << "0123456789" << 4 << 0 << QStringList{"01234", "45678"};
    QTest::newRow("overlapping") << "0123456789" << 4 << 2
                                 << QStringList{"01234", "23456", "45678", "6789\n"};
    QTest::newRow("one window") << "0123456789" << 10 << 0 << QStringList{"0123456789\n"};
    QTest::newRow("skipping inside a record")
        << "0123456789" << 2 << 5 << QStringList{"012", "567"};
    QTest::newRow("skipping across records")
        << "0\n1\n2\n3\n4\n5" << 1 << 5 << QStringList{"0\n", "\n3", "5\n"};
    QTest::newRow("across lines") << "ab\ncd\nef" << 3 << 3 << QStringList{"ab\nc", "cd\ne"};
}

void TestDataText::windowsFollowSeqLenAndStride() {
    QFETCH(QString, content);
    QFETCH(int, seqLen);
    QFETCH(int, stride);
    QFETCH(QStringList, windows);
    DataSpec s = spec(content.toStdString());
    s.seq_len = seqLen;
    s.stride = stride;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    const std::vector<Example> examples = firstEpoch(stream);
    QStringList got;
    for (std::size_t i = 0; i < examples.size(); ++i) {
        QCOMPARE(examples[i].tokens.size(), static_cast<std::size_t>(seqLen + 1));
        QCOMPARE(ordinalOf(examples[i].id), static_cast<std::uint64_t>(i));
        got << QString::fromStdString(asText(examples[i].tokens));
    }
    QCOMPARE(got, windows);
}

void TestDataText::trainWrapsIntoNextEpoch() {
    DataSpec s = spec("abc\ndef\n");
    s.seq_len = 3;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    const std::vector<std::pair<std::uint64_t, std::string>> expected = {
        {makeExampleId(0, 0), "abc\n"},
        {makeExampleId(0, 1), "\ndef"},
        {makeExampleId(1, 0), "abc\n"},
        {makeExampleId(1, 1), "\ndef"},
        {makeExampleId(2, 0), "abc\n"}};
    for (const auto &[id, text] : expected) {
        Example example;
        QVERIFY(stream.next(example));
        QCOMPARE(example.id, id);
        QCOMPARE(QString::fromStdString(asText(example.tokens)), QString::fromStdString(text));
    }
    QCOMPARE(stream.epoch(), std::uint64_t{2});
}

void TestDataText::emptyLinesAndCrlfAreKept() {
    for (const std::string content : {"a\n\nb\n", "a\r\n\r\nb\r\n", "a\n\nb"}) {
        DataSpec s = spec(content);
        s.seq_len = 4;
        ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
        const std::vector<Example> examples = firstEpoch(stream);
        QCOMPARE(examples.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(asText(examples[0].tokens)), QString("a\n\nb\n"));
    }
}

void TestDataText::maxExamplesCapsRecords() {
    DataSpec s = spec(numberedLines(10));
    s.seq_len = 23; // exactly three lines of 8 bytes
    s.max_examples = 3;
    ExampleStream capped(s, Split::Train, bytes_.get(), nullptr);
    std::vector<Example> examples = firstEpoch(capped);
    QCOMPARE(examples.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(asText(examples[0].tokens)),
             QString("line000\nline001\nline002\n"));

    s.max_examples = 0;
    ExampleStream all(s, Split::Train, bytes_.get(), nullptr);
    QCOMPARE(firstEpoch(all).size(), std::size_t{3}); // 80 bytes: windows at 0, 23, 46
    QCOMPARE(inspectData(s).records, std::int64_t{10});
}

void TestDataText::splitIsDeterministicAndDisjoint() {
    const int lines = 300;
    DataSpec s = spec(numberedLines(lines));
    s.seq_len = 7; // one window = one line of 8 bytes
    s.stride = 8;
    s.validation_fraction = 0.2;
    s.split_seed = 7;
    auto linesOf = [&](const DataSpec &d, Split split) {
        ExampleStream stream(d, split, bytes_.get(), nullptr);
        std::set<std::string> set;
        for (const Example &example :
             split == Split::Train ? firstEpoch(stream) : readAll(stream)) {
            set.insert(asText(example.tokens));
        }
        return set;
    };
    const std::set<std::string> train = linesOf(s, Split::Train);
    const std::set<std::string> validation = linesOf(s, Split::Validation);
    QCOMPARE(static_cast<int>(train.size() + validation.size()), lines);
    for (const std::string &line : validation) {
        QVERIFY(train.count(line) == 0);
    }
    QVERIFY2(validation.size() > 30 && validation.size() < 90,
             qPrintable(QString::number(validation.size())));

    DataSpec reshuffled = s;
    reshuffled.seed = 99;
    reshuffled.shuffle_buffer = 50;
    QVERIFY(linesOf(reshuffled, Split::Validation) == validation);
    QVERIFY(linesOf(s, Split::Validation) == validation);

    DataSpec other_split = s;
    other_split.split_seed = 8;
    QVERIFY(linesOf(other_split, Split::Validation) != validation);
}

void TestDataText::validationIsFiniteAndResets() {
    DataSpec s = spec(numberedLines(100));
    s.seq_len = 7;
    s.validation_fraction = 0.3;
    ExampleStream validation(s, Split::Validation, bytes_.get(), nullptr);
    const std::vector<Example> first = readAll(validation);
    QVERIFY(!first.empty());
    Example extra;
    QVERIFY(!validation.next(extra));
    validation.reset();
    const std::vector<Example> second = readAll(validation);
    QCOMPARE(second.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        QCOMPARE(second[i].id, first[i].id);
        QVERIFY(second[i].tokens == first[i].tokens);
        QCOMPARE(epochOf(first[i].id), std::uint64_t{0});
    }
}

void TestDataText::shuffleDependsOnSeedOnly() {
    DataSpec s = spec(numberedLines(200));
    s.seq_len = 7;
    s.stride = 8;
    s.shuffle_buffer = 32;
    auto ids = [&](std::uint64_t seed, int count) {
        DataSpec d = s;
        d.seed = seed;
        ExampleStream stream(d, Split::Train, bytes_.get(), nullptr);
        std::vector<std::uint64_t> out;
        Example example;
        for (int i = 0; i < count; ++i) {
            stream.next(example);
            out.push_back(example.id);
        }
        return out;
    };
    const std::vector<std::uint64_t> a = ids(1, 2000);
    QVERIFY(a == ids(1, 2000));
    QVERIFY(a != ids(2, 2000));
    std::vector<std::uint64_t> in_order(200);
    for (std::uint64_t i = 0; i < 200; ++i) {
        in_order[i] = i;
    }
    QVERIFY(std::vector<std::uint64_t>(a.begin(), a.begin() + 200) != in_order);
    // Shuffling reorders, it never repeats or loses an example of an epoch.
    std::set<std::uint64_t> epoch0;
    for (const std::uint64_t id : a) {
        if (epochOf(id) == 0) {
            QVERIFY(epoch0.insert(id).second);
        }
    }
    QCOMPARE(epoch0.size(), std::size_t{200});
}

void TestDataText::hugeShuffleBufferHoldsOneEpoch() {
    DataSpec s = spec(numberedLines(10));
    s.seq_len = 7;
    s.stride = 8;
    s.shuffle_buffer = 1000000000; // must not try to buffer a billion repeats
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    std::set<std::uint64_t> seen;
    Example example;
    for (int i = 0; i < 40; ++i) {
        QVERIFY(stream.next(example));
        QVERIFY(seen.insert(example.id).second);
    }
    QVERIFY(stream.epoch() >= 4);
}

void TestDataText::badData_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("invalid byte") << QByteArray("ok\nbad \xff here\n") << 2
                                  << "invalid UTF-8 at byte column 5";
    QTest::newRow("truncated sequence")
        << QByteArray("abc\n\n\xc3") << 3 << "invalid UTF-8 at byte column 1";
    QTest::newRow("overlong") << QByteArray("x\xc0\xaf\n") << 1 << "invalid UTF-8 at byte column 2";
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << 1 << "invalid UTF-8";
    QTest::newRow("empty") << QByteArray() << 0 << "the file is empty";
}

void TestDataText::badData() {
    QFETCH(QByteArray, content);
    QFETCH(int, line);
    QFETCH(QString, problem);
    DataSpec s = spec(content.toStdString());
    for (int pass = 0; pass < 2; ++pass) {
        try {
            if (pass == 0) {
                inspectData(s);
            } else {
                ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
                Example example;
                stream.next(example);
            }
            QFAIL("expected a DataError");
        } catch (const DataError &error) {
            QCOMPARE(error.line(), static_cast<std::int64_t>(line));
            QVERIFY2(QString(error.what()).contains(problem), error.what());
            QVERIFY2(QString(error.what()).startsWith(QString::fromStdString(s.path)),
                     error.what());
        }
    }
}

void TestDataText::missingFile() {
    DataSpec s;
    s.path = dir_.filePath("nothing-here.txt").toStdString();
    try {
        ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), std::int64_t{0});
        QCOMPARE(QString(error.what()),
                 QString::fromStdString(s.path) + ": cannot open the file: it does not exist");
    }
    s.path = dir_.path().toStdString();
    QVERIFY_THROWS_EXCEPTION(DataError, inspectData(s));
}

void TestDataText::lineLongerThanLimit() {
    const std::string path = dir_.filePath("long.txt").toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out << "short\n" << std::string((std::size_t{16} << 20) + 1, 'x') << "\n";
    }
    DataSpec s;
    s.path = path;
    try {
        inspectData(s);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), std::int64_t{2});
        QVERIFY2(QString(error.what()).contains("longer than 16 MiB"), error.what());
    }
}

void TestDataText::noTrainingExamples_data() {
    QTest::addColumn<double>("validationFraction");
    QTest::addColumn<int>("seqLen");
    QTest::addColumn<QString>("problem");
    QTest::newRow("all validation") << 1.0 << 4
                                    << "no training examples: 20 records read, all in the "
                                       "validation split";
    QTest::newRow("too short") << 0.0 << 1000
                               << "records hold 160 tokens, too short for "
                                  "seq_len+1 = 1001 tokens";
}

void TestDataText::noTrainingExamples() {
    QFETCH(double, validationFraction);
    QFETCH(int, seqLen);
    QFETCH(QString, problem);
    DataSpec s = spec(numberedLines(20));
    s.validation_fraction = validationFraction;
    s.seq_len = seqLen;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    Example example;
    try {
        stream.next(example);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QVERIFY2(QString(error.what()).contains(problem), error.what());
    }
}

void TestDataText::formatNames() {
    QVERIFY(guessFormat("a/b/Corpus.JSONL") == Format::Jsonl);
    QVERIFY(guessFormat("x.ndjson") == Format::Jsonl);
    QVERIFY(guessFormat("table.csv") == Format::Csv);
    QVERIFY(guessFormat("notes.txt") == Format::Text);
    QVERIFY(guessFormat("README") == Format::Text);
    for (const Format format : {Format::Text, Format::Jsonl, Format::Csv}) {
        QVERIFY(parseFormat(toString(format)) == format);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseFormat("parquet"));
}

QTEST_GUILESS_MAIN(TestDataText)
#include "test_data_text.moc"
