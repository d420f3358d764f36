// Tabular runs as a newcomer gets them: settings chosen from the data, epochs, validation over
// the whole split, early stopping with the best checkpoint as the result, class weights, R^2,
// and evaluation on a held-out file.
#include "data/tabular_schema.h"
#include "recipes/recipe.h"
#include "sample_files.h"
#include "train/prepared_data.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace test_support;

namespace {

// y = 3x - 2z + noise-free: a regression target a small MLP fits well.
QByteArray regressionCsv(int rows, int offset = 0) {
    QByteArray text = "x,z,shade,y\n";
    static const char *const shades[] = {"light", "dark"};
    for (int i = offset; i < offset + rows; ++i) {
        const double x = ((i * 37) % 200 - 100) / 50.0;
        const double z = ((i * 53) % 200 - 100) / 50.0;
        const double y = 3 * x - 2 * z + (i % 2 == 0 ? 0.5 : -0.5);
        text += QByteArray::number(x, 'f', 3) + ',' + QByteArray::number(z, 'f', 3) + ',' +
                shades[i % 2] + ',' + QByteArray::number(y, 'f', 4) + '\n';
    }
    return text;
}

headroom::Config projectConfig(const QString &path) {
    return headroom::Config::fromJson(
        headroom::Project::openForReading(path.toStdString()).configJson());
}

nlohmann::json runSummary(const QString &path, std::int64_t run_id) {
    const headroom::Project project = headroom::Project::openForReading(path.toStdString());
    return nlohmann::json::parse(project.run(run_id)->summary_json);
}

} // namespace

class TestTabularTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void defaultsFollowTheData_data();
    void defaultsFollowTheData();
    void givenSettingsAreKept();
    void epochsDeriveTheStepsAndValidationSeesTheWholeSplit();
    void anExplicitStepCountWinsOverEpochs();
    void earlyStoppingKeepsTheBestCheckpoint();
    void classWeights_data();
    void classWeights();
    void weightedLossDoesNotDependOnTheMicroBatch();
    void regressionReportsRmseAndR2();
    void evaluateRejectsAFileThatDoesNotFit();

private:
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }

    QTemporaryDir dir_;
    QString csv_;
};

void TestTabularTraining::initTestCase() {
    QVERIFY(dir_.isValid());
    csv_ = writeFile(QDir(dir_.path()), "plants.csv", tabularCsv(400));
}

void TestTabularTraining::defaultsFollowTheData_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("micro_batch");
    // An eighth of the training rows (about 90 % of the file), within 32..256.
    QTest::newRow("a few hundred rows") << 400 << 45;
    QTest::newRow("a few thousand rows") << 4000 << 256;
}

void TestTabularTraining::defaultsFollowTheData() {
    QFETCH(int, rows);
    QFETCH(int, micro_batch);
    const QString data =
        writeFile(QDir(dir_.path()), QString("rows-%1.csv").arg(rows), tabularCsv(rows));
    const QString project = path(QString("defaults-%1.headroom").arg(rows));
    createTestProject(project, data, "tabular", {});
    const headroom::Config config = projectConfig(project);
    // The split is a hash of each row: about 90 % of the rows train, give or take a few.
    const std::int64_t chosen = config.integer("train.micro_batch");
    QVERIFY2(std::abs(chosen - micro_batch) <= micro_batch / 10,
             qPrintable(QString::number(chosen)));
    QCOMPARE(config.text("train.lr"), std::string("0.002"));
    QVERIFY(config.real("train.epochs") >= 20);
    QCOMPARE(config.integer("train.eval_batches"), 0);
    QVERIFY(config.integer("train.early_stopping") > 0);
    // Validation once per epoch: the training rows (about 90 %) over the batch, rounded up.
    const std::int64_t per_epoch = config.integer("train.eval_every");
    QVERIFY2(std::abs(per_epoch * chosen - rows * 9 / 10) <= rows / 20 + chosen,
             qPrintable(QString::number(per_epoch)));
    QVERIFY(config.integer("data.shuffle_buffer") >= rows * 8 / 10);
}

