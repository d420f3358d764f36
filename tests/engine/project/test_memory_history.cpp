#include "project/migrations.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <sqlite3.h>
#include <string>

using headroom::MemoryHistoryRecord;
using headroom::Project;
using headroom::ProjectError;

// Measured training peaks in the project file (schema 4): what the planner corrects with.
class TestMemoryHistory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void recordsReadBackNewestFirst();
    void filtersByDeviceAndRecipe_data();
    void filtersByDeviceAndRecipe();
    void refusesBadRecords_data();
    void refusesBadRecords();
    void readOnlyProjectReadsHistory();
    void migratesVersion3File();
    void finishedRunRecordsItsPeak();

private:
    std::string projectPath(const char *name) const {
        return QDir(dir_.path()).filePath(name).toStdString();
    }

    QTemporaryDir dir_;
    std::string filled_; // a closed project with five history rows
};

namespace {

const std::string kConfig = R"({"recipe":"gpt"})";

MemoryHistoryRecord record(const std::string &device, const std::string &recipe,
                           std::int64_t micro_batch, std::uint64_t measured) {
    MemoryHistoryRecord row;
    row.source = "fit";
    row.device = device;
    row.recipe = recipe;
    row.config_json = R"({"train.micro_batch":")" + std::to_string(micro_batch) + R"("})";
    row.micro_batch = micro_batch;
    row.predicted_peak = measured / 2;
    row.measured_peak = measured;
    return row;
}

// Plain SQLite, as another program sees the file; returns the error, empty on success.
std::string execRaw(const std::string &path, const std::string &sql) {
    sqlite3 *db = nullptr;
    sqlite3_open(path.c_str(), &db);
    char *error = nullptr;
    std::string message;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        message = error ? error : "unknown error";
    }
    sqlite3_free(error);
    sqlite3_close(db);
    return message;
}

} // namespace

void TestMemoryHistory::initTestCase() {
    QVERIFY(dir_.isValid());
    filled_ = projectPath("filled.headroom");
    Project project = Project::create(filled_, kConfig);
    project.addMemoryHistory(record("cpu", "gpt", 4, 1000));
    project.addMemoryHistory(record("cpu", "tabular", 64, 2000));
    project.addMemoryHistory(record("cpu", "gpt", 8, 3000));
    project.addMemoryHistory(record("cuda:0", "gpt", 16, 4000));
    project.addMemoryHistory(record("cpu", "gpt", 12, 5000));
}

void TestMemoryHistory::recordsReadBackNewestFirst() {
    const Project project = Project::openReadOnly(filled_);
    const std::vector<MemoryHistoryRecord> rows = project.memoryHistory("cpu", "gpt");
    QCOMPARE(rows.size(), std::size_t{3});
    QCOMPARE(rows[0].micro_batch, std::int64_t{12});
    QCOMPARE(rows[1].micro_batch, std::int64_t{8});
    QCOMPARE(rows[2].micro_batch, std::int64_t{4});
    QVERIFY(rows[0].id > rows[1].id && rows[1].id > rows[2].id);
    QCOMPARE(rows[0].measured_peak, std::uint64_t{5000});
    QCOMPARE(rows[0].predicted_peak, std::uint64_t{2500});
    QCOMPARE(rows[0].source, std::string("fit"));
    QCOMPARE(rows[0].run_id, std::int64_t{0});
    QCOMPARE(rows[0].config_json, std::string(R"({"train.micro_batch":"12"})"));
    QVERIFY(!rows[0].recorded_at.empty()); // filled in when left empty

    const std::vector<MemoryHistoryRecord> newest = project.memoryHistory("cpu", "gpt", 2);
    QCOMPARE(newest.size(), std::size_t{2});
    QCOMPARE(newest[0].id, rows[0].id);
    QCOMPARE(newest[1].id, rows[1].id);
    QVERIFY(project.memoryHistory("cpu", "gpt", 0).empty());
}

void TestMemoryHistory::filtersByDeviceAndRecipe_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<int>("rows");
    QTest::addColumn<qint64>("newest_measured");
    QTest::newRow("cpu gpt") << "cpu"
                             << "gpt" << 3 << qint64{5000};
    QTest::newRow("cpu tabular") << "cpu"
                                 << "tabular" << 1 << qint64{2000};
    QTest::newRow("cuda:0 gpt") << "cuda:0"
                                << "gpt" << 1 << qint64{4000};
    QTest::newRow("other gpu") << "cuda:1"
                               << "gpt" << 0 << qint64{0};
    QTest::newRow("no such recipe") << "cpu"
                                    << "diffusion" << 0 << qint64{0};
}

void TestMemoryHistory::filtersByDeviceAndRecipe() {
    QFETCH(QString, device);
    QFETCH(QString, recipe);
    QFETCH(int, rows);
    QFETCH(qint64, newest_measured);
    const Project project = Project::openReadOnly(filled_);
    const auto history = project.memoryHistory(device.toStdString(), recipe.toStdString());
    QCOMPARE(static_cast<int>(history.size()), rows);
    for (const MemoryHistoryRecord &row : history) {
        QCOMPARE(row.device, device.toStdString());
        QCOMPARE(row.recipe, recipe.toStdString());
    }
    if (rows > 0) {
        QCOMPARE(static_cast<qint64>(history[0].measured_peak), newest_measured);
    }
}

