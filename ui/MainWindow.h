#pragma once

#include <QMainWindow>

class QAction;
class QLabel;
class QStackedWidget;

namespace headroom::ui {

class EmptyProjectView;
class ProjectView;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);

    // The status bar text describing the detected device ("CPU · 2 cores · 23.4 GiB").
    QString deviceLabelText() const;

    // Shows the project; returns why it cannot be opened, or an empty string.
    QString openProject(const QString &path);
    // openProject, telling the user in a message box when it fails.
    bool openProjectInteractively(const QString &path);
    QString projectPath() const;

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    void showAbout();
    void chooseProjectToOpen();

    QStackedWidget *central_ = nullptr;
    EmptyProjectView *empty_view_ = nullptr;
    ProjectView *project_view_ = nullptr;
    QLabel *device_label_ = nullptr;
    QLabel *run_state_label_ = nullptr;

    QAction *new_action_ = nullptr;
    QAction *open_action_ = nullptr;
    QAction *reload_action_ = nullptr;
    QAction *quit_action_ = nullptr;
    QAction *start_action_ = nullptr;
    QAction *pause_action_ = nullptr;
    QAction *stop_action_ = nullptr;
    QAction *about_action_ = nullptr;
};

} // namespace headroom::ui
