#pragma once

// Real training steps at a chosen micro-batch, for auto-fit: the model, techniques and
// optimizer a run of the config would build, on its device, under its memory.budget. Every
// probe leaves the model, the optimizer state and the CPU generator as they were.

#include "data/example_stream.h"
#include "memory/memory_meter.h"
#include "optim/optimizer.h"
#include "recipes/recipe.h"
#include "train/prepared_data.h"
#include "train/techniques.h"

#include <headroom/config.h>
#include <headroom/plan.h>
#include <headroom/project.h>

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headroom::plan {

class ProbeRunner {
public:
    // Builds the data, recipe, LoRA, techniques and optimizer as the trainer does and applies
    // memory.budget. Throws what the trainer's setup throws: ConfigError, DataError,
    // ProjectError, and out-of-memory (memory::isOutOfMemory) when the model alone does not
    // fit. The budget is removed again when construction fails or the runner is destroyed.
    ProbeRunner(const Config &config, Project &project);
    ~ProbeRunner();
    ProbeRunner(const ProbeRunner &) = delete;
    ProbeRunner &operator=(const ProbeRunner &) = delete;

    // One optimizer step over `micro_batches` micro-batches of `micro_batch` training examples
    // (forward and backward under the configured autocast, gradient clipping, update), then
    // restores the state. Out of memory is a probe that does not fit; other errors propagate.
    // fp16 runs without loss scaling: the scale changes no tensor's size.
    FitProbe probe(std::int64_t micro_batch, std::int64_t micro_batches);

    std::string device() const { return device_.str(); } // "cpu", "cuda:0"
    std::uint64_t budget() const { return budget_; }     // memory.budget; 0 = none
    ModelFacts facts() const;

    train::Recipe &recipe() { return *recipe_; }
    train::Optimizer &optimizer() { return *optimizer_; }

private:
    // Takes the meter and removes its budget on destruction, also when the constructor throws.
    struct BudgetRelease {
        std::unique_ptr<memory::MemoryMeter> meter;
        ~BudgetRelease();
    };

    void runStep(const std::vector<data::Example> &examples, std::int64_t micro_batch);
    std::vector<torch::Tensor> stateTensors();
    // Host copies outside the torch allocators, so the snapshot does not count against the
    // budget the probes measure.
    void snapshot();
    void restore();

    Config config_;
    torch::Device device_{torch::kCPU};
    std::uint64_t budget_ = 0;
    BudgetRelease release_;
    train::Techniques techniques_;
    train::PreparedData data_;
    std::unique_ptr<train::Recipe> recipe_;
    std::unique_ptr<train::Optimizer> optimizer_;
    std::unique_ptr<data::ExampleStream> stream_;
    std::string stream_start_;
    std::vector<std::string> tensor_bytes_;
    std::string optimizer_state_;
    at::Tensor generator_state_;
};

} // namespace headroom::plan
