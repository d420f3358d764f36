// The config wizard (File → New): keyboard and mouse from hardware to a project file, bad data
// blocking Next, technique toggles re-estimating the bars, and Verify (auto-fit) with cancel.
#include "sample_files.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"
#include "wizard/HardwarePage.h"
#include "wizard/MemoryBarsWidget.h"
#include "wizard/MemoryPlanPage.h"
#include "wizard/ModelSizePage.h"
#include "wizard/ReviewPage.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::ConfigWizard;
using headroom::ui::MemoryBarsWidget;
using test_support::writeFile;

namespace {
constexpr int kTimeout = 60000;
} // namespace

class TestConfigWizard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void wholeWizardByKeyboardAndMouse();
    void tabularWizardUsesTheChosenTarget();
    void droppingAFileOnTheDataPage();
    void badDataBlocksNextWithTheReason_data();
    void badDataBlocksNextWithTheReason();
    void togglingATechniqueChangesTheBars_data();
    void togglingATechniqueChangesTheBars();
    void recommendedPlanFitsATightBudget();
    void verifyAppliesTheFittedMicroBatch();
    void verifyCanBeCancelled();
    void creationErrorsKeepTheWizardOpen();
    void measuringSpeedFeedsThePlan();

private:
    // Fills pages a-c with the tiny GPT on the corpus and moves to `page`.
    bool goTo(ConfigWizard &wizard, int page, const QString &data = {});
    QWidget *focused() const { return QApplication::focusWidget(); }

    QTemporaryDir dir_;
    QString corpus_;
    QString table_;
};

void TestConfigWizard::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    table_ = writeFile(QDir(dir_.path()), "table.csv", test_support::tabularCsv(80));
}

bool TestConfigWizard::goTo(ConfigWizard &wizard, int page, const QString &data) {
    wizard.startFromScratch();
    wizard.setDataPath(data.isEmpty() ? corpus_ : data);
    while (wizard.currentId() < page) {
        QAbstractButton *next = wizard.button(QWizard::NextButton);
        if (!QTest::qWaitFor([next] { return next->isEnabled(); }, kTimeout)) {
            qWarning() << "Next stays disabled on page" << wizard.currentId()
                       << wizard.findChild<QLabel *>("parameterCount")->text()
                       << wizard.findChild<QLabel *>("dataStatus")->text();
            return false;
        }
        if (wizard.currentId() == ConfigWizard::ModelSize) {
            wizard.modelSizePage()->selectPreset("tiny");
        }
        wizard.next();
    }
    return wizard.currentId() == page;
}

