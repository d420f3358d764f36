#include "project/migrations.h"

#include <headroom/project.h>

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sqlite3.h>
#include <string>

using headroom::CheckpointRecord;
using headroom::Project;
using headroom::ProjectError;
using headroom::RunRecord;
using headroom::RunStatus;

namespace {

namespace fs = std::filesystem;

const std::string kConfig = R"({"recipe":"gpt","train.steps":"300"})";

// Another program's view of the file: plain SQLite, no Headroom code involved.
class RawDatabase {
public:
    explicit RawDatabase(const std::string &path) { sqlite3_open(path.c_str(), &db_); }
    ~RawDatabase() { sqlite3_close(db_); }
    RawDatabase(const RawDatabase &) = delete;
    RawDatabase &operator=(const RawDatabase &) = delete;

    std::string exec(const std::string &sql) { // the error, empty on success
        char *error = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) {
            return {};
        }
        const std::string message = error ? error : "unknown error";
        sqlite3_free(error);
        return message;
    }

    std::string text(const std::string &sql) { // first column of the rows, one per line
        sqlite3_stmt *stmt = nullptr;
        std::string result;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
            return "error: " + std::string(sqlite3_errmsg(db_));
        }
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            const auto *value = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
            result += (value ? value : "NULL") + std::string("\n");
        }
        sqlite3_finalize(stmt);
        return result;
    }

    std::int64_t integer(const std::string &sql) {
        return std::stoll(text(sql).empty() ? "-1" : text(sql));
    }

private:
    sqlite3 *db_ = nullptr;
};

template <typename Action> std::string projectErrorOf(Action &&action) {
    try {
        action();
    } catch (const ProjectError &error) {
        return error.what();
    }
    return {};
}

std::string readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A closed project with a few hundred KiB in it (so it spans many pages) and every record type
// that Project itself writes.
std::string makeFilledProject(const QTemporaryDir &dir, const QString &name) {
    const std::string path = dir.filePath(name).toStdString();
    Project project = Project::create(path, kConfig);
    std::string blob(300 * 1024, '\0');
    std::mt19937 random(7);
    for (char &byte : blob) {
        byte = static_cast<char>(random() & 0xff);
    }
    project.putBlob("tokenizer", blob);
    const std::int64_t run = project.beginRun(kConfig, "cpu", 300, 0);
    project.addCheckpoint({0, run, 100, "run-1/step-100.safetensors", "ab", 10, ""});
    return path;
}

// QCOMPARE cannot print a RunStatus (ADL finds headroom::toString, which returns std::string).
std::string name(RunStatus status) {
    return headroom::toString(status);
}

bool isIsoUtc(const std::string &text) {
    static const QRegularExpression pattern(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\dZ$)");
    return pattern.match(QString::fromStdString(text)).hasMatch();
}

void compareRuns(const RunRecord &actual, const RunRecord &expected) {
    QCOMPARE(actual.id, expected.id);
    QCOMPARE(name(actual.status), name(expected.status));
    QCOMPARE(actual.config_json, expected.config_json);
    QCOMPARE(actual.device, expected.device);
    QCOMPARE(actual.started_at, expected.started_at);
    QCOMPARE(actual.ended_at, expected.ended_at);
    QCOMPARE(actual.resumed_from, expected.resumed_from);
    QCOMPARE(actual.last_step, expected.last_step);
    QCOMPARE(actual.target_steps, expected.target_steps);
    QCOMPARE(actual.final_loss, expected.final_loss);
    QCOMPARE(actual.final_val_loss, expected.final_val_loss);
    QCOMPARE(actual.peak_bytes, expected.peak_bytes);
    QCOMPARE(actual.oom_recoveries, expected.oom_recoveries);
    QCOMPARE(actual.message, expected.message);
    QCOMPARE(actual.summary_json, expected.summary_json);
}

} // namespace

