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
#include <vector>

namespace headroom {

namespace {

// A batch is committed when this many rows wait or the oldest has waited this long.
constexpr std::size_t kBatchRows = 256;
constexpr std::chrono::milliseconds kBatchDelay{200};
constexpr std::chrono::milliseconds kRetryDelay{1000};

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
    std::uint64_t committed = 0;       // rows written
    std::uint64_t dropped = 0;         // rows refused for good; committed + dropped -> posted
    std::uint64_t failed_attempts = 0; // a flush() that sees this grow reports the failure
    std::uint64_t flush_requests = 0;
    bool stopping = false;
    bool writer_exited = false;
    std::string storage_error; // the storage refused the rows waiting now; cleared by a success
    std::string dropped_error; // why rows were dropped; reported (and cleared) by one flush()

    std::uint64_t settled() const { return committed + dropped; }

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

    // The statements that write a row and that look it up, one pair per kind of row.
    struct Statements {
        explicit Statements(project::Database &db)
            : step(db, project::kUpsertStepSql), evaluation(db, project::kUpsertEvaluationSql),
              event(db, project::kInsertEventSql), stored_step(db, project::kStoredStepSql),
              stored_evaluation(db, project::kStoredEvaluationSql),
              stored_event(db, project::kStoredEventSql) {}
        project::Statement step, evaluation, event;
        project::Statement stored_step, stored_evaluation, stored_event;
    };

    // A batch the storage refused (disk full, read-only, no permission) goes back to the front
    // of the queue and is tried again after kRetryDelay, on the next flush() or when the writer
    // stops: such rows are dropped only if the very last attempt fails. A batch refused for
    // another reason (a constraint) is dropped and reported once. Rows the database holds in
    // spite of the error count as written (SQLite can report a failure of a commit's last phase
    // after the transaction became visible); every write is idempotent, so no retry doubles one.
    void runWriter() {
        Statements statements(db);

        std::unique_lock<std::mutex> lock(mutex);
        std::uint64_t seen_flush_requests = 0;
        bool failing = false;
        for (;;) {
            wake_writer.wait(lock, [&] { return !queue.empty() || stopping; });
            if (queue.empty()) {
                return; // stopping with nothing left
            }
            const Clock::time_point due =
                failing ? Clock::now() + kRetryDelay : oldest_queued + kBatchDelay;
            wake_writer.wait_until(lock, due, [&] {
                return (!failing && queue.size() >= kBatchRows) ||
                       flush_requests != seen_flush_requests || stopping;
            });
            seen_flush_requests = flush_requests;
            const bool last_attempt = stopping;
            std::deque<Row> batch;
            batch.swap(queue);
            lock.unlock();

            std::string failure;
            bool retry = false;
            try {
                writeBatch(batch, statements);
            } catch (const project::StorageError &e) {
                failure = e.what();
                retry = true;
            } catch (const std::exception &e) {
                failure = e.what(); // e.g. a constraint: writing it again cannot help
            }
            std::size_t written = batch.size();
            if (!failure.empty()) {
                batch = rowsNotStored(std::move(batch), statements);
                written -= batch.size();
                if (batch.empty()) {
                    failure.clear(); // the error came after the commit
                }
            }

            lock.lock();
            failing = retry && !failure.empty();
            committed += written;
            if (failure.empty()) {
                storage_error.clear();
            } else if (!retry) {
                dropped_error = failure;
                ++failed_attempts;
                dropped += batch.size();
            } else {
                storage_error = failure;
                ++failed_attempts;
                if (last_attempt) {
                    return; // the destructor reports what was lost
                }
                for (auto row = batch.rbegin(); row != batch.rend(); ++row) {
                    queue.push_front(std::move(*row));
                }
                oldest_queued = Clock::now();
            }
            committed_changed.notify_all();
        }
    }

    void writeBatch(const std::deque<Row> &batch, Statements &statements) {
        project::Transaction transaction(db);
        for (const Row &row : batch) {
            if (const auto *metrics = std::get_if<StepMetrics>(&row)) {
                project::bindStep(statements.step, run_id, *metrics);
                statements.step.run("write step metrics");
            } else if (const auto *eval = std::get_if<TimedEvaluation>(&row)) {
                project::bindEvaluation(statements.evaluation, run_id, eval->metrics,
                                        project::isoTimestamp(eval->time));
                statements.evaluation.run("write an evaluation");
            } else if (const auto *timed = std::get_if<TimedEvent>(&row)) {
                project::bindEvent(statements.event, run_id, timed->event,
                                   project::isoTimestamp(timed->time));
                statements.event.run("write an event");
            }
        }
        transaction.commit();
    }

    // The rows of a batch whose write failed that the database does not hold. When it cannot
    // even be read, every row counts as not held.
    std::deque<Row> rowsNotStored(std::deque<Row> batch, Statements &statements) {
        std::vector<bool> stored(batch.size(), false);
        try {
            for (std::size_t i = 0; i < batch.size(); ++i) {
                stored[i] = isStored(batch[i], statements);
            }
        } catch (const std::exception &) {
            return batch;
        }
        std::deque<Row> missing;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (!stored[i]) {
                missing.push_back(std::move(batch[i]));
            }
        }
        return missing;
    }

    bool isStored(const Row &row, Statements &statements) {
        if (const auto *metrics = std::get_if<StepMetrics>(&row)) {
            project::bindStep(statements.stored_step, run_id, *metrics);
            return statements.stored_step.step("look up step metrics");
        }
        if (const auto *eval = std::get_if<TimedEvaluation>(&row)) {
            project::bindEvaluation(statements.stored_evaluation, run_id, eval->metrics,
                                    project::isoTimestamp(eval->time));
            return statements.stored_evaluation.step("look up an evaluation");
        }
        const auto &timed = std::get<TimedEvent>(row);
        project::bindEvent(statements.stored_event, run_id, timed.event,
                           project::isoTimestamp(timed.time));
        return statements.stored_event.step("look up an event");
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
        if (!failure.empty()) {
            impl->dropped_error = failure;
            ++impl->failed_attempts;
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
    if (impl_->committed < impl_->posted) {
        // A destructor cannot throw; losing metrics silently would be worse than a log line.
        const std::string &cause =
            impl_->storage_error.empty() ? impl_->dropped_error : impl_->storage_error;
        std::cerr << "headroom: " << impl_->posted - impl_->committed << " metrics rows of run "
                  << impl_->run_id
                  << " were not written: " << (cause.empty() ? "the writer stopped" : cause)
                  << '\n';
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
    const std::uint64_t failures_before = impl_->failed_attempts;
    ++impl_->flush_requests;
    impl_->wake_writer.notify_one();
    impl_->committed_changed.wait(lock, [&] {
        return impl_->settled() >= target || impl_->failed_attempts != failures_before ||
               impl_->writer_exited;
    });
    if (!impl_->dropped_error.empty()) {
        const std::string error = std::move(impl_->dropped_error);
        impl_->dropped_error.clear();
        throw ProjectError(error);
    }
    if (impl_->settled() >= target) {
        return;
    }
    const std::uint64_t waiting = impl_->posted - impl_->settled();
    const std::string cause =
        impl_->storage_error.empty()
            ? "the metrics writer of run " + std::to_string(impl_->run_id) + " stopped"
            : impl_->storage_error;
    throw ProjectError(
        cause + " (" + std::to_string(waiting) + " metrics rows wait in memory" +
        (impl_->writer_exited ? "" : " and are written as soon as the disk accepts them") +
        "; everything written before is kept)");
}

} // namespace headroom
