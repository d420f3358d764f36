// The wizard's data page shows a sample line tokenized (chips with ids and pieces, stepping
// through samples) and the tokens-per-line statistics, for the byte tokenizer, SentencePiece
// and a pretrained base's tokenizer; a clear message in their place when there is a problem.
#include "sample_files.h"
#include "tiny_hf_model.h"
#include "wizard/BaseModelBox.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"
#include "wizard/TokenChips.h"
#include "wizard/TokenPreviewPanel.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using headroom::ui::ConfigWizard;
using headroom::ui::TokenChips;
using headroom::ui::TokenPreviewPanel;
using test_support::writeFile;

namespace {
constexpr int kTimeout = 60000;
} // namespace

class TestTokenPreviewPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void byteTokensAndStatisticsOfATextFile();
    void promptTokensOfInstructionRecords();
    void sentencePieceIsTrainedForThePreview();
    void pretrainedBaseTokenizesWithItsTokenizer();
    void missingFileShowsTheProblemInPlace();
    void longLinesAreCountedAndScroll();

private:
    // Opens the data page on `data` and waits until the token preview shows something.
    TokenPreviewPanel *openDataPage(ConfigWizard &wizard, const QString &data);
    QString statsText(ConfigWizard &wizard) const {
        return wizard.findChild<QLabel *>("tokenStats")->text();
    }

    QTemporaryDir dir_;
    QString lines_;
    QString pairs_;
};

void TestTokenPreviewPage::initTestCase() {
    QLocale::setDefault(QLocale::c());
    QVERIFY(dir_.isValid());
    // Byte tokens per line, newline included: 3, 1, 6, 7, 11.
    lines_ = writeFile(QDir(dir_.path()), "lines.txt", "ab\n\nhello\nh\xC3\xA9llo\nabcdefghij\n");
    pairs_ = writeFile(QDir(dir_.path()), "pairs.jsonl",
                       "{\"prompt\":\"Q: 2+2?\",\"completion\":\" 4\"}\n"
                       "{\"prompt\":\"Hi\",\"completion\":\"yo\"}\n");
}

TokenPreviewPanel *TestTokenPreviewPage::openDataPage(ConfigWizard &wizard, const QString &data) {
    wizard.show();
    QAbstractButton *next = wizard.button(QWizard::NextButton);
    if (!QTest::qWaitFor([next] { return next->isEnabled(); }, kTimeout)) {
        return nullptr;
    }
    wizard.next();
    if (wizard.currentId() != ConfigWizard::Data) {
        return nullptr;
    }
    wizard.startFromScratch();
    wizard.setDataPath(data);
    return wizard.dataPage()->tokenPreview();
}

void TestTokenPreviewPage::byteTokensAndStatisticsOfATextFile() {
    ConfigWizard wizard;
    TokenPreviewPanel *panel = openDataPage(wizard, lines_);
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview(), kTimeout);
    QVERIFY(panel->isVisible());
    QVERIFY(!panel->isProblem());
    // The first non-empty line: "ab" and its newline, one chip per byte with its id.
    const std::vector<TokenChips::Chip> &chips = panel->chips()->chips();
    QCOMPARE(chips.size(), std::size_t{3});
    QCOMPARE(chips[0].id, 97);
    QCOMPARE(chips[0].piece, QString("a"));
    QCOMPARE(TokenChips::visiblePiece(chips[2].piece), QString("↵"));
    QVERIFY(panel->chips()->isVisible());
    QVERIFY(panel->chips()->height() > 0);
    auto *sample = wizard.findChild<QLabel *>("tokenSample");
    QVERIFY2(sample->text().contains("line 1"), qPrintable(sample->text()));

    const QString stats = statsText(wizard);
    for (const QString &part : {QString("5 lines read (the whole file)"),
                                QString("mean 5.6 · median 6.0 · p95 11 · max 11"),
                                QString("0.96 characters per token")}) {
        QVERIFY2(stats.contains(part), qPrintable(stats));
    }
    QVERIFY2(stats.contains("All fit the context of 64 tokens"), qPrintable(stats));

    // Stepping: the empty line is skipped; é is two bytes shown as hex.
    auto *previous = wizard.findChild<QToolButton *>("previousSample");
    auto *next = wizard.findChild<QToolButton *>("nextSample");
    QVERIFY(!previous->isEnabled());
    QTest::mouseClick(next, Qt::LeftButton);
    QVERIFY2(sample->text().contains("line 3"), qPrintable(sample->text()));
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(panel->chips()->chips()[1].piece, QString("<0xC3>"));
    QTest::mouseClick(next, Qt::LeftButton);
    QVERIFY(!next->isEnabled());
    QTest::mouseClick(previous, Qt::LeftButton);
    QCOMPARE(panel->sampleIndex(), 2);
}

