// `train --nproc N`: N local ranks of a distributed run as child processes of headroom-cli.
#pragma once

#include "cli/commands.h"

#include <chrono>
#include <string>
#include <vector>

namespace headroom::cli {

struct LocalRanksRequest {
    int ranks = 2;
    // The command line each rank runs, without the program: {"train", PROJECT, ...}.
    std::vector<std::string> arguments;
    // How long the other ranks get to end by themselves once one failed (their own
    // distributed.timeout_s and some): after it they are killed.
    std::chrono::seconds grace{330};
};

// Starts the ranks with the torchrun variables (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT a free port) and OMP_NUM_THREADS
// splitting the cores unless it is set. Forwards rank 0's stdout and stderr as they are and the
// other ranks' stderr prefixed with "[rank R] " (their stdout repeats rank 0's). Returns the
// exit code of the run: 0 when every rank succeeded; else the first failing rank's code, 3 when
// it was killed; the message names that rank and how it ended.
int runLocalRanks(const LocalRanksRequest &request, Streams streams);

} // namespace headroom::cli
