#include "train/failpoints.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace headroom::train {

Failpoints Failpoints::fromEnvironment() {
    const char *text = std::getenv("HEADROOM_FAILPOINT");
    const char *rank = std::getenv("RANK");
    int this_rank = 0;
    try {
        this_rank = rank == nullptr ? 0 : std::stoi(rank);
    } catch (const std::exception &) {
        // A bad RANK is reported by the distributed setup, naming the variable.
    }
    return text == nullptr ? Failpoints() : parse(text, this_rank);
}

Failpoints Failpoints::parse(const std::string &text, int rank) {
    Failpoints failpoints;
    failpoints.rank_ = rank;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item.empty()) {
            continue;
        }
        Point point;
        if (const auto at_rank = item.find("@rank:"); at_rank != std::string::npos) {
            try {
                point.rank = std::stoi(item.substr(at_rank + 6));
            } catch (const std::exception &) {
                throw std::invalid_argument("HEADROOM_FAILPOINT: bad rank in '" + item + "'");
            }
            item = item.substr(0, at_rank);
        }
        const auto at = item.find("@step:");
        const std::string kind = item.substr(0, at);
        const bool known = kind == "nan_loss" || kind == "oom" || kind == "oom_eval" ||
                           kind == "error" || kind == "leak" || kind == "kill" || kind == "stop" ||
                           kind == "fallback" || kind == "oom_backward";
        if (at == std::string::npos || !known) {
            throw std::invalid_argument("HEADROOM_FAILPOINT: cannot read '" + item +
                                        "'; expected KIND@step:N[@rank:R] with KIND one of "
                                        "nan_loss, oom, oom_eval, oom_backward, error, leak, "
                                        "kill, stop, fallback");
        }
        point.kind = kind;
        try {
            point.step = std::stoll(item.substr(at + 6));
        } catch (const std::exception &) {
            throw std::invalid_argument("HEADROOM_FAILPOINT: bad step in '" + item + "'");
        }
        failpoints.points_.push_back(point);
    }
    return failpoints;
}

bool Failpoints::atOrAfter(const std::string &kind, std::int64_t step) const {
    for (const Point &point : points_) {
        if (point.kind == kind && step >= point.step && applies(point)) {
            return true;
        }
    }
    return false;
}

bool Failpoints::at(const std::string &kind, std::int64_t step) const {
    for (const Point &point : points_) {
        if (point.kind == kind && point.step == step && applies(point)) {
            return true;
        }
    }
    return false;
}

} // namespace headroom::train
