#pragma once

#include <QDialog>

#include <cstdint>

class QCheckBox;
class QComboBox;
class QLabel;

namespace headroom::ui {

class BackgroundJob;

// Asked before a GGUF export's file is chosen: the quantization, each choice with the size the
// file will have (measured in the background from the run's weights, "…" until then), and
// whether an Ollama Modelfile is written beside the file. q8_0 is proposed.
class GgufExportDialog : public QDialog {
    Q_OBJECT

public:
    GgufExportDialog(const QString &project_path, std::int64_t run_id, QWidget *parent = nullptr);
    ~GgufExportDialog() override;

    QString quant() const;
    void setQuant(const QString &quant);
    bool ollamaModelfile() const;
    // Whether the sizes are known (or could not be measured: the reason is shown instead).
    bool sizesKnown() const { return sizes_known_; }
    // The text of the choice for quant, e.g. "q8_0 — 1.1 GiB".
    QString choiceText(const QString &quant) const;

Q_SIGNALS:
    void sizesMeasured();

private:
    QComboBox *quant_ = nullptr;
    QCheckBox *ollama_ = nullptr;
    QLabel *note_ = nullptr;
    BackgroundJob *job_ = nullptr;
    bool sizes_known_ = false;
};

} // namespace headroom::ui
