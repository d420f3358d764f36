// JSONL streaming: the text field, end-of-text separators, blank lines and bad records.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "sample_files.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "tokenizers/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

using namespace headroom::data;
using test_support::writeFile;

namespace {} // namespace

class TestDataJsonl : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void textFieldWithEndOfText();
    void customTextField();
    void inspectShowsKeysAndPreview();
    void promptCompletionRecordsAreOneExampleEach();
    void pretrainedTokenizerStartsPromptsWithItsBos();
    void badRecords_data();
    void badRecords();

private:
    DataSpec spec(const std::string &content) {
        DataSpec s;
        s.path = writeFile(dir_, QString("data%1.jsonl").arg(++files_), content);
        s.format = Format::Jsonl;
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        return s;
    }

    QTemporaryDir dir_;
    int files_ = 0;
    std::unique_ptr<Tokenizer> bytes_ = makeByteTokenizer();
};

void TestDataJsonl::textFieldWithEndOfText() {
    // Blank lines are skipped; escapes and multibyte text come out decoded.
    DataSpec s = spec("{\"text\": \"ab\"}\n"
                      "\n"
                      "{\"id\": 7, \"text\": \"\\u00fc\\n\"}\r\n"
                      "   \n"
                      "{\"text\": \"c\"}");
    s.seq_len = 8;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    const std::vector<std::int32_t> expected = {'a', 'b', 256, 0xC3, 0xBC, '\n', 256, 'c', 256};
    QVERIFY(example.tokens == expected);
    QCOMPARE(example.id, makeExampleId(0, 0));
}

void TestDataJsonl::customTextField() {
    DataSpec s = spec("{\"body\": \"xyz\", \"text\": 5}\n{\"body\": \"uvw\"}\n");
    s.text_field = "body";
    s.seq_len = 7;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(bytes_->decode(example.tokens), std::string("xyzuvw"));
    QCOMPARE(example.tokens[3], std::int32_t{256});
}

void TestDataJsonl::inspectShowsKeysAndPreview() {
    DataSpec s = spec("{\"text\": \"first\", \"label\": 1}\n\n{\"text\": \"second\"}\n"
                      "{\"text\": \"third\"}\n");
    const DataSummary summary = inspectData(s, 2);
    QCOMPARE(summary.records, std::int64_t{3});
    QVERIFY(summary.format == Format::Jsonl);
    QCOMPARE(summary.bytes, static_cast<std::uint64_t>(QFileInfo(s.path.c_str()).size()));
    QVERIFY(summary.columns == (std::vector<std::string>{"text", "label"}));
    QVERIFY(summary.preview == (std::vector<std::string>{"first", "second"}));
}

void TestDataJsonl::promptCompletionRecordsAreOneExampleEach() {
    // Not packed: each record is prompt + completion + end-of-text, cut or padded to
    // seq_len + 1, with the prompt and the padding marked; plain text records still pack.
    DataSpec s = spec("{\"prompt\": \"Q:ab\", \"completion\": \"xy\"}\n"
                      "{\"prompt\": \"Q:\", \"completion\": \"0123456789\"}\n");
    s.seq_len = 8;
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    Example first;
    QVERIFY(stream.next(first));
    const std::vector<std::int32_t> padded = {'Q', ':', 'a', 'b', 'x', 'y', 256, 256, 256};
    QVERIFY(first.tokens == padded);
    QCOMPARE(first.prompt_tokens, 4);
    QCOMPARE(first.real_tokens, 7);
    QCOMPARE(first.id, makeExampleId(0, 0));
    Example second;
    QVERIFY(stream.next(second));
    QCOMPARE(bytes_->decode(second.tokens), std::string("Q:0123456"));
    QCOMPARE(second.prompt_tokens, 2);
    QCOMPARE(second.real_tokens, 9);

    // The spans survive a saved position (the shuffle buffer holds examples).
    DataSpec shuffled = s;
    shuffled.shuffle_buffer = 4;
    ExampleStream source(shuffled, Split::Train, bytes_.get(), nullptr);
    Example skipped;
    QVERIFY(source.next(skipped));
    const std::string state = source.saveState();
    ExampleStream restored(shuffled, Split::Train, bytes_.get(), nullptr);
    restored.restoreState(state);
    for (int draw = 0; draw < 4; ++draw) {
        Example a;
        Example b;
        QVERIFY(source.next(a));
        QVERIFY(restored.next(b));
        QVERIFY(a.tokens == b.tokens);
        QCOMPARE(a.prompt_tokens, b.prompt_tokens);
        QCOMPARE(a.real_tokens, b.real_tokens);
    }
}

