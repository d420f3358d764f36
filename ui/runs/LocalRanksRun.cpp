#include "runs/LocalRanksRun.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace headroom::ui {

namespace {
constexpr int kKeptErrorLines = 6;
}

LocalRanksRun::LocalRanksRun(QObject *parent) : QObject(parent), cli_path_(defaultCliPath()) {
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    // Rank 0's step lines go to the project file; the window reads them from there.
    process_.setStandardOutputFile(QProcess::nullDevice());
    connect(&process_, &QProcess::readyReadStandardError, this, [this] {
        while (process_.canReadLine()) {
            const QString line = QString::fromUtf8(process_.readLine()).trimmed();
            if (!line.isEmpty()) {
                recent_errors_.push_back(line);
            }
        }
        while (recent_errors_.size() > kKeptErrorLines) {
            recent_errors_.pop_front();
        }
    });
    process_.setReadChannel(QProcess::StandardError);
    connect(&process_, &QProcess::finished, this,
            [this](int exit_code, QProcess::ExitStatus status) {
                const int code = status == QProcess::NormalExit ? exit_code : -1;
                Q_EMIT finished(code, code == 0 ? QString() : recent_errors_.join('\n'));
            });
}

LocalRanksRun::~LocalRanksRun() {
    if (isRunning()) {
        process_.terminate();
        if (!process_.waitForFinished(30000)) {
            process_.kill();
            process_.waitForFinished();
        }
    }
}

QString LocalRanksRun::defaultCliPath() {
    const QByteArray configured = qgetenv("HEADROOM_CLI");
    if (!configured.isEmpty()) {
        return QString::fromLocal8Bit(configured);
    }
#ifdef Q_OS_WIN
    const QString name = QStringLiteral("headroom-cli.exe");
#else
    const QString name = QStringLiteral("headroom-cli");
#endif
    return QDir(QCoreApplication::applicationDirPath()).filePath(name);
}

QString LocalRanksRun::start(const QString &project_path, int ranks, bool resume) {
    if (isRunning()) {
        return tr("A run on several processes is already going.");
    }
#ifdef Q_OS_LINUX
    constexpr bool kLaunchable = true; // --nproc re-executes /proc/self/exe
#else
    constexpr bool kLaunchable = false;
#endif
    if (!kLaunchable) {
        return tr("Runs on several processes start from the command line on this system: "
                  "see docs/DISTRIBUTED.md.");
    }
    if (!QFileInfo(cli_path_).isExecutable()) {
        return tr("Cannot start %1 processes: %2 is missing (it is installed next to the app).")
            .arg(ranks)
            .arg(QDir::toNativeSeparators(cli_path_));
    }
    QStringList arguments = {QStringLiteral("train"), project_path, QStringLiteral("--nproc"),
                             QString::number(ranks)};
    if (resume) {
        arguments << QStringLiteral("--resume");
    }
    ranks_ = ranks;
    recent_errors_.clear();
    process_.start(cli_path_, arguments);
    if (!process_.waitForStarted(10000)) {
        return tr("Cannot start %1: %2").arg(cli_path_, process_.errorString());
    }
    Q_EMIT started(ranks);
    return {};
}

void LocalRanksRun::stop() {
    if (isRunning()) {
        process_.terminate();
    }
}

} // namespace headroom::ui
