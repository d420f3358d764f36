// previewTokens / previewTokensWith: a data file tokenized as training tokenizes it, and the
// tokens-per-record statistics the wizard's data page and `headroom-cli tokenize --stats` show.
#include "sample_files.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "workflow/token_statistics.h"

#include <headroom/token_preview.h>
#include <headroom/tokenizer.h>

#include <QTemporaryDir>
#include <QtTest>

#include <string>

using headroom::Config;
using headroom::InputError;
using headroom::TokenPreview;
using headroom::TokenPreviewLimits;
using test_support::writeFile;

namespace {
const std::string kFixtures = HEADROOM_SOURCE_DIR "/tests/data/tokenizers";

Config gptConfig(const std::string &tokenizer, std::int64_t seq_len) {
    Config config;
    config.set("recipe", "gpt");
    config.set("tokenizer", tokenizer);
    config.set("model.seq_len", std::to_string(seq_len));
    return config;
}

std::string joinedPieces(const headroom::TokenizedSample &sample) {
    std::string text;
    for (const headroom::PreviewToken &token : sample.tokens) {
        if (!token.special) {
            text += token.piece;
        }
    }
    return text;
}
} // namespace

class TestTokenPreview : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void byteTokenizerStatisticsAreExact();
    void instructionRecordsCountAsTrainingBuildsThem();
    void limitsStopEarly();
    void sentencePieceIsTrainedOnTheSample();
    void huggingFaceTokenizerSpellsItsVocabulary();
    void refusesBadInput_data();
    void refusesBadInput();

private:
    QTemporaryDir dir_;
    std::string text_;
    std::string instructions_;
};

void TestTokenPreview::initTestCase() {
    QVERIFY(dir_.isValid());
    // Byte tokens per line (the line's bytes and its newline): 3, 1, 6, 7, 11.
    text_ = writeFile(dir_, "lines.txt", std::string("ab\n\nhello\nh\xC3\xA9llo\nabcdefghij\n"));
    instructions_ = writeFile(dir_, "pairs.jsonl",
                              std::string("{\"prompt\":\"Q: 2+2?\",\"completion\":\" 4\"}\n"
                                          "{\"prompt\":\"Hi\",\"completion\":\"yo\"}\n"));
}

void TestTokenPreview::byteTokenizerStatisticsAreExact() {
    const TokenPreview preview = headroom::previewTokens(gptConfig("byte", 5), text_);
    QCOMPARE(QString::fromStdString(preview.tokenizer), QString("byte"));
    QCOMPARE(preview.vocab_size, 257);
    QVERIFY(!preview.trained_on_sample);
    const headroom::TokenCountStats &stats = preview.stats;
    QCOMPARE(stats.records, 5);
    QCOMPARE(stats.bytes, std::uint64_t{28});
    QVERIFY(stats.whole_file);
    QVERIFY(!stats.instruction);
    QCOMPARE(stats.tokens, 28);
    QCOMPARE(stats.mean, 5.6);
    QCOMPARE(stats.median, 6.0);
    QCOMPARE(stats.p95, 11);
    QCOMPARE(stats.max, 11);
    QCOMPARE(stats.characters_per_token, 27.0 / 28.0); // é is one character of two bytes
    QCOMPARE(stats.seq_len, 5);
    QCOMPARE(stats.longer_than_window, 2); // 7 and 11 tokens > 5 + 1

    // Samples skip the empty line; one byte of a two-byte character reads as hex.
    QCOMPARE(preview.samples.size(), std::size_t{4});
    const headroom::TokenizedSample &first = preview.samples[0];
    QCOMPARE(first.line, 1);
    QCOMPARE(first.total_tokens, 3);
    QCOMPARE(first.tokens.size(), std::size_t{3});
    QCOMPARE(first.tokens[0].id, 97);
    QCOMPARE(QString::fromStdString(first.tokens[0].piece), QString("a"));
    QCOMPARE(QString::fromStdString(first.tokens[2].piece), QString("\n"));
    QCOMPARE(preview.samples[1].line, 3);
    const headroom::TokenizedSample &accented = preview.samples[2];
    QCOMPARE(QString::fromStdString(accented.tokens[1].piece), QString("<0xC3>"));
    QCOMPARE(QString::fromStdString(accented.tokens[2].piece), QString("<0xA9>"));
}

