#include <headroom/devices.h>
#include <headroom/units.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>
#include <string>

class TestDevices : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cpuIsReadFromTheSystem();
    void jsonReportHasEveryDevice();
    void autoDeviceIsCpuWithoutAccelerators();
    void formatBytes_data();
    void formatBytes();
    void parseBytes_data();
    void parseBytes();
};

void TestDevices::cpuIsReadFromTheSystem() {
    const headroom::DeviceReport report = headroom::detectDevices();
    QVERIFY(report.cpu.logical_cores >= 1);
    QVERIFY(report.cpu.torch_threads >= 1);
    QVERIFY(report.cpu.total_bytes > 0);
    QVERIFY(report.cpu.available_bytes > 0);
    QVERIFY(report.cpu.available_bytes <= report.cpu.total_bytes);
    QVERIFY(!report.torch_version.empty());
#ifdef __linux__
    // Same figure as the kernel reports, not a hard-coded one.
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    unsigned long long kib = 0;
    meminfo >> key >> kib;
    QCOMPARE(key, std::string("MemTotal:"));
    QCOMPARE(report.cpu.total_bytes, static_cast<std::uint64_t>(kib) * 1024);
#endif
}

void TestDevices::jsonReportHasEveryDevice() {
    const headroom::DeviceReport report = headroom::detectDevices();
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(
        QByteArray::fromStdString(headroom::deviceReportToJson(report)), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = document.object();
    QVERIFY(root.contains("cpu"));
    QVERIFY(root.contains("cuda"));
    QVERIFY(root.contains("mps"));
    QCOMPARE(root["cpu"].toObject()["logical_cores"].toInt(), report.cpu.logical_cores);
    QCOMPARE(root["cuda"].toObject()["devices"].toArray().size(),
             static_cast<qsizetype>(report.cuda.size()));
    QCOMPARE(root["preferred_device"].toString().toStdString(), headroom::preferredDevice(report));
}

void TestDevices::autoDeviceIsCpuWithoutAccelerators() {
    headroom::DeviceReport report;
    QCOMPARE(headroom::preferredDevice(report), std::string("cpu"));
    report.mps.available = true;
    QCOMPARE(headroom::preferredDevice(report), std::string("mps"));
    headroom::CudaDeviceInfo gpu;
    gpu.index = 1;
    report.cuda.push_back(gpu);
    QCOMPARE(headroom::preferredDevice(report), std::string("cuda:1"));
}

void TestDevices::formatBytes_data() {
    QTest::addColumn<qulonglong>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("bytes") << 980ULL << "980 B";
    QTest::newRow("kib") << 1536ULL << "1.5 KiB";
    QTest::newRow("mib") << 512ULL * 1024 * 1024 << "512.0 MiB";
    QTest::newRow("gib") << 8ULL * 1024 * 1024 * 1024 << "8.0 GiB";
}

void TestDevices::formatBytes() {
    QFETCH(qulonglong, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(headroom::formatBytes(bytes)), text);
}

void TestDevices::parseBytes_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<qulonglong>("bytes");
    QTest::newRow("plain") << "4096" << true << 4096ULL;
    QTest::newRow("MiB") << "512MiB" << true << 512ULL * 1024 * 1024;
    QTest::newRow("GiB spaced") << "8 GiB" << true << 8ULL * 1024 * 1024 * 1024;
    QTest::newRow("decimal GB") << "1.5GB" << true << 1500000000ULL;
    QTest::newRow("lower case") << "2gib" << true << 2ULL * 1024 * 1024 * 1024;
    QTest::newRow("empty") << "" << false << 0ULL;
    QTest::newRow("negative") << "-1GiB" << false << 0ULL;
    QTest::newRow("unknown unit") << "3 parsecs" << false << 0ULL;
    QTest::newRow("trailing junk") << "3 GiB now" << false << 0ULL;
    QTest::newRow("overflow") << "99999999999 TiB" << false << 0ULL;
}

void TestDevices::parseBytes() {
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(qulonglong, bytes);
    const auto parsed = headroom::parseBytes(text.toStdString());
    QCOMPARE(parsed.has_value(), valid);
    if (valid) {
        QCOMPARE(static_cast<qulonglong>(*parsed), bytes);
    }
}

QTEST_GUILESS_MAIN(TestDevices)
#include "test_devices.moc"
