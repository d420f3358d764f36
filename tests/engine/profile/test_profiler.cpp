#include "memory/cpu_allocator.h"
#include "profile/recorder.h"
#include "profile/scopes.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/config.h>
#include <headroom/profile.h>
#include <headroom/project.h>
#include <headroom/session.h>

#include <torch/torch.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace test_support;

// The profiler: operators, per-module activation memory and the Chrome trace of real training
// steps through the trainer, no run recorded, and nothing left installed afterwards.
class TestProfiler : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void recorderAttributesHeldBytesToTheOpenModule();
    void recorderLeavesNoCallbackBehind();
    void profilesOperatorsOfATinyGpt();
    void moduleAttributionListsEveryBlock();
    void checkpointingShrinksWhatBlocksHold();
    void traceIsWellFormed();
    void profileRecordsNoRun();
    void badRequestsAreBadInput();
    void operatorsSortByEachKey();
    void tabularModelNamesItsParts();

private:
    headroom::RunResult profile(const QStringList &overrides = {}, std::int64_t steps = 2,
                                bool resume = false);
    headroom::RunResult profileProject(const QString &project, const QStringList &overrides,
                                       std::int64_t steps, bool resume = false);
    const headroom::ProfileReport &tinyReport();

    QTemporaryDir dir_;
    QString project_;
    QString trained_project_; // trained for a step: profiles run on project_ only
    headroom::RunResult tiny_;
};

namespace {

const headroom::ModuleProfile *findModule(const headroom::ProfileReport &report,
                                          const std::string &name) {
    for (const headroom::ModuleProfile &module : report.modules) {
        if (module.name == name) {
            return &module;
        }
    }
    return nullptr;
}

std::uint64_t blockBytes(const headroom::ProfileReport &report) {
    std::uint64_t sum = 0;
    for (const headroom::ModuleProfile &module : report.modules) {
        if (module.depth == 0 && module.name.rfind("blocks.", 0) == 0) {
            sum += module.activation_bytes;
        }
    }
    return sum;
}

} // namespace

void TestProfiler::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString corpus = writeFile(QDir(dir_.path()), "corpus.txt", storyText(300));
    project_ = createTestProject(QDir(dir_.path()).filePath("tiny.headroom"), corpus, "gpt",
                                 kTinyGpt + QStringList{"train.accumulation=2"});
    trained_project_ =
        createTestProject(QDir(dir_.path()).filePath("trained.headroom"), corpus, "gpt", kTinyGpt);
    QVERIFY(!headroom::profilerCallbacksInstalled());
}

headroom::RunResult TestProfiler::profile(const QStringList &overrides, std::int64_t steps,
                                          bool resume) {
    return profileProject(project_, overrides, steps, resume);
}

headroom::RunResult TestProfiler::profileProject(const QString &project,
                                                 const QStringList &overrides, std::int64_t steps,
                                                 bool resume) {
    headroom::SessionRequest request;
    request.project_path = project.toStdString();
    request.overrides = toStd(overrides);
    request.resume = resume;
    request.profile = headroom::ProfileOptions();
    request.profile->steps = steps;
    headroom::Session session(request);
    session.start();
    return session.wait();
}

const headroom::ProfileReport &TestProfiler::tinyReport() {
    if (!tiny_.profile) {
        tiny_ = profile();
    }
    if (!tiny_.profile) {
        qFatal("the tiny GPT's profile failed: %s", tiny_.message.c_str());
    }
    return *tiny_.profile;
}

