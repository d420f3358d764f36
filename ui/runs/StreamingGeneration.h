#pragma once

#include <headroom/pretrained.h>

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace headroom::ui {

class BackgroundJob;

// One text generation at a time on a worker thread, its text streamed to this object's (the
// UI) thread: the engine's pieces gather in a buffer and at most one queued call at a time
// hands what gathered to textArrived, so a fast model cannot flood the event loop. finished
// follows the last piece of text. stop() sets the engine's stop flag; the destructor sets it
// too and joins the worker.
class StreamingGeneration : public QObject {
    Q_OBJECT

public:
    using TextCallback = std::function<void(const std::string &)>;
    // generateText's shape; called on the worker thread.
    using GenerateFunction = std::function<GenerateResult(
        const GenerateRequest &, const TextCallback &, const std::atomic<bool> *)>;

    explicit StreamingGeneration(QObject *parent = nullptr);
    ~StreamingGeneration() override;

    // Starts generate(request) on a worker thread; returns false, starting nothing, while a
    // generation runs.
    bool start(const GenerateRequest &request, GenerateFunction generate = generateText);
    // Asks the running generation to end after the current token; nothing when none runs.
    void stop();
    bool isRunning() const;

Q_SIGNALS:
    // Text decoded since the last textArrived (never empty).
    void textArrived(const QString &text);
    // The generation returned (result) or threw (error, the exception's message; empty
    // otherwise). isRunning() is false by now and all its text has arrived.
    void finished(const headroom::GenerateResult &result, const QString &error);

private:
    struct Stream;

    void drain();

    BackgroundJob *job_ = nullptr;
    std::shared_ptr<Stream> stream_;
    std::shared_ptr<std::atomic<bool>> stop_flag_;
};

} // namespace headroom::ui
