#include "ConfigWizard.h"

#include "BaseModelBox.h"
#include "DataPage.h"
#include "HardwarePage.h"
#include "MemoryPlanPage.h"
#include "ModelSizePage.h"
#include "ReviewPage.h"

namespace headroom::ui {

ConfigWizard::ConfigWizard(QWidget *parent) : ConfigWizard(detectDevices(), parent) {}

ConfigWizard::ConfigWizard(const DeviceReport &devices, QWidget *parent) : QWizard(parent) {
    setObjectName(QStringLiteral("configWizard"));
    setWindowTitle(tr("New Project"));
    setWizardStyle(QWizard::ModernStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
    settings_.devices = devices;

    hardware_ = new HardwarePage(settings_, this);
    data_ = new DataPage(settings_, this);
    model_size_ = new ModelSizePage(settings_, this);
    memory_plan_ = new MemoryPlanPage(settings_, this);
    review_ = new ReviewPage(settings_, this);
    setPage(Hardware, hardware_);
    setPage(Data, data_);
    setPage(ModelSize, model_size_);
    setPage(MemoryPlan, memory_plan_);
    setPage(Review, review_);
    setStartId(Hardware);
    resize(780, 680);
}

void ConfigWizard::setDataPath(const QString &path) {
    data_->setDataPath(path);
}

void ConfigWizard::setBaseFolder(const QString &folder) {
    data_->setBaseFolder(folder);
}

void ConfigWizard::setRecentBaseFolders(const QStringList &folders) {
    data_->baseModelBox()->setRecentFolders(folders);
}

void ConfigWizard::startFromScratch() {
    data_->selectRecipe(QStringLiteral("gpt"));
}

QString ConfigWizard::baseFolder() const {
    return settings_.base ? QString::fromStdString(settings_.base->folder) : QString();
}

void ConfigWizard::reject() {
    if (review_->isCreating()) {
        return;
    }
    QWizard::reject();
}

QString ConfigWizard::projectPath() const {
    return review_->projectPath();
}

} // namespace headroom::ui
