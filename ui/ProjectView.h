#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace headroom::ui {

// Read-only overview of an open project: its settings and its runs.
class ProjectView : public QWidget {
    Q_OBJECT

public:
    explicit ProjectView(QWidget *parent = nullptr);

    // Loads the project; returns an error text (empty on success) and leaves the view
    // unchanged on failure.
    QString load(const QString &project_path);
    void reload();

    QString projectPath() const { return project_path_; }
    int runCount() const;

private:
    QString project_path_;
    QLabel *title_ = nullptr;
    QLabel *subtitle_ = nullptr;
    QTableWidget *settings_ = nullptr;
    QTableWidget *runs_ = nullptr;
    QLabel *no_runs_hint_ = nullptr;
};

} // namespace headroom::ui
