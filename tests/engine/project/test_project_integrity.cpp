// Project files from other processes and other people: the lock against a second writer,
// read-only opening, integrity failures past the schema, and stored paths that try to leave
// the project's folder. (Not-a-project, truncated, newer and older schemas: test_project.)
#include "project/migrations.h"
#include "project/project_lock.h"

#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sqlite3.h>
#include <string>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

using headroom::CheckpointRecord;
using headroom::Project;
using headroom::ProjectError;
using headroom::ProjectLockedError;
using headroom::RunStatus;

namespace {

namespace fs = std::filesystem;

const std::string kConfig = R"({"recipe":"gpt"})";

template <typename Action> std::string projectErrorOf(Action &&action) {
    try {
        action();
    } catch (const ProjectError &error) {
        return error.what();
    }
    return {};
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

bool rawExec(const std::string &path, const std::string &sql) {
    sqlite3 *db = nullptr;
    sqlite3_open(path.c_str(), &db);
    const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

// Another process holding the project's lock, as a second Headroom would: the child takes the
// flock on PATH-lock (only async-signal-safe calls after fork) and waits to be killed.
class LockHolder {
public:
    explicit LockHolder(const std::string &project_path) {
        const std::string lock_path = headroom::project::lockFilePath(project_path);
        int ready[2];
        if (pipe(ready) != 0) {
            return;
        }
        pid_ = fork();
        if (pid_ == 0) {
            const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT, 0644);
            const char holder[] = "pid 4242 on testhost since 2026-11-21T00:00:00.000Z\n";
            if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
                pwrite(fd, holder, sizeof holder - 1, 0) < 0) {
                _exit(1);
            }
            const char one = '1';
            if (write(ready[1], &one, 1) != 1) {
                _exit(1);
            }
            for (;;) {
                pause();
            }
        }
        ::close(ready[1]);
        char byte = 0;
        locked_ = pid_ > 0 && read(ready[0], &byte, 1) == 1;
        ::close(ready[0]);
    }
    ~LockHolder() { kill(); }
    LockHolder(const LockHolder &) = delete;
    LockHolder &operator=(const LockHolder &) = delete;

    bool locked() const { return locked_; }
    void kill() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
            pid_ = -1;
        }
    }

private:
    pid_t pid_ = -1;
    bool locked_ = false;
};

} // namespace

class TestProjectIntegrity : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void secondProcessIsToldToOpenReadOnly();
    void lockOfAKilledProcessNeverBlocks();
    void oneProcessMayOpenAProjectTwice();
    void readOnlyProjectRefusesEveryWrite();
    void readOnlyRefusesAnOlderSchema();
    void readOnlyFolderOffersReadOnlyOpening();
    void damagedDataPagesFailTheIntegrityCheck();
    void hostileStoredPathsAreRefused_data();
    void hostileStoredPathsAreRefused();
    void symbolicLinksCannotLeadOutOfTheDataFolder();
};

void TestProjectIntegrity::secondProcessIsToldToOpenReadOnly() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("shared.headroom").toStdString();
    Project::create(path, kConfig).beginRun(kConfig, "cpu", 10, 0);

    LockHolder other(path);
    QVERIFY(other.locked());
    bool locked = false;
    std::string message;
    try {
        Project::open(path);
    } catch (const ProjectLockedError &error) {
        locked = true;
        message = error.what();
    }
    QVERIFY2(locked, "Project::open did not notice the other process");
    QVERIFY2(contains(message, path), message.c_str());
    QVERIFY2(contains(message, "is open in another process"), message.c_str());
    QVERIFY2(contains(message, "pid 4242 on testhost"), message.c_str()); // names the holder
    QVERIFY2(contains(message, "open it read-only"), message.c_str());

    // What the message offers works, and sees the other process's run as it is.
    const Project view = Project::openReadOnly(path);
    QVERIFY(view.isReadOnly());
    QCOMPARE(view.runs().size(), std::size_t{1});
    QVERIFY(view.runs()[0].status == RunStatus::Running);
}

