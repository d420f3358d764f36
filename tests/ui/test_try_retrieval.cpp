// A SPLADE project in the main window: training shows the sparsity and retrieval quality plots
// live, and the Try tab ranks passages for a query with the run's (or the base's) encoder, the
// terms behind each score beside the ranking, problems named on the panel.
#include "main_window/MainWindow.h"
#include "plots/RetrievalPlots.h"
#include "retrieval_samples.h"
#include "runs/SessionController.h"
#include "sample_files.h"
#include "training_support.h"
#include "views/LiveView.h"
#include "views/RetrievalTryPanel.h"
#include "views/TryView.h"

#include <headroom/project.h>
#include <headroom/workflow.h>

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::MainWindow;
using headroom::ui::RetrievalTryPanel;
using headroom::ui::TryView;
using namespace test_support;

namespace {
constexpr int kTimeout = 120000;

const QStringList kTinySplade = {"model.seq_len=12",     "train.micro_batch=8",
                                 "train.steps=6",        "train.eval_every=3",
                                 "train.lr=0.003",       "data.validation_fraction=0.25",
                                 "train.warmup_steps=0", "train.checkpoint_every=6"};

bool waitRanked(RetrievalTryPanel *panel) {
    QSignalSpy finished(panel, &RetrievalTryPanel::rankingFinished);
    return finished.wait(kTimeout);
}

QStringList column(const QTableWidget *table, int column) {
    QStringList texts;
    for (int row = 0; row < table->rowCount(); ++row) {
        texts << table->item(row, column)->text();
    }
    return texts;
}
} // namespace

class TestTryRetrieval : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theBaseRanksBeforeAnyRun();
    void missingQueryOrPassagesAreNamed();
    void aTrainedRunPlotsAndRanks();

private:
    QString newProject(const QString &name);
    QString settingsPath() const { return dir_.filePath("settings.ini"); }

    QTemporaryDir dir_;
    QString bert_;
    QString pairs_;
};

void TestTryRetrieval::initTestCase() {
    QVERIFY(dir_.isValid());
    bert_ = encoderReferenceBert();
    if (bert_.isEmpty()) {
        QSKIP("no encoder reference folders: run tests/interop/encoder/setup.sh");
    }
    pairs_ = writeFile(QDir(dir_.path()), "pairs.json", retrievalRecords(48));
}

QString TestTryRetrieval::newProject(const QString &name) {
    headroom::NewProjectRequest request;
    request.project_path = dir_.filePath(name).toStdString();
    request.data_path = pairs_.toStdString();
    request.base_path = bert_.toStdString();
    request.overrides = toStd(kTinySplade);
    headroom::createProject(request, [](const std::string &) {});
    return dir_.filePath(name);
}

void TestTryRetrieval::theBaseRanksBeforeAnyRun() {
    const QString project = newProject("base.headroom");
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    TryView *view = window.tryView();
    window.tabs()->setCurrentWidget(view);
    QVERIFY(view->isRetrievalProject());
    QCOMPARE(view->modelCount(), 1);
    QCOMPARE(view->selectedRunId(), -1);
    // Ranking replaces the generation controls.
    QVERIFY(!window.findChild<QPlainTextEdit *>("tryPrompt")->isVisible());
    QVERIFY(window.findChild<QLineEdit *>("tryQuery")->isVisible());

    RetrievalTryPanel *panel = view->retrievalPanel();
    panel->setQuery("hello world");
    panel->setPassages("brown caps\nhello world text\n\nthey cafe");
    QCOMPARE(panel->rank(), QString());
    QVERIFY(view->isGenerating());
    QVERIFY(!window.findChild<QPushButton *>("tryRank")->isEnabled());
    QVERIFY(waitRanked(panel));
    QCOMPARE(panel->errorText(), QString());
    QVERIFY2(panel->statusText().contains("base model"), qPrintable(panel->statusText()));
    // Three passages (the blank line is none), best first, by falling score.
    const QTableWidget *ranking = panel->rankingTable();
    QCOMPARE(ranking->rowCount(), 3);
    QCOMPARE(column(ranking, 0), (QStringList{"1", "2", "3"}));
    QStringList passages = column(ranking, 2);
    passages.sort();
    QCOMPARE(passages, (QStringList{"brown caps", "hello world text", "they cafe"}));
    for (int row = 1; row < ranking->rowCount(); ++row) {
        QVERIFY(ranking->item(row - 1, 1)->data(Qt::UserRole).toDouble() >=
                ranking->item(row, 1)->data(Qt::UserRole).toDouble());
    }
    QVERIFY(panel->queryTermsTable()->rowCount() > 0);
    QVERIFY(panel->queryTermsTable()->rowCount() <= 20);
    // The top passage is selected: its largest shared terms, largest first, and how much of
    // its score they make up when the engine sent only the largest.
    QCOMPARE(ranking->currentRow(), 0);
    const QTableWidget *shared = panel->sharedTermsTable();
    QVERIFY(shared->rowCount() > 0);
    double sum = 0;
    for (int row = 0; row < shared->rowCount(); ++row) {
        const double contribution = shared->item(row, 1)->data(Qt::UserRole).toDouble();
        QVERIFY(contribution > 0);
        if (row > 0) {
            QVERIFY(contribution <= shared->item(row - 1, 1)->data(Qt::UserRole).toDouble());
        }
        sum += contribution;
    }
    const double top_score = ranking->item(0, 1)->data(Qt::UserRole).toDouble();
    QVERIFY(sum <= top_score * 1.001);
    const QString label = window.findChild<QLabel *>("trySharedLabel")->text();
    QVERIFY2(label.contains("ranked 1"), qPrintable(label));
    QCOMPARE(label.contains("% of its score"), sum < 0.995 * top_score);
    // Another passage selected shows its own terms.
    panel->rankingTable()->selectRow(2);
    QVERIFY2(window.findChild<QLabel *>("trySharedLabel")->text().contains("3"),
             qPrintable(window.findChild<QLabel *>("trySharedLabel")->text()));
}