void TestProfiler::recorderAttributesHeldBytesToTheOpenModule() {
    headroom::memory::installCountingCpuAllocator();
    headroom::profile::Recorder recorder(1000);
    torch::Tensor kept;
    recorder.start();
    {
        const headroom::profile::PhaseScope forward(headroom::profile::kForwardPhase);
        const headroom::profile::ModuleScope block("blocks", 0);
        torch::Tensor temporary = torch::ones({2000}, torch::kFloat32); // freed before the end
        {
            const headroom::profile::ModuleScope part("mlp");
            kept = torch::ones({1000}, torch::kFloat32).neg(); // held past the forward pass
        }
        temporary = torch::Tensor();
    }
    recorder.stop();
    headroom::ProfileReport report;
    recorder.fillReport(report);

    const headroom::ModuleProfile *block = findModule(report, "blocks.0");
    const headroom::ModuleProfile *mlp = findModule(report, "blocks.0.mlp");
    QVERIFY(block != nullptr && mlp != nullptr);
    QCOMPARE(mlp->parent, std::string("blocks.0"));
    QCOMPARE(mlp->depth, 1);
    // ones() then neg(): neg's result stays; ones' result died inside the scope.
    QCOMPARE(mlp->activation_bytes, std::uint64_t(4000));
    QCOMPARE(block->activation_bytes, std::uint64_t(4000));
    QCOMPARE(report.activation_bytes, std::uint64_t(4000));
    QCOMPARE(report.forward_passes, std::int64_t(1));
    const auto neg = std::find_if(report.operators.begin(), report.operators.end(),
                                  [](const auto &row) { return row.name == "aten::neg"; });
    QVERIFY(neg != report.operators.end());
    QCOMPARE(neg->calls, std::int64_t(1));
    QCOMPARE(neg->cpu_allocated, std::uint64_t(4000));
    QCOMPARE(neg->self_cpu_memory, std::int64_t(4000));
}

void TestProfiler::recorderLeavesNoCallbackBehind() {
    QVERIFY(!headroom::profilerCallbacksInstalled());
    QVERIFY(!headroom::profile::recording());
    QVERIFY(!c10::memoryProfilingEnabled());
    {
        headroom::profile::Recorder recorder(10);
        recorder.start();
        QVERIFY(headroom::profilerCallbacksInstalled());
        QVERIFY(headroom::profile::recording());
        QVERIFY(c10::memoryProfilingEnabled());
        // Destroyed while recording: the destructor stops.
    }
    QVERIFY(!headroom::profilerCallbacksInstalled());
    QVERIFY(!headroom::profile::recording());
    QVERIFY(!c10::memoryProfilingEnabled());

    // A whole profile on an engine thread, and training after it, leave nothing either.
    tinyReport();
    QVERIFY(!headroom::profilerCallbacksInstalled());
    QVERIFY(!headroom::profile::recording());
    Recorder observer;
    const headroom::RunResult trained = runSession(trained_project_, observer, {}, 1);
    QCOMPARE(int(trained.failure), int(headroom::FailureKind::None));
    QVERIFY(!trained.profile);
    QVERIFY(!headroom::profilerCallbacksInstalled());
}

void TestProfiler::profilesOperatorsOfATinyGpt() {
    const headroom::ProfileReport &report = tinyReport();
    QCOMPARE(int(tiny_.state), int(headroom::SessionState::Finished));
    QCOMPARE(report.steps, std::int64_t(2));
    QCOMPARE(report.warmup_steps, std::int64_t(1));
    QCOMPARE(report.device, std::string("cpu"));
    QCOMPARE(report.micro_batch, std::int64_t(4));
    QCOMPARE(report.accumulation, std::int64_t(2));
    QVERIFY(report.wall_us > 0);
    QVERIFY(!report.operators.empty());
    bool matmul = false;
    bool backward = false;
    std::uint64_t allocated = 0;
    for (const headroom::OperatorProfile &row : report.operators) {
        QVERIFY2(row.total_us >= 0 && row.self_us >= 0, row.name.c_str());
        QVERIFY2(row.self_us <= row.total_us + 1e-3, row.name.c_str());
        QVERIFY2(row.calls >= 0, row.name.c_str());
        if (row.name == "aten::addmm" || row.name == "aten::mm" || row.name == "aten::matmul" ||
            row.name == "headroom::linear") {
            matmul = matmul || row.calls > 0;
        }
        backward = backward || row.name.find("Backward") != std::string::npos;
        allocated += row.cpu_allocated;
        QCOMPARE(row.self_device_memory, std::int64_t(0)); // on the CPU
    }
    QVERIFY(matmul);
    QVERIFY(backward);
    QVERIFY(allocated > 0);
    // Two profiled steps of two micro-batches each.
    QCOMPARE(report.forward_passes, std::int64_t(4));
}

