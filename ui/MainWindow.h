#pragma once

#include <QMainWindow>

class QAction;
class QLabel;
class QStackedWidget;

namespace headroom::ui {

class EmptyProjectView;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);

    // The status bar text describing the detected device ("CPU · 2 cores · 23.4 GiB").
    QString deviceLabelText() const;

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    void showAbout();

    QStackedWidget *central_ = nullptr;
    EmptyProjectView *empty_view_ = nullptr;
    QLabel *device_label_ = nullptr;
    QLabel *run_state_label_ = nullptr;

    QAction *new_action_ = nullptr;
    QAction *open_action_ = nullptr;
    QAction *quit_action_ = nullptr;
    QAction *start_action_ = nullptr;
    QAction *pause_action_ = nullptr;
    QAction *stop_action_ = nullptr;
    QAction *about_action_ = nullptr;
};

} // namespace headroom::ui
