#pragma once

#include "main_window/WindowParts.h"

#include <QObject>

#include <cstdint>

class QAction;

namespace headroom::ui {

class BackgroundJob;

// File > Export > Export for llama.cpp / Ollama (GGUF)…: a language model's run (LoRA merged; a
// pretrained project without runs: its base) as one GGUF file, quantized as chosen in
// GgufExportDialog, written in the background.
class GgufExportControls : public QObject {
    Q_OBJECT

public:
    GgufExportControls(const WindowViews &views, QObject *parent);

    QAction *exportAction() const { return action_; }
    // Enables the action and says in its tooltip why it is not available.
    void updateActions(bool has_project, bool active);
    // Starts writing the run exports take (or the base) to file; an error says why it cannot.
    QString exportGguf(const QString &file, const QString &quant, bool ollama_modelfile);
    bool isExporting() const;

Q_SIGNALS:
    void exportFinished(const QString &summary, const QString &error);
    void statusText(const QString &text);
    void actionsChanged();

private:
    QString projectPath() const;
    // The run to write: the selected or latest run; -1 (the base) for a pretrained project
    // without runs; 0 when there is nothing to write.
    std::int64_t runToExport() const;
    void chooseExport();

    WindowViews views_;
    QAction *action_ = nullptr;
    BackgroundJob *job_ = nullptr;
    bool from_menu_ = false; // the running export answers in a dialog
};

} // namespace headroom::ui
