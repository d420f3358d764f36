// The Profile tab: tables filled from a report (sortable by value), the trace saved, and a
// real profile of a tiny project on the engine thread while the window stays responsive.
#include "main_window/MainWindow.h"
#include "sample_files.h"
#include "training_support.h"
#include "views/ProfileTableModel.h"
#include "views/ProfileView.h"
#include "views/RunsPanel.h"

#include <headroom/profile.h>

#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using headroom::ui::MainWindow;
using headroom::ui::ProfileTableModel;
using headroom::ui::ProfileView;

class TestProfileView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void fillsTheTablesFromAReport();
    void sortsOperatorsByValue();
    void savesTheTrace();
    void profilesTheProjectInTheBackground();

private:
    QTemporaryDir dir_;
};

namespace {

std::shared_ptr<headroom::ProfileReport> sampleReport(const std::string &device = "cpu") {
    auto report = std::make_shared<headroom::ProfileReport>();
    report->device = device;
    report->model = "GPT · 2 layers";
    report->steps = 3;
    report->warmup_steps = 1;
    report->micro_batch = 4;
    report->accumulation = 2;
    report->wall_us = 30000;
    report->forward_passes = 6;
    report->activation_bytes = 10 * 1024 * 1024;
    report->measured_activation_bytes = 11 * 1024 * 1024;
    const auto op = [](const char *name, std::int64_t calls, double total, double self,
                       std::int64_t memory) {
        headroom::OperatorProfile row;
        row.name = name;
        row.calls = calls;
        row.total_us = total;
        row.self_us = self;
        row.self_cpu_memory = memory;
        row.cpu_allocated = memory > 0 ? static_cast<std::uint64_t>(memory) : 0;
        return row;
    };
    report->operators = {op("aten::addmm", 12, 9000, 8000, 4 << 20),
                         op("aten::gelu", 6, 1500, 1500, 2 << 20),
                         op("AddmmBackward0", 12, 12000, 500, -(3 << 20))};
    const auto module = [](const char *name, const char *parent, int depth, std::uint64_t bytes) {
        headroom::ModuleProfile row;
        row.name = name;
        row.parent = parent;
        row.depth = depth;
        row.activation_bytes = bytes;
        row.time_us = 1000;
        row.calls = 6;
        return row;
    };
    report->modules = {
        module("blocks.0", "", 0, 6 << 20), module("blocks.0.attention", "blocks.0", 1, 4 << 20),
        module("blocks.0.mlp", "blocks.0", 1, 2 << 20), module("lm_head", "", 0, 3 << 20),
        module(headroom::kOutsideModules, "", 0, 1 << 20)};
    report->modules.back().calls = 0;
    headroom::TraceEvent event;
    event.name = "aten::addmm";
    event.category = "operator";
    event.start_us = 10;
    event.duration_us = 5;
    report->trace = {event};
    report->thread_names = {"training thread"};
    return report;
}

QStringList columnTexts(const QTableView *table, int column) {
    QStringList texts;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        texts << table->model()->index(row, column).data().toString();
    }
    return texts;
}

} // namespace

void TestProfileView::initTestCase() {
    QVERIFY(dir_.isValid());
}

void TestProfileView::fillsTheTablesFromAReport() {
    ProfileView view;
    QVERIFY(!view.findChild<QPushButton *>("saveTraceButton")->isEnabled());
    QVERIFY(!view.findChild<QPushButton *>("profileButton")->isEnabled()); // no project
    // Before any profile the module headers ("Held for backward") are not cut off.
    for (int column = 0; column < view.moduleTree()->columnCount(); ++column) {
        QVERIFY(view.moduleTree()->columnWidth(column) >=
                view.moduleTree()->header()->sectionSizeHint(column));
    }
    view.setReport(sampleReport());
    QCOMPARE(view.operatorModel()->rowCount(), 3);
    QCOMPARE(view.operatorTable()->model()->rowCount(), 3);
    QVERIFY(view.findChild<QPushButton *>("saveTraceButton")->isEnabled());
    // On the CPU there is no GPU memory column.
    QVERIFY(view.operatorTable()->isColumnHidden(ProfileTableModel::DeviceMemoryColumn));

    QTreeWidget *tree = view.moduleTree();
    QCOMPARE(tree->topLevelItemCount(), 3);
    QTreeWidgetItem *block = tree->topLevelItem(0);
    QCOMPARE(block->text(0), QString("blocks.0"));
    QCOMPARE(block->childCount(), 2);
    QCOMPARE(block->child(0)->text(0), QString("attention"));
    QCOMPARE(block->child(1)->text(0), QString("mlp"));
    QVERIFY2(block->text(1).contains("MiB"), qPrintable(block->text(1)));
    QCOMPARE(block->text(2), QString("60.0 %"));
    QCOMPARE(tree->topLevelItem(2)->text(0), QString(headroom::kOutsideModules));
    QVERIFY(tree->topLevelItem(2)->text(3).isEmpty()); // not a scope: no time

    QVERIFY2(view.summaryText().contains("micro-batch 4 × 2"), qPrintable(view.summaryText()));
    QVERIFY(view.summaryText().contains("largest forward pass (of 6)"));

    view.setReport(sampleReport("cuda:0"));
    QVERIFY(!view.operatorTable()->isColumnHidden(ProfileTableModel::DeviceMemoryColumn));
    view.setReport(nullptr);
    QCOMPARE(view.operatorModel()->rowCount(), 0);
    QCOMPARE(view.moduleTree()->topLevelItemCount(), 0);
}

