// A tiny Mixture-of-Experts GPT through the normal engine path: routing metrics per step in the
// observers and the project file, exact out-of-memory replay (dropout and router jitter on),
// exact resume, the techniques and LoRA on experts, and the config checks.
#include "compat/autocast.h"
#include "project/database.h"
#include "project/migrations.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <numeric>

using namespace test_support;

namespace {

const QStringList kMoeGpt = {
    "model.layers=2",        "model.heads=2",           "model.dim=32",
    "model.seq_len=16",      "model.dropout=0.1",       "moe.experts=4",
    "moe.top_k=2",           "moe.capacity_factor=1.0", "moe.expert_hidden=32",
    "moe.jitter=0.05",       "moe.aux_loss=0.05",       "train.micro_batch=8",
    "train.lr=0.003",        "train.warmup_steps=2",    "train.steps=8",
    "train.eval_every=4",    "train.eval_batches=1",    "train.checkpoint_every=4",
    "data.shuffle_buffer=64"};

QString text(double a, double b) {
    return QString("%1 vs %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
}

// Step by step: the losses within `tolerance` (relative; 0 = bitwise), and the same routing
// decisions: equal expert loads and dropped shares.
void expectSameSteps(const Recorder &expected, const Recorder &actual, double tolerance) {
    QCOMPARE(actual.recorded.digests, expected.recorded.digests);
    QCOMPARE(actual.steps.size(), expected.steps.size());
    for (std::size_t i = 0; i < actual.steps.size(); ++i) {
        const headroom::StepMetrics &a = actual.steps[i];
        const headroom::StepMetrics &b = expected.steps[i];
        QVERIFY(a.moe && b.moe);
        const auto same = [tolerance](double x, double y) {
            return tolerance == 0 ? x == y : std::abs(x - y) <= tolerance * std::abs(y);
        };
        QVERIFY2(same(a.loss, b.loss),
                 qPrintable(QString("step %1 loss: ").arg(i + 1) + text(a.loss, b.loss)));
        QVERIFY2(same(a.moe->aux_loss, b.moe->aux_loss),
                 qPrintable(QString("step %1 aux: ").arg(i + 1) +
                            text(a.moe->aux_loss, b.moe->aux_loss)));
        QVERIFY2(same(a.moe->z_loss, b.moe->z_loss), qPrintable(QString("step %1 z").arg(i + 1)));
        QVERIFY2(a.moe->dropped_fraction == b.moe->dropped_fraction,
                 qPrintable(QString("step %1 dropped: ").arg(i + 1) +
                            text(a.moe->dropped_fraction, b.moe->dropped_fraction)));
        QVERIFY2(a.moe->expert_load == b.moe->expert_load,
                 qPrintable(QString("step %1 expert load").arg(i + 1)));
    }
}

} // namespace

class TestMoeTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void trainsAndRecordsRouting();
    void metricsAreStoredInTheProject();
    void oomReplayIsExact_data();
    void oomReplayIsExact();
    void resumeContinuesExactly();
    void techniquesWorkWithExperts();
    void loraTrainsTheExpertsOfAnMoeBase();
    void moeKeysAreChecked_data();
    void moeKeysAreChecked();
    void version5ProjectMigrates();

private:
    QString project(const QString &name, const QStringList &extra = {});

    QTemporaryDir dir_;
    QString corpus_;
    QString baseline_path_;
    Recorder baseline_;
};

void TestMoeTraining::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
    baseline_path_ = project("baseline.headroom");
    QCOMPARE(name(runSession(baseline_path_, baseline_).state),
             name(headroom::SessionState::Finished));
}

QString TestMoeTraining::project(const QString &file, const QStringList &extra) {
    return createTestProject(QDir(dir_.path()).filePath(file), corpus_, "gpt", kMoeGpt + extra);
}

void TestMoeTraining::trainsAndRecordsRouting() {
    QCOMPARE(baseline_.steps.size(), std::size_t{8});
    for (const headroom::StepMetrics &step : baseline_.steps) {
        QVERIFY(step.moe.has_value());
        QCOMPARE(step.moe->expert_load.size(), std::size_t{2}); // moe.every=1: both blocks
        for (const std::vector<double> &load : step.moe->expert_load) {
            QCOMPARE(load.size(), std::size_t{4});
            QVERIFY(std::abs(std::accumulate(load.begin(), load.end(), 0.0) - 1.0) < 1e-12);
        }
        // The balancing loss is at least about 1 (its value for perfect balance).
        QVERIFY2(step.moe->aux_loss > 0.9 && step.moe->aux_loss < 4.0,
                 qPrintable(QString::number(step.moe->aux_loss)));
        QVERIFY(step.moe->z_loss > 0 && std::isfinite(step.moe->z_loss));
        QVERIFY(step.moe->dropped_fraction >= 0 && step.moe->dropped_fraction < 0.5);
    }
    QVERIFY(baseline_.recorded.losses.back() < baseline_.recorded.losses.front());
}

