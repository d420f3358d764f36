#pragma once

#include <iosfwd>

namespace headroom::cli {

// Parses the arguments, runs the chosen command and returns its exit code. Never throws.
int runCli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

// Whether the command computes with LibTorch (train, fit, export's LoRA merge, generate):
// only those re-execute the process with the tuned threading, BLAS and allocator environment,
// which costs another LibTorch load (~0.4 s). They must all run with the same BLAS kernels, or
// a merge done by export and the same merge done by train differ in the last bits (and the
// desktop app, always tuned, could generate other tokens than the CLI). Generating one token
// at a time untuned is 2-8x slower: libgomp's idle threads spin between the small operations.
bool commandComputes(int argc, const char *const *argv);

} // namespace headroom::cli
