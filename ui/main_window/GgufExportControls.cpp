#include "main_window/GgufExportControls.h"

#include "look/DisplayText.h"
#include "main_window/GgufExportDialog.h"
#include "views/PlanView.h"
#include "views/RunsPanel.h"
#include "wizard/BackgroundJob.h"

#include <headroom/config.h>
#include <headroom/gguf_export.h>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include <memory>
#include <utility>

namespace headroom::ui {

GgufExportControls::GgufExportControls(const WindowViews &views, QObject *parent)
    : QObject(parent), views_(views) {
    job_ = new BackgroundJob(this);
    action_ =
        new QAction(MainWindowText::tr("Export for llama.cpp / &Ollama (GGUF)…"), views_.window);
    action_->setObjectName(QStringLiteral("exportGgufAction"));
    connect(action_, &QAction::triggered, this, &GgufExportControls::chooseExport);
}

QString GgufExportControls::projectPath() const {
    return views_.runs->projectPath();
}

bool GgufExportControls::isExporting() const {
    return job_->isRunning();
}

std::int64_t GgufExportControls::runToExport() const {
    const std::int64_t run_id = exportRunId(*views_.runs);
    if (run_id != 0) {
        return run_id;
    }
    return views_.plan->config().text("model.base").empty() ? 0 : -1;
}

void GgufExportControls::updateActions(bool has_project, bool active) {
    QString reason;
    if (!has_project) {
        reason = MainWindowText::tr("Open a language model's project to export it as GGUF.");
    } else if (!views_.plan->config().isLanguageModel()) {
        reason = MainWindowText::tr("Only language models run in llama.cpp and Ollama; this "
                                    "project trains a %1 model.")
                     .arg(QString::fromStdString(views_.plan->config().text("recipe")));
    } else if (runToExport() == 0) {
        reason = MainWindowText::tr("This project has no runs yet.");
    }
    // Not while this window trains: the run being written has no result to export yet.
    action_->setEnabled(reason.isEmpty() && !active && !job_->isRunning());
    const std::int64_t run_id = runToExport();
    action_->setToolTip(
        !reason.isEmpty() ? reason
        : run_id < 0
            ? MainWindowText::tr("Write the base model as one GGUF file for llama.cpp, Ollama "
                                 "and LM Studio")
            : MainWindowText::tr("Write run %1 as one GGUF file for llama.cpp, Ollama and LM "
                                 "Studio (LoRA adapters merged)")
                  .arg(run_id));
    action_->setStatusTip(action_->toolTip());
}

void GgufExportControls::chooseExport() {
    const std::int64_t run_id = runToExport();
    GgufExportDialog dialog(projectPath(), run_id, views_.window);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    const QFileInfo project(projectPath());
    const QString proposal = project.dir().filePath(
        QStringLiteral("%1-%2-%3.gguf")
            .arg(project.completeBaseName(),
                 run_id < 0 ? QStringLiteral("base") : QStringLiteral("run-%1").arg(run_id),
                 dialog.quant()));
    const QString file = QFileDialog::getSaveFileName(
        views_.window, MainWindowText::tr("Export for llama.cpp / Ollama (GGUF)"), proposal,
        MainWindowText::tr("GGUF files (*.gguf)"));
    if (file.isEmpty()) {
        return;
    }
    const QString error = exportGguf(file, dialog.quant(), dialog.ollamaModelfile());
    if (!error.isEmpty()) {
        QMessageBox::warning(views_.window, MainWindowText::tr("Export"), error);
        return;
    }
    from_menu_ = true;
}

QString GgufExportControls::exportGguf(const QString &file, const QString &quant,
                                       bool ollama_modelfile) {
    const std::int64_t run_id = runToExport();
    if (run_id == 0) {
        return MainWindowText::tr("This project has no runs yet.");
    }
    if (job_->isRunning()) {
        return MainWindowText::tr("An export is already running.");
    }
    GgufExportRequest request;
    request.project_path = projectPath().toStdString();
    request.run_id = run_id;
    request.gguf_path = file.toStdString();
    request.quant = quant.toStdString();
    request.ollama_modelfile = ollama_modelfile;
    auto written = std::make_shared<GgufExport>();
    auto error = std::make_shared<QString>();
    const QString where = QDir::toNativeSeparators(file);
    Q_EMIT statusText(run_id < 0 ? MainWindowText::tr("Exporting the base model as GGUF (%1) to "
                                                      "%2…")
                                       .arg(quant, where)
                                 : MainWindowText::tr("Exporting run %1 as GGUF (%2) to %3…")
                                       .arg(run_id)
                                       .arg(quant, where));
    job_->start(
        [request, written, error] {
            try {
                *written = headroom::exportGguf(request);
            } catch (const std::exception &failure) {
                *error = QString::fromUtf8(failure.what());
            }
        },
        [this, run_id, where, written, error] {
            QString summary;
            if (error->isEmpty()) {
                summary = (run_id < 0 ? MainWindowText::tr("Wrote the base model to %1").arg(where)
                                      : MainWindowText::tr("Wrote run %1 at step %2 to %3")
                                            .arg(run_id)
                                            .arg(written->step)
                                            .arg(where)) +
                          MainWindowText::tr(" (GGUF, %1, %2, %3)")
                              .arg(QString::fromStdString(written->architecture),
                                   QString::fromStdString(written->quant),
                                   DisplayText::bytes(written->file_bytes));
                if (!written->modelfile_path.empty()) {
                    summary += MainWindowText::tr("; Ollama: ollama create NAME -f %1")
                                   .arg(QDir::toNativeSeparators(
                                       QString::fromStdString(written->modelfile_path)));
                }
            }
            Q_EMIT actionsChanged();
            const bool from_menu = std::exchange(from_menu_, false);
            Q_EMIT statusText(error->isEmpty() ? summary : *error);
            if (from_menu && !error->isEmpty()) {
                QMessageBox::warning(views_.window, MainWindowText::tr("Export"), *error);
            }
            Q_EMIT exportFinished(summary, *error);
        });
    Q_EMIT actionsChanged();
    return {};
}

} // namespace headroom::ui