void TestMoeTraining::metricsAreStoredInTheProject() {
    const headroom::Project stored = headroom::Project::openReadOnly(baseline_path_.toStdString());
    const std::vector<headroom::RunRecord> runs = stored.runs();
    QCOMPARE(runs.size(), std::size_t{1});
    const std::vector<headroom::StepMetrics> steps = stored.metrics(runs[0].id);
    QCOMPARE(steps.size(), baseline_.steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QVERIFY(steps[i].moe.has_value());
        // Stored as REAL: the doubles come back exactly.
        QVERIFY(steps[i].moe->aux_loss == baseline_.steps[i].moe->aux_loss);
        QVERIFY(steps[i].moe->z_loss == baseline_.steps[i].moe->z_loss);
        QVERIFY(steps[i].moe->dropped_fraction == baseline_.steps[i].moe->dropped_fraction);
        QVERIFY(steps[i].moe->expert_load == baseline_.steps[i].moe->expert_load);
    }
    const QString csv = QDir(dir_.path()).filePath("metrics.csv");
    QCOMPARE(
        headroom::exportMetricsCsv(baseline_path_.toStdString(), runs[0].id, csv.toStdString()),
        std::int64_t{8});
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    const QList<QByteArray> header = lines[0].split(',');
    QVERIFY(header.contains("moe_aux_loss") && header.contains("moe_dropped_fraction"));
    QVERIFY(header.contains("moe_load_0_0") && header.contains("moe_load_1_3"));
    QCOMPARE(lines[1].split(',').size(), header.size());
    const double aux = lines[1].split(',')[header.indexOf("moe_aux_loss")].toDouble();
    QVERIFY(std::abs(aux - baseline_.steps[0].moe->aux_loss) < 1e-6);
}

void TestMoeTraining::oomReplayIsExact_data() {
    QTest::addColumn<QByteArray>("failpoints");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<double>("tolerance");
    // Recovered at step 1, the run trains at micro-batch 4 from the start: exactly the run
    // started there, bit for bit, dropout, jitter and capacity drops included.
    QTest::newRow("oom at step 1") << QByteArray("oom@step:1") << QStringList{} << 0.0;
    // Steps before the recovery summed 8 examples in one pass, not two: rounding only, and
    // the same routing decisions (capacity is per sequence).
    QTest::newRow("oom at step 3, checkpointing recomputes")
        << QByteArray("oom@step:3") << QStringList{"checkpointing=1"} << 1e-5;
}

void TestMoeTraining::oomReplayIsExact() {
    QFETCH(QByteArray, failpoints);
    QFETCH(QStringList, extra);
    QFETCH(double, tolerance);
    static int counter = 0;
    ++counter;
    Recorder started;
    runSession(project(QString("half-%1.headroom").arg(counter),
                       extra + QStringList{"train.micro_batch=4", "train.accumulation=2"}),
               started);
    qputenv("HEADROOM_FAILPOINT", failpoints);
    Recorder recovered;
    const headroom::RunResult result =
        runSession(project(QString("oom-%1.headroom").arg(counter), extra), recovered);
    qunsetenv("HEADROOM_FAILPOINT");
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recovered, "oom_recovered"));
    QCOMPARE(recovered.micro_batches.back(), 4);
    expectSameSteps(started, recovered, tolerance);
}

void TestMoeTraining::resumeContinuesExactly() {
    const QString path = project("parts.headroom");
    Recorder head, tail;
    QCOMPARE(name(runSession(path, head, {}, 5).state), name(headroom::SessionState::Stopped));
    QCOMPARE(name(runSession(path, tail, {}, 0, true).state),
             name(headroom::SessionState::Finished));
    Recorder joined;
    joined.steps = head.steps;
    joined.recorded = head.recorded;
    joined.steps.insert(joined.steps.end(), tail.steps.begin(), tail.steps.end());
    joined.recorded.digests.insert(joined.recorded.digests.end(), tail.recorded.digests.begin(),
                                   tail.recorded.digests.end());
    expectSameSteps(baseline_, joined, 1e-6);
}

void TestMoeTraining::techniquesWorkWithExperts() {
    QStringList techniques = {"checkpointing=1", "optimizer=adamw8bit"};
    if (headroom::compat::autocastUnsupportedReason(torch::kCPU, torch::kBFloat16).empty()) {
        techniques << "precision=bf16";
    }
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project("techniques.headroom", techniques), recorder);
    QVERIFY2(result.state == headroom::SessionState::Finished, result.message.c_str());
    for (const headroom::StepMetrics &step : recorder.steps) {
        QVERIFY(std::isfinite(step.loss) && step.moe && std::isfinite(step.moe->aux_loss));
    }
}

