#include "project/migrations.h"

#include <filesystem>
#include <functional>
#include <system_error>
#include <vector>

namespace headroom::project {

namespace {

// Version 1: the first layout. Kept exactly as it shipped; later changes are new steps.
constexpr const char *kCreateVersion1 = R"sql(
CREATE TABLE meta (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
CREATE TABLE blobs (
    name TEXT PRIMARY KEY NOT NULL,
    bytes BLOB NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    status TEXT NOT NULL,
    config_json TEXT NOT NULL,
    device TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL DEFAULT '',
    resumed_from INTEGER REFERENCES runs(id),
    last_step INTEGER NOT NULL DEFAULT 0,
    target_steps INTEGER NOT NULL DEFAULT 0,
    final_loss REAL,
    final_val_loss REAL,
    peak_bytes INTEGER NOT NULL DEFAULT 0,
    oom_recoveries INTEGER NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT ''
);
CREATE TABLE metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    loss REAL,
    lr REAL,
    grad_norm REAL,
    micro_batch INTEGER NOT NULL,
    accumulation INTEGER NOT NULL,
    tokens_per_s REAL,
    samples_per_s REAL,
    mem_live INTEGER NOT NULL,
    mem_peak INTEGER NOT NULL,
    elapsed_s REAL,
    samples_digest TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    details TEXT NOT NULL DEFAULT '{}',
    time TEXT NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, step);
CREATE TABLE checkpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX checkpoints_by_run ON checkpoints (run_id, step);
)sql";

// Version 2: validation results get their own table; runs keep recipe-specific final figures.
constexpr const char *kVersion1To2 = R"sql(
ALTER TABLE runs ADD COLUMN summary_json TEXT NOT NULL DEFAULT '{}';
CREATE TABLE evaluations (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    loss REAL,
    accuracy REAL,
    rmse REAL,
    examples INTEGER NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
)sql";

// Version 3: step metrics carry the device allocator's cache, the process's resident set and
// fp16 loss scaling.
constexpr const char *kVersion2To3 = R"sql(
ALTER TABLE metrics ADD COLUMN mem_reserved INTEGER NOT NULL DEFAULT 0;
ALTER TABLE metrics ADD COLUMN mem_rss INTEGER NOT NULL DEFAULT 0;
ALTER TABLE metrics ADD COLUMN loss_scale REAL NOT NULL DEFAULT 0;
ALTER TABLE metrics ADD COLUMN skipped_steps INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 4: measured training peaks (runs and auto-fit probes), so the planner can correct its
// estimates for a device and recipe.
constexpr const char *kVersion3To4 = R"sql(
CREATE TABLE memory_history (
    id INTEGER PRIMARY KEY,
    recorded_at TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('run', 'fit')),
    run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    device TEXT NOT NULL,
    recipe TEXT NOT NULL,
    config_json TEXT NOT NULL DEFAULT '{}',
    micro_batch INTEGER NOT NULL,
    predicted_peak INTEGER NOT NULL DEFAULT 0,
    measured_peak INTEGER NOT NULL
);
CREATE INDEX memory_history_by_device ON memory_history (device, recipe);
)sql";

// Version 5: validation of regression runs reports R^2 beside RMSE.
constexpr const char *kVersion4To5 = R"sql(
ALTER TABLE evaluations ADD COLUMN r2 REAL;
)sql";

// Version 6: step metrics of Mixture-of-Experts runs (NULL for dense runs): the balancing
// losses, the dropped share, and the per-block expert load as a JSON array of arrays.
constexpr const char *kVersion5To6 = R"sql(
ALTER TABLE metrics ADD COLUMN moe_aux_loss REAL;
ALTER TABLE metrics ADD COLUMN moe_z_loss REAL;
ALTER TABLE metrics ADD COLUMN moe_dropped_fraction REAL;
ALTER TABLE metrics ADD COLUMN moe_expert_load TEXT;
)sql";

