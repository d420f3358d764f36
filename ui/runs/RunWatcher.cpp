#include "runs/RunWatcher.h"

#include "runs/RunPoller.h"

namespace headroom::ui {

RunWatcher::RunWatcher(QObject *parent) : QObject(parent) {
    qRegisterMetaType<headroom::RunRecord>();
    qRegisterMetaType<headroom::ui::RunEvent>();
    qRegisterMetaType<QVector<headroom::StepMetrics>>();
    qRegisterMetaType<QVector<headroom::EvalMetrics>>();
    thread_.setObjectName(QStringLiteral("headroom-run-watcher"));
    poller_ = new RunPoller(kDefaultIntervalMs);
    poller_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, poller_, &QObject::deleteLater);

    // Queued across threads; dropped here once watching stopped.
    connect(poller_, &RunPoller::runFound, this, [this](const RunRecord &run) {
        if (watching_) {
            run_id_ = run.id;
            Q_EMIT runFound(run);
        }
    });
    connect(poller_, &RunPoller::stepsArrived, this, [this](const QVector<StepMetrics> &steps) {
        if (watching_) {
            Q_EMIT stepsArrived(steps);
        }
    });
    connect(poller_, &RunPoller::evalsArrived, this, [this](const QVector<EvalMetrics> &evals) {
        if (watching_) {
            Q_EMIT evalsArrived(evals);
        }
    });
    connect(poller_, &RunPoller::eventArrived, this, [this](const RunEvent &event) {
        if (watching_) {
            Q_EMIT eventArrived(event);
        }
    });
    connect(poller_, &RunPoller::runEnded, this, [this](const RunRecord &run) {
        if (watching_) {
            run_id_ = 0;
            Q_EMIT runEnded(run);
        }
    });
    connect(poller_, &RunPoller::runsChanged, this, [this] {
        if (watching_) {
            Q_EMIT runsChanged();
        }
    });
    thread_.start();
}

RunWatcher::~RunWatcher() {
    thread_.quit();
    thread_.wait(); // at most one poll
}

void RunWatcher::watch(const QString &project_path) {
    watching_ = true;
    run_id_ = 0;
    RunPoller *poller = poller_;
    QMetaObject::invokeMethod(
        poller_, [poller, project_path] { poller->watch(project_path); }, Qt::QueuedConnection);
}

void RunWatcher::stopWatching() {
    watching_ = false;
    run_id_ = 0;
    RunPoller *poller = poller_;
    QMetaObject::invokeMethod(
        poller_, [poller] { poller->stopWatching(); }, Qt::QueuedConnection);
}

void RunWatcher::setInterval(int milliseconds) {
    RunPoller *poller = poller_;
    QMetaObject::invokeMethod(
        poller_, [poller, milliseconds] { poller->setInterval(milliseconds); },
        Qt::QueuedConnection);
}

void RunWatcher::pollSoon() {
    RunPoller *poller = poller_;
    QMetaObject::invokeMethod(
        poller_, [poller] { poller->poll(); }, Qt::QueuedConnection);
}

} // namespace headroom::ui
