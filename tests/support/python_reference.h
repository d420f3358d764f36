// Exchanging tensors with the Python references under tests/interop (Debian's python3-torch,
// the same LibTorch build) through safetensors files.
#pragma once

#include "export/safetensors.h"
#include "hf/safetensors_file.h"

#include <torch/torch.h>

#include <QProcess>
#include <QString>

#include <map>
#include <string>
#include <vector>

namespace test_support {

inline const char *const kReferencePython = "/usr/bin/python3";

// Why the references cannot run here, or "" when they can.
inline QString pythonReferenceProblem() {
    QProcess probe;
    probe.start(kReferencePython, {"-c", "import torch"});
    if (!probe.waitForFinished(60000)) {
        return QString("%1 did not start or finish").arg(kReferencePython);
    }
    if (probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
        return QString("%1 cannot import torch (apt install python3-torch)").arg(kReferencePython);
    }
    return {};
}

// Runs `script IN OUT` with the reference Python; "" when it succeeded, else why not.
inline QString runReference(const QString &script, const QString &in, const QString &out) {
    QProcess python;
    python.start(kReferencePython, {script, in, out});
    if (!python.waitForFinished(120000)) {
        return script + " did not finish";
    }
    if (python.exitStatus() != QProcess::NormalExit || python.exitCode() != 0) {
        return QString::fromUtf8(python.readAllStandardError());
    }
    return {};
}

// Writes the tensors as F32.
inline void writeReferenceTensors(const QString &path,
                                  const std::map<std::string, torch::Tensor> &tensors,
                                  const std::map<std::string, std::string> &metadata) {
    std::vector<torch::Tensor> keep;
    std::vector<headroom::exporting::TensorView> views;
    for (const auto &[name, tensor] : tensors) {
        keep.push_back(tensor.detach().contiguous().to(torch::kFloat));
        headroom::exporting::TensorView view;
        view.name = name;
        view.dtype = "F32";
        view.shape = keep.back().sizes().vec();
        view.data = keep.back().data_ptr();
        view.bytes = static_cast<std::uint64_t>(keep.back().nbytes());
        views.push_back(view);
    }
    headroom::exporting::writeSafetensors(path.toStdString(), views, metadata);
}

// F32 and I64 tensors of a file the reference wrote.
inline std::map<std::string, torch::Tensor> readReferenceTensors(const QString &path) {
    const auto file = headroom::hf::SafetensorsFile::open(path.toStdString());
    std::map<std::string, torch::Tensor> tensors;
    for (const headroom::hf::TensorRecord &record : file.tensors()) {
        const auto dtype = record.dtype == "I64" ? torch::kLong : torch::kFloat;
        tensors[record.name] =
            torch::from_blob(const_cast<std::uint8_t *>(file.data(record)), record.shape, dtype)
                .clone();
    }
    return tensors;
}

} // namespace test_support
