#pragma once

#include <chrono>
#include <string>

namespace headroom::project {

// ISO 8601 in UTC with milliseconds: "2026-01-31T17:04:05.123Z".
std::string isoTimestamp(std::chrono::system_clock::time_point time);
std::string isoTimestampNow();

} // namespace headroom::project