void TestProjectIntegrity::lockOfAKilledProcessNeverBlocks() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("killed.headroom").toStdString();
    Project::create(path, kConfig).beginRun(kConfig, "cpu", 10, 0);
    LockHolder other(path);
    QVERIFY(other.locked());
    QVERIFY(!projectErrorOf([&] { Project::open(path); }).empty());

    other.kill(); // SIGKILL: no chance to clean up; the lock file stays behind
    QVERIFY(fs::exists(headroom::project::lockFilePath(path)));
    Project project = Project::open(path);
    QVERIFY(!project.isReadOnly());
    // Holding the lock proves nobody runs the run any more.
    QCOMPARE(project.markAbandonedRunsInterrupted(), 1);
    QVERIFY(project.runs()[0].status == RunStatus::Interrupted);
}

void TestProjectIntegrity::oneProcessMayOpenAProjectTwice() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("twice.headroom").toStdString();
    Project first = Project::create(path, kConfig);
    {
        Project second = Project::open(path); // e.g. the trainer and a view in one app
        second.beginRun(kConfig, "cpu", 5, 0);
    }
    QCOMPARE(first.runs().size(), std::size_t{1});
    // Closing one of them kept the lock for the other.
    LockHolder other(path);
    QVERIFY(!other.locked());
}

void TestProjectIntegrity::readOnlyProjectRefusesEveryWrite() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("ro.headroom").toStdString();
    std::int64_t run = 0;
    {
        Project project = Project::create(path, kConfig);
        run = project.beginRun(kConfig, "cpu", 10, 0);
        project.addCheckpoint({0, run, 5, "run-1/step-5.pt", "ab", 2, ""});
    }
    Project project = Project::openReadOnly(path);
    QCOMPARE(project.configJson(), kConfig);
    QCOMPARE(project.checkpoints(run).size(), std::size_t{1});
    const std::vector<std::pair<const char *, std::function<void()>>> writes = {
        {"change the project config",
         [&] {
             project.setConfigJson(kConfig);
         }},
        {"store a blob",
         [&] {
             project.putBlob("x", "y");
         }},
        {"start a run",
         [&] {
             project.beginRun(kConfig, "cpu", 1, 0);
         }},
        {"update a run",
         [&] {
             project.updateRun(*project.run(run));
         }},
        {"mark abandoned runs",
         [&] {
             project.markAbandonedRunsInterrupted();
         }},
        {"record a checkpoint",
         [&] {
             project.addCheckpoint({0, run, 6, "run-1/step-6.pt", "ab", 2, ""});
         }},
        {"forget a checkpoint",
         [&] {
             project.removeCheckpoint(1);
         }},
    };
    for (const auto &[what, write] : writes) {
        const std::string error = projectErrorOf(write);
        QVERIFY2(contains(error, "is open read-only: cannot " + std::string(what)), error.c_str());
    }
    QVERIFY(!fs::exists(project.dataDirectory())); // not even the data folder is created
    QVERIFY(project.runs()[0].status == RunStatus::Running);
}

void TestProjectIntegrity::readOnlyRefusesAnOlderSchema() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("v1.headroom").toStdString();
    std::ifstream script_file(HEADROOM_SOURCE_DIR "/tests/data/project/v1_project.sql");
    const std::string script{std::istreambuf_iterator<char>(script_file), {}};
    QVERIFY(rawExec(path, script));

    const std::string error = projectErrorOf([&] { Project::openReadOnly(path); });
    QVERIFY2(contains(error, "has schema 1, this build needs " +
                                 std::to_string(headroom::project::kSchemaVersion)),
             error.c_str());
    QVERIFY2(contains(error, "cannot be migrated while opened read-only"), error.c_str());
    QVERIFY(!fs::exists(path + ".bak-v1")); // nothing was written
    QCOMPARE(Project::open(path).schemaVersion(), headroom::project::kSchemaVersion);
    QVERIFY(fs::exists(path + ".bak-v1"));
}

void TestProjectIntegrity::readOnlyFolderOffersReadOnlyOpening() {
    if (geteuid() == 0) {
        QSKIP("root ignores folder permissions");
    }
    QTemporaryDir dir;
    const std::string folder = dir.filePath("media").toStdString();
    fs::create_directory(folder);
    const std::string path = folder + "/copied.headroom";
    Project::create(path, kConfig);
    fs::remove(headroom::project::lockFilePath(path));
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
    const std::string error = projectErrorOf([&] { Project::open(path); });
    fs::permissions(folder, fs::perms::owner_all);
    QVERIFY2(contains(error, "cannot be opened for writing"), error.c_str());
    QVERIFY2(contains(error, "open it read-only"), error.c_str());
}