void TestMemoryHistory::refusesBadRecords_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<qint64>("run_id");
    QTest::addColumn<QString>("config_json");
    QTest::addColumn<QString>("named");
    QTest::newRow("unknown source") << "disk" << qint64{0} << "{}"
                                    << "'disk'";
    QTest::newRow("no such run") << "run" << qint64{42} << "{}"
                                 << "no run 42";
    QTest::newRow("config not json") << "fit" << qint64{0} << "{oops"
                                     << "not valid JSON";
}

void TestMemoryHistory::refusesBadRecords() {
    QFETCH(QString, source);
    QFETCH(qint64, run_id);
    QFETCH(QString, config_json);
    QFETCH(QString, named);
    QTemporaryDir own;
    Project project = Project::create(own.filePath("p.headroom").toStdString(), kConfig);
    MemoryHistoryRecord row = record("cpu", "gpt", 4, 1000);
    row.source = source.toStdString();
    row.run_id = run_id;
    row.config_json = config_json.toStdString();
    try {
        project.addMemoryHistory(row);
        QFAIL("a bad memory history record was stored");
    } catch (const ProjectError &error) {
        QVERIFY2(QString(error.what()).contains(named), error.what());
    }
    QVERIFY(project.memoryHistory("cpu", "gpt").empty());
}

void TestMemoryHistory::readOnlyProjectReadsHistory() {
    Project project = Project::openReadOnly(filled_);
    QVERIFY(project.isReadOnly());
    QCOMPARE(project.memoryHistory("cpu", "gpt").size(), std::size_t{3});
    QVERIFY_EXCEPTION_THROWN(project.addMemoryHistory(record("cpu", "gpt", 2, 10)), ProjectError);
}

void TestMemoryHistory::migratesVersion3File() {
    const std::string path = projectPath("v3.headroom");
    {
        Project project = Project::create(path, kConfig);
        project.beginRun(kConfig, "cpu", 100, 0);
    }
    // What a version 3 file is: the same layout without the memory history.
    QCOMPARE(execRaw(path, "DROP INDEX memory_history_by_device; DROP TABLE memory_history; "
                           "ALTER TABLE evaluations DROP COLUMN r2; "
                           "ALTER TABLE metrics DROP COLUMN moe_aux_loss; "
                           "ALTER TABLE metrics DROP COLUMN moe_z_loss; "
                           "ALTER TABLE metrics DROP COLUMN moe_dropped_fraction; "
                           "ALTER TABLE metrics DROP COLUMN moe_expert_load; "
                           "ALTER TABLE metrics DROP COLUMN splade_flops_q; "
                           "ALTER TABLE metrics DROP COLUMN splade_flops_d; "
                           "ALTER TABLE metrics DROP COLUMN splade_query_nonzeros; "
                           "ALTER TABLE metrics DROP COLUMN splade_passage_nonzeros; "
                           "ALTER TABLE metrics DROP COLUMN ranks; "
                           "ALTER TABLE metrics DROP COLUMN padding_fraction; "
                           "ALTER TABLE metrics DROP COLUMN preference; "
                           "ALTER TABLE metrics DROP COLUMN grpo; "
                           "ALTER TABLE evaluations DROP COLUMN reward; "
                           "ALTER TABLE evaluations DROP COLUMN mrr_at_10; "
                           "ALTER TABLE evaluations DROP COLUMN recall_at_100; "
                           "PRAGMA user_version = 3"),
             std::string());

    Project project = Project::open(path);
    QCOMPARE(project.schemaVersion(), headroom::project::kSchemaVersion);
    QCOMPARE(project.runs().size(), std::size_t{1});
    QCOMPARE(project.runs()[0].target_steps, std::int64_t{100});
    QVERIFY(project.memoryHistory("cpu", "gpt").empty());
    MemoryHistoryRecord row = record("cpu", "gpt", 4, 1000);
    row.source = "run";
    row.run_id = project.runs()[0].id;
    project.addMemoryHistory(row);
    QCOMPARE(project.memoryHistory("cpu", "gpt").at(0).run_id, row.run_id);

    const std::string backup = headroom::project::backupPath(path, 3);
    QVERIFY(std::filesystem::exists(backup));
    // The backup still is version 3: it has no memory history table to write into.
    QVERIFY(!execRaw(backup, "SELECT count(*) FROM memory_history").empty());
}

void TestMemoryHistory::finishedRunRecordsItsPeak() {
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    const QString project_path = test_support::createTestProject(
        QDir(dir_.path()).filePath("trained.headroom"), corpus, "gpt", test_support::kTinyGpt);
    test_support::Recorder recorder;
    const headroom::RunResult result =
        test_support::runSession(project_path, recorder, {"train.steps=3", "train.eval_every=0"});
    QCOMPARE(test_support::name(result.state),
             test_support::name(headroom::SessionState::Finished));

    const Project project = Project::openReadOnly(project_path.toStdString());
    const std::string device = project.run(result.run_id)->device;
    const std::vector<MemoryHistoryRecord> rows = project.memoryHistory(device, "gpt");
    QCOMPARE(rows.size(), std::size_t{1});
    QCOMPARE(rows[0].source, std::string("run"));
    QCOMPARE(rows[0].run_id, result.run_id);
    QCOMPARE(rows[0].micro_batch, std::int64_t{4});
    QVERIFY(rows[0].measured_peak > 0);
    QCOMPARE(rows[0].measured_peak, project.run(result.run_id)->peak_bytes);
    const headroom::Config measured = headroom::Config::fromJson(rows[0].config_json);
    QCOMPARE(measured.integer("train.micro_batch"), std::int64_t{4});
    QCOMPARE(measured.integer("model.dim"), std::int64_t{32});
}

QTEST_GUILESS_MAIN(TestMemoryHistory)
#include "test_memory_history.moc"
