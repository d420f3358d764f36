// Hugging Face tokenizers: the ids, tokens and decodes of small tokenizers made by the reference
// library itself (tests/data/tokenizers/*/, regenerated with make_fixtures.js), and how bad
// tokenizer files and bad text are refused.
#include "tokenizers/hf_data_tokenizer.h"
#include "tokenizers/normalizers/normalizers.h"
#include "util/base64.h"

#include <headroom/tokenizer.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using headroom::HfTokenizer;
using headroom::InvalidUtf8Error;
using headroom::TokenizerError;

namespace {

const QString kFixtures = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/tokenizers");

nlohmann::json readJson(const QString &path) {
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

std::string show(const std::vector<std::int32_t> &ids) {
    return nlohmann::json(ids).dump();
}

// A minimal valid tokenizer.json with `pre_tokenizer` spliced in.
std::string withPreTokenizer(const std::string &pre_tokenizer) {
    return R"({"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":)" +
           pre_tokenizer +
           R"(,"post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":{"a":0,"<unk>":1},"unk_token":"<unk>"}})";
}

// A SentencePiece charsmap: trie size, darts-clone units, NUL-terminated replacements.
std::string charsmap(const std::vector<std::uint32_t> &units, const std::string &blob,
                     std::uint32_t trie_bytes) {
    std::string bytes;
    auto put = [&](std::uint32_t v) {
        for (int i = 0; i < 4; ++i) {
            bytes += static_cast<char>((v >> (8 * i)) & 0xFF);
        }
    };
    put(trie_bytes);
    for (const std::uint32_t unit : units) {
        put(unit);
    }
    return headroom::util::base64Encode(bytes + blob);
}

// A one-node trie mapping "A" to "b": root base 0, the unit for 'A' has a leaf and points to
// base 0x80, whose unit holds the replacement's offset (0).
std::vector<std::uint32_t> trieAtoB() {
    std::vector<std::uint32_t> units(256, 0);
    units[0x41] = ((0x41u ^ 0x80u) << 10) | (1u << 8) | 0x41u;
    units[0x80] = 0x80000000u;
    return units;
}

std::string withNormalizer(const std::string &normalizer) {
    return R"({"normalizer":)" + normalizer +
           R"(,"model":{"type":"WordLevel","vocab":{"a":0,"<unk>":1},"unk_token":"<unk>"}})";
}

std::string precompiled(const std::string &base64) {
    return R"({"type":"Precompiled","precompiled_charsmap":")" + base64 + R"("})";
}

QString errorOf(const std::string &json) {
    try {
        HfTokenizer::fromJson(json);
    } catch (const TokenizerError &error) {
        return QString::fromStdString(error.what());
    }
    return QStringLiteral("(no error)");
}

} // namespace

class TestHfTokenizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesReference_data();
    void matchesReference();
    void offsetsPointIntoTheInput();
    void vocabularyLookups();
    void namesUnknownComponentsWithTheirPath();
    void refusesBrokenFiles();
    void refusesInvalidUtf8WithOffset();
    void precompiledCharsmap();
    void refusesMalformedCharsmaps();
    void dataTokenizerAdapter();
};

void TestHfTokenizer::matchesReference_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<int>("index");
    const QStringList fixtures = QDir(kFixtures).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(fixtures.size() >= 9);
    for (const QString &fixture : fixtures) {
        const auto cases = readJson(kFixtures + "/" + fixture + "/cases.json")["cases"];
        for (std::size_t i = 0; i < cases.size(); ++i) {
            QTest::addRow("%s/%zu", qPrintable(fixture), i) << fixture << static_cast<int>(i);
        }
    }
}

// Every id, token string and decode equals what the reference produced for the same file.
void TestHfTokenizer::matchesReference() {
    QFETCH(QString, fixture);
    QFETCH(int, index);
    static std::map<QString, HfTokenizer> loaded;
    auto it = loaded.find(fixture);
    if (it == loaded.end()) {
        it = loaded.emplace(fixture, HfTokenizer::load((kFixtures + "/" + fixture).toStdString()))
                 .first;
    }
    const HfTokenizer &tokenizer = it->second;
    const auto file = readJson(kFixtures + "/" + fixture + "/cases.json");
    const auto &c = file["cases"][static_cast<std::size_t>(index)];
    const std::string text = c["text"];

    const headroom::TokenizedText encoded = tokenizer.encode(text, true);
    QCOMPARE(show(encoded.ids), show(c["ids"].get<std::vector<std::int32_t>>()));
    QCOMPARE(nlohmann::json(encoded.pieces).dump(), c["tokens"].dump());
    QCOMPARE(show(tokenizer.encodeIds(text, false)),
             show(c["ids_nospecial"].get<std::vector<std::int32_t>>()));
    QCOMPARE(tokenizer.decode(encoded.ids, false), c["decoded"].get<std::string>());
    QCOMPARE(tokenizer.decode(encoded.ids, true), c["decoded_skip"].get<std::string>());
    QCOMPARE(tokenizer.vocabSize(), file["vocab_size"].get<int>());
}

