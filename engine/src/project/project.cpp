#include "project/database.h"
#include "project/migrations.h"
#include "project/project_file.h"
#include "project/project_lock.h"
#include "project/records.h"
#include "project/timestamps.h"

#include <headroom/project.h>
#include <headroom/version.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <utility>

namespace headroom {

using project::Database;
using project::Statement;
using project::Transaction;

namespace {

namespace fs = std::filesystem;

void requireJson(const std::string &path, const char *what, const std::string &text) {
    if (!nlohmann::json::accept(text)) {
        throw ProjectError("project '" + path + "': the " + what + " is not valid JSON");
    }
}

void putMeta(Database &db, const std::string &key, const std::string &value) {
    Statement upsert(db, "INSERT INTO meta (key, value) VALUES (?1, ?2) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    upsert.bind(1, key).bind(2, value).run("write the project settings");
}

void removeProjectFiles(const std::string &path) {
    std::error_code ignored;
    for (const char *suffix : {"", "-wal", "-shm", "-journal", "-lock"}) {
        fs::remove(path + suffix, ignored);
    }
}

// A stored relative path that is absolute or climbs with ".." is refused before any use.
bool isPlainRelative(const std::string &text) {
    const fs::path path(text);
    if (text.empty() || path.has_root_name() || path.has_root_directory()) {
        return false;
    }
    for (const fs::path &part : path) {
        if (part == "..") {
            return false;
        }
    }
    return true;
}

bool isInside(const fs::path &base, const fs::path &candidate) {
    auto inner = candidate.begin();
    for (auto outer = base.begin(); outer != base.end(); ++outer, ++inner) {
        if (outer->empty()) {
            continue; // a trailing separator
        }
        if (inner == candidate.end() || *inner != *outer) {
            return false;
        }
    }
    return true;
}

} // namespace

struct Project::Impl {
    std::string path;
    Database db;
    std::shared_ptr<project::ProjectLock> lock; // null when opened read-only

    bool readOnly() const { return lock == nullptr; }

    void requireWritable(const char *what) const {
        if (readOnly()) {
            throw ProjectError("project '" + path + "' is open read-only: cannot " + what);
        }
    }

    CheckpointRecord checkedCheckpoint(const Statement &row) const {
        CheckpointRecord record = project::readCheckpoint(row);
        if (!isPlainRelative(record.path)) {
            throw ProjectError("project '" + path + "' is damaged: checkpoint " +
                               std::to_string(record.id) + " has the path '" + record.path +
                               "', which is not inside the project's data folder");
        }
        return record;
    }

    bool runExists(std::int64_t id) {
        Statement query(db, "SELECT 1 FROM runs WHERE id = ?1");
        return query.bind(1, id).step("look up a run");
    }

    void requireRun(std::int64_t id) {
        if (!runExists(id)) {
            throw ProjectError("project '" + path + "' has no run " + std::to_string(id));
        }
    }

