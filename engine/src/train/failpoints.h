#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::train {

// Deliberate faults for tests, from HEADROOM_FAILPOINT: a comma-separated list of
// `KIND@step:N`, e.g. `nan_loss@step:3`. Unknown kinds are rejected so a typo is not silently
// ignored.
class Failpoints {
public:
    static Failpoints fromEnvironment();
    static Failpoints parse(const std::string &text); // throws std::invalid_argument

    bool nanLossAt(std::int64_t step) const;

private:
    struct Point {
        std::string kind;
        std::int64_t step = 0;
    };
    std::vector<Point> points_;
};

} // namespace headroom::train
