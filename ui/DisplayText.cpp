#include "DisplayText.h"

#include <QLocale>

namespace headroom::ui {

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

} // namespace headroom::ui
