#include "cli_support.h"
#include "sample_files.h"

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#ifndef HEADROOM_PRETRAINED_REFERENCE_DIR
#define HEADROOM_PRETRAINED_REFERENCE_DIR ""
#endif

// Preference tuning through the binary on the tiny random Llama of the pretrained_reference
// fixture: DPO with LoRA starts at ln 2, reports its rewards on every step line, learns to rank
// held-out pairs and replays a step after an out-of-memory error exactly; a full fine-tune
// compares with an int8 reference copy; a bad pair is refused at its line; an objective without
// a pretrained base is refused by name.
class TestCliPreference : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dpoWithLoraLearnsToRankThePairs();
    void fullFineTuneComparesWithAFrozenCopy();
    void oomRecoveryReplaysThePairs();
    void precomputedReferenceTrainsTheSameRun();
    void badPairIsRefusedAtItsLine();
    void tokenizeMeasuresBothSequences();
    void conversationalPairsTrainThroughTheTemplate();
    void ktoLearnsFromUnpairedRecords();
    void objectiveWithoutABaseIsRefused();

private:
    using Result = test_support::CliResult;
    Result cli(const QStringList &arguments) { return test_support::runCli(arguments); }
    QString path(const QString &name) const { return QDir(dir_.path()).filePath(name); }
    QString newProject(const QString &name, const QString &data, const QStringList &settings);

    QTemporaryDir dir_;
    QString base_;
};

namespace {

// Pairs whose chosen completion always agrees ("yes ...") and whose rejected one never does: a
// difference a model learns within a short run.
QByteArray learnablePairs(int count) {
    QByteArray records;
    for (int i = 0; i < count; ++i) {
        records += QString("{\"prompt\": \"Question %1: is it so?\", \"chosen\": \" yes, it is\", "
                           "\"rejected\": \" no %2\"}\n")
                       .arg(i * 13)
                       .arg(i % 5)
                       .toUtf8();
    }
    return records;
}

} // namespace

void TestCliPreference::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString reference = QStringLiteral(HEADROOM_PRETRAINED_REFERENCE_DIR);
    QFile status(reference + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no pretrained reference folders: run tests/interop/pretrained/setup.sh");
    }
    base_ = path("llama");
    QDir().mkpath(base_);
    QDirIterator files(reference + "/reference/llama", QDir::Files);
    while (files.hasNext()) {
        files.next();
        if (files.fileName() != "reference.safetensors") {
            QVERIFY(QFile::copy(files.filePath(), QDir(base_).filePath(files.fileName())));
        }
    }
}

QString TestCliPreference::newProject(const QString &name, const QString &data,
                                      const QStringList &settings) {
    const QString project = path(name + ".headroom");
    const QStringList tiny = {"--set", "model.seq_len=24",
                              "--set", "train.micro_batch=4",
                              "--set", "train.eval_batches=0",
                              "--set", "train.lr=0.003",
                              "--set", "train.warmup_steps=2",
                              "--set", "train.checkpoint_every=0",
                              "--set", "data.validation_fraction=0.2"};
    const Result result =
        cli(QStringList{"new", project, "--base", base_, "--data", data} + tiny + settings);
    if (result.exit_code != 0) {
        qWarning("%s", qPrintable(result.err));
        return {};
    }
    return project;
}

void TestCliPreference::dpoWithLoraLearnsToRankThePairs() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "pairs.jsonl", learnablePairs(100));
    const QString project = newProject("dpo", data,
                                       {"--set", "train.objective=dpo", "--set", "lora.rank=8",
                                        "--set", "lora.targets=all-linear", "--set",
                                        "train.steps=30", "--set", "train.eval_every=30"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("DPO (beta 0.1) against the base with the adapters off"),
             qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 30);
    // The adapters start at zero: the policy is its reference, the loss ln 2.
    QVERIFY(std::abs(steps.front()["loss"].toDouble() - std::log(2.0)) < 1e-6);
    QCOMPARE(steps.front()["reward_margin"].toDouble(), 0.0);
    for (const char *key : {"chosen_logps", "rejected_logps", "chosen_rewards", "rejected_rewards",
                            "reward_margin", "reward_accuracy"}) {
        QVERIFY2(steps.back().contains(key), key);
    }
    QVERIFY(steps.back()["loss"].toDouble() < 0.3);
    QVERIFY(steps.back()["reward_margin"].toDouble() > 1.0);
    const QList<QJsonObject> evaluations = test_support::jsonLinesOfType(trained.out, "eval");
    QVERIFY(!evaluations.isEmpty());
    // Held-out pairs ranked right by the learnt rewards.
    QVERIFY2(evaluations.back()["accuracy"].toDouble() >= 0.9,
             qPrintable(QJsonDocument(evaluations.back()).toJson()));
    QVERIFY(evaluations.back()["examples"].toInt() >= 10);
}

