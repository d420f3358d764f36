#include "main_window/LocalRanksControls.h"

#include "runs/LocalRanksRun.h"
#include "views/LiveView.h"
#include "views/LogView.h"

#include <QAction>
#include <QInputDialog>
#include <QTabWidget>
#include <QThread>

#include <algorithm>

namespace headroom::ui {

LocalRanksControls::LocalRanksControls(const WindowViews &views, QObject *parent)
    : QObject(parent), views_(views) {
    run_ = new LocalRanksRun(this);
    start_action_ = new QAction(MainWindowText::tr("Start on Several &Processes…"), views_.window);
    start_action_->setStatusTip(MainWindowText::tr(
        "Train with data parallel ranks on this machine (headroom-cli train --nproc N)"));
    connect(start_action_, &QAction::triggered, this, [this] {
        const int cores = std::max(2, QThread::idealThreadCount());
        bool ok = false;
        const int ranks = QInputDialog::getInt(
            views_.window, MainWindowText::tr("Start on Several Processes"),
            MainWindowText::tr("Processes (ranks), each training its share of every step:"), 2, 2,
            cores, 1, &ok);
        if (ok) {
            Q_EMIT startRequested(ranks);
        }
    });
    connect(run_, &LocalRanksRun::finished, this, [this](int exit_code, const QString &message) {
        if (exit_code != 0 && !message.isEmpty()) {
            views_.log->setDiagnosis(message);
            Q_EMIT statusText(MainWindowText::tr("The run on %1 processes ended with exit code %2")
                                  .arg(run_->ranks())
                                  .arg(exit_code));
        }
        Q_EMIT actionsChanged();
    });
}

bool LocalRanksControls::isRunning() const {
    return run_->isRunning();
}

QString LocalRanksControls::start(const QString &project_path, int ranks) {
    views_.log->setDiagnosis({});
    const QString error = run_->start(project_path, ranks, false);
    if (error.isEmpty()) {
        Q_EMIT statusText(MainWindowText::tr("Starting %1 processes…").arg(ranks));
        views_.tabs->setCurrentWidget(views_.live);
    }
    Q_EMIT actionsChanged();
    return error;
}

bool LocalRanksControls::stop() {
    if (!run_->isRunning()) {
        return false;
    }
    run_->stop();
    Q_EMIT statusText(MainWindowText::tr("Stopping every rank after this step…"));
    return true;
}

} // namespace headroom::ui
