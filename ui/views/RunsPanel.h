#pragma once

#include <headroom/project.h>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace headroom::ui {

// The project panel: the project's name and data, and its runs with status, steps, losses,
// peak memory, out-of-memory recoveries and device.
class RunsPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunsPanel(QWidget *parent = nullptr);

    // Reads the project's runs; returns an error text (empty on success) and leaves the panel
    // unchanged on failure.
    QString load(const QString &project_path);
    QString reload();

    QString projectPath() const { return project_path_; }
    const std::vector<RunRecord> &runs() const { return runs_; }
    int runCount() const { return int(runs_.size()); }
    std::int64_t selectedRunId() const;
    void selectRun(std::int64_t run_id);
    // Shows the progress of a run that is training (its record is written when it ends).
    void showLiveProgress(std::int64_t run_id, std::int64_t step, std::int64_t target_steps,
                          double loss, std::uint64_t peak_bytes, std::int64_t recoveries);

Q_SIGNALS:
    void runSelected(std::int64_t run_id);

private:
    QString project_path_;
    std::vector<RunRecord> runs_;
    QLabel *title_ = nullptr;
    QLabel *subtitle_ = nullptr;
    QTableWidget *table_ = nullptr;
    QLabel *no_runs_hint_ = nullptr;
};

// "running", "paused" ... for people, translated.
QString runStatusText(RunStatus status);
// "accuracy 97.4 %" or "RMSE 3.21 · R² 0.912", with "(best: step N)" for early stopping; "–"
// for a run without validation figures.
QString validationFigures(const RunRecord &run);

} // namespace headroom::ui