void TestCliPreference::fullFineTuneComparesWithAFrozenCopy() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "full.jsonl", learnablePairs(40));
    const QString project =
        newProject("full", data,
                   {"--set", "train.objective=ipo", "--set", "pref.reference_dtype=int8", "--set",
                    "train.steps=3", "--set", "train.eval_every=3"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("IPO (beta 0.1) against a frozen copy of the base (int8)"),
             qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 3);
    QVERIFY(std::isfinite(steps.back()["loss"].toDouble()));
    QVERIFY(steps.back().contains("reward_accuracy"));
    // The plan prices the copy and recommends computing the reference once instead.
    const Result estimate = cli({"estimate", project});
    QVERIFY2(estimate.out.contains("a frozen int8 copy of the base is the reference") &&
                 estimate.out.contains("pref.precompute_reference = 1") &&
                 estimate.out.contains("frozen reference copy's"),
             qPrintable(estimate.out));
}

void TestCliPreference::oomRecoveryReplaysThePairs() {
    // An out-of-memory error in step 2 halves the micro-batch in pairs and replays the step:
    // every step's samples, loss and rewards equal those of a run without the fault.
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "oom.jsonl", learnablePairs(40));
    const QString project = newProject("oom", data,
                                       {"--set", "train.objective=dpo", "--set", "lora.rank=4",
                                        "--set", "lora.targets=all-linear", "--set",
                                        "train.steps=4", "--set", "train.eval_every=0"});
    QVERIFY(!project.isEmpty());
    const Result clean = cli({"train", project, "--json"});
    QVERIFY2(clean.exit_code == 0, qPrintable(clean.err));
    const Result faulty = test_support::runCli({"train", project, "--json"}, "oom@step:2");
    QVERIFY2(faulty.exit_code == 0, qPrintable(faulty.err));
    QVERIFY2(faulty.out.contains("\"oom_recovered\""), faulty.out.constData());
    const QList<QJsonObject> expected = test_support::jsonLinesOfType(clean.out, "step");
    const QList<QJsonObject> actual = test_support::jsonLinesOfType(faulty.out, "step");
    QCOMPARE(actual.size(), expected.size());
    for (int index = 0; index < expected.size(); ++index) {
        QCOMPARE(actual[index]["samples_digest"], expected[index]["samples_digest"]);
        for (const char *key : {"loss", "reward_margin", "chosen_logps"}) {
            const double value = expected[index][key].toDouble();
            QVERIFY2(std::abs(actual[index][key].toDouble() - value) <=
                         1e-5 * std::max(1.0, std::abs(value)),
                     qPrintable(QString("step %1 %2").arg(index + 1).arg(key)));
        }
    }
    QCOMPARE(actual.last()["micro_batch"].toInt(), 2);
}

