#include "distributed/gradient_buckets.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace headroom::distributed {

namespace {

// The bucket buffers together stay within what the plan counts for the gradient exchange.
constexpr std::int64_t kPoolBytes = 16 << 20;
constexpr std::int64_t kMaxSlots = 4;

bool sameTensors(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_same(b[i])) {
            return false;
        }
    }
    return true;
}

using Arrival = std::function<void(std::size_t)>;

// Runs after the engine has added a backward's gradient into the parameter's .grad.
class ArrivalHook final : public torch::autograd::FunctionPostHook {
public:
    ArrivalHook(std::shared_ptr<Arrival> arrival, std::size_t index)
        : arrival_(std::move(arrival)), index_(index) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list &outputs,
                                              const torch::autograd::variable_list &) override {
        if (*arrival_) {
            (*arrival_)(index_);
        }
        return outputs;
    }

private:
    std::shared_ptr<Arrival> arrival_;
    std::size_t index_;
};

} // namespace

BucketLayout layoutBuckets(const std::vector<std::int64_t> &numels,
                           const std::vector<bool> &trainable, std::int64_t capacity) {
    BucketLayout layout;
    layout.bucket_of.assign(numels.size(), -1);
    BucketLayout::Bucket open;
    const auto close = [&] {
        if (!open.parameters.empty()) {
            layout.buckets.push_back(std::move(open));
            open = {};
        }
    };
    for (std::size_t k = numels.size(); k-- > 0;) {
        if (!trainable[k] || numels[k] == 0) {
            continue;
        }
        if (numels[k] >= capacity) {
            close();
            BucketLayout::Bucket alone;
            alone.parameters = {k};
            alone.offsets = {0};
            alone.numel = numels[k];
            alone.alone = true;
            layout.bucket_of[k] = static_cast<std::int64_t>(layout.buckets.size());
            layout.buckets.push_back(std::move(alone));
            continue;
        }
        if (open.numel + numels[k] > capacity) {
            close();
        }
        layout.bucket_of[k] = static_cast<std::int64_t>(layout.buckets.size());
        open.parameters.push_back(k);
        open.offsets.push_back(open.numel);
        open.numel += numels[k];
    }
    close();
    return layout;
}

struct OverlappedReducer::Hooks {
    std::shared_ptr<Arrival> arrival = std::make_shared<Arrival>();
    std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, std::uintptr_t>> installed;
    ~Hooks() {
        *arrival = nullptr;
        for (auto &[node, key] : installed) {
            node->del_post_hook(key);
        }
    }
};

OverlappedReducer::OverlappedReducer(compat::ProcessGroup &group, std::int64_t bucket_bytes,
                                     std::function<void()> check_in,
                                     std::function<void(const std::exception &)> fail)
    : group_(group), capacity_(std::max<std::int64_t>(1, bucket_bytes / 4)),
      check_in_(std::move(check_in)), fail_(std::move(fail)) {}

OverlappedReducer::~OverlappedReducer() = default;

