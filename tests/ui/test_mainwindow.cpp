#include "main_window/MainWindow.h"
#include "sample_files.h"

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/workflow.h>

#include <QAction>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void menusHoldTheMainActions();
    void statusBarShowsTheDetectedDevice();
    void emptyProjectViewOffersAStart();
    void runControlsWaitForAProject();
    void opensAProjectShowingSettingsAndRuns();
    void refusesAFileThatIsNotAProject();
};

namespace {
QStringList menuTitles(const QMainWindow &window) {
    QStringList titles;
    for (QAction *action : window.menuBar()->actions()) {
        titles << action->text().remove(QLatin1Char('&'));
    }
    return titles;
}

QAction *findAction(const QMainWindow &window, const QString &text) {
    for (QAction *action : window.findChildren<QAction *>()) {
        if (action->text().remove(QLatin1Char('&')) == text) {
            return action;
        }
    }
    return nullptr;
}
} // namespace

void TestMainWindow::menusHoldTheMainActions() {
    headroom::ui::MainWindow window;
    QCOMPARE(menuTitles(window), (QStringList{"File", "Project", "Run", "Help"}));
    QAction *open = findAction(window, QStringLiteral("Open Project…"));
    QVERIFY(open);
    QCOMPARE(open->shortcut(), QKeySequence(QKeySequence::Open));
    QVERIFY(window.findChild<QToolBar *>(QStringLiteral("mainToolBar")));
}

void TestMainWindow::statusBarShowsTheDetectedDevice() {
    headroom::ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString expected =
        QString::fromStdString(headroom::shortDeviceLabel(headroom::detectDevices()));
    QCOMPARE(window.deviceLabelText(), expected);
    auto *label = window.statusBar()->findChild<QLabel *>(QStringLiteral("deviceLabel"));
    QVERIFY(label);
    QVERIFY(label->isVisible());
    QVERIFY(label->text().contains(QStringLiteral("cores")) ||
            label->text().startsWith(QStringLiteral("CUDA")) ||
            label->text().startsWith(QStringLiteral("MPS")));
}

void TestMainWindow::emptyProjectViewOffersAStart() {
    headroom::ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QWidget *empty = window.findChild<QWidget *>(QStringLiteral("emptyProjectView"));
    QVERIFY(empty);
    QVERIFY(empty->isVisible());
    QVERIFY(window.findChild<QPushButton *>(QStringLiteral("newProjectButton")));
    QVERIFY(window.findChild<QPushButton *>(QStringLiteral("openProjectButton")));
    auto *summary = window.findChild<QLabel *>(QStringLiteral("machineSummary"));
    QVERIFY(summary);
    QVERIFY(summary->text().contains(QStringLiteral("LibTorch")));
}

void TestMainWindow::runControlsWaitForAProject() {
    headroom::ui::MainWindow window;
    QAction *start = findAction(window, QStringLiteral("Start Training"));
    QVERIFY(start);
    QVERIFY(!start->isEnabled());
}

void TestMainWindow::opensAProjectShowingSettingsAndRuns() {
    QTemporaryDir dir;
    headroom::NewProjectRequest request;
    request.project_path = dir.filePath("story.headroom").toStdString();
    request.recipe = "gpt";
    request.data_path =
        test_support::writeFile(QDir(dir.path()), "corpus.txt", test_support::storyText(40))
            .toStdString();
    request.overrides = {"train.lr=0.002"};
    headroom::createProject(request, [](const std::string &) {});

    headroom::ui::MainWindow window;
    window.show();
    QCOMPARE(window.openProject(QString::fromStdString(request.project_path)), QString());
    QCOMPARE(window.projectPath(), QString::fromStdString(request.project_path));
    QVERIFY(window.windowTitle().startsWith("story"));
    auto *settings = window.findChild<QTableWidget *>("settingsTable");
    QVERIFY(settings && settings->isVisible());
    QCOMPARE(settings->rowCount(), static_cast<int>(headroom::configKeys().size()));
    bool found_lr = false;
    for (int row = 0; row < settings->rowCount(); ++row) {
        if (settings->item(row, 0)->text() == "train.lr") {
            found_lr =
                settings->item(row, 1)->text() == "0.002" && settings->item(row, 1)->font().bold();
        }
    }
    QVERIFY2(found_lr, "a changed setting is shown, in bold");
    auto *runs = window.findChild<QTableWidget *>("runsTable");
    QVERIFY(runs);
    QCOMPARE(runs->rowCount(), 0);
    auto *hint = window.findChild<QLabel *>("noRunsHint");
    QVERIFY(hint && hint->isVisible());
    QVERIFY(hint->text().contains("headroom-cli train"));
}

void TestMainWindow::refusesAFileThatIsNotAProject() {
    QTemporaryDir dir;
    const QString path =
        test_support::writeFile(QDir(dir.path()), "notes.headroom", "just some text\n");
    headroom::ui::MainWindow window;
    const QString error = window.openProject(path);
    QVERIFY(!error.isEmpty());
    QVERIFY2(error.contains("notes.headroom"), qPrintable(error));
    QVERIFY(window.projectPath().isEmpty());
    QVERIFY(window.findChild<QWidget *>("emptyProjectView")->isVisibleTo(&window));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
