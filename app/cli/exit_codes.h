#pragma once

namespace headroom::cli {

// The CLI contract's exit codes: scripts and tests rely on them.
enum ExitCode : int {
    kExitSuccess = 0,
    kExitInternalError = 1,
    kExitBadInput = 2,
    kExitCannotContinue = 3,
};

} // namespace headroom::cli