void TestProjectIntegrity::damagedDataPagesFailTheIntegrityCheck() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("rot.headroom").toStdString();
    {
        Project project = Project::create(path, kConfig);
        project.beginRun(kConfig, "cpu", 10, 0);
    }
    // Many rows so the metrics table spans many pages after the schema; then one of its last
    // pages is overwritten, as a bad sector or a botched copy would.
    QVERIFY(rawExec(path, "PRAGMA journal_mode = DELETE; WITH RECURSIVE n(i) AS (SELECT 1 UNION "
                          "ALL SELECT i + 1 FROM n WHERE i < 4000) INSERT INTO metrics (run_id, "
                          "step, micro_batch, accumulation, mem_live, mem_peak, samples_digest) "
                          "SELECT 1, i, 8, 1, i, i, hex(randomblob(16)) FROM n;"));
    const auto size = static_cast<std::streamoff>(fs::file_size(path));
    {
        std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
        file.seekp(size - 3 * 4096);
        const std::string noise(4096, '\x5a');
        file.write(noise.data(), static_cast<std::streamsize>(noise.size()));
    }
    const std::string error = projectErrorOf([&] { Project::open(path); });
    QVERIFY2(contains(error, path + "' is damaged"), error.c_str());
    QVERIFY2(contains(error, "integrity check failed"), error.c_str());
    QVERIFY(!projectErrorOf([&] { Project::openReadOnly(path); }).empty());
}

void TestProjectIntegrity::hostileStoredPathsAreRefused_data() {
    QTest::addColumn<QString>("stored");
    QTest::newRow("parent") << "../outside.pt";
    QTest::newRow("climbs inside") << "run-1/../../outside.pt";
    QTest::newRow("absolute") << "/etc/passwd";
    QTest::newRow("empty") << "";
}

void TestProjectIntegrity::hostileStoredPathsAreRefused() {
    QFETCH(QString, stored);
    QTemporaryDir dir;
    const std::string path = dir.filePath("hostile.headroom").toStdString();
    const std::string hostile = stored.toStdString();
    std::int64_t run = 0;
    {
        Project project = Project::create(path, kConfig);
        run = project.beginRun(kConfig, "cpu", 10, 0);
        const std::string error = projectErrorOf([&] {
            project.addCheckpoint({0, run, 5, hostile, "ab", 2, ""});
        });
        QVERIFY2(contains(error, "must be relative to the project's data folder"), error.c_str());
        QVERIFY(projectErrorOf([&] { project.resolveDataPath(hostile); }).find("is not inside") !=
                std::string::npos);
    }
    // A file written elsewhere holds such a path: reading it is refused before anyone uses it.
    QVERIFY(rawExec(path, "INSERT INTO checkpoints (run_id, step, path, sha256, bytes, "
                          "created_at) VALUES (1, 5, '" +
                              hostile + "', 'ab', 2, 'now')"));
    const Project project = Project::open(path);
    for (const auto &read : std::vector<std::function<void()>>{[&] { project.checkpoints(run); },
                                                               [&] {
                                                                   project.latestCheckpoint(run);
                                                               }}) {
        const std::string error = projectErrorOf(read);
        QVERIFY2(contains(error, "is damaged: checkpoint 1 has the path"), error.c_str());
        QVERIFY2(contains(error, "not inside the project's data folder"), error.c_str());
    }
}

void TestProjectIntegrity::symbolicLinksCannotLeadOutOfTheDataFolder() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("linked.headroom").toStdString();
    const Project project = Project::create(path, kConfig);
    const fs::path data = project.dataDirectory();
    const fs::path outside = dir.filePath("outside").toStdString();
    fs::create_directory(outside);
    fs::create_directory_symlink(outside, data / "run-1");
    fs::create_directory(data / "run-2");

    const std::string error = projectErrorOf([&] { project.resolveDataPath("run-1/step-5.pt"); });
    QVERIFY2(contains(error, "leads outside the project's data folder"), error.c_str());
    QCOMPARE(project.resolveDataPath("run-2/step-5.pt"), (data / "run-2/step-5.pt").string());
    QCOMPARE(project.resolveDataPath("run-3/new.pt"), (data / "run-3/new.pt").string());
}

QTEST_GUILESS_MAIN(TestProjectIntegrity)
#include "test_project_integrity.moc"
