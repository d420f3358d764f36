#include "main_window/MainWindow.h"

#include "look/DisplayText.h"
#include "look/ElidedLabel.h"
#include "main_window/EmptyProjectView.h"
#include "main_window/GgufExportControls.h"
#include "main_window/LocalRanksControls.h"
#include "main_window/PretrainedControls.h"
#include "main_window/RunControls.h"
#include "main_window/RunExports.h"
#include "main_window/WindowMenus.h"
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
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QStackedWidget>
#include <QStatusBar>
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

    views_.window = this;
    central_ = new QStackedWidget(this);
    empty_view_ = new EmptyProjectView(central_);
    views_.tabs = new QTabWidget(central_);
    views_.tabs->setObjectName(QStringLiteral("workspaceTabs"));
    views_.plan = new PlanView(views_.tabs);
    views_.live = new LiveView(views_.tabs);
    views_.compare = new CompareView(views_.tabs);
    views_.log = new LogView(views_.tabs);
    views_.try_view = new TryView(views_.tabs);
    views_.profile = new ProfileView(views_.tabs);
    views_.tabs->addTab(views_.plan, tr("&Plan"));
    views_.tabs->addTab(views_.live, tr("&Live"));
    views_.tabs->addTab(views_.compare, tr("&Compare"));
    views_.tabs->addTab(views_.profile, tr("Pro&file"));
    views_.tabs->addTab(views_.log, tr("Lo&g"));
    views_.tabs->addTab(views_.try_view, tr("&Try"));
    central_->addWidget(empty_view_);
    central_->addWidget(views_.tabs);
    setCentralWidget(central_);

    views_.runs = new RunsPanel(this);
    views_.runs->setMinimumWidth(300);
    runs_dock_ = new QDockWidget(tr("Project"), this);
    runs_dock_->setObjectName(QStringLiteral("projectDock"));
    runs_dock_->setWidget(views_.runs);
    runs_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, runs_dock_);
    runs_dock_->hide();
    resizeDocks({runs_dock_}, {470}, Qt::Horizontal);

    createParts();
    createStatusBar();

    const DeviceReport devices = detectDevices();
    const QStringList lines = DisplayText::deviceLines(devices);
    empty_view_->setMachineSummary(lines);
    empty_view_->setRecentBaseFolders(settings_.recentBaseFolders());
    device_label_->setText(DisplayText::deviceStatus(devices));
    device_label_->setToolTip(lines.join(QLatin1Char('\n')));

    confirm_stop_ = [this] {
        return QMessageBox::question(
                   this, tr("A run is training"),
                   tr("Stop the run and quit? Headroom writes a checkpoint first, so you can "
                      "continue the run later."),
                   QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
    };
    views_.live->setSmoothing(settings_.get(settings::kLossSmoothing));
    views_.live->setLogScale(settings_.get(settings::kLossLogScale));
    connect(views_.live, &LiveView::smoothingChanged, this,
            [this](double weight) { settings_.set(settings::kLossSmoothing, weight); });
    connect(views_.live, &LiveView::logScaleChanged, this,
            [this](bool on) { settings_.set(settings::kLossLogScale, on); });
    views_.live->setFullBudgetScale(settings_.get(settings::kMemoryFullBudget));
    connect(views_.live, &LiveView::fullBudgetScaleChanged, this,
            [this](bool on) { settings_.set(settings::kMemoryFullBudget, on); });
    restoreGeometry(settings_.get(settings::kWindowGeometry));
    restoreState(settings_.get(settings::kWindowState));
    runs_dock_->hide(); // until a project is open
    menus_->updateRecentMenu();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createParts() {
    run_ = new RunControls(views_, this);
    exports_ = new RunExports(views_, this);
    ranks_ = new LocalRanksControls(views_, this);
    pretrained_ = new PretrainedControls(
        views_, settings_, [this] { return run_->isWritingProject(); }, this);
    gguf_ = new GgufExportControls(views_, this);
    WindowMenus::PartActions actions;
    actions.export_weights = exports_->exportWeightsAction();
    actions.export_metrics = exports_->exportMetricsAction();
    actions.export_hf = pretrained_->exportHfAction();
    actions.export_adapter = pretrained_->exportAdapterAction();
    actions.export_gguf = gguf_->exportAction();
    actions.locate_base = pretrained_->locateBaseAction();
    actions.start_ranks = ranks_->startAction();
    actions.evaluate = exports_->evaluateAction();
    menus_ = new WindowMenus(this, settings_, actions);

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

    connect(exports_, &RunExports::evaluationFinished, this, &MainWindow::evaluationFinished);
    connect(exports_, &RunExports::statusText, this, &MainWindow::showStatus);
    connect(exports_, &RunExports::actionsChanged, this, &MainWindow::updateActions);

    connect(ranks_, &LocalRanksControls::startRequested, this, [this](int ranks) {
        const QString error = startLocalRanks(ranks);
        if (!error.isEmpty()) {
            QMessageBox::warning(this, tr("Cannot start"), error);
        }
    });
    connect(ranks_, &LocalRanksControls::statusText, this, &MainWindow::showStatus);
    connect(ranks_, &LocalRanksControls::actionsChanged, this, &MainWindow::updateActions);

    connect(pretrained_, &PretrainedControls::exportFinished, this, &MainWindow::exportFinished);
    connect(pretrained_, &PretrainedControls::baseModelChanged, run_, &RunControls::refreshRuns);
    connect(pretrained_, &PretrainedControls::statusText, this, &MainWindow::showStatus);
    connect(pretrained_, &PretrainedControls::actionsChanged, this, &MainWindow::updateActions);
    connect(gguf_, &GgufExportControls::exportFinished, this, &MainWindow::exportFinished);
    connect(gguf_, &GgufExportControls::statusText, this, &MainWindow::showStatus);
    connect(gguf_, &GgufExportControls::actionsChanged, this, &MainWindow::updateActions);

    connect(menus_, &WindowMenus::newProjectRequested, this, [this] { showNewProjectDialog(); });
    connect(menus_, &WindowMenus::openProjectRequested, this, &MainWindow::chooseProjectToOpen);
    connect(menus_, &WindowMenus::recentProjectChosen, this, &MainWindow::openProjectInteractively);
    connect(menus_, &WindowMenus::saveAsRequested, this, &MainWindow::chooseSaveAsPath);
    connect(menus_, &WindowMenus::reloadRequested, run_, &RunControls::refreshRuns);
    connect(menus_, &WindowMenus::startRequested, this, [this](bool continue_last) {
        const QString error = startRun(continue_last);
        if (!error.isEmpty()) {
            QMessageBox::warning(this, continue_last ? tr("Cannot continue") : tr("Cannot start"),
                                 error);
        }
    });
    connect(menus_, &WindowMenus::pauseRequested, this, &MainWindow::pauseRun);
    connect(menus_, &WindowMenus::resumeRequested, this, &MainWindow::resumeRun);
    connect(menus_, &WindowMenus::stopRequested, this, &MainWindow::stopRun);

    connect(empty_view_, &EmptyProjectView::pretrainedProjectRequested, this,
            &MainWindow::showPretrainedProjectDialog);
    connect(empty_view_, &EmptyProjectView::newProjectRequested, this,
            &MainWindow::showScratchProjectDialog);
    connect(empty_view_, &EmptyProjectView::openProjectRequested, this,
            &MainWindow::chooseProjectToOpen);
    connect(views_.profile, &ProfileView::profilingChanged, this, &MainWindow::updateActions);
}

void MainWindow::createStatusBar() {
    run_state_label_ = new ElidedLabel(this);
    run_state_label_->setText(tr("No project"));
    run_state_label_->setObjectName(QStringLiteral("runStateLabel"));
    device_label_ = new ElidedLabel(this);
    device_label_->setObjectName(QStringLiteral("deviceLabel"));
    statusBar()->addWidget(run_state_label_, 1);
    statusBar()->addPermanentWidget(run_->progressBar());
    statusBar()->addPermanentWidget(run_->etaLabel());
    statusBar()->addPermanentWidget(device_label_);
}

void MainWindow::updateActions() {
    WindowMenus::State state;
    state.has_project = !projectPath().isEmpty();
    state.has_runs = views_.runs->runCount() > 0;
    state.active = run_->isActive();
    state.session = run_->controller()->state();
    state.stop_requested = run_->controller()->isStopRequested();
    state.ranks_running = ranks_->isRunning();
    state.busy = state.active || run_->isWatchingExternalRun() || state.ranks_running;
    state.profiling = views_.profile->isProfiling();
    menus_->update(state);
    ranks_->startAction()->setEnabled(state.has_project && !state.busy && !state.profiling);
    exports_->updateActions(state.has_project, state.has_runs, state.active);
    pretrained_->updateActions(state.has_project, state.active);
    gguf_->updateActions(state.has_project, state.active);
    views_.profile->setBlocked(state.busy);
}

void MainWindow::showStatus(const QString &text) {
    run_state_label_->setText(text);
}

void MainWindow::chooseProjectToOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Project"), settings_.get(settings::kLastDirectory),
        tr("Headroom projects (*.headroom);;All files (*)"));
    if (!path.isEmpty()) {
        openProjectInteractively(path);
    }
}

