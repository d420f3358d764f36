#include "sample_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

// `headroom-cli train` killed with SIGKILL at chosen steps (during metric writes, right as a
// checkpoint is being written): the project still opens, keeps what was committed, marks the
// killed runs interrupted, and the resumed runs consume exactly the samples of an
// uninterrupted run. tests/soak/ does the same at random moments for as long as you like.
class TestKillSafety : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void killedRunsResumeLikeAnUninterruptedRun();

private:
    struct StepRow {
        QString digest;
        double loss = 0;
    };
    using Steps = QMap<int, StepRow>;

    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString makeProject(const QString &name);
    int cli(const QStringList &arguments, QByteArray *out = nullptr);
    // Starts training and sends SIGKILL once the step line of `kill_at` has been printed.
    // Returns the last step printed; what the process wrote to stderr goes to last_errors_.
    int trainAndKill(const QString &project, bool resume, int kill_at);
    Steps exportedSteps(const QString &project, int run);
    QJsonArray runs(const QString &project);

    QTemporaryDir dir_;
    QString corpus_;
    Steps reference_;
    QString last_errors_;
};

namespace {

constexpr int kSteps = 24;
constexpr int kCheckpointEvery = 4;

const QStringList kTiny = {"--set", "model.layers=1",
                           "--set", "model.heads=2",
                           "--set", "model.dim=16",
                           "--set", "model.seq_len=16",
                           "--set", "train.micro_batch=4",
                           "--set", "train.steps=24",
                           "--set", "train.eval_every=1000",
                           "--set", "train.checkpoint_every=4",
                           "--set", "train.keep_checkpoints=2",
                           "--set", "train.threads=1"};

} // namespace

int TestKillSafety::cli(const QStringList &arguments, QByteArray *out) {
    QProcess process;
    process.start(QStringLiteral(HEADROOM_CLI_PATH), arguments);
    if (!process.waitForFinished(300000)) {
        process.kill();
        process.waitForFinished();
        return -1;
    }
    if (out) {
        *out = process.readAllStandardOutput();
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QString TestKillSafety::makeProject(const QString &name) {
    const int code =
        cli(QStringList{"new", path(name), "--recipe", "gpt", "--data", corpus_} + kTiny);
    return code == 0 ? path(name) : QString();
}

int TestKillSafety::trainAndKill(const QString &project, bool resume, int kill_at) {
    QProcess process;
    QStringList arguments{"train", project, "--json"};
    if (resume) {
        arguments << "--resume";
    }
    process.start(QStringLiteral(HEADROOM_CLI_PATH), arguments);
    int last_step = 0;
    QByteArray pending;
    while (last_step < kill_at && process.state() != QProcess::NotRunning) {
        if (!process.waitForReadyRead(120000)) {
            break;
        }
        pending += process.readAllStandardOutput();
        for (int end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
            const QJsonObject line = QJsonDocument::fromJson(pending.left(end)).object();
            pending.remove(0, end + 1);
            if (line["type"].toString() == "step") {
                last_step = line["step"].toInt();
            }
        }
    }
    const bool ended_first = process.state() == QProcess::NotRunning;
    process.kill(); // SIGKILL: no handler runs, nothing is flushed
    process.waitForFinished(60000);
    last_errors_ = (ended_first ? process.exitStatus() == QProcess::CrashExit
                                      ? QStringLiteral("[crashed] ")
                                      : QStringLiteral("[exit %1] ").arg(process.exitCode())
                                : QString()) +
                   QString::fromUtf8(process.readAllStandardError()).trimmed();
    return last_step;
}

TestKillSafety::Steps TestKillSafety::exportedSteps(const QString &project, int run) {
    const QString csv = path(QString("run-%1.csv").arg(run));
    Steps steps;
    if (cli({"export", project, "--run", QString::number(run), "--metrics", csv}) != 0) {
        return steps;
    }
    QFile file(csv);
    if (!file.open(QIODevice::ReadOnly)) {
        return steps;
    }
    const QList<QByteArray> rows = file.readAll().trimmed().split('\n');
    const int digest_column = int(rows.value(0).split(',').indexOf("samples_digest"));
    if (digest_column < 0) {
        return steps;
    }
    for (int i = 1; i < rows.size(); ++i) {
        const QList<QByteArray> fields = rows[i].split(',');
        steps[fields.at(0).toInt()] = {QString::fromLatin1(fields.at(digest_column)),
                                       fields.at(1).toDouble()};
    }
    return steps;
}

QJsonArray TestKillSafety::runs(const QString &project) {
    QByteArray out;
    return cli({"runs", project, "--json"}, &out) == 0 ? QJsonDocument::fromJson(out).array()
                                                       : QJsonArray();
}

void TestKillSafety::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(300));
    const QString project = makeProject("reference.headroom");
    QVERIFY(!project.isEmpty());
    QCOMPARE(cli({"train", project}), 0);
    reference_ = exportedSteps(project, 1);
    QCOMPARE(reference_.size(), kSteps);
}

