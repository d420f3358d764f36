// Exact resume: saveState/restoreState mid-epoch, across epochs, and rejection of stale states.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/tabular_schema.h"
#include "tokenizers/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

using namespace headroom::data;

namespace {

std::string writeFile(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    return path;
}

std::string textCorpus(int lines) {
    std::string text;
    for (int i = 0; i < lines; ++i) {
        text += "record " + std::to_string(i) + (i % 7 == 0 ? "\n\n" : " with more words\n");
    }
    return text;
}

std::string csvCorpus(int rows) {
    std::string text = "x,colour,y\n";
    const char *colours[] = {"red", "green", "blue"};
    for (int i = 0; i < rows; ++i) {
        text += std::to_string(i * 0.5) + "," + colours[i % 3] + "," + std::to_string(i % 4) + "\n";
    }
    return text;
}

std::vector<Example> take(ExampleStream &stream, int count) {
    std::vector<Example> examples;
    Example example;
    for (int i = 0; i < count && stream.next(example); ++i) {
        examples.push_back(example);
    }
    return examples;
}

bool sameExamples(const std::vector<Example> &a, const std::vector<Example> &b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].id != b[i].id || a[i].tokens != b[i].tokens || a[i].numeric != b[i].numeric ||
            a[i].categorical != b[i].categorical || a[i].target != b[i].target) {
            return false;
        }
    }
    return true;
}

} // namespace

class TestDataState : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void resumesExactly_data();
    void resumesExactly();
    void resetStartsOver();
    void changedFileIsRejected_data();
    void changedFileIsRejected();
    void otherSettingsAreRejected();
    void damagedStateIsRejected();

private:
    DataSpec textSpec() const {
        DataSpec s;
        s.path = text_path_;
        s.seq_len = 16;
        s.stride = 12;
        s.validation_fraction = 0.2;
        s.shuffle_buffer = 16;
        s.seed = 5;
        return s;
    }

    QTemporaryDir dir_;
    std::string text_path_;
    std::string csv_path_;
    std::unique_ptr<Tokenizer> bytes_ = makeByteTokenizer();
};

void TestDataState::initTestCase() {
    QVERIFY(dir_.isValid());
    text_path_ = writeFile(dir_.filePath("corpus.txt").toStdString(), textCorpus(60));
    csv_path_ = writeFile(dir_.filePath("table.csv").toStdString(), csvCorpus(90));
}

void TestDataState::resumesExactly_data() {
    QTest::addColumn<bool>("tabular");
    QTest::addColumn<bool>("validation");
    QTest::addColumn<int>("shuffleBuffer");
    QTest::addColumn<int>("before");
    // The text corpus gives about 100 training windows per epoch, the table about 70 rows.
    for (const bool tabular : {false, true}) {
        const char *kind = tabular ? "tabular" : "gpt";
        for (const int before : {0, 3, 95, 101, 250}) {
            QTest::addRow("%s shuffled, after %d", kind, before)
                << tabular << false << 16 << before;
        }
        QTest::addRow("%s in order, at an epoch end", kind) << tabular << false << 1 << 72;
        QTest::addRow("%s validation", kind) << tabular << true << 1 << 5;
    }
}

void TestDataState::resumesExactly() {
    QFETCH(bool, tabular);
    QFETCH(bool, validation);
    QFETCH(int, shuffleBuffer);
    QFETCH(int, before);
    DataSpec s = textSpec();
    TabularSchema schema;
    if (tabular) {
        s.path = csv_path_;
        s.format = Format::Csv;
        schema = inferTabularSchema(s);
    }
    s.shuffle_buffer = shuffleBuffer;
    const Split split = validation ? Split::Validation : Split::Train;
    const Tokenizer *tokenizer = tabular ? nullptr : bytes_.get();
    const TabularSchema *schema_ptr = tabular ? &schema : nullptr;

    ExampleStream original(s, split, tokenizer, schema_ptr);
    take(original, before);
    const std::string state = original.saveState();
    const std::uint64_t epoch = original.epoch();
    const std::vector<Example> expected = take(original, 300);
    QVERIFY(!expected.empty());

    ExampleStream resumed(s, split, tokenizer, schema_ptr);
    take(resumed, 7); // wherever it was before, the state decides
    resumed.restoreState(state);
    QCOMPARE(resumed.epoch(), epoch);
    QVERIFY(sameExamples(take(resumed, 300), expected));

    // Restoring into the stream that moved on rewinds it to the same point.
    original.restoreState(state);
    QVERIFY(sameExamples(take(original, 300), expected));
    if (!validation) {
        QVERIFY2(expected.back().id >> 48 >= 1, "the check should cross an epoch boundary");
    }
}

void TestDataState::resetStartsOver() {
    ExampleStream stream(textSpec(), Split::Train, bytes_.get(), nullptr);
    const std::vector<Example> first = take(stream, 150);
    QVERIFY(stream.epoch() >= 1);
    stream.reset();
    QCOMPARE(stream.epoch(), std::uint64_t{0});
    QVERIFY(sameExamples(take(stream, 150), first));
}

void TestDataState::changedFileIsRejected_data() {
    QTest::addColumn<bool>("sameSize");
    QTest::addColumn<QString>("problem");
    QTest::newRow("grown") << false << "changed since the position was saved (";
    QTest::newRow("same size") << true << "(same size, different content)";
}

void TestDataState::changedFileIsRejected() {
    QFETCH(bool, sameSize);
    QFETCH(QString, problem);
    DataSpec s = textSpec();
    s.path = writeFile(dir_.filePath("changing.txt").toStdString(), textCorpus(40));
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    take(stream, 10);
    const std::string state = stream.saveState();
    std::string content = textCorpus(40);
    if (sameSize) {
        content[0] = 'R';
    } else {
        content += "one more line\n";
    }
    writeFile(s.path, content);
    ExampleStream reopened(s, Split::Train, bytes_.get(), nullptr);
    try {
        reopened.restoreState(state);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QVERIFY2(QString(error.what()).contains(problem), error.what());
        QCOMPARE(error.file(), s.path);
    }
}

void TestDataState::otherSettingsAreRejected() {
    ExampleStream stream(textSpec(), Split::Train, bytes_.get(), nullptr);
    take(stream, 4);
    const std::string state = stream.saveState();

    DataSpec reseeded = textSpec();
    reseeded.seed = 6;
    ExampleStream other_seed(reseeded, Split::Train, bytes_.get(), nullptr);
    QVERIFY_THROWS_EXCEPTION(DataError, other_seed.restoreState(state));

    ExampleStream validation(textSpec(), Split::Validation, bytes_.get(), nullptr);
    try {
        validation.restoreState(state);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QVERIFY2(QString(error.what()).contains("other split"), error.what());
    }
}

void TestDataState::damagedStateIsRejected() {
    ExampleStream stream(textSpec(), Split::Train, bytes_.get(), nullptr);
    take(stream, 20);
    const std::string state = stream.saveState();
    const std::vector<Example> expected = take(stream, 10);
    for (const std::string &bad :
         {std::string(), std::string("garbage"), state.substr(0, state.size() / 2), state + "x"}) {
        try {
            stream.restoreState(bad);
            QFAIL("expected a DataError");
        } catch (const DataError &error) {
            QVERIFY2(QString(error.what()).contains("saved data position is damaged"),
                     error.what());
        }
    }
    // A failed restore leaves the stream usable; a good one still works afterwards.
    stream.restoreState(state);
    QVERIFY(sameExamples(take(stream, 10), expected));
}

QTEST_GUILESS_MAIN(TestDataState)
#include "test_data_state.moc"
