#pragma once

#include <headroom/metrics.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom {

// Anything wrong with a project file: not a Headroom project, newer schema, I/O failure...
// The message says which file and what is wrong.
class ProjectError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The project is open for writing in another process (a training run, another window). The
// message names the holder and offers read-only opening (Project::openReadOnly).
class ProjectLockedError : public ProjectError {
public:
    using ProjectError::ProjectError;
};

enum class RunStatus { Running, Paused, Finished, Stopped, Failed, Interrupted };
std::string toString(RunStatus status);
RunStatus runStatusFromString(const std::string &text); // throws ProjectError on unknown text

struct RunRecord {
    std::int64_t id = 0;
    RunStatus status = RunStatus::Running;
    std::string config_json;       // snapshot of the Config the run used
    std::string device;            // "cpu", "cuda:0", "mps"
    std::string started_at;        // ISO 8601 UTC
    std::string ended_at;          // empty while running
    std::int64_t resumed_from = 0; // run id this run continued, 0 for a fresh run
    std::int64_t last_step = 0;
    std::int64_t target_steps = 0;
    std::optional<double> final_loss;
    std::optional<double> final_val_loss;
    std::uint64_t peak_bytes = 0;
    std::int64_t oom_recoveries = 0;
    std::string message;             // why it ended (diagnosis, error), may be empty
    std::string summary_json = "{}"; // recipe-specific final figures (accuracy, rmse, schema...)
};

struct CheckpointRecord {
    std::int64_t id = 0;
    std::int64_t run_id = 0;
    std::int64_t step = 0;
    std::string path;   // relative to the project's data folder
    std::string sha256; // hex digest of the file
    std::uint64_t bytes = 0;
    std::string created_at;
};

struct EventRecord {
    std::int64_t run_id = 0;
    EngineEvent event;
    std::string recorded_at; // ISO 8601 UTC, when the engine wrote it
};

struct EvalRecord {
    std::int64_t run_id = 0;
    EvalMetrics metrics;
};

// A measured training peak, kept so later estimates for the same device can be corrected
// (schema 4). Written when a run ends and for every auto-fit probe.
struct MemoryHistoryRecord {
    std::int64_t id = 0;
    std::string recorded_at; // ISO 8601 UTC
    std::string source;      // "run" | "fit"
    std::int64_t run_id = 0; // the run, 0 for a fit probe
    std::string device;      // "cpu", "cuda:0", "mps"
    std::string recipe;      // "gpt" | "tabular"
    std::string config_json; // the config measured (micro-batch as measured)
    std::int64_t micro_batch = 0;
    std::uint64_t predicted_peak = 0; // the estimator's uncorrected peak; 0 = unknown
    std::uint64_t measured_peak = 0;
};

// A Headroom project: one SQLite file (`NAME.headroom`) and a sibling folder
// (`NAME.headroom.d/`) for checkpoints. Not thread-safe: one Project per thread; the
// MetricsWriter opens its own connection.
class Project {
public:
    // Creates a new project file; throws if the file exists.
    static Project create(const std::string &path, const std::string &config_json);
    // Opens (and migrates) an existing project; throws ProjectError with a specific message.
    // While open, the project is locked against writers in other processes (ProjectLockedError
    // names the holder); the kernel releases the lock when this process ends, however it ends.
    // Damaged files are refused (a quick integrity check runs on every open).
    static Project open(const std::string &path);
    // Opens without the lock and without writing anything: to look at a project another
    // process is training, or one on read-only media. Every write throws ProjectError; a file
    // at an older schema is refused (it needs open() once to be migrated).
    static Project openReadOnly(const std::string &path);
    // For readers (runs, export, the desktop's views): openReadOnly(), so a project that is
    // being trained can be watched and a poll never holds the lock a writer needs; open()
    // only where read-only opening is refused for another reason (an older schema to migrate).
    static Project openForReading(const std::string &path);