void OverlappedReducer::rebuild(const std::vector<torch::Tensor> &parameters) {
    hooks_.reset();
    parameters_ = parameters;
    stale_ = false;
    const std::size_t count = parameters.size();
    std::vector<std::int64_t> numels(count);
    std::vector<bool> trainable(count);
    for (std::size_t i = 0; i < count; ++i) {
        numels[i] = parameters[i].numel();
        trainable[i] = parameters[i].requires_grad();
    }
    layout_ = layoutBuckets(numels, trainable, capacity_);
    arrives_more_than_once_.assign(count, false);
    hooked_.assign(count, false);
    arrivals_.assign(count, 0);
    waiting_.assign(layout_.buckets.size(), 0);
    held_.assign(layout_.buckets.size(), true);
    launched_attempt_.assign(layout_.buckets.size(), -1);
    learning_ = true;

    hooks_ = std::make_shared<Hooks>();
    *hooks_->arrival = [this](std::size_t index) {
        ready(index);
    };
    for (std::size_t i = 0; i < count; ++i) {
        if (layout_.bucket_of[i] < 0 || !parameters[i].is_leaf()) {
            continue;
        }
        std::shared_ptr<torch::autograd::Node> node =
            torch::autograd::impl::grad_accumulator(parameters[i]);
        if (!node) {
            continue;
        }
        // Holding the node keeps it the parameter's accumulator in every later graph.
        const std::uintptr_t key =
            node->add_post_hook(std::make_unique<ArrivalHook>(hooks_->arrival, i));
        hooks_->installed.emplace_back(std::move(node), key);
        hooked_[i] = true;
    }

    std::int64_t pooled = 0;
    slot_numel_ = 0;
    for (const BucketLayout::Bucket &bucket : layout_.buckets) {
        if (!bucket.alone) {
            ++pooled;
            slot_numel_ = std::max(slot_numel_, bucket.numel);
        }
    }
    const std::int64_t slots =
        std::min({pooled, kMaxSlots, std::max<std::int64_t>(1, kPoolBytes / (4 * capacity_))});
    pool_ = slots > 0 ? torch::empty({slots, slot_numel_},
                                     torch::TensorOptions(torch::kFloat32).device(group_.device()))
                      : torch::Tensor();
    slot_busy_.assign(static_cast<std::size_t>(slots), false);
}

void OverlappedReducer::beginStep(const std::vector<torch::Tensor> &parameters) {
    if (stale_ || !hooks_ || !sameTensors(parameters, parameters_)) {
        rebuild(parameters);
    }
    const std::size_t count = parameters_.size();
    produced_.assign(count, false);
    sums_.assign(count, torch::Tensor());
    next_ = 0;
    attempt_ = 0;
    launched_early_ = 0;
}

void OverlappedReducer::arm() {
    armed_ = true;
    ++attempt_;
    std::fill(arrivals_.begin(), arrivals_.end(), 0);
    for (std::size_t b = next_; b < layout_.buckets.size(); ++b) {
        const BucketLayout::Bucket &bucket = layout_.buckets[b];
        waiting_[b] = static_cast<std::int64_t>(bucket.parameters.size());
        held_[b] = false;
        for (const std::size_t i : bucket.parameters) {
            if (!hooked_[i] || arrives_more_than_once_[i]) {
                held_[b] = true;
            }
        }
    }
}

void OverlappedReducer::disarm(bool completed) {
    armed_ = false;
    if (learning_ && completed) {
        for (std::size_t i = 0; i < arrivals_.size(); ++i) {
            if (arrivals_[i] > 1) {
                arrives_more_than_once_[i] = true;
            }
        }
        learning_ = false;
    }
}

void OverlappedReducer::ready(std::size_t parameter) {
    if (!armed_) {
        return;
    }
    const std::int64_t bucket = layout_.bucket_of[parameter];
    if (bucket < 0) {
        return;
    }
    const auto index = static_cast<std::size_t>(bucket);
    ++arrivals_[parameter];
    if (learning_) {
        return;
    }
    if (index < next_) {
        if (launched_attempt_[index] == attempt_) {
            throw std::logic_error(
                "data parallel: the gradient of parameter " + std::to_string(parameter) +
                " arrived again after its bucket had been sent (the model changed how often "
                "it uses it); set distributed.overlap=0");
        }
        return; // sent before an out-of-memory replay: finish() drops the replay's gradient
    }
    if (arrivals_[parameter] > 1) {
        arrives_more_than_once_[parameter] = true;
        held_[index] = true;
        return;
    }
    if (--waiting_[index] == 0) {
        launchReadyBuckets();
    }
}

void OverlappedReducer::launchReadyBuckets() {
    while (next_ < layout_.buckets.size() && !held_[next_] && waiting_[next_] == 0) {
        const std::size_t bucket = next_;
        launch(bucket);
        ++launched_early_;
        if (after_early_launch_) {
            const auto callback = after_early_launch_; // it may replace itself
            callback(bucket);
        }
    }
}