class TestProject : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTripOfProjectRecords();
    void fileCarriesHeadroomMarks();
    void createRefusesExistingPath();
    void createRejectsBadInput();
    void openErrors_data();
    void openErrors();
    void mutatedFilesNeverCrash();
    void migratesVersion1WithBackup();
    void abandonedRunsBecomeInterrupted();
    void latestCheckpointFollowsResumedRuns();
    void nanAndInfinityFinalLosses();
    void runStatusNames();
    void invalidReferencesAreErrors();
};

void TestProject::roundTripOfProjectRecords() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("demo.headroom").toStdString();
    const std::string tokenizer("\0\x01\xff model proto\0", 16);
    RunRecord first;
    RunRecord second;
    CheckpointRecord checkpoint{
        0, 0, 100, "run-1/step-100.safetensors", std::string(64, 'c'), 5'000'000'123ULL, ""};
    {
        Project project = Project::create(path, kConfig);
        QCOMPARE(project.path(), path);
        QCOMPARE(project.schemaVersion(), headroom::project::kSchemaVersion);
        QCOMPARE(project.configJson(), kConfig);
        project.putBlob("tokenizer", tokenizer);
        project.putBlob("empty", "");
        project.putBlob("replaced", "old");
        project.putBlob("replaced", "new");

        const std::int64_t id = project.beginRun(kConfig, "cpu", 300, 0);
        first = *project.run(id);
        QCOMPARE(name(first.status), name(RunStatus::Running));
        QCOMPARE(first.device, std::string("cpu"));
        QCOMPARE(first.target_steps, std::int64_t{300});
        QVERIFY2(isIsoUtc(first.started_at), first.started_at.c_str());
        QVERIFY(first.ended_at.empty());
        QCOMPARE(first.summary_json, std::string("{}"));

        first.status = RunStatus::Stopped;
        first.ended_at = "2026-01-02T03:04:05.678Z";
        first.last_step = 120;
        first.final_loss = 2.5;
        first.final_val_loss = std::nullopt;
        first.peak_bytes = 6'000'000'000ULL; // more than 32 bits
        first.oom_recoveries = 3;
        first.message = "stopped by the user — Größe";
        first.summary_json = R"({"accuracy":0.75})";
        project.updateRun(first);

        const std::int64_t next = project.beginRun(kConfig, "cuda:0", 600, id);
        second = *project.run(next);
        QCOMPARE(second.resumed_from, id);

        checkpoint.run_id = id;
        project.addCheckpoint(checkpoint);
        project.setConfigJson(R"({"recipe":"tabular"})");
    }

    const Project project = Project::open(path);
    QCOMPARE(project.configJson(), std::string(R"({"recipe":"tabular"})"));
    QCOMPARE(project.blob("tokenizer").value(), tokenizer);
    QCOMPARE(project.blob("empty").value(), std::string());
    QCOMPARE(project.blob("replaced").value(), std::string("new"));
    QVERIFY(!project.blob("missing").has_value());

    const std::vector<RunRecord> runs = project.runs();
    QCOMPARE(runs.size(), std::size_t{2});
    compareRuns(runs[0], first);
    compareRuns(runs[1], second);
    QVERIFY(!project.run(99).has_value());

    const std::vector<CheckpointRecord> checkpoints = project.checkpoints(first.id);
    QCOMPARE(checkpoints.size(), std::size_t{1});
    QVERIFY(checkpoints[0].id > 0);
    QCOMPARE(checkpoints[0].run_id, first.id);
    QCOMPARE(checkpoints[0].step, checkpoint.step);
    QCOMPARE(checkpoints[0].path, checkpoint.path);
    QCOMPARE(checkpoints[0].sha256, checkpoint.sha256);
    QCOMPARE(checkpoints[0].bytes, checkpoint.bytes);
    QVERIFY2(isIsoUtc(checkpoints[0].created_at), checkpoints[0].created_at.c_str());

    const std::string data = project.dataDirectory();
    QCOMPARE(data, path + ".d");
    QVERIFY(fs::is_directory(data));
}

