#include "main_window/MainWindow.h"

#include "look/DisplayText.h"
#include "main_window/EmptyProjectView.h"
#include "main_window/LocalRanksControls.h"
#include "main_window/PretrainedControls.h"
#include "main_window/RunControls.h"
#include "main_window/RunExports.h"
#include "main_window/WindowParts.h"
#include "runs/RunWatcher.h"
#include "runs/SessionController.h"
#include "views/CompareView.h"
#include "views/LiveView.h"
#include "views/LogView.h"
#include "views/PlanView.h"
#include "views/ProfileView.h"
#include "views/RunsPanel.h"
#include "views/TryView.h"
#include "wizard/ConfigWizard.h"

#include <headroom/devices.h>

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QStackedWidget>
#include <QTabWidget>

#include <filesystem>
#include <utility>

namespace headroom::ui {

namespace {
AppSettings makeSettings(const QString &path) {
    return path.isEmpty() ? AppSettings() : AppSettings(path);
}

bool isProjectFile(const QString &path) {
    return QFileInfo(path).suffix().compare(QLatin1String("headroom"), Qt::CaseInsensitive) == 0;
}
} // namespace

MainWindow::MainWindow(QWidget *parent, const QString &settings_path)
    : QMainWindow(parent), settings_(makeSettings(settings_path)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Headroom"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    setAcceptDrops(true);
    resize(1280, 800);

    central_ = new QStackedWidget(this);
    empty_view_ = new EmptyProjectView(central_);
    tabs_ = new QTabWidget(central_);
    tabs_->setObjectName(QStringLiteral("workspaceTabs"));
    plan_view_ = new PlanView(tabs_);
    live_view_ = new LiveView(tabs_);
    compare_view_ = new CompareView(tabs_);
    log_view_ = new LogView(tabs_);
    try_view_ = new TryView(tabs_);
    profile_view_ = new ProfileView(tabs_);
    tabs_->addTab(plan_view_, tr("&Plan"));
    tabs_->addTab(live_view_, tr("&Live"));
    tabs_->addTab(compare_view_, tr("&Compare"));
    tabs_->addTab(profile_view_, tr("Pro&file"));
    tabs_->addTab(log_view_, tr("Lo&g"));
    tabs_->addTab(try_view_, tr("&Try"));
    central_->addWidget(empty_view_);
    central_->addWidget(tabs_);
    setCentralWidget(central_);

    runs_panel_ = new RunsPanel(this);
    runs_panel_->setMinimumWidth(300);
    runs_dock_ = new QDockWidget(tr("Project"), this);
    runs_dock_->setObjectName(QStringLiteral("projectDock"));
    runs_dock_->setWidget(runs_panel_);
    runs_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, runs_dock_);
    runs_dock_->hide();
    resizeDocks({runs_dock_}, {470}, Qt::Horizontal);

    run_ = new RunControls(views(), this);
    connect(run_, &RunControls::statusText, this, &MainWindow::showStatus);
    connect(run_, &RunControls::actionsChanged, this, &MainWindow::updateActions);
    connect(run_, &RunControls::closeRequested, this, &QWidget::close);
    connect(run_, &RunControls::baseModelMissing, this, [this](const QString &message) {
        pretrained_->offerLocateBase(message, [this] {
            const QString error = startRun();
            if (!error.isEmpty()) {
                showStatus(error);
            }
        });
    });

    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    connect(profile_view_, &ProfileView::profilingChanged, this, &MainWindow::updateActions);

    const DeviceReport devices = detectDevices();
    const QStringList lines = DisplayText::deviceLines(devices);
    empty_view_->setMachineSummary(lines);
    device_label_->setText(DisplayText::deviceStatus(devices));
    device_label_->setToolTip(lines.join(QLatin1Char('\n')));

