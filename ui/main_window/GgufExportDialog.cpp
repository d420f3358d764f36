#include "main_window/GgufExportDialog.h"

#include "look/DisplayText.h"
#include "main_window/WindowParts.h"
#include "wizard/BackgroundJob.h"

#include <headroom/gguf_export.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <memory>
#include <vector>

namespace headroom::ui {

namespace {

QString quantDescription(const QString &quant) {
    if (quant == QLatin1String("f32")) {
        return MainWindowText::tr("full precision, largest");
    }
    if (quant == QLatin1String("f16") || quant == QLatin1String("bf16")) {
        return MainWindowText::tr("half precision");
    }
    if (quant == QLatin1String("q8_0")) {
        return MainWindowText::tr("8 bits, nearly lossless");
    }
    if (quant == QLatin1String("q6_k") || quant == QLatin1String("q5_k_m")) {
        return MainWindowText::tr("good quality, smaller");
    }
    return MainWindowText::tr("smallest, some quality lost");
}

} // namespace

GgufExportDialog::GgufExportDialog(const QString &project_path, std::int64_t run_id,
                                   QWidget *parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("ggufExportDialog"));
    setWindowTitle(MainWindowText::tr("Export for llama.cpp / Ollama (GGUF)"));
    quant_ = new QComboBox(this);
    quant_->setObjectName(QStringLiteral("ggufQuant"));
    for (const std::string &name : ggufQuantNames()) {
        const QString quant = QString::fromStdString(name);
        quant_->addItem(QStringLiteral("%1 — %2 — …").arg(quant, quantDescription(quant)), quant);
    }
    setQuant(QStringLiteral("q8_0"));
    ollama_ =
        new QCheckBox(MainWindowText::tr("Also write an &Ollama Modelfile beside the file"), this);
    ollama_->setObjectName(QStringLiteral("ggufOllama"));
    note_ = new QLabel(MainWindowText::tr("Measuring the size of each choice…"), this);
    note_->setObjectName(QStringLiteral("ggufNote"));
    note_->setWordWrap(true);

    auto *form = new QFormLayout;
    auto *label = new QLabel(MainWindowText::tr("&Quantization:"), this);
    label->setBuddy(quant_);
    form->addRow(label, quant_);
    form->addRow(QString(), ollama_);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note_);
    layout->addWidget(buttons);

    job_ = new BackgroundJob(this);
    auto sizes = std::make_shared<std::vector<GgufSizeEstimate>>();
    auto error = std::make_shared<QString>();
    const std::string project = project_path.toStdString();
    job_->start(
        [project, run_id, sizes, error] {
            try {
                *sizes = estimateGgufSizes(project, run_id);
            } catch (const std::exception &failure) {
                *error = QString::fromUtf8(failure.what());
            }
        },
        [this, sizes, error] {
            for (const GgufSizeEstimate &size : *sizes) {
                const QString quant = QString::fromStdString(size.quant);
                const int index = quant_->findData(quant);
                if (index >= 0) {
                    quant_->setItemText(index, QStringLiteral("%1 — %2 — %3")
                                                   .arg(quant, quantDescription(quant),
                                                        DisplayText::bytes(size.file_bytes)));
                }
            }
            note_->setText(
                error->isEmpty()
                    ? MainWindowText::tr("Sizes of the file for this run's weights.")
                    : MainWindowText::tr("The sizes could not be measured: %1").arg(*error));
            sizes_known_ = true;
            Q_EMIT sizesMeasured();
        });
}

GgufExportDialog::~GgufExportDialog() {
    delete job_; // joins a running measurement before the dialog goes
}

QString GgufExportDialog::quant() const {
    return quant_->currentData().toString();
}

void GgufExportDialog::setQuant(const QString &quant) {
    const int index = quant_->findData(quant);
    if (index >= 0) {
        quant_->setCurrentIndex(index);
    }
}

bool GgufExportDialog::ollamaModelfile() const {
    return ollama_->isChecked();
}

QString GgufExportDialog::choiceText(const QString &quant) const {
    const int index = quant_->findData(quant);
    return index < 0 ? QString() : quant_->itemText(index);
}

} // namespace headroom::ui