void TestProject::fileCarriesHeadroomMarks() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("marks.headroom").toStdString();
    Project project = Project::create(path, kConfig);
    RawDatabase raw(path);
    QCOMPARE(raw.integer("PRAGMA application_id"), std::int64_t{0x4844524D});
    QCOMPARE(raw.integer("PRAGMA user_version"), std::int64_t{headroom::project::kSchemaVersion});
    QCOMPARE(raw.text("PRAGMA journal_mode"), std::string("wal\n"));
    QCOMPARE(raw.text("SELECT value FROM meta WHERE key = 'created_by'").rfind("Headroom ", 0),
             std::size_t{0});
    QVERIFY(isIsoUtc(raw.text("SELECT value FROM meta WHERE key = 'created_at'").substr(0, 24)));
    // The data folder exists only once it is asked for.
    QVERIFY(!fs::exists(path + ".d"));
}

void TestProject::createRefusesExistingPath() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("taken.headroom").toStdString();
    writeFile(path, "precious user data");
    const std::string error = projectErrorOf([&] { Project::create(path, kConfig); });
    QVERIFY2(error.find("already exists") != std::string::npos, error.c_str());
    QVERIFY2(error.find(path) != std::string::npos, error.c_str());
    QCOMPARE(readFile(path), std::string("precious user data"));
}

void TestProject::createRejectsBadInput() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.headroom").toStdString();
    std::string error = projectErrorOf([&] { Project::create(path, "{not json"); });
    QVERIFY2(error.find("not valid JSON") != std::string::npos, error.c_str());
    QVERIFY(!fs::exists(path));

    const std::string nowhere = dir.filePath("missing/folder/x.headroom").toStdString();
    error = projectErrorOf([&] { Project::create(nowhere, kConfig); });
    QVERIFY2(error.find("does not exist") != std::string::npos, error.c_str());
    QVERIFY2(error.find(nowhere) != std::string::npos, error.c_str());
}

void TestProject::openErrors_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing") << "missing"
                             << "does not exist";
    QTest::newRow("folder") << "folder"
                            << "is a folder";
    QTest::newRow("empty") << "empty"
                           << "is empty";
    QTest::newRow("garbage") << "garbage"
                             << "is not a Headroom project (not an SQLite database)";
    QTest::newRow("text") << "text"
                          << "is not a Headroom project (not an SQLite database)";
    QTest::newRow("header cut") << "header cut"
                                << "is truncated";
    QTest::newRow("truncated copy") << "truncated copy"
                                    << "is truncated";
    QTest::newRow("foreign sqlite")
        << "foreign sqlite"
        << "is not a Headroom project (an SQLite database with application_id 0x00000000)";
    QTest::newRow("other application") << "other application"
                                       << "with application_id 0x12345678";
    QTest::newRow("newer schema") << "newer schema"
                                  << "was written by a newer Headroom: schema 99, this build "
                                     "knows up to " +
                                         QString::number(headroom::project::kSchemaVersion);
    QTest::newRow("no schema") << "no schema"
                               << "has no schema";
    QTest::newRow("damaged pages") << "damaged pages"
                                   << "is damaged";
}

void TestProject::openErrors() {
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = dir.filePath("broken.headroom").toStdString();

    std::mt19937 random(42);
    std::string noise(8192, '\0');
    for (char &byte : noise) {
        byte = static_cast<char>(random() & 0xff);
    }
    if (kind == "folder") {
        fs::create_directory(path);
    } else if (kind == "empty") {
        writeFile(path, "");
    } else if (kind == "garbage") {
        writeFile(path, noise);
    } else if (kind == "text") {
        writeFile(path, kConfig);
    } else if (kind == "header cut") {
        writeFile(path, readFile(makeFilledProject(dir, "good.headroom")).substr(0, 60));
    } else if (kind == "truncated copy") {
        const std::string good = readFile(makeFilledProject(dir, "good.headroom"));
        writeFile(path, good.substr(0, good.size() / 2));
    } else if (kind == "damaged pages") {
        std::string bytes = readFile(makeFilledProject(dir, "good.headroom"));
        bytes.replace(100, noise.size(), noise); // header intact, schema page overwritten
        writeFile(path, bytes);
    } else if (kind != "missing") {
        RawDatabase raw(path);
        QCOMPARE(raw.exec("CREATE TABLE notes (text TEXT)"), std::string());
        if (kind == "other application") {
            QCOMPARE(raw.exec("PRAGMA application_id = 305419896"), std::string());
        } else if (kind == "newer schema" || kind == "no schema") {
            QCOMPARE(raw.exec("PRAGMA application_id = 1212437069"), std::string());
            if (kind == "newer schema") {
                QCOMPARE(raw.exec("PRAGMA user_version = 99"), std::string());
            }
        }
    }

    const std::string error = projectErrorOf([&] { Project::open(path); });
    QVERIFY2(error.find(expected.toStdString()) != std::string::npos, error.c_str());
    QVERIFY2(error.find(path) != std::string::npos, error.c_str());
}

