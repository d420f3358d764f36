// Tokenizers: byte-level round trips, SentencePiece BPE/unigram training, serialization, and
// their use as the gpt token stream.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/tokenizer_training.h"
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

// A few hundred lines of varied text, deterministic.
std::string corpus(int lines) {
    const char *words[] = {"the",   "quick", "brown", "fox",   "jumps", "over",   "lazy",
                           "dog",   "café",  "naïve", "größe", "river", "stream", "data",
                           "token", "model", "light", "night", "right", "sight"};
    std::uint32_t state = 12345;
    std::string text;
    for (int i = 0; i < lines; ++i) {
        for (int w = 0; w < 9; ++w) {
            state = state * 1664525u + 1013904223u;
            text += words[(state >> 16) % 20];
            text += w == 8 ? "." : " ";
        }
        text += "\n";
    }
    return text;
}

const std::vector<std::string> &roundTripTexts() {
    static const std::vector<std::string> texts = {
        "the quick brown fox", "  leading and  double  spaces ",
        "größe naïve café",    "unseen: Zebra \xE2\x9C\x93 emoji \xF0\x9F\x98\x80 tab\tend",
        "日本語のテキスト",    "",
    };
    return texts;
}

bool sentencePieceMissing(const std::runtime_error &error) {
    return QString(error.what()).contains("use tokenizer=byte");
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void byteTokenizerRoundTrips_data();
    void byteTokenizerRoundTrips();
    void byteTokenizerIds();
    void kindNames();
    void sentencePieceTrainsAndRoundTrips_data();
    void sentencePieceTrainsAndRoundTrips();
    void sentencePieceTrainsOnTrainingSplitOnly();
    void sentencePieceTrainsFromJsonl();
    void sentencePieceRejectsTinyVocabulary();
    void sentencePieceSeparatesRecordsWithEndOfText();
    void loadRejectsGarbage();

private:
    // Trains or QSKIPs when this build cannot (no SentencePiece); nullptr then.
    std::unique_ptr<Tokenizer> train(const DataSpec &spec, TokenizerKind kind, int vocab);

    QTemporaryDir dir_;
};

std::unique_ptr<Tokenizer> TestTokenizer::train(const DataSpec &spec, TokenizerKind kind,
                                                int vocab) {
    try {
        return trainSentencePiece(spec, kind, vocab);
    } catch (const DataError &) {
        throw;
    } catch (const std::runtime_error &error) {
        if (!sentencePieceMissing(error)) {
            throw;
        }
        qWarning("%s", error.what());
        return nullptr;
    }
}

void TestTokenizer::byteTokenizerRoundTrips_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("ascii") << QByteArray("hello, world\n");
    QTest::newRow("two-byte") << QByteArray("naïve café");
    QTest::newRow("three-byte") << QByteArray("日本語 \xE2\x82\xAC");
    QTest::newRow("four-byte") << QByteArray("emoji \xF0\x9F\x98\x80!");
    QTest::newRow("empty") << QByteArray();
    QByteArray all;
    for (int b = 0; b < 256; ++b) {
        all.append(static_cast<char>(b));
    }
    QTest::newRow("every byte") << all;
}

void TestTokenizer::byteTokenizerRoundTrips() {
    QFETCH(QByteArray, text);
    const auto tokenizer = makeByteTokenizer();
    const std::string input = text.toStdString();
    const std::vector<std::int32_t> ids = tokenizer->encode(input);
    QCOMPARE(ids.size(), input.size());
    for (const std::int32_t id : ids) {
        QVERIFY(id >= 0 && id < 256);
    }
    QCOMPARE(tokenizer->decode(ids), input);
}

void TestTokenizer::byteTokenizerIds() {
    const auto tokenizer = makeByteTokenizer();
    QVERIFY(tokenizer->kind() == TokenizerKind::Byte);
    QCOMPARE(tokenizer->vocabSize(), 257);
    QCOMPARE(tokenizer->endOfTextId(), 256);
    QVERIFY(tokenizer->encode("\xC3\xA9") == (std::vector<std::int32_t>{0xC3, 0xA9}));
    QCOMPARE(tokenizer->decode({'a', 256, 'b'}), std::string("ab"));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, tokenizer->decode({257}));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, tokenizer->decode({-1}));
    QVERIFY(tokenizer->serialize().empty());
    QCOMPARE(loadTokenizer(TokenizerKind::Byte, "")->vocabSize(), 257);
}

void TestTokenizer::kindNames() {
    for (const TokenizerKind kind :
         {TokenizerKind::Byte, TokenizerKind::Bpe, TokenizerKind::Unigram}) {
        QVERIFY(parseTokenizerKind(toString(kind)) == kind);
    }
    QCOMPARE(toString(TokenizerKind::Unigram), std::string("unigram"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseTokenizerKind("wordpiece"));
}

void TestTokenizer::sentencePieceTrainsAndRoundTrips_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("bpe") << static_cast<int>(TokenizerKind::Bpe);
    QTest::newRow("unigram") << static_cast<int>(TokenizerKind::Unigram);
}

