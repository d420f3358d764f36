#pragma once

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace headroom::cli {

// Where a command writes: machine-readable output on `out`, people's text on `err`.
struct Streams {
    std::ostream &out;
    std::ostream &err;
};

// Each command adds its subcommand to the app and returns the function that runs it once
// parsing succeeded. The function returns an ExitCode.
using CommandRunner = std::function<int()>;

CommandRunner addDevicesCommand(CLI::App &app, Streams streams);
CommandRunner addNewCommand(CLI::App &app, Streams streams);
CommandRunner addTrainCommand(CLI::App &app, Streams streams);
CommandRunner addRunsCommand(CLI::App &app, Streams streams);
CommandRunner addExportCommand(CLI::App &app, Streams streams);
CommandRunner addEvaluateCommand(CLI::App &app, Streams streams);
CommandRunner addEstimateCommand(CLI::App &app, Streams streams);
CommandRunner addFitCommand(CLI::App &app, Streams streams);
CommandRunner addProfilesCommand(CLI::App &app, Streams streams);
CommandRunner addTokenizeCommand(CLI::App &app, Streams streams);
CommandRunner addGenerateCommand(CLI::App &app, Streams streams);
CommandRunner addEncodeCommand(CLI::App &app, Streams streams);
CommandRunner addProfileCommand(CLI::App &app, Streams streams);
CommandRunner addSettingsCommand(CLI::App &app, Streams streams);

} // namespace headroom::cli
