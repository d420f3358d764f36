#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::train {

// Deliberate faults for tests, from HEADROOM_FAILPOINT: a comma-separated list of
// `KIND@step:N`. Kinds: nan_loss (the step's loss becomes NaN), oom (the step's first
// allocation of 64 KiB or more fails with a real c10::OutOfMemoryError), oom_eval (the same in
// the validation pass after step N), error (the step throws an ordinary c10::Error), leak
// (from step N on, every step keeps 256 KiB more alive). Unknown
// kinds are rejected so a typo is not silently ignored.
class Failpoints {
public:
    static Failpoints fromEnvironment();
    static Failpoints parse(const std::string &text); // throws std::invalid_argument

    bool at(const std::string &kind, std::int64_t step) const;
    bool atOrAfter(const std::string &kind, std::int64_t step) const;

private:
    struct Point {
        std::string kind;
        std::int64_t step = 0;
    };
    std::vector<Point> points_;
};

} // namespace headroom::train
