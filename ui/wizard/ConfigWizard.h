#pragma once

#include "WizardSettings.h"

#include <QWizard>

namespace headroom::ui {

class DataPage;
class HardwarePage;
class MemoryPlanPage;
class ModelSizePage;
class ReviewPage;

// File → New: hardware, task and data, model size, memory plan, review. Every number comes
// from the engine's planner (plan.h); heavy work (reading the data, auto-fit, creating the
// project) runs in the background. Accepted once the project file exists.
class ConfigWizard : public QWizard {
    Q_OBJECT

public:
    enum PageId { Hardware, Data, ModelSize, MemoryPlan, Review };

    explicit ConfigWizard(QWidget *parent = nullptr);
    // For tests: plan with this device report instead of reading the machine.
    ConfigWizard(const DeviceReport &devices, QWidget *parent);

    // Pre-fills page (b), e.g. with a file dropped on the main window.
    void setDataPath(const QString &path);
    // Chooses "Start from a pretrained model" on page (b) with this Hugging Face folder.
    void setBaseFolder(const QString &folder);
    // Offers these folders (the latest first) in the base model field.
    void setRecentBaseFolders(const QStringList &folders);
    // Chooses a GPT from scratch on page (b) instead of the default pretrained model.
    void startFromScratch();
    // The pretrained model folder the project starts from; empty for a model from scratch.
    QString baseFolder() const;
    // The project file Finish created (or will create).
    QString projectPath() const;
    const WizardSettings &settings() const { return settings_; }

    HardwarePage *hardwarePage() const { return hardware_; }
    DataPage *dataPage() const { return data_; }
    ModelSizePage *modelSizePage() const { return model_size_; }
    MemoryPlanPage *memoryPlanPage() const { return memory_plan_; }
    ReviewPage *reviewPage() const { return review_; }

    // Ignored while the project file is being created (Escape, the window's close button).
    void reject() override;

private:
    WizardSettings settings_;
    HardwarePage *hardware_ = nullptr;
    DataPage *data_ = nullptr;
    ModelSizePage *model_size_ = nullptr;
    MemoryPlanPage *memory_plan_ = nullptr;
    ReviewPage *review_ = nullptr;
};

} // namespace headroom::ui
