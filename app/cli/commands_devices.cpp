#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/devices.h>
#include <headroom/speed_calibration.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace headroom::cli {

namespace {

struct DevicesOptions {
    bool json = false;
    bool calibrate = false;
    std::string device = "auto";
    double seconds = 3.0;
};

} // namespace

CommandRunner addDevicesCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand("devices", "List the CPU, CUDA devices and MPS");
    auto options = std::make_shared<DevicesOptions>();
    command->add_flag("--json", options->json, "Print one JSON object");
    command->add_flag("--calibrate", options->calibrate,
                      "Measure the training speed per precision (a few seconds) and keep it for "
                      "the planner");
    command->add_option("--device", options->device,
                        "Device to calibrate or show the calibration of: auto, cpu, cuda:N, mps");
    command->add_option("--seconds", options->seconds, "Time to spend calibrating")
        ->check(CLI::Range(0.05, 600.0));
    return [streams, options]() {
        const DeviceReport report = detectDevices();
        const std::string device =
            options->device == "auto" ? preferredDevice(report) : options->device;
        std::optional<SpeedCalibration> calibration;
        if (options->calibrate) {
            if (!options->json) {
                streams.err << "measuring the speed of " << device << "...\n" << std::flush;
            }
            CalibrationOptions calibration_options;
            calibration_options.device = device;
            calibration_options.time_budget_s = options->seconds;
            calibration = calibrateSpeed(calibration_options);
            storeSpeedCalibration(*calibration);
        } else {
            calibration = cachedSpeedCalibration(device, report);
        }
        if (options->json) {
            nlohmann::json document = nlohmann::json::parse(deviceReportToJson(report));
            document["calibration"] =
                calibration ? nlohmann::json::parse(toJson(*calibration)) : nlohmann::json(nullptr);
            document["calibration_cache"] = speedCalibrationCachePath();
            streams.out << document.dump(2) << '\n';
            return kExitSuccess;
        }
        for (const std::string &line : describeDevices(report)) {
            streams.out << line << '\n';
        }
        if (calibration) {
            for (const std::string &line : describeSpeedCalibration(*calibration)) {
                streams.out << line << '\n';
            }
            if (options->calibrate) {
                streams.out << "stored in " << speedCalibrationCachePath() << '\n';
            }
        } else {
            streams.out << "speed of " << device
                        << " not calibrated (headroom-cli devices --calibrate measures it)\n";
        }
        return kExitSuccess;
    };
}

} // namespace headroom::cli
