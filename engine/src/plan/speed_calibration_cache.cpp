// The per-user calibration cache: one JSON file with one entry per device. A machine's speed
// is the same for every project, so it lives in the user's cache folder, not a project file.
#include "compat/cpu_gemm.h"
#include "util/files.h"

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/speed_calibration.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

namespace headroom {

namespace {

using nlohmann::json;

constexpr const char *kCacheFileName = "speed-calibration.json";

std::string environment(const char *name) {
    const char *value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

std::string canonical(const std::string &device) {
    return device == "cuda" ? std::string("cuda:0") : device;
}

json precisionJson(const PrecisionSpeed &speed) {
    return {{"precision", speed.precision},
            {"supported", speed.supported},
            {"unsupported_reason", speed.unsupported_reason},
            {"matmul_gflops", speed.matmul_gflops},
            {"attention_gflops", speed.attention_gflops},
            {"elementwise_gelems", speed.elementwise_gelems},
            {"training_gflops", speed.training_gflops},
            {"tall_training_gflops", speed.tall_training_gflops},
            {"small_training_gflops", speed.small_training_gflops},
            {"stopped_early", speed.stopped_early}};
}

json calibrationJson(const SpeedCalibration &calibration) {
    json precisions = json::array();
    for (const PrecisionSpeed &speed : calibration.precisions) {
        precisions.push_back(precisionJson(speed));
    }
    return {{"version", calibration.version},         {"device", calibration.device},
            {"device_name", calibration.device_name}, {"torch_version", calibration.torch_version},
            {"threads", calibration.threads},         {"cpu_flags", calibration.cpu_flags},
            {"cpu_gemm", calibration.cpu_gemm},       {"precisions", std::move(precisions)},
            {"measured_at", calibration.measured_at}, {"seconds", calibration.seconds}};
}

SpeedCalibration calibrationOf(const json &value) {
    SpeedCalibration calibration;
    calibration.version = value.at("version").get<int>();
    calibration.device = value.at("device").get<std::string>();
    calibration.device_name = value.at("device_name").get<std::string>();
    calibration.torch_version = value.at("torch_version").get<std::string>();
    calibration.threads = value.at("threads").get<int>();
    calibration.cpu_flags = value.value("cpu_flags", std::vector<std::string>{});
    calibration.cpu_gemm = value.value("cpu_gemm", std::string());
    for (const json &item : value.at("precisions")) {
        PrecisionSpeed speed;
        speed.precision = item.at("precision").get<std::string>();
        speed.supported = item.at("supported").get<bool>();
        speed.unsupported_reason = item.value("unsupported_reason", std::string());
        speed.matmul_gflops = item.value("matmul_gflops", 0.0);
        speed.attention_gflops = item.value("attention_gflops", 0.0);
        speed.elementwise_gelems = item.value("elementwise_gelems", 0.0);
        speed.training_gflops = item.value("training_gflops", 0.0);
        speed.tall_training_gflops = item.value("tall_training_gflops", 0.0);
        speed.small_training_gflops = item.value("small_training_gflops", 0.0);
        speed.stopped_early = item.value("stopped_early", false);
        calibration.precisions.push_back(speed);
    }
    calibration.measured_at = value.value("measured_at", std::int64_t{0});
    calibration.seconds = value.value("seconds", 0.0);
    return calibration;
}

// Every entry of the cache file; an unreadable or malformed file counts as empty (it is only
// a cache: the next calibration rewrites it).
std::vector<SpeedCalibration> readCache() {
    std::ifstream file(speedCalibrationCachePath());
    if (!file) {
        return {};
    }
    std::vector<SpeedCalibration> entries;
    try {
        const json document = json::parse(file);
        for (const json &entry : document.at("entries")) {
            entries.push_back(calibrationOf(entry));
        }
    } catch (const std::exception &) {
        return {};
    }
    return entries;
}

std::string currentDeviceName(const std::string &device, const DeviceReport &report) {
    if (device.rfind("cuda", 0) == 0) {
        const int index = device.size() > 5 ? std::atoi(device.c_str() + 5) : 0;
        for (const CudaDeviceInfo &gpu : report.cuda) {
            if (gpu.index == index) {
                return gpu.name;
            }
        }
        return "";
    }
    if (device == "mps") {
        return "Apple GPU";
    }
    return report.cpu.model.empty() ? std::string("CPU") : report.cpu.model;
}

std::string formatTime(std::int64_t seconds) {
    const std::time_t time = static_cast<std::time_t>(seconds);
    std::tm local{};
#if defined(_WIN32)
    localtime_s(&local, &time);
#else
    localtime_r(&time, &local);
#endif
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
    return text;
}

} // namespace

const PrecisionSpeed *SpeedCalibration::find(const std::string &precision) const {
    for (const PrecisionSpeed &speed : precisions) {
        if (speed.precision == precision) {
            return &speed;
        }
    }
    return nullptr;
}

double SpeedCalibration::matmulRatio(const std::string &precision) const {
    const PrecisionSpeed *speed = find(precision);
    const PrecisionSpeed *fp32 = find("fp32");
    if (speed == nullptr || fp32 == nullptr || !speed->supported || fp32->matmul_gflops <= 0) {
        return 0;
    }
    return speed->matmul_gflops / fp32->matmul_gflops;
}

std::string slowPrecisionReason(const SpeedCalibration &calibration, const std::string &precision) {
    const double ratio = calibration.matmulRatio(precision);
    if (ratio <= 0 || ratio >= 1) {
        return "";
    }
    const std::string machine = calibration.device.rfind("cuda", 0) == 0 ? "GPU"
                                : calibration.device == "mps"            ? "Mac"
                                                                         : "CPU";
    char times[32];
    std::snprintf(times, sizeof times, 1 / ratio < 10 ? "%.1f" : "%.0f", 1 / ratio);
    return precision + " is " + times + "x slower than fp32 on this " + machine;
}

std::string speedCalibrationCachePath() {
    namespace fs = std::filesystem;
    fs::path folder;
    if (const std::string overridden = environment("HEADROOM_CACHE_DIR"); !overridden.empty()) {
        folder = overridden;
    } else if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) {
        folder = fs::path(xdg) / "headroom";
    } else {
        const std::string home = environment("HOME");
        folder = fs::path(home.empty() ? fs::temp_directory_path() : fs::path(home)) / ".cache" /
                 "headroom";
    }
    return (folder / kCacheFileName).string();
}

std::string calibrationStaleReason(const SpeedCalibration &calibration,
                                   const DeviceReport &report) {
    if (calibration.version != kSpeedCalibrationVersion) {
        return "measured by another version of the calibration";
    }
    if (calibration.torch_version != report.torch_version) {
        return "measured with LibTorch " + calibration.torch_version + ", this is " +
               report.torch_version;
    }
    const std::string name = currentDeviceName(calibration.device, report);
    if (calibration.device_name != name) {
        return "measured on " + calibration.device_name + ", this " + calibration.device + " is " +
               (name.empty() ? std::string("not present") : name);
    }
    if (calibration.device == "cpu" && calibration.threads != report.cpu.torch_threads) {
        return "measured with " + std::to_string(calibration.threads) + " threads, LibTorch uses " +
               std::to_string(report.cpu.torch_threads) + " now";
    }
    if (calibration.device == "cpu" && calibration.cpu_gemm != compat::cpuGemmDescription()) {
        return "measured with fp32 GEMMs on " + calibration.cpu_gemm + ", this process uses " +
               compat::cpuGemmDescription();
    }
    return "";
}

std::optional<SpeedCalibration> cachedSpeedCalibration(const std::string &device,
                                                       const DeviceReport &report) {
    for (const SpeedCalibration &entry : readCache()) {
        if (entry.device == canonical(device) && calibrationStaleReason(entry, report).empty()) {
            return entry;
        }
    }
    return std::nullopt;
}

std::optional<SpeedCalibration> cachedSpeedCalibration(const std::string &device) {
    return cachedSpeedCalibration(device, detectDevices());
}

void storeSpeedCalibration(const SpeedCalibration &calibration) {
    namespace fs = std::filesystem;
    const fs::path path = speedCalibrationCachePath();
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (error) {
        throw std::runtime_error("cannot create " + path.parent_path().string() + ": " +
                                 error.message());
    }
    json entries = json::array({calibrationJson(calibration)});
    for (const SpeedCalibration &entry : readCache()) {
        if (entry.device != calibration.device) {
            entries.push_back(calibrationJson(entry));
        }
    }
    // Another process may calibrate at the same time: each writes its own temp file.
    const std::string temp = path.string() + ".tmp-" + std::to_string(std::random_device{}());
    {
        std::ofstream file(temp, std::ios::trunc);
        file << json{{"version", kSpeedCalibrationVersion}, {"entries", entries}}.dump(2) << '\n';
        if (!file) {
            throw std::runtime_error("cannot write " + temp);
        }
    }
    util::commitFile(temp, path.string());
}

std::vector<std::string> describeSpeedCalibration(const SpeedCalibration &calibration) {
    std::vector<std::string> lines;
    char text[256];
    std::string flags;
    for (const std::string &flag : calibration.cpu_flags) {
        if (flag.rfind("avx512", 0) == 0 || flag.rfind("amx", 0) == 0 || flag == "avx2") {
            flags += (flags.empty() ? "" : " ") + flag;
        }
    }
    lines.push_back("speed of " + calibration.device + " (" + calibration.device_name +
                    "), measured " + formatTime(calibration.measured_at) + " with LibTorch " +
                    calibration.torch_version + ", " + std::to_string(calibration.threads) +
                    " threads" + (flags.empty() ? "" : "; " + flags) +
                    (calibration.cpu_gemm.empty() ? "" : "; fp32 GEMM: " + calibration.cpu_gemm));
    for (const PrecisionSpeed &speed : calibration.precisions) {
        if (!speed.supported) {
            lines.push_back("  " + speed.precision + "  unsupported: " + speed.unsupported_reason);
            continue;
        }
        std::snprintf(text, sizeof text,
                      "  %-4s  matmul %6.1f GFLOP/s (%.2fx fp32)  attention %6.1f  elementwise "
                      "%5.2f G/s  training block %6.1f GFLOP/s (small %.1f, tall %.1f)%s",
                      speed.precision.c_str(), speed.matmul_gflops,
                      calibration.matmulRatio(speed.precision), speed.attention_gflops,
                      speed.elementwise_gelems, speed.training_gflops, speed.small_training_gflops,
                      speed.tall_training_gflops,
                      speed.stopped_early ? "  (stopped early: hopelessly slow)" : "");
        lines.push_back(text);
    }
    return lines;
}

std::string toJson(const SpeedCalibration &calibration, int indent) {
    return calibrationJson(calibration).dump(indent, ' ', false, json::error_handler_t::replace);
}

SpeedCalibration speedCalibrationFromJson(const std::string &text) {
    try {
        return calibrationOf(json::parse(text));
    } catch (const json::exception &error) {
        throw InputError(std::string("malformed speed calibration: ") + error.what());
    }
}

} // namespace headroom
