#include "cli/cli_app.h"

#include <headroom/engine.h>

#include <iostream>

int main(int argc, char **argv) {
    if (headroom::cli::commandComputes(argc, argv)) {
        headroom::relaunchWithTunedRuntime(argc, argv);
    }
    headroom::initializeEngine();
    return headroom::cli::runCli(argc, argv, std::cout, std::cerr);
}
