#pragma once

#include <iosfwd>

namespace headroom::cli {

// Parses the arguments, runs the chosen command and returns its exit code. Never throws.
int runCli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

// Whether the command trains (train, fit): only those are worth re-executing the process with
// the tuned threading and allocator environment, which costs another LibTorch load (~0.4 s).
bool commandTrains(int argc, const char *const *argv);

} // namespace headroom::cli