void TestDataJsonl::pretrainedTokenizerStartsPromptsWithItsBos() {
    // A Llama-style tokenizer.json adds <s> in its template: a pretrained model's prompts and
    // documents start with it, completions do not.
    const auto loaded = headroom::tokenizers::loadHfDataTokenizer(
        HEADROOM_SOURCE_DIR "/tests/data/tokenizers/bpe_llama2_style", 442);
    auto &tokenizer = static_cast<headroom::tokenizers::HfDataTokenizer &>(*loaded);
    tokenizer.setAddsSpecialTokensAtStart(true);
    const std::int32_t bos = *tokenizer.tokenizer().tokenToId("<s>");
    DataSpec s = spec("{\"prompt\": \"hello\", \"completion\": \"world\"}\n");
    s.seq_len = 32;
    ExampleStream stream(s, Split::Train, &tokenizer, nullptr);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.tokens.front(), bos);
    const std::vector<std::int32_t> completion = tokenizer.encode("world");
    QCOMPARE(std::count(example.tokens.begin(), example.tokens.begin() + example.real_tokens, bos),
             std::ptrdiff_t{1});
    QVERIFY(std::equal(completion.begin(), completion.end(),
                       example.tokens.begin() + example.prompt_tokens));
}

void TestDataJsonl::badRecords_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("textField");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("malformed") << QByteArray("{\"text\": \"a\"}\n\n{\"text\": \"b\"\n") << "text"
                               << 3 << "malformed JSON: ";
    QTest::newRow("malformed names column")
        << QByteArray("{\"text\": x}\n") << "text" << 1 << "column 10";
    QTest::newRow("missing field")
        << QByteArray("{\"text\": \"a\"}\n{\"body\": \"b\"}\n") << "text" << 2
        << "the record has no field \"text\" nor \"prompt\" and \"completion\" (its fields: body)";
    QTest::newRow("completion not a string")
        << QByteArray("{\"prompt\": \"a\", \"completion\": [1]}\n") << "text" << 1
        << "the field \"completion\" is a array, expected a string";
    QTest::newRow("empty completion") << QByteArray("{\"prompt\": \"a\", \"completion\": \"\"}\n")
                                      << "text" << 1 << "the completion is empty";
    QTest::newRow("number field") << QByteArray("{\"text\": 12}\n") << "text" << 1
                                  << "the field \"text\" is a number, expected a string";
    QTest::newRow("null field") << QByteArray("{\"text\": null}\n") << "text" << 1 << "is a null";
    QTest::newRow("array record") << QByteArray("[1, 2]\n") << "text" << 1
                                  << "expected one JSON object per line, found a JSON array";
    QTest::newRow("custom field missing")
        << QByteArray("{\"text\": \"a\"}\n") << "body" << 1 << "no field \"body\"";
    QTest::newRow("invalid UTF-8") << QByteArray("{\"text\": \"ok\"}\n{\"text\": \"\xe2\x28\"}\n")
                                   << "text" << 2 << "invalid UTF-8 at byte column 11";
    QTest::newRow("only blank lines") << QByteArray("\n  \n") << "text" << 0 << "holds no records";
}

void TestDataJsonl::badRecords() {
    QFETCH(QByteArray, content);
    QFETCH(QString, textField);
    QFETCH(int, line);
    QFETCH(QString, problem);
    DataSpec s = spec(content.toStdString());
    s.text_field = textField.toStdString();
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
    if (line == 0) {
        return;
    }
    // The stream reports the same problem when it reaches that record.
    ExampleStream stream(s, Split::Train, bytes_.get(), nullptr);
    Example example;
    try {
        stream.next(example);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), static_cast<std::int64_t>(line));
    }
}

QTEST_GUILESS_MAIN(TestDataJsonl)
#include "test_data_jsonl.moc"
