// Conversation data on the wizard's data page: the first conversations rendered with the chat
// template as the model will see them, the learned text highlighted, learned and context tokens
// counted over the first conversations, conversations longer than the context counted; the
// template and what is learned chosen there and written to data.chat_template and
// data.train_on; a model made from scratch gets ChatML and a note; bad records and missing
// templates show the engine's message.
#include "sample_files.h"
#include "tiny_hf_model.h"
#include "wizard/BaseModelBox.h"
#include "wizard/ChatPreviewPanel.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"
#include "wizard/TokenPreviewPanel.h"

#include <headroom/chat.h>
#include <headroom/config.h>

#include <QAbstractButton>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextEdit>
#include <QToolButton>
#include <QtTest>

#include <algorithm>

using headroom::ui::ChatPreviewPanel;
using headroom::ui::ConfigWizard;
using test_support::writeFile;

namespace {
constexpr int kTimeout = 60000;

const QString kByteLevelTokenizer =
    QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/tokenizers/bpe_byte_level/tokenizer.json");

// A template in the style of the real ones: specials from tokenizer_config.json, a system
// prompt, the generation prompt.
const QByteArray kTokenizerConfig = R"({
  "bos_token": "<s>",
  "eos_token": "</s>",
  "chat_template": "{{ bos_token }}{% for m in messages %}{{ '<' + m['role'] + '>' + m['content'] | trim + eos_token }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
})";

QByteArray conversation(int i) {
    return R"({"messages": [{"role": "system", "content": "You answer briefly."}, )"
           R"({"role": "user", "content": "What is )" +
           QByteArray::number(i) + R"( plus one?"}, {"role": "assistant", "content": "It is )" +
           QByteArray::number(i + 1) +
           R"(."}]})"
           "\n";
}

struct Totals {
    qint64 tokens = 0;
    qint64 learned = 0;
};

// The counts the panel should show, straight from the engine.
Totals totalsOf(const QString &tokenizer, const QString &data) {
    headroom::ChatPreviewOptions options;
    options.tokenizer = tokenizer.toStdString();
    Totals totals;
    headroom::previewChatFile(
        options, data.toStdString(), [&](const headroom::ChatRecordTokens &record) {
            totals.tokens += qint64(record.ids.size());
            totals.learned += std::count(record.train.begin(), record.train.end(), 1);
            return true;
        });
    return totals;
}

// Waits until the panel shows a preview, a problem or a note (it may have already).
bool waitShown(ChatPreviewPanel &panel, QSignalSpy &shown) {
    return QTest::qWaitFor([&] { return shown.count() > 0 && !panel.isPreviewing(); }, kTimeout);
}

// The text of the rendering that has a background: the highlighted, learned parts.
QStringList highlighted(const ChatPreviewPanel &panel) {
    QStringList parts;
    const auto *text = panel.findChild<QTextEdit *>("chatRendered");
    for (QTextBlock block = text->document()->begin(); block.isValid(); block = block.next()) {
        for (auto fragment = block.begin(); !fragment.atEnd(); ++fragment) {
            if (fragment.fragment().charFormat().background().style() != Qt::NoBrush) {
                parts << fragment.fragment().text();
            }
        }
    }
    return parts;
}
} // namespace

class TestChatPreviewPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showsTheRenderingAndTheCounts();
    void countsConversationsLongerThanTheContext();
    void templateAndLearnedTokensAreChosen();
    void badRecordsAndMissingTemplatesShowTheEnginesMessage();
    void aModelFromScratchGetsChatmlAndANote();
    void theWizardWritesTheChatKeys();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString tokenizer_;
    QString no_template_;
    QString chat_;
};

void TestChatPreviewPanel::initTestCase() {
    QLocale::setDefault(QLocale::c());
    QVERIFY(dir_.isValid());
    tokenizer_ = path("tokenizer");
    no_template_ = path("no-template");
    for (const QString &folder : {tokenizer_, no_template_}) {
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(kByteLevelTokenizer, folder + "/tokenizer.json"));
    }
    QVERIFY(!writeFile(QDir(tokenizer_), "tokenizer_config.json", kTokenizerConfig).isEmpty());
    chat_ = writeFile(QDir(dir_.path()), "chat.jsonl",
                      conversation(0) + conversation(1) + conversation(2));
}

