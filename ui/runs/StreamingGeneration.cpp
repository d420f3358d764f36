#include "runs/StreamingGeneration.h"

#include "wizard/BackgroundJob.h"

#include <exception>
#include <mutex>
#include <utility>

namespace headroom::ui {

namespace {
struct Outcome {
    GenerateResult result;
    QString error;
};
} // namespace

// Text pieces from the worker, waiting for the UI thread; at most one drain is queued.
struct StreamingGeneration::Stream {
    std::mutex mutex;
    std::string pending;
    bool posted = false;
};

StreamingGeneration::StreamingGeneration(QObject *parent)
    : QObject(parent), job_(new BackgroundJob(this)) {}

StreamingGeneration::~StreamingGeneration() {
    if (stop_flag_) {
        *stop_flag_ = true;
    }
    delete job_; // joins the generation before this object goes
}

bool StreamingGeneration::isRunning() const {
    return job_->isRunning();
}

bool StreamingGeneration::start(const GenerateRequest &request, GenerateFunction generate) {
    if (isRunning()) {
        return false;
    }
    stream_ = std::make_shared<Stream>();
    stop_flag_ = std::make_shared<std::atomic<bool>>(false);
    auto outcome = std::make_shared<Outcome>();
    job_->start(
        [this, generate = std::move(generate), request, stream = stream_, stop = stop_flag_,
         outcome] {
            const auto on_text = [this, stream](const std::string &piece) {
                bool post = false;
                {
                    const std::lock_guard<std::mutex> lock(stream->mutex);
                    stream->pending += piece;
                    post = !std::exchange(stream->posted, true);
                }
                if (post) {
                    QMetaObject::invokeMethod(this, &StreamingGeneration::drain,
                                              Qt::QueuedConnection);
                }
            };
            try {
                outcome->result = generate(request, on_text, stop.get());
            } catch (const std::exception &failure) {
                outcome->error = QString::fromUtf8(failure.what());
            }
        },
        [this, outcome] {
            drain();
            stream_.reset();
            Q_EMIT finished(outcome->result, outcome->error);
        });
    return true;
}

void StreamingGeneration::stop() {
    if (stop_flag_ && isRunning()) {
        *stop_flag_ = true;
    }
}

void StreamingGeneration::drain() {
    if (!stream_) {
        return;
    }
    std::string pending;
    {
        const std::lock_guard<std::mutex> lock(stream_->mutex);
        pending.swap(stream_->pending);
        stream_->posted = false;
    }
    if (!pending.empty()) {
        Q_EMIT textArrived(QString::fromStdString(pending));
    }
}

} // namespace headroom::ui
