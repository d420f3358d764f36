#include <headroom/project.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <sqlite3.h>
#include <string>

using headroom::EngineEvent;
using headroom::EvalMetrics;
using headroom::MetricsWriter;
using headroom::PreferenceStepMetrics;
using headroom::Project;
using headroom::ProjectError;
using headroom::StepMetrics;

namespace {

const std::string kConfig = R"({"recipe":"tabular"})";

StepMetrics stepMetrics(std::int64_t step) {
    StepMetrics m;
    m.step = step;
    m.loss = 5.0 / static_cast<double>(step);
    m.lr = 1e-3 * static_cast<double>(step % 7);
    m.grad_norm = 0.25 * static_cast<double>(step);
    m.micro_batch = static_cast<int>(1 + step % 8);
    m.accumulation = static_cast<int>(64 / m.micro_batch);
    m.tokens_per_s = 1000.5 + static_cast<double>(step);
    m.samples_per_s = 30.25;
    m.mem_live = 5'000'000'000ULL + static_cast<std::uint64_t>(step);
    m.mem_peak = 7'000'000'000ULL;
    m.mem_reserved = 8'000'000'000ULL + static_cast<std::uint64_t>(step);
    m.mem_rss = 9'000'000'000ULL;
    m.loss_scale = 65536.0 / static_cast<double>(1 + step % 3);
    m.skipped_steps = step / 5;
    m.elapsed_s = 0.125 * static_cast<double>(step);
    m.samples_digest = "digest-" + std::to_string(step);
    m.padding_fraction = 0.03125 * static_cast<double>(step % 5);
    if (step % 3 == 0) { // a preference objective's figures
        m.preference = PreferenceStepMetrics{-40.5, -52.25, 0.75, -0.5, 1.25, 0.875};
    }
    if (step % 4 == 1) { // online RL's figures (no KL: NaN is stored as null)
        headroom::GrpoStepMetrics grpo;
        grpo.reward_mean = 0.25 * static_cast<double>(step % 4);
        grpo.reward_std = 0.375;
        grpo.zero_std_fraction = 0.5;
        grpo.completion_length = 17.5;
        grpo.clip_ratio = 0.0625;
        grpo.reward_terms = {{"exact:answer", 0.5}, {"format:<think>.*</think>", 0.125}};
        m.grpo = grpo;
    }
    if (step % 2 == 0) { // a distributed run's per-rank figures
        m.ranks = {{0, 1000u + static_cast<std::uint64_t>(step), 12.5},
                   {1, 900u + static_cast<std::uint64_t>(step), 11.25}};
    }
    return m;
}

void compareSteps(const StepMetrics &actual, const StepMetrics &expected) {
    QCOMPARE(actual.step, expected.step);
    QCOMPARE(actual.loss, expected.loss);
    QCOMPARE(actual.lr, expected.lr);
    QCOMPARE(actual.grad_norm, expected.grad_norm);
    QCOMPARE(actual.micro_batch, expected.micro_batch);
    QCOMPARE(actual.accumulation, expected.accumulation);
    QCOMPARE(actual.tokens_per_s, expected.tokens_per_s);
    QCOMPARE(actual.samples_per_s, expected.samples_per_s);
    QCOMPARE(actual.mem_live, expected.mem_live);
    QCOMPARE(actual.mem_peak, expected.mem_peak);
    QCOMPARE(actual.mem_reserved, expected.mem_reserved);
    QCOMPARE(actual.mem_rss, expected.mem_rss);
    QCOMPARE(actual.loss_scale, expected.loss_scale);
    QCOMPARE(actual.skipped_steps, expected.skipped_steps);
    QCOMPARE(actual.elapsed_s, expected.elapsed_s);
    QCOMPARE(actual.samples_digest, expected.samples_digest);
    QCOMPARE(actual.padding_fraction, expected.padding_fraction);
    QCOMPARE(actual.preference.has_value(), expected.preference.has_value());
    if (expected.preference) {
        QCOMPARE(actual.preference->chosen_logps, expected.preference->chosen_logps);
        QCOMPARE(actual.preference->rejected_logps, expected.preference->rejected_logps);
        QCOMPARE(actual.preference->chosen_rewards, expected.preference->chosen_rewards);
        QCOMPARE(actual.preference->rejected_rewards, expected.preference->rejected_rewards);
        QCOMPARE(actual.preference->reward_margin, expected.preference->reward_margin);
        QCOMPARE(actual.preference->reward_accuracy, expected.preference->reward_accuracy);
    }
    QCOMPARE(actual.grpo.has_value(), expected.grpo.has_value());
    if (expected.grpo) {
        QCOMPARE(actual.grpo->reward_mean, expected.grpo->reward_mean);
        QCOMPARE(actual.grpo->reward_std, expected.grpo->reward_std);
        QCOMPARE(actual.grpo->zero_std_fraction, expected.grpo->zero_std_fraction);
        QCOMPARE(actual.grpo->completion_length, expected.grpo->completion_length);
        QCOMPARE(actual.grpo->clip_ratio, expected.grpo->clip_ratio);
        QVERIFY(std::isnan(actual.grpo->kl));
        QVERIFY(actual.grpo->reward_terms == expected.grpo->reward_terms);
    }
    QCOMPARE(actual.ranks.size(), expected.ranks.size());
    for (std::size_t i = 0; i < expected.ranks.size(); ++i) {
        QCOMPARE(actual.ranks[i].rank, expected.ranks[i].rank);
        QCOMPARE(actual.ranks[i].mem_peak, expected.ranks[i].mem_peak);
        QCOMPARE(actual.ranks[i].samples_per_s, expected.ranks[i].samples_per_s);
    }
}

// A second program holding the file: plain SQLite.
class RawDatabase {
public:
    explicit RawDatabase(const std::string &path) { sqlite3_open(path.c_str(), &db_); }
    ~RawDatabase() { sqlite3_close(db_); }
    RawDatabase(const RawDatabase &) = delete;
    RawDatabase &operator=(const RawDatabase &) = delete;