void TestConfigWizard::wholeWizardByKeyboardAndMouse() {
    ConfigWizard wizard;
    wizard.show();
    wizard.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&wizard));
    QAbstractButton *next = wizard.button(QWizard::NextButton);

    // (a) Hardware: this machine's first device, budget typed as 3 GiB.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::Hardware));
    QTest::keyClick(&wizard, Qt::Key_B, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("budget"));
    QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(focused(), "3");
    QCOMPARE(wizard.hardwarePage()->budgetBytes(), quint64(3) << 30);
    // A button's mnemonic clicks it "animated", after a short delay.
    QTest::keyClick(&wizard, Qt::Key_N, Qt::AltModifier);
    QTRY_COMPARE(wizard.currentId(), int(ConfigWizard::Data));

    // (b) Data: a GPT from scratch instead of the default pretrained model, the path typed;
    // Next waits for the check.
    QTest::keyClick(&wizard, Qt::Key_R, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("recipe"));
    QCOMPARE(wizard.findChild<QComboBox *>("recipe")->currentData().toString(),
             QString("pretrained"));
    QTest::keyClick(focused(), Qt::Key_Down);
    QCOMPARE(wizard.findChild<QComboBox *>("recipe")->currentData().toString(), QString("gpt"));
    QTest::keyClick(&wizard, Qt::Key_D, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("dataPath"));
    QTest::keyClicks(focused(), corpus_);
    QTRY_VERIFY_WITH_TIMEOUT(next->isEnabled(), kTimeout);
    const auto *preview = wizard.findChild<QWidget *>("dataPreview");
    QVERIFY(preview->isVisible());
    QVERIFY(wizard.findChild<QLabel *>("dataSummary")->text().contains("200"));
    QTest::keyClick(&wizard, Qt::Key_N, Qt::AltModifier);
    QTRY_COMPARE(wizard.currentId(), int(ConfigWizard::ModelSize));

    // (c) Model size: the first preset (tiny) by keyboard, context 32.
    QTest::keyClick(&wizard, Qt::Key_S, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("preset"));
    const qint64 small_parameters = wizard.modelSizePage()->parameterCount();
    QTest::keyClick(focused(), Qt::Key_Home);
    const qint64 tiny_parameters = wizard.modelSizePage()->parameterCount();
    QVERIFY(tiny_parameters > 0);
    QVERIFY(tiny_parameters < small_parameters);
    QTest::keyClick(&wizard, Qt::Key_C, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("contextLength"));
    QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(focused(), "32");
    QTRY_VERIFY(wizard.findChild<QLabel *>("parameterCount")->text().contains("parameters"));
    QTest::keyClick(&wizard, Qt::Key_N, Qt::AltModifier);
    QTRY_COMPARE(wizard.currentId(), int(ConfigWizard::MemoryPlan));

    // (d) Memory plan: 8-bit AdamW by mouse, micro-batch by keyboard.
    auto *adamw8bit = wizard.findChild<QCheckBox *>("adamw8bit");
    QTest::mouseClick(adamw8bit, Qt::LeftButton, {}, QPoint(8, adamw8bit->height() / 2));
    QVERIFY(adamw8bit->isChecked());
    QTest::keyClick(&wizard, Qt::Key_M, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("microBatch"));
    QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(focused(), "6");
    QTest::keyClick(&wizard, Qt::Key_N, Qt::AltModifier);
    QTRY_COMPARE(wizard.currentId(), int(ConfigWizard::Review));

    // (e) Review: the settings shown, a typed project path, Finish by keyboard.
    const QString review =
        wizard.findChild<QWidget *>("reviewSettings")->property("plainText").toString();
    QVERIFY2(review.contains("optimizer = adamw8bit"), qPrintable(review));
    QVERIFY2(review.contains("model.seq_len = 32"), qPrintable(review));
    QTest::keyClick(&wizard, Qt::Key_P, Qt::AltModifier);
    QCOMPARE(focused()->objectName(), QString("projectPath"));
    QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier);
    const QString project_path = dir_.filePath("by-keyboard");
    QTest::keyClicks(focused(), project_path);
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    QTest::keyClick(&wizard, Qt::Key_F, Qt::AltModifier);
    QVERIFY(accepted.wait(kTimeout));
    QCOMPARE(wizard.projectPath(), project_path + ".headroom");

    const headroom::Project project = headroom::Project::open(wizard.projectPath().toStdString());
    const headroom::Config config = headroom::Config::fromJson(project.configJson());
    const std::pair<const char *, std::string> expected[] = {
        {"recipe", "gpt"},
        {"memory.budget", "3072MiB"},
        {"device", wizard.settings().profile.device},
        {"tokenizer", "byte"},
        {"model.layers", "2"},
        {"model.heads", "2"},
        {"model.dim", "64"},
        {"model.seq_len", "32"},
        {"optimizer", "adamw8bit"},
        {"train.micro_batch", "6"},
        {"data.path", "corpus.txt"}};
    for (const auto &[key, value] : expected) {
        QCOMPARE(QString::fromStdString(config.text(key)), QString::fromStdString(value));
    }
}

