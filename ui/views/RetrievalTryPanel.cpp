#include "views/RetrievalTryPanel.h"

#include "views/TryView.h"
#include "wizard/BackgroundJob.h"
#include "wizard/WizardColors.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace headroom::ui {

namespace {

constexpr std::size_t kTopTerms = 20;

struct Outcome {
    RetrievalTrial trial;
    QString error;
};

QTableWidget *resultTable(const QStringList &headers, const QString &name, QWidget *parent) {
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setTabKeyNavigation(false);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QTableWidgetItem *numberItem(double value, int decimals) {
    auto *item = new QTableWidgetItem(QLocale().toString(value, 'f', decimals));
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

void fillTerms(QTableWidget *table, const std::vector<TermWeight> &terms) {
    table->setRowCount(int(terms.size()));
    for (int row = 0; row < int(terms.size()); ++row) {
        const TermWeight &term = terms[std::size_t(row)];
        table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(term.token)));
        table->setItem(row, 1, numberItem(term.weight, 3));
    }
}

} // namespace

RetrievalTryPanel::RetrievalTryPanel(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("retrievalTryPanel"));
    query_ = new QLineEdit(this);
    query_->setObjectName(QStringLiteral("tryQuery"));
    query_->setAccessibleName(tr("Query"));
    query_->setPlaceholderText(tr("What a user would search for"));
    auto *query_label = new QLabel(tr("&Query:"), this);
    query_label->setBuddy(query_);

    passages_ = new QPlainTextEdit(this);
    passages_->setObjectName(QStringLiteral("tryPassages"));
    passages_->setAccessibleName(tr("Passages, one per line"));
    passages_->setPlaceholderText(tr("One passage per line: the documents to rank"));
    passages_->setTabChangesFocus(true);
    passages_->setLineWrapMode(QPlainTextEdit::NoWrap);
    passages_->setMaximumHeight(passages_->fontMetrics().lineSpacing() * 7 + 12);
    auto *passages_label = new QLabel(tr("&Passages (one per line):"), this);
    passages_label->setBuddy(passages_);

    rank_ = new QPushButton(tr("&Rank"), this);
    rank_->setObjectName(QStringLiteral("tryRank"));
    rank_->setToolTip(tr("Score every passage against the query (Return in the query)"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("tryRankStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    locate_ = new QPushButton(tr("Locate &Base Model…"), this);
    locate_->setObjectName(QStringLiteral("tryRankLocateBase"));
    locate_->hide();
    auto *action_row = new QHBoxLayout;
    action_row->addWidget(rank_, 0, Qt::AlignTop);
    action_row->addWidget(status_, 1);
    action_row->addWidget(locate_, 0, Qt::AlignTop);

    ranking_ =
        resultTable({tr("#"), tr("Score"), tr("Passage")}, QStringLiteral("tryRanking"), this);
    ranking_->setAccessibleName(tr("Passages ranked by score"));
    shared_terms_ =
        resultTable({tr("Term"), tr("Contribution")}, QStringLiteral("trySharedTerms"), this);
    shared_terms_->setAccessibleName(tr("Terms the passage shares with the query"));
    shared_terms_->setToolTip(tr("Query weight × passage weight of each term both have; they add "
                                 "up to the score"));
    query_terms_ = resultTable({tr("Term"), tr("Weight")}, QStringLiteral("tryQueryTerms"), this);
    query_terms_->setAccessibleName(tr("The query's top terms"));
    query_terms_->setToolTip(tr("The largest weights of the query's sparse vector: the "
                                "vocabulary terms it expands to"));

    auto *ranking_box = new QWidget(this);
    auto *ranking_layout = new QVBoxLayout(ranking_box);
    ranking_layout->setContentsMargins(0, 0, 0, 0);
    ranking_layout->addWidget(new QLabel(tr("Ranking:"), ranking_box));
    ranking_layout->addWidget(ranking_, 1);
    auto *shared_box = new QWidget(this);
    auto *shared_layout = new QVBoxLayout(shared_box);
    shared_layout->setContentsMargins(0, 0, 0, 0);
    shared_label_ = new QLabel(tr("Shared terms:"), shared_box);
    shared_label_->setObjectName(QStringLiteral("trySharedLabel"));
    shared_label_->setWordWrap(true); // its note on the score would widen the column
    shared_layout->addWidget(shared_label_);
    shared_layout->addWidget(shared_terms_, 1);
    auto *query_box = new QWidget(this);
    auto *query_layout = new QVBoxLayout(query_box);
    query_layout->setContentsMargins(0, 0, 0, 0);
    query_layout->addWidget(new QLabel(tr("Query terms:"), query_box));
    query_layout->addWidget(query_terms_, 1);
    auto *results = new QSplitter(Qt::Horizontal, this);
    results->addWidget(ranking_box);
    results->addWidget(shared_box);
    results->addWidget(query_box);
    results->setStretchFactor(0, 3);
    results->setStretchFactor(1, 1);
    results->setStretchFactor(2, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *query_row = new QHBoxLayout;
    query_row->addWidget(query_label);
    query_row->addWidget(query_, 1);
    layout->addLayout(query_row);
    layout->addWidget(passages_label);
    layout->addWidget(passages_);
    layout->addLayout(action_row);
    layout->addWidget(results, 1);

    job_ = new BackgroundJob(this);
    const auto rank_or_explain = [this] {
        rank();
    };
    connect(rank_, &QPushButton::clicked, this, rank_or_explain);
    connect(query_, &QLineEdit::returnPressed, this, rank_or_explain);
    connect(ranking_, &QTableWidget::itemSelectionChanged, this,
            &RetrievalTryPanel::showSharedTerms);
    connect(locate_, &QPushButton::clicked, this, &RetrievalTryPanel::locateBaseRequested);
    updateControls();
}

RetrievalTryPanel::~RetrievalTryPanel() {
    delete job_; // joins a ranking before the panel goes
}

void RetrievalTryPanel::setSource(const QString &project_path, std::int64_t run_id) {
    if (project_path != project_path_) {
        ranking_->setRowCount(0);
        shared_terms_->setRowCount(0);
        query_terms_->setRowCount(0);
        showStatus(QString(), false);
        locate_->hide();
    }
    project_path_ = project_path;
    run_id_ = run_id;
    updateControls();
}

void RetrievalTryPanel::setQuery(const QString &query) {
    query_->setText(query);
}

void RetrievalTryPanel::setPassages(const QString &lines) {
    passages_->setPlainText(lines);
}

bool RetrievalTryPanel::isRanking() const {
    return job_->isRunning();
}

QString RetrievalTryPanel::statusText() const {
    return status_->text();
}

QString RetrievalTryPanel::rank() {
    QString problem;
    QStringList passages;
    for (const QString &line : passages_->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty()) {
            passages << line.trimmed();
        }
    }
    if (isRanking()) {
        problem = tr("A ranking is already running.");
    } else if (project_path_.isEmpty() || run_id_ == 0) {
        problem = tr("Choose the weights to rank with first.");
    } else if (query_->text().trimmed().isEmpty()) {
        problem = tr("Type a query first: the passages are ranked against it.");
    } else if (passages.isEmpty()) {
        problem = tr("Add at least one passage to rank, one per line.");
    }
    if (!problem.isEmpty()) {
        showStatus(problem, true);
        return problem;
    }
    const std::string project = project_path_.toStdString();
    const std::int64_t run = run_id_;
    const std::string query = query_->text().trimmed().toStdString();
    std::vector<std::string> texts;
    for (const QString &passage : passages) {
        texts.push_back(passage.toStdString());
    }
    ranked_passages_ = passages;
    error_.clear();
    locate_->hide();
    showStatus(run < 0 ? tr("Loading the base model and ranking %n passages…", nullptr,
                            int(passages.size()))
                       : tr("Loading the weights of run %1 and ranking %n passages…", nullptr,
                            int(passages.size()))
                             .arg(run),
               false);
    auto outcome = std::make_shared<Outcome>();
    job_->start(
        [project, run, query, texts, outcome] {
            try {
                outcome->trial = tryRetrieval(project, run, query, texts, kTopTerms);
            } catch (const std::exception &failure) {
                outcome->error = QString::fromUtf8(failure.what());
            }
        },
        [this, outcome] { onFinished(outcome->trial, outcome->error); });
    updateControls();
    Q_EMIT rankingStarted();
    return {};
}

void RetrievalTryPanel::onFinished(const RetrievalTrial &trial, const QString &error) {
    error_ = error;
    trial_ = error.isEmpty() ? trial : RetrievalTrial();
    ranking_->setRowCount(0);
    shared_terms_->setRowCount(0);
    fillTerms(query_terms_, trial_.query_terms);
    if (!error.isEmpty()) {
        showStatus(error, true);
        locate_->setVisible(isBaseModelProblem(error));
    } else {
        ranking_->setRowCount(int(trial_.ranking.size()));
        for (int row = 0; row < int(trial_.ranking.size()); ++row) {
            const RankedPassage &ranked = trial_.ranking[std::size_t(row)];
            auto *place = new QTableWidgetItem(QString::number(row + 1));
            place->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            ranking_->setItem(row, 0, place);
            ranking_->setItem(row, 1, numberItem(ranked.score, 2));
            auto *passage = new QTableWidgetItem(ranked_passages_.value(int(ranked.index)));
            passage->setToolTip(passage->text());
            ranking_->setItem(row, 2, passage);
        }
        showStatus(trial_.run_id == 0 ? tr("Ranked %n passages with the base model as imported.",
                                           nullptr, int(trial_.ranking.size()))
                                      : tr("Ranked %n passages with run %1 at step %2.", nullptr,
                                           int(trial_.ranking.size()))
                                            .arg(trial_.run_id)
                                            .arg(trial_.step),
                   false);
        if (ranking_->rowCount() > 0) {
            ranking_->selectRow(0);
        }
    }
    updateControls();
    Q_EMIT rankingFinished(error);
}

// The terms behind the selected passage's score (the top passage's until another is chosen).
void RetrievalTryPanel::showSharedTerms() {
    const QList<QTableWidgetItem *> selected = ranking_->selectedItems();
    const int row = selected.isEmpty() ? 0 : selected.first()->row();
    if (row >= int(trial_.ranking.size())) {
        shared_terms_->setRowCount(0);
        shared_label_->setText(tr("Shared terms:"));
        return;
    }
    const RankedPassage &ranked = trial_.ranking[std::size_t(row)];
    fillTerms(shared_terms_, ranked.shared_terms);
    if (ranked.shared_terms.empty()) {
        shared_label_->setText(tr("Passage ranked %1 shares no term with the query.").arg(row + 1));
        return;
    }
    double shown = 0;
    for (const TermWeight &term : ranked.shared_terms) {
        shown += term.weight;
    }
    // The engine sends the largest contributions only: say how much of the score they are.
    if (ranked.score > 0 && shown < 0.995 * ranked.score) {
        shared_label_->setText(tr("Terms passage ranked %1 shares with the query (the largest "
                                  "%2: %3 % of its score):")
                                   .arg(row + 1)
                                   .arg(ranked.shared_terms.size())
                                   .arg(std::lround(100 * shown / ranked.score)));
    } else {
        shared_label_->setText(tr("Terms passage ranked %1 shares with the query:").arg(row + 1));
    }
}

void RetrievalTryPanel::showStatus(const QString &text, bool error) {
    status_->setText(text);
    status_->setProperty("error", error);
    setTextTone(status_, error ? TextTone::Problem : TextTone::Normal);
}

void RetrievalTryPanel::updateControls() {
    const bool running = isRanking();
    const bool usable = !project_path_.isEmpty() && run_id_ != 0;
    query_->setReadOnly(running);
    passages_->setReadOnly(running);
    query_->setEnabled(usable);
    passages_->setEnabled(usable);
    rank_->setEnabled(usable && !running);
}

} // namespace headroom::ui
