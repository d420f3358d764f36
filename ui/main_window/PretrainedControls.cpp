#include "main_window/PretrainedControls.h"

#include "look/AppSettings.h"
#include "main_window/ShardSizeDialog.h"
#include "views/PlanView.h"
#include "views/RunsPanel.h"
#include "views/TryView.h"
#include "wizard/BackgroundJob.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>
#include <headroom/workflow.h>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

#include <memory>
#include <optional>
#include <utility>

namespace headroom::ui {

namespace {

// model.base as createProject stores it: relative to the project's folder when inside it.
QString storedFolder(const QString &folder, const QString &project_path) {
    const QDir project_dir = QFileInfo(project_path).absoluteDir();
    const QString absolute = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    const QString relative = project_dir.relativeFilePath(absolute);
    return relative.startsWith(QLatin1String("..")) || QDir::isAbsolutePath(relative) ? absolute
                                                                                      : relative;
}

bool isLoraRun(const RunRecord &run) {
    try {
        return Config::fromJson(run.config_json).integer("lora.rank") > 0;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace

PretrainedControls::PretrainedControls(const WindowViews &views, AppSettings &settings,
                                       std::function<bool()> run_writing, QObject *parent)
    : QObject(parent), views_(views), settings_(settings), run_writing_(std::move(run_writing)) {
    export_job_ = new BackgroundJob(this);
    export_hf_action_ =
        new QAction(MainWindowText::tr("Export as &Hugging Face Folder…"), views_.window);
    export_hf_action_->setObjectName(QStringLiteral("exportHfAction"));
    connect(export_hf_action_, &QAction::triggered, this, [this] { chooseFolderExport(false); });
    export_adapter_action_ =
        new QAction(MainWindowText::tr("Export LoRA &Adapter (PEFT)…"), views_.window);
    export_adapter_action_->setObjectName(QStringLiteral("exportAdapterAction"));
    connect(export_adapter_action_, &QAction::triggered, this,
            [this] { chooseFolderExport(true); });
    locate_base_action_ = new QAction(MainWindowText::tr("&Locate Base Model…"), views_.window);
    locate_base_action_->setObjectName(QStringLiteral("locateBaseAction"));
    locate_base_action_->setStatusTip(
        MainWindowText::tr("Point the project at the folder its pretrained base model moved to"));
    connect(locate_base_action_, &QAction::triggered, this, [this] { locateBaseModel(); });
    connect(views_.try_view, &TryView::locateBaseRequested, this,
            [this] { locateBaseModel([this] { views_.try_view->generate(); }); });

    ask_locate_ = [this](const QString &error) {
        QMessageBox box(
            QMessageBox::Warning, MainWindowText::tr("Base model not found"),
            MainWindowText::tr("The pretrained model this project starts from is not where it was, "
                               "or its files changed."),
            QMessageBox::Cancel, views_.window);
        box.setInformativeText(error);
        QPushButton *locate =
            box.addButton(MainWindowText::tr("&Locate Base Model…"), QMessageBox::AcceptRole);
        box.setDefaultButton(locate);
        box.exec();
        return box.clickedButton() == locate;
    };
    choose_base_folder_ = [this] {
        return QFileDialog::getExistingDirectory(views_.window,
                                                 MainWindowText::tr("Locate Base Model"),
                                                 QFileInfo(projectPath()).absolutePath());
    };
    connect(this, &PretrainedControls::exportFinished, this,
            [this](const QString &summary, const QString &error) {
                Q_EMIT actionsChanged();
                const bool from_menu = std::exchange(export_from_menu_, false);
                if (error.isEmpty()) {
                    Q_EMIT statusText(summary);
                } else {
                    Q_EMIT statusText(error);
                    if (from_menu && !export_offers_locate_) {
                        QMessageBox::warning(views_.window, MainWindowText::tr("Export"), error);
                    }
                }
            });
}

void PretrainedControls::updateActions(bool has_project, bool active) {
    const bool pretrained = has_project && !views_.plan->config().text("model.base").empty();
    const std::int64_t run_id = exportRunId(*views_.runs);
    const RunRecord *run = nullptr;
    for (const RunRecord &record : views_.runs->runs()) {
        if (record.id == run_id) {
            run = &record;
        }
    }
    const bool exporting = export_job_->isRunning();
    const QString no_base =
        MainWindowText::tr("Only a project that starts from a pretrained model (model.base) "
                           "exports in Hugging Face layout.");
    const QString no_run = MainWindowText::tr("This project has no runs yet.");
    // A GPT trained from scratch exports as GPT-2 (the engine refuses MoE blocks and says why).
    const bool scratch_gpt =
        has_project && !pretrained && views_.plan->config().text("recipe") == "gpt";
    QString hf_reason;
    if (!has_project) {
        hf_reason = no_base;
    } else if (!pretrained && !scratch_gpt) {
        hf_reason = MainWindowText::tr(
            "A tabular project has no Hugging Face layout: export its weights as "
            "safetensors instead.");
    } else if (!run) {
        hf_reason = no_run;
    }
    QString adapter_reason = pretrained ? hf_reason : no_base;
    if (adapter_reason.isEmpty() && !isLoraRun(*run)) {
        adapter_reason =
            MainWindowText::tr("Run %1 trained every weight, not LoRA adapters (lora.rank is 0): "
                               "export it as a Hugging Face folder.")
                .arg(run_id);
    }
    // Not while this window trains: the run being written has no result to export yet.
    export_hf_action_->setEnabled(hf_reason.isEmpty() && !exporting && !active);
    export_hf_action_->setToolTip(
        hf_reason.isEmpty()
            ? MainWindowText::tr(
                  "Write run %1 as a model folder that Hugging Face Transformers loads")
                  .arg(run_id)
            : hf_reason);
    export_hf_action_->setStatusTip(export_hf_action_->toolTip());
    export_adapter_action_->setEnabled(adapter_reason.isEmpty() && !exporting && !active);
    export_adapter_action_->setToolTip(
        adapter_reason.isEmpty()
            ? MainWindowText::tr("Write the LoRA adapters of run %1 for PEFT (adapter_config.json, "
                                 "adapter_model.safetensors)")
                  .arg(run_id)
            : adapter_reason);
    export_adapter_action_->setStatusTip(export_adapter_action_->toolTip());
    locate_base_action_->setEnabled(pretrained && !active);
    locate_base_action_->setToolTip(pretrained ? locate_base_action_->statusTip() : no_base);
}

void PretrainedControls::chooseFolderExport(bool adapter) {
    // The export creates the folder: a save dialog takes the new name (a folder picker would
    // only take folders that exist).
    const QFileInfo project(projectPath());
    const QString proposal = project.dir().filePath(
        QStringLiteral("%1-run-%2-%3")
            .arg(project.completeBaseName())
            .arg(exportRunId(*views_.runs))
            .arg(adapter ? QStringLiteral("adapter") : QStringLiteral("hf")));
    const QString folder = QFileDialog::getSaveFileName(
        views_.window,
        adapter ? MainWindowText::tr("Export LoRA Adapter to a New Folder")
                : MainWindowText::tr("Export as Hugging Face Folder to a New Folder"),
        proposal, QString(), nullptr, QFileDialog::DontConfirmOverwrite);
    if (folder.isEmpty()) {
        return;
    }
    std::uint64_t max_shard_bytes = kDefaultMaxShardBytes;
    if (!adapter) {
        ShardSizeDialog sizes(settings_, views_.window);
        if (sizes.exec() != QDialog::Accepted) {
            return;
        }
        max_shard_bytes = sizes.bytes();
    }
    const QString error = startFolderExport(adapter, folder, max_shard_bytes);
    if (!error.isEmpty()) {
        QMessageBox::warning(views_.window, MainWindowText::tr("Export"), error);
        return;
    }
    export_from_menu_ = true;
}

QString PretrainedControls::exportHfFolder(const QString &folder, const QString &max_shard_size) {
    QString error;
    const std::optional<std::uint64_t> bytes = ShardSizeDialog::parse(
        max_shard_size.isEmpty() ? settings_.get(settings::kHfMaxShardSize) : max_shard_size,
        &error);
    return bytes ? startFolderExport(false, folder, *bytes) : error;
}

QString PretrainedControls::exportLoraAdapter(const QString &folder) {
    return startFolderExport(true, folder, kDefaultMaxShardBytes);
}

QString PretrainedControls::startFolderExport(bool adapter, const QString &folder,
                                              std::uint64_t max_shard_bytes, bool offer_locate) {
    const std::int64_t run_id = exportRunId(*views_.runs);
    if (run_id == 0) {
        return MainWindowText::tr("This project has no runs yet.");
    }
    if (export_job_->isRunning()) {
        return MainWindowText::tr("An export is already running.");
    }
    const std::string project = projectPath().toStdString();
    const std::string target = folder.toStdString();
    auto step = std::make_shared<std::int64_t>(0);
    auto base_format = std::make_shared<std::string>("fp32");
    auto error = std::make_shared<QString>();
    Q_EMIT statusText(adapter
                          ? MainWindowText::tr("Exporting the LoRA adapters of run %1 to %2…")
                                .arg(run_id)
                                .arg(QDir::toNativeSeparators(folder))
                          : MainWindowText::tr("Exporting run %1 as a Hugging Face folder to %2…")
                                .arg(run_id)
                                .arg(QDir::toNativeSeparators(folder)));
    export_job_->start(
        [adapter, project, run_id, target, max_shard_bytes, step, base_format, error] {
            try {
                if (adapter) {
                    *step = headroom::exportPeftAdapter(project, run_id, target);
                } else {
                    const headroom::HfExport written =
                        headroom::exportHfFolder(project, run_id, target, max_shard_bytes);
                    *step = written.step;
                    *base_format = written.base_format;
                }
            } catch (const std::exception &failure) {
                *error = QString::fromUtf8(failure.what());
            }
        },
        [this, adapter, run_id, folder, max_shard_bytes, step, base_format, error, offer_locate] {
            // Locate is offered once per export: the retry does not ask again.
            export_offers_locate_ = offer_locate && isBaseModelProblem(*error);
            if (export_offers_locate_) {
                QTimer::singleShot(
                    0, this, [this, adapter, folder, max_shard_bytes, message = *error] {
                        offerLocateBase(message, [this, adapter, folder, max_shard_bytes] {
                            const QString again =
                                startFolderExport(adapter, folder, max_shard_bytes, false);
                            if (!again.isEmpty()) {
                                Q_EMIT statusText(again);
                            }
                        });
                    });
            }
            const QString where = QDir::toNativeSeparators(folder);
            QString summary =
                adapter
                    ? MainWindowText::tr("Wrote the LoRA adapters of run %1 at step %2 to %3")
                          .arg(run_id)
                          .arg(*step)
                          .arg(where)
                    : MainWindowText::tr("Wrote run %1 at step %2 as a Hugging Face folder to %3")
                          .arg(run_id)
                          .arg(*step)
                          .arg(where);
            if (!adapter && *base_format != "fp32") {
                summary += MainWindowText::tr(
                               " (the run held its base as %1: the folder has it dequantized, "
                               "the adapters merged in)")
                               .arg(QString::fromStdString(*base_format));
            }
            Q_EMIT exportFinished(error->isEmpty() ? summary : QString(), *error);
        });
    Q_EMIT actionsChanged();
    return {};
}

QString PretrainedControls::setBaseModelFolder(const QString &folder) {
    if (projectPath().isEmpty()) {
        return MainWindowText::tr("no project is open");
    }
    if (run_writing_()) {
        return MainWindowText::tr("a run is training this project; wait until it ends");
    }
    const QString stored = storedFolder(folder, projectPath());
    try {
        inspectPretrained(QFileInfo(folder).absoluteFilePath().toStdString());
        Project project = Project::open(projectPath().toStdString());
        Config config = Config::fromJson(project.configJson());
        config.set("model.base", stored.toStdString());
        project.setConfigJson(config.toJson(2));
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    views_.plan->load(projectPath());
    Q_EMIT baseModelChanged();
    Q_EMIT statusText(MainWindowText::tr("The project's base model is now %1")
                          .arg(QDir::toNativeSeparators(stored)));
    return {};
}

void PretrainedControls::locateBaseModel(const std::function<void()> &retry) {
    const QString folder = choose_base_folder_();
    if (folder.isEmpty()) {
        return;
    }
    const QString error = setBaseModelFolder(folder);
    if (!error.isEmpty()) {
        Q_EMIT statusText(error);
        // Not modal to the caller: the action that failed has ended already.
        auto *box = new QMessageBox(QMessageBox::Warning, MainWindowText::tr("Locate Base Model"),
                                    error, QMessageBox::Ok, views_.window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    if (retry) {
        retry();
    }
}

QString PretrainedControls::projectPath() const {
    return views_.runs->projectPath();
}

void PretrainedControls::offerLocateBase(const QString &error, const std::function<void()> &retry) {
    if (ask_locate_(error)) {
        locateBaseModel(retry);
    }
}

} // namespace headroom::ui
