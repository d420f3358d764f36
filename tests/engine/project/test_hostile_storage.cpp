// The disk fills up (simulated with RLIMIT_FSIZE: writes past the limit fail with EFBIG, as on a
// full disk) while a run writes its metrics: the writer reports a clear error, everything
// committed before stays, and the rows that could not be written are kept and written once
// the disk accepts them again. An error SQLite reports after a commit already happened does not
// make the writer count the committed rows as waiting, nor write them twice.
#include "sample_files.h"
#include "training_support.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <sqlite3.h>
#include <string>
#include <sys/resource.h>

using headroom::EngineEvent;
using headroom::EvalMetrics;
using headroom::MetricsWriter;
using headroom::Project;
using headroom::ProjectError;
using headroom::StepMetrics;

namespace {

namespace fs = std::filesystem;

StepMetrics stepRow(std::int64_t step) {
    StepMetrics metrics;
    metrics.step = step;
    metrics.loss = 1.0 / static_cast<double>(step);
    metrics.micro_batch = 8;
    metrics.accumulation = 1;
    metrics.samples_digest = std::string(64, 'a' + static_cast<char>(step % 26));
    return metrics;
}

std::uintmax_t sizeOrZero(const std::string &path) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    return error ? 0 : size;
}

// Files this process writes may not grow past `bytes` until destroyed.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        previous_handler_ = std::signal(SIGXFSZ, SIG_IGN); // EFBIG instead of a core dump
        rlimit limit = saved_;
        limit.rlim_cur = bytes;
        active_ = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit() { lift(); }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;

    bool active() const { return active_; }
    void lift() {
        if (active_) {
            setrlimit(RLIMIT_FSIZE, &saved_);
            std::signal(SIGXFSZ, previous_handler_);
            active_ = false;
        }
    }

private:
    rlimit saved_{};
    void (*previous_handler_)(int) = SIG_DFL;
    bool active_ = false;
};

// The default SQLite file system, except that while armed the main database file fails the last
// phase of a commit: SQLite calls it once the transaction is in the write-ahead log and visible
// to every reader, and reports its error as the COMMIT's, as a failing step after a commit would.
class FailAfterCommit {
public:
    FailAfterCommit() {
        base_ = sqlite3_vfs_find(nullptr);
        vfs_ = *base_;
        vfs_.zName = "headroom-fail-after-commit";
        vfs_.pAppData = this;
        vfs_.xOpen = &FailAfterCommit::open;
        registered_ = sqlite3_vfs_register(&vfs_, 1) == SQLITE_OK;
        instance_ = this;
    }
    ~FailAfterCommit() {
        if (registered_) {
            sqlite3_vfs_unregister(&vfs_);
        }
        instance_ = nullptr;
    }
    FailAfterCommit(const FailAfterCommit &) = delete;
    FailAfterCommit &operator=(const FailAfterCommit &) = delete;

    bool registered() const { return registered_; }
    void arm(int commits) { failures_left_ = commits; }
    int failuresLeft() const { return failures_left_; }

private:
    static int open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
                    int *out_flags) {
        auto *self = static_cast<FailAfterCommit *>(vfs->pAppData);
        const int code = self->base_->xOpen(self->base_, name, file, flags, out_flags);
        if (code == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_DB) != 0 && file->pMethods) {
            self->real_methods_ = file->pMethods;
            self->methods_ = *file->pMethods;
            self->methods_.xFileControl = &FailAfterCommit::fileControl;
            file->pMethods = &self->methods_;
        }
        return code;
    }
    static int fileControl(sqlite3_file *file, int op, void *argument) {
        FailAfterCommit &self = *instance_; // file controls do not see the VFS
        if (op == SQLITE_FCNTL_COMMIT_PHASETWO && self.failures_left_ > 0) {
            --self.failures_left_;
            return SQLITE_IOERR_FSYNC;
        }
        return self.real_methods_->xFileControl(file, op, argument);
    }

    static FailAfterCommit *instance_;
    sqlite3_vfs *base_ = nullptr;
    sqlite3_vfs vfs_{};
    const sqlite3_io_methods *real_methods_ = nullptr;
    sqlite3_io_methods methods_{};
    std::atomic<int> failures_left_{0};
    bool registered_ = false;
};

FailAfterCommit *FailAfterCommit::instance_ = nullptr;

} // namespace

class TestHostileStorage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fullDiskKeepsCommittedMetricsAndRetries();
    void fullDiskPausesARunAtItsNextCheckpoint();
    void anErrorAfterTheCommitCountsTheRowsAsWritten();
};