void TestConfigWizard::tabularWizardUsesTheChosenTarget() {
    ConfigWizard wizard;
    wizard.show();
    wizard.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&wizard));
    QVERIFY(goTo(wizard, ConfigWizard::Data, table_)); // a CSV picks the tabular recipe
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
    auto *target = wizard.findChild<QComboBox *>("target");
    QVERIFY(target->isVisible());
    QVERIFY(!wizard.findChild<QComboBox *>("tokenizer")->isVisible());
    QCOMPARE(target->count(), 4); // x, y, colour, label from the header
    QCOMPARE(target->currentText(), QString("label"));
    QCOMPARE(wizard.settings().facts.outputs, 2); // high, low
    // The column before the last by keyboard: a new schema (three colours) is inferred.
    QTest::keyClick(&wizard, Qt::Key_A, Qt::AltModifier);
    QCOMPARE(focused(), target);
    QTest::keyClick(target, Qt::Key_Up);
    QCOMPARE(target->currentText(), QString("colour"));
    QTRY_COMPARE_WITH_TIMEOUT(wizard.settings().facts.outputs, 3, kTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
    wizard.next();
    QCOMPARE(wizard.currentId(), int(ConfigWizard::ModelSize));
    QVERIFY(wizard.modelSizePage()->selectPreset("small"));
    QCOMPARE(wizard.findChild<QLineEdit *>("hiddenWidths")->text(), QString("64,32"));
    QVERIFY(wizard.modelSizePage()->parameterCount() > 0);
    wizard.next();
    QVERIFY(!wizard.findChild<QCheckBox *>("checkpointing")->isEnabled()); // gpt only
    wizard.next();
    wizard.reviewPage()->setProjectPath(dir_.filePath("tabular.headroom"));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY(accepted.wait(kTimeout));
    const headroom::Config config = headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
    QCOMPARE(QString::fromStdString(config.text("recipe")), QString("tabular"));
    QCOMPARE(QString::fromStdString(config.text("data.target")), QString("colour"));
    QCOMPARE(QString::fromStdString(config.text("model.hidden")), QString("64,32"));
}

void TestConfigWizard::droppingAFileOnTheDataPage() {
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::Data));
    auto *page = wizard.dataPage();
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(table_)});
    const QPoint centre = page->rect().center();
    QDragEnterEvent enter(centre, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(centre, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &drop);
    QCOMPARE(wizard.findChild<QLineEdit *>("dataPath")->text(), table_);
    QCOMPARE(wizard.findChild<QComboBox *>("recipe")->currentData().toString(), QString("tabular"));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
}

void TestConfigWizard::badDataBlocksNextWithTheReason_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("contents"); // empty: not created
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QStringList>("reasonParts");
    QTest::newRow("missing file") << "nowhere.txt" << QByteArray() << "gpt"
                                  << QStringList{"nowhere.txt", "no such file"};
    QTest::newRow("ragged csv") << "ragged.csv" << QByteArray("a,b,label\n1,2,x\n3\n") << "tabular"
                                << QStringList{"ragged.csv"};
    QTest::newRow("malformed jsonl")
        << "bad.jsonl" << QByteArray("{\"text\":\"fine\"}\n{\"text\":\n") << "gpt"
        << QStringList{"bad.jsonl:2"};
}

void TestConfigWizard::badDataBlocksNextWithTheReason() {
    QFETCH(QString, file);
    QFETCH(QByteArray, contents);
    QFETCH(QString, recipe);
    QFETCH(QStringList, reasonParts);
    const QString path =
        contents.isEmpty() ? dir_.filePath(file) : writeFile(QDir(dir_.path()), file, contents);
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::Data, path));
    auto *page = wizard.dataPage();
    QSignalSpy checked(page, &headroom::ui::DataPage::checked);
    QVERIFY(checked.wait(kTimeout));
    QVERIFY(!page->isChecking());
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
    auto *status = wizard.findChild<QLabel *>("dataStatus");
    QVERIFY(status->isVisible());
    QCOMPARE(status->text(), page->problem());
    for (const QString &part : reasonParts) {
        QVERIFY2(status->text().contains(part), qPrintable(status->text()));
    }
    Q_UNUSED(recipe);

    // A good file unblocks the page.
    wizard.setDataPath(path.endsWith(".csv") ? table_ : corpus_);
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
    QVERIFY(page->problem().isEmpty());
}

