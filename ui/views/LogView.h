#pragma once

#include "runs/RunSeries.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace headroom::ui {

// The Log tab: engine events and state messages (time, run, step, kind, message), filterable
// by category and text, with a diagnosis banner for a run that paused or failed.
class LogView : public QWidget {
    Q_OBJECT

public:
    enum class Category { All, Memory, Checkpoints, Problems, States };

    explicit LogView(QWidget *parent = nullptr);

    void clear();
    void addEvent(const RunEvent &event);
    void addState(std::int64_t run_id, std::int64_t step, const QString &state,
                  const QString &message);
    // Shows what stopped a run and what to change; an empty text hides the banner.
    void setDiagnosis(const QString &text);
    QString diagnosis() const;

    void setCategory(Category category);
    void setFilterText(const QString &text);
    int entryCount() const;
    int visibleEntryCount() const;
    // Kind column of entry row (in insertion order), for tests.
    QString kindAt(int row) const;

private:
    void addRow(const QDateTime &time, std::int64_t run_id, std::int64_t step, const QString &kind,
                const QString &message, Category category);
    void applyFilter();

    QLabel *diagnosis_ = nullptr;
    QComboBox *category_ = nullptr;
    QLineEdit *filter_ = nullptr;
    QTableWidget *table_ = nullptr;
};

} // namespace headroom::ui