void TestTryRetrieval::missingQueryOrPassagesAreNamed() {
    const QString project = newProject("problems.headroom");
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    RetrievalTryPanel *panel = window.tryView()->retrievalPanel();
    panel->setPassages("hello world");
    QVERIFY(panel->rank().contains("query"));
    QVERIFY2(panel->statusText().contains("query"), qPrintable(panel->statusText()));
    QVERIFY(!panel->isRanking());
    panel->setQuery("hello");
    panel->setPassages("\n  \n");
    QVERIFY(panel->rank().contains("passage"));
    QVERIFY(!panel->isRanking());
    QCOMPARE(panel->rankingTable()->rowCount(), 0);
}

void TestTryRetrieval::aTrainedRunPlotsAndRanks() {
    const QString project = newProject("trained.headroom");
    MainWindow window(nullptr, settingsPath());
    window.show();
    QCOMPARE(window.openProject(project), QString());
    QSignalSpy finished(window.sessionController(), &headroom::ui::SessionController::finished);
    QCOMPARE(window.startRun(), QString());
    QVERIFY(finished.wait(kTimeout));

    // The Live view plotted the run's sparsity and its two validations as they came.
    headroom::ui::LiveView *live = window.liveView();
    QTRY_VERIFY_WITH_TIMEOUT(live->series().retrieval_steps.size() == 6, kTimeout);
    QVERIFY(live->sparsityPlot()->isVisibleTo(live));
    QCOMPARE(live->sparsityPlot()->queryNonzerosGraph()->dataCount(), 6);
    QTRY_COMPARE_WITH_TIMEOUT(live->retrievalQualityPlot()->mrrGraph()->dataCount(), 2, kTimeout);
    const double mrr = live->retrievalQualityPlot()->mrrGraph()->data()->at(1)->value;
    QVERIFY(mrr > 0 && mrr <= 1);

    TryView *view = window.tryView();
    QCOMPARE(view->modelCount(), 2); // the run and the base
    const headroom::Project reader = headroom::Project::openReadOnly(project.toStdString());
    const std::int64_t run = reader.runs().front().id;
    QCOMPARE(view->selectedRunId(), run);
    RetrievalTryPanel *panel = view->retrievalPanel();
    panel->setQuery("new york");
    panel->setPassages("new york cafe\nbrown caps");
    QCOMPARE(view->generate(), QString()); // the Try tab's action ranks here
    QVERIFY(waitRanked(panel));
    QCOMPARE(panel->errorText(), QString());
    QVERIFY2(panel->statusText().contains(QString("run %1 at step 6").arg(run)),
             qPrintable(panel->statusText()));
    QCOMPARE(panel->rankingTable()->rowCount(), 2);
}

QTEST_MAIN(TestTryRetrieval)
#include "test_try_retrieval.moc"
