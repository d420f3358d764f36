#pragma once

#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace headroom::ui {

// What the central area shows when no project is open: where to start — first a pretrained
// model (with the model folders used recently), or a model from scratch, or a project — and
// what this machine is.
class EmptyProjectView : public QWidget {
    Q_OBJECT

public:
    static constexpr int kRecentFoldersShown = 4;

    explicit EmptyProjectView(QWidget *parent = nullptr);

    void setMachineSummary(const QStringList &lines);
    // Offers the first kRecentFoldersShown of these model folders as buttons.
    void setRecentBaseFolders(const QStringList &folders);

Q_SIGNALS:
    // Start from a pretrained model: this folder, or choose one when empty.
    void pretrainedProjectRequested(const QString &base_folder);
    void newProjectRequested();
    void openProjectRequested();

private:
    QLabel *machine_summary_ = nullptr;
    QWidget *recent_box_ = nullptr;
    QVBoxLayout *recent_list_ = nullptr;
};

} // namespace headroom::ui
