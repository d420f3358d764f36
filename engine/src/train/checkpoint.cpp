#include "train/checkpoint.h"

#include "distributed/sharded_optimizer.h"
#include "models/causal_lm.h"
#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace headroom::train {

namespace {

constexpr std::int64_t kCheckpointFormat = 1;

torch::Tensor bytesToTensor(const std::string &bytes) {
    torch::Tensor tensor = torch::empty({static_cast<std::int64_t>(bytes.size())}, torch::kUInt8);
    std::memcpy(tensor.data_ptr<std::uint8_t>(), bytes.data(), bytes.size());
    return tensor;
}

std::string tensorToBytes(const torch::Tensor &tensor) {
    const torch::Tensor contiguous = tensor.to(torch::kCPU).contiguous();
    return std::string(reinterpret_cast<const char *>(contiguous.data_ptr<std::uint8_t>()),
                       static_cast<std::size_t>(contiguous.numel()));
}

CheckpointMeta readMeta(torch::serialize::InputArchive &archive, const std::string &path) {
    c10::IValue format;
    if (!archive.try_read("format", format) || !format.isInt() ||
        format.toInt() != kCheckpointFormat) {
        throw std::runtime_error(path + ": not a Headroom checkpoint of a known format");
    }
    CheckpointMeta meta;
    c10::IValue value;
    archive.read("step", value);
    meta.step = value.toInt();
    archive.read("run_id", value);
    meta.run_id = value.toInt();
    archive.read("config_json", value);
    meta.config_json = value.toStringRef();
    torch::Tensor data_state;
    archive.read("data_state", data_state);
    meta.data_state = tensorToBytes(data_state);
    archive.read("cpu_rng_state", meta.cpu_rng_state);
    if (archive.try_read("micro_batch", value) && value.isInt()) {
        meta.micro_batch = value.toInt();
    }
    if (archive.try_read("techniques", value) && value.isString()) {
        meta.techniques = value.toStringRef();
    }
    return meta;
}

torch::serialize::InputArchive openArchive(const std::string &path) {
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path);
    } catch (const c10::Error &error) {
        throw std::runtime_error(path +
                                 ": cannot read checkpoint: " + error.what_without_backtrace());
    }
    return archive;
}

// A LoRA run on a pretrained base keeps only what trains: the base is the model folder, read
// again on resume.
bool baseComesFromFile(const torch::nn::Module &model) {
    const auto *language_model = dynamic_cast<const models::CausalLmImpl *>(&model);
    return language_model != nullptr && language_model->loraOptions().has_value();
}

// The trainable parameters in archives nested like the module tree; false when there are none.
bool saveTrainable(const torch::nn::Module &module, torch::serialize::OutputArchive &archive) {
    bool any = false;
    for (const auto &item : module.named_parameters(/*recurse=*/false)) {
        if (item.value().requires_grad()) {
            archive.write(item.key(), item.value());
            any = true;
        }
    }
    for (const auto &child : module.named_children()) {
        torch::serialize::OutputArchive child_archive;
        if (saveTrainable(*child.value(), child_archive)) {
            archive.write(child.key(), child_archive);
            any = true;
        }
    }
    return any;
}

void loadTrainable(torch::nn::Module &module, torch::serialize::InputArchive &archive,
                   const std::string &prefix, const std::string &path) {
    torch::NoGradGuard no_grad;
    for (auto &item : module.named_parameters(/*recurse=*/false)) {
        if (!item.value().requires_grad()) {
            continue;
        }
        torch::Tensor stored;
        if (!archive.try_read(item.key(), stored) || stored.sizes() != item.value().sizes()) {
            throw std::runtime_error(path + ": the checkpoint has no adapter tensor " + prefix +
                                     item.key() + " of shape " + c10::str(item.value().sizes()) +
                                     " (another LoRA rank or target list)");
        }
        item.value().copy_(stored);
    }
    for (const auto &child : module.named_children()) {
        torch::serialize::InputArchive child_archive;
        if (archive.try_read(child.key(), child_archive)) {
            loadTrainable(*child.value(), child_archive, prefix + child.key() + ".", path);
        } else if (!models::trainableParameters(*child.value()).empty()) {
            throw std::runtime_error(path + ": the checkpoint has no adapters for " + prefix +
                                     child.key());
        }
    }
}

} // namespace

