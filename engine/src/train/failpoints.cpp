#include "train/failpoints.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace headroom::train {

Failpoints Failpoints::fromEnvironment() {
    const char *text = std::getenv("HEADROOM_FAILPOINT");
    return text == nullptr ? Failpoints() : parse(text);
}

Failpoints Failpoints::parse(const std::string &text) {
    Failpoints failpoints;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item.empty()) {
            continue;
        }
        const auto at = item.find("@step:");
        const std::string kind = item.substr(0, at);
        const bool known = kind == "nan_loss" || kind == "oom" || kind == "oom_eval" ||
                           kind == "error" || kind == "leak";
        if (at == std::string::npos || !known) {
            throw std::invalid_argument("HEADROOM_FAILPOINT: cannot read '" + item +
                                        "'; expected KIND@step:N with KIND one of nan_loss, oom, "
                                        "oom_eval, error, leak");
        }
        Point point;
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
        if (point.kind == kind && step >= point.step) {
            return true;
        }
    }
    return false;
}

bool Failpoints::at(const std::string &kind, std::int64_t step) const {
    for (const Point &point : points_) {
        if (point.kind == kind && point.step == step) {
            return true;
        }
    }
    return false;
}

} // namespace headroom::train
