-- A project exactly as Headroom wrote it at schema version 1 (before the evaluations table and
-- the runs.summary_json column). test_project builds a file from this to check the migration.
PRAGMA application_id = 1212437069; -- 0x4844524D, "HDRM"
PRAGMA journal_mode = WAL;
BEGIN;
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

INSERT INTO meta (key, value) VALUES
    ('config', '{"recipe":"gpt","train.steps":"300"}'),
    ('created_at', '2025-03-01T10:00:00.000Z'),
    ('created_by', 'Headroom 0.0.9');
INSERT INTO blobs (name, bytes) VALUES ('tokenizer', X'00FF1000');
INSERT INTO runs (id, status, config_json, device, started_at, ended_at, resumed_from, last_step,
                  target_steps, final_loss, final_val_loss, peak_bytes, oom_recoveries, message)
VALUES
    (1, 'stopped', '{"train.steps":"300"}', 'cpu', '2025-03-01T10:00:01.000Z',
     '2025-03-01T10:05:00.000Z', NULL, 120, 300, 2.5, NULL, 123456789, 1, 'stopped by the user'),
    (2, 'finished', '{"train.steps":"300"}', 'cuda:0', '2025-03-01T11:00:00.000Z',
     '2025-03-01T11:09:00.000Z', 1, 300, 300, 1.75, 1.875, 987654321, 0, '');
INSERT INTO metrics VALUES
    (1, 1, 4.0, 0.001, 1.5, 8, 4, 1000.0, 32.0, 1000, 2000, 0.5, 'aa01'),
    (1, 2, 'NaN', 0.001, 1.25, 4, 8, 900.0, 30.0, 1100, 2100, 1.0, 'aa02'),
    (2, 121, 2.25, 0.0005, 0.75, 4, 8, 950.0, 31.0, 1200, 2200, 0.25, 'bb01');
INSERT INTO events (run_id, step, kind, message, details, time) VALUES
    (1, 2, 'oom_recovered', 'micro-batch 8 -> 4', '{"from":8,"to":4}', '2025-03-01T10:00:02.000Z');
INSERT INTO checkpoints (run_id, step, path, sha256, bytes, created_at) VALUES
    (1, 100, 'run-1/step-100.pt',
     'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 4096,
     '2025-03-01T10:04:00.000Z');
PRAGMA user_version = 1;
COMMIT;