    bool exec(const char *sql) {
        return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    }

    std::int64_t integer(const char *sql) {
        sqlite3_stmt *stmt = nullptr;
        std::int64_t value = -1;
        if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_ROW) {
            value = sqlite3_column_int64(stmt, 0);
        }
        sqlite3_finalize(stmt);
        return value;
    }

private:
    sqlite3 *db_ = nullptr;
};

struct Fixture {
    QTemporaryDir dir;
    std::string path = dir.filePath("w.headroom").toStdString();
    Project project = Project::create(path, kConfig);
    std::int64_t run = project.beginRun(kConfig, "cpu", 1000, 0);
};

} // namespace

class TestProjectWriter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyRecordTypeIsCommitted();
    void postDoesNotTouchTheDisk();
    void rowsArriveWithoutFlush();
    void replayedStepOverwrites();
    void secondWriterAfterTheFirstIsDestroyed();
    void nanAndInfinityMetrics();
    void flushReportsWriteFailure();
    void constructorRejectsBadTargets();
};

void TestProjectWriter::everyRecordTypeIsCommitted() {
    Fixture f;
    MetricsWriter writer(f.path, f.run);
    constexpr int kSteps = 1000; // several batches
    for (int step = 1; step <= kSteps; ++step) {
        writer.post(stepMetrics(step));
        if (step % 100 == 0) {
            writer.post(EvalMetrics{step, 1.5, 0.5 + step / 10000.0, 0.0, 640});
            writer.post(EngineEvent{"checkpoint", step, "saved step " + std::to_string(step),
                                    R"({"bytes":1234})"});
            // The project's own connection writes at the same time (busy timeout at work).
            headroom::RunRecord record = *f.project.run(f.run);
            record.last_step = step;
            f.project.updateRun(record);
        }
    }
    writer.flush();

    // Read through another connection while the writer still lives.
    const Project reader = Project::open(f.path);
    const std::vector<StepMetrics> rows = reader.metrics(f.run);
    QCOMPARE(rows.size(), std::size_t{kSteps});
    for (int step = 1; step <= kSteps; ++step) {
        compareSteps(rows[static_cast<std::size_t>(step - 1)], stepMetrics(step));
    }
    const auto evaluations = reader.evaluations(f.run);
    QCOMPARE(evaluations.size(), std::size_t{10});
    QCOMPARE(evaluations[2].run_id, f.run);
    QCOMPARE(evaluations[2].metrics.step, std::int64_t{300});
    QCOMPARE(evaluations[2].metrics.loss, 1.5);
    QCOMPARE(evaluations[2].metrics.accuracy, 0.53);
    QCOMPARE(evaluations[2].metrics.examples, std::int64_t{640});
    const auto events = reader.events(f.run);
    QCOMPARE(events.size(), std::size_t{10});
    QCOMPARE(events[9].run_id, f.run);
    QCOMPARE(events[9].event.kind, std::string("checkpoint"));
    QCOMPARE(events[9].event.step, std::int64_t{1000});
    QCOMPARE(events[9].event.message, std::string("saved step 1000"));
    QCOMPARE(events[9].event.details, std::string(R"({"bytes":1234})"));
    QCOMPARE(reader.run(f.run)->last_step, std::int64_t{kSteps});
}

void TestProjectWriter::postDoesNotTouchTheDisk() {
    Fixture f;
    MetricsWriter writer(f.path, f.run);
    RawDatabase other(f.path);
    QVERIFY(other.exec("BEGIN IMMEDIATE")); // holds the write lock
    QElapsedTimer timer;
    timer.start();
    for (int step = 1; step <= 300; ++step) {
        writer.post(stepMetrics(step));
    }
    // Writing on the caller's thread would have waited for the lock (the busy timeout).
    QVERIFY2(timer.elapsed() < 1000, QByteArray::number(timer.elapsed()));
    QCOMPARE(other.integer("SELECT count(*) FROM metrics"), std::int64_t{0});
    QVERIFY(other.exec("COMMIT"));
    writer.flush();
    QCOMPARE(other.integer("SELECT count(*) FROM metrics"), std::int64_t{300});
}

