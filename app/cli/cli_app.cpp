#include "cli/cli_app.h"

#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/version.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <map>
#include <ostream>
#include <string>

namespace headroom::cli {

namespace {

bool looksLikeOption(const std::string &argument) {
    return !argument.empty() && argument[0] == '-';
}

} // namespace

bool commandComputes(int argc, const char *const *argv) {
    if (argc < 2) {
        return false;
    }
    const std::string command = argv[1];
    // devices --calibrate measures speed: it must run as training does.
    const bool calibrates =
        command == "devices" && std::find_if(argv + 2, argv + argc, [](const char *argument) {
                                    return std::string(argument) == "--calibrate";
                                }) != argv + argc;
    return command == "train" || command == "fit" || command == "export" || command == "generate" ||
           command == "profile" || calibrates;
}

int runCli(int argc, const char *const *argv, std::ostream &out, std::ostream &err) {
    CLI::App app("Headroom: train real models on modest hardware without out-of-memory errors",
                 "headroom-cli");
    app.set_version_flag("--version", std::string("headroom-cli ") + kVersion);
    app.require_subcommand(1);
    app.fallthrough(false);

    const Streams streams{out, err};
    std::map<std::string, CommandRunner> runners;
    runners["devices"] = addDevicesCommand(app, streams);
    runners["new"] = addNewCommand(app, streams);
    runners["profiles"] = addProfilesCommand(app, streams);
    runners["estimate"] = addEstimateCommand(app, streams);
    runners["plan"] = runners["estimate"]; // its alias
    runners["fit"] = addFitCommand(app, streams);
    runners["train"] = addTrainCommand(app, streams);
    runners["runs"] = addRunsCommand(app, streams);
    runners["export"] = addExportCommand(app, streams);
    runners["evaluate"] = addEvaluateCommand(app, streams);
    runners["tokenize"] = addTokenizeCommand(app, streams);
    runners["generate"] = addGenerateCommand(app, streams);
    runners["encode"] = addEncodeCommand(app, streams);
    runners["profile"] = addProfileCommand(app, streams);
    runners["settings"] = addSettingsCommand(app, streams);

    // Name an unknown command or option plainly: CLI11 would first complain that a
    // subcommand is missing.
    if (argc > 1) {
        const std::string first = argv[1];
        const bool known_option = first == "-h" || first == "--help" || first == "--version";
        if (looksLikeOption(first) && !known_option) {
            err << "headroom-cli: unknown option '" << first << "'\n\n" << app.help();
            return kExitBadInput;
        }
        if (!looksLikeOption(first) && runners.count(first) == 0) {
            err << "headroom-cli: unknown command '" << first << "'\n\n" << app.help();
            return kExitBadInput;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        out << app.help();
        return kExitSuccess;
    } catch (const CLI::CallForVersion &version) {
        out << version.what() << '\n';
        return kExitSuccess;
    } catch (const CLI::ParseError &error) {
        // help() delegates to the subcommand being parsed, so usage matches the mistake.
        err << "headroom-cli: " << error.what() << "\n\n" << app.help();
        return kExitBadInput;
    }

    try {
        for (const CLI::App *sub : app.get_subcommands()) {
            return runners.at(sub->get_name())();
        }
    } catch (const InputError &error) {
        err << "headroom-cli: " << error.what() << '\n';
        return kExitBadInput;
    } catch (const ProjectError &error) {
        err << "headroom-cli: " << error.what() << '\n';
        return kExitBadInput;
    } catch (const std::exception &error) {
        err << "headroom-cli: internal error: " << error.what() << '\n';
        return kExitInternalError;
    }
    return kExitInternalError;
}

} // namespace headroom::cli
