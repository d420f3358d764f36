// The memory plan page's comparison tables: the planner's whole time-memory table (a row used
// sets its techniques and batch) and, for a Mixture-of-Experts GPT chosen on the model page,
// the model changes it prices (fewer experts, lower top-k, ...), applied only on request.
#include "sample_files.h"
#include "wizard/ConfigWizard.h"
#include "wizard/HardwarePage.h"
#include "wizard/MemoryBarsWidget.h"
#include "wizard/MemoryPlanPage.h"
#include "wizard/ModelSizePage.h"
#include "wizard/PlanChoiceTable.h"

#include <headroom/config.h>

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::ConfigWizard;
using headroom::ui::PlanChoiceTable;

namespace {
constexpr int kTimeout = 60000;
} // namespace

class TestPlanChoices : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theModelPageSetsTheExperts();
    void aPlanRowSetsItsTechniquesAndBatch();
    void modelChangesAreOfferedForExpertsOnly();
    void aModelChangeIsAppliedOnRequest();

private:
    // The tiny GPT (with experts when `moe`) on the corpus, on the memory plan page.
    bool toMemoryPlan(ConfigWizard &wizard, bool moe);
    bool next(ConfigWizard &wizard);

    QTemporaryDir dir_;
    QString corpus_;
};

void TestPlanChoices::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
}

bool TestPlanChoices::next(ConfigWizard &wizard) {
    QAbstractButton *button = wizard.button(QWizard::NextButton);
    if (!QTest::qWaitFor([button] { return button->isEnabled(); }, kTimeout)) {
        qWarning() << "Next stays disabled on page" << wizard.currentId();
        return false;
    }
    wizard.next();
    return true;
}

bool TestPlanChoices::toMemoryPlan(ConfigWizard &wizard, bool moe) {
    wizard.show();
    // A budget the small GPT at its default micro-batch does not fit in.
    wizard.hardwarePage()->setBudgetBytes(quint64(64) << 20);
    wizard.startFromScratch();
    wizard.setDataPath(corpus_);
    while (wizard.currentId() < ConfigWizard::ModelSize) {
        if (!next(wizard)) {
            return false;
        }
    }
    wizard.modelSizePage()->selectPreset("small");
    wizard.findChild<QGroupBox *>("moe")->setChecked(moe);
    return next(wizard) && wizard.currentId() == ConfigWizard::MemoryPlan;
}

void TestPlanChoices::theModelPageSetsTheExperts() {
    ConfigWizard wizard;
    wizard.show();
    wizard.startFromScratch();
    wizard.setDataPath(corpus_);
    while (wizard.currentId() < ConfigWizard::ModelSize) {
        QVERIFY(next(wizard));
    }
    auto *page = wizard.modelSizePage();
    page->selectPreset("small");
    auto *moe = wizard.findChild<QGroupBox *>("moe");
    QVERIFY(moe->isVisible());
    QVERIFY(!moe->isChecked()); // dense unless asked
    const qint64 dense = page->parameterCount();
    moe->setChecked(true);
    const qint64 four_experts = page->parameterCount();
    QVERIFY2(four_experts > dense, qPrintable(QString("%1 vs %2").arg(four_experts).arg(dense)));
    auto *experts = wizard.findChild<QSpinBox *>("moeExperts");
    auto *top_k = wizard.findChild<QSpinBox *>("moeTopK");
    experts->setValue(8);
    QVERIFY(page->parameterCount() > four_experts);
    // top-k cannot exceed the experts.
    experts->setValue(2);
    QCOMPARE(top_k->maximum(), 2);
    experts->setValue(6);
    top_k->setValue(1);
    wizard.findChild<QDoubleSpinBox *>("moeCapacity")->setValue(1.5);
    wizard.findChild<QSpinBox *>("moeEvery")->setValue(2);
    QVERIFY(next(wizard));
    const headroom::Config &config = wizard.settings().config;
    QCOMPARE(config.integer("moe.experts"), std::int64_t(6));
    QCOMPARE(config.integer("moe.top_k"), std::int64_t(1));
    QCOMPARE(config.real("moe.capacity_factor"), 1.5);
    QCOMPARE(config.integer("moe.every"), std::int64_t(2));

    // Back to the model page: the controls show the config; unchecking makes the model dense.
    wizard.back();
    QCOMPARE(experts->value(), 6);
    moe->setChecked(false);
    QCOMPARE(page->parameterCount(), dense);
    QVERIFY(next(wizard));
    QCOMPARE(wizard.settings().config.integer("moe.experts"), std::int64_t(0));
}