void TestConfigWizard::togglingATechniqueChangesTheBars_data() {
    QTest::addColumn<QString>("control");
    QTest::addColumn<int>("part");
    QTest::newRow("checkpointing") << "checkpointing" << int(MemoryBarsWidget::Activations);
    QTest::newRow("8-bit AdamW") << "adamw8bit" << int(MemoryBarsWidget::Optimizer);
    QTest::newRow("smaller micro-batch") << "microBatch" << int(MemoryBarsWidget::Activations);
}

void TestConfigWizard::togglingATechniqueChangesTheBars() {
    QFETCH(QString, control);
    QFETCH(int, part);
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::MemoryPlan));
    const MemoryBarsWidget *bars = wizard.memoryPlanPage()->bars();
    const QVector<quint64> before = bars->parts();
    QVERIFY(bars->total() > 0);
    QCOMPARE(bars->budget(), wizard.settings().profile.budget_bytes);
    if (control == "microBatch") {
        auto *spin = wizard.findChild<QSpinBox *>(control);
        spin->setValue(spin->value() / 2);
    } else {
        auto *box = wizard.findChild<QCheckBox *>(control);
        QVERIFY(!box->isChecked());
        box->click();
    }
    const QVector<quint64> after = bars->parts();
    QVERIFY2(after[part] < before[part],
             qPrintable(QString("%1 -> %2").arg(before[part]).arg(after[part])));
}

void TestConfigWizard::recommendedPlanFitsATightBudget() {
    ConfigWizard wizard;
    wizard.show();
    wizard.startFromScratch();
    wizard.setDataPath(corpus_);
    // A budget the tiny model at micro-batch 48 does not fit in as configured.
    wizard.hardwarePage()->setBudgetBytes(quint64(32) << 20);
    QVERIFY(goTo(wizard, ConfigWizard::ModelSize));
    wizard.modelSizePage()->selectPreset("small");
    QVERIFY(goTo(wizard, ConfigWizard::MemoryPlan));
    auto *page = wizard.memoryPlanPage();
    wizard.findChild<QSpinBox *>("microBatch")->setValue(48);
    QCOMPARE(page->verdict(), headroom::ui::MemoryPlanPage::Verdict::DoesNotFit);
    QVERIFY(wizard.findChild<QLabel *>("verdict")->text().contains("Won't fit"));
    page->useRecommendedPlan();
    QVERIFY(page->verdict() != headroom::ui::MemoryPlanPage::Verdict::DoesNotFit);
    QVERIFY(page->bars()->total() <= page->bars()->budget());
}

void TestConfigWizard::verifyAppliesTheFittedMicroBatch() {
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::MemoryPlan));
    auto *page = wizard.memoryPlanPage();
    auto *micro_batch = wizard.findChild<QSpinBox *>("microBatch");
    auto *accumulation = wizard.findChild<QSpinBox *>("accumulation");
    micro_batch->setValue(2);
    accumulation->setValue(4);
    QSignalSpy ended(page, &headroom::ui::MemoryPlanPage::verifyEnded);
    QSignalSpy complete(page, &QWizardPage::completeChanged);
    wizard.findChild<QAbstractButton *>("verify")->click();
    QVERIFY(page->isVerifying());
    QVERIFY(!page->isComplete());
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
    QVERIFY(ended.wait(kTimeout));
    QVERIFY(page->isComplete());
    QVERIFY(wizard.button(QWizard::NextButton)->isEnabled());
    const QString status = wizard.findChild<QLabel *>("verifyStatus")->text();
    QVERIFY2(status.startsWith("Verified"), qPrintable(status));
    QVERIFY(!wizard.findChild<QLabel *>("probes")->text().isEmpty());
    // The effective batch stays 8; the fitted micro-batch is in the controls and settings.
    QCOMPARE(micro_batch->value() * accumulation->value(), 8);
    QVERIFY2(status.contains(QString("micro-batch %1 ").arg(micro_batch->value())),
             qPrintable(status));
    QCOMPARE(wizard.settings().config.integer("train.micro_batch"), qint64(micro_batch->value()));
    QVERIFY(micro_batch->value() > 2); // a tiny model on this machine's budget fits more
}

