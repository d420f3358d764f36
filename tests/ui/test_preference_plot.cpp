// The Live view's Rewards plot: a preference objective's chosen and rejected rewards, their
// margin and the share of pairs ranked right reach it live and from the project file, sit right
// under the loss, and are exported with the other plots; supervised runs keep the view as it was.
#include "plots/GrpoPlot.h"
#include "plots/LossPlot.h"
#include "plots/PreferencePlot.h"
#include "runs/RunSeries.h"
#include "views/CompareView.h"
#include "views/LiveView.h"

#include <headroom/project.h>

#include <QSplitter>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using headroom::ui::LiveView;
namespace plots = headroom::ui::plots;

class TestPreferencePlot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveStepsFillTheRewards();
    void supervisedRunsHideThePlot();
    void storedRunShowsItsRewardsAndExportsThem();
    void compareShowsWhereTheRewardsEnded();
    void grpoStepsFillItsOwnRewards();
};

namespace {

QVector<headroom::StepMetrics> preferenceSteps(int first, int count, bool preference = true) {
    QVector<headroom::StepMetrics> steps;
    for (int step = first; step < first + count; ++step) {
        headroom::StepMetrics m;
        m.step = step;
        m.loss = 0.7 / step;
        m.tokens_per_s = 100;
        if (preference) {
            headroom::PreferenceStepMetrics p;
            p.chosen_rewards = 0.25 * step;
            p.rejected_rewards = -0.5 * step;
            p.reward_margin = p.chosen_rewards - p.rejected_rewards;
            p.reward_accuracy = std::min(1.0, 0.2 * step);
            m.preference = p;
        }
        steps.push_back(m);
    }
    return steps;
}

} // namespace

void TestPreferencePlot::liveStepsFillTheRewards() {
    LiveView view;
    view.resize(900, 1200);
    view.show();
    view.beginRun(1, "dpo");
    plots::PreferencePlot *plot = view.preferencePlot();
    QVERIFY(!plot->isVisibleTo(&view));
    view.appendSteps(preferenceSteps(1, 4));
    view.appendSteps(preferenceSteps(5, 4));
    QVERIFY(plot->isVisibleTo(&view));
    QCOMPARE(plot->marginGraph()->dataCount(), 8);
    QCOMPARE(plot->marginGraph()->data()->at(5)->value, 0.75 * 6);
    QCOMPARE(plot->rejectedGraph()->data()->at(7)->value, -4.0);
    QCOMPARE(plot->accuracyGraph()->valueAxis(), plot->yAxis2);
    QCOMPARE(plot->accuracyGraph()->data()->at(2)->value, 0.6000000000000001);
    QTRY_VERIFY(plot->replotCount() > 0);
    // Every reward in view, 0 included; the accuracy axis spans 0 to 1.
    QVERIFY(plot->yAxis->range().lower <= -4.0 && plot->yAxis->range().upper >= 6.0);
    QVERIFY(plot->yAxis2->range().lower <= 0 && plot->yAxis2->range().upper >= 1);
    // Right under the loss it explains.
    auto *splitter = qobject_cast<QSplitter *>(plot->parentWidget());
    QVERIFY(splitter != nullptr);
    QCOMPARE(splitter->indexOf(plot), splitter->indexOf(view.lossPlot()) + 1);

    view.beginRun(2, "next run");
    QCOMPARE(plot->marginGraph()->dataCount(), 0);
    QVERIFY(!plot->isVisibleTo(&view));
}

void TestPreferencePlot::supervisedRunsHideThePlot() {
    LiveView view;
    view.show();
    view.beginRun(1, "sft");
    view.appendSteps(preferenceSteps(1, 4, false));
    QVERIFY(!view.series().hasPreference());
    QVERIFY(!view.preferencePlot()->isVisibleTo(&view));
}