int OverlappedReducer::takeSlot() {
    for (;;) {
        for (std::size_t slot = 0; slot < slot_busy_.size(); ++slot) {
            if (!slot_busy_[slot]) {
                slot_busy_[slot] = true;
                return static_cast<int>(slot);
            }
        }
        finishOldest();
    }
}

void OverlappedReducer::launch(std::size_t index) {
    const BucketLayout::Bucket &bucket = layout_.buckets[index];
    if (next_ == 0) {
        check_in_();
    }
    const torch::NoGradGuard no_grad;
    for (const std::size_t i : bucket.parameters) {
        torch::Tensor parameter = parameters_[i];
        torch::Tensor grad = parameter.grad();
        produced_[i] = grad.defined();
        if (!grad.defined()) {
            grad = torch::zeros_like(parameter);
            parameter.mutable_grad() = grad;
        }
        sums_[i] = grad;
    }
    InFlight flight;
    flight.bucket = index;
    if (bucket.alone) {
        const torch::Tensor &grad = sums_[bucket.parameters.front()];
        // In place when the group can reduce the gradient itself: fp32 on its device (the CPU
        // for Gloo, the rank's GPU for NCCL), else through a copy there.
        flight.in_place = grad.device() == group_.device() &&
                          grad.scalar_type() == torch::kFloat32 && grad.is_contiguous();
        flight.buffer = flight.in_place
                            ? grad.view({-1})
                            : grad.to(group_.device(), torch::kFloat32).contiguous().view({-1});
    } else {
        flight.slot = takeSlot();
        flight.buffer = pool_[flight.slot].narrow(0, 0, bucket.numel);
        for (std::size_t k = 0; k < bucket.parameters.size(); ++k) {
            const torch::Tensor &grad = sums_[bucket.parameters[k]];
            flight.buffer.narrow(0, bucket.offsets[k], grad.numel()).copy_(grad.reshape({-1}));
        }
    }
    try {
        flight.pending = group_.allReduceSumAsync(flight.buffer);
    } catch (const std::exception &error) {
        fail_(error);
        throw;
    }
    launched_attempt_[index] = attempt_;
    in_flight_.push_back(std::move(flight));
    ++next_;
}

void OverlappedReducer::finishOldest() {
    InFlight flight = std::move(in_flight_.front());
    in_flight_.pop_front();
    try {
        flight.pending.wait();
    } catch (const std::exception &error) {
        fail_(error);
        throw;
    }
    if (!flight.in_place) {
        const torch::NoGradGuard no_grad;
        const BucketLayout::Bucket &bucket = layout_.buckets[flight.bucket];
        for (std::size_t k = 0; k < bucket.parameters.size(); ++k) {
            torch::Tensor &sum = sums_[bucket.parameters[k]];
            sum.copy_(flight.buffer.narrow(0, bucket.offsets[k], sum.numel()).view(sum.sizes()));
        }
    }
    if (flight.slot >= 0) {
        slot_busy_[static_cast<std::size_t>(flight.slot)] = false;
    }
}

std::vector<bool> OverlappedReducer::finish(const std::vector<torch::Tensor> &parameters) {
    const bool same = sameTensors(parameters, parameters_);
    if (!same) {
        // The model moved (device.fallback) after buckets went out: their sums move with it.
        while (!in_flight_.empty()) {
            finishOldest();
        }
    }
    for (std::size_t b = 0; b < next_; ++b) {
        for (const std::size_t i : layout_.buckets[b].parameters) {
            torch::Tensor parameter = parameters[i];
            if (!same) {
                sums_[i] = sums_[i].to(parameter.options());
            }
            parameter.mutable_grad() = sums_[i];
        }
    }
    if (!same) {
        parameters_ = parameters;
        stale_ = true;
    }
    while (next_ < layout_.buckets.size()) {
        launch(next_);
    }
    while (!in_flight_.empty()) {
        finishOldest();
    }
    sums_.assign(sums_.size(), torch::Tensor());
    return produced_;
}

} // namespace headroom::distributed