void TestProfiler::moduleAttributionListsEveryBlock() {
    const headroom::ProfileReport &report = tinyReport();
    for (const char *name : {"embeddings", "blocks.0", "blocks.0.attention", "blocks.0.mlp",
                             "blocks.1", "blocks.1.attention", "blocks.1.mlp", "lm_head"}) {
        const headroom::ModuleProfile *module = findModule(report, name);
        QVERIFY2(module != nullptr, name);
        QVERIFY2(module->activation_bytes > 0, name);
        QVERIFY2(module->calls > 0 && module->time_us > 0, name);
    }
    for (const char *block : {"blocks.0", "blocks.1"}) {
        const std::string name = block;
        const std::uint64_t parts = findModule(report, name + ".attention")->activation_bytes +
                                    findModule(report, name + ".mlp")->activation_bytes;
        QVERIFY(parts <= findModule(report, name)->activation_bytes);
    }
    // The top-level rows, "(outside modules)" included, partition the forward pass's bytes.
    std::uint64_t top_level = 0;
    for (const headroom::ModuleProfile &module : report.modules) {
        top_level += module.depth == 0 ? module.activation_bytes : 0;
    }
    QCOMPARE(top_level, report.activation_bytes);
    const std::uint64_t blocks = blockBytes(report);
    QVERIFY(blocks <= report.activation_bytes);
    QVERIFY2(blocks * 10 >= report.activation_bytes * 3,
             qPrintable(QString("blocks %1 of %2").arg(blocks).arg(report.activation_bytes)));
    // Against the trainer's own allocator measure of the step (peak above the step's start
    // less the gradients), which also counts the backward pass's temporaries.
    QVERIFY(report.measured_activation_bytes > 0);
    QVERIFY2(report.activation_bytes * 4 >= report.measured_activation_bytes &&
                 report.activation_bytes <= report.measured_activation_bytes * 2,
             qPrintable(QString("held %1, measured %2")
                            .arg(report.activation_bytes)
                            .arg(report.measured_activation_bytes)));
}

void TestProfiler::checkpointingShrinksWhatBlocksHold() {
    const std::uint64_t plain = blockBytes(tinyReport());
    const headroom::RunResult checkpointed = profile({"checkpointing=1"}, 1);
    QVERIFY2(checkpointed.profile, checkpointed.message.c_str());
    const std::uint64_t recomputed = blockBytes(*checkpointed.profile);
    QVERIFY2(recomputed > 0 && recomputed * 3 < plain,
             qPrintable(QString("%1 with checkpointing, %2 without").arg(recomputed).arg(plain)));
    // The recomputation in backward runs inside the block's scope too.
    QVERIFY(findModule(*checkpointed.profile, "blocks.0")->calls >= 2);
}

void TestProfiler::traceIsWellFormed() {
    const headroom::ProfileReport &report = tinyReport();
    QVERIFY(!report.trace.empty());
    QVERIFY(!report.trace_truncated);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(
        QByteArray::fromStdString(headroom::chromeTraceJson(report)), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray events = document.object()["traceEvents"].toArray();
    QVERIFY(events.size() > 100);
    std::map<QString, int> names;
    QList<QPair<double, double>> ranges; // the training thread's complete events
    int counters = 0;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString ph = event["ph"].toString();
        QVERIFY(event["name"].isString() && !event["name"].toString().isEmpty());
        QVERIFY(event["pid"].isDouble() && event["tid"].isDouble());
        if (ph == "M") {
            continue;
        }
        QVERIFY(event["ts"].isDouble() && event["ts"].toDouble() >= 0);
        if (ph == "C") {
            ++counters;
            QVERIFY(event["args"].toObject()["live_bytes"].isDouble());
            continue;
        }
        QCOMPARE(ph, QString("X"));
        QVERIFY(event["dur"].isDouble() && event["dur"].toDouble() >= 0);
        QVERIFY(event["cat"].isString());
        QVERIFY(event["args"].isObject());
        ++names[event["name"].toString()];
        if (event["tid"].toInt() == 1) {
            ranges.append(
                {event["ts"].toDouble(), event["ts"].toDouble() + event["dur"].toDouble()});
        }
    }
    QVERIFY(counters > 0);
    QCOMPARE(names["step 2"], 1); // step 1 is the warm-up, not recorded
    QCOMPARE(names["step 3"], 1);
    QCOMPARE(names["step 1"], 0);
    QCOMPARE(names["forward"], 4);
    QCOMPARE(names["backward"], 4);
    QVERIFY(names["blocks.1"] >= 4);
    // Ranges of one thread nest: in start order, each begins after the enclosing one began
    // and ends before it ended, or after it ended (a sibling). 1 us of rounding allowed.
    std::sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
        return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    std::vector<double> open_ends;
    for (const auto &range : ranges) {
        while (!open_ends.empty() && range.first >= open_ends.back() - 1e-3) {
            open_ends.pop_back();
        }
        QVERIFY(open_ends.empty() || range.second <= open_ends.back() + 1.0);
        open_ends.push_back(range.second);
    }

    const QString path = QDir(dir_.path()).filePath("trace.json");
    headroom::writeChromeTrace(report, path.toStdString());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(file.readAll()).object()["traceEvents"].isArray());
    QVERIFY_THROWS_EXCEPTION(headroom::InputError,
                             headroom::writeChromeTrace(report, "/nonexistent/dir/trace.json"));
}

