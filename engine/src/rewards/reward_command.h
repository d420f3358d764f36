#pragma once

#include "rewards/rewards.h"

#include <string>
#include <vector>

namespace headroom::rewards {

// The command: reward. Runs `/bin/sh -c COMMAND` in its own process group (in
// working_directory when it is not empty), writes one JSON line per sample to its standard input,
//   {"prompt": "...", "completion": "...", "record": {...the data record...} or null}
// then closes it, and reads one number per non-empty line of its standard output, one per sample
// in order. Every problem throws RewardError with a message that starts with
// "reward command `COMMAND` " and ends with the tail of its standard error when it printed any.
// After timeout_s seconds (no limit when it is not positive) the whole process group is killed.
// Not available on Windows (throws RewardError).
std::vector<double> runRewardCommand(const std::string &command, const std::vector<Sample> &samples,
                                     double timeout_s, const std::string &working_directory);

} // namespace headroom::rewards
