// Online RL with verifiable rewards (train.objective=grpo) through the binary, as a user runs it:
// a small GPT trained by Headroom on a toy corpus and exported as a Hugging Face folder is the
// base; GRPO with a regex reward that the base satisfies about a third of the time raises the
// mean reward clearly within 40 steps. The step lines carry the figures a person watches; an
// out-of-memory error replays the step with the same completions and losses; a failing reward
// command pauses the run, which continues once the command works; bad settings and records are
// refused with messages that name them.
#include "cli_support.h"
#include "sample_files.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <random>

using test_support::CliResult;

namespace {

CliResult cli(const QStringList &arguments) {
    return test_support::runCli(arguments);
}

// Lines "> " followed by a/b words, a third of them starting with "a".
QString toyCorpus() {
    std::mt19937 random(1);
    QString text;
    for (int line = 0; line < 3000; ++line) {
        QString word = random() % 100 < 30 ? "a" : "b";
        const int length = 3 + static_cast<int>(random() % 6);
        for (int i = 0; i < length; ++i) {
            word += random() % 2 ? 'a' : 'b';
        }
        text += "> " + word + ".\n";
    }
    return text;
}

double meanOf(const QList<QJsonObject> &steps, int first, int count, const char *key) {
    double sum = 0;
    for (int i = first; i < first + count; ++i) {
        sum += steps[i][key].toDouble();
    }
    return sum / count;
}

} // namespace

class TestCliGrpo : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void rewardRisesWithinFortySteps();
    void outOfMemoryReplaysTheSameCompletions();
    void klToTheReferenceIsReported();
    void fitProbesRealGrpoSteps();
    void failingRewardCommandPausesTheRun();
    void refusesWhatItCannotRun();

private:
    QString path(const QString &name) const { return dir_.filePath(name); }
    QString newGrpo(const QString &name, const QStringList &settings,
                    const QString &data = QString());

    QTemporaryDir dir_;
    QString base_;
    QString prompts_;
};

void TestCliGrpo::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString corpus =
        test_support::writeFile(QDir(dir_.path()), "corpus.txt", toyCorpus().toUtf8());
    const QString project = path("base.headroom");
    const CliResult created = cli({"new",      project,
                                   "--recipe", "gpt",
                                   "--data",   corpus,
                                   "--set",    "model.layers=2",
                                   "--set",    "model.dim=64",
                                   "--set",    "model.heads=4",
                                   "--set",    "model.seq_len=32",
                                   "--set",    "train.steps=300",
                                   "--set",    "train.micro_batch=16",
                                   "--set",    "train.lr=3e-3",
                                   "--set",    "train.eval_every=0"});
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    const CliResult trained = cli({"train", project});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    base_ = path("base-hf");
    const CliResult exported = cli({"export", project, "--run", "1", "--hf", base_});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));
    QString prompts;
    for (int i = 0; i < 200; ++i) {
        prompts += QString("{\"prompt\": \"> \", \"id\": %1}\n").arg(i);
    }
    prompts_ = test_support::writeFile(QDir(dir_.path()), "prompts.jsonl", prompts.toUtf8());
}

QString TestCliGrpo::newGrpo(const QString &name, const QStringList &settings,
                             const QString &data) {
    const QString project = path(name + ".headroom");
    const CliResult created =
        cli(QStringList{"new", project, "--base", base_, "--data", data.isEmpty() ? prompts_ : data,
                        "--set", "train.objective=grpo", "--set", "grpo.group_size=8", "--set",
                        "grpo.max_new_tokens=8", "--set", "train.micro_batch=16", "--set",
                        "model.seq_len=32", "--set", "train.eval_every=0"} +
            settings);
    if (created.exit_code != 0) {
        qWarning("%s", qPrintable(created.err));
        return {};
    }
    return project;
}