void TestProfiler::profileRecordsNoRun() {
    tinyReport();
    const headroom::Project project = headroom::Project::openReadOnly(project_.toStdString());
    QVERIFY(project.runs().empty());
    QVERIFY(!QDir(project_ + ".d").exists() || QDir(project_ + ".d").isEmpty());
}

void TestProfiler::badRequestsAreBadInput() {
    const headroom::RunResult none = profile({}, 0);
    QCOMPARE(int(none.failure), int(headroom::FailureKind::BadInput));
    QVERIFY2(QString::fromStdString(none.message).contains("at least 1 step"),
             none.message.c_str());
    QVERIFY(!none.profile);
    const headroom::RunResult resumed = profile({}, 1, true);
    QCOMPARE(int(resumed.failure), int(headroom::FailureKind::BadInput));
    const headroom::RunResult bad_key = profile({"model.nonsense=1"}, 1);
    QCOMPARE(int(bad_key.failure), int(headroom::FailureKind::BadInput));
    QVERIFY(!headroom::profilerCallbacksInstalled());
}

void TestProfiler::operatorsSortByEachKey() {
    std::vector<headroom::OperatorProfile> rows(3);
    rows[0].name = "a";
    rows[0].calls = 1;
    rows[0].total_us = 30;
    rows[0].self_us = 5;
    rows[0].self_cpu_memory = 100;
    rows[1].name = "b";
    rows[1].calls = 9;
    rows[1].total_us = 20;
    rows[1].self_us = 20;
    rows[1].self_cpu_memory = -50;
    rows[2].name = "c";
    rows[2].calls = 4;
    rows[2].total_us = 10;
    rows[2].self_us = 10;
    rows[2].self_device_memory = 400;
    const auto order = [&rows](const std::string &sort, std::size_t top = 0) {
        std::string names;
        for (const auto &row :
             headroom::sortedOperators(rows, headroom::parseOperatorSort(sort), top)) {
            names += row.name;
        }
        return QString::fromStdString(names);
    };
    QCOMPARE(order("time"), QString("abc"));
    QCOMPARE(order("self_time"), QString("bca"));
    QCOMPARE(order("self_memory"), QString("cab"));
    QCOMPARE(order("calls"), QString("bca"));
    QCOMPARE(order("calls", 2), QString("bc"));
    QVERIFY_THROWS_EXCEPTION(headroom::InputError, headroom::parseOperatorSort("memory"));
}

void TestProfiler::tabularModelNamesItsParts() {
    const QString csv = writeFile(QDir(dir_.path()), "plants.csv", tabularCsv(200));
    const QString project = createTestProject(QDir(dir_.path()).filePath("tabular.headroom"), csv,
                                              "tabular", {"model.hidden=16,8"});
    const headroom::RunResult result = profileProject(project, {}, 1);
    QVERIFY2(result.profile, result.message.c_str());
    for (const char *name : {"embeddings", "hidden.0", "hidden.1", "head"}) {
        const headroom::ModuleProfile *module = findModule(*result.profile, name);
        QVERIFY2(module != nullptr, name);
        QVERIFY2(module->depth == 0 && module->calls > 0, name);
    }
    // The GELU outputs kept for backward belong to the hidden layers.
    QVERIFY(findModule(*result.profile, "hidden.0")->activation_bytes > 0);
    QVERIFY(findModule(*result.profile, "hidden.1")->activation_bytes > 0);
}

QTEST_GUILESS_MAIN(TestProfiler)
#include "test_profiler.moc"
