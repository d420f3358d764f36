#pragma once

#include "main_window/WindowParts.h"

#include <QObject>

#include <cstdint>
#include <functional>

class QAction;

namespace headroom::ui {

class AppSettings;
class BackgroundJob;

// What a project that starts from a pretrained model adds to the window: exports as a Hugging
// Face folder or a PEFT adapter (File > Export), and pointing the project at its moved base
// model (Project > Locate Base Model…, also offered when a run, an export or Try finds it gone).
class PretrainedControls : public QObject {
    Q_OBJECT

public:
    // run_writing: whether a run writes to the project now (its base must not change then).
    PretrainedControls(const WindowViews &views, AppSettings &settings,
                       std::function<bool()> run_writing, QObject *parent);

    QAction *exportHfAction() const { return export_hf_action_; }
    QAction *exportAdapterAction() const { return export_adapter_action_; }
    QAction *locateBaseAction() const { return locate_base_action_; }
    // Enables the actions and says in their tooltips why one is not available.
    void updateActions(bool has_project, bool active);

    // As MainWindow's functions of the same names.
    QString exportHfFolder(const QString &folder, const QString &max_shard_size);
    QString exportLoraAdapter(const QString &folder);
    QString setBaseModelFolder(const QString &folder);
    void locateBaseModel(const std::function<void()> &retry = {});
    // After an action failed because the base model moved: offers Locate Base Model… and
    // runs `retry` once the project points at the folder.
    void offerLocateBase(const QString &error, const std::function<void()> &retry);

    void setLocateQuestion(std::function<bool(const QString &error)> ask) {
        ask_locate_ = std::move(ask);
    }
    void setBaseFolderChooser(std::function<QString()> choose) {
        choose_base_folder_ = std::move(choose);
    }

Q_SIGNALS:
    void exportFinished(const QString &summary, const QString &error);
    // The project points at another base folder: its runs are worth reading again.
    void baseModelChanged();
    void statusText(const QString &text);
    void actionsChanged();

private:
    QString projectPath() const;
    void chooseFolderExport(bool adapter);
    QString startFolderExport(bool adapter, const QString &folder, std::uint64_t max_shard_bytes,
                              bool offer_locate = true);

    WindowViews views_;
    AppSettings &settings_;
    std::function<bool()> run_writing_;
    QAction *export_hf_action_ = nullptr;
    QAction *export_adapter_action_ = nullptr;
    QAction *locate_base_action_ = nullptr;
    BackgroundJob *export_job_ = nullptr;
    bool export_from_menu_ = false;     // the running export answers in a dialog
    bool export_offers_locate_ = false; // the export that ended offers Locate Base Model…
    std::function<bool(const QString &)> ask_locate_;
    std::function<QString()> choose_base_folder_;
};

} // namespace headroom::ui
