// Retrieval (SPLADE) training data: JSON arrays and JSONL of query / positive(s) / negatives,
// the examples they become, bad records named by file and line, and exact resumption.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/record_reader.h"
#include "hf/base_tokenizer.h"
#include "sample_files.h"

#include <QTemporaryDir>
#include <QtTest>

#include <string>
#include <vector>

using namespace headroom::data;
using test_support::writeFile;

namespace {

const std::string kTokenizer =
    HEADROOM_SOURCE_DIR "/tests/data/tokenizers/wordpiece_bert/tokenizer.json";
constexpr std::int32_t kCls = 284;
constexpr std::int32_t kSep = 285;

const char *const kPrettyArray = R"([
  {
    "query": "hello world",
    "positive": "hello",
    "negatives": ["world", "hello world"]
  },
  {"query": "world", "positives": ["world hello", "hello"]},
  {"query": "hello", "positive": "world", "negatives": []}, {"query": "a", "positive": "b"}
]
)";

// The ids of [CLS] text [SEP], from the tokenizer's own cases (tests/data/tokenizers).
std::vector<std::int32_t> wrapped(std::vector<std::int32_t> ids) {
    ids.insert(ids.begin(), kCls);
    ids.push_back(kSep);
    return ids;
}

} // namespace

class TestDataRetrieval : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonArrayRecordsAndLines();
    void jsonArrayOfTextRecords();
    void badRecords_data();
    void badRecords();
    void trainingExamplesHoldQueryAndPassages();
    void epochsTakeOtherPositivesAndNegatives();
    void longTextsAreCutBeforeTheClosingSpecial();
    void validationExamplesHoldEveryPassage();
    void resumesExactlyInsideAJsonArray();
    void retrievalNeedsJson();

private:
    DataSpec spec(const std::string &content, const char *suffix = ".json") {
        DataSpec s;
        s.path = writeFile(dir_, QString("data%1%2").arg(++files_).arg(suffix), content);
        s.format = guessFormat(s.path);
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        s.retrieval = true;
        s.seq_len = 16;
        return s;
    }
    std::vector<Example> take(ExampleStream &stream, int count) {
        std::vector<Example> examples(static_cast<std::size_t>(count));
        for (Example &example : examples) {
            if (!stream.next(example)) {
                return {};
            }
        }
        return examples;
    }

    QTemporaryDir dir_;
    int files_ = 0;
    std::unique_ptr<Tokenizer> tokenizer_ = headroom::hf::loadEncoderTokenizer(kTokenizer);
};

void TestDataRetrieval::jsonArrayRecordsAndLines() {
    const DataSpec s = spec(kPrettyArray);
    QVERIFY(s.format == Format::Json);
    RecordReader reader(s, true);
    Record record;
    QVERIFY(reader.next(record));
    QCOMPARE(record.line, std::int64_t{2});
    QCOMPARE(record.query, std::string("hello world"));
    QCOMPARE(record.positives, std::vector<std::string>{"hello"});
    QCOMPARE(record.negatives, (std::vector<std::string>{"world", "hello world"}));
    QVERIFY(reader.next(record));
    QCOMPARE(record.line, std::int64_t{7});
    QCOMPARE(record.positives, (std::vector<std::string>{"world hello", "hello"}));
    QVERIFY(record.negatives.empty());
    QVERIFY(reader.next(record));
    QCOMPARE(record.line, std::int64_t{8});
    QVERIFY(reader.next(record));
    QCOMPARE(record.line, std::int64_t{8});
    QCOMPARE(record.query, std::string("a"));
    QVERIFY(!reader.next(record));
    QCOMPARE(reader.columns(), (std::vector<std::string>{"query", "positive", "negatives"}));
}

void TestDataRetrieval::jsonArrayOfTextRecords() {
    DataSpec s =
        spec("\xEF\xBB\xBF[{\"text\": \"ab\"},\n {\"text\": \"c\", \"n\": [1, {\"x\": \"]}\"}]}]");
    s.retrieval = false;
    RecordReader reader(s, true);
    Record record;
    QVERIFY(reader.next(record));
    QCOMPARE(record.text, std::string("ab"));
    QVERIFY(reader.next(record));
    QCOMPARE(record.text, std::string("c"));
    QCOMPARE(record.line, std::int64_t{2});
    QVERIFY(!reader.next(record));
}

