// data.packing: short records placed whole into windows by best fit, every record's tokens in
// exactly one window, the packer's buffer part of the saved position; a packed file evaluates
// to the loss of the same file unpacked, and a batch of short examples is padded to its longest.
#include "data/data_error.h"
#include "data/document_packer.h"
#include "data/example_stream.h"
#include "recipes/recipe.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"
#include "train/evaluation.h"

#include <headroom/config.h>

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace headroom;
using namespace headroom::data;
using test_support::writeFile;

namespace {

// Prompt/completion records of 3 to 40 bytes, each a distinct text.
std::string instructionRecords(int count) {
    std::string content;
    for (int i = 0; i < count; ++i) {
        const std::string prompt =
            "q" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 7), 'p');
        const std::string completion =
            "a" + std::string(static_cast<std::size_t>((i * 13) % 31), 'c');
        content += "{\"prompt\": \"" + prompt + "\", \"completion\": \"" + completion + "\"}\n";
    }
    return content;
}

std::vector<Example> drain(ExampleStream &stream, std::size_t limit = 100000) {
    std::vector<Example> examples;
    Example example;
    while (examples.size() < limit && stream.next(example)) {
        examples.push_back(example);
    }
    return examples;
}

} // namespace

class TestPacking : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bestFitFillsWindowsAndMarksDocuments();
    void longDocumentsAreSplitIntoWindows();
    void everyRecordLandsInExactlyOneWindow();
    void savedPositionKeepsWaitingDocuments();
    void packedFileEvaluatesToTheUnpackedLoss();
    void shortBatchesArePaddedToTheirLongest();

private:
    DataSpec spec(const std::string &content, bool packing) {
        DataSpec s;
        s.path = writeFile(dir_, QString("data%1.jsonl").arg(++files_), content);
        s.format = Format::Jsonl;
        s.validation_fraction = 1; // Split::Validation streams read every record in order
        s.shuffle_buffer = 1;
        s.seq_len = 63;
        s.packing = packing;
        return s;
    }

    QTemporaryDir dir_;
    int files_ = 0;
    std::unique_ptr<Tokenizer> bytes_ = makeByteTokenizer();
};

void TestPacking::bestFitFillsWindowsAndMarksDocuments() {
    DocumentPacker packer(10, 4, 99);
    packer.add({1, 1, 1, 1, 1, 1}, {}); // 6
    packer.add({2, 2, 2, 2, 2}, {});    // 5
    packer.add({3, 3, 3, 3}, {0, 0, 1, 1});
    packer.add({4, 4, 4}, {});
    Example window;
    QVERIFY(packer.take(window, false));
    // The oldest first, then the longest that fits the 4 left: the 4-token document.
    QCOMPARE(window.segment_lengths, (std::vector<std::int32_t>{6, 4}));
    QCOMPARE(window.real_tokens, 10);
    QCOMPARE(window.trained, (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 0, 0, 1, 1}));
    QVERIFY(!packer.take(window, false)); // two left, the buffer waits for more
    QVERIFY(packer.take(window, true));
    QCOMPARE(window.segment_lengths, (std::vector<std::int32_t>{5, 3, 2}));
    QCOMPARE(window.tokens, (std::vector<std::int32_t>{2, 2, 2, 2, 2, 4, 4, 4, 99, 99}));
    QCOMPARE(window.trained, (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 0, 1, 1, 0, 0}));
    QCOMPARE(window.real_tokens, 8);
    QVERIFY(!packer.take(window, true));
    QCOMPARE(packer.windowsTaken(), std::uint64_t{2});
}

void TestPacking::longDocumentsAreSplitIntoWindows() {
    DocumentPacker packer(4, 1, 0);
    packer.add({1, 2, 3, 4, 5, 6, 7, 8, 9}, {});
    Example window;
    std::vector<std::vector<std::int32_t>> pieces;
    while (packer.take(window, true)) {
        pieces.push_back(std::vector<std::int32_t>(window.tokens.begin(),
                                                   window.tokens.begin() + window.real_tokens));
    }
    QCOMPARE(pieces.size(), std::size_t{3});
    QCOMPARE(pieces[2], (std::vector<std::int32_t>{9}));
}

