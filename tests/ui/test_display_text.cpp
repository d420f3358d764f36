// Byte sizes and device descriptions as the desktop shows them: formatted by the current
// locale and translated.
#include "look/DisplayText.h"
#include "look/Language.h"

#include <headroom/plan.h>

#include <QCoreApplication>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;

namespace {

DeviceReport machineWithGpu() {
    DeviceReport report;
    report.torch_version = "2.5.1";
    report.cpu.model = "Test CPU";
    report.cpu.logical_cores = 8;
    report.cpu.torch_threads = 8;
    report.cpu.total_bytes = 32ull << 30;
    report.cpu.available_bytes = 3ull << 29; // 1.5 GiB
    report.cuda_built = true;
    CudaDeviceInfo gpu;
    gpu.index = 0;
    gpu.name = "Test GPU";
    gpu.total_bytes = 8ull << 30;
    gpu.free_bytes = 7ull << 30;
    gpu.compute_major = 8;
    gpu.compute_minor = 6;
    gpu.supports_bf16 = true;
    report.cuda.push_back(gpu);
    return report;
}

} // namespace

class TestDisplayText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { installLanguage(*QCoreApplication::instance(), QLocale::c()); }

    void bytesFollowTheLocale_data() {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("expected");
        QTest::newRow("English") << "en"
                                 << "1.5 GiB";
        QTest::newRow("German") << "de"
                                << "1,5 GiB";
    }

    void bytesFollowTheLocale() {
        QFETCH(QString, language);
        QFETCH(QString, expected);
        installLanguage(*QCoreApplication::instance(), localeForLanguage(language));
        QCOMPARE(DisplayText::bytes(3ull << 29), expected);
        QCOMPARE(DisplayText::bytes(0),
                 QLocale().formattedDataSize(0, 1, QLocale::DataSizeIecFormat));
    }

    void statusNamesTheTrainingDevice() {
        installLanguage(*QCoreApplication::instance(), localeForLanguage("en"));
        DeviceReport report = machineWithGpu();
        QCOMPARE(DisplayText::deviceStatus(report), QString("CUDA · Test GPU · 8.0 GiB"));
        report.cuda.clear();
        QCOMPARE(DisplayText::deviceStatus(report), QString("CPU · 8 cores · 32.0 GiB"));
        report.mps.available = true;
        report.mps.unified_memory_bytes = 16ull << 30;
        QCOMPARE(DisplayText::deviceStatus(report), QString("MPS · 16.0 GiB unified"));
    }

    void linesDescribeEveryDeviceKind() {
        installLanguage(*QCoreApplication::instance(), localeForLanguage("en"));
        const QStringList lines = DisplayText::deviceLines(machineWithGpu());
        QCOMPARE(lines.size(), 4); // CPU, the GPU, MPS, LibTorch
        QCOMPARE(lines[0], QString("CPU: Test CPU · 8 cores (LibTorch uses 8) · 32.0 GiB RAM, "
                                   "1.5 GiB available"));
        QCOMPARE(
            lines[1],
            QString("CUDA 0: Test GPU · 8.0 GiB, 7.0 GiB free · compute capability 8.6 · bf16"));
        QCOMPARE(lines[2], QString("MPS: not in this LibTorch build"));
        QVERIFY(lines[3].startsWith("LibTorch 2.5.1 · automatic device: cuda"));
    }

    void profilesAreNamedInTheUiLanguage() {
        installLanguage(*QCoreApplication::instance(), localeForLanguage("en"));
        const DeviceReport report = machineWithGpu();
        const HardwareProfile cuda8 = findHardwareProfile("cuda-8gb", report);
        QCOMPARE(DisplayText::profileLabel(cuda8, report),
                 QString("CUDA GPU · 8 GB (RTX 3070 / 4060 class)"));
        QCOMPARE(DisplayText::profileLabel(cuda8, report), QString::fromStdString(cuda8.label));
        QCOMPARE(DisplayText::profileLabel(findHardwareProfile("detected-cuda:0", report), report),
                 QString("This machine · Test GPU · 8.0 GiB"));
        QCOMPARE(DisplayText::profileLabel(findHardwareProfile("detected-cpu", report), report),
                 QString("This machine's CPU · 8 cores · 32.0 GiB RAM"));
        QVERIFY(DisplayText::profileNote(cuda8).contains("CUDA context"));

        installLanguage(*QCoreApplication::instance(), localeForLanguage("de"));
        QCOMPARE(DisplayText::profileLabel(findHardwareProfile("mps-16gb", report), report),
                 QString("Apple Silicon · 16 GB gemeinsamer Speicher"));
        QVERIFY(DisplayText::profileNote(findHardwareProfile("cpu-32gb", report))
                    .contains("Betriebssystem"));
    }

    void germanTranslatesAndPluralises() {
        installLanguage(*QCoreApplication::instance(), localeForLanguage("de"));
        DeviceReport report = machineWithGpu();
        report.cuda.clear();
        QCOMPARE(DisplayText::deviceStatus(report), QString("CPU · 8 Kerne · 32,0 GiB"));
        report.cpu.logical_cores = 1;
        QCOMPARE(DisplayText::deviceStatus(report), QString("CPU · 1 Kern · 32,0 GiB"));
        QVERIFY(DisplayText::deviceLines(report)[1].startsWith("CUDA: enthalten"));
    }
};

QTEST_GUILESS_MAIN(TestDisplayText)
#include "test_display_text.moc"