void TestTokenPreview::instructionRecordsCountAsTrainingBuildsThem() {
    const TokenPreview preview = headroom::previewTokens(gptConfig("byte", 8), instructions_);
    const headroom::TokenCountStats &stats = preview.stats;
    QVERIFY(stats.instruction);
    QCOMPARE(stats.records, 2);
    // Prompt, completion, end-of-text: 7 + 2 + 1 and 2 + 2 + 1.
    QCOMPARE(stats.tokens, 15);
    QCOMPARE(stats.mean, 7.5);
    QCOMPARE(stats.median, 7.5);
    QCOMPARE(stats.p95, 10);
    QCOMPARE(stats.max, 10);
    QCOMPARE(stats.characters_per_token, 1.0); // end-of-text stands for no text
    QCOMPARE(stats.longer_than_window, 1);
    const headroom::TokenizedSample &first = preview.samples.at(0);
    QCOMPARE(first.prompt_tokens, 7);
    QCOMPARE(first.total_tokens, 10);
    QVERIFY(first.tokens.back().special);
    QCOMPARE(first.tokens.back().id, 256);
    QCOMPARE(QString::fromStdString(first.tokens.back().piece), QString("<eot>"));
    QCOMPARE(QString::fromStdString(joinedPieces(first)), QString("Q: 2+2? 4"));
}

void TestTokenPreview::limitsStopEarly() {
    TokenPreviewLimits limits;
    limits.max_records = 2;
    limits.samples = 1;
    limits.sample_tokens = 2;
    const TokenPreview preview = headroom::previewTokens(gptConfig("byte", 64), text_, limits);
    QCOMPARE(preview.stats.records, 2);
    QCOMPARE(preview.stats.bytes, std::uint64_t{4}); // "ab\n\n"
    QVERIFY(!preview.stats.whole_file);
    QCOMPARE(preview.stats.longer_than_window, 0);
    QCOMPARE(preview.samples.size(), std::size_t{1});
    QCOMPARE(preview.samples[0].tokens.size(), std::size_t{2});
    QCOMPARE(preview.samples[0].total_tokens, 3);

    limits = {};
    limits.max_bytes = 5; // the record that crosses the limit still counts
    const TokenPreview by_bytes = headroom::previewTokens(gptConfig("byte", 64), text_, limits);
    QCOMPARE(by_bytes.stats.records, 3);
    QVERIFY(!by_bytes.stats.whole_file);
}

void TestTokenPreview::sentencePieceIsTrainedOnTheSample() {
#ifdef __SANITIZE_ADDRESS__
    QSKIP("SentencePiece cannot be loaded under AddressSanitizer (RTLD_DEEPBIND)");
#endif
    const std::string story =
        writeFile(dir_, "story.txt", test_support::storyText(200).toStdString());
    Config config = gptConfig("bpe", 16);
    config.set("tokenizer.vocab_size", "400");
    const TokenPreview preview = headroom::previewTokens(config, story);
    QVERIFY(preview.trained_on_sample);
    QCOMPARE(QString::fromStdString(preview.tokenizer), QString("bpe"));
    QVERIFY(preview.vocab_size > 64 && preview.vocab_size <= 400);
    QCOMPARE(preview.stats.records, 200);
    QVERIFY(preview.stats.characters_per_token > 1.5); // merges, not bytes
    const headroom::TokenizedSample &first = preview.samples.at(0);
    QVERIFY(first.tokens.back().special); // end-of-text
    QCOMPARE(first.total_tokens, std::int64_t(first.tokens.size()));
    // Each piece is the text it stands for, so the pieces spell the line.
    QCOMPARE(QString::fromStdString(joinedPieces(first)), QString("The fox found the brass key."));
}