void TestPacking::everyRecordLandsInExactlyOneWindow() {
    const std::string content = instructionRecords(200);
    ExampleStream unpacked(spec(content, false), Split::Validation, bytes_.get(), nullptr);
    ExampleStream packed(spec(content, true), Split::Validation, bytes_.get(), nullptr);
    const std::vector<Example> records = drain(unpacked);
    const std::vector<Example> windows = drain(packed);
    QCOMPARE(records.size(), std::size_t{200});
    std::map<std::vector<std::int32_t>, int> seen;
    std::int64_t used = 0;
    for (const Example &window : windows) {
        QCOMPARE(window.tokens.size(), std::size_t{64});
        QCOMPARE(std::accumulate(window.segment_lengths.begin(), window.segment_lengths.end(), 0),
                 64);
        std::size_t begin = 0;
        for (const std::int32_t size : window.segment_lengths) {
            if (begin < static_cast<std::size_t>(window.real_tokens)) {
                ++seen[std::vector<std::int32_t>(window.tokens.begin() + begin,
                                                 window.tokens.begin() + begin + size)];
            }
            begin += static_cast<std::size_t>(size);
        }
        used += window.real_tokens;
    }
    for (const Example &record : records) {
        const std::vector<std::int32_t> tokens(record.tokens.begin(),
                                               record.tokens.begin() + record.real_tokens);
        QCOMPARE(seen[tokens], 1);
    }
    // Best fit leaves little room: the windows are more than 90 % full.
    QVERIFY2(static_cast<double>(used) / (64.0 * static_cast<double>(windows.size())) > 0.9,
             qPrintable(QString::number(windows.size())));
}

void TestPacking::savedPositionKeepsWaitingDocuments() {
    DataSpec s = spec(instructionRecords(120), true);
    s.validation_fraction = 0;
    s.shuffle_buffer = 8;
    ExampleStream first(s, Split::Train, bytes_.get(), nullptr);
    drain(first, 5);
    const std::string position = first.saveState();
    const std::vector<Example> expected = drain(first, 60); // past the end of the first epoch
    ExampleStream resumed(s, Split::Train, bytes_.get(), nullptr);
    resumed.restoreState(position);
    const std::vector<Example> actual = drain(resumed, 60);
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        QCOMPARE(actual[i].id, expected[i].id);
        QVERIFY(actual[i].tokens == expected[i].tokens);
        QVERIFY(actual[i].trained == expected[i].trained);
        QVERIFY(actual[i].segment_lengths == expected[i].segment_lengths);
    }
    // A position taken unpacked does not fit the packed stream.
    DataSpec unpacked = s;
    unpacked.packing = false;
    ExampleStream other(unpacked, Split::Train, bytes_.get(), nullptr);
    QVERIFY_THROWS_EXCEPTION(DataError, other.restoreState(position));
}

void TestPacking::packedFileEvaluatesToTheUnpackedLoss() {
    Config config;
    config.set("model.seq_len", "63");
    config.set("model.layers", "2");
    config.set("model.heads", "2");
    config.set("model.dim", "32");
    config.set("model.dropout", "0");
    torch::manual_seed(4);
    std::unique_ptr<train::Recipe> recipe =
        train::makeGptRecipe(config, bytes_->vocabSize(), torch::Device(torch::kCPU));
    recipe->module()->eval();
    torch::NoGradGuard no_grad;
    const std::string content = instructionRecords(60);
    ExampleStream unpacked(spec(content, false), Split::Validation, bytes_.get(), nullptr);
    ExampleStream packed(spec(content, true), Split::Validation, bytes_.get(), nullptr);
    const train::EvaluationOutcome one_by_one = train::evaluateSplit(*recipe, unpacked, 1000, 8);
    const train::EvaluationOutcome together = train::evaluateSplit(*recipe, packed, 1000, 8);
    QCOMPARE(together.totals.examples, one_by_one.totals.examples);
    const double expected =
        one_by_one.totals.loss_sum / static_cast<double>(one_by_one.totals.examples);
    const double actual = together.totals.loss_sum / static_cast<double>(together.totals.examples);
    QVERIFY2(std::abs(actual - expected) <= 1e-5,
             qPrintable(QString("%1 vs %2").arg(actual, 0, 'g', 10).arg(expected, 0, 'g', 10)));
}

void TestPacking::shortBatchesArePaddedToTheirLongest() {
    ExampleStream stream(spec(instructionRecords(4), false), Split::Validation, bytes_.get(),
                         nullptr);
    const std::vector<Example> examples = drain(stream);
    train::ExampleBatch batch;
    std::int32_t longest = 0;
    for (const Example &example : examples) {
        batch.push_back(&example);
        longest = std::max(longest, example.real_tokens);
    }
    const train::LanguageModelBatch tokens =
        train::languageModelBatch(batch, 63, torch::Device(torch::kCPU));
    QCOMPARE(tokens.inputs.size(1), std::int64_t{longest - 1});
    QVERIFY(!tokens.layout.defined());
    QCOMPARE(
        train::realInputTokens(examples, 63),
        std::accumulate(examples.begin(), examples.end(), std::int64_t{0},
                        [](std::int64_t sum, const Example &e) { return sum + e.real_tokens; }));
}

QTEST_APPLESS_MAIN(TestPacking)
#include "test_packing.moc"
