// The disk fills up (simulated with RLIMIT_FSIZE: writes past the limit fail with EFBIG, as on a
// full disk) while a run writes its metrics: the writer reports a clear error, everything
// committed before stays, and the rows that could not be written are kept and written once
// the disk accepts them again.
#include "sample_files.h"
#include "training_support.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <sys/resource.h>

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

} // namespace

class TestHostileStorage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fullDiskKeepsCommittedMetricsAndRetries();
    void fullDiskPausesARunAtItsNextCheckpoint();
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

    const std::string error = [&] {
        // Nothing may grow any more: the next batch (hundreds of KiB) needs new pages.
        FileSizeLimit limit(std::max(sizeOrZero(path), sizeOrZero(path + "-wal")));
        if (!limit.active()) {
            return std::string("no limit");
        }
        for (std::int64_t step = 51; step <= 3000; ++step) {
            writer.post(stepRow(step));
        }
        try {
            writer.flush();
        } catch (const ProjectError &failure) {
            return std::string(failure.what());
        }
        return std::string();
    }();
    QVERIFY2(error.find("the disk refused the write") != std::string::npos, error.c_str());
    QVERIFY2(error.find("2950 metrics rows wait in memory") != std::string::npos, error.c_str());
    QVERIFY2(error.find("everything written before is kept") != std::string::npos, error.c_str());

    // What was committed before the disk filled is intact, and readable by another connection.
    {
        const Project view = Project::openReadOnly(path);
        const std::vector<StepMetrics> rows = view.metrics(run);
        QCOMPARE(rows.size(), std::size_t{50});
        QCOMPARE(rows.back().step, std::int64_t{50});
        QCOMPARE(rows.back().samples_digest, stepRow(50).samples_digest);
    }

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

QTEST_GUILESS_MAIN(TestHostileStorage)
#include "test_hostile_storage.moc"
