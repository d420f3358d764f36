#include "distributed/launch_environment.h"

#include <headroom/config.h>

#include <cstdlib>
#include <limits>

namespace headroom::distributed {

namespace {

// Whole decimal numbers only: "2x", "", " 2" and overflow are refused.
std::optional<long long> parseInteger(const std::string &text) {
    if (text.empty() || text.size() > 18) {
        return std::nullopt;
    }
    long long value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + (c - '0');
    }
    return value;
}

long long integerVariable(const EnvironmentLookup &lookup, const char *name, long long min,
                          long long max, const std::string &meaning) {
    const char *text = lookup(name);
    if (text == nullptr) {
        throw ConfigError(std::string(name) + " is not set; a distributed run needs " + meaning);
    }
    const std::optional<long long> value = parseInteger(text);
    if (!value || *value < min || *value > max) {
        throw ConfigError(std::string(name) + "='" + text + "' is not valid: expected " + meaning +
                          ", a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max));
    }
    return *value;
}

} // namespace

std::optional<LaunchEnvironment> readLaunchEnvironment(const EnvironmentLookup &lookup) {
    if (lookup("WORLD_SIZE") == nullptr && lookup("RANK") == nullptr) {
        return std::nullopt;
    }
    constexpr long long kMaxRanks = 1 << 20;
    LaunchEnvironment environment;
    environment.world_size = static_cast<int>(
        integerVariable(lookup, "WORLD_SIZE", 1, kMaxRanks, "the number of ranks"));
    environment.rank = static_cast<int>(integerVariable(
        lookup, "RANK", 0, environment.world_size - 1, "this process's rank below WORLD_SIZE"));
    if (environment.world_size == 1) {
        return std::nullopt;
    }
    environment.local_rank =
        lookup("LOCAL_RANK") == nullptr
            ? environment.rank
            : static_cast<int>(integerVariable(lookup, "LOCAL_RANK", 0, kMaxRanks,
                                               "this process's rank on its machine"));
    const char *addr = lookup("MASTER_ADDR");
    if (addr == nullptr || *addr == '\0') {
        throw ConfigError("MASTER_ADDR is not set; a distributed run needs the address of "
                          "rank 0's machine (127.0.0.1 on one machine)");
    }
    environment.master_addr = addr;
    environment.master_port = static_cast<std::uint16_t>(
        integerVariable(lookup, "MASTER_PORT", 1, std::numeric_limits<std::uint16_t>::max(),
                        "the TCP port rank 0 listens on for the rendezvous"));
    return environment;
}

std::optional<LaunchEnvironment> launchEnvironmentOfProcess() {
    return readLaunchEnvironment([](const char *name) { return std::getenv(name); });
}

} // namespace headroom::distributed
