#pragma once

#include "look/AppSettings.h"
#include "main_window/WindowParts.h"

#include <QMainWindow>

#include <functional>

class QDockWidget;
class QLabel;
class QStackedWidget;

namespace headroom::ui {

class ConfigWizard;
class ElidedLabel;
class EmptyProjectView;
class GgufExportControls;
class LocalRanksControls;
class PretrainedControls;
class RunControls;
class RunExports;
class RunWatcher;
class SessionController;
class WindowMenus;

// The main window: lays out the views, the Project dock and the status bar, and owns the
// parts that do the work behind the menus: WindowMenus (the window's own actions, the menus,
// the tool bar), RunControls (the run on show), RunExports (the selected run's exports and
// evaluation), PretrainedControls (Hugging Face exports, the base model) and
// LocalRanksControls (runs on several processes). The parts report by signals; the window
// decides what is available (updateActions) and answers what spans parts.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // settings_path: an INI file for the remembered state (tests); empty = the user's settings.
    explicit MainWindow(QWidget *parent = nullptr, const QString &settings_path = {});
    ~MainWindow() override;

    // The status bar text describing the detected device ("CPU · 2 cores · 23.4 GiB").
    QString deviceLabelText() const;
    QString runStateText() const;

    // Shows the project; returns why it cannot be opened, or an empty string.
    QString openProject(const QString &path);
    // openProject, telling the user in a message box when it fails.
    bool openProjectInteractively(const QString &path);
    QString projectPath() const;
    // Copies the project (file and checkpoint folder) to path and opens the copy.
    QString saveProjectAs(const QString &path);

    // Run control; startRun returns why it cannot start, or an empty string.
    QString startRun(bool continue_last = false);
    void pauseRun();
    void resumeRun();
    // Run > Start on Several Processes: `ranks` headroom-cli processes train the project
    // together; the window follows them. Empty on success, else why not.
    QString startLocalRanks(int ranks);
    void stopRun();

    // Exports of the selected run (or the latest one); return an error text or empty.
    QString exportMetrics(const QString &csv_path);
    QString exportWeights(const QString &safetensors_path);
    // Measures the selected run's result (its best checkpoint with early stopping) on a data
    // file with the training data's layout, in the background; evaluationFinished reports.
    // Returns why it cannot start, or an empty string.
    QString evaluateOnFile(const QString &data_path);
    // A pretrained project's selected run as a Hugging Face folder, or its LoRA adapters in
    // PEFT layout, written in the background into a new or empty folder; exportFinished
    // reports. Return why the export cannot start, or an empty string. max_shard_size: the
    // largest weight file as the shard size dialog takes it ("5GB", "500MB", bytes); empty:
    // the size used last (settings::kHfMaxShardSize).
    QString exportHfFolder(const QString &folder, const QString &max_shard_size = {});
    QString exportLoraAdapter(const QString &folder);
    // A language model's selected run (a pretrained project without runs: its base) as one GGUF
    // file, quant as `headroom-cli export --quant` takes it; exportFinished reports.
    QString exportGguf(const QString &file, const QString &quant = QStringLiteral("q8_0"),
                       bool ollama_modelfile = false);
    // Points the project at its base model's new folder (model.base, relative to the project
    // where it can be), after checking that the folder holds a model. Returns an error text.
    QString setBaseModelFolder(const QString &folder);
    // Asks for the base model's folder (the chooser below), sets it and then runs `retry`.
    void locateBaseModel(const std::function<void()> &retry = {});

Q_SIGNALS:
    // `summary` holds the figures ("Run 2 (best checkpoint, step 140) on test.csv: 200
    // examples · accuracy 96.5 % · loss 0.1021"); `error` is empty unless it failed.
    void evaluationFinished(const QString &summary, const QString &error);
    // An export to a folder ended; `error` is empty unless it failed.
    void exportFinished(const QString &summary, const QString &error);

public:
    // Replaces the "stop the run and quit?" question (tests answer it).
    void setStopConfirmation(std::function<bool()> confirm) { confirm_stop_ = std::move(confirm); }
    // Replace the dialogs of Locate Base Model… (tests): the question after an action failed
    // because the base moved (true: locate it), and the folder picker (empty: cancelled).
    void setLocateQuestion(std::function<bool(const QString &error)> ask);
    void setBaseFolderChooser(std::function<QString()> choose);
    // Show the new-project wizard (it deletes itself when closed): as it starts (a pretrained
    // model), optionally with a data file filled in; with a pretrained model's folder chosen
    // (empty: to be chosen); or with a GPT from scratch. A project it creates opens, and its
    // model folder joins the recent ones.
    ConfigWizard *showNewProjectDialog(const QString &data_path = {});
    ConfigWizard *showPretrainedProjectDialog(const QString &base_folder);
    ConfigWizard *showScratchProjectDialog();
    EmptyProjectView *emptyProjectView() const { return empty_view_; }

    SessionController *sessionController() const;
    RunWatcher *runWatcher() const;
    LiveView *liveView() const { return views_.live; }
    LogView *logView() const { return views_.log; }
    CompareView *compareView() const { return views_.compare; }
    PlanView *planView() const { return views_.plan; }
    ProfileView *profileView() const { return views_.profile; }
    RunsPanel *runsPanel() const { return views_.runs; }
    TryView *tryView() const { return views_.try_view; }
    QTabWidget *tabs() const { return views_.tabs; }
    AppSettings &settings() { return settings_; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createParts();
    void createStatusBar();
    void updateActions();
    void showStatus(const QString &text);
    void chooseProjectToOpen();
    void chooseSaveAsPath();
    ConfigWizard *openWizard();
    // Why no run can start now (no project, a run or a profile going), or empty.
    QString whyNoRunCanStart() const;

    AppSettings settings_;
    WindowViews views_;
    QStackedWidget *central_ = nullptr;
    EmptyProjectView *empty_view_ = nullptr;
    QDockWidget *runs_dock_ = nullptr;
    ElidedLabel *device_label_ = nullptr;
    ElidedLabel *run_state_label_ = nullptr;

    RunControls *run_ = nullptr;
    RunExports *exports_ = nullptr;
    LocalRanksControls *ranks_ = nullptr;
    PretrainedControls *pretrained_ = nullptr;
    GgufExportControls *gguf_ = nullptr;
    WindowMenus *menus_ = nullptr;

    std::function<bool()> confirm_stop_;
};

} // namespace headroom::ui
