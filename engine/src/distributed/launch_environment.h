// The torchrun-style environment that makes a process one rank of a distributed run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace headroom::distributed {

struct LaunchEnvironment {
    int rank = 0;
    int world_size = 1;
    int local_rank = 0;
    std::string master_addr;
    std::uint16_t master_port = 0;
};

// Returns the variable's value, or nullptr when it is unset (std::getenv's contract).
using EnvironmentLookup = std::function<const char *(const char *)>;

// Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT. nullopt without WORLD_SIZE
// and RANK, or with WORLD_SIZE=1: a single-process run. Throws ConfigError naming the variable
// that is missing or wrong.
std::optional<LaunchEnvironment> readLaunchEnvironment(const EnvironmentLookup &lookup);
std::optional<LaunchEnvironment> launchEnvironmentOfProcess();

} // namespace headroom::distributed
