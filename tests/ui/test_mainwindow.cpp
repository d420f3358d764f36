#include "MainWindow.h"

#include <headroom/devices.h>

#include <QAction>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QStatusBar>
#include <QToolBar>
#include <QtTest>

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void menusHoldTheMainActions();
    void statusBarShowsTheDetectedDevice();
    void emptyProjectViewOffersAStart();
    void runControlsWaitForAProject();
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
    QCOMPARE(menuTitles(window), (QStringList{"File", "Run", "Help"}));
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

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
