// SentencePiece tokenizer.model folders through HfTokenizer::load: the ids and decodes of tiny
// BPE and unigram models (byte fallback on) as python3-sentencepiece gives them
// (tests/data/sentencepiece/, regenerated with make_fixtures.py), the vocabulary lookups,
// tokenizer.json winning over tokenizer.model, and broken model files refused.
#include "tokenizers/sentencepiece/sentencepiece_loader.h"

#include <headroom/tokenizer.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using headroom::HfTokenizer;
using headroom::TokenizerError;

namespace {

const QString kFixtures = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/sentencepiece");

nlohmann::json readJson(const QString &path) {
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

std::string show(const std::vector<std::int32_t> &ids) {
    return nlohmann::json(ids).dump();
}

void writeFile(const QString &path, const QByteArray &bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

QString loadError(const std::string &path) {
    try {
        HfTokenizer::load(path);
    } catch (const TokenizerError &error) {
        return QString::fromStdString(error.what());
    }
    return QStringLiteral("(no error)");
}

} // namespace

class TestSentencePieceTokenizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesSentencePiece_data();
    void matchesSentencePiece();
    void vocabularyLookups();
    void piecesAndOffsets();
    void loadsTheModelFileItself();
    void tokenizerJsonWins();
    void refusesBrokenModels();
};

void TestSentencePieceTokenizer::initTestCase() {
    // The SentencePiece module cannot be loaded in every build (AddressSanitizer, a build
    // without SentencePiece): then there is nothing to compare.
    try {
        headroom::data::sentencePieceModule();
    } catch (const std::runtime_error &error) {
        QSKIP(error.what());
    }
}

void TestSentencePieceTokenizer::matchesSentencePiece_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("index");
    for (const char *folder : {"bpe", "unigram", "unigram_bos_eos"}) {
        const nlohmann::json expected = readJson(kFixtures + "/" + folder + "/expected.json");
        QVERIFY(expected["cases"].size() >= 15);
        for (std::size_t i = 0; i < expected["cases"].size(); ++i) {
            QTest::addRow("%s/%zu", folder, i) << QString(folder) << static_cast<int>(i);
        }
    }
}

void TestSentencePieceTokenizer::matchesSentencePiece() {
    QFETCH(QString, folder);
    QFETCH(int, index);
    const nlohmann::json expected = readJson(kFixtures + "/" + folder + "/expected.json");
    const nlohmann::json &row = expected["cases"][static_cast<std::size_t>(index)];
    const std::string text = row["text"];
    const HfTokenizer tokenizer = HfTokenizer::load((kFixtures + "/" + folder).toStdString());

    const auto ids = tokenizer.encodeIds(text, true);
    QVERIFY2(ids == row["ids"].get<std::vector<std::int32_t>>(),
             qPrintable(QString::fromStdString(text + "\n got " + show(ids) + "\nwant " +
                                               row["ids"].dump())));
    const auto plain = tokenizer.encodeIds(text, false);
    QVERIFY2(plain == row["ids_no_special"].get<std::vector<std::int32_t>>(),
             qPrintable(QString::fromStdString(text + "\n got " + show(plain) + "\nwant " +
                                               row["ids_no_special"].dump())));
    QCOMPARE(QString::fromStdString(tokenizer.decode(ids, true)),
             QString::fromStdString(row["decoded_skip_special"].get<std::string>()));
}

void TestSentencePieceTokenizer::vocabularyLookups() {
    const HfTokenizer bpe = HfTokenizer::load((kFixtures + "/bpe").toStdString());
    const int model_size = readJson(kFixtures + "/bpe/expected.json")["vocab_size"];
    // The two chat markers of tokenizer_config.json lie beyond the model's pieces.
    QCOMPARE(bpe.vocabSize(), model_size + 2);
    QCOMPARE(bpe.idToToken(1).value_or(""), std::string("<s>"));
    QCOMPARE(bpe.idToToken(2).value_or(""), std::string("</s>"));
    QCOMPARE(bpe.tokenToId("<|im_start|>").value_or(-1), model_size);
    QCOMPARE(bpe.idToToken(model_size + 1).value_or(""), std::string("<|im_end|>"));
    QCOMPARE(bpe.tokenToId("\u2581").value_or(-1), bpe.encodeIds(" ", false).at(0));
    QCOMPARE(bpe.tokenToId("<0xF0>").value_or(-1), 3 + 0xF0); // byte pieces follow the controls
    QVERIFY(bpe.isSpecial(0) && bpe.isSpecial(1) && bpe.isSpecial(2));
    QVERIFY(bpe.isSpecial(model_size));
    QVERIFY(!bpe.isSpecial(model_size + 1)); // <|im_end|> is added but not special
    QVERIFY(!bpe.isSpecial(bpe.encodeIds("a", false).at(0)));
    QVERIFY(!bpe.idToToken(model_size + 2).has_value());
    QVERIFY(!bpe.tokenToId("no such piece").has_value());

    // Without any config: the model's own unk/bos/eos pieces are the special tokens.
    const HfTokenizer unigram = HfTokenizer::load((kFixtures + "/unigram").toStdString());
    QCOMPARE(unigram.vocabSize(),
             static_cast<int>(readJson(kFixtures + "/unigram/expected.json")["vocab_size"]));
    QVERIFY(unigram.isSpecial(0) && unigram.isSpecial(1) && unigram.isSpecial(2));
    QCOMPARE(unigram.decode({1, 2}, false), std::string("<s></s>"));
    QCOMPARE(unigram.decode({1, 2}, true), std::string());
}

