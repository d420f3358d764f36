#pragma once

#include <headroom/config.h>

#include <string>

namespace headroom {

// The first key (in registry order) whose name starts with `prefix` and whose value is not its
// default; nullptr when every such key is at its default.
const KeySpec *firstChangedKey(const Config &config, const std::string &prefix);

} // namespace headroom
