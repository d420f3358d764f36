#pragma once

#include <headroom/retrieval.h>

#include <QWidget>

#include <cstdint>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace headroom::ui {

class BackgroundJob;

// The Try tab for SPLADE projects: a query against a few passages (one per line), ranked by a
// run's encoder or the base's (tryRetrieval, on a worker thread: it loads the weights first).
// The ranking shows score and passage; beside it the terms the selected passage (the top one
// at first) shares with the query, each with its query x passage contribution, and the
// query's own top terms.
class RetrievalTryPanel : public QWidget {
    Q_OBJECT

public:
    explicit RetrievalTryPanel(QWidget *parent = nullptr);
    ~RetrievalTryPanel() override;

    // The project and the weights to rank with: a run id, -1 for the base as imported, 0 none.
    void setSource(const QString &project_path, std::int64_t run_id);
    void setQuery(const QString &query);
    // One passage per line; blank lines are not passages.
    void setPassages(const QString &lines);

    // Starts ranking; returns why it cannot start (shown on the panel too), or an empty string.
    QString rank();
    bool isRanking() const;

    QTableWidget *rankingTable() const { return ranking_; }
    QTableWidget *sharedTermsTable() const { return shared_terms_; }
    QTableWidget *queryTermsTable() const { return query_terms_; }
    QString statusText() const;
    // The last ranking's error, empty when it succeeded.
    QString errorText() const { return error_; }

Q_SIGNALS:
    void rankingStarted();
    // A ranking ended; error is empty unless it failed.
    void rankingFinished(const QString &error);
    // The project's base model moved or changed: the user may point the project at it.
    void locateBaseRequested();

private:
    void onFinished(const RetrievalTrial &trial, const QString &error);
    void showSharedTerms();
    void showStatus(const QString &text, bool error);
    void updateControls();

    QString project_path_;
    std::int64_t run_id_ = 0;
    QLineEdit *query_ = nullptr;
    QPlainTextEdit *passages_ = nullptr;
    QPushButton *rank_ = nullptr;
    QLabel *status_ = nullptr;
    QPushButton *locate_ = nullptr;
    QTableWidget *ranking_ = nullptr;
    QLabel *shared_label_ = nullptr;
    QTableWidget *shared_terms_ = nullptr;
    QTableWidget *query_terms_ = nullptr;

    BackgroundJob *job_ = nullptr;
    QStringList ranked_passages_; // the passages of the shown ranking, as given
    RetrievalTrial trial_;
    QString error_;
};

} // namespace headroom::ui
