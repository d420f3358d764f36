// The gradient all-reduce overlapped with backward (distributed.overlap): gradients in buckets,
// each bucket's asynchronous all-reduce launched during the backward of a step's last
// micro-batch as soon as every gradient in it is final, as PyTorch's DDP reducer does.
#pragma once

#include "compat/process_group.h"

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace headroom::distributed {

// Which parameters share a bucket. From the parameters' sizes alone, so it is the same on
// every rank: in reverse order (backward finishes the last layers first), whole parameters,
// up to `capacity` elements a bucket; a parameter of `capacity` elements or more has a bucket
// of its own, reduced in place.
struct BucketLayout {
    struct Bucket {
        std::vector<std::size_t> parameters; // indices into the parameter list
        std::vector<std::int64_t> offsets;   // of each in the bucket's buffer
        std::int64_t numel = 0;
        bool alone = false; // capacity or more: reduced in place, not through a buffer
    };
    std::vector<Bucket> buckets;
    std::vector<std::int64_t> bucket_of; // by parameter; -1: not reduced (no gradient)
};
BucketLayout layoutBuckets(const std::vector<std::int64_t> &numels,
                           const std::vector<bool> &trainable, std::int64_t capacity);

// Every rank issues the buckets' all-reduces in bucket order, exactly once per step: during
// the backward of the last micro-batch for the buckets that became ready in order, the rest
// in finish(). Collectives pair up by order, so when a bucket goes out does not matter, only
// that it goes out once. A parameter's gradient is final when its AccumulateGrad node has run
// in that backward (a post hook on the node). What makes this hold:
// - earlier micro-batches send nothing (the reducer is armed for the last backward only);
// - a gradient that arrives more than once in a backward (a parameter used by several
//   activation-checkpointed blocks, each with its own backward) is learned in the first armed
//   backward after the parameters change (nothing goes out early there) and its bucket
//   waits for finish();
// - a parameter that gets no gradient (an expert that received no tokens) holds its bucket
//   and those after it until finish(), which sends zeros for it;
// - an out-of-memory error after some buckets went out: their sums are kept, the replay's
//   gradients of their parameters are dropped in finish(), and the replay's last backward
//   sends the others. The rank's share of the gradient does not depend on its micro-batch, so
//   the sums are those of the replay (up to rounding).
class OverlappedReducer {
public:
    // `bucket_bytes`: fp32 bytes a bucket holds. `check_in` runs before the step's first
    // collective; `fail` turns a failed collective into the exception to throw.
    OverlappedReducer(compat::ProcessGroup &group, std::int64_t bucket_bytes,
                      std::function<void()> check_in,
                      std::function<void(const std::exception &)> fail);
    ~OverlappedReducer();
    OverlappedReducer(const OverlappedReducer &) = delete;
    OverlappedReducer &operator=(const OverlappedReducer &) = delete;

    // A new step over these parameters (the optimizer's): lays the buckets out and hooks the
    // gradient accumulators again when they are other tensors than last step's.
    void beginStep(const std::vector<torch::Tensor> &parameters);
    // Around the backward of the step's last micro-batch; completed: it returned normally.
    void arm();
    void disarm(bool completed);
    // The model changed (a ladder rung): the next armed backward learns again which
    // gradients arrive more than once.
    void relearn() { learning_ = true; }
    // After the step's backward (or the out-of-memory error this rank could not recover
    // from): sends the buckets not sent yet and waits for all. Every reduced gradient then
    // holds the sum over the ranks (zeros where this rank had none). Returns, by parameter,
    // whether this rank produced the gradient.
    std::vector<bool> finish(const std::vector<torch::Tensor> &parameters);

    // Runs after a bucket went out during backward (a test's failpoint).
    void setAfterEarlyLaunch(std::function<void(std::size_t bucket)> callback) {
        after_early_launch_ = std::move(callback);
    }
    // Buckets of the step that went out during backward, and in all.
    std::size_t launchedEarly() const { return launched_early_; }
    std::size_t bucketCount() const { return layout_.buckets.size(); }
    // The bucket buffers, one fp32 block on the group's device (the exchange's other
    // collectives reuse it).
    const torch::Tensor &buffers() const { return pool_; }

private:
    struct Hooks;
    struct InFlight {
        std::size_t bucket = 0;
        int slot = -1; // pool slot; -1: a bucket alone (in place or through its own copy)
        bool in_place = false;
        torch::Tensor buffer;
        compat::PendingCollective pending;
    };
    void rebuild(const std::vector<torch::Tensor> &parameters);
    void ready(std::size_t parameter);
    void launchReadyBuckets();
    void launch(std::size_t bucket);
    void finishOldest();
    int takeSlot();

    compat::ProcessGroup &group_;
    std::int64_t capacity_ = 0;
    std::function<void()> check_in_;
    std::function<void(const std::exception &)> fail_;
    std::function<void(std::size_t)> after_early_launch_;

    std::vector<torch::Tensor> parameters_;
    BucketLayout layout_;
    std::shared_ptr<Hooks> hooks_;
    torch::Tensor pool_; // slots x slot_numel_ fp32
    std::int64_t slot_numel_ = 0;
    std::vector<bool> slot_busy_;

    // Per parameter.
    std::vector<bool> hooked_; // its accumulator has the hook
    std::vector<bool> arrives_more_than_once_;
    std::vector<int> arrivals_;       // in the current armed backward
    std::vector<bool> produced_;      // this step, when its bucket went out
    std::vector<torch::Tensor> sums_; // the tensor its bucket's sum lands in
    // Per bucket, for the current armed backward: parameters still to arrive.
    std::vector<std::int64_t> waiting_;
    std::vector<bool> held_; // waits for finish() whatever arrives

    bool stale_ = false; // the parameters moved: hook them again at the next step
    bool armed_ = false;
    bool learning_ = true;
    std::int64_t attempt_ = 0;                   // armed backwards this step
    std::vector<std::int64_t> launched_attempt_; // per launched bucket
    std::size_t next_ = 0;                       // buckets [0, next_) went out this step
    std::size_t launched_early_ = 0;
    std::deque<InFlight> in_flight_;
};

} // namespace headroom::distributed