void TestProject::mutatedFilesNeverCrash() {
    QTemporaryDir dir;
    const std::string good = readFile(makeFilledProject(dir, "good.headroom"));
    int rejected = 0;
    for (int round = 0; round < 40; ++round) {
        std::mt19937 random(static_cast<unsigned>(round));
        std::string bytes = good;
        // Most rounds damage the first pages (header, schema, btree roots) where SQLite looks.
        const std::size_t span = round % 2 == 0 ? 4096 * 4 : bytes.size();
        for (int flip = 0; flip < 16; ++flip) {
            bytes[random() % span] ^= static_cast<char>(1 + random() % 255);
        }
        const std::string path =
            dir.filePath(QString("mutated-%1.headroom").arg(round)).toStdString();
        writeFile(path, bytes);
        try {
            const Project project = Project::open(path);
            project.configJson();
            project.blob("tokenizer");
            for (const RunRecord &run : project.runs()) {
                project.metrics(run.id);
                project.events(run.id);
                project.evaluations(run.id);
                project.latestCheckpoint(run.id);
            }
        } catch (const ProjectError &error) {
            ++rejected;
            QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
        }
    }
    QVERIFY(rejected > 0);
}

void TestProject::migratesVersion1WithBackup() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("old.headroom").toStdString();
    {
        RawDatabase raw(path);
        const std::string script =
            readFile(HEADROOM_SOURCE_DIR "/tests/data/project/v1_project.sql");
        QVERIFY(!script.empty());
        QCOMPARE(raw.exec(script), std::string());
        QCOMPARE(raw.integer("PRAGMA user_version"), std::int64_t{1});
    }

    Project project = Project::open(path);
    QCOMPARE(project.schemaVersion(), headroom::project::kSchemaVersion);

    // Everything version 1 held is still there.
    QCOMPARE(project.configJson(), kConfig);
    QCOMPARE(project.blob("tokenizer").value(), std::string("\0\xff\x10\0", 4));
    const std::vector<RunRecord> runs = project.runs();
    QCOMPARE(runs.size(), std::size_t{2});
    QCOMPARE(name(runs[0].status), name(RunStatus::Stopped));
    QCOMPARE(runs[0].final_loss, std::optional<double>(2.5));
    QCOMPARE(runs[0].final_val_loss, std::optional<double>());
    QCOMPARE(runs[0].peak_bytes, std::uint64_t{123456789});
    QCOMPARE(runs[0].message, std::string("stopped by the user"));
    QCOMPARE(runs[0].summary_json, std::string("{}")); // the new column's default
    QCOMPARE(runs[1].resumed_from, std::int64_t{1});
    QCOMPARE(runs[1].final_val_loss, std::optional<double>(1.875));
    const auto metrics = project.metrics(1);
    QCOMPARE(metrics.size(), std::size_t{2});
    QCOMPARE(metrics[0].samples_digest, std::string("aa01"));
    QVERIFY(std::isnan(metrics[1].loss));
    QCOMPARE(metrics[1].micro_batch, 4);
    // A reader following the run asks only for the steps after the last one it has.
    const auto newer = project.metrics(1, metrics[0].step);
    QCOMPARE(newer.size(), std::size_t{1});
    QCOMPARE(newer[0].step, metrics[1].step);
    QVERIFY(project.metrics(1, metrics[1].step).empty());
    QCOMPARE(project.events(1).size(), std::size_t{1});
    QCOMPARE(project.events(1)[0].event.details, std::string(R"({"from":8,"to":4})"));
    QVERIFY2(isIsoUtc(project.events(1)[0].recorded_at), project.events(1)[0].recorded_at.c_str());
    QCOMPARE(project.latestCheckpoint(2).value().path, std::string("run-1/step-100.pt"));

    // And what version 2 added works.
    QVERIFY(project.evaluations(1).empty());
    RunRecord run = runs[1];
    run.summary_json = R"({"rmse":0.5})";
    project.updateRun(run);
    QCOMPARE(project.run(2)->summary_json, run.summary_json);

    // The backup is the version 1 file as it was.
    const std::string backup = path + ".bak-v1";
    QVERIFY(fs::exists(backup));
    {
        RawDatabase raw(backup);
        QCOMPARE(raw.integer("PRAGMA user_version"), std::int64_t{1});
        QCOMPARE(raw.integer("PRAGMA application_id"), std::int64_t{0x4844524D});
        QCOMPARE(raw.integer("SELECT count(*) FROM metrics"), std::int64_t{3});
        QCOMPARE(raw.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'evaluations'"),
                 std::int64_t{0});
    }

    // The migrated layout is exactly the one a new project gets.
    const std::string fresh = dir.filePath("fresh.headroom").toStdString();
    Project::create(fresh, kConfig);
    const std::string schema = "SELECT type || ' ' || name || ': ' || coalesce(sql, '') "
                               "FROM sqlite_schema ORDER BY name";
    QCOMPARE(RawDatabase(path).text(schema), RawDatabase(fresh).text(schema));
}