void TestTabularTraining::givenSettingsAreKept() {
    const QString project = path("given.headroom");
    createTestProject(project, csv_, "tabular", {"train.micro_batch=10", "train.lr=0.01"});
    headroom::Config config = projectConfig(project);
    QCOMPARE(config.integer("train.micro_batch"), 10);
    QCOMPARE(config.text("train.lr"), std::string("0.01"));
    // Epochs are counted with the batch the user chose.
    const std::int64_t per_epoch = config.integer("train.eval_every");
    QVERIFY2(per_epoch >= 32 && per_epoch <= 42, qPrintable(QString::number(per_epoch)));

    // A chosen step count is the run's length: no epochs, no early stopping added.
    const QString fixed = path("fixed-length.headroom");
    createTestProject(fixed, csv_, "tabular", {"train.steps=30"});
    config = projectConfig(fixed);
    QCOMPARE(config.real("train.epochs"), 0.0);
    QCOMPARE(config.integer("train.early_stopping"), 0);
    QCOMPARE(config.integer("train.steps"), 30);
}

void TestTabularTraining::epochsDeriveTheStepsAndValidationSeesTheWholeSplit() {
    const QString project = path("epochs.headroom");
    createTestProject(project, csv_, "tabular",
                      {"train.epochs=2", "train.micro_batch=16", "train.early_stopping=0"});
    Recorder recorder;
    const headroom::RunResult result = runSession(project, recorder);
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    const headroom::Project opened = headroom::Project::openForReading(project.toStdString());
    const headroom::Config config = projectConfig(project);
    const headroom::data::TabularSchema schema =
        headroom::data::TabularSchema::fromJson(*opened.blob(headroom::train::schemaBlobName(
            headroom::train::dataSpecFromConfig(config, project.toStdString()))));
    QCOMPARE(schema.train_rows + schema.validation_rows, std::int64_t{400});
    const std::int64_t steps = (2 * schema.train_rows + 15) / 16;
    QCOMPARE(result.target_steps, steps);
    QCOMPARE(result.last_step, steps);
    const nlohmann::json run_config = nlohmann::json::parse(opened.run(result.run_id)->config_json);
    QCOMPARE(run_config.at("train.steps").get<std::string>(), std::to_string(steps));
    // train.eval_batches=0 (the tabular default): every validation row, not 8 micro-batches.
    QCOMPARE(recorder.last_eval.examples, schema.validation_rows);
}

void TestTabularTraining::anExplicitStepCountWinsOverEpochs() {
    const QString project = path("steps-override.headroom");
    createTestProject(project, csv_, "tabular", {"train.epochs=50"});
    Recorder recorder;
    const headroom::RunResult result =
        runSession(project, recorder, {"train.steps=5", "train.early_stopping=0"});
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QCOMPARE(result.target_steps, std::int64_t{5});
}

void TestTabularTraining::earlyStoppingKeepsTheBestCheckpoint() {
    // With a vanishing learning rate nothing improves after the first validation: the run
    // stops after `patience` more passes, and the first pass's checkpoint is its result even
    // though only one checkpoint is kept.
    const QString project = path("early.headroom");
    createTestProject(project, csv_, "tabular",
                      {"train.epochs=20", "train.micro_batch=32", "train.lr=1e-9",
                       "train.warmup_steps=0", "train.eval_every=3", "train.early_stopping=2",
                       "train.keep_checkpoints=1", "train.checkpoint_every=1"});
    Recorder recorder;
    const headroom::RunResult result = runSession(project, recorder);
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(hasEvent(recorder, "early_stopped"));
    QCOMPARE(result.last_step, std::int64_t{9}); // validations at 3 (best), 6, 9
    const nlohmann::json summary = runSummary(project, result.run_id);
    QCOMPARE(summary.at("best_step").get<std::int64_t>(), std::int64_t{3});
    QCOMPARE(summary.at("early_stopped_at").get<std::int64_t>(), std::int64_t{9});

    const headroom::Project opened = headroom::Project::openForReading(project.toStdString());
    QCOMPARE(opened.resultCheckpoint(result.run_id)->step, std::int64_t{3});
    QCOMPARE(opened.latestCheckpoint(result.run_id)->step, std::int64_t{9});
    QCOMPARE(opened.checkpoints(result.run_id).size(), std::size_t{2}); // best + latest

    const headroom::EvaluationReport report =
        headroom::evaluateRun(project.toStdString(), 0, csv_.toStdString());
    QCOMPARE(report.run_id, result.run_id);
    QCOMPARE(report.step, std::int64_t{3});
    QVERIFY(!report.latest);
    QCOMPARE(report.metrics.examples, std::int64_t{400});
    QVERIFY(report.metrics.accuracy >= 0 && report.metrics.accuracy <= 1);
    const std::string exported = path("early.safetensors").toStdString();
    QCOMPARE(headroom::exportWeights(project.toStdString(), result.run_id, exported),
             std::int64_t{3});
}

