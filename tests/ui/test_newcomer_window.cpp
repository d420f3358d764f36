// What a new user meets first: starting from a pretrained model is the first and default
// choice, with the model folders used before offered again; the memory plot scales to the run's
// memory when the budget is far above it (the budget named, clear of the legend); the window
// never widens itself when long status texts or a run arrive.
#include "look/AppSettings.h"
#include "main_window/EmptyProjectView.h"
#include "main_window/MainWindow.h"
#include "plots/MemoryPlot.h"
#include "runs/RunSeries.h"
#include "runs/SessionController.h"
#include "sample_files.h"
#include "training_support.h"
#include "views/LiveView.h"
#include "wizard/BaseModelBox.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::AppSettings;
using headroom::ui::ConfigWizard;
using headroom::ui::MainWindow;
using headroom::ui::plots::MemoryPlot;

class TestNewcomerWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aPretrainedModelIsTheFirstAndDefaultChoice();
    void recentModelFoldersAreOfferedAgain();
    void theMemoryAxisFollowsARunFarBelowItsBudget();
    void theWindowNeverWidensItself();

private:
    QString settingsPath(const QString &name) const { return dir_.filePath(name + ".ini"); }

    QTemporaryDir dir_;
};

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

headroom::ui::RunSeries seriesAround(double live_mib, int steps) {
    headroom::ui::RunSeries series;
    for (int step = 1; step <= steps; ++step) {
        series.steps << step;
        series.mem_live << (live_mib + step % 3) * kMiB;
        series.mem_peak << (live_mib * 1.2 + step % 3) * kMiB;
    }
    return series;
}

// Waits until the plot has replotted (its ranges follow the data on each replot).
bool replotted(MemoryPlot &plot) {
    const int before = plot.replotCount();
    plot.scheduleReplot();
    return QTest::qWaitFor([&] { return plot.replotCount() > before; }, 5000);
}
} // namespace

void TestNewcomerWindow::initTestCase() {
    QVERIFY(dir_.isValid());
}

