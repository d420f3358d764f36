#pragma once

#include "WizardSettings.h"

#include <QWizardPage>

class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

// Page (c): the model's size as a preset (gpt: layers, heads, width and context; tabular:
// hidden widths) or a target parameter count, with the resulting parameter count shown live.
// A pretrained model's size is its own: the page shows it and offers the context length (at
// most the base's). A GPT's MLPs can be routed experts (Mixture of Experts).
class ModelSizePage : public QWizardPage {
    Q_OBJECT

public:
    ModelSizePage(WizardSettings &settings, QWidget *parent = nullptr);

    // Selects a preset by its id ("tiny", "small", ..., "custom").
    bool selectPreset(const QString &id);
    // The parameter count shown (0 while the size is invalid).
    qint64 parameterCount() const { return parameters_; }

    void initializePage() override;
    bool isComplete() const override;
    bool validatePage() override;

private:
    QGroupBox *createMoeBox();
    void loadMoe();
    void fillPresets();
    void onPresetChanged();
    void refreshParameterCount();
    // The model keys the controls describe; throws ConfigError on a bad value.
    Config configWithSize() const;

    WizardSettings &settings_;
    QLabel *size_label_ = nullptr;
    QComboBox *preset_ = nullptr;
    QLabel *params_label_ = nullptr;
    QDoubleSpinBox *target_params_ = nullptr;
    QLabel *context_label_ = nullptr;
    QSpinBox *context_ = nullptr;
    QLabel *hidden_label_ = nullptr;
    QLineEdit *hidden_ = nullptr;
    QGroupBox *moe_box_ = nullptr;
    QSpinBox *experts_ = nullptr;
    QSpinBox *top_k_ = nullptr;
    QDoubleSpinBox *capacity_ = nullptr;
    QSpinBox *every_ = nullptr;
    QLabel *result_ = nullptr;
    QString recipe_;
    qint64 parameters_ = 0;
};

} // namespace headroom::ui