void TestHfTokenizer::offsetsPointIntoTheInput() {
    // No normalizer: every token's offsets are exact byte ranges of the input.
    const HfTokenizer tokenizer = HfTokenizer::load((kFixtures + "/bpe_chain").toStdString());
    const std::string text = "Hello, world 42 <sep>!";
    const headroom::TokenizedText encoded = tokenizer.encode(text, false);
    QCOMPARE(encoded.offsets.size(), encoded.ids.size());
    std::string rebuilt;
    for (const auto &[begin, end] : encoded.offsets) {
        QVERIFY(begin <= end && end <= text.size());
        rebuilt += text.substr(begin, end - begin);
    }
    QCOMPARE(rebuilt, text);
    QCOMPARE(encoded.pieces.back(), std::string("!"));
}

void TestHfTokenizer::vocabularyLookups() {
    const HfTokenizer tokenizer = HfTokenizer::load((kFixtures + "/wordpiece_bert").toStdString());
    const auto cls = tokenizer.tokenToId("[CLS]");
    QVERIFY(cls.has_value());
    QCOMPARE(tokenizer.idToToken(*cls).value_or(""), std::string("[CLS]"));
    QVERIFY(tokenizer.isSpecial(*cls));
    QVERIFY(!tokenizer.tokenToId("no-such-token").has_value());
    QVERIFY(!tokenizer.idToToken(-1).has_value());
    QVERIFY(!tokenizer.idToToken(1 << 30).has_value());
    // Unknown ids are skipped when decoding, as the reference does.
    QCOMPARE(tokenizer.decode({1 << 30}, false), std::string());

    // Ids far apart (read in key order: "b" before the table grows) are all found.
    const HfTokenizer sparse = HfTokenizer::fromJson(
        R"({"model":{"type":"WordLevel","unk_token":"<unk>","vocab":{"b":900000,"<unk>":0,"a":1,"c":9000}}})");
    QCOMPARE(sparse.idToToken(900000).value_or(""), std::string("b"));
    QCOMPARE(sparse.idToToken(9000).value_or(""), std::string("c"));
    QCOMPARE(sparse.tokenToId("b").value_or(-1), 900000);
    QCOMPARE(sparse.vocabSize(), 4);
}

void TestHfTokenizer::namesUnknownComponentsWithTheirPath() {
    const QString error = errorOf(withPreTokenizer(
        R"({"type":"Sequence","pretokenizers":[{"type":"Whitespace"},{"type":"Digits"},{"type":"Foo"}]})"));
    QVERIFY2(error.contains("tokenizer.json: /pre_tokenizer/pretokenizers/2/type: unknown "
                            "pre-tokenizer 'Foo'"),
             qPrintable(error));
    QVERIFY2(error.contains("expected"), qPrintable(error));

    const QString regex = errorOf(withPreTokenizer(
        R"({"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated","invert":false})"));
    QVERIFY2(regex.contains("/pre_tokenizer/pattern/Regex: bad regular expression"),
             qPrintable(regex));

    const QString behavior = errorOf(withPreTokenizer(
        R"({"type":"Split","pattern":{"String":" "},"behavior":"Sideways","invert":false})"));
    QVERIFY2(behavior.contains("/pre_tokenizer/behavior: unknown split behavior 'Sideways'"),
             qPrintable(behavior));
}

void TestHfTokenizer::refusesBrokenFiles() {
    QVERIFY2(errorOf("{not json").contains("tokenizer.json: not valid JSON"),
             qPrintable(errorOf("{not json")));
    QVERIFY(errorOf("[]").contains("expected an object"));
    // nlohmann reports numbers out of double range as out_of_range, not parse_error.
    QVERIFY(
        errorOf(R"({"model":{"type":"BPE","vocab":{"a":-4.4e9967}}})").contains("not valid JSON"));
    QVERIFY(errorOf(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}})")
                .contains("/model/merges: merge 0 ('a b'): token 'b' is not in the vocabulary"));
    QVERIFY(errorOf(R"({"model":{"type":"BPE","vocab":{"a":"zero"}}})")
                .contains("/model/vocab/a: expected an integer"));
    QVERIFY(errorOf(R"({"model":{"type":"Mystery"}})")
                .contains("/model/type: unknown model 'Mystery'"));
    QVERIFY(errorOf(R"({"normalizer":{"type":"NFC"}})").contains("/model: missing"));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    try {
        HfTokenizer::load(dir.path().toStdString());
        QFAIL("an empty folder loaded");
    } catch (const TokenizerError &error) {
        QVERIFY(QString(error.what()).contains("no tokenizer.json"));
    }
}

