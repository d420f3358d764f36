// The config wizard with a BERT-family base: recipe=splade, the retrieval data format on the
// data page, retrieval records read and shown, no LoRA, the planner's refusal shown as text,
// and the project createProject writes. A causal base trains as recipe=causal_lm and hides the
// hint.
#include "retrieval_samples.h"
#include "sample_files.h"
#include "tiny_hf_model.h"
#include "wizard/BaseModelBox.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"
#include "wizard/MemoryBarsWidget.h"
#include "wizard/MemoryPlanPage.h"
#include "wizard/ModelSizePage.h"
#include "wizard/ReviewPage.h"
#include "wizard/TokenPreviewPanel.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <QAbstractButton>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::ConfigWizard;

namespace {
constexpr int kTimeout = 60000;

QString text(const QWidget *widget, const char *name) {
    return widget->findChild<QLabel *>(name)->text();
}
} // namespace

class TestSpladeWizard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void anEncoderFolderTrainsSplade();
    void aCausalBaseKeepsGpt();
    void textDataIsRefusedWithTheFormat();
    void wholeWizardCreatesASpladeProject();

private:
    bool toDataPage(ConfigWizard &wizard, const QString &data, const QString &base);
    bool next(ConfigWizard &wizard);

    QTemporaryDir dir_;
    QString bert_;
    QString gpt2_;
    QString pairs_;
};

void TestSpladeWizard::initTestCase() {
    QVERIFY(dir_.isValid());
    bert_ = test_support::encoderReferenceBert();
    if (bert_.isEmpty()) {
        QSKIP("no encoder reference folders: run tests/interop/encoder/setup.sh");
    }
    gpt2_ = test_support::writeTinyHfModel(dir_.filePath("tiny-gpt2"), "gpt2");
    pairs_ = test_support::writeFile(QDir(dir_.path()), "pairs.json",
                                     test_support::retrievalRecords(40));
    QVERIFY(!gpt2_.isEmpty() && !pairs_.isEmpty());
}

bool TestSpladeWizard::next(ConfigWizard &wizard) {
    QAbstractButton *next = wizard.button(QWizard::NextButton);
    if (!QTest::qWaitFor([next] { return next->isEnabled(); }, kTimeout)) {
        qWarning() << "Next stays disabled on page" << wizard.currentId()
                   << text(&wizard, "baseDetails") << text(&wizard, "dataStatus");
        return false;
    }
    const int before = wizard.currentId();
    wizard.next();
    return wizard.currentId() != before;
}

bool TestSpladeWizard::toDataPage(ConfigWizard &wizard, const QString &data, const QString &base) {
    wizard.show();
    if (!next(wizard) || wizard.currentId() != ConfigWizard::Data) {
        return false;
    }
    wizard.setDataPath(data);
    wizard.setBaseFolder(base);
    return true;
}

void TestSpladeWizard::anEncoderFolderTrainsSplade() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, pairs_, bert_));
    auto *page = wizard.dataPage();
    QTRY_VERIFY_WITH_TIMEOUT(page->baseModelBox()->isReady(), kTimeout);
    QVERIFY(page->isRetrievalEncoder());
    const QString details = text(&wizard, "baseDetails");
    QVERIFY2(details.contains("BertForMaskedLM") && details.contains("SPLADE"),
             qPrintable(details));
    // What the data must look like, before the user has to guess from an error.
    auto *format = wizard.findChild<QLabel *>("retrievalFormat");
    QVERIFY(format->isVisible());
    for (const char *field :
         {"\"query\"", "\"positive\"", "\"positives\"", "\"negatives\"", "JSONL", "JSON array"}) {
        QVERIFY2(format->text().contains(field), field);
    }
    // The retrieval records read cleanly (as splade reads them) and show as records.
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
    QCOMPARE(page->problem(), QString());
    // The token preview measures a causal model's text: not shown for retrieval records.
    QVERIFY(!page->tokenPreview()->isVisible());
    QVERIFY2(text(&wizard, "dataSummary").startsWith("JSON file, 40 records"),
             qPrintable(text(&wizard, "dataSummary")));
    const QStringList preview =
        wizard.findChild<QPlainTextEdit *>("dataPreview")->toPlainText().split('\n');
    QVERIFY2(preview.size() >= 3, qPrintable(preview.join('|')));
    QCOMPARE(preview.first(), QString("query: hello york | positive: hello world york | "
                                      "negatives: world world"));
    QVERIFY(wizard.validateCurrentPage());
    QCOMPARE(wizard.settings().config.text("recipe"), std::string("splade"));
    QCOMPARE(wizard.settings().config.text("lora.rank"), std::string("0"));
    QCOMPARE(wizard.settings().config.text("model.seq_len"), std::string("64")); // the context
}

