#include "BackgroundJob.h"

#include <QThread>

namespace headroom::ui {

BackgroundJob::BackgroundJob(QObject *parent) : QObject(parent) {}

BackgroundJob::~BackgroundJob() {
    if (thread_) {
        thread_->wait();
        delete thread_;
    }
}

void BackgroundJob::start(std::function<void()> work, std::function<void()> done) {
    if (thread_) {
        return;
    }
    thread_ = QThread::create(std::move(work));
    connect(thread_, &QThread::finished, this, [this, done = std::move(done)] {
        thread_->deleteLater();
        thread_ = nullptr;
        done();
        Q_EMIT finished();
    });
    thread_->start();
}

} // namespace headroom::ui
