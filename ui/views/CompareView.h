#pragma once

#include "runs/RunSeries.h"

#include <headroom/project.h>

#include <QMap>
#include <QWidget>

class QCheckBox;
class QListWidget;
class QTableWidget;

namespace headroom::ui {

namespace plots {
class PlotWidget;
}

// The Compare tab: pick runs, see their loss and memory curves overlaid, and their
// configurations and results side by side with the differing rows highlighted.
class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(QWidget *parent = nullptr);

    // The runs to choose from; keeps the selection of runs that still exist.
    void setRuns(const QString &project_path, const std::vector<RunRecord> &runs);
    void setSelectedRuns(const QList<std::int64_t> &run_ids);
    QList<std::int64_t> selectedRuns() const;

    // Rows of the side-by-side table, by their first column's text.
    QStringList tableKeys() const;
    QStringList rowValues(const QString &key) const;
    bool isHighlighted(const QString &key) const;
    int overlaidCurveCount() const;

private:
    void refresh();
    const RunSeries *series(std::int64_t run_id);
    void fillTable(const std::vector<const RunRecord *> &runs);

    QString project_path_;
    std::vector<RunRecord> runs_;
    QMap<std::int64_t, RunSeries> cache_;
    QListWidget *run_list_ = nullptr;
    QCheckBox *only_differences_ = nullptr;
    plots::PlotWidget *loss_ = nullptr;
    plots::PlotWidget *memory_ = nullptr;
    QTableWidget *table_ = nullptr;
};

} // namespace headroom::ui
