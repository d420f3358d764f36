#pragma once

#include <headroom/config.h>
#include <headroom/plan.h>

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace headroom::ui {

// The planner's priced choices side by side, either its time-memory table (every combination
// of techniques, base formats included, at its best micro-batch) or the changes to the model it
// prices but never makes (a Mixture-of-Experts GPT's experts, top-k, capacity, MoE blocks).
// A row is used by double-clicking it or with the Use button; the page applies the assignments.
class PlanChoiceTable : public QWidget {
    Q_OBJECT

public:
    enum class Kind { Techniques, ModelChanges };

    explicit PlanChoiceTable(Kind kind, QWidget *parent = nullptr);

    // Shows `plan`'s rows; the row whose assignments `current` already has is marked.
    void setPlan(const Plan &plan, const Config &current);
    int rowCount() const;
    // The assignments of row `row` as shown (sorted as the planner sorts them).
    QStringList assignmentsOf(int row) const;
    // Selects and uses row `row`, as a double-click does.
    void use(int row);

Q_SIGNALS:
    void chosen(const QStringList &assignments);

private:
    void refill();
    void updateButton();

    Kind kind_;
    Plan plan_;
    Config current_;
    QList<QStringList> row_assignments_;
    QTableWidget *table_ = nullptr;
    QCheckBox *show_all_ = nullptr;
    QLabel *note_ = nullptr;
    QPushButton *use_ = nullptr;
};

} // namespace headroom::ui