void TestTokenPreviewPage::promptTokensOfInstructionRecords() {
    ConfigWizard wizard;
    TokenPreviewPanel *panel = openDataPage(wizard, pairs_);
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview(), kTimeout);
    const std::vector<TokenChips::Chip> &chips = panel->chips()->chips();
    QCOMPARE(chips.size(), std::size_t{10}); // prompt, completion, end-of-text
    QVERIFY(chips[6].prompt);
    QVERIFY(!chips[7].prompt);
    QVERIFY(chips.back().special);
    const QString stats = statsText(wizard);
    QVERIFY2(stats.contains("2 records read"), qPrintable(stats));
    QVERIFY2(stats.contains("tokens per record: mean 7.5 · median 7.5 · p95 10 · max 10"),
             qPrintable(stats));
    auto *sample = wizard.findChild<QLabel *>("tokenSample");
    QVERIFY2(sample->text().contains("10 tokens (7 in the prompt)"), qPrintable(sample->text()));
}

void TestTokenPreviewPage::sentencePieceIsTrainedForThePreview() {
#ifdef __SANITIZE_ADDRESS__
    QSKIP("SentencePiece cannot be loaded under AddressSanitizer (RTLD_DEEPBIND)");
#endif
    const QString story = writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(200));
    ConfigWizard wizard;
    TokenPreviewPanel *panel = openDataPage(wizard, story);
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview(), kTimeout);
    auto *tokenizer = wizard.findChild<QComboBox *>("tokenizer");
    tokenizer->setCurrentIndex(tokenizer->findData("bpe"));
    QTRY_VERIFY_WITH_TIMEOUT(statsText(wizard).contains("BPE tokenizer was trained"), kTimeout);
    QVERIFY(panel->hasPreview());
    // Whole words, not bytes: far fewer chips than the line's 29 bytes.
    QVERIFY(panel->chips()->chips().size() < 20);
    QString spelled;
    for (const TokenChips::Chip &chip : panel->chips()->chips()) {
        spelled += chip.special ? QString() : chip.piece;
    }
    QCOMPARE(spelled, QString("The fox found the brass key."));
}

void TestTokenPreviewPage::pretrainedBaseTokenizesWithItsTokenizer() {
    const QString base = test_support::writeTinyHfModel(dir_.filePath("tiny-gpt2"), "gpt2");
    QVERIFY(!base.isEmpty());
    ConfigWizard wizard;
    TokenPreviewPanel *panel = openDataPage(wizard, lines_);
    QVERIFY(panel);
    wizard.setBaseFolder(base);
    QTRY_VERIFY_WITH_TIMEOUT(wizard.dataPage()->baseModelBox()->isReady(), kTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview() && !wizard.dataPage()->isTokenizing(), kTimeout);
    const std::vector<TokenChips::Chip> &chips = panel->chips()->chips();
    QVERIFY(!chips.empty());
    // The vocabulary's own spelling, and the model's end-of-sequence id (340) closing the line.
    QCOMPARE(chips.back().id, 340);
    QVERIFY(chips.back().special);
    QCOMPARE(chips.back().piece, QString("<sep>"));
    QVERIFY2(statsText(wizard).contains("5 lines read"), qPrintable(statsText(wizard)));
}

void TestTokenPreviewPage::missingFileShowsTheProblemInPlace() {
    ConfigWizard wizard;
    TokenPreviewPanel *panel = openDataPage(wizard, dir_.filePath("nowhere.txt"));
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->isProblem(), kTimeout);
    QVERIFY(!panel->hasPreview());
    auto *message = wizard.findChild<QLabel *>("tokenMessage");
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains("nowhere.txt") && message->text().contains("no such file"),
             qPrintable(message->text()));
    QVERIFY(statsText(wizard).isEmpty());
    // A good file replaces the message with tokens.
    wizard.setDataPath(lines_);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview(), kTimeout);
    QVERIFY(!panel->isProblem());
}

void TestTokenPreviewPage::longLinesAreCountedAndScroll() {
    QByteArray longer;
    for (int i = 0; i < 30; ++i) {
        longer += "A rather long line of text number " + QByteArray::number(i) +
                  " that does not fit a context of sixty-four bytes at all.\n";
    }
    ConfigWizard wizard;
    TokenPreviewPanel *panel =
        openDataPage(wizard, writeFile(QDir(dir_.path()), "long.txt", longer));
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasPreview(), kTimeout);
    QVERIFY2(statsText(wizard).contains("30 lines longer than the context of 64 tokens"),
             qPrintable(statsText(wizard)));
    // All rows of chips can be scrolled to: the chips are as tall as their rows need.
    TokenChips *chips = panel->chips();
    QTRY_VERIFY(chips->height() >= chips->heightForWidth(chips->width()));
    QVERIFY(chips->height() > chips->parentWidget()->height());
}

QTEST_MAIN(TestTokenPreviewPage)
#include "test_token_preview_page.moc"
