#include "HardwarePage.h"

#include "BackgroundJob.h"
#include "WizardForms.h"
#include "look/DisplayText.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <cmath>
#include <memory>

namespace headroom::ui {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

// A bold, unselectable row that names the group below it.
void addHeading(QComboBox *combo, const QString &text) {
    combo->addItem(text);
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    QStandardItem *item = model->item(combo->count() - 1);
    item->setFlags(item->flags() & ~(Qt::ItemIsSelectable | Qt::ItemIsEnabled));
    QFont font = item->font();
    font.setBold(true);
    item->setFont(font);
}
} // namespace

HardwarePage::HardwarePage(WizardSettings &settings, QWidget *parent)
    : QWizardPage(parent), settings_(settings) {
    setObjectName(QStringLiteral("hardwarePage"));
    setTitle(tr("Hardware"));
    setSubTitle(tr("Choose the machine to plan the training for and how much memory it may use."));

    QStringList lines;
    for (const QString &line : DisplayText::deviceLines(settings_.devices)) {
        lines << line.toHtmlEscaped();
    }
    auto *devices = new QLabel(tr("<b>This machine</b>:<br>%1").arg(lines.join("<br>")), this);
    devices->setObjectName(QStringLiteral("detectedDevices"));
    devices->setWordWrap(true);
    devices->setTextInteractionFlags(Qt::TextSelectableByMouse);

    profile_ = new QComboBox(this);
    profile_->setObjectName(QStringLiteral("profile"));
    profile_->setAccessibleName(tr("Hardware profile"));
    const auto addProfile = [this](const HardwareProfile &profile) {
        profiles_.push_back(profile);
        profile_->addItem(DisplayText::profileLabel(profile, settings_.devices),
                          QString::fromStdString(profile.id));
    };
    addHeading(profile_, tr("This machine"));
    for (const HardwareProfile &profile : detectedProfiles(settings_.devices)) {
        addProfile(profile);
    }
    const std::pair<ProfileKind, QString> groups[] = {
        {ProfileKind::Mps, tr("Plan for an Apple computer (MPS)")},
        {ProfileKind::Cuda, tr("Plan for a CUDA GPU")},
        {ProfileKind::Cpu, tr("Plan for a CPU")}};
    for (const auto &[kind, heading] : groups) {
        addHeading(profile_, heading);
        for (const HardwareProfile &profile : hardwareProfiles()) {
            if (profile.kind == kind) {
                addProfile(profile);
            }
        }
    }

    budget_ = new QDoubleSpinBox(this);
    budget_->setObjectName(QStringLiteral("budget"));
    budget_->setAccessibleName(tr("Memory budget in GiB"));
    budget_->setDecimals(2);
    budget_->setRange(0.01, 4096);
    budget_->setSingleStep(0.25);
    budget_->setSuffix(tr(" GiB"));

    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("profileNote"));
    note_->setWordWrap(true);
    note_->setForegroundRole(QPalette::PlaceholderText);

    speed_ = new QLabel(this);
    speed_->setObjectName(QStringLiteral("speedCalibration"));
    speed_->setWordWrap(true);
    speed_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    measure_ = new QPushButton(tr("&Measure speed"), this);
    measure_->setObjectName(QStringLiteral("measureSpeed"));
    measure_->setToolTip(tr("Times matrix products and attention in each precision on this "
                            "device (a few seconds); the plan then uses the measured speeds"));
    job_ = new BackgroundJob(this);
    connect(measure_, &QPushButton::clicked, this, &HardwarePage::measureSpeed);

    auto *form = new QFormLayout;
    addBuddyRow(form, tr("&Plan for:"), profile_, this);
    addBuddyRow(form, tr("Memory &budget:"), budget_, this);
    form->addRow(QString(), note_);
    form->addRow(tr("Speed:"), speed_);
    auto *measure_row = new QHBoxLayout;
    measure_row->addWidget(measure_);
    measure_row->addStretch();
    form->addRow(QString(), measure_row);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(devices);
    layout->addSpacing(8);
    layout->addLayout(form);
    layout->addStretch();

    connect(profile_, &QComboBox::currentIndexChanged, this, &HardwarePage::onProfileChanged);
    connect(budget_, &QDoubleSpinBox::valueChanged, this, &HardwarePage::completeChanged);
    profile_->setCurrentIndex(1); // the first detected device
    onProfileChanged();
}

const HardwareProfile *HardwarePage::currentProfile() const {
    const QString id = profile_->currentData().toString();
    for (const HardwareProfile &profile : profiles_) {
        if (QString::fromStdString(profile.id) == id) {
            return &profile;
        }
    }
    return nullptr;
}

bool HardwarePage::selectProfile(const QString &id) {
    const int index = profile_->findData(id);
    if (index < 0) {
        return false;
    }
    profile_->setCurrentIndex(index);
    return true;
}

quint64 HardwarePage::budgetBytes() const {
    return quint64(std::llround(budget_->value() * kGiB));
}