void TestChatPreviewPanel::showsTheRenderingAndTheCounts() {
    ChatPreviewPanel panel;
    panel.show();
    QSignalSpy shown(&panel, &ChatPreviewPanel::previewShown);
    panel.setSource(chat_, tokenizer_, 64);
    QVERIFY(waitShown(panel, shown));
    QVERIFY2(panel.hasPreview(), qPrintable(panel.message()));
    QCOMPARE(panel.conversationCount(), 3);
    QCOMPARE(panel.renderedText(), QString("<s><system>You answer briefly.</s><user>What is 0 "
                                           "plus one?</s><assistant>It is 1.</s>"));
    // The reply and its end-of-turn are what the model learns, highlighted where it is shown.
    QCOMPARE(panel.learnedParts(), QStringList{"It is 1.</s>"});
    QCOMPARE(highlighted(panel), QStringList{"It is 1.</s>"});
    auto *title = panel.findChild<QLabel *>("chatConversation");
    QVERIFY2(title->text().contains("line 1"), qPrintable(title->text()));

    const Totals totals = totalsOf(tokenizer_, chat_);
    QVERIFY(totals.learned > 0 && totals.learned < totals.tokens);
    const QString stats = panel.statsText();
    for (const QString &part :
         {QString("3 conversations read (the whole file)"),
          QString("%1 tokens: %2 learned").arg(totals.tokens).arg(totals.learned),
          QString("%1 context").arg(totals.tokens - totals.learned),
          QString("All fit the context of 64 tokens")}) {
        QVERIFY2(stats.contains(part), qPrintable(stats + "\nmissing: " + part));
    }

    // Stepping through the conversations.
    auto *previous = panel.findChild<QToolButton *>("previousConversation");
    auto *next = panel.findChild<QToolButton *>("nextConversation");
    QVERIFY(!previous->isEnabled());
    QTest::mouseClick(next, Qt::LeftButton);
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(panel.conversationIndex(), 2);
    QVERIFY(!next->isEnabled());
    QVERIFY(panel.renderedText().contains("What is 2 plus one?"));
    QCOMPARE(highlighted(panel), QStringList{"It is 3.</s>"});
    QVERIFY2(title->text().contains("line 3"), qPrintable(title->text()));
}

void TestChatPreviewPanel::countsConversationsLongerThanTheContext() {
    ChatPreviewPanel panel;
    QSignalSpy shown(&panel, &ChatPreviewPanel::previewShown);
    // Every conversation is longer than 8 tokens, and its reply comes after the first nine.
    panel.setSource(chat_, tokenizer_, 8);
    QVERIFY(waitShown(panel, shown));
    const QString stats = panel.statsText();
    QVERIFY2(stats.contains("3 longer than the context of 8 tokens"), qPrintable(stats));
    QVERIFY2(stats.contains("3 with nothing to learn within the context"), qPrintable(stats));
}

void TestChatPreviewPanel::templateAndLearnedTokensAreChosen() {
    ChatPreviewPanel panel;
    QSignalSpy shown(&panel, &ChatPreviewPanel::previewShown);
    panel.setSource(chat_, tokenizer_, 64);
    QVERIFY(waitShown(panel, shown));
    QCOMPARE(panel.chatTemplate(), QString()); // the model's own

    shown.clear();
    panel.setTrainOn("all");
    QVERIFY(waitShown(panel, shown));
    QCOMPARE(panel.learnedParts().join(QString()), panel.renderedText());

    shown.clear();
    panel.setChatTemplate("chatml");
    QVERIFY(waitShown(panel, shown));
    QVERIFY2(panel.renderedText().contains("<|im_start|>user\nWhat is 0 plus one?<|im_end|>"),
             qPrintable(panel.renderedText()));

    headroom::Config config;
    panel.applyTo(config);
    QCOMPARE(config.text("data.chat_template"), std::string("chatml"));
    QCOMPARE(config.text("data.train_on"), std::string("all"));

    // A template file, chosen by path.
    const QString jinja = writeFile(QDir(dir_.path()), "turns.jinja",
                                    "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n"
                                    "{% endfor %}");
    shown.clear();
    panel.setChatTemplate(jinja);
    QVERIFY(waitShown(panel, shown));
    QVERIFY2(panel.renderedText().startsWith("[system] You answer briefly.\n[user] What is 0"),
             qPrintable(panel.renderedText() + panel.message()));
    QVERIFY(panel.findChild<QLineEdit *>("chatTemplateFile")->isVisibleTo(&panel));
    panel.applyTo(config);
    QCOMPARE(config.text("data.chat_template"), jinja.toStdString());
}