void TestNewcomerWindow::aPretrainedModelIsTheFirstAndDefaultChoice() {
    ConfigWizard wizard;
    auto *recipe = wizard.findChild<QComboBox *>(QStringLiteral("recipe"));
    QVERIFY(recipe);
    QCOMPARE(recipe->itemData(0).toString(), QString("pretrained"));
    QCOMPARE(recipe->currentData().toString(), QString("pretrained"));
    QVERIFY(wizard.dataPage()->isPretrained());
    wizard.startFromScratch();
    QCOMPARE(recipe->currentData().toString(), QString("gpt"));

    MainWindow window(nullptr, settingsPath("first-choice"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *pretrained = window.findChild<QPushButton *>(QStringLiteral("pretrainedProjectButton"));
    auto *scratch = window.findChild<QPushButton *>(QStringLiteral("newProjectButton"));
    QVERIFY(pretrained && scratch);
    QVERIFY(pretrained->isDefault());
    QVERIFY(pretrained->x() < scratch->x()); // read first
    auto *hint = window.findChild<QLabel *>(QStringLiteral("emptyProjectHint"));
    QVERIFY(hint->text().startsWith(QStringLiteral("Start from a pretrained model")));

    pretrained->click();
    auto *opened = window.findChild<ConfigWizard *>();
    QVERIFY(opened);
    QVERIFY(opened->dataPage()->isPretrained());
    opened->reject();
}

void TestNewcomerWindow::recentModelFoldersAreOfferedAgain() {
    const QString settings_path = settingsPath("recent");
    {
        AppSettings settings(settings_path);
        for (int i = 0; i < AppSettings::kMaxRecentBaseFolders + 2; ++i) {
            settings.addRecentBaseFolder(dir_.filePath(QStringLiteral("model-%1").arg(i)));
        }
        settings.addRecentBaseFolder(dir_.filePath("model-3/")); // again: to the front, once
        const QStringList recent = settings.recentBaseFolders();
        QCOMPARE(recent.size(), AppSettings::kMaxRecentBaseFolders);
        QCOMPARE(recent.front(), dir_.filePath("model-3"));
        QCOMPARE(recent.count(dir_.filePath("model-3")), 1);
        QCOMPARE(recent.at(1), dir_.filePath("model-9"));
        settings.sync();
    }

    MainWindow window(nullptr, settings_path);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QList<QPushButton *> buttons =
        window.findChildren<QPushButton *>(QStringLiteral("recentBaseFolder"));
    QCOMPARE(buttons.size(), headroom::ui::EmptyProjectView::kRecentFoldersShown);
    QCOMPARE(buttons.front()->toolTip(), QDir::toNativeSeparators(dir_.filePath("model-3")));

    buttons.front()->click();
    auto *wizard = window.findChild<ConfigWizard *>();
    QVERIFY(wizard);
    headroom::ui::BaseModelBox *box = wizard->dataPage()->baseModelBox();
    QCOMPARE(box->folder(), dir_.filePath("model-3"));
    QVERIFY(wizard->dataPage()->isPretrained());
    // The field's list offers every remembered folder, the latest first.
    QCOMPARE(box->recentFolders().size(), AppSettings::kMaxRecentBaseFolders);
    QCOMPARE(box->recentFolders().front(), QDir::toNativeSeparators(dir_.filePath("model-3")));
    wizard->reject();
}

void TestNewcomerWindow::theMemoryAxisFollowsARunFarBelowItsBudget() {
    MemoryPlot plot;
    plot.resize(900, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const std::uint64_t budget = std::uint64_t(17.7 * 1024) * 1024 * 1024;
    plot.setBudget(budget);
    plot.append(seriesAround(250, 40), 0);
    QVERIFY(replotted(plot));

    // 250 MiB under a 17.7 GiB budget: the axis is the run's, the budget named above it.
    const double upper = plot.yAxis->range().upper;
    QVERIFY2(upper >= 300 && upper < 1024, qPrintable(QString::number(upper)));
    QVERIFY(!plot.budgetOnScale());
    QVERIFY2(plot.budgetLabelText().contains("17.7 GiB"), qPrintable(plot.budgetLabelText()));
    QVERIFY2(plot.budgetLabelText().contains("above"), qPrintable(plot.budgetLabelText()));
    QVERIFY(!plot.budgetLabelRect().intersects(plot.legend->outerRect()));
    QVERIFY(plot.axisRect()->rect().contains(plot.budgetLabelRect().toRect()));

    // The full budget scale on request: the line within the axis, its label clear of the legend.
    plot.setFullBudgetScale(true);
    QVERIFY(replotted(plot));
    QVERIFY(plot.yAxis->range().upper >= double(budget) / kMiB);
    QVERIFY(plot.budgetOnScale());
    QCOMPARE(plot.budgetLabelText(), QString("budget 17.7 GiB"));
    QVERIFY(!plot.budgetLabelRect().intersects(plot.legend->outerRect()));

    // A run that comes near its budget shows the line without being asked.
    plot.setFullBudgetScale(false);
    plot.clearData();
    plot.append(seriesAround(12000, 40), 0);
    QVERIFY(replotted(plot));
    QVERIFY(plot.budgetOnScale());
    QVERIFY(plot.yAxis->range().upper >= double(budget) / kMiB);

    // The Live tab's switch drives the plot.
    headroom::ui::LiveView live;
    auto *full = live.findChild<QCheckBox *>(QStringLiteral("fullBudgetScale"));
    QVERIFY(full);
    QSignalSpy changed(&live, &headroom::ui::LiveView::fullBudgetScaleChanged);
    full->click();
    QVERIFY(live.memoryPlot()->fullBudgetScale());
    QCOMPARE(changed.size(), 1);
}

void TestNewcomerWindow::theWindowNeverWidensItself() {
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(300));
    const QString project = test_support::createTestProject(dir_.filePath("steady.headroom"),
                                                            corpus, "gpt", test_support::kTinyGpt);
    MainWindow window(nullptr, settingsPath("steady"));
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.openProject(project), QString());
    QCoreApplication::processEvents();
    const int width = window.width();
    QVERIFY(width <= 1280);

    // A status text far wider than the screen, as a long model description is: cut, whole in
    // the tooltip, and the window stays as wide as it was.
    const QString long_text = QStringLiteral("Training LlamaForCausalLM with LoRA ").repeated(40);
    auto *status = window.statusBar()->findChild<QLabel *>(QStringLiteral("runStateLabel"));
    QVERIFY(status);
    status->setText(long_text);
    window.liveView()->setCaption(long_text);
    QCoreApplication::processEvents();
    QCOMPARE(window.width(), width);
    QVERIFY2(window.minimumSizeHint().width() <= 1280,
             qPrintable(QString::number(window.minimumSizeHint().width())));

    // A run from start to finish, the width checked at every step it reports.
    QAction *start = nullptr;
    for (QAction *action : window.findChildren<QAction *>()) {
        if (action->text().remove(QLatin1Char('&')) == QStringLiteral("Start Training")) {
            start = action;
        }
    }
    QVERIFY(start && start->isEnabled());
    int widest = window.width();
    connect(window.sessionController(), &headroom::ui::SessionController::stepsArrived, &window,
            [&] { widest = std::max(widest, window.width()); });
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    start->trigger();
    QVERIFY(finished.wait(120000));
    QCoreApplication::processEvents();
    QCOMPARE(widest, width);
    QCOMPARE(window.width(), width);
}

QTEST_MAIN(TestNewcomerWindow)
#include "test_newcomer_window.moc"