void TestCliGrpo::rewardRisesWithinFortySteps() {
    const QString project =
        newGrpo("learn", {"--set", "grpo.reward=regex:^a", "--set", "train.steps=40", "--set",
                          "train.lr=1e-3", "--set", "train.eval_every=40"});
    QVERIFY(!project.isEmpty());
    const CliResult trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 40);
    for (const QJsonObject &step : steps) {
        for (const char *key : {"reward_mean", "reward_std", "completion_length", "clip_ratio",
                                "frac_reward_zero_std"}) {
            QVERIFY2(step[key].isDouble(), key);
        }
        QVERIFY(step["kl"].isNull()); // no KL penalty by default (grpo.beta=0)
        QVERIFY(step["rewards"].toObject()["regex:^a"].isDouble());
        QCOMPARE(step["micro_batch"].toInt(), 16);
    }
    const double first = meanOf(steps, 0, 5, "reward_mean");
    const double last = meanOf(steps, 35, 5, "reward_mean");
    QVERIFY2(first > 0.1 && first < 0.6, qPrintable(QString("the base's reward %1").arg(first)));
    QVERIFY2(last > first + 0.3,
             qPrintable(QString("mean reward from %1 to only %2").arg(first).arg(last)));
    const QList<QJsonObject> evals = test_support::jsonLinesOfType(trained.out, "eval");
    QCOMPARE(evals.size(), 1);
    QVERIFY(evals[0]["reward"].toDouble() > first);
    QVERIFY(std::abs(evals[0]["reward"].toDouble() + evals[0]["loss"].toDouble()) < 1e-9);
    QVERIFY2(trained.err.contains("sample: reward "), qPrintable(trained.err));
    QVERIFY2(trained.err.contains("mean reward"), qPrintable(trained.err));
}

void TestCliGrpo::outOfMemoryReplaysTheSameCompletions() {
    // An out-of-memory error while sampling (the step's first allocation) samples the group fewer
    // rows at a time; one in backward halves the micro-batch and replays the step with the
    // rollouts already sampled. Either way every step equals the run without the fault.
    const QString project = newGrpo("oom", {"--set", "grpo.reward=regex:^a,length:6*0.5", "--set",
                                            "train.steps=3", "--set", "grpo.loss_type=grpo"});
    QVERIFY(!project.isEmpty());
    const CliResult clean = cli({"train", project, "--json"});
    QVERIFY2(clean.exit_code == 0, qPrintable(clean.err));
    const QList<QJsonObject> expected = test_support::jsonLinesOfType(clean.out, "step");
    for (const char *failpoint : {"oom@step:2", "oom_backward@step:2"}) {
        const CliResult faulty = test_support::runCli({"train", project, "--json"}, failpoint);
        QVERIFY2(faulty.exit_code == 0, qPrintable(faulty.err));
        const bool in_backward = QByteArray(failpoint).startsWith("oom_backward");
        QCOMPARE(faulty.out.contains("\"oom_recovered\""), in_backward);
        const QList<QJsonObject> actual = test_support::jsonLinesOfType(faulty.out, "step");
        QCOMPARE(actual.size(), 3);
        for (int index = 0; index < 3; ++index) {
            QCOMPARE(actual[index]["samples_digest"], expected[index]["samples_digest"]);
            for (const char *key : {"loss", "reward_mean", "reward_std", "completion_length"}) {
                const double value = expected[index][key].toDouble();
                QVERIFY2(
                    std::abs(actual[index][key].toDouble() - value) <=
                        1e-5 * std::max(1.0, std::abs(value)),
                    qPrintable(QString("%1: step %2 %3").arg(failpoint).arg(index + 1).arg(key)));
            }
        }
        QCOMPARE(actual.last()["micro_batch"].toInt(), in_backward ? 8 : 16);
        // Two reward terms, each reported by its name.
        const QJsonObject rewards = actual.last()["rewards"].toObject();
        QVERIFY(rewards.contains("regex:^a") && rewards.contains("length:6"));
    }
}

void TestCliGrpo::klToTheReferenceIsReported() {
    // With LoRA the reference is the base with its adapters off; without, a frozen copy.
    for (const QStringList &settings :
         {QStringList{"--set", "lora.rank=4", "--set", "lora.targets=all-linear", "--set",
                      "train.lr=1e-2"},
          QStringList{"--set", "train.lr=3e-3"}}) {
        const QString project = newGrpo(QString("kl%1").arg(settings.size()),
                                        QStringList{"--set", "grpo.reward=regex:^a", "--set",
                                                    "grpo.beta=0.04", "--set", "train.steps=3"} +
                                            settings);
        QVERIFY(!project.isEmpty());
        const CliResult trained = cli({"train", project, "--json"});
        QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
        const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
        QCOMPARE(steps.size(), 3);
        // Step 1 samples from the reference itself: no divergence yet; then the policy moved.
        QVERIFY(std::abs(steps[0]["kl"].toDouble()) < 1e-6);
        QVERIFY2(steps[2]["kl"].toDouble() > 1e-7,
                 qPrintable(QString::number(steps[2]["kl"].toDouble())));
    }
}

