#pragma once

#include <QWidget>

class QLabel;

namespace headroom::ui {

// What the central area shows when no project is open: where to start, and what this
// machine is.
class EmptyProjectView : public QWidget {
    Q_OBJECT

public:
    explicit EmptyProjectView(QWidget *parent = nullptr);

    void setMachineSummary(const QStringList &lines);

Q_SIGNALS:
    void newProjectRequested();
    void openProjectRequested();

private:
    QLabel *machine_summary_ = nullptr;
};

} // namespace headroom::ui