void TestProfileView::sortsOperatorsByValue() {
    ProfileView view;
    view.setReport(sampleReport());
    QTableView *table = view.operatorTable();
    // By total time first, largest first.
    QCOMPARE(columnTexts(table, ProfileTableModel::NameColumn),
             QStringList({"AddmmBackward0", "aten::addmm", "aten::gelu"}));
    table->sortByColumn(ProfileTableModel::SelfColumn, Qt::DescendingOrder);
    QCOMPARE(columnTexts(table, ProfileTableModel::NameColumn),
             QStringList({"aten::addmm", "aten::gelu", "AddmmBackward0"}));
    // Memory by its value, a negative one last, not by the text "−3.0 MiB".
    table->sortByColumn(ProfileTableModel::CpuMemoryColumn, Qt::DescendingOrder);
    QCOMPARE(columnTexts(table, ProfileTableModel::NameColumn),
             QStringList({"aten::addmm", "aten::gelu", "AddmmBackward0"}));
    table->sortByColumn(ProfileTableModel::CallsColumn, Qt::AscendingOrder);
    QCOMPARE(columnTexts(table, ProfileTableModel::CallsColumn).first(), QString("6"));
    // Clicking a header sorts too.
    table->sortByColumn(ProfileTableModel::TotalColumn, Qt::AscendingOrder);
    QTest::mouseClick(
        table->horizontalHeader()->viewport(), Qt::LeftButton, {},
        QPoint(table->horizontalHeader()->sectionViewportPosition(ProfileTableModel::TotalColumn) +
                   5,
               5));
    QCOMPARE(table->horizontalHeader()->sortIndicatorSection(),
             int(ProfileTableModel::TotalColumn));
    QCOMPARE(columnTexts(table, ProfileTableModel::NameColumn).first(),
             table->horizontalHeader()->sortIndicatorOrder() == Qt::DescendingOrder
                 ? QString("AddmmBackward0")
                 : QString("aten::gelu"));
}

void TestProfileView::savesTheTrace() {
    ProfileView view;
    const QString path = QDir(dir_.path()).filePath("trace.json");
    QVERIFY(!view.saveTrace(path).isEmpty()); // nothing profiled yet
    view.setReport(sampleReport());
    QCOMPARE(view.saveTrace(path), QString());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject trace = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY(trace["traceEvents"].isArray());
    const QString error = view.saveTrace("/nonexistent/dir/trace.json");
    QVERIFY2(error.contains("/nonexistent/dir/trace.json"), qPrintable(error));
}

void TestProfileView::profilesTheProjectInTheBackground() {
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    const QString project = test_support::createTestProject(
        QDir(dir_.path()).filePath("tiny.headroom"), corpus, "gpt", test_support::kTinyGpt);
    MainWindow window(nullptr, QDir(dir_.path()).filePath("settings.ini"));
    QCOMPARE(window.openProject(project), QString());
    ProfileView *view = window.profileView();
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(view)), QString("Pro&file"));
    QVERIFY(view->findChild<QPushButton *>("profileButton")->isEnabled());

    QSignalSpy finished(view, &ProfileView::profileFinished);
    view->findChild<QSpinBox *>("profileSteps")->setValue(2);
    QTest::mouseClick(view->findChild<QPushButton *>("profileButton"), Qt::LeftButton);
    QVERIFY(view->isProfiling());
    QVERIFY(!view->findChild<QPushButton *>("profileButton")->isEnabled());
    QVERIFY(!window.startRun().isEmpty()); // the project is busy
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toString(), QString());
    QVERIFY(!view->isProfiling());
    QVERIFY(view->report() != nullptr);
    QCOMPARE(view->report()->steps, std::int64_t(2));
    QVERIFY(view->operatorModel()->rowCount() > 10);
    QVERIFY(!view->moduleTree()->findItems("blocks.1", Qt::MatchExactly).isEmpty());
    QVERIFY(view->findChild<QPushButton *>("saveTraceButton")->isEnabled());
    QCOMPARE(window.runsPanel()->runCount(), 0); // a profile is not a run
}

QTEST_MAIN(TestProfileView)
#include "test_profile_view.moc"
