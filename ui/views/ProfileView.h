#pragma once

#include <headroom/profile.h>
#include <headroom/session.h>

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTreeWidget;

namespace headroom::ui {

class ProfileTableModel;
class SessionController;

// The Profile tab: profiles a few training steps of the project's configuration on an engine
// thread (no run is recorded), then shows the operators (sortable by any column), the
// activation memory each part of the model holds for backward, and saves the Chrome trace.
class ProfileView : public QWidget {
    Q_OBJECT

public:
    explicit ProfileView(QWidget *parent = nullptr);
    ~ProfileView() override;

    // Another project: the last profile is cleared.
    void setProjectPath(const QString &path);
    // While a run trains the project, profiling is not offered (both need the project).
    void setBlocked(bool blocked);
    bool isProfiling() const;

    // Starts profiling `steps` steps after one warm-up step; returns why it cannot, or empty.
    QString startProfile(int steps);
    void stopProfile();

    // Shows a finished profile; nullptr clears the view.
    void setReport(std::shared_ptr<const ProfileReport> report);
    const ProfileReport *report() const { return report_.get(); }
    // Writes the last profile's Chrome trace; returns an error text, empty on success.
    QString saveTrace(const QString &path);

    QTableView *operatorTable() const { return operator_table_; }
    ProfileTableModel *operatorModel() const { return operator_model_; }
    QTreeWidget *moduleTree() const { return module_tree_; }
    QString summaryText() const;
    QString statusText() const;

Q_SIGNALS:
    void profilingChanged(bool profiling);
    // A profile ended: `error` is empty when it finished and the tables show it.
    void profileFinished(const QString &error);

private:
    void chooseTracePath();
    void onFinished(const RunResult &result);
    void fillModules();
    void fitModuleColumns();
    void updateControls();
    void showStatus(const QString &text, bool error = false);

    QString project_path_;
    bool blocked_ = false;
    std::shared_ptr<const ProfileReport> report_;
    SessionController *controller_ = nullptr;
    QSpinBox *steps_ = nullptr;
    QPushButton *profile_button_ = nullptr;
    QPushButton *stop_button_ = nullptr;
    QPushButton *save_trace_button_ = nullptr;
    QLabel *status_ = nullptr;
    QLabel *summary_ = nullptr;
    ProfileTableModel *operator_model_ = nullptr;
    QSortFilterProxyModel *operator_proxy_ = nullptr;
    QTableView *operator_table_ = nullptr;
    QTreeWidget *module_tree_ = nullptr;
};

} // namespace headroom::ui