void TestProjectWriter::rowsArriveWithoutFlush() {
    Fixture f;
    MetricsWriter writer(f.path, f.run);
    writer.post(stepMetrics(1));
    writer.post(EngineEvent{"nan_loss", 1, "loss is NaN", "{}"});
    // The writer commits on its own within its batch delay.
    QTRY_COMPARE_WITH_TIMEOUT(f.project.metrics(f.run).size(), std::size_t{1}, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(f.project.events(f.run).size(), std::size_t{1}, 5000);
}

void TestProjectWriter::replayedStepOverwrites() {
    Fixture f;
    MetricsWriter writer(f.path, f.run);
    StepMetrics first = stepMetrics(5);
    writer.post(first);
    writer.flush();
    StepMetrics replay = stepMetrics(5); // after an out-of-memory recovery: smaller micro-batch
    replay.loss = 0.75;
    replay.micro_batch = 2;
    replay.accumulation = 32;
    writer.post(replay);
    writer.post(stepMetrics(6));
    StepMetrics again = stepMetrics(6); // replayed inside the same batch
    again.micro_batch = 1;
    writer.post(again);
    writer.flush();

    const std::vector<StepMetrics> rows = f.project.metrics(f.run);
    QCOMPARE(rows.size(), std::size_t{2});
    compareSteps(rows[0], replay);
    compareSteps(rows[1], again);
}

void TestProjectWriter::secondWriterAfterTheFirstIsDestroyed() {
    Fixture f;
    {
        MetricsWriter writer(f.path, f.run);
        for (int step = 1; step <= 10; ++step) {
            writer.post(stepMetrics(step));
        }
        // no flush: the destructor commits what is queued
    }
    QCOMPARE(f.project.metrics(f.run).size(), std::size_t{10});
    {
        MetricsWriter writer(f.path, f.run);
        for (int step = 11; step <= 20; ++step) {
            writer.post(stepMetrics(step));
        }
        writer.flush();
        QCOMPARE(f.project.metrics(f.run).size(), std::size_t{20});
    }
    QCOMPARE(f.project.metrics(f.run).back().step, std::int64_t{20});
}

void TestProjectWriter::nanAndInfinityMetrics() {
    Fixture f;
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    {
        MetricsWriter writer(f.path, f.run);
        StepMetrics diverged = stepMetrics(1);
        diverged.loss = kNaN;
        diverged.grad_norm = kInf;
        writer.post(diverged);
        writer.post(EvalMetrics{1, 0.5, kNaN, 0.25, 10}); // a regressor: no accuracy
        writer.flush();
    }
    const Project reader = Project::open(f.path);
    const StepMetrics row = reader.metrics(f.run).at(0);
    QVERIFY(std::isnan(row.loss));
    QCOMPARE(row.grad_norm, kInf);
    QCOMPARE(row.lr, stepMetrics(1).lr);
    const EvalMetrics eval = reader.evaluations(f.run).at(0).metrics;
    QVERIFY(std::isnan(eval.accuracy));
    QCOMPARE(eval.rmse, 0.25);
}

void TestProjectWriter::flushReportsWriteFailure() {
    Fixture f;
    MetricsWriter writer(f.path, f.run);
    writer.post(stepMetrics(1));
    writer.flush();
    {
        // Someone removes the run under the writer's feet: its rows now break a foreign key.
        RawDatabase other(f.path);
        QVERIFY(other.exec("PRAGMA foreign_keys = OFF"));
        QVERIFY(other.exec("DELETE FROM metrics; DELETE FROM runs"));
    }
    writer.post(stepMetrics(2));
    try {
        writer.flush();
        QFAIL("flush() did not report the failed write");
    } catch (const ProjectError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find(f.path) != std::string::npos, error.what());
        QVERIFY2(message.find("FOREIGN KEY") != std::string::npos, error.what());
    }
    writer.flush();              // reported once; nothing new failed since
    writer.post(stepMetrics(3)); // fails again; the destructor must not throw
}

void TestProjectWriter::constructorRejectsBadTargets() {
    Fixture f;
    try {
        MetricsWriter writer(f.path, 42);
        QFAIL("a writer for a missing run was created");
    } catch (const ProjectError &error) {
        QVERIFY2(std::string(error.what()).find("has no run 42") != std::string::npos,
                 error.what());
    }
    const std::string missing = f.dir.filePath("nope.headroom").toStdString();
    try {
        MetricsWriter writer(missing, 1);
        QFAIL("a writer for a missing file was created");
    } catch (const ProjectError &error) {
        QVERIFY2(std::string(error.what()).find("does not exist") != std::string::npos,
                 error.what());
    }
}

QTEST_GUILESS_MAIN(TestProjectWriter)
#include "test_project_writer.moc"