void TestDataRetrieval::badRecords_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("no query") << R"({"positive": "a"})"
                              << ".jsonl" << 1 << R"(no field "query" (its fields: positive))";
    QTest::newRow("empty query") << "{\"query\": \"a\", \"positive\": \"b\"}\n{\"query\": \" \", "
                                    "\"positive\": \"b\"}"
                                 << ".jsonl" << 2 << R"(the field "query" is empty)";
    QTest::newRow("no positive") << "[\n{\"query\": \"a\"}]"
                                 << ".json" << 2 << R"(no field "positive" nor "positives")";
    QTest::newRow("empty positives") << R"({"query": "a", "positives": []})"
                                     << ".jsonl" << 1 << R"("positives" is an empty array)";
    QTest::newRow("both") << R"({"query": "a", "positive": "b", "positives": ["c"]})"
                          << ".jsonl" << 1 << R"(both "positive" and "positives")";
    QTest::newRow("negatives not an array")
        << R"({"query": "a", "positive": "b", "negatives": "c"})"
        << ".jsonl" << 1 << R"(the field "negatives" is a string, expected an array of strings)";
    QTest::newRow("empty negative") << "[{\"query\": \"a\",\n \"positive\": \"b\"},\n{\"query\": "
                                       "\"a\", \"positive\": \"b\", \"negatives\": [\"c\", \"\"]}]"
                                    << ".json" << 3 << "negatives[1] is empty";
    QTest::newRow("positive a number")
        << R"([{"query": "a", "positive": 3}])"
        << ".json" << 1 << R"(the field "positive" is a number, expected a string)";
    QTest::newRow("not an array") << R"({"query": "a", "positive": "b"})"
                                  << ".json" << 1 << "must hold one JSON array of objects";
    QTest::newRow("array not closed") << "[{\"query\": \"a\", \"positive\": \"b\"},\n"
                                      << ".json" << 1 << "the JSON array is not closed";
    QTest::newRow("object not closed")
        << "[\n{\"query\": \"a\", \"positive\": \"b\"\n"
        << ".json" << 2 << "is not closed before the end of the file";
    QTest::newRow("element not an object") << "[{\"query\": \"a\", \"positive\": \"b\"}, 3]"
                                           << ".json" << 1 << "found '3'";
    QTest::newRow("text after the array") << "[{\"query\": \"a\", \"positive\": \"b\"}]\nx"
                                          << ".json" << 2 << "'x' after the end of the JSON array";
    QTest::newRow("malformed object") << "[{\"query\": \"a\" \"positive\": \"b\"}]"
                                      << ".json" << 1 << "malformed JSON";
}

void TestDataRetrieval::badRecords() {
    QFETCH(QString, content);
    QFETCH(QString, suffix);
    QFETCH(int, line);
    QFETCH(QString, problem);
    const DataSpec s = spec(content.toStdString(), qPrintable(suffix));
    try {
        ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
        Example example;
        for (int i = 0; i < 4; ++i) {
            stream.next(example);
        }
        QFAIL("the bad record was accepted");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), std::int64_t{line});
        QVERIFY2(QString::fromStdString(error.problem()).contains(problem), error.what());
        QVERIFY2(QString::fromStdString(error.what())
                     .startsWith(QString::fromStdString(s.path) + ":" + QString::number(line)),
                 error.what());
    }
}

void TestDataRetrieval::trainingExamplesHoldQueryAndPassages() {
    DataSpec s = spec(kPrettyArray);
    s.hard_negatives = 1;
    ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    // "hello world" -> 116 122 (the tokenizer's cases); "hello" -> 116; "world" -> 122.
    std::vector<std::int32_t> expected = wrapped({116, 122});
    for (const std::vector<std::int32_t> &passage : {wrapped({116}), wrapped({122})}) {
        expected.insert(expected.end(), passage.begin(), passage.end());
    }
    QCOMPARE(example.tokens, expected);
    QCOMPARE(example.segment_lengths, (std::vector<std::int32_t>{4, 3, 3}));
    QCOMPARE(example.positive_passages, 1);
    QCOMPARE(example.id, makeExampleId(0, 0));
    QVERIFY(stream.next(example));
    QCOMPARE(example.segment_lengths.size(), std::size_t{2}); // no negatives in that record
}