void TestSentencePieceTokenizer::piecesAndOffsets() {
    const HfTokenizer tokenizer = HfTokenizer::load((kFixtures + "/bpe").toStdString());
    const std::string text = "hello <s>world \xF0\x9F\x98\x80";
    const headroom::TokenizedText encoded = tokenizer.encode(text, true);
    QCOMPARE(encoded.ids.size(), encoded.pieces.size());
    QCOMPARE(encoded.ids.size(), encoded.offsets.size());
    QCOMPARE(encoded.pieces.front(), std::string("<s>")); // BOS from add_bos_token
    QVERIFY(encoded.special.front());
    bool saw_inner_bos = false;
    for (std::size_t i = 1; i < encoded.ids.size(); ++i) {
        QVERIFY(encoded.offsets[i].first <= encoded.offsets[i].second);
        QVERIFY(encoded.offsets[i].second <= text.size());
        if (encoded.ids[i] == 1) {
            saw_inner_bos = true;
            QCOMPARE(text.substr(encoded.offsets[i].first, 3), std::string("<s>"));
            QVERIFY(encoded.special[i]);
        }
    }
    QVERIFY(saw_inner_bos);
    QCOMPARE(tokenizer.decode(encoded.ids, false),
             std::string("<s>hello <s>world \xF0\x9F\x98\x80"));
}

void TestSentencePieceTokenizer::loadsTheModelFileItself() {
    // The path of the file: its folder's tokenizer_config.json still applies.
    const HfTokenizer tokenizer =
        HfTokenizer::load((kFixtures + "/bpe/tokenizer.model").toStdString());
    QVERIFY(tokenizer.source().find("tokenizer.model") != std::string::npos);
    const nlohmann::json expected = readJson(kFixtures + "/bpe/expected.json");
    const nlohmann::json &row = expected["cases"][1];
    QCOMPARE(show(tokenizer.encodeIds(row["text"], true)), row["ids"].dump());
}

void TestSentencePieceTokenizer::tokenizerJsonWins() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QFile::copy(kFixtures + "/bpe/tokenizer.model", dir.filePath("tokenizer.model")));
    QVERIFY(QFile::copy(
        QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/tokenizers/unigram/tokenizer.json"),
        dir.filePath("tokenizer.json")));
    const HfTokenizer tokenizer = HfTokenizer::load(dir.path().toStdString());
    QVERIFY2(tokenizer.source().find("tokenizer.json") != std::string::npos,
             tokenizer.source().c_str());
}

void TestSentencePieceTokenizer::refusesBrokenModels() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString model = dir.filePath("tokenizer.model");
    for (const QByteArray &bytes :
         {QByteArray("this is not a protobuf \xff\xff\xff\xff"), QByteArray(),
          QByteArray(R"({"version":"1.0","model":{"type":"BPE"}})"),
          QByteArray("\x0a\x05\x0a\x01\x61\x15", 6)}) {
        writeFile(model, bytes);
        const QString error = loadError(dir.path().toStdString());
        QVERIFY2(error.contains(model) && error.contains("not a SentencePiece model"),
                 qPrintable(error));
    }
    // A truncated real model.
    QFile real(kFixtures + "/unigram/tokenizer.model");
    QVERIFY(real.open(QIODevice::ReadOnly));
    writeFile(model, real.readAll().left(1000));
    QVERIFY2(loadError(model.toStdString()).contains(model),
             qPrintable(loadError(model.toStdString())));

    // A broken tokenizer_config.json is named too.
    QVERIFY(QFile::remove(model));
    QVERIFY(QFile::copy(kFixtures + "/unigram/tokenizer.model", model));
    writeFile(dir.filePath("tokenizer_config.json"),
              R"({"added_tokens_decoder": {"x": {"content": "<a>"}}})");
    const QString config_error = loadError(dir.path().toStdString());
    QVERIFY2(config_error.contains("tokenizer_config.json") &&
                 config_error.contains("/added_tokens_decoder/x"),
             qPrintable(config_error));
}

QTEST_GUILESS_MAIN(TestSentencePieceTokenizer)
#include "test_sentencepiece_tokenizer.moc"