void TestHfTokenizer::precompiledCharsmap() {
    const auto units = trieAtoB();
    const nlohmann::json json =
        nlohmann::json::parse(precompiled(charsmap(units, std::string("b\0", 2), 1024)));
    const auto normalizer = headroom::tokenizers::makeNormalizer(
        headroom::tokenizers::JsonNode(json, "tokenizer.json", "/normalizer"));
    std::string text = "ABA xyz";
    normalizer->normalize(text);
    QCOMPARE(text, std::string("bBb xyz"));
    // A grapheme under 6 bytes whose prefix matches is replaced whole (the accent goes); a
    // longer one character by character.
    text = "A\u0301 A\u0301\u0301\u0301";
    normalizer->normalize(text);
    QCOMPARE(text, std::string("b b\u0301\u0301\u0301"));
}

// Every malformed charsmap is refused at load with its JSON path, never read out of bounds.
void TestHfTokenizer::refusesMalformedCharsmaps() {
    const std::string nul("\0", 1);
    const auto good = trieAtoB();
    auto refused = [](const std::string &normalizer, const char *what) {
        const QString error = errorOf(withNormalizer(normalizer));
        QVERIFY2(error.contains(what), qPrintable(error));
    };
    const char *path = "/normalizer/precompiled_charsmap: ";
    QVERIFY(errorOf(withNormalizer(precompiled(charsmap(good, "b" + nul, 1024)))) == "(no error)");
    refused(precompiled("not base64!"), "/normalizer/precompiled_charsmap: not valid base64");
    refused(precompiled("QQ=B"), "not valid base64");
    refused(precompiled("QR=="), "not valid base64"); // unused bits set
    refused(precompiled(""), "too short");
    refused(R"({"type":"Precompiled","precompiled_charsmap":null})", "expected a string");
    refused(precompiled(charsmap(good, "b" + nul, 4096)), "bad trie size 4096");
    refused(precompiled(charsmap(good, "b" + nul, 1022)), path);
    refused(precompiled(charsmap({}, "b" + nul, 0)), path);
    auto outside = good;
    outside[0x41] = (0x7FFFu << 10) | (1u << 8) | 0x41u;
    refused(precompiled(charsmap(outside, "b" + nul, 1024)), "points outside the trie");
    auto root = good;
    root[0] = 0x400u << 10;
    refused(precompiled(charsmap(root, "b" + nul, 1024)), "root points outside");
    auto far = good;
    far[0x80] = 0x80000000u | 7u;
    refused(precompiled(charsmap(far, "b" + nul, 1024)), "offset points outside");
    refused(precompiled(charsmap(good, "b", 1024)), "not NUL-terminated");
    refused(precompiled(charsmap(good, "b" + nul + "\xFF", 1024)), "not UTF-8");
    // A cycle (the child of 'A' is the root again, whose unit 0 holds the value) is walked once.
    auto cycle = good;
    cycle[0x41] = (0x41u << 10) | (1u << 8) | 0x41u;
    QCOMPARE(errorOf(withNormalizer(precompiled(charsmap(cycle, "b" + nul, 1024)))),
             QString("(no error)"));
    const std::string sequence = R"({"type":"Sequence","normalizers":[{"type":"NFKC"},)" +
                                 precompiled(charsmap(outside, "b" + nul, 1024)) + "]}";
    refused(sequence, "tokenizer.json: /normalizer/normalizers/1/precompiled_charsmap: a trie");
}

void TestHfTokenizer::refusesInvalidUtf8WithOffset() {
    const HfTokenizer tokenizer = HfTokenizer::load((kFixtures + "/bpe_byte_level").toStdString());
    try {
        tokenizer.encode("ok \xC3\x28 bad", true);
        QFAIL("invalid UTF-8 was encoded");
    } catch (const InvalidUtf8Error &error) {
        QCOMPARE(error.offset(), std::size_t{3});
        QVERIFY(QString(error.what()).contains("byte 3"));
    }
}

void TestHfTokenizer::dataTokenizerAdapter() {
    auto tokenizer = headroom::tokenizers::loadHfDataTokenizer(
        (kFixtures + "/bpe_metaspace_first/tokenizer.json").toStdString());
    const HfTokenizer reference =
        HfTokenizer::load((kFixtures + "/bpe_metaspace_first").toStdString());
    const std::string text = "Hello world";
    QCOMPARE(show(tokenizer->encode(text)), show(reference.encodeIds(text, false)));
    QCOMPARE(tokenizer->decode(tokenizer->encode(text)), text);
    QVERIFY(tokenizer->vocabSize() >= reference.vocabSize());
    QVERIFY(!tokenizer->serialize().empty());
    // Invalid UTF-8 becomes U+FFFD instead of stopping a training stream.
    QVERIFY(!tokenizer
                 ->encode("a\xFF"
                          "b")
                 .empty());
}

QTEST_GUILESS_MAIN(TestHfTokenizer)
#include "test_hf_tokenizer.moc"