void TestProject::abandonedRunsBecomeInterrupted() {
    QTemporaryDir dir;
    Project project = Project::create(dir.filePath("a.headroom").toStdString(), kConfig);
    const std::int64_t running = project.beginRun(kConfig, "cpu", 10, 0);
    const std::int64_t paused = project.beginRun(kConfig, "cpu", 10, 0);
    const std::int64_t finished = project.beginRun(kConfig, "cpu", 10, 0);
    RunRecord record = *project.run(paused);
    record.status = RunStatus::Paused;
    project.updateRun(record);
    record = *project.run(finished);
    record.status = RunStatus::Finished;
    record.ended_at = "2026-01-01T00:00:00.000Z";
    project.updateRun(record);

    QCOMPARE(project.markAbandonedRunsInterrupted(), 2);
    for (const std::int64_t id : {running, paused}) {
        const RunRecord run = *project.run(id);
        QCOMPARE(name(run.status), name(RunStatus::Interrupted));
        QVERIFY2(isIsoUtc(run.ended_at), run.ended_at.c_str());
        QVERIFY(!run.message.empty());
    }
    QCOMPARE(name(project.run(finished)->status), name(RunStatus::Finished));
    QCOMPARE(project.run(finished)->ended_at, std::string("2026-01-01T00:00:00.000Z"));
    QCOMPARE(project.markAbandonedRunsInterrupted(), 0);
}

void TestProject::latestCheckpointFollowsResumedRuns() {
    QTemporaryDir dir;
    Project project = Project::create(dir.filePath("c.headroom").toStdString(), kConfig);
    const std::int64_t first = project.beginRun(kConfig, "cpu", 300, 0);
    project.addCheckpoint({0, first, 200, "run-1/step-200", "b", 2, ""});
    project.addCheckpoint({0, first, 100, "run-1/step-100", "a", 1, ""});
    const std::int64_t second = project.beginRun(kConfig, "cpu", 300, first);
    const std::int64_t third = project.beginRun(kConfig, "cpu", 300, second);
    const std::int64_t unrelated = project.beginRun(kConfig, "cpu", 300, 0);

    QCOMPARE(project.latestCheckpoint(first)->path, std::string("run-1/step-200"));
    QCOMPARE(project.latestCheckpoint(second)->path, std::string("run-1/step-200"));
    QCOMPARE(project.latestCheckpoint(third)->path, std::string("run-1/step-200"));
    QVERIFY(!project.latestCheckpoint(unrelated).has_value());
    QVERIFY(!project.latestCheckpoint(12345).has_value());

    project.addCheckpoint({0, second, 250, "run-2/step-250", "c", 3, ""});
    QCOMPARE(project.latestCheckpoint(third)->path, std::string("run-2/step-250"));
    QCOMPARE(project.latestCheckpoint(third)->run_id, second);
    QCOMPARE(project.latestCheckpoint(first)->path, std::string("run-1/step-200"));
    QCOMPARE(project.checkpoints(first).front().step, std::int64_t{100}); // oldest first
}

