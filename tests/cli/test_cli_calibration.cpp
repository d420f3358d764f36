#include "cli_support.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

// `devices --calibrate` through the binary with a tiny time budget and a private cache
// folder: the JSON contract, the cache that `devices` and `estimate` then use, and bad input.
// No timing is asserted (tests/benchmarks/step_time.sh measures).
class TestCliCalibration : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void withoutCalibrationTheSpeedIsUncalibrated();
    void calibrateJsonIsOneObject();
    void devicesShowsTheCachedCalibration();
    void estimateUsesTheCalibration();
    void badDeviceExitsWithTwo();

private:
    using Result = test_support::CliResult;
    static QJsonObject parseObject(const QByteArray &out);

    QTemporaryDir dir_;
    QString project_;
};

QJsonObject TestCliCalibration::parseObject(const QByteArray &out) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(out, &error);
    return error.error == QJsonParseError::NoError && document.isObject() ? document.object()
                                                                          : QJsonObject();
}

void TestCliCalibration::initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("HEADROOM_CACHE_DIR", QDir(dir_.path()).filePath("cache").toUtf8());
    project_ = QDir(dir_.path()).filePath("sample.headroom");
    const Result result = test_support::runCli(
        {"new", project_, "--recipe", "gpt", "--data",
         QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/corpus.txt"), "--set",
         "model.layers=1", "--set", "model.dim=32", "--set", "model.heads=2", "--set",
         "model.seq_len=16", "--set", "train.micro_batch=4", "--set", "device=cpu"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
}

void TestCliCalibration::withoutCalibrationTheSpeedIsUncalibrated() {
    const Result devices = test_support::runCli({"devices", "--device", "cpu"});
    QCOMPARE(devices.exit_code, 0);
    QVERIFY2(devices.out.contains("not calibrated"), devices.out.constData());
    const Result estimate = test_support::runCli({"estimate", project_});
    QCOMPARE(estimate.exit_code, 0);
    QVERIFY2(estimate.out.contains("speeds uncalibrated"), estimate.out.constData());
}

void TestCliCalibration::calibrateJsonIsOneObject() {
    const Result result = test_support::runCli(
        {"devices", "--calibrate", "--device", "cpu", "--seconds", "0.1", "--json"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QJsonObject document = parseObject(result.out);
    QVERIFY2(!document.isEmpty(), result.out.constData());
    QVERIFY(document.contains("cpu") && document.contains("torch_version"));
    const QJsonObject calibration = document["calibration"].toObject();
    for (const char *key : {"device", "device_name", "torch_version", "threads", "cpu_gemm",
                            "cpu_flags", "precisions", "measured_at", "seconds"}) {
        QVERIFY2(calibration.contains(key), key);
    }
    QCOMPARE(calibration["device"].toString(), QStringLiteral("cpu"));
    const QJsonArray precisions = calibration["precisions"].toArray();
    QCOMPARE(precisions.size(), 3);
    QCOMPARE(precisions[0].toObject()["precision"].toString(), QStringLiteral("fp32"));
    QVERIFY(precisions[0].toObject()["matmul_gflops"].toDouble() > 0);
    QVERIFY(QFile::exists(document["calibration_cache"].toString()));
}

void TestCliCalibration::devicesShowsTheCachedCalibration() {
    const Result result = test_support::runCli({"devices", "--device", "cpu"});
    QCOMPARE(result.exit_code, 0);
    QVERIFY2(result.out.contains("speed of cpu") && result.out.contains("GFLOP/s"),
             result.out.constData());
    const QJsonObject document =
        parseObject(test_support::runCli({"devices", "--device", "cpu", "--json"}).out);
    QVERIFY(document["calibration"].isObject());
}

void TestCliCalibration::estimateUsesTheCalibration() {
    const Result text = test_support::runCli({"estimate", project_});
    QCOMPARE(text.exit_code, 0);
    QVERIFY2(text.out.contains("speeds calibrated on cpu") &&
                 text.out.contains("predicted step time"),
             text.out.constData());
    const Result json = test_support::runCli({"estimate", project_, "--json"});
    QCOMPARE(json.exit_code, 0);
    const QJsonObject plan = parseObject(json.out)["plan"].toObject();
    const QJsonObject speed = plan["speed"].toObject();
    QVERIFY(speed["calibrated"].toBool());
    QVERIFY(speed["step_seconds"].toDouble() > 0);
    for (const QJsonValue &alternative : plan["alternatives"].toArray()) {
        QVERIFY(alternative.toObject()["step_seconds"].toDouble() > 0);
    }
}

void TestCliCalibration::badDeviceExitsWithTwo() {
    const Result result =
        test_support::runCli({"devices", "--calibrate", "--device", "cuda:7", "--seconds", "0.1"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("cuda:7"), qPrintable(result.err));
}

QTEST_GUILESS_MAIN(TestCliCalibration)
#include "test_cli_calibration.moc"
