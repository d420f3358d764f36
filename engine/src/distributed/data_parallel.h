// Data-parallel training over c10d: which examples of a step a rank trains on, and the
// gradient all-reduce that makes every rank's update the single-process update.
#pragma once

#include "compat/process_group.h"
#include "distributed/gradient_buckets.h"
#include "distributed/launch_environment.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::distributed {

// A rank or the connection between ranks failed; the message names the rank.
class DistributedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A rank's examples of a step: a contiguous block of the step's effective batch, the first
// total % world_size ranks taking one more. Contiguous so that global positions (which key
// dropout, models/keyed_dropout.h) stay contiguous inside every micro-batch.
struct RankShare {
    std::size_t first = 0;
    std::size_t count = 0;
};
RankShare rankShare(std::size_t total, int rank, int world_size);

// distributed.backend: Gloo (tensors through host memory) or NCCL (tensors on the rank's GPU).
enum class Backend { Gloo, Nccl };
const char *backendName(Backend backend);
// auto = NCCL when the run's device is CUDA and the build has NCCL, else Gloo. Throws
// ConfigError for nccl without NCCL in the build or off CUDA, and for gloo without Gloo.
Backend chooseBackend(const std::string &requested, const torch::Device &device, bool nccl_built,
                      bool gloo_built);

class DataParallel {
public:
    // Rendezvous and group creation; `device`: the rank's GPU with NCCL. Throws
    // DistributedError when the ranks cannot meet within the timeout.
    static std::unique_ptr<DataParallel> connect(const LaunchEnvironment &environment,
                                                 std::chrono::milliseconds timeout, Backend backend,
                                                 const torch::Device &device);

    int rank() const { return environment_.rank; }
    int worldSize() const { return environment_.world_size; }
    bool isLeader() const { return environment_.rank == 0; }
    std::string backend() const { return group_->backend(); }
    RankShare share(std::size_t total) const {
        return rankShare(total, environment_.rank, environment_.world_size);
    }

    // Sums every parameter's gradient and `loss` over the ranks, in place (with the overlap
    // enabled, the buckets that did not go out during backward, then a wait for all). Each rank
    // weighted its micro-batches by their share of the whole step's batch, so the sum is the
    // single-process gradient and loss. A gradient none of the ranks produced stays undefined.
    // Exchanged in the same collective: every rank's micro-batch of this step (indexed by
    // rank; a rank that recovered from an out-of-memory error ran a smaller one), and whether
    // any rank was asked to stop (all then stop after this step).
    // And whether a rank ran out of memory with nothing left to try: then no rank updates,
    // and all pause at the step's start (failed_rank: the lowest such rank, or -1).
    // Each rank's peak memory and the time it spent on its examples travel along (per-rank
    // figures of the step, recorded by rank 0).
    struct StepReport {
        std::int64_t micro_batch = 0;
        bool stop_requested = false;
        bool cannot_continue = false;
        std::uint64_t peak_bytes = 0;
        double compute_seconds = 0;
        std::int64_t examples = 0;
    };
    struct RankFigures {
        std::uint64_t peak_bytes = 0;
        double compute_seconds = 0;
        std::int64_t examples = 0;
    };
    struct StepExchange {
        std::vector<std::int64_t> micro_batches;
        bool stop = false;
        int failed_rank = -1;
        std::vector<RankFigures> figures; // by rank
    };
    StepExchange allReduceGradients(const std::vector<torch::Tensor> &parameters, double &loss,
                                    std::int64_t step, const StepReport &report);
    // distributed.overlap: buckets of `bucket_bytes` go out during the backward of each step's
    // last micro-batch (gradient_buckets.h). Every rank must make the same choice.
    void enableOverlap(std::int64_t bucket_bytes);
    // Before the step's first micro-batch (whatever the path).
    void beginStep(const std::vector<torch::Tensor> &parameters, std::int64_t step);
    // Null unless enabled: arm()/disarm() around the backward of the step's last
    // micro-batch; allReduceGradients() sends the rest.
    OverlappedReducer *overlap() { return overlap_.get(); }
    // Rank 0's values of the parameters on every rank.
    void broadcastParameters(const std::vector<torch::Tensor> &parameters);
    // Each rank r's values of parameters[boundaries[r] .. boundaries[r + 1]) on every rank
    // (after a sharded optimizer step; `label` names the step in messages).
    void broadcastRanges(const std::vector<torch::Tensor> &parameters,
                         const std::vector<std::size_t> &boundaries, const std::string &label);
    // Hands `bytes` to rank 0 through the rendezvous store (a rank other than 0 calls it), and
    // rank 0 takes rank `from`'s bytes, waiting up to the timeout; `what` names it in keys and
    // messages ("optimizer state of step 40").
    void sendToLeader(const std::string &what, const std::string &bytes);
    std::string receiveFromRank(const std::string &what, int from);
    // A text every other rank may read (a diagnosis): publish does not wait, read waits up to
    // the timeout for rank `from` to publish it.
    void publish(const std::string &what, const std::string &text);
    std::string readPublished(const std::string &what, int from);
    // Throws DistributedError unless `value` is the same on every rank (what: for the message).
    void requireSameOnAllRanks(const std::string &what, const std::string &value);
    // Rank 0 calls it when `what` is done; the others wait for it as long as rank 0 lives.
    void leaderFinished(const std::string &what);
    void waitForLeader(const std::string &what);

private:
    DataParallel(LaunchEnvironment environment, std::unique_ptr<compat::ProcessGroup> group,
                 std::chrono::milliseconds timeout);
    // Names the rank(s) a failed collective ("step 5", "setup") waited for: those that did not
    // check in at the store before it, or rank 0 when the store itself is gone.
    std::string failureMessage(const std::string &collective, const std::exception &error);
    // Runs a collective over `tensors` in buckets of at most kBucketBytes, copying them
    // through one reused buffer on the group's device: a sum, or a broadcast from `root` when
    // it is 0 or more.
    void reduceInBuckets(const std::vector<torch::Tensor> &tensors, int root);
    // Marks this rank as arrived at the step's exchange (once per step; failureMessage
    // names the ranks that did not).
    void checkIn(std::int64_t step);

    LaunchEnvironment environment_;
    std::unique_ptr<compat::ProcessGroup> group_;
    std::chrono::milliseconds timeout_;
    std::unique_ptr<OverlappedReducer> overlap_;
    std::int64_t checked_in_step_ = 0;
    std::int64_t current_step_ = 0;
};

} // namespace headroom::distributed