void TestCliGrpo::fitProbesRealGrpoSteps() {
    // `fit` measures real steps: for GRPO they sample and score whole groups; the micro-batch it
    // stores still makes whole groups per step, and the run trains with it.
    const QString project = newGrpo("fit", {"--set", "grpo.reward=regex:^a", "--set",
                                            "train.steps=1", "--set", "memory.budget=1GiB"});
    QVERIFY(!project.isEmpty());
    const CliResult fitted = cli({"fit", project});
    QVERIFY2(fitted.exit_code == 0, qPrintable(fitted.err + fitted.out));
    const CliResult trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QCOMPARE(test_support::jsonLinesOfType(trained.out, "step").size(), 1);
}

void TestCliGrpo::failingRewardCommandPausesTheRun() {
    // The command works only once a flag file exists: the first attempt pauses the run at its
    // start with the command's own message; after the fix the run continues and finishes.
    const QString flag = path("reward-ok");
    const QString command =
        QString("command:test -f '%1' || { echo 'judge is down' >&2; exit 3; }; "
                "while read -r line; do echo 1; done")
            .arg(flag);
    const QString project =
        newGrpo("command", {"--set", "grpo.reward=" + command, "--set", "train.steps=2"});
    QVERIFY(!project.isEmpty());
    const CliResult paused = cli({"train", project});
    QCOMPARE(paused.exit_code, 3);
    QVERIFY2(paused.err.contains("judge is down") && paused.err.contains("status 3") &&
                 paused.err.contains("paused"),
             qPrintable(paused.err));
    QFile ok(flag);
    QVERIFY(ok.open(QIODevice::WriteOnly));
    ok.close();
    const CliResult resumed = cli({"train", project, "--resume", "--json"});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(resumed.out, "step");
    QCOMPARE(steps.size(), 2);
    QCOMPARE(steps[0]["step"].toInt(), 1);
    QCOMPARE(steps[0]["reward_mean"].toDouble(), 1.0);
}

void TestCliGrpo::refusesWhatItCannotRun() {
    const auto refusal = [&](const QStringList &settings, const QString &data = QString()) {
        const QString project = path("refused.headroom");
        QFile::remove(project);
        const CliResult created =
            cli(QStringList{"new", project, "--base", base_, "--data",
                            data.isEmpty() ? prompts_ : data, "--set", "train.objective=grpo",
                            "--set", "model.seq_len=32", "--set", "train.steps=1"} +
                settings);
        if (created.exit_code != 0) {
            return created.err;
        }
        const CliResult trained = cli({"train", project});
        return trained.exit_code == 0 ? QString() : trained.err;
    };
    QVERIFY(refusal({}).contains("needs grpo.reward"));
    QVERIFY(refusal({"--set", "grpo.reward=regex:(", "--set", "train.micro_batch=8"})
                .contains("\"regex:(\" is not a valid regular expression"));
    QVERIFY(refusal({"--set", "grpo.reward=regex:a", "--set", "train.micro_batch=12"})
                .contains("whole groups of grpo.group_size=8"));
    QVERIFY(refusal({"--set", "grpo.reward=wrong:a", "--set", "train.micro_batch=8"})
                .contains("wrong:a"));
    const QString no_prompt = test_support::writeFile(
        QDir(dir_.path()), "no-prompt.jsonl",
        "{\"prompt\": \"> \"}\n{\"question\": \"x\"}\n{\"prompt\": \"> \"}\n");
    const QString message =
        refusal({"--set", "grpo.reward=regex:a", "--set", "train.micro_batch=8"}, no_prompt);
    QVERIFY2(message.contains("no-prompt.jsonl:2") && message.contains("\"prompt\""),
             qPrintable(message));
    // grpo.* keys belong to train.objective=grpo.
    const CliResult sft = cli({"new", path("sft.headroom"), "--base", base_, "--data", prompts_,
                               "--set", "grpo.beta=0.1"});
    QCOMPARE(sft.exit_code, 2);
    QVERIFY2(sft.err.contains("grpo.beta=0.1"), qPrintable(sft.err));
}

QTEST_APPLESS_MAIN(TestCliGrpo)
#include "test_cli_grpo.moc"