void TestCliPreference::precomputedReferenceTrainsTheSameRun() {
    // The reference's log-probabilities computed once and stored give the steps the run with
    // the reference model gives; a later run reads them from the project; without LoRA the
    // frozen copy is gone while training, so the peak is lower.
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "precompute.jsonl", learnablePairs(40));
    const QStringList common = {"--set", "train.steps=3", "--set", "train.eval_every=3"};
    const auto run = [&](const QString &name, const QStringList &settings) {
        const QString project = newProject(name, data, common + settings);
        const Result trained = cli({"train", project, "--json"});
        if (trained.exit_code != 0) {
            qWarning("%s", qPrintable(trained.err));
        }
        return trained;
    };
    const QStringList lora = {"--set", "train.objective=dpo", "--set", "lora.rank=4"};
    const Result computed = run("with-reference", lora);
    const Result precomputed =
        run("precomputed", lora + QStringList{"--set", "pref.precompute_reference=1"});
    QCOMPARE(precomputed.exit_code, 0);
    QVERIFY2(precomputed.err.contains("computed and stored in the project") &&
                 precomputed.err.contains("against the reference's log-probabilities computed "
                                          "before training"),
             qPrintable(precomputed.err));
    const QList<QJsonObject> expected = test_support::jsonLinesOfType(computed.out, "step");
    const QList<QJsonObject> actual = test_support::jsonLinesOfType(precomputed.out, "step");
    QCOMPARE(actual.size(), expected.size());
    for (int index = 0; index < expected.size(); ++index) {
        for (const char *key : {"loss", "reward_margin"}) {
            QVERIFY2(std::abs(actual[index][key].toDouble() - expected[index][key].toDouble()) <
                         1e-6,
                     key);
        }
    }
    const Result again = cli({"train", path("precomputed.headroom"), "--json"});
    QVERIFY2(again.err.contains("pairs from the project"), qPrintable(again.err));

    const Result copy = run("copy", {"--set", "train.objective=ipo"});
    const Result without_copy = run(
        "without-copy", {"--set", "train.objective=ipo", "--set", "pref.precompute_reference=1"});
    QCOMPARE(without_copy.exit_code, 0);
    const auto peak = [](const Result &result) {
        return test_support::jsonLinesOfType(result.out, "step").back()["mem_peak"].toDouble();
    };
    QVERIFY2(peak(without_copy) < peak(copy),
             qPrintable(QString("%1 vs %2").arg(peak(without_copy)).arg(peak(copy))));
}