void TestDataRetrieval::epochsTakeOtherPositivesAndNegatives() {
    DataSpec s = spec(kPrettyArray);
    s.hard_negatives = 1;
    ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
    const std::vector<Example> first = take(stream, 4);
    const std::vector<Example> second = take(stream, 4);
    QCOMPARE(second[0].id, makeExampleId(1, 0));
    // Record 1: negatives "world" then "hello world"; record 2: positives in turn.
    const auto passage = [](const Example &example, std::size_t index) {
        std::size_t start = 0;
        for (std::size_t i = 0; i < index; ++i) {
            start += static_cast<std::size_t>(example.segment_lengths[i]);
        }
        return std::vector<std::int32_t>(
            example.tokens.begin() + static_cast<std::ptrdiff_t>(start),
            example.tokens.begin() +
                static_cast<std::ptrdiff_t>(
                    start + static_cast<std::size_t>(example.segment_lengths[index])));
    };
    QCOMPARE(passage(first[0], 2), wrapped({122}));
    QCOMPARE(passage(second[0], 2), wrapped({116, 122}));
    QVERIFY(passage(first[1], 1) != passage(second[1], 1));
    QCOMPARE(passage(second[1], 1), wrapped({116}));
}

void TestDataRetrieval::longTextsAreCutBeforeTheClosingSpecial() {
    DataSpec s = spec(R"([{"query": "hello world hello world hello", "positive": "hello"}])");
    s.seq_len = 4;
    ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.segment_lengths, (std::vector<std::int32_t>{4, 3}));
    QCOMPARE(std::vector<std::int32_t>(example.tokens.begin(), example.tokens.begin() + 4),
             wrapped({116, 122}));
}

void TestDataRetrieval::validationExamplesHoldEveryPassage() {
    DataSpec s = spec(kPrettyArray);
    s.validation_fraction = 1;
    s.hard_negatives = 0;
    ExampleStream stream(s, Split::Validation, tokenizer_.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.segment_lengths.size(), std::size_t{4}); // query, 1 positive, 2 negatives
    QCOMPARE(example.positive_passages, 1);
    QVERIFY(stream.next(example));
    QCOMPARE(example.segment_lengths.size(), std::size_t{3}); // query, 2 positives
    QCOMPARE(example.positive_passages, 2);
}

void TestDataRetrieval::resumesExactlyInsideAJsonArray() {
    DataSpec s = spec(kPrettyArray);
    s.shuffle_buffer = 3;
    ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
    take(stream, 2);
    const std::string state = stream.saveState();
    const std::vector<Example> expected = take(stream, 7);
    ExampleStream resumed(s, Split::Train, tokenizer_.get(), nullptr);
    resumed.restoreState(state);
    const std::vector<Example> actual = take(resumed, 7);
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(actual[i].id, expected[i].id);
        QCOMPARE(actual[i].tokens, expected[i].tokens);
        QCOMPARE(actual[i].segment_lengths, expected[i].segment_lengths);
        QCOMPARE(actual[i].positive_passages, expected[i].positive_passages);
    }
    DataSpec other = s;
    other.hard_negatives = 2;
    ExampleStream changed(other, Split::Train, tokenizer_.get(), nullptr);
    QVERIFY_THROWS_EXCEPTION(DataError, changed.restoreState(state));
}

void TestDataRetrieval::retrievalNeedsJson() {
    const DataSpec s = spec("hello\nworld\n", ".txt");
    try {
        ExampleStream stream(s, Split::Train, tokenizer_.get(), nullptr);
        QFAIL("a text file was accepted as retrieval data");
    } catch (const DataError &error) {
        QVERIFY2(QString(error.what()).contains("must be JSONL"), error.what());
    }
}

QTEST_GUILESS_MAIN(TestDataRetrieval)
#include "test_data_retrieval.moc"
