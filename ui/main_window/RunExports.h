#pragma once

#include "main_window/WindowParts.h"

#include <QObject>

class QAction;

namespace headroom::ui {

class BackgroundJob;

// What the window makes of the selected run (or the latest one): its metrics as CSV, its
// weights as safetensors (File > Export), and its result measured on a data file
// (Run > Evaluate on a File…, in the background).
class RunExports : public QObject {
    Q_OBJECT

public:
    RunExports(const WindowViews &views, QObject *parent);

    QAction *exportMetricsAction() const { return export_metrics_action_; }
    QAction *exportWeightsAction() const { return export_weights_action_; }
    QAction *evaluateAction() const { return evaluate_action_; }
    void updateActions(bool has_project, bool has_runs, bool active);

    // As MainWindow's functions of the same names.
    QString exportMetrics(const QString &csv_path);
    QString exportWeights(const QString &safetensors_path);
    QString evaluateOnFile(const QString &data_path);

Q_SIGNALS:
    void evaluationFinished(const QString &summary, const QString &error);
    void statusText(const QString &text);
    void actionsChanged();

private:
    QString projectPath() const;
    void chooseMetricsExportPath();
    void chooseWeightsExportPath();
    void chooseEvaluationFile();

    WindowViews views_;
    QAction *export_metrics_action_ = nullptr;
    QAction *export_weights_action_ = nullptr;
    QAction *evaluate_action_ = nullptr;
    BackgroundJob *evaluation_job_ = nullptr;
    bool evaluation_from_menu_ = false; // the running evaluation answers in a dialog
};

} // namespace headroom::ui