void TestCliPreference::badPairIsRefusedAtItsLine() {
    // `new` reads every record: the pair is refused before anything trains.
    QByteArray records = learnablePairs(30);
    records += "{\"prompt\": \"p\", \"chosen\": \"same\", \"rejected\": \"same\"}\n";
    const QString data = test_support::writeFile(QDir(dir_.path()), "bad.jsonl", records);
    const Result result = cli({"new", path("bad.headroom"), "--base", base_, "--data", data,
                               "--set", "train.objective=simpo", "--set", "lora.rank=4"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("bad.jsonl:31:") && result.err.contains("identical"),
             qPrintable(result.err));
}

void TestCliPreference::tokenizeMeasuresBothSequences() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "measure.jsonl", learnablePairs(12));
    const Result result = cli(
        {"tokenize", "--tokenizer", base_, "--file", data, "--stats", "--seq-len", "24", "--json"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QJsonObject stats = QJsonDocument::fromJson(result.out).object();
    QVERIFY2(stats["pairs"].toBool(), result.out.constData());
    QCOMPARE(stats["records"].toInt(), 12);
    // Both sequences of every pair are counted: prompt, completion and end-of-text each.
    QVERIFY(stats["tokens"].toInt() > 2 * 12 * 5);
    const QJsonObject sample = stats["sample"].toObject();
    QCOMPARE(sample["line"].toInt(), 1);
    QVERIFY(sample["prompt_tokens"].toInt() > 0);
    QCOMPARE(sample["rejected"].toBool(), false);
    const Result text =
        cli({"tokenize", "--tokenizer", base_, "--file", data, "--stats", "--seq-len", "24"});
    QVERIFY2(text.out.contains("12 preference pairs read") &&
                 text.out.contains("tokens per sequence") &&
                 text.out.contains("pairs are not packed"),
             text.out.constData());
}

void TestCliPreference::conversationalPairsTrainThroughTheTemplate() {
    QByteArray records;
    for (int i = 0; i < 24; ++i) {
        records += QString("{\"prompt\": [{\"role\": \"user\", \"content\": \"Is %1 odd?\"}], "
                           "\"chosen\": [{\"role\": \"assistant\", \"content\": \"%2\"}], "
                           "\"rejected\": [{\"role\": \"assistant\", \"content\": \"%3\"}]}\n")
                       .arg(i)
                       .arg(i % 2 == 1 ? "yes" : "no")
                       .arg(i % 2 == 1 ? "no" : "yes")
                       .toUtf8();
    }
    const QString data = test_support::writeFile(QDir(dir_.path()), "chats.jsonl", records);
    const QString project =
        newProject("chat-dpo", data,
                   {"--set", "train.objective=dpo", "--set", "lora.rank=4", "--set",
                    "data.chat_template=chatml", "--set", "model.seq_len=48", "--set",
                    "train.steps=3", "--set", "train.eval_every=3"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 3);
    QVERIFY(std::abs(steps.front()["loss"].toDouble() - std::log(2.0)) < 1e-6);
    // Each completion is the reply and the template's end-of-turn: a few tokens, not the whole
    // conversation.
    QVERIFY(steps.front()["chosen_logps"].toDouble() < 0);
    QVERIFY(!test_support::jsonLinesOfType(trained.out, "eval").isEmpty());
}

void TestCliPreference::ktoLearnsFromUnpairedRecords() {
    QByteArray records;
    for (int i = 0; i < 80; ++i) {
        const bool good = i % 2 == 0;
        records += QString("{\"prompt\": \"Question %1: is it so?\", \"completion\": \"%2\", "
                           "\"label\": %3}\n")
                       .arg(i * 13)
                       .arg(good ? " yes, it is" : QString(" no %1").arg(i % 5))
                       .arg(good ? "true" : "false")
                       .toUtf8();
    }
    const QString data = test_support::writeFile(QDir(dir_.path()), "kto.jsonl", records);
    const QString project =
        newProject("kto", data,
                   {"--set", "train.objective=kto", "--set", "lora.rank=8", "--set",
                    "lora.targets=all-linear", "--set", "train.accumulation=2", "--set",
                    "train.steps=20", "--set", "train.eval_every=20"});
    QVERIFY(!project.isEmpty());
    const Result trained = cli({"train", project, "--json"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    QVERIFY2(trained.err.contains("KTO (beta 0.1) against the base with the adapters off"),
             qPrintable(trained.err));
    const QList<QJsonObject> steps = test_support::jsonLinesOfType(trained.out, "step");
    QCOMPARE(steps.size(), 20);
    // Zero adapters: every record's log-ratio is 0, so is the KL estimate, and each loss is
    // 1 - sigmoid(0).
    QVERIFY(std::abs(steps.front()["loss"].toDouble() - 0.5) < 1e-6);
    QCOMPARE(steps.front()["kl"].toDouble(), 0.0);
    QVERIFY(steps.back().contains("kl"));
    QVERIFY(steps.back()["chosen_rewards"].toDouble() > 0);
    QVERIFY(steps.back()["rejected_rewards"].toDouble() < 0);
    const QList<QJsonObject> evaluations = test_support::jsonLinesOfType(trained.out, "eval");
    QVERIFY(!evaluations.isEmpty());
    QVERIFY2(evaluations.back()["accuracy"].toDouble() >= 0.9,
             qPrintable(QJsonDocument(evaluations.back()).toJson()));

    // The KL estimate is the step's: an out-of-memory error replays the step to the same loss.
    const Result faulty = test_support::runCli({"train", project, "--json"}, "oom@step:3");
    QVERIFY2(faulty.exit_code == 0, qPrintable(faulty.err));
    const QList<QJsonObject> replayed = test_support::jsonLinesOfType(faulty.out, "step");
    QCOMPARE(replayed.size(), steps.size());
    for (int index = 0; index < steps.size(); ++index) {
        for (const char *key : {"loss", "kl"}) {
            const double value = steps[index][key].toDouble();
            QVERIFY2(std::abs(replayed[index][key].toDouble() - value) <=
                         1e-5 * std::max(1.0, std::abs(value)),
                     qPrintable(QString("step %1 %2").arg(index + 1).arg(key)));
        }
    }
}

void TestCliPreference::objectiveWithoutABaseIsRefused() {
    const QString data =
        test_support::writeFile(QDir(dir_.path()), "scratch.jsonl", learnablePairs(10));
    const Result result = cli({"new", path("scratch.headroom"), "--recipe", "gpt", "--data", data,
                               "--set", "train.objective=dpo"});
    QCOMPARE(result.exit_code, 2);
    QVERIFY2(result.err.contains("train.objective=dpo") && result.err.contains("model.base"),
             qPrintable(result.err));
}

QTEST_GUILESS_MAIN(TestCliPreference)
#include "test_cli_preference.moc"