void TestTokenizer::sentencePieceTrainsAndRoundTrips() {
    QFETCH(int, kind);
    DataSpec spec;
    spec.path = writeFile(dir_, "corpus.txt", corpus(400));
    const auto tokenizer_kind = static_cast<TokenizerKind>(kind);
    const auto tokenizer = train(spec, tokenizer_kind, 400);
    if (!tokenizer) {
        QSKIP("this build has no SentencePiece");
    }
    QVERIFY(tokenizer->kind() == tokenizer_kind);
    QVERIFY2(tokenizer->vocabSize() > 259 && tokenizer->vocabSize() <= 400,
             qPrintable(QString::number(tokenizer->vocabSize())));
    QCOMPARE(tokenizer->endOfTextId(), 2);
    // Merged pieces: known words take fewer tokens than bytes.
    QVERIFY(tokenizer->encode("the quick brown fox").size() < 12);
    for (const std::string &text : roundTripTexts()) {
        QCOMPARE(tokenizer->decode(tokenizer->encode(text)), text);
    }
    QCOMPARE(tokenizer->decode({tokenizer->endOfTextId()}), std::string());

    const std::string serialized = tokenizer->serialize();
    QVERIFY(!serialized.empty());
    const auto loaded = loadTokenizer(tokenizer_kind, serialized);
    QCOMPARE(loaded->vocabSize(), tokenizer->vocabSize());
    QCOMPARE(loaded->endOfTextId(), tokenizer->endOfTextId());
    for (const std::string &text : roundTripTexts()) {
        QVERIFY(loaded->encode(text) == tokenizer->encode(text));
    }
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, loaded->decode({loaded->vocabSize()}));

    // Deterministic: the same data gives the same model.
    QCOMPARE(train(spec, tokenizer_kind, 400)->serialize(), serialized);
}

void TestTokenizer::sentencePieceTrainsOnTrainingSplitOnly() {
    DataSpec spec;
    spec.path = writeFile(dir_, "held-out.txt", corpus(50));
    spec.validation_fraction = 0.5;
    const auto half = train(spec, TokenizerKind::Bpe, 300);
    if (!half) {
        QSKIP("this build has no SentencePiece");
    }
    // A different split gives a different model: validation records were left out.
    spec.validation_fraction = 0;
    QVERIFY(train(spec, TokenizerKind::Bpe, 300)->serialize() != half->serialize());
    spec.validation_fraction = 1.0;
    try {
        train(spec, TokenizerKind::Bpe, 300);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QVERIFY2(QString(error.what()).contains("no training text"), error.what());
    }
}

void TestTokenizer::sentencePieceTrainsFromJsonl() {
    std::string jsonl;
    const std::string text = corpus(200);
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        jsonl += "{\"id\": 1, \"body\": \"" + text.substr(start, end - start) + "\"}\n";
        start = end + 1;
    }
    DataSpec spec;
    spec.path = writeFile(dir_, "corpus.jsonl", jsonl);
    spec.format = Format::Jsonl;
    spec.text_field = "body";
    const auto tokenizer = train(spec, TokenizerKind::Unigram, 350);
    if (!tokenizer) {
        QSKIP("this build has no SentencePiece");
    }
    QCOMPARE(tokenizer->decode(tokenizer->encode("lazy river light")),
             std::string("lazy river light"));
    // The "id" key is not text: a missing text field is a data error with its line.
    spec.text_field = "text";
    try {
        trainSentencePiece(spec, TokenizerKind::Unigram, 350);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), std::int64_t{1});
    }
}

void TestTokenizer::sentencePieceRejectsTinyVocabulary() {
    // Too small for the 259 fixed pieces and the text's characters: bad input that names the
    // key, the file and the smallest vocabulary that works (which then trains).
    DataSpec spec;
    spec.path = writeFile(dir_, "tiny-vocab.txt", corpus(100));
    int needed = 0;
    try {
        trainSentencePiece(spec, TokenizerKind::Bpe, 50);
        QFAIL("expected DataError");
    } catch (const DataError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains("tiny-vocab.txt") &&
                     message.contains("tokenizer.vocab_size=50 is too small"),
                 error.what());
        const QRegularExpressionMatch match =
            QRegularExpression("set tokenizer.vocab_size to (\\d+) or more").match(message);
        QVERIFY2(match.hasMatch(), error.what());
        needed = match.captured(1).toInt();
    } catch (const std::runtime_error &error) {
        if (sentencePieceMissing(error)) {
            QSKIP("this build has no SentencePiece");
        }
        QFAIL(error.what());
    }
    QVERIFY(needed > 259);
    QVERIFY_THROWS_EXCEPTION(DataError,
                             trainSentencePiece(spec, TokenizerKind::Unigram, needed - 1));
    QVERIFY(trainSentencePiece(spec, TokenizerKind::Unigram, needed)->vocabSize() <= needed);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trainSentencePiece(spec, TokenizerKind::Byte, 300));
}

void TestTokenizer::sentencePieceSeparatesRecordsWithEndOfText() {
    DataSpec spec;
    spec.path = writeFile(dir_, "two-lines.txt", corpus(300));
    const auto tokenizer = train(spec, TokenizerKind::Bpe, 320);
    if (!tokenizer) {
        QSKIP("this build has no SentencePiece");
    }
    const std::string first_line = corpus(1).substr(0, corpus(1).size() - 1);
    std::vector<std::int32_t> expected = tokenizer->encode(first_line);
    expected.push_back(tokenizer->endOfTextId());
    spec.validation_fraction = 0;
    spec.shuffle_buffer = 1;
    spec.seq_len = static_cast<std::int64_t>(expected.size()) - 1;
    spec.stride = spec.seq_len + 1;
    ExampleStream stream(spec, Split::Train, tokenizer.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    QVERIFY(example.tokens == expected);
}

void TestTokenizer::loadRejectsGarbage() {
    try {
        loadTokenizer(TokenizerKind::Bpe, "not a model");
        QFAIL("expected std::runtime_error");
    } catch (const std::runtime_error &error) {
        QVERIFY2(QString(error.what()).contains("cannot load the bpe tokenizer") ||
                     sentencePieceMissing(error),
                 error.what());
    }
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