void TestTabularTraining::classWeights_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QVector<qint64>>("counts");
    QTest::addColumn<QVector<double>>("expected");
    QTest::newRow("balanced classes: auto leaves them")
        << "auto" << QVector<qint64>{50, 50} << QVector<double>{};
    QTest::newRow("none") << "none" << QVector<qint64>{90, 10} << QVector<double>{};
    // N/(K n_c) = {0.556, 5}, scaled so a row weighs 1 on average: {0.556, 5} / 1.
    QTest::newRow("balanced") << "balanced" << QVector<qint64>{90, 10}
                              << QVector<double>{100.0 / 180.0, 5.0};
    // sqrt of that = {0.745, 2.236}, average row weight 0.9*0.745+0.1*2.236 = 0.894.
    QTest::newRow("auto on 9:1") << "auto" << QVector<qint64>{90, 10}
                                 << QVector<double>{0.745356 / 0.894427, 2.236068 / 0.894427};
}

void TestTabularTraining::classWeights() {
    QFETCH(QString, mode);
    QFETCH(QVector<qint64>, counts);
    QFETCH(QVector<double>, expected);
    headroom::data::TabularSchema schema;
    schema.classification = true;
    for (int i = 0; i < counts.size(); ++i) {
        schema.classes.push_back("c" + std::to_string(i));
        schema.class_counts.push_back(counts[i]);
    }
    const std::vector<double> weights = headroom::train::classWeights(mode.toStdString(), schema);
    QCOMPARE(int(weights.size()), int(expected.size()));
    for (int i = 0; i < expected.size(); ++i) {
        QVERIFY2(std::abs(weights[std::size_t(i)] - expected[i]) < 1e-4,
                 qPrintable(QString("%1 vs %2").arg(weights[std::size_t(i)]).arg(expected[i])));
    }
}

void TestTabularTraining::weightedLossDoesNotDependOnTheMicroBatch() {
    // 9 of 10 rows "low": the auto weights apply, and a step's loss must not change when
    // out-of-memory recovery cuts it into smaller micro-batches.
    QByteArray text = "x,y,label\n";
    for (int i = 0; i < 300; ++i) {
        text += QByteArray::number(i % 17) + ',' + QByteArray::number(i % 5) + ',' +
                (i % 10 == 0 ? "high" : "low") + '\n';
    }
    const QString data = writeFile(QDir(dir_.path()), "skewed.csv", text);
    const QStringList common = {"train.steps=6", "train.eval_every=0", "model.dropout=0.2"};
    Recorder whole;
    Recorder halves;
    createTestProject(path("skewed-a.headroom"), data, "tabular",
                      common + QStringList{"train.micro_batch=16", "train.accumulation=1"});
    createTestProject(path("skewed-b.headroom"), data, "tabular",
                      common + QStringList{"train.micro_batch=8", "train.accumulation=2"});
    runSession(path("skewed-a.headroom"), whole);
    runSession(path("skewed-b.headroom"), halves);
    QCOMPARE(halves.recorded.digests, whole.recorded.digests);
    for (std::size_t i = 0; i < whole.recorded.losses.size(); ++i) {
        const double relative = std::abs(halves.recorded.losses[i] - whole.recorded.losses[i]) /
                                std::abs(whole.recorded.losses[i]);
        QVERIFY2(relative < 1e-5, qPrintable(QString("step %1: %2 vs %3")
                                                 .arg(i + 1)
                                                 .arg(halves.recorded.losses[i], 0, 'g', 10)
                                                 .arg(whole.recorded.losses[i], 0, 'g', 10)));
    }
    const headroom::Project opened =
        headroom::Project::openForReading(path("skewed-a.headroom").toStdString());
    QVERIFY(opened.runs().back().summary_json.find("class-weighted") != std::string::npos);
}