void TestMoeTraining::loraTrainsTheExpertsOfAnMoeBase() {
    // Run 1 of baseline.headroom is the base; its experts get adapters, the router stays.
    Recorder recorder;
    const headroom::RunResult result =
        runSession(baseline_path_, recorder,
                   {"lora.rank=4", "lora.base_run=1", "lora.targets=qkv,experts_in,experts_out",
                    "train.steps=4"});
    QVERIFY2(result.state == headroom::SessionState::Finished, result.message.c_str());
    QCOMPARE(recorder.steps.size(), std::size_t{4});
    QVERIFY(recorder.steps.back().moe.has_value());

    Recorder dense_base;
    const QString dense = createTestProject(QDir(dir_.path()).filePath("dense.headroom"), corpus_,
                                            "gpt", kTinyGpt + QStringList{"train.steps=2"});
    runSession(dense, dense_base);
    const headroom::RunResult refused = runSession(
        dense, dense_base, {"lora.rank=4", "lora.base_run=1", "lora.targets=experts_in"});
    QCOMPARE(name(refused.state), name(headroom::SessionState::Failed));
    QVERIFY2(QString::fromStdString(refused.message).contains("experts_in"),
             refused.message.c_str());
}

void TestMoeTraining::moeKeysAreChecked_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<QString>("message");
    QTest::newRow("tabular recipe")
        << QStringList{"recipe=tabular", "moe.experts=4"} << "moe.experts=4: Mixture-of-Experts";
    QTest::newRow("tabular, another key")
        << QStringList{"recipe=tabular", "moe.top_k=1"} << "moe.top_k=1";
    QTest::newRow("top_k above experts")
        << QStringList{"moe.experts=2", "moe.top_k=3"} << "moe.top_k (3) must be at most";
    QTest::newRow("every beyond layers")
        << QStringList{"moe.experts=2", "moe.every=9"} << "moe.every (9) is larger";
    QTest::newRow("out of range") << QStringList{"moe.experts=999"} << "moe.experts";
    QTest::newRow("negative capacity")
        << QStringList{"moe.capacity_factor=-1"} << "moe.capacity_factor";
}

void TestMoeTraining::moeKeysAreChecked() {
    QFETCH(QStringList, settings);
    QFETCH(QString, message);
    headroom::Config config;
    try {
        config.set("data.path", "corpus.txt");
        for (const QString &setting : settings) {
            config.setAssignment(setting.toStdString());
        }
        config.validate();
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).contains(message), error.what());
    }
}

void TestMoeTraining::version5ProjectMigrates() {
    const std::string path = QDir(dir_.path()).filePath("v5.headroom").toStdString();
    std::int64_t run = 0;
    headroom::StepMetrics dense;
    dense.step = 1;
    dense.loss = 2.5;
    {
        headroom::Project project = headroom::Project::create(path, headroom::Config().toJson());
        run = project.beginRun(headroom::Config().toJson(), "cpu", 10, 0);
        headroom::MetricsWriter writer(path, run);
        writer.post(dense);
        writer.flush();
    }
    {
        // What a version 5 file is: the same layout without the MoE (and later) columns.
        headroom::project::Database db(path, headroom::project::Database::Mode::OpenExisting);
        db.exec("ALTER TABLE metrics DROP COLUMN splade_flops_q; "
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
                "ALTER TABLE metrics DROP COLUMN moe_aux_loss; "
                "ALTER TABLE metrics DROP COLUMN moe_z_loss; "
                "ALTER TABLE metrics DROP COLUMN moe_dropped_fraction; "
                "ALTER TABLE metrics DROP COLUMN moe_expert_load; PRAGMA user_version = 5",
                "make a version 5 file");
    }
    headroom::Project project = headroom::Project::open(path);
    QCOMPARE(project.schemaVersion(), headroom::project::kSchemaVersion);
    QVERIFY(QFile::exists(QString::fromStdString(headroom::project::backupPath(path, 5))));
    std::vector<headroom::StepMetrics> steps = project.metrics(run);
    QCOMPARE(steps.size(), std::size_t{1});
    QVERIFY(!steps[0].moe.has_value());
    QCOMPARE(steps[0].loss, 2.5);

    headroom::StepMetrics routed;
    routed.step = 2;
    routed.moe = headroom::MoeStepMetrics{1.25, 3.5, 0.125, {{0.5, 0.25, 0.25, 0.0}, {1.0}}};
    {
        headroom::MetricsWriter writer(path, run);
        writer.post(routed);
        writer.flush();
    }
    steps = project.metrics(run);
    QCOMPARE(steps.size(), std::size_t{2});
    QVERIFY(!steps[0].moe.has_value());
    QVERIFY(steps[1].moe.has_value());
    QVERIFY(steps[1].moe->aux_loss == 1.25 && steps[1].moe->z_loss == 3.5);
    QVERIFY(steps[1].moe->dropped_fraction == 0.125);
    QVERIFY(steps[1].moe->expert_load == routed.moe->expert_load);
}

QTEST_GUILESS_MAIN(TestMoeTraining)
#include "test_moe_training.moc"
