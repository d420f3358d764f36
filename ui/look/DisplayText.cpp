#include "look/DisplayText.h"

#include "wizard/WizardColors.h"

#include <QLabel>
#include <QLocale>

namespace headroom::ui {

QString DisplayText::breakablePaths(const QString &text) {
    QString result = text;
    result.replace(QLatin1Char('/'), QStringLiteral("/\u200b"));
    return result;
}

QString DisplayText::bytes(std::uint64_t bytes) {
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeIecFormat);
}

QString DisplayText::deviceStatus(const DeviceReport &report) {
    if (!report.cuda.empty()) {
        const CudaDeviceInfo &gpu = report.cuda.front();
        return tr("CUDA · %1 · %2").arg(QString::fromStdString(gpu.name), bytes(gpu.total_bytes));
    }
    if (report.mps.available) {
        return tr("MPS · %1 unified").arg(bytes(report.mps.unified_memory_bytes));
    }
    return tr("CPU · %n cores · %1", nullptr, report.cpu.logical_cores)
        .arg(bytes(report.cpu.total_bytes));
}

QStringList DisplayText::deviceLines(const DeviceReport &report) {
    QStringList lines;
    const CpuInfo &cpu = report.cpu;
    lines << tr("CPU: %1 · %n cores (LibTorch uses %2) · %3 RAM, %4 available", nullptr,
                cpu.logical_cores)
                 .arg(cpu.model.empty() ? tr("CPU") : QString::fromStdString(cpu.model))
                 .arg(cpu.torch_threads)
                 .arg(bytes(cpu.total_bytes), bytes(cpu.available_bytes));
    if (!report.cuda_built) {
        lines << tr("CUDA: not in this LibTorch build (CPU only)");
    } else if (report.cuda.empty()) {
        lines << tr("CUDA: built in, but no CUDA device is visible");
    }
    for (const CudaDeviceInfo &gpu : report.cuda) {
        QString line = tr("CUDA %1: %2 · %3, %4 free · compute capability %5.%6")
                           .arg(gpu.index)
                           .arg(QString::fromStdString(gpu.name), bytes(gpu.total_bytes),
                                bytes(gpu.free_bytes))
                           .arg(gpu.compute_major)
                           .arg(gpu.compute_minor);
        if (gpu.supports_bf16) {
            line += tr(" · bf16");
        }
        lines << line;
    }
    if (report.mps.available) {
        lines
            << tr("MPS: Apple GPU · %1 unified memory").arg(bytes(report.mps.unified_memory_bytes));
    } else if (report.mps.built) {
        lines << tr("MPS: built in, but not available on this machine");
    } else {
        lines << tr("MPS: not in this LibTorch build");
    }
    lines << tr("LibTorch %1 · automatic device: %2")
                 .arg(QString::fromStdString(report.torch_version),
                      QString::fromStdString(preferredDevice(report)));
    return lines;
}

QString DisplayText::profileLabel(const HardwareProfile &profile, const DeviceReport &report) {
    const QString gigabytes =
        tr("%1 GB").arg(QLocale().toString(double(profile.memory_bytes) / double(1ull << 30), 'f',
                                           profile.memory_bytes % (1ull << 30) == 0 ? 0 : 1));
    switch (profile.kind) {
    case ProfileKind::Cuda:
        if (profile.detected) {
            for (const CudaDeviceInfo &gpu : report.cuda) {
                if (profile.device == "cuda:" + std::to_string(gpu.index)) {
                    return tr("This machine · %1 · %2")
                        .arg(QString::fromStdString(gpu.name), bytes(gpu.total_bytes));
                }
            }
            return QString::fromStdString(profile.label);
        }
        return tr("CUDA GPU · %1 (%2 class)")
            .arg(gigabytes, QString::fromStdString(profile.example));
    case ProfileKind::Mps:
        return profile.detected
                   ? tr("This Mac · %1 unified memory").arg(bytes(profile.memory_bytes))
                   : tr("Apple silicon · %1 unified memory").arg(gigabytes);
    case ProfileKind::Cpu:
        break;
    }
    return profile.detected
               ? tr("This machine's CPU · %n cores · %1 RAM", nullptr, report.cpu.logical_cores)
                     .arg(bytes(profile.memory_bytes))
               : tr("CPU only · %1 RAM").arg(gigabytes);
}

