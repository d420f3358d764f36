#pragma once

#include <cstdint>
#include <optional>

namespace headroom::train {

// How an optimizer step's effective batch E is cut into micro-batches. E never changes during
// a run; out-of-memory recovery only makes the micro-batches smaller and more numerous.
struct BatchShape {
    std::int64_t effective_batch = 1;
    std::int64_t micro_batch = 1;

    std::int64_t accumulation() const { return (effective_batch + micro_batch - 1) / micro_batch; }
};

// The next rung down after an out-of-memory error: half the micro-batch (E unchanged), or
// nothing when the minimum micro-batch or the recovery limit is reached.
class OomBackoff {
public:
    OomBackoff(std::int64_t min_micro_batch, std::int64_t max_recoveries)
        : min_micro_batch_(min_micro_batch), max_recoveries_(max_recoveries) {}

    std::optional<BatchShape> next(const BatchShape &shape) {
        if (recoveries_ >= max_recoveries_ || shape.micro_batch <= min_micro_batch_) {
            return std::nullopt;
        }
        ++recoveries_;
        BatchShape smaller = shape;
        smaller.micro_batch = std::max(min_micro_batch_, shape.micro_batch / 2);
        return smaller;
    }

    std::int64_t recoveries() const { return recoveries_; }

private:
    std::int64_t min_micro_batch_;
    std::int64_t max_recoveries_;
    std::int64_t recoveries_ = 0;
};

} // namespace headroom::train