void TestPreferencePlot::storedRunShowsItsRewardsAndExportsThem() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("dpo.headroom").toStdString();
    headroom::Project project = headroom::Project::create(path, R"({"recipe":"causal_lm"})");
    const std::int64_t run = project.beginRun("{}", "cpu", 10, 0);
    {
        headroom::MetricsWriter writer(path, run);
        for (const headroom::StepMetrics &m : preferenceSteps(1, 5)) {
            writer.post(m);
        }
        writer.flush();
    }
    LiveView view;
    view.resize(900, 1200);
    view.show();
    view.showRun(headroom::ui::loadRunSeries(project, run), "stored");
    QVERIFY(view.preferencePlot()->isVisibleTo(&view));
    QCOMPARE(view.preferencePlot()->accuracyGraph()->dataCount(), 5);
    QCOMPARE(view.preferencePlot()->chosenGraph()->data()->at(4)->value, 1.25);
    const QStringList written = view.exportPlots(dir.filePath("run.png"));
    QVERIFY2(written.contains(dir.filePath("run-rewards.png")), qPrintable(written.join(", ")));
}

void TestPreferencePlot::compareShowsWhereTheRewardsEnded() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("compare.headroom").toStdString();
    headroom::Project project = headroom::Project::create(path, R"({"recipe":"causal_lm"})");
    const std::int64_t preference = project.beginRun("{}", "cpu", 4, 0);
    const std::int64_t supervised = project.beginRun("{}", "cpu", 4, 0);
    {
        headroom::MetricsWriter writer(path, preference);
        for (const headroom::StepMetrics &m : preferenceSteps(1, 4)) {
            writer.post(m);
        }
        writer.flush();
        headroom::MetricsWriter other(path, supervised);
        for (const headroom::StepMetrics &m : preferenceSteps(1, 4, false)) {
            other.post(m);
        }
        other.flush();
    }
    headroom::ui::CompareView compare;
    compare.setRuns(dir.filePath("compare.headroom"), project.runs());
    compare.setSelectedRuns({preference, supervised});
    QCOMPARE(compare.rowValues("final reward margin"), (QStringList{"3.0000", "–"}));
    QCOMPARE(compare.rowValues("final reward accuracy"), (QStringList{"80.0 %", "–"}));
}

// Online RL: the mean reward, its spread within groups and the completion length reach a plot
// of their own under the loss; the preference plot stays hidden.
void TestPreferencePlot::grpoStepsFillItsOwnRewards() {
    LiveView view;
    view.resize(900, 1200);
    view.show();
    view.beginRun(1, "grpo");
    plots::GrpoPlot *plot = view.grpoPlot();
    QVERIFY(!plot->isVisibleTo(&view));
    QVector<headroom::StepMetrics> steps = preferenceSteps(1, 6, false);
    for (headroom::StepMetrics &step : steps) {
        headroom::GrpoStepMetrics grpo;
        grpo.reward_mean = 0.1 * double(step.step);
        grpo.reward_std = 0.4;
        grpo.completion_length = 20.0 + double(step.step);
        step.grpo = grpo;
    }
    view.appendSteps(steps);
    QVERIFY(plot->isVisibleTo(&view));
    QVERIFY(!view.preferencePlot()->isVisibleTo(&view));
    QCOMPARE(plot->rewardGraph()->dataCount(), 6);
    QCOMPARE(plot->rewardGraph()->data()->at(5)->value, 0.6000000000000001);
    QCOMPARE(plot->lengthGraph()->valueAxis(), plot->yAxis2);
    QCOMPARE(plot->lengthGraph()->data()->at(0)->value, 21.0);
    QTRY_VERIFY(plot->replotCount() > 0);
    QVERIFY(plot->yAxis->range().lower <= 0 && plot->yAxis->range().upper >= 0.6);
    QVERIFY(plot->yAxis2->range().upper >= 26);
    auto *splitter = qobject_cast<QSplitter *>(plot->parentWidget());
    QVERIFY(splitter != nullptr);
    QVERIFY(splitter->indexOf(plot) <= splitter->indexOf(view.lossPlot()) + 2);
    view.beginRun(2, "next run");
    QCOMPARE(plot->rewardGraph()->dataCount(), 0);
    QVERIFY(!plot->isVisibleTo(&view));
}

QTEST_MAIN(TestPreferencePlot)
#include "test_preference_plot.moc"