QString DisplayText::profileNote(const HardwareProfile &profile) {
    switch (profile.kind) {
    case ProfileKind::Cuda:
        return tr("the CUDA context and libraries keep about 6 % (at least 512 MiB)");
    case ProfileKind::Mps:
        return tr("macOS lets Metal use about 2/3 of unified memory up to 36 GB, 3/4 above");
    case ProfileKind::Cpu:
        break;
    }
    return tr("the OS and desktop keep a quarter of RAM (at least 2 GiB)");
}

DisplayText::Verdict DisplayText::verdict(const MemoryEstimate &estimate) {
    constexpr double kTightShare = 0.9;
    if (estimate.budget == 0) {
        return Verdict::NoBudget;
    }
    if (estimate.peak > estimate.budget) {
        return Verdict::DoesNotFit;
    }
    return double(estimate.peak) > kTightShare * double(estimate.budget) ? Verdict::Tight
                                                                         : Verdict::Fits;
}

QString DisplayText::verdictHtml(const MemoryEstimate &estimate) {
    const std::uint64_t budget = estimate.budget;
    const QString numbers = budget > 0
                                ? tr("%1 of %2 (%3 %)")
                                      .arg(bytes(estimate.peak), bytes(budget))
                                      .arg(qRound(100.0 * double(estimate.peak) / double(budget)))
                                : bytes(estimate.peak);
    QString text;
    switch (verdict(estimate)) {
    case Verdict::NoBudget:
        text = tr("No budget: the peak is %1.").arg(numbers);
        break;
    case Verdict::DoesNotFit:
        text = tr("<b>Won't fit</b>: %1.").arg(numbers);
        break;
    case Verdict::Tight:
        text = tr("<b>Tight</b>: %1; less than 10 % stays free.").arg(numbers);
        break;
    case Verdict::Fits:
        text = tr("<b>Fits</b>: %1.").arg(numbers);
        break;
    }
    const QString details = QStringLiteral("%1 · %2").arg(
        QString::fromStdString(estimate.model), QString::fromStdString(estimate.techniques));
    return text + QStringLiteral("<br>") + details.toHtmlEscaped();
}

DisplayText::Verdict DisplayText::showVerdict(QLabel *label, const MemoryEstimate &estimate) {
    const Verdict result = verdict(estimate);
    label->setText(verdictHtml(estimate));
    setTextTone(label, result == Verdict::DoesNotFit ? TextTone::Problem
                       : result == Verdict::Tight    ? TextTone::Caution
                                                     : TextTone::Normal);
    return result;
}

QString DisplayText::planHtml(const Plan &plan) {
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(QString::fromStdString(plan.summary).toHtmlEscaped());
    for (const PlanDecision &decision : plan.decisions) {
        lines << QStringLiteral("• <b>%1 = %2</b>: %3")
                     .arg(QString::fromStdString(decision.setting),
                          QString::fromStdString(decision.value),
                          QString::fromStdString(decision.reason).toHtmlEscaped());
    }
    if (plan.step_seconds > 0) {
        lines << tr("Predicted step time: %1 s (from this machine's measured speed)")
                     .arg(
                         QLocale().toString(plan.step_seconds, 'f', plan.step_seconds < 1 ? 3 : 2));
    } else if (!plan.speed_calibrated) {
        lines << tr("Speeds are typical figures, not measured on this machine (Measure speed on "
                    "the Hardware page).");
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace headroom::ui