void TestChatPreviewPanel::badRecordsAndMissingTemplatesShowTheEnginesMessage() {
    const QString bad =
        writeFile(QDir(dir_.path()), "bad.jsonl",
                  conversation(0) + R"({"messages": [{"role": "narrator", "content": "x"}]})"
                                    "\n");
    ChatPreviewPanel panel;
    QSignalSpy shown(&panel, &ChatPreviewPanel::previewShown);
    panel.setSource(bad, tokenizer_, 64);
    QVERIFY(waitShown(panel, shown));
    QVERIFY(panel.isProblem());
    QVERIFY(!panel.hasPreview());
    QVERIFY2(panel.message().contains("bad.jsonl:2:") && panel.message().contains("unknown role"),
             qPrintable(panel.message()));
    QVERIFY(panel.statsText().isEmpty());

    shown.clear();
    panel.setSource(chat_, no_template_, 64);
    QVERIFY(waitShown(panel, shown));
    QVERIFY(panel.isProblem());
    QVERIFY2(panel.message().contains("no chat template"), qPrintable(panel.message()));
    // ChatML needs no template of the model's.
    shown.clear();
    panel.setChatTemplate("chatml");
    QVERIFY(waitShown(panel, shown));
    QVERIFY2(panel.hasPreview(), qPrintable(panel.message()));

    shown.clear();
    panel.setChatTemplate(path("nowhere.jinja"));
    QVERIFY(waitShown(panel, shown));
    QVERIFY(panel.isProblem());
    QVERIFY2(panel.message().contains("nowhere.jinja"), qPrintable(panel.message()));
}

void TestChatPreviewPanel::aModelFromScratchGetsChatmlAndANote() {
    ChatPreviewPanel panel;
    QSignalSpy shown(&panel, &ChatPreviewPanel::previewShown);
    panel.setSource(chat_, QString(), 64);
    QVERIFY(waitShown(panel, shown));
    QVERIFY(!panel.isProblem());
    QVERIFY(!panel.hasPreview());
    QVERIFY2(panel.message().contains("data.chat_template (ChatML)"), qPrintable(panel.message()));
    QCOMPARE(panel.chatTemplate(), QString("chatml"));
    // No model, so no template of its own to offer.
    auto *choices = panel.findChild<QComboBox *>("chatTemplate");
    QCOMPARE(choices->findData("model"), -1);
    headroom::Config config;
    panel.applyTo(config);
    QCOMPARE(config.text("data.chat_template"), std::string("chatml"));
    QCOMPARE(config.text("data.train_on"), std::string("assistant"));

    // With a base model, its own template comes first.
    shown.clear();
    panel.setSource(chat_, tokenizer_, 64);
    QVERIFY(waitShown(panel, shown));
    QCOMPARE(panel.chatTemplate(), QString());
    QVERIFY(panel.hasPreview());
}

void TestChatPreviewPanel::theWizardWritesTheChatKeys() {
    const QString base = test_support::writeTinyHfModel(path("tiny-gpt2"), "gpt2");
    QVERIFY(!base.isEmpty());
    QVERIFY(test_support::writeBytes(
        QDir(base).filePath("chat_template.jinja"),
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}<sep>{% endfor %}"));

    for (const bool pretrained : {false, true}) {
        ConfigWizard wizard;
        wizard.show();
        QAbstractButton *next = wizard.button(QWizard::NextButton);
        QTRY_VERIFY_WITH_TIMEOUT(next->isEnabled(), kTimeout);
        wizard.next();
        QCOMPARE(wizard.currentId(), int(ConfigWizard::Data));
        headroom::ui::DataPage *page = wizard.dataPage();
        ChatPreviewPanel *panel = page->chatPreview();
        wizard.startFromScratch();
        wizard.setDataPath(chat_);
        if (pretrained) {
            wizard.setBaseFolder(base);
            QTRY_VERIFY_WITH_TIMEOUT(page->baseModelBox()->isReady(), kTimeout);
            QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview() || panel->isProblem(), kTimeout);
            QVERIFY2(panel->hasPreview(), qPrintable(panel->message()));
            QVERIFY(panel->renderedText().startsWith("<system>You answer briefly.<sep>"));
            panel->setTrainOn("last_assistant");
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(page->isChatData() && !panel->message().isEmpty(), kTimeout);
            QVERIFY2(panel->message().contains("ChatML"), qPrintable(panel->message()));
        }
        // The chat panel takes the token preview's place.
        QVERIFY(panel->isVisible());
        QVERIFY(!page->tokenPreview()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(next->isEnabled(), kTimeout);
        wizard.next();
        QVERIFY(wizard.currentId() != int(ConfigWizard::Data));
        const headroom::Config &config = wizard.settings().config;
        QCOMPARE(config.text("data.chat_template"), std::string(pretrained ? "" : "chatml"));
        QCOMPARE(config.text("data.train_on"),
                 std::string(pretrained ? "last_assistant" : "assistant"));
    }
}

QTEST_MAIN(TestChatPreviewPanel)
#include "test_chat_preview_panel.moc"