void TestConfigWizard::verifyCanBeCancelled() {
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::MemoryPlan));
    auto *page = wizard.memoryPlanPage();
    const qint64 micro_batch = wizard.settings().config.integer("train.micro_batch");
    QSignalSpy ended(page, &headroom::ui::MemoryPlanPage::verifyEnded);
    wizard.findChild<QAbstractButton *>("verify")->click();
    QVERIFY(page->isVerifying());
    wizard.findChild<QAbstractButton *>("cancelVerify")->click();
    QVERIFY(ended.wait(kTimeout));
    QVERIFY(!page->isVerifying());
    QVERIFY(page->isComplete());
    QVERIFY(wizard.findChild<QLabel *>("verifyStatus")->text().contains("cancelled"));
    QCOMPARE(wizard.settings().config.integer("train.micro_batch"), micro_batch);
}

void TestConfigWizard::creationErrorsKeepTheWizardOpen() {
    const QString existing = writeFile(QDir(dir_.path()), "taken.headroom", "not a project");
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(goTo(wizard, ConfigWizard::Review));
    wizard.reviewPage()->setProjectPath(existing);
    QSignalSpy ended(wizard.reviewPage(), &headroom::ui::ReviewPage::creationEnded);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY(wizard.reviewPage()->isCreating());
    QVERIFY(!wizard.button(QWizard::CancelButton)->isEnabled());
    QVERIFY(!wizard.button(QWizard::BackButton)->isEnabled());
    wizard.reject(); // Escape while the file is written: ignored
    QVERIFY(wizard.isVisible());
    QVERIFY(ended.wait(kTimeout));
    QVERIFY(wizard.isVisible());
    QVERIFY(wizard.button(QWizard::CancelButton)->isEnabled());
    QVERIFY(wizard.button(QWizard::BackButton)->isEnabled());
    const QString error = wizard.reviewPage()->errorText();
    QVERIFY2(error.contains("taken.headroom") && error.contains("already exists"),
             qPrintable(error));
    QVERIFY(wizard.findChild<QLabel *>("reviewStatus")->isVisible());
}

void TestConfigWizard::measuringSpeedFeedsThePlan() {
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    const QByteArray previous_cache = qgetenv("HEADROOM_CACHE_DIR");
    qputenv("HEADROOM_CACHE_DIR", cache.path().toUtf8());
    ConfigWizard wizard;
    wizard.show();
    const auto *speed = wizard.findChild<QLabel *>("speedCalibration");
    auto *measure = wizard.findChild<QAbstractButton *>("measureSpeed");
    QVERIFY(speed && measure);
    QVERIFY2(speed->text().contains("Not calibrated"), qPrintable(speed->text()));
    QVERIFY(measure->isEnabled());
    measure->click();
    QVERIFY(!measure->isEnabled()); // while measuring, off the GUI thread
    QTRY_VERIFY_WITH_TIMEOUT(speed->text().contains("GFLOP/s"), kTimeout);
    QVERIFY(measure->isEnabled());
    // The CPU's calibration says which GEMM it timed (the plan's speeds hold for that one).
    QVERIFY2(speed->text().contains("fp32 matrix products run through "),
             qPrintable(speed->text()));
    QVERIFY(goTo(wizard, ConfigWizard::MemoryPlan));
    const auto *recommendation = wizard.findChild<QLabel *>("recommendation");
    QVERIFY(recommendation);
    QTRY_VERIFY2(recommendation->text().contains("Predicted step time"),
                 qPrintable(recommendation->text()));
    qputenv("HEADROOM_CACHE_DIR", previous_cache);
}

QTEST_MAIN(TestConfigWizard)
#include "test_config_wizard.moc"