void TestKillSafety::killedRunsResumeLikeAnUninterruptedRun() {
    const QString project = makeProject("killed.headroom");
    QVERIFY(!project.isEmpty());
    // Mid-interval, right at checkpoint steps (the checkpoint is being written), and twice
    // before the next checkpoint of a resumed run (it resumes from an earlier run's).
    const QList<int> kill_points = {6, 8, 13, 14, 20};
    int run = 0;
    for (const int kill_at : kill_points) {
        const int printed = trainAndKill(project, run > 0, kill_at);
        ++run;
        QVERIFY2(
            printed >= kill_at,
            qPrintable(
                QString("run %1 printed %2; stderr: %3").arg(run).arg(printed).arg(last_errors_)));

        // The project opens and what the killed run committed is there, in step order with
        // no gap, each step with the reference's samples.
        const QJsonArray listed = runs(project);
        QCOMPARE(listed.size(), run);
        const Steps steps = exportedSteps(project, run);
        int previous = 0;
        for (auto step = steps.begin(); step != steps.end(); ++step) {
            QVERIFY(step.key() <= printed);
            QVERIFY2(previous == 0 || step.key() == previous + 1, "a committed step is missing");
            QCOMPARE(step->digest, reference_[step.key()].digest);
            previous = step.key();
        }
    }

    QCOMPARE(cli({"train", project, "--resume"}), 0);
    const QJsonArray listed = runs(project);
    QCOMPARE(listed.size(), kill_points.size() + 1);
    Steps covered;
    for (int i = 0; i < listed.size(); ++i) {
        const QJsonObject record = listed[i].toObject();
        const bool last = i + 1 == listed.size();
        QCOMPARE(record["status"].toString(), QString(last ? "finished" : "interrupted"));
        if (i > 0) {
            QVERIFY(record["resumed_from"].toInt() > 0);
        }
        const Steps steps = exportedSteps(project, record["id"].toInt());
        for (auto step = steps.begin(); step != steps.end(); ++step) {
            QCOMPARE(step->digest, reference_[step.key()].digest);
            covered[step.key()] = *step;
        }
    }
    // Every step of the run is somewhere, and the resumed steps match the uninterrupted run.
    QCOMPARE(covered.size(), kSteps);
    for (int step = kSteps - kCheckpointEvery + 1; step <= kSteps; ++step) {
        QVERIFY2(qAbs(covered[step].loss - reference_[step].loss) <=
                     1e-4 * qAbs(reference_[step].loss),
                 qPrintable(QString("step %1: %2 vs %3")
                                .arg(step)
                                .arg(covered[step].loss)
                                .arg(reference_[step].loss)));
    }
}

QTEST_GUILESS_MAIN(TestKillSafety)
#include "test_kill_safety.moc"
