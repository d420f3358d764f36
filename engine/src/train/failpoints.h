#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::train {

// Deliberate faults for tests, from HEADROOM_FAILPOINT: a comma-separated list of
// `KIND@step:N`. Kinds: nan_loss (the step's loss becomes NaN), oom (the step's first
// allocation of 64 KiB or more fails with a real c10::OutOfMemoryError), oom_eval (the same in
// the validation pass after step N), error (the step throws an ordinary c10::Error), leak
// (from step N on, every step keeps 256 KiB more alive), kill (the process kills itself with
// SIGKILL at the start of step N, as a crash or the OOM killer would), stop (a stop is asked
// at the start of step N, as Ctrl+C or the Stop button would), fallback (an out-of-memory
// error at step N is handled as on a GPU with nothing left to try: with device.fallback=cpu
// the run moves to the CPU; pair it with oom@step:N), oom_backward (an allocation fails in the
// backward of the step's last micro-batch: in a distributed run with distributed.overlap,
// right after its first gradient bucket went out; elsewhere at its start). `KIND@step:N@rank:R`
// fires only in rank R of a distributed run (RANK), so one environment serves every rank.
// Unknown kinds are rejected so a typo is not silently ignored.
class Failpoints {
public:
    static Failpoints fromEnvironment();
    // rank: this process's rank (RANK; 0 in a single-process run). Throws std::invalid_argument.
    static Failpoints parse(const std::string &text, int rank = 0);

    bool at(const std::string &kind, std::int64_t step) const;
    bool atOrAfter(const std::string &kind, std::int64_t step) const;

private:
    struct Point {
        std::string kind;
        std::int64_t step = 0;
        int rank = -1; // -1: every rank
    };
    bool applies(const Point &point) const { return point.rank < 0 || point.rank == rank_; }
    std::vector<Point> points_;
    int rank_ = 0;
};

} // namespace headroom::train