void MainWindow::chooseSaveAsPath() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"),
                                                QFileInfo(projectPath()).absolutePath(),
                                                tr("Headroom projects (*.headroom)"));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".headroom");
    }
    const QString error = saveProjectAs(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Save Project As"), error);
    }
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
    return views_.runs->projectPath();
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
    if (views_.profile->isProfiling()) {
        return tr("a profile is running in this window; stop it first");
    }
    const QString plan_error = views_.plan->load(path);
    if (!plan_error.isEmpty()) {
        return plan_error;
    }
    const QString error = views_.runs->load(path);
    if (!error.isEmpty()) {
        return error;
    }
    central_->setCurrentWidget(views_.tabs);
    runs_dock_->show();
    setWindowTitle(tr("%1 — Headroom").arg(QFileInfo(path).completeBaseName()));
    settings_.addRecentProject(path);
    settings_.set(settings::kLastDirectory, QFileInfo(path).absolutePath());
    menus_->updateRecentMenu();
    views_.log->clear();
    views_.live->beginRun(0, tr("No run selected: press Start to train, or pick a run in the "
                                "Project panel."));
    views_.live->setBudget(views_.plan->config().bytes("memory.budget"));
    views_.compare->setRuns(path, views_.runs->runs());
    views_.try_view->setProject(path, views_.runs->runs());
    views_.profile->setProjectPath(path);
    run_state_label_->setText(tr("Runs: %1").arg(views_.runs->runCount()));
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
    if (views_.profile->isProfiling()) {
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
    menus_->pauseAction()->setEnabled(false);
}

