#pragma once

#include <QObject>

#include <functional>

class QThread;

namespace headroom::ui {

// Runs one piece of work on its own thread and reports back on the owner's thread: the UI
// thread never waits, except in the destructor, which joins the thread (the work is expected
// to notice a cancel flag of its own to finish early).
class BackgroundJob : public QObject {
    Q_OBJECT

public:
    explicit BackgroundJob(QObject *parent = nullptr);
    ~BackgroundJob() override;

    bool isRunning() const { return thread_ != nullptr; }
    // Starts `work` on a new thread; `done` runs on this object's thread when it returned.
    // Ignored while a job runs (check isRunning()).
    void start(std::function<void()> work, std::function<void()> done);

Q_SIGNALS:
    void finished();

private:
    QThread *thread_ = nullptr;
};

} // namespace headroom::ui
