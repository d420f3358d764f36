#include "MainWindow.h"

#include "EmptyProjectView.h"
#include "ProjectView.h"

#include <headroom/devices.h>
#include <headroom/version.h>

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>

namespace headroom::ui {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Headroom"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    resize(1100, 720);

    central_ = new QStackedWidget(this);
    empty_view_ = new EmptyProjectView(central_);
    project_view_ = new ProjectView(central_);
    central_->addWidget(empty_view_);
    central_->addWidget(project_view_);
    setCentralWidget(central_);

    createActions();
    createMenus();
    createToolBar();
    createStatusBar();

    const DeviceReport devices = detectDevices();
    QStringList lines;
    for (const std::string &line : describeDevices(devices)) {
        lines << QString::fromStdString(line).simplified();
    }
    empty_view_->setMachineSummary(lines);
    device_label_->setText(QString::fromStdString(shortDeviceLabel(devices)));
    device_label_->setToolTip(lines.join(QLatin1Char('\n')));
}

QString MainWindow::deviceLabelText() const {
    return device_label_->text();
}

QString MainWindow::projectPath() const {
    return project_view_->projectPath();
}

bool MainWindow::openProjectInteractively(const QString &path) {
    const QString error = openProject(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Cannot open project"),
                             tr("Headroom could not open %1:\n%2").arg(path, error));
    }
    return error.isEmpty();
}

QString MainWindow::openProject(const QString &path) {
    const QString error = project_view_->load(path);
    if (!error.isEmpty()) {
        return error;
    }
    central_->setCurrentWidget(project_view_);
    reload_action_->setEnabled(true);
    setWindowTitle(tr("%1 — Headroom").arg(QFileInfo(path).completeBaseName()));
    run_state_label_->setText(tr("Runs: %1").arg(project_view_->runCount()));
    return {};
}

void MainWindow::chooseProjectToOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Project"), QString(), tr("Headroom projects (*.headroom);;All files (*)"));
    if (!path.isEmpty()) {
        openProjectInteractively(path);
    }
}

void MainWindow::createActions() {
    new_action_ = new QAction(tr("&New Project…"), this);
    new_action_->setShortcut(QKeySequence::New);
    new_action_->setStatusTip(tr("Create a project from a text or CSV file"));

    open_action_ = new QAction(tr("&Open Project…"), this);
    open_action_->setShortcut(QKeySequence::Open);
    open_action_->setStatusTip(tr("Open a Headroom project file"));
    connect(open_action_, &QAction::triggered, this, &MainWindow::chooseProjectToOpen);
    connect(empty_view_, &EmptyProjectView::openProjectRequested, this,
            &MainWindow::chooseProjectToOpen);

    reload_action_ = new QAction(tr("&Reload Project"), this);
    reload_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    reload_action_->setEnabled(false);
    connect(reload_action_, &QAction::triggered, project_view_, &ProjectView::reload);

    quit_action_ = new QAction(tr("&Quit"), this);
    quit_action_->setShortcut(QKeySequence::Quit);
    quit_action_->setMenuRole(QAction::QuitRole);
    connect(quit_action_, &QAction::triggered, this, &QWidget::close);

    start_action_ = new QAction(tr("&Start Training"), this);
    start_action_->setShortcut(Qt::Key_F5);
    pause_action_ = new QAction(tr("&Pause"), this);
    stop_action_ = new QAction(tr("S&top"), this);
    stop_action_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    // Run control needs an open project.
    for (QAction *action : {start_action_, pause_action_, stop_action_}) {
        action->setEnabled(false);
    }

    about_action_ = new QAction(tr("&About Headroom"), this);
    about_action_->setMenuRole(QAction::AboutRole);
    connect(about_action_, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(new_action_);
    file->addAction(open_action_);
    file->addAction(reload_action_);
    file->addSeparator();
    file->addAction(quit_action_);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(start_action_);
    run->addAction(pause_action_);
    run->addAction(stop_action_);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(about_action_);
}

void MainWindow::createToolBar() {
    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(new_action_);
    toolbar->addAction(open_action_);
    toolbar->addSeparator();
    toolbar->addAction(start_action_);
    toolbar->addAction(pause_action_);
    toolbar->addAction(stop_action_);
}

void MainWindow::createStatusBar() {
    run_state_label_ = new QLabel(tr("No project"), this);
    run_state_label_->setObjectName(QStringLiteral("runStateLabel"));
    device_label_ = new QLabel(this);
    device_label_->setObjectName(QStringLiteral("deviceLabel"));
    statusBar()->addWidget(run_state_label_, 1);
    statusBar()->addPermanentWidget(device_label_);
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About Headroom"),
        tr("<h3>Headroom %1</h3><p>Train real models on the hardware you have, without "
           "out-of-memory errors.</p>")
            .arg(QString::fromLatin1(kVersion)));
}

} // namespace headroom::ui
