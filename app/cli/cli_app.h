#pragma once

#include <iosfwd>

namespace headroom::cli {

// Parses the arguments, runs the chosen command and returns its exit code. Never throws.
int runCli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

} // namespace headroom::cli
