#include "main_window/RunExports.h"

#include "look/Theme.h"
#include "views/RunsPanel.h"
#include "wizard/BackgroundJob.h"

#include <headroom/workflow.h>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include <cmath>
#include <memory>
#include <utility>

namespace headroom::ui {

namespace {

QString evaluationSummary(const EvaluationReport &report, const QString &data_path) {
    QStringList figures{MainWindowText::tr("%n examples", nullptr, int(report.metrics.examples))};
    if (std::isfinite(report.metrics.accuracy)) {
        figures
            << MainWindowText::tr("accuracy %1 %").arg(100.0 * report.metrics.accuracy, 0, 'f', 2);
    }
    if (std::isfinite(report.metrics.rmse)) {
        figures << MainWindowText::tr("RMSE %1").arg(report.metrics.rmse, 0, 'g', 5);
    }
    if (std::isfinite(report.metrics.r2)) {
        figures << MainWindowText::tr("R² %1").arg(report.metrics.r2, 0, 'f', 4);
    }
    figures << MainWindowText::tr("loss %1").arg(report.metrics.loss, 0, 'f', 4);
    const QString checkpoint =
        report.latest ? MainWindowText::tr("latest checkpoint, step %1").arg(report.step)
                      : MainWindowText::tr("best checkpoint, step %1").arg(report.step);
    return MainWindowText::tr("Run %1 (%2) on %3: %4")
        .arg(report.run_id)
        .arg(checkpoint, QFileInfo(data_path).fileName(), figures.join(QStringLiteral(" · ")));
}

} // namespace

RunExports::RunExports(const WindowViews &views, QObject *parent) : QObject(parent), views_(views) {
    evaluation_job_ = new BackgroundJob(this);

    export_metrics_action_ =
        new QAction(MainWindowText::tr("Export &Metrics (CSV)…"), views_.window);
    export_metrics_action_->setStatusTip(
        MainWindowText::tr("Write the selected run's metrics as CSV"));
    connect(export_metrics_action_, &QAction::triggered, this,
            &RunExports::chooseMetricsExportPath);
    export_weights_action_ = new QAction(MainWindowText::tr("Export &Weights…"), views_.window);
    export_weights_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    export_weights_action_->setStatusTip(
        MainWindowText::tr("Write the selected run's latest checkpoint as safetensors"));
    export_weights_action_->setIcon(actionIcon(QStringLiteral("document-export")));
    connect(export_weights_action_, &QAction::triggered, this,
            &RunExports::chooseWeightsExportPath);

    evaluate_action_ = new QAction(MainWindowText::tr("&Evaluate on a File…"), views_.window);
    evaluate_action_->setStatusTip(MainWindowText::tr(
        "Measure the selected run's result on a held-out file with the training data's "
        "columns"));
    connect(evaluate_action_, &QAction::triggered, this, &RunExports::chooseEvaluationFile);
    connect(this, &RunExports::evaluationFinished, this,
            [this](const QString &summary, const QString &error) {
                Q_EMIT actionsChanged();
                if (error.isEmpty()) {
                    Q_EMIT statusText(summary);
                }
                // Only an evaluation the user started from the menu answers in a dialog.
                if (!std::exchange(evaluation_from_menu_, false)) {
                    return;
                }
                if (!error.isEmpty()) {
                    QMessageBox::warning(views_.window, MainWindowText::tr("Evaluate on a File"),
                                         error);
                } else {
                    QMessageBox::information(views_.window,
                                             MainWindowText::tr("Evaluate on a File"), summary);
                }
            });
}

void RunExports::updateActions(bool has_project, bool has_runs, bool active) {
    export_metrics_action_->setEnabled(has_project && has_runs);
    export_weights_action_->setEnabled(has_project && has_runs && !active);
    evaluate_action_->setEnabled(has_project && has_runs && !evaluation_job_->isRunning());
}

QString RunExports::projectPath() const {
    return views_.runs->projectPath();
}

void RunExports::chooseMetricsExportPath() {
    const QString path = QFileDialog::getSaveFileName(
        views_.window, MainWindowText::tr("Export Metrics"),
        QFileInfo(projectPath())
            .dir()
            .filePath(QStringLiteral("run-%1.csv").arg(exportRunId(*views_.runs))),
        MainWindowText::tr("CSV files (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    const QString error = exportMetrics(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(views_.window, MainWindowText::tr("Export Metrics"), error);
    }
}

void RunExports::chooseWeightsExportPath() {
    const QString path = QFileDialog::getSaveFileName(
        views_.window, MainWindowText::tr("Export Weights"),
        QFileInfo(projectPath())
            .dir()
            .filePath(QStringLiteral("run-%1.safetensors").arg(exportRunId(*views_.runs))),
        MainWindowText::tr("safetensors files (*.safetensors)"));
    if (path.isEmpty()) {
        return;
    }
    const QString error = exportWeights(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(views_.window, MainWindowText::tr("Export Weights"), error);
    }
}

void RunExports::chooseEvaluationFile() {
    const QString path = QFileDialog::getOpenFileName(
        views_.window, MainWindowText::tr("Evaluate on a File"),
        QFileInfo(projectPath()).dir().path(),
        MainWindowText::tr("Data files (*.csv *.txt *.jsonl *.ndjson);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    const QString error = evaluateOnFile(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(views_.window, MainWindowText::tr("Evaluate on a File"), error);
        return;
    }
    evaluation_from_menu_ = true;
}

QString RunExports::exportMetrics(const QString &csv_path) {
    const std::int64_t run_id = exportRunId(*views_.runs);
    if (run_id == 0) {
        return MainWindowText::tr("This project has no runs yet.");
    }
    try {
        const std::int64_t rows =
            exportMetricsCsv(projectPath().toStdString(), run_id, csv_path.toStdString());
        Q_EMIT statusText(MainWindowText::tr("Wrote %1 rows of run %2 to %3")
                              .arg(rows)
                              .arg(run_id)
                              .arg(csv_path));
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    return {};
}

QString RunExports::exportWeights(const QString &safetensors_path) {
    const std::int64_t run_id = exportRunId(*views_.runs);
    if (run_id == 0) {
        return MainWindowText::tr("This project has no runs yet.");
    }
    try {
        const std::int64_t step = headroom::exportWeights(projectPath().toStdString(), run_id,
                                                          safetensors_path.toStdString());
        Q_EMIT statusText(MainWindowText::tr("Wrote the weights of run %1 at step %2 to %3")
                              .arg(run_id)
                              .arg(step)
                              .arg(safetensors_path));
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    return {};
}

QString RunExports::evaluateOnFile(const QString &data_path) {
    const std::int64_t run_id = exportRunId(*views_.runs);
    if (run_id == 0) {
        return MainWindowText::tr("This project has no runs yet.");
    }
    if (evaluation_job_->isRunning()) {
        return MainWindowText::tr("An evaluation is already running.");
    }
    const std::string project = projectPath().toStdString();
    const std::string data = data_path.toStdString();
    auto report = std::make_shared<EvaluationReport>();
    auto error = std::make_shared<QString>();
    Q_EMIT statusText(MainWindowText::tr("Evaluating run %1 on %2…").arg(run_id).arg(data_path));
    evaluation_job_->start(
        [project, run_id, data, report, error] {
            try {
                *report = headroom::evaluateRun(project, run_id, data);
            } catch (const std::exception &failure) {
                *error = QString::fromUtf8(failure.what());
            }
        },
        [this, report, error, data_path] {
            Q_EMIT evaluationFinished(
                error->isEmpty() ? evaluationSummary(*report, data_path) : QString(), *error);
        });
    Q_EMIT actionsChanged();
    return {};
}

} // namespace headroom::ui