void MainWindow::resumeRun() {
    run_->resume();
    menus_->resumeAction()->setEnabled(false);
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

QString MainWindow::exportGguf(const QString &file, const QString &quant, bool ollama_modelfile) {
    return gguf_->exportGguf(file, quant, ollama_modelfile);
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

ConfigWizard *MainWindow::openWizard() {
    auto *wizard = new ConfigWizard(this);
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    wizard->setRecentBaseFolders(settings_.recentBaseFolders());
    connect(wizard, &QDialog::accepted, this, [this, wizard] {
        if (!wizard->baseFolder().isEmpty()) {
            settings_.addRecentBaseFolder(wizard->baseFolder());
            empty_view_->setRecentBaseFolders(settings_.recentBaseFolders());
        }
        openProjectInteractively(wizard->projectPath());
    });
    wizard->open();
    return wizard;
}

ConfigWizard *MainWindow::showNewProjectDialog(const QString &data_path) {
    ConfigWizard *wizard = openWizard();
    if (!data_path.isEmpty()) {
        wizard->setDataPath(data_path);
    }
    return wizard;
}

ConfigWizard *MainWindow::showPretrainedProjectDialog(const QString &base_folder) {
    ConfigWizard *wizard = openWizard();
    wizard->setBaseFolder(base_folder);
    return wizard;
}

ConfigWizard *MainWindow::showScratchProjectDialog() {
    ConfigWizard *wizard = openWizard();
    wizard->startFromScratch();
    return wizard;
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