void HardwarePage::setBudgetBytes(quint64 bytes) {
    budget_->setValue(double(bytes) / kGiB);
}

void HardwarePage::onProfileChanged() {
    const HardwareProfile *profile = currentProfile();
    if (!profile) {
        note_->clear();
        Q_EMIT completeChanged();
        return;
    }
    setBudgetBytes(profile->budget_bytes);
    note_->setText(
        tr("%1 of physical memory. Default budget: %2.")
            .arg(DisplayText::bytes(profile->memory_bytes), DisplayText::profileNote(*profile)));
    measure_error_.clear();
    showSpeed();
    Q_EMIT completeChanged();
}

void HardwarePage::showSpeed() {
    const HardwareProfile *profile = currentProfile();
    const bool measuring = isMeasuring();
    measure_->setEnabled(profile != nullptr && profile->detected && !measuring);
    if (measuring) {
        speed_->setText(tr("Measuring the speed of %1...")
                            .arg(QString::fromStdString(profile ? profile->device : "")));
        return;
    }
    if (profile == nullptr || !profile->detected) {
        speed_->setText(tr("Typical speeds of this kind of machine (only this machine's devices "
                           "can be measured)."));
        return;
    }
    const std::optional<SpeedCalibration> calibration =
        cachedSpeedCalibration(profile->device, settings_.devices);
    if (!calibration) {
        speed_->setText(measure_error_.isEmpty()
                            ? tr("Not calibrated: the plan assumes typical speeds per precision.")
                            : tr("Not calibrated: %1").arg(measure_error_));
        return;
    }
    QStringList parts;
    for (const PrecisionSpeed &speed : calibration->precisions) {
        const QString name = QString::fromStdString(speed.precision);
        if (!speed.supported) {
            parts << tr("%1 not supported").arg(name);
        } else if (speed.precision == "fp32") {
            parts << tr("%1 %2 GFLOP/s").arg(name).arg(speed.matmul_gflops, 0, 'f', 0);
        } else {
            parts << tr("%1 %2 GFLOP/s (%3× fp32)")
                         .arg(name)
                         .arg(speed.matmul_gflops, 0, 'f', 0)
                         .arg(calibration->matmulRatio(speed.precision), 0, 'f', 2);
        }
    }
    QString text = tr("Measured matrix-product speed: %1.").arg(parts.join(QStringLiteral(", ")));
    if (!calibration->cpu_gemm.empty()) {
        text += QLatin1Char(' ') + tr("fp32 matrix products run through %1.")
                                       .arg(QString::fromStdString(calibration->cpu_gemm));
    }
    const std::string slow = slowPrecisionReason(*calibration, "bf16");
    if (!slow.empty()) {
        text += QLatin1Char(' ') + tr("bf16 is %1× slower than fp32 here: the plan and the "
                                      "out-of-memory ladder will not use it.")
                                       .arg(1 / calibration->matmulRatio("bf16"), 0, 'f', 0);
    }
    speed_->setText(text);
}

bool HardwarePage::isMeasuring() const {
    return job_->isRunning();
}

void HardwarePage::measureSpeed() {
    const HardwareProfile *profile = currentProfile();
    if (profile == nullptr || !profile->detected || isMeasuring()) {
        return;
    }
    CalibrationOptions options;
    options.device = profile->device;
    auto error = std::make_shared<std::string>();
    job_->start(
        [options, error] {
            try {
                storeSpeedCalibration(calibrateSpeed(options));
            } catch (const std::exception &failure) {
                *error = failure.what();
            }
        },
        [this, error] {
            measure_error_ = QString::fromStdString(*error);
            showSpeed();
            Q_EMIT completeChanged();
        });
    showSpeed();
}

void HardwarePage::cleanupPage() {
    // Joins a running measurement: it finishes within its few seconds.
    delete job_;
    job_ = new BackgroundJob(this);
    showSpeed();
}

bool HardwarePage::isComplete() const {
    return currentProfile() != nullptr && budget_->value() > 0;
}

bool HardwarePage::validatePage() {
    const HardwareProfile *profile = currentProfile();
    if (!profile) {
        return false;
    }
    settings_.profile = *profile;
    applyHardwareProfile(settings_.profile, settings_.config);
    // The spin box shows hundredths of a GiB: the profile's exact budget unless edited.
    const bool edited = std::abs(budget_->value() - double(profile->budget_bytes) / kGiB) >
                        0.5 * std::pow(10.0, -budget_->decimals());
    if (edited) {
        // Whole MiB keep the stored budget readable ("6144MiB").
        const quint64 mib = quint64(std::llround(double(budgetBytes()) / kMiB));
        settings_.profile.budget_bytes = quint64(mib * kMiB);
        settings_.profile.note = "budget chosen in the wizard";
        settings_.config.set("memory.budget", std::to_string(mib) + "MiB");
    }
    // Plan with the budget exactly as the config stores it.
    settings_.profile.budget_bytes = settings_.config.bytes("memory.budget");
    return true;
}

} // namespace headroom::ui