void TestPlanChoices::aPlanRowSetsItsTechniquesAndBatch() {
    ConfigWizard wizard;
    QVERIFY(toMemoryPlan(wizard, false));
    auto *page = wizard.memoryPlanPage();
    PlanChoiceTable *choices = page->planChoices();
    auto *show_all = choices->findChild<QCheckBox *>("showAllChoices");
    QVERIFY(!show_all->isChecked());
    const int marked_rows = choices->rowCount();
    QVERIFY(marked_rows >= 1);
    show_all->setChecked(true);
    // Every combination of precision (fp32, bf16 on a CPU), checkpointing and 8-bit AdamW.
    QVERIFY2(choices->rowCount() > marked_rows, qPrintable(QString::number(choices->rowCount())));
    QCOMPARE(choices->rowCount(), 8);

    // Use the row with checkpointing and 8-bit AdamW in fp32: the controls and bars follow.
    int chosen = -1;
    for (int row = 0; row < choices->rowCount(); ++row) {
        const QStringList assignments = choices->assignmentsOf(row);
        if (assignments.contains("precision=fp32") && assignments.contains("checkpointing=1") &&
            assignments.contains("optimizer=adamw8bit")) {
            chosen = row;
        }
    }
    QVERIFY(chosen >= 0);
    QString micro_batch;
    for (const QString &assignment : choices->assignmentsOf(chosen)) {
        if (assignment.startsWith("train.micro_batch=")) {
            micro_batch = assignment.section('=', 1);
        }
    }
    auto *table = choices->findChild<QTableWidget *>("choiceTable");
    const QString peak = table->item(chosen, 2)->text();
    choices->use(chosen);
    QVERIFY(wizard.findChild<QCheckBox *>("checkpointing")->isChecked());
    QVERIFY(wizard.findChild<QCheckBox *>("adamw8bit")->isChecked());
    QCOMPARE(wizard.findChild<QComboBox *>("precision")->currentData().toString(), QString("fp32"));
    QCOMPARE(QString::number(wizard.findChild<QSpinBox *>("microBatch")->value()), micro_batch);
    // The effective batch is kept.
    const auto &config = wizard.settings().config;
    QCOMPARE(config.integer("train.micro_batch") * config.integer("train.accumulation"),
             std::int64_t(12));
    // The bars show the row's prediction, and the row is now the current one (Use disabled).
    QCOMPARE(headroom::ui::DisplayText::bytes(page->bars()->total()), peak);
    table->selectRow(chosen);
    QVERIFY(!choices->findChild<QPushButton *>("useChoice")->isEnabled());
}

void TestPlanChoices::modelChangesAreOfferedForExpertsOnly() {
    ConfigWizard dense;
    QVERIFY(toMemoryPlan(dense, false));
    auto *tabs = dense.findChild<QTabWidget *>("planTabs");
    QVERIFY(!tabs->isTabVisible(tabs->indexOf(dense.memoryPlanPage()->modelChanges())));
    QCOMPARE(dense.memoryPlanPage()->modelChanges()->rowCount(), 0);

    ConfigWizard moe;
    QVERIFY(toMemoryPlan(moe, true));
    tabs = moe.findChild<QTabWidget *>("planTabs");
    PlanChoiceTable *changes = moe.memoryPlanPage()->modelChanges();
    QVERIFY(tabs->isTabVisible(tabs->indexOf(changes)));
    // 4 experts top-2, capacity 1.25, every block of 4: half the experts, top-1, capacity 1,
    // every other block.
    QStringList offered;
    for (int row = 0; row < changes->rowCount(); ++row) {
        offered << changes->assignmentsOf(row);
    }
    QCOMPARE(offered,
             (QStringList{"moe.experts=2", "moe.top_k=1", "moe.capacity_factor=1", "moe.every=2"}));
    auto *table = changes->findChild<QTableWidget *>("choiceTable");
    QVERIFY(table->item(0, 0)->text().contains("2"));
    QVERIFY(table->item(0, 0)->text().contains("4"));
}

void TestPlanChoices::aModelChangeIsAppliedOnRequest() {
    ConfigWizard wizard;
    QVERIFY(toMemoryPlan(wizard, true));
    auto *page = wizard.memoryPlanPage();
    PlanChoiceTable *changes = page->modelChanges();
    QCOMPARE(wizard.settings().config.integer("moe.experts"), std::int64_t(4));
    const quint64 before = page->bars()->total();
    QCOMPARE(changes->assignmentsOf(0), QStringList{"moe.experts=2"});
    changes->use(0);
    QCOMPARE(wizard.settings().config.integer("moe.experts"), std::int64_t(2));
    QVERIFY2(page->bars()->total() < before,
             qPrintable(QString("%1 -> %2").arg(page->bars()->total()).arg(before)));
    // The next proposal starts from the new model: 1 expert would be no MoE, so the experts
    // row goes and top-1 stays.
    QVERIFY(!changes->assignmentsOf(0).contains("moe.experts=1"));
    QCOMPARE(changes->assignmentsOf(0), QStringList{"moe.top_k=1"});
}

QTEST_MAIN(TestPlanChoices)
#include "test_plan_choices.moc"