void TestProject::nanAndInfinityFinalLosses() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("n.headroom").toStdString();
    std::int64_t nan_run = 0;
    std::int64_t inf_run = 0;
    {
        Project project = Project::create(path, kConfig);
        nan_run = project.beginRun(kConfig, "cpu", 10, 0);
        RunRecord record = *project.run(nan_run);
        record.status = RunStatus::Failed;
        record.final_loss = std::numeric_limits<double>::quiet_NaN();
        record.final_val_loss = std::nullopt;
        project.updateRun(record);

        inf_run = project.beginRun(kConfig, "cpu", 10, 0);
        record = *project.run(inf_run);
        record.final_loss = std::numeric_limits<double>::infinity();
        record.final_val_loss = -0.0;
        project.updateRun(record);
    }
    const Project project = Project::open(path);
    const RunRecord nan_record = *project.run(nan_run);
    QVERIFY(nan_record.final_loss.has_value()); // NaN is a value, not "no value"
    QVERIFY(std::isnan(*nan_record.final_loss));
    QVERIFY(!nan_record.final_val_loss.has_value());
    const RunRecord inf_record = *project.run(inf_run);
    QCOMPARE(*inf_record.final_loss, std::numeric_limits<double>::infinity());
    QCOMPARE(*inf_record.final_val_loss, 0.0);
}

void TestProject::runStatusNames() {
    for (const RunStatus status : {RunStatus::Running, RunStatus::Paused, RunStatus::Finished,
                                   RunStatus::Stopped, RunStatus::Failed, RunStatus::Interrupted}) {
        QCOMPARE(name(headroom::runStatusFromString(headroom::toString(status))), name(status));
    }
    QCOMPARE(headroom::toString(RunStatus::Interrupted), std::string("interrupted"));
    const std::string error = projectErrorOf([] { headroom::runStatusFromString("sleeping"); });
    QVERIFY2(error.find("'sleeping'") != std::string::npos, error.c_str());
}

void TestProject::invalidReferencesAreErrors() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("r.headroom").toStdString();
    Project project = Project::create(path, kConfig);
    std::string error = projectErrorOf([&] { project.beginRun(kConfig, "cpu", 10, 7); });
    QVERIFY2(error.find("has no run 7") != std::string::npos, error.c_str());
    QVERIFY2(error.find(path) != std::string::npos, error.c_str());

    RunRecord ghost;
    ghost.id = 8;
    error = projectErrorOf([&] { project.updateRun(ghost); });
    QVERIFY2(error.find("has no run 8") != std::string::npos, error.c_str());

    error = projectErrorOf([&] { project.addCheckpoint({0, 9, 1, "x", "", 0, ""}); });
    QVERIFY2(error.find("has no run 9") != std::string::npos, error.c_str());

    const std::int64_t run = project.beginRun(kConfig, "cpu", 10, 0);
    error = projectErrorOf([&] { project.addCheckpoint({0, run, 1, "/etc/passwd", "", 0, ""}); });
    QVERIFY2(error.find("must be relative") != std::string::npos, error.c_str());
    QVERIFY(project.checkpoints(run).empty());

    RunRecord record = *project.run(run);
    record.summary_json = "{";
    error = projectErrorOf([&] { project.updateRun(record); });
    QVERIFY2(error.find("not valid JSON") != std::string::npos, error.c_str());
}

QTEST_GUILESS_MAIN(TestProject)
#include "test_project.moc"