void TestSpladeWizard::aCausalBaseKeepsGpt() {
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(100));
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, corpus, gpt2_));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.dataPage()->baseModelBox()->isReady(), kTimeout);
    QVERIFY(!wizard.dataPage()->isRetrievalEncoder());
    QVERIFY(!wizard.findChild<QLabel *>("retrievalFormat")->isVisible());
    QVERIFY(!text(&wizard, "baseDetails").contains("SPLADE"));
    QVERIFY(next(wizard));
    QCOMPARE(wizard.settings().config.text("recipe"), std::string("causal_lm"));
    QCOMPARE(wizard.settings().config.text("lora.rank"), std::string("8"));
}

void TestSpladeWizard::textDataIsRefusedWithTheFormat() {
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "plain.txt", test_support::storyText(20));
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, corpus, bert_));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.dataPage()->baseModelBox()->isReady(), kTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(!wizard.dataPage()->isChecking(), kTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(!wizard.dataPage()->problem().isEmpty(), kTimeout);
    const QString problem = wizard.dataPage()->problem();
    QVERIFY2(problem.contains("JSON"), qPrintable(problem));
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
}

void TestSpladeWizard::wholeWizardCreatesASpladeProject() {
    QTemporaryDir project_dir;
    const QString data = test_support::writeFile(QDir(project_dir.path()), "pairs.json",
                                                 test_support::retrievalRecords(40));
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, data, bert_));
    QVERIFY(next(wizard));

    // (c) The encoder's size is given; a query or passage keeps at most its context.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::ModelSize));
    auto *context = wizard.findChild<QSpinBox *>("contextLength");
    QCOMPARE(context->maximum(), 64);
    QVERIFY2(wizard.modelSizePage()->subTitle().contains("passage"),
             qPrintable(wizard.modelSizePage()->subTitle()));
    context->setValue(16);
    QVERIFY(next(wizard));

    // (d) Every weight trains: no LoRA box. The planner's estimate or, where it cannot
    // estimate a SPLADE encoder, its reason and the weights' size, never empty bars alone.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::MemoryPlan));
    QVERIFY(!wizard.findChild<QGroupBox *>("fineTuning")->isVisible());
    const QString verdict = text(&wizard, "verdict");
    QVERIFY(!verdict.isEmpty());
    if (wizard.memoryPlanPage()->bars()->total() == 0) {
        QVERIFY2(verdict.contains("The weights alone take"), qPrintable(verdict));
        QVERIFY(!wizard.findChild<QAbstractButton *>("verify")->isEnabled());
    }
    QVERIFY(next(wizard));

    // (e) Review: the SPLADE keys, not LoRA's.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::Review));
    const QString review = wizard.findChild<QPlainTextEdit *>("reviewSettings")->toPlainText();
    for (const char *line : {"recipe = splade", "tokenizer = base", "model.seq_len = 16",
                             "splade.lambda_q = ", "train.lr = 0.00002"}) {
        QVERIFY2(review.contains(line), qPrintable(review));
    }
    QVERIFY2(!review.contains("lora."), qPrintable(review));
    wizard.reviewPage()->setProjectPath(QDir(project_dir.path()).filePath("search.headroom"));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY2(accepted.wait(kTimeout), qPrintable(wizard.reviewPage()->errorText()));

    const headroom::Config config = headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
    QCOMPARE(QString::fromStdString(config.text("recipe")), QString("splade"));
    QCOMPARE(QString::fromStdString(config.text("model.seq_len")), QString("16"));
    QCOMPARE(QString::fromStdString(config.text("lora.rank")), QString("0"));
    QCOMPARE(QString::fromStdString(config.text("data.path")), QString("pairs.json"));
    QCOMPARE(QDir(QString::fromStdString(config.text("model.base"))).isAbsolute(), true);
}

QTEST_MAIN(TestSpladeWizard)
#include "test_splade_wizard.moc"