    Project(Project &&) noexcept;
    Project &operator=(Project &&) noexcept;
    ~Project();

    const std::string &path() const;
    std::string dataDirectory() const; // PATH.d, created on demand
    int schemaVersion() const;
    bool isReadOnly() const;

    // The full `PRAGMA integrity_check`: empty when the file is sound, else SQLite's findings
    // (at most `max_problems`). Slower than the quick check open() does.
    std::vector<std::string> integrityProblems(int max_problems = 20) const;

    // `relative` (a path stored in the project, e.g. a checkpoint's) resolved inside the data
    // folder. Throws ProjectError when it is absolute, climbs out with "..", or leads outside
    // the folder through a symbolic link: a project from someone else never makes Headroom
    // write or delete outside its own folder.
    std::string resolveDataPath(const std::string &relative) const;

    std::string configJson() const;
    void setConfigJson(const std::string &config_json);

    // Named blobs stored inside the project (e.g. "tokenizer" -> SentencePiece model proto).
    void putBlob(const std::string &name, const std::string &bytes);
    std::optional<std::string> blob(const std::string &name) const;

    std::int64_t beginRun(const std::string &config_json, const std::string &device,
                          std::int64_t target_steps, std::int64_t resumed_from);
    // Writes status, ended_at, last_step, target_steps, finals, peak, recoveries, message and
    // summary of run record.id; config_json, device, started_at and resumed_from stay as
    // beginRun set them. Throws ProjectError for an unknown id or a summary that is not JSON.
    void updateRun(const RunRecord &record);
    std::vector<RunRecord> runs() const;
    std::optional<RunRecord> run(std::int64_t id) const;
    // Runs left "running" (or "paused") by a process that died are marked interrupted; returns
    // how many. Call it when opening a project for a new run, before beginRun.
    int markAbandonedRunsInterrupted();

    void addCheckpoint(const CheckpointRecord &record);
    // Forgets a checkpoint record (the caller deletes the file).
    void removeCheckpoint(std::int64_t checkpoint_id);
    std::vector<CheckpointRecord> checkpoints(std::int64_t run_id) const;
    // Latest checkpoint of this run or, following resumed_from, of the runs it continued.
    std::optional<CheckpointRecord> latestCheckpoint(std::int64_t run_id) const;
    // The checkpoint that is the run's result: the best one (summary "best_step", runs with
    // early stopping) when it is still recorded, else the latest.
    std::optional<CheckpointRecord> resultCheckpoint(std::int64_t run_id) const;

    // Ordered by step, only the steps after `after_step` (a reader following a long run asks
    // for what is new). NaN and infinities round-trip (NaN is stored as the text 'NaN'; NULL
    // means "no value" and reads as std::nullopt for the optional run figures).
    std::vector<StepMetrics> metrics(std::int64_t run_id, std::int64_t after_step = 0) const;
    std::vector<EvalRecord> evaluations(std::int64_t run_id, std::int64_t after_step = 0) const;
    std::vector<EventRecord> events(std::int64_t run_id) const;

    // Memory history (see MemoryHistoryRecord); the newest first, at most `limit` rows.
    void addMemoryHistory(const MemoryHistoryRecord &record);
    std::vector<MemoryHistoryRecord> memoryHistory(const std::string &device,
                                                   const std::string &recipe, int limit = 20) const;

private:
    struct Impl;
    explicit Project(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// Writes step metrics, evaluations and events of one run from its own thread in batched
// transactions, so the training step never waits on the disk.
class MetricsWriter {
public:
    MetricsWriter(const std::string &project_path, std::int64_t run_id);
    ~MetricsWriter(); // flushes and joins

    void post(const StepMetrics &metrics);
    void post(const EvalMetrics &metrics);
    void post(const EngineEvent &event);
    // Blocks until everything posted so far is committed. Throws ProjectError if a write failed.
    void flush();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace headroom
