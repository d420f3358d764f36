#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/devices.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

namespace headroom::cli {

CommandRunner addDevicesCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand("devices", "List the CPU, CUDA devices and MPS");
    auto as_json = std::make_shared<bool>(false);
    command->add_flag("--json", *as_json, "Print one JSON object");
    return [streams, as_json]() {
        const DeviceReport report = detectDevices();
        if (*as_json) {
            streams.out << deviceReportToJson(report, 2) << '\n';
        } else {
            for (const std::string &line : describeDevices(report)) {
                streams.out << line << '\n';
            }
        }
        return kExitSuccess;
    };
}

} // namespace headroom::cli