void TestTabularTraining::regressionReportsRmseAndR2() {
    const QString data = writeFile(QDir(dir_.path()), "line.csv", regressionCsv(400));
    const QString test = writeFile(QDir(dir_.path()), "line-test.csv", regressionCsv(100, 400));
    const QString project = path("regression.headroom");
    createTestProject(project, data, "tabular", {"train.epochs=30"});
    Recorder recorder;
    const headroom::RunResult result = runSession(project, recorder);
    QCOMPARE(name(result.state), name(headroom::SessionState::Finished));
    QVERIFY(std::isfinite(recorder.last_eval.r2));
    const nlohmann::json summary = runSummary(project, result.run_id);
    QVERIFY(summary.contains("val_rmse"));
    QVERIFY(summary.at("val_r2").get<double>() > 0.8);

    const headroom::EvaluationReport report =
        headroom::evaluateRun(project.toStdString(), result.run_id, test.toStdString());
    QCOMPARE(report.task, std::string("regression"));
    QCOMPARE(report.metrics.examples, std::int64_t{100});
    QVERIFY(std::isnan(report.metrics.accuracy));
    // R^2 = 1 - n RMSE^2 / sum (y - mean)^2, with the targets of the test file.
    double sum = 0;
    double squares = 0;
    const QList<QByteArray> lines = regressionCsv(100, 400).split('\n');
    for (int i = 1; i < lines.size(); ++i) {
        if (lines[i].isEmpty()) {
            continue;
        }
        bool ok = false;
        const double y = lines[i].split(',').last().toDouble(&ok);
        QVERIFY2(ok, lines[i].constData());
        sum += y;
        squares += y * y;
    }
    const double spread = squares - sum * sum / 100;
    const double expected = 1 - 100 * report.metrics.rmse * report.metrics.rmse / spread;
    QVERIFY2(std::abs(report.metrics.r2 - expected) < 1e-6,
             qPrintable(QString("%1 vs %2").arg(report.metrics.r2).arg(expected)));
    QVERIFY(report.metrics.r2 > 0.8);
}

void TestTabularTraining::evaluateRejectsAFileThatDoesNotFit() {
    const QString project = path("evaluate-bad.headroom");
    createTestProject(project, csv_, "tabular", {"train.steps=2"});
    Recorder recorder;
    runSession(project, recorder);
    const QString missing_column =
        writeFile(QDir(dir_.path()), "no-colour.csv", "x,y,label\n1,2,high\n");
    const QString unknown_class =
        writeFile(QDir(dir_.path()), "new-class.csv", "x,y,colour,label\n1,2,red,medium\n");
    const auto failure = [&](const QString &file) {
        try {
            headroom::evaluateRun(project.toStdString(), 0, file.toStdString());
        } catch (const headroom::InputError &error) {
            return QString::fromUtf8(error.what());
        }
        return QString();
    };
    QVERIFY2(failure(missing_column).contains("unknown column 'colour'"),
             qPrintable(failure(missing_column)));
    QVERIFY2(failure(unknown_class).contains("new-class.csv:2") &&
                 failure(unknown_class).contains("medium"),
             qPrintable(failure(unknown_class)));
    QVERIFY(failure(path("absent.csv")).contains("no such file"));
}

QTEST_GUILESS_MAIN(TestTabularTraining)
#include "test_tabular_training.moc"