void TestHostileStorage::fullDiskKeepsCommittedMetricsAndRetries() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("full.headroom").toStdString();
    Project project = Project::create(path, R"({"recipe":"gpt"})");
    const std::int64_t run = project.beginRun("{}", "cpu", 3000, 0);

    MetricsWriter writer(path, run);
    for (std::int64_t step = 1; step <= 50; ++step) {
        writer.post(stepRow(step));
    }
    writer.flush();

    std::size_t committed_while_full = 0;
    std::string last_committed_digest;
    const std::string error = [&] {
        // Nothing may grow any more: the next batch (hundreds of KiB) needs new pages.
        FileSizeLimit limit(std::max(sizeOrZero(path), sizeOrZero(path + "-wal")));
        if (!limit.active()) {
            return std::string("no limit");
        }
        for (std::int64_t step = 51; step <= 3000; ++step) {
            writer.post(stepRow(step));
        }
        std::string failure;
        try {
            writer.flush();
        } catch (const ProjectError &refused) {
            failure = refused.what();
        }
        // What was committed before the disk filled is intact, and readable by another
        // connection. Read while the disk is still full: the writer tries the waiting rows
        // again on its own after a second, and once there is room that retry may win.
        const Project view = Project::openReadOnly(path);
        const std::vector<StepMetrics> rows = view.metrics(run);
        committed_while_full = rows.size();
        last_committed_digest = rows.empty() ? std::string() : rows.back().samples_digest;
        return failure;
    }();
    QVERIFY2(error.find("the disk refused the write") != std::string::npos, error.c_str());
    QVERIFY2(error.find("2950 metrics rows wait in memory") != std::string::npos, error.c_str());
    QVERIFY2(error.find("everything written before is kept") != std::string::npos, error.c_str());
    QCOMPARE(committed_while_full, std::size_t{50});
    QCOMPARE(last_committed_digest, stepRow(50).samples_digest);

    // Space again: the kept rows are written, none twice, none lost.
    writer.flush();
    const std::vector<StepMetrics> rows = project.metrics(run);
    QCOMPARE(rows.size(), std::size_t{3000});
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QCOMPARE(rows[i].step, static_cast<std::int64_t>(i + 1));
    }
    QVERIFY(project.integrityProblems().empty());
}

void TestHostileStorage::fullDiskPausesARunAtItsNextCheckpoint() {
    using namespace test_support;
    QTemporaryDir dir;
    const QString corpus = writeFile(QDir(dir.path()), "corpus.txt", storyText(300));
    const QString project =
        createTestProject(dir.filePath("paused.headroom"), corpus, "gpt", kTinyGpt);
    Recorder first;
    QCOMPARE(name(runSession(project, first, {}, 4).state), name(headroom::SessionState::Stopped));

    headroom::RunResult paused;
    {
        // Room for the run's records, none for a checkpoint (hundreds of KiB).
        FileSizeLimit limit(std::max<rlim_t>(sizeOrZero(project.toStdString()), 64 * 1024) +
                            32 * 1024);
        if (!limit.active()) {
            QSKIP("cannot limit the file size here");
        }
        Recorder second;
        paused = runSession(project, second, {}, 0, true);
    }
    QCOMPARE(name(paused.state), name(headroom::SessionState::Paused));
    QVERIFY(paused.failure == headroom::FailureKind::CannotContinue);
    const QString message = QString::fromStdString(paused.message);
    QVERIFY2(message.contains("cannot save the checkpoint at step 8"), qPrintable(message));
    QVERIFY2(message.contains("the checkpoint at step 4 is kept"), qPrintable(message));
    QVERIFY2(message.contains("--resume"), qPrintable(message));

    // Space again: the run continues from the kept checkpoint and finishes.
    Recorder third;
    QCOMPARE(name(runSession(project, third, {}, 0, true).state),
             name(headroom::SessionState::Finished));
    QCOMPARE(headroom::Project::open(project.toStdString()).runs().back().last_step,
             std::int64_t{16});
}

void TestHostileStorage::anErrorAfterTheCommitCountsTheRowsAsWritten() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("late-error.headroom").toStdString();
    FailAfterCommit faults;
    QVERIFY(faults.registered());
    {
        Project project = Project::create(path, R"({"recipe":"gpt"})");
        const std::int64_t run = project.beginRun("{}", "cpu", 100, 0);
        MetricsWriter writer(path, run);
        for (std::int64_t step = 1; step <= 40; ++step) {
            writer.post(stepRow(step));
        }
        writer.flush();

        // The next commit reaches the database and then reports an error.
        faults.arm(1);
        for (std::int64_t step = 41; step <= 100; ++step) {
            writer.post(stepRow(step));
        }
        EvalMetrics evaluation;
        evaluation.step = 100;
        evaluation.loss = 0.5;
        writer.post(evaluation);
        EngineEvent event;
        event.kind = "oom";
        event.step = 77;
        event.message = "micro-batch 8 -> 4";
        writer.post(event);
        writer.flush(); // the rows are in the database: nothing is reported as waiting
        QCOMPARE(faults.failuresLeft(), 0);

        // The writer goes on: the next batch is written, and nothing before it twice.
        EngineEvent checkpoint;
        checkpoint.kind = "checkpoint";
        checkpoint.step = 100;
        checkpoint.message = "checkpoint at step 100";
        writer.post(checkpoint);
        writer.flush();
        const std::vector<StepMetrics> rows = project.metrics(run);
        QCOMPARE(rows.size(), std::size_t{100});
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].step, static_cast<std::int64_t>(i + 1));
        }
        QCOMPARE(project.evaluations(run).size(), std::size_t{1});
        QCOMPARE(project.events(run).size(), std::size_t{2});
    }
    // A fresh connection recovers the file as it is on disk: the same rows, once each.
    const Project view = Project::openReadOnly(path);
    QCOMPARE(view.metrics(1).size(), std::size_t{100});
    QCOMPARE(view.events(1).size(), std::size_t{2});
    QVERIFY(view.integrityProblems().empty());
}

QTEST_GUILESS_MAIN(TestHostileStorage)
#include "test_hostile_storage.moc"