    confirm_stop_ = [this] {
        return QMessageBox::question(
                   this, tr("A run is training"),
                   tr("Stop the run and quit? Headroom writes a checkpoint first, so you can "
                      "continue the run later."),
                   QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
    };
    live_view_->setSmoothing(settings_.get(settings::kLossSmoothing));
    live_view_->setLogScale(settings_.get(settings::kLossLogScale));
    connect(live_view_, &LiveView::smoothingChanged, this,
            [this](double weight) { settings_.set(settings::kLossSmoothing, weight); });
    connect(live_view_, &LiveView::logScaleChanged, this,
            [this](bool on) { settings_.set(settings::kLossLogScale, on); });
    restoreGeometry(settings_.get(settings::kWindowGeometry));
    restoreState(settings_.get(settings::kWindowState));
    runs_dock_->hide(); // until a project is open
    updateRecentMenu();
    updateActions();
}

MainWindow::~MainWindow() = default;

WindowViews MainWindow::views() {
    return {this,          tabs_,         plan_view_, live_view_, log_view_,
            compare_view_, profile_view_, try_view_,  runs_panel_};
}

void MainWindow::showStatus(const QString &text) {
    run_state_label_->setText(text);
}

SessionController *MainWindow::sessionController() const {
    return run_->controller();
}

RunWatcher *MainWindow::runWatcher() const {
    return run_->watcher();
}

QString MainWindow::deviceLabelText() const {
    return device_label_->text();
}

QString MainWindow::runStateText() const {
    return run_state_label_->text();
}

QString MainWindow::projectPath() const {
    return runs_panel_->projectPath();
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
    if (run_->isActive()) {
        return tr("a run is training in this window; stop it first");
    }
    if (profile_view_->isProfiling()) {
        return tr("a profile is running in this window; stop it first");
    }
    const QString plan_error = plan_view_->load(path);
    if (!plan_error.isEmpty()) {
        return plan_error;
    }
    const QString error = runs_panel_->load(path);
    if (!error.isEmpty()) {
        return error;
    }
    central_->setCurrentWidget(tabs_);
    runs_dock_->show();
    setWindowTitle(tr("%1 — Headroom").arg(QFileInfo(path).completeBaseName()));
    settings_.addRecentProject(path);
    settings_.set(settings::kLastDirectory, QFileInfo(path).absolutePath());
    updateRecentMenu();
    log_view_->clear();
    live_view_->beginRun(0, tr("No run selected: press Start to train, or pick a run in the "
                               "Project panel."));
    live_view_->setBudget(plan_view_->config().bytes("memory.budget"));
    compare_view_->setRuns(path, runs_panel_->runs());
    try_view_->setProject(path, runs_panel_->runs());
    profile_view_->setProjectPath(path);
    run_state_label_->setText(tr("Runs: %1").arg(runs_panel_->runCount()));
    run_->followProject(path);
    updateActions();
    return {};
}

QString MainWindow::saveProjectAs(const QString &path) {
    namespace fs = std::filesystem;
    if (projectPath().isEmpty()) {
        return tr("no project is open");
    }
    if (run_->isWritingProject()) {
        return tr("a run is writing to the project; wait until it ends");
    }
    const fs::path from = projectPath().toStdString();
    const fs::path to = path.toStdString();
    std::error_code error;
    if (fs::exists(to, error)) {
        return tr("%1 already exists").arg(path);
    }
    fs::copy_file(from, to, error);
    const fs::path wal = from.string() + "-wal";
    if (!error && fs::exists(wal)) {
        fs::copy_file(wal, to.string() + "-wal", error);
    }
    const fs::path data = from.string() + ".d";
    if (!error && fs::exists(data)) {
        fs::copy(data, to.string() + ".d", fs::copy_options::recursive, error);
    }
    if (error) {
        return tr("cannot copy the project to %1: %2")
            .arg(path, QString::fromStdString(error.message()));
    }
    return openProject(path);
}

QString MainWindow::whyNoRunCanStart() const {
    if (projectPath().isEmpty()) {
        return tr("Open or create a project first.");
    }
    if (run_->isWritingProject() || ranks_->isRunning()) {
        return tr("A run is already training this project.");
    }
    if (profile_view_->isProfiling()) {
        return tr("A profile is running: start the run when it has ended.");
    }
    return {};
}

QString MainWindow::startRun(bool continue_last) {
    if (const QString why = whyNoRunCanStart(); !why.isEmpty()) {
        return why;
    }
    run_->start(continue_last);
    return {};
}

QString MainWindow::startLocalRanks(int ranks) {
    if (const QString why = whyNoRunCanStart(); !why.isEmpty()) {
        return why;
    }
    return ranks_->start(projectPath(), ranks);
}

void MainWindow::pauseRun() {
    run_->pause();
    pause_action_->setEnabled(false);
}

void MainWindow::resumeRun() {
    run_->resume();
    resume_action_->setEnabled(false);
}

void MainWindow::stopRun() {
    if (!run_->isActive() && ranks_->stop()) {
        updateActions();
        return;
    }
    run_->stop();
}

QString MainWindow::exportMetrics(const QString &csv_path) {
    return exports_->exportMetrics(csv_path);
}

QString MainWindow::exportWeights(const QString &safetensors_path) {
    return exports_->exportWeights(safetensors_path);
}

QString MainWindow::evaluateOnFile(const QString &data_path) {
    return exports_->evaluateOnFile(data_path);
}

QString MainWindow::exportHfFolder(const QString &folder, const QString &max_shard_size) {
    return pretrained_->exportHfFolder(folder, max_shard_size);
}

QString MainWindow::exportLoraAdapter(const QString &folder) {
    return pretrained_->exportLoraAdapter(folder);
}

QString MainWindow::setBaseModelFolder(const QString &folder) {
    return pretrained_->setBaseModelFolder(folder);
}

void MainWindow::locateBaseModel(const std::function<void()> &retry) {
    pretrained_->locateBaseModel(retry);
}

void MainWindow::setLocateQuestion(std::function<bool(const QString &error)> ask) {
    pretrained_->setLocateQuestion(std::move(ask));
}

void MainWindow::setBaseFolderChooser(std::function<QString()> choose) {
    pretrained_->setBaseFolderChooser(std::move(choose));
}

void MainWindow::showNewProjectDialog(const QString &data_path) {
    auto *wizard = new ConfigWizard(this);
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    if (!data_path.isEmpty()) {
        wizard->setDataPath(data_path);
    }
    connect(wizard, &QDialog::accepted, this,
            [this, wizard] { openProjectInteractively(wizard->projectPath()); });
    wizard->open();
}

void MainWindow::closeEvent(QCloseEvent *event) {
    if (run_->isActive()) {
        event->ignore();
        if (run_->isStoppingForClosing() || confirm_stop_()) {
            run_->stopForClosing();
        }
        return;
    }
    settings_.set(settings::kWindowGeometry, saveGeometry());
    settings_.set(settings::kWindowState, saveState());
    settings_.sync();
    run_->stopWatching();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) {
        return;
    }
    const QString path = urls.first().toLocalFile();
    event->acceptProposedAction();
    if (isProjectFile(path)) {
        openProjectInteractively(path);
    } else {
        showNewProjectDialog(path);
    }
}

} // namespace headroom::ui
