#pragma once

// Runs the built headroom-cli as a user would, for the command-line tests.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace test_support {

struct CliResult {
    int exit_code = -1; // -1: crashed or timed out
    QByteArray out;
    QString err;
};

// `failpoint` sets HEADROOM_FAILPOINT for this run only.
inline CliResult runCli(const QStringList &arguments, const QByteArray &failpoint = {}) {
    QProcess process;
    if (!failpoint.isEmpty()) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("HEADROOM_FAILPOINT", QString::fromLatin1(failpoint));
        process.setProcessEnvironment(environment);
    }
    process.start(QStringLiteral(HEADROOM_CLI_PATH), arguments);
    if (!process.waitForFinished(300000)) {
        process.kill();
        return {};
    }
    CliResult result;
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// The JSON lines of one "type" ("step", "eval", ...) that a --json command printed.
inline QList<QJsonObject> jsonLinesOfType(const QByteArray &out, const QString &type) {
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object["type"].toString() == type) {
            lines.push_back(object);
        }
    }
    return lines;
}

} // namespace test_support