    RunRecord readRunRow(const Statement &row) {
        try {
            return project::readRun(row);
        } catch (const ProjectError &error) {
            throw ProjectError("project '" + path + "' is damaged: " + error.what());
        }
    }
};

Project::Project(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Project::Project(Project &&) noexcept = default;
Project &Project::operator=(Project &&) noexcept = default;
Project::~Project() = default;

Project Project::create(const std::string &path, const std::string &config_json) {
    requireJson(path, "project config", config_json);
    Database db = project::createProjectDatabase(path);
    std::shared_ptr<project::ProjectLock> lock;
    try {
        lock = project::ProjectLock::acquire(path);
        Transaction transaction(db);
        putMeta(db, "config", config_json);
        putMeta(db, "created_at", project::isoTimestampNow());
        putMeta(db, "created_by", std::string("Headroom ") + kVersion);
        transaction.commit();
    } catch (...) {
        { Database closing = std::move(db); } // closed before its files are removed
        removeProjectFiles(path);
        throw;
    }
    return Project(std::make_unique<Impl>(Impl{path, std::move(db), std::move(lock)}));
}

Project Project::open(const std::string &path) {
    project::checkProjectFile(path); // no lock file next to something that is not a project
    // Locked before SQLite sees the file: no other process migrates or writes it meanwhile.
    std::shared_ptr<project::ProjectLock> lock = project::ProjectLock::acquire(path);
    Database db = project::openProjectDatabase(path, project::Migration::Allowed);
    project::requireIntact(db);
    return Project(std::make_unique<Impl>(Impl{path, std::move(db), std::move(lock)}));
}

Project Project::openForReading(const std::string &path) {
    try {
        return openReadOnly(path);
    } catch (const ProjectLockedError &) {
        throw;
    } catch (const ProjectError &) {
        return open(path); // throws the same message where the file itself is the problem
    }
}

Project Project::openReadOnly(const std::string &path) {
    Database db =
        project::openProjectDatabase(path, project::Migration::Refused, project::Access::ReadOnly);
    project::requireIntact(db);
    return Project(std::make_unique<Impl>(Impl{path, std::move(db), nullptr}));
}

bool Project::isReadOnly() const {
    return impl_->readOnly();
}

std::vector<std::string> Project::integrityProblems(int max_problems) const {
    const std::string sql =
        "PRAGMA integrity_check(" + std::to_string(std::max(1, max_problems)) + ")";
    Statement check(impl_->db, sql.c_str());
    std::vector<std::string> problems;
    while (check.step("check the integrity of the file")) {
        if (check.text(0) != "ok") {
            problems.push_back(check.text(0));
        }
    }
    return problems;
}

std::string Project::resolveDataPath(const std::string &relative) const {
    const std::string base = impl_->path + ".d";
    if (!isPlainRelative(relative)) {
        throw ProjectError("project '" + impl_->path + "': the path '" + relative +
                           "' is not inside the project's data folder '" + base + "'");
    }
    const fs::path joined = fs::path(base) / relative;
    std::error_code error;
    const fs::path real_base = fs::weakly_canonical(base, error);
    const fs::path real_target = error ? fs::path() : fs::weakly_canonical(joined, error);
    if (error || !isInside(real_base, real_target)) {
        throw ProjectError("project '" + impl_->path + "': the path '" + relative +
                           "' leads outside the project's data folder '" + base +
                           "' (through a symbolic link)");
    }
    return joined.string();
}

const std::string &Project::path() const {
    return impl_->path;
}

std::string Project::dataDirectory() const {
    const std::string directory = impl_->path + ".d";
    if (impl_->readOnly()) {
        return directory;
    }
    std::error_code error;
    fs::create_directories(directory, error);
    if (error) {
        throw ProjectError("project '" + impl_->path + "': cannot create the folder '" + directory +
                           "': " + error.message());
    }
    return directory;
}

int Project::schemaVersion() const {
    return static_cast<int>(impl_->db.pragmaInteger("user_version"));
}

std::string Project::configJson() const {
    Statement query(impl_->db, "SELECT value FROM meta WHERE key = 'config'");
    if (!query.step("read the project config")) {
        throw ProjectError("project '" + impl_->path + "' is damaged: it has no project config");
    }
    return query.text(0);
}

void Project::setConfigJson(const std::string &config_json) {
    impl_->requireWritable("change the project config");
    requireJson(impl_->path, "project config", config_json);
    putMeta(impl_->db, "config", config_json);
}

void Project::putBlob(const std::string &name, const std::string &bytes) {
    impl_->requireWritable("store a blob");
    Statement upsert(impl_->db, "INSERT INTO blobs (name, bytes) VALUES (?1, ?2) "
                                "ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes");
    upsert.bind(1, name).bindBlob(2, bytes).run("store a blob");
}

std::optional<std::string> Project::blob(const std::string &name) const {
    Statement query(impl_->db, "SELECT bytes FROM blobs WHERE name = ?1");
    if (!query.bind(1, name).step("read a blob")) {
        return std::nullopt;
    }
    return query.blob(0);
}

std::int64_t Project::beginRun(const std::string &config_json, const std::string &device,
                               std::int64_t target_steps, std::int64_t resumed_from) {
    impl_->requireWritable("start a run");
    requireJson(impl_->path, "run config", config_json);
    if (resumed_from != 0) {
        impl_->requireRun(resumed_from);
    }
    Statement insert(impl_->db, "INSERT INTO runs (status, config_json, device, started_at, "
                                "resumed_from, target_steps) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.bind(1, toString(RunStatus::Running))
        .bind(2, config_json)
        .bind(3, device)
        .bind(4, project::isoTimestampNow())
        .bindReference(5, resumed_from)
        .bind(6, target_steps)
        .run("start a run");
    return impl_->db.lastInsertId();
}

void Project::updateRun(const RunRecord &record) {
    impl_->requireWritable("update a run");
    requireJson(impl_->path, "run summary", record.summary_json);
    // What a run is (config, device, start, origin) is fixed by beginRun; the rest evolves.
    Statement update(impl_->db, R"sql(
        UPDATE runs SET status = ?2, ended_at = ?3, last_step = ?4, target_steps = ?5,
            final_loss = ?6, final_val_loss = ?7, peak_bytes = ?8, oom_recoveries = ?9,
            message = ?10, summary_json = ?11
        WHERE id = ?1)sql");
    update.bind(1, record.id)
        .bind(2, toString(record.status))
        .bind(3, record.ended_at)
        .bind(4, record.last_step)
        .bind(5, record.target_steps)
        .bindOptionalReal(6, record.final_loss)
        .bindOptionalReal(7, record.final_val_loss)
        .bind(8, static_cast<std::int64_t>(record.peak_bytes))
        .bind(9, record.oom_recoveries)
        .bind(10, record.message)
        .bind(11, record.summary_json)
        .run("update a run");
    if (impl_->db.changes() == 0) {
        throw ProjectError("project '" + impl_->path + "' has no run " + std::to_string(record.id));
    }
}

std::vector<RunRecord> Project::runs() const {
    const std::string sql = std::string(project::kSelectRunsSql) + " ORDER BY id";
    Statement query(impl_->db, sql.c_str());
    std::vector<RunRecord> runs;
    while (query.step("read the runs")) {
        runs.push_back(impl_->readRunRow(query));
    }
    return runs;
}

std::optional<RunRecord> Project::run(std::int64_t id) const {
    const std::string sql = std::string(project::kSelectRunsSql) + " WHERE id = ?1";
    Statement query(impl_->db, sql.c_str());
    if (!query.bind(1, id).step("read a run")) {
        return std::nullopt;
    }
    return impl_->readRunRow(query);
}

int Project::markAbandonedRunsInterrupted() {
    impl_->requireWritable("mark abandoned runs as interrupted");
    // A paused run lives in the process that paused it, so it is abandoned as well.
    Statement update(impl_->db, R"sql(
        UPDATE runs SET status = 'interrupted',
            ended_at = CASE WHEN ended_at = '' THEN ?1 ELSE ended_at END,
            message = CASE WHEN message = '' THEN ?2 ELSE message END
        WHERE status IN ('running', 'paused'))sql");
    update.bind(1, project::isoTimestampNow())
        .bind(2, std::string("the process running it ended before the run finished"))
        .run("mark abandoned runs as interrupted");
    return impl_->db.changes();
}

void Project::addCheckpoint(const CheckpointRecord &record) {
    impl_->requireWritable("record a checkpoint");
    if (!isPlainRelative(record.path)) {
        throw ProjectError("project '" + impl_->path + "': checkpoint path '" + record.path +
                           "' must be relative to the project's data folder, without '..'");
    }
    impl_->requireRun(record.run_id);
    // A file is recorded once: an earlier attempt whose error came after its commit, or a
    // re-save at the same step, is replaced by this record of the file as it is now.
    Transaction transaction(impl_->db);
    Statement forget(impl_->db, "DELETE FROM checkpoints WHERE run_id = ?1 AND path = ?2");
    forget.bind(1, record.run_id).bind(2, record.path).run("record a checkpoint");
    Statement insert(impl_->db, "INSERT INTO checkpoints (run_id, step, path, sha256, bytes, "
                                "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.bind(1, record.run_id)
        .bind(2, record.step)
        .bind(3, record.path)
        .bind(4, record.sha256)
        .bind(5, static_cast<std::int64_t>(record.bytes))
        .bind(6, record.created_at.empty() ? project::isoTimestampNow() : record.created_at)
        .run("record a checkpoint");
    transaction.commit();
}

void Project::removeCheckpoint(std::int64_t checkpoint_id) {
    impl_->requireWritable("forget a checkpoint");
    Statement remove(impl_->db, "DELETE FROM checkpoints WHERE id = ?1");
    remove.bind(1, checkpoint_id).run("forget a checkpoint");
}

std::vector<CheckpointRecord> Project::checkpoints(std::int64_t run_id) const {
    Statement query(impl_->db, project::kSelectCheckpointsSql);
    query.bind(1, run_id);
    std::vector<CheckpointRecord> records;
    while (query.step("read the checkpoints")) {
        records.push_back(impl_->checkedCheckpoint(query));
    }
    return records;
}

std::optional<CheckpointRecord> Project::latestCheckpoint(std::int64_t run_id) const {
    Statement latest(impl_->db, R"sql(
        SELECT id, run_id, step, path, sha256, bytes, created_at FROM checkpoints
        WHERE run_id = ?1 ORDER BY step DESC, id DESC LIMIT 1)sql");
    Statement origin(impl_->db, "SELECT resumed_from FROM runs WHERE id = ?1");
    std::set<std::int64_t> visited; // a damaged file could link runs in a circle
    for (std::int64_t id = run_id; id != 0 && visited.insert(id).second;) {
        if (latest.bind(1, id).step("read the latest checkpoint")) {
            return impl_->checkedCheckpoint(latest);
        }
        const bool found = origin.bind(1, id).step("follow a resumed run");
        id = found && !origin.isNull(0) ? origin.integer(0) : 0;
    }
    return std::nullopt;
}

std::optional<CheckpointRecord> Project::resultCheckpoint(std::int64_t run_id) const {
    if (const std::optional<RunRecord> record = run(run_id)) {
        const nlohmann::json summary = nlohmann::json::parse(record->summary_json, nullptr, false);
        const auto best = summary.is_object() ? summary.find("best_step") : summary.end();
        if (summary.is_object() && best != summary.end() && best->is_number_integer()) {
            for (const CheckpointRecord &checkpoint : checkpoints(run_id)) {
                if (checkpoint.step == best->get<std::int64_t>()) {
                    return checkpoint;
                }
            }
        }
    }
    return latestCheckpoint(run_id);
}

std::vector<StepMetrics> Project::metrics(std::int64_t run_id, std::int64_t after_step) const {
    Statement query(impl_->db, project::kSelectStepsSql);
    query.bind(1, run_id).bind(2, after_step);
    std::vector<StepMetrics> rows;
    while (query.step("read the step metrics")) {
        rows.push_back(project::readStep(query));
    }
    return rows;
}

std::vector<EvalRecord> Project::evaluations(std::int64_t run_id, std::int64_t after_step) const {
    Statement query(impl_->db, project::kSelectEvaluationsSql);
    query.bind(1, run_id).bind(2, after_step);
    std::vector<EvalRecord> rows;
    while (query.step("read the evaluations")) {
        rows.push_back(project::readEvaluation(query));
    }
    return rows;
}

std::vector<EventRecord> Project::events(std::int64_t run_id) const {
    Statement query(impl_->db, project::kSelectEventsSql);
    query.bind(1, run_id);
    std::vector<EventRecord> rows;
    while (query.step("read the events")) {
        rows.push_back(project::readEvent(query));
    }
    return rows;
}

void Project::addMemoryHistory(const MemoryHistoryRecord &record) {
    impl_->requireWritable("record memory history");
    if (record.source != "run" && record.source != "fit") {
        throw ProjectError("project '" + impl_->path + "': memory history source '" +
                           record.source + "' is neither 'run' nor 'fit'");
    }
    requireJson(impl_->path, "measured config",
                record.config_json.empty() ? "{}" : record.config_json);
    if (record.run_id != 0) {
        impl_->requireRun(record.run_id);
    }
    Statement insert(impl_->db, R"sql(
        INSERT INTO memory_history (recorded_at, source, run_id, device, recipe, config_json,
                                    micro_batch, predicted_peak, measured_peak)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9))sql");
    insert.bind(1, record.recorded_at.empty() ? project::isoTimestampNow() : record.recorded_at)
        .bind(2, record.source)
        .bindReference(3, record.run_id)
        .bind(4, record.device)
        .bind(5, record.recipe)
        .bind(6, record.config_json.empty() ? std::string("{}") : record.config_json)
        .bind(7, record.micro_batch)
        .bind(8, static_cast<std::int64_t>(record.predicted_peak))
        .bind(9, static_cast<std::int64_t>(record.measured_peak))
        .run("record memory history");
}

std::vector<MemoryHistoryRecord>
Project::memoryHistory(const std::string &device, const std::string &recipe, int limit) const {
    Statement query(impl_->db, R"sql(
        SELECT id, recorded_at, source, run_id, device, recipe, config_json, micro_batch,
               predicted_peak, measured_peak
        FROM memory_history WHERE device = ?1 AND recipe = ?2 ORDER BY id DESC LIMIT ?3)sql");
    query.bind(1, device).bind(2, recipe).bind(3, std::int64_t{std::max(0, limit)});
    std::vector<MemoryHistoryRecord> rows;
    while (query.step("read the memory history")) {
        rows.push_back(project::readMemoryHistory(query));
    }
    return rows;
}

} // namespace headroom
