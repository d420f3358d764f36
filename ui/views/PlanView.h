#pragma once

#include <headroom/config.h>
#include <headroom/plan.h>

#include <QWidget>

class QLabel;
class QTabWidget;
class QTableWidget;
class QTableWidgetItem;

namespace headroom::ui {

class MemoryBarsWidget;
class PlanChoiceTable;

// The Plan tab: the planner's memory estimate and recommendation for the project's settings,
// and the settings, editable through the engine's key registry (every value is checked by
// the engine and a refusal shows its message; the estimate follows each change), and the
// planner's comparison tables: a row used is saved like an edit.
class PlanView : public QWidget {
    Q_OBJECT

public:
    explicit PlanView(QWidget *parent = nullptr);

    // Loads the project's config; returns an error text, empty on success.
    QString load(const QString &project_path);
    const Config &config() const { return config_; }

    // Changes one setting and saves the project's config. Returns the engine's message when
    // the value is refused (nothing is saved then), empty on success.
    QString setValue(const QString &key, const QString &value);
    // Several "key=value" at once (a row of the plan tables): all saved, or none.
    QString setValues(const QStringList &assignments);
    PlanChoiceTable *planChoices() const { return choices_; }
    PlanChoiceTable *modelChanges() const { return model_changes_; }
    // While a run trains the settings are read-only.
    void setEditable(bool editable);
    QString messageText() const;

Q_SIGNALS:
    void configChanged();

private:
    void onItemChanged(QTableWidgetItem *item);
    void refreshPlan();
    void useAssignments(const QStringList &assignments);
    void showValue(int row);
    void showMessage(const QString &text, bool error);

    QString project_path_;
    Config config_;
    bool editable_ = true;
    bool filling_ = false;
    QLabel *message_ = nullptr;
    MemoryBarsWidget *bars_ = nullptr;
    QLabel *verdict_ = nullptr;
    QLabel *recommendation_ = nullptr;
    QTableWidget *table_ = nullptr;
    Plan plan_;
    QTabWidget *tabs_ = nullptr;
    PlanChoiceTable *choices_ = nullptr;
    PlanChoiceTable *model_changes_ = nullptr;
};

} // namespace headroom::ui
