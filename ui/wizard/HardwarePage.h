#pragma once

#include "WizardSettings.h"

#include <headroom/speed_calibration.h>

#include <QWizardPage>

#include <optional>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace headroom::ui {

// Page (a): the devices of this machine and the hardware profile to plan for (this machine or
// any catalogue profile: Apple MPS, CUDA, CPU), with an editable memory budget.
class HardwarePage : public QWizardPage {
    Q_OBJECT

public:
    HardwarePage(WizardSettings &settings, QWidget *parent = nullptr);

    // Selects a profile by id ("detected-cpu", "cuda-8gb"); false when there is none.
    bool selectProfile(const QString &id);
    // The budget in bytes as edited.
    quint64 budgetBytes() const;
    void setBudgetBytes(quint64 bytes);

    bool isComplete() const override;
    bool validatePage() override;
    void cleanupPage() override;

    // Measures the selected device's speed off the GUI thread and keeps it for the planner.
    void measureSpeed();
    bool isMeasuring() const;

private:
    void onProfileChanged();
    const HardwareProfile *currentProfile() const;
    // The measured speeds of the selected device, or why there are none.
    void showSpeed();

    WizardSettings &settings_;
    std::vector<HardwareProfile> profiles_;
    QComboBox *profile_ = nullptr;
    QDoubleSpinBox *budget_ = nullptr;
    QLabel *note_ = nullptr;
    QLabel *speed_ = nullptr;
    QPushButton *measure_ = nullptr;
    class BackgroundJob *job_ = nullptr;
    QString measure_error_;
};

} // namespace headroom::ui