void TestTokenPreview::huggingFaceTokenizerSpellsItsVocabulary() {
    // As a pretrained base's project tokenizes: the template's <s> first, <sep> ends documents.
    const auto loaded =
        headroom::tokenizers::loadHfDataTokenizer(kFixtures + "/bpe_llama2_style", 697);
    auto &tokenizer = static_cast<headroom::tokenizers::HfDataTokenizer &>(*loaded);
    tokenizer.setAddsSpecialTokensAtStart(true);
    headroom::data::DataSpec spec;
    spec.path = writeFile(dir_, "docs.jsonl", std::string("{\"text\":\"hello world\"}\n"));
    spec.format = headroom::data::Format::Jsonl;
    const TokenPreview preview = headroom::workflow::measureTokens(spec, tokenizer, 4, {});
    std::vector<std::int32_t> expected = tokenizer.tokenizer().encodeIds("hello world", true);
    expected.push_back(697);
    const headroom::TokenizedSample &sample = preview.samples.at(0);
    QCOMPARE(sample.tokens.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(sample.tokens[i].id, expected[i]);
        QCOMPARE(sample.tokens[i].piece, *tokenizer.tokenizer().idToToken(expected[i]));
    }
    QCOMPARE(QString::fromStdString(sample.tokens.front().piece), QString("<s>"));
    QVERIFY(sample.tokens.front().special);
    QVERIFY(sample.tokens.back().special);
    QVERIFY(!sample.tokens[1].special);
    QCOMPARE(preview.stats.tokens, std::int64_t(expected.size()));
    QCOMPARE(preview.stats.characters_per_token, 11.0 / double(expected.size() - 2));
    QCOMPARE(preview.stats.longer_than_window, expected.size() > 5 ? 1 : 0);
}

void TestTokenPreview::refusesBadInput_data() {
    QTest::addColumn<QString>("tokenizer"); // a path, or "byte" for previewTokens
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("messageParts");
    QTest::newRow("missing file") << "byte"
                                  << "missing.txt" << QStringList{"missing.txt", "no such file"};
    QTest::newRow("missing tokenizer")
        << "/nonexistent/tok"
        << "lines.txt" << QStringList{"tokenizer", "/nonexistent/tok"};
    // No end-of-text token among the ones a document separator is looked for in.
    QTest::newRow("tokenizer without end of text")
        << QString::fromStdString(kFixtures + "/bpe_byte_level/tokenizer.json") << "lines.txt"
        << QStringList{"tokenizer cannot be loaded"};
    QTest::newRow("malformed tokenizer") << "bad/tokenizer.json"
                                         << "lines.txt" << QStringList{"tokenizer.json"};
}

void TestTokenPreview::refusesBadInput() {
    QFETCH(QString, tokenizer);
    QFETCH(QString, file);
    QFETCH(QStringList, messageParts);
    QDir(dir_.path()).mkpath("bad");
    writeFile(dir_, "bad/tokenizer.json", std::string("{\"model\": 3"));
    const std::string data = dir_.filePath(file).toStdString();
    QString path = tokenizer;
    if (path.startsWith("bad/")) {
        path = dir_.filePath(path);
    }
    try {
        if (tokenizer == "byte") {
            headroom::previewTokens(gptConfig("byte", 8), data);
        } else {
            headroom::previewTokensWith(path.toStdString(), data);
        }
        QFAIL("no InputError");
    } catch (const InputError &error) {
        const QString message = QString::fromUtf8(error.what());
        for (const QString &part : messageParts) {
            QVERIFY2(message.contains(part), qPrintable(message));
        }
    }
}

QTEST_GUILESS_MAIN(TestTokenPreview)
#include "test_token_preview.moc"
