#include "project/database.h"
#include "project/project_file.h"
#include "project/records.h"
#include "project/timestamps.h"

#include <headroom/project.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <variant>

namespace headroom {

namespace {

// A batch is committed when this many rows wait or the oldest has waited this long.
constexpr std::size_t kBatchRows = 256;
constexpr std::chrono::milliseconds kBatchDelay{200};

using Clock = std::chrono::steady_clock;

struct TimedEvaluation {
    EvalMetrics metrics;
    std::chrono::system_clock::time_point time;
};

struct TimedEvent {
    EngineEvent event;
    std::chrono::system_clock::time_point time;
};

using Row = std::variant<StepMetrics, TimedEvaluation, TimedEvent>;

} // namespace

struct MetricsWriter::Impl {
    std::int64_t run_id;
    project::Database db; // used only by the writer thread once it runs

    std::mutex mutex;
    std::condition_variable wake_writer;
    std::condition_variable committed_changed;
    std::deque<Row> queue;
    Clock::time_point oldest_queued{};
    std::uint64_t posted = 0;
    std::uint64_t committed = 0; // written or failed: flush() waits for this to reach posted
    int flush_waiters = 0;
    bool stopping = false;
    bool writer_exited = false;
    std::string error; // the first write failure since the last flush()

    std::thread thread;

    Impl(const std::string &path, std::int64_t run)
        : run_id(run), db(project::openProjectDatabase(path, project::Migration::Refused)) {
        project::Statement query(db, "SELECT 1 FROM runs WHERE id = ?1");
        if (!query.bind(1, run_id).step("look up the run")) {
            throw ProjectError("project '" + path + "' has no run " + std::to_string(run_id));
        }
    }

    void enqueue(Row row) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (queue.empty()) {
                oldest_queued = Clock::now();
            }
            queue.push_back(std::move(row));
            ++posted;
        }
        wake_writer.notify_one();
    }

    void runWriter() {
        project::Statement step(db, project::kUpsertStepSql);
        project::Statement evaluation(db, project::kUpsertEvaluationSql);
        project::Statement event(db, project::kInsertEventSql);

        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            wake_writer.wait(lock, [&] { return !queue.empty() || stopping; });
            if (queue.empty()) {
                return; // stopping with nothing left
            }
            wake_writer.wait_until(lock, oldest_queued + kBatchDelay, [&] {
                return queue.size() >= kBatchRows || flush_waiters > 0 || stopping;
            });
            std::deque<Row> batch;
            batch.swap(queue);
            lock.unlock();

            std::string failure;
            try {
                writeBatch(batch, step, evaluation, event);
            } catch (const std::exception &e) {
                failure = e.what();
            }

            lock.lock();
            if (!failure.empty() && error.empty()) {
                error = failure;
            }
            committed += batch.size();
            committed_changed.notify_all();
        }
    }

    void writeBatch(const std::deque<Row> &batch, project::Statement &step,
                    project::Statement &evaluation, project::Statement &event) {
        project::Transaction transaction(db);
        for (const Row &row : batch) {
            if (const auto *metrics = std::get_if<StepMetrics>(&row)) {
                project::bindStep(step, run_id, *metrics);
                step.run("write step metrics");
            } else if (const auto *eval = std::get_if<TimedEvaluation>(&row)) {
                project::bindEvaluation(evaluation, run_id, eval->metrics,
                                        project::isoTimestamp(eval->time));
                evaluation.run("write an evaluation");
            } else if (const auto *timed = std::get_if<TimedEvent>(&row)) {
                project::bindEvent(event, run_id, timed->event, project::isoTimestamp(timed->time));
                event.run("write an event");
            }
        }
        transaction.commit();
    }
};

MetricsWriter::MetricsWriter(const std::string &project_path, std::int64_t run_id)
    : impl_(std::make_unique<Impl>(project_path, run_id)) {
    impl_->thread = std::thread([impl = impl_.get()] {
        std::string failure;
        try {
            impl->runWriter();
        } catch (const std::exception &e) {
            failure = e.what(); // preparing the statements failed
        }
        std::lock_guard<std::mutex> lock(impl->mutex);
        if (!failure.empty() && impl->error.empty()) {
            impl->error = failure;
        }
        impl->writer_exited = true;
        impl->committed_changed.notify_all();
    });
}

MetricsWriter::~MetricsWriter() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->stopping = true;
    }
    impl_->wake_writer.notify_one();
    impl_->thread.join();
    if (!impl_->error.empty()) {
        // A destructor cannot throw; losing metrics silently would be worse than a log line.
        std::cerr << "headroom: metrics of run " << impl_->run_id
                  << " were not all written: " << impl_->error << '\n';
    }
}

void MetricsWriter::post(const StepMetrics &metrics) {
    impl_->enqueue(metrics);
}

void MetricsWriter::post(const EvalMetrics &metrics) {
    impl_->enqueue(TimedEvaluation{metrics, std::chrono::system_clock::now()});
}

void MetricsWriter::post(const EngineEvent &event) {
    impl_->enqueue(TimedEvent{event, std::chrono::system_clock::now()});
}

void MetricsWriter::flush() {
    std::unique_lock<std::mutex> lock(impl_->mutex);
    const std::uint64_t target = impl_->posted;
    ++impl_->flush_waiters;
    impl_->wake_writer.notify_one();
    impl_->committed_changed.wait(
        lock, [&] { return impl_->committed >= target || impl_->writer_exited; });
    --impl_->flush_waiters;
    if (impl_->committed < target && impl_->error.empty()) {
        impl_->error = "the metrics writer of run " + std::to_string(impl_->run_id) + " stopped";
    }
    if (!impl_->error.empty()) {
        const std::string error = std::move(impl_->error);
        impl_->error.clear();
        throw ProjectError(error);
    }
}

} // namespace headroom
