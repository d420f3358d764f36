#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

// Runs the built executables as a user or script would and checks output and exit codes.
class TestCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void versionPrintsTheProjectVersion();
    void devicesListsTheCpu();
    void devicesJsonIsOneObject();
    void badUsageExitsWithTwo_data();
    void badUsageExitsWithTwo();
    void desktopSmokeStartsAndExits();
};

namespace {
struct Result {
    int exit_code = -1;
    QString out;
    QString err;
};

Result run(const QString &program, const QStringList &arguments) {
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(120000)) {
        process.kill();
        return {};
    }
    Result result;
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

Result cli(const QStringList &arguments) {
    return run(QStringLiteral(HEADROOM_CLI_PATH), arguments);
}
} // namespace

void TestCli::versionPrintsTheProjectVersion() {
    const Result result = cli({"--version"});
    QCOMPARE(result.exit_code, 0);
    QVERIFY2(QRegularExpression(QStringLiteral("^headroom-cli \\d+\\.\\d+\\.\\d+\\n$"))
                 .match(result.out)
                 .hasMatch(),
             qPrintable(result.out));
}

void TestCli::devicesListsTheCpu() {
    const Result result = cli({"devices"});
    QCOMPARE(result.exit_code, 0);
    QVERIFY(result.out.startsWith(QStringLiteral("cpu ")));
    QVERIFY(result.out.contains(QStringLiteral("cores")));
    QVERIFY(result.out.contains(QStringLiteral("LibTorch")));
}

void TestCli::devicesJsonIsOneObject() {
    const Result result = cli({"devices", "--json"});
    QCOMPARE(result.exit_code, 0);
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(result.out.toUtf8(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(document.isObject());
    const QJsonObject cpu = document.object()["cpu"].toObject();
    QVERIFY(cpu["logical_cores"].toInt() >= 1);
    QVERIFY(cpu["total_bytes"].toDouble() > 0);
    QVERIFY(document.object()["cuda"].toObject().contains("built"));
}

void TestCli::badUsageExitsWithTwo_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("named");
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "frobnicate";
    QTest::newRow("unknown flag") << QStringList{"--frobnicate"} << "--frobnicate";
    QTest::newRow("unknown subcommand flag") << QStringList{"devices", "--yaml"} << "--yaml";
    QTest::newRow("no command") << QStringList{} << "subcommand";
}

void TestCli::badUsageExitsWithTwo() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, named);
    const Result result = cli(arguments);
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains(named), qPrintable(result.err));
    QVERIFY2(result.err.contains(QStringLiteral("Usage")), qPrintable(result.err));
    QVERIFY(result.out.isEmpty());
}

void TestCli::desktopSmokeStartsAndExits() {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(HEADROOM_APP_PATH), {QStringLiteral("--smoke")});
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