namespace {

torch::serialize::OutputArchive checkpointArchive(torch::nn::Module &model, Optimizer &optimizer,
                                                  const CheckpointMeta &meta,
                                                  const DynamicLossScaler *scaler) {
    torch::serialize::OutputArchive archive;
    archive.write("format", c10::IValue(kCheckpointFormat));
    archive.write("step", c10::IValue(meta.step));
    archive.write("run_id", c10::IValue(meta.run_id));
    archive.write("config_json", c10::IValue(meta.config_json));
    archive.write("data_state", bytesToTensor(meta.data_state));
    archive.write("cpu_rng_state", meta.cpu_rng_state);
    archive.write("micro_batch", c10::IValue(meta.micro_batch));
    archive.write("techniques", c10::IValue(meta.techniques));

    torch::serialize::OutputArchive model_archive;
    if (baseComesFromFile(model)) {
        saveTrainable(model, model_archive);
        archive.write("trainable", model_archive);
    } else {
        model.save(model_archive);
        archive.write("model", model_archive);
    }
    torch::serialize::OutputArchive optimizer_archive;
    optimizer_archive.write("kind", c10::IValue(optimizer.kind()));
    optimizer.saveState(optimizer_archive);
    archive.write("optimizer", optimizer_archive);
    if (scaler != nullptr && scaler->enabled()) {
        torch::serialize::OutputArchive scaler_archive;
        scaler->save(scaler_archive);
        archive.write("loss_scaler", scaler_archive);
    }
    return archive;
}

// Writes through a temporary file, then syncs and renames it into place. `produce` hands the
// bytes to `sink`; a short write is remembered and reported rather than thrown from inside
// (see below).
void writeThroughTemporary(
    const std::string &path,
    const std::function<void(const std::function<std::size_t(const void *, std::size_t)> &)>
        &produce) {
    const std::string temp_path = path + ".partial";
    std::FILE *file = std::fopen(temp_path.c_str(), "wb");
    if (file == nullptr) {
        throw std::runtime_error(path + ": cannot write checkpoint: " + std::strerror(errno));
    }
    // LibTorch's zip writer checks every write and throws from its destructor when one came
    // up short (a full disk), which terminates the process. So the writer is always told the
    // whole buffer was taken, and the first failure is kept and reported here instead.
    int write_error = 0;
    try {
        produce([&](const void *data, std::size_t size) -> std::size_t {
            if (write_error == 0 && size > 0 && std::fwrite(data, 1, size, file) != size) {
                write_error = errno != 0 ? errno : EIO;
            }
            return size;
        });
    } catch (const c10::Error &error) {
        std::fclose(file);
        std::remove(temp_path.c_str());
        throw std::runtime_error(path +
                                 ": cannot write checkpoint: " + error.what_without_backtrace());
    }
    if (std::fflush(file) != 0 && write_error == 0) {
        write_error = errno;
    }
    if (std::fclose(file) != 0 && write_error == 0) {
        write_error = errno;
    }
    if (write_error != 0) {
        std::remove(temp_path.c_str());
        throw std::runtime_error(path + ": cannot write checkpoint: " + std::strerror(write_error));
    }
    util::commitFile(temp_path, path);
}

} // namespace

void saveCheckpoint(const std::string &path, torch::nn::Module &model, Optimizer &optimizer,
                    const CheckpointMeta &meta, const DynamicLossScaler *scaler) {
    torch::serialize::OutputArchive archive = checkpointArchive(model, optimizer, meta, scaler);
    writeThroughTemporary(path, [&archive](const auto &sink) { archive.save_to(sink); });
}

std::string serializeCheckpoint(torch::nn::Module &model, Optimizer &optimizer,
                                const CheckpointMeta &meta, const DynamicLossScaler *scaler) {
    std::string bytes;
    checkpointArchive(model, optimizer, meta, scaler)
        .save_to([&bytes](const void *data, std::size_t size) -> std::size_t {
            bytes.append(static_cast<const char *>(data), size);
            return size;
        });
    return bytes;
}

void writeCheckpointBytes(const std::string &path, const std::string &bytes) {
    writeThroughTemporary(path, [&bytes](const auto &sink) { sink(bytes.data(), bytes.size()); });
}

CheckpointMeta readCheckpointMeta(const std::string &path) {
    torch::serialize::InputArchive archive = openArchive(path);
    return readMeta(archive, path);
}

CheckpointMeta loadCheckpointWeights(const std::string &path, torch::nn::Module &model) {
    torch::serialize::InputArchive archive = openArchive(path);
    CheckpointMeta meta = readMeta(archive, path);
    torch::serialize::InputArchive model_archive;
    if (archive.try_read("trainable", model_archive)) {
        loadTrainable(model, model_archive, "", path);
        return meta;
    }
    archive.read("model", model_archive);
    model.load(model_archive);
    return meta;
}

void loadCheckpointOptimizer(const std::string &path, Optimizer &optimizer) {
    torch::serialize::InputArchive archive = openArchive(path);
    torch::serialize::InputArchive state;
    archive.read("optimizer", state);
    c10::IValue kind;
    if (!state.try_read("kind", kind) || !kind.isString()) {
        throw std::runtime_error(path + ": the checkpoint holds no optimizer state");
    }
    if (kind.toStringRef() != optimizer.kind()) {
        throw std::runtime_error(path + ": the checkpoint's optimizer state is " +
                                 kind.toStringRef() + "'s, this run uses " + optimizer.kind());
    }
    try {
        // Written by a sharded optimizer (any number of ranks): read parameter by parameter.
        if (distributed::isPerParameterState(state)) {
            distributed::loadPerParameterState(state, optimizer);
        } else {
            optimizer.loadState(state);
        }
    } catch (const std::exception &error) {
        throw std::runtime_error(path + ": " + error.what());
    }
}

void loadCheckpointLossScaler(const std::string &path, DynamicLossScaler &scaler) {
    torch::serialize::InputArchive archive = openArchive(path);
    torch::serialize::InputArchive state;
    if (!archive.try_read("loss_scaler", state)) {
        return;
    }
    try {
        scaler.load(state);
    } catch (const std::exception &error) {
        throw std::runtime_error(path + ": " + error.what());
    }
}

} // namespace headroom::train
