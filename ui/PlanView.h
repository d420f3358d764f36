#pragma once

#include <headroom/config.h>

#include <QWidget>

class QLabel;
class QTableWidget;
class QTableWidgetItem;

namespace headroom::ui {

// The Plan tab: the project's settings, editable through the engine's key registry (every
// value is checked by the engine and a refusal shows its message), and the place of the
// memory plan, which arrives with the planner.
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
    // While a run trains the settings are read-only.
    void setEditable(bool editable);
    QString messageText() const;

Q_SIGNALS:
    void configChanged();

private:
    void onItemChanged(QTableWidgetItem *item);
    void showValue(int row);
    void showMessage(const QString &text, bool error);

    QString project_path_;
    Config config_;
    bool editable_ = true;
    bool filling_ = false;
    QLabel *message_ = nullptr;
    QTableWidget *table_ = nullptr;
};

} // namespace headroom::ui