// Version 7: SPLADE runs' step metrics (FLOPS regularizers, non-zero weights per vector) and
// their retrieval quality on the validation split (NULL for other runs).
constexpr const char *kVersion6To7 = R"sql(
ALTER TABLE metrics ADD COLUMN splade_flops_q REAL;
ALTER TABLE metrics ADD COLUMN splade_flops_d REAL;
ALTER TABLE metrics ADD COLUMN splade_query_nonzeros REAL;
ALTER TABLE metrics ADD COLUMN splade_passage_nonzeros REAL;
ALTER TABLE evaluations ADD COLUMN mrr_at_10 REAL;
ALTER TABLE evaluations ADD COLUMN recall_at_100 REAL;
)sql";

// Version 8: distributed runs' per-rank step figures (peak memory, throughput of the rank's
// share) as a JSON array of objects (NULL for single-process runs).
constexpr const char *kVersion7To8 = R"sql(
ALTER TABLE metrics ADD COLUMN ranks TEXT;
)sql";

// Version 9: language models' padding share per step, and preference objectives' step figures
// (log-probabilities, rewards, margin, accuracy) as a JSON object (NULL for other runs).
constexpr const char *kVersion8To9 = R"sql(
ALTER TABLE metrics ADD COLUMN padding_fraction REAL;
ALTER TABLE metrics ADD COLUMN preference TEXT;
)sql";

// Version 10: online RL's (grpo) step figures (rewards, completion length, KL, clipping) as a
// JSON object (NULL for other runs), and its validation's mean reward.
constexpr const char *kVersion9To10 = R"sql(
ALTER TABLE metrics ADD COLUMN grpo TEXT;
ALTER TABLE evaluations ADD COLUMN reward REAL;
)sql";

// steps[N] takes a file from version N to N + 1.
const std::vector<std::function<void(Database &)>> &migrationSteps() {
    static const std::vector<std::function<void(Database &)>> steps = {
        [](Database &db) {
            db.exec("PRAGMA application_id = " + std::to_string(kProjectApplicationId),
                    "mark the file as a Headroom project");
            db.exec(kCreateVersion1, "create the schema version 1");
        },
        [](Database &db) { db.exec(kVersion1To2, "migrate schema version 1 to 2"); },
        [](Database &db) { db.exec(kVersion2To3, "migrate schema version 2 to 3"); },
        [](Database &db) { db.exec(kVersion3To4, "migrate schema version 3 to 4"); },
        [](Database &db) { db.exec(kVersion4To5, "migrate schema version 4 to 5"); },
        [](Database &db) { db.exec(kVersion5To6, "migrate schema version 5 to 6"); },
        [](Database &db) { db.exec(kVersion6To7, "migrate schema version 6 to 7"); },
        [](Database &db) { db.exec(kVersion7To8, "migrate schema version 7 to 8"); },
        [](Database &db) { db.exec(kVersion8To9, "migrate schema version 8 to 9"); },
        [](Database &db) { db.exec(kVersion9To10, "migrate schema version 9 to 10"); },
    };
    return steps;
}

void writeBackup(Database &db, int version) {
    const std::string target = backupPath(db.path(), version);
    const std::string temporary = target + ".tmp";
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    // VACUUM INTO gives a consistent copy that includes what still sits in the WAL.
    Statement vacuum(db, "VACUUM INTO ?1");
    vacuum.bind(1, temporary).run("write the backup before migrating");
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) {
        std::filesystem::remove(temporary, ignored);
        throw ProjectError("project '" + db.path() + "': cannot write the backup '" + target +
                           "' before migrating: " + error.message());
    }
}

} // namespace

std::string backupPath(const std::string &path, int version) {
    return path + ".bak-v" + std::to_string(version);
}

void migrateToCurrent(Database &db, int version) {
    static_assert(kSchemaVersion >= 1);
    const auto &steps = migrationSteps();
    if (version >= 1 && version < kSchemaVersion) {
        writeBackup(db, version);
    }
    while (version < kSchemaVersion) {
        Transaction transaction(db);
        // Another connection may have migrated the file since it was last read.
        const int current = static_cast<int>(db.pragmaInteger("user_version"));
        if (current != version) {
            version = current;
            continue;
        }
        steps.at(static_cast<std::size_t>(version))(db);
        db.exec("PRAGMA user_version = " + std::to_string(version + 1),
                "record the schema version");
        transaction.commit();
        ++version;
    }
}

} // namespace headroom::project
