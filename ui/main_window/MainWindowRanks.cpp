// Data-parallel runs on this machine, started from the window: the ranks are headroom-cli
// processes (LocalRanksRun); the window follows rank 0's writes like any run another process
// trains (RunWatcher), the Live view adding a Ranks plot.
#include "main_window/MainWindow.h"
#include "runs/LocalRanksRun.h"
#include "runs/SessionController.h"
#include "views/LiveView.h"
#include "views/LogView.h"
#include "views/ProfileView.h"

#include <QAction>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QTabWidget>
#include <QThread>

#include <algorithm>

namespace headroom::ui {

void MainWindow::createRanksAction() {
    local_ranks_ = new LocalRanksRun(this);
    start_ranks_action_ = new QAction(tr("Start on Several &Processes…"), this);
    start_ranks_action_->setStatusTip(
        tr("Train with data parallel ranks on this machine (headroom-cli train --nproc N)"));
    connect(start_ranks_action_, &QAction::triggered, this, [this] {
        const int cores = std::max(2, QThread::idealThreadCount());
        bool ok = false;
        const int ranks = QInputDialog::getInt(
            this, tr("Start on Several Processes"),
            tr("Processes (ranks), each training its share of every step:"), 2, 2, cores, 1, &ok);
        if (!ok) {
            return;
        }
        const QString error = startLocalRanks(ranks);
        if (!error.isEmpty()) {
            QMessageBox::warning(this, tr("Cannot start"), error);
        }
    });
    connect(local_ranks_, &LocalRanksRun::finished, this,
            [this](int exit_code, const QString &message) {
                if (exit_code != 0 && !message.isEmpty()) {
                    log_view_->setDiagnosis(message);
                    run_state_label_->setText(tr("The run on %1 processes ended with exit code %2")
                                                  .arg(local_ranks_->ranks())
                                                  .arg(exit_code));
                }
                updateActions();
            });
}

QString MainWindow::startLocalRanks(int ranks) {
    if (projectPath().isEmpty()) {
        return tr("Open or create a project first.");
    }
    if (controller_->isActive() || watching_external_run_ || local_ranks_->isRunning()) {
        return tr("A run is already training this project.");
    }
    if (profile_view_->isProfiling()) {
        return tr("A profile is running: start the run when it has ended.");
    }
    log_view_->setDiagnosis({});
    const QString error = local_ranks_->start(projectPath(), ranks, false);
    if (error.isEmpty()) {
        run_state_label_->setText(tr("Starting %1 processes…").arg(ranks));
        tabs_->setCurrentWidget(live_view_);
    }
    updateActions();
    return error;
}

bool MainWindow::stopLocalRanks() {
    if (!local_ranks_->isRunning()) {
        return false;
    }
    local_ranks_->stop();
    run_state_label_->setText(tr("Stopping every rank after this step…"));
    return true;
}

} // namespace headroom::ui
