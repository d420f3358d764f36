#pragma once

#include "optim/fused_adamw.h"
#include "optim/optimizer.h"
#include "quant/blockwise_quantization.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace headroom::train {

// AdamW (the update FusedAdamW makes: decoupled weight decay, bias correction per parameter,
// the clip factor applied inside the next step) with 8-bit moments: each parameter's moments
// are quantized in blocks of 256 elements with one fp32 absmax per block, the first moment
// with the signed dynamic code map and the second with the unsigned one. About 2.03 bytes of
// state per parameter instead of 8. Parameters with fewer than kMinQuantizedElements
// elements keep fp32 moments (biases, norms: tiny, and the most sensitive).
//
// Each step dequantizes a block, updates it in fp32 and quantizes it again, so the update
// itself uses exact fp32 moments and only what is carried to the next step is rounded.
// On CPU float32 (contiguous parameters) step() is one parallel pass over all blocks;
// other devices and dtypes take the same math through tensor operations.
// Unlike FusedAdamW it leaves the parameters where they are.
class AdamW8bit final : public Optimizer {
public:
    static constexpr std::int64_t kMinQuantizedElements = 4096;

    // Duplicates are kept once. All parameters must share one device and dtype and be dense
    // floating point (throws std::invalid_argument otherwise).
    explicit AdamW8bit(const std::vector<torch::Tensor> &parameters, AdamWOptions options = {});

    // The same parameters, hyperparameters and step counts as source, with its moments
    // quantized (a pending clip factor of source is not carried over: switch between steps).
    static std::unique_ptr<AdamW8bit> fromFusedAdamW(FusedAdamW &source);

    std::string kind() const override { return "adamw8bit"; }
    void setLearningRate(double lr) override { options_.lr(lr); }
    double clipGradNorm(double max_norm) override;
    void step() override;
    void zeroGrad() override;
    std::int64_t parameterCount() const override { return parameter_count_; }
    std::uint64_t stateBytes() const override;
    void saveState(torch::serialize::OutputArchive &archive) override;
    void loadState(torch::serialize::InputArchive &archive) override;
    // Quantized parameters: both moments' codes and block scales; the others: fp32 moments.
    std::vector<torch::Tensor> parameterState(std::size_t index) const override;
    void setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) override;

    AdamWOptions &options() { return options_; }
    const std::vector<torch::Tensor> &parameters() const override { return parameters_; }
    std::vector<std::int64_t> &stepCounts() { return steps_; }
    bool isQuantized(std::size_t index) const { return slots_.at(index).quantized; }
    // The moments of parameters()[index] as fp32 tensors shaped like it (dequantized copies
    // for quantized parameters, views of the fp32 state otherwise).
    torch::Tensor expAvgOf(std::size_t index) const;
    torch::Tensor expAvgSqOf(std::size_t index) const;
    // Replaces the moments of parameters()[index] (quantizing them where needed).
    void setMoments(std::size_t index, const torch::Tensor &exp_avg,
                    const torch::Tensor &exp_avg_sq);

private:
    // Where one parameter's state lives in the flat buffers.
    struct Slot {
        bool quantized = false;
        std::int64_t numel = 0;
        std::int64_t offset = 0;       // into the code buffers or the fp32 buffers
        std::int64_t block_offset = 0; // into the absmax buffers (quantized only)
    };

    bool fusedCpuPath() const;
    void stepFusedCpu();
    void stepGeneric();
    torch::Tensor codesOf(const torch::Tensor &buffer, const Slot &slot) const;
    torch::Tensor absmaxOf(const torch::Tensor &buffer, const Slot &slot) const;

    AdamWOptions options_;
    std::vector<torch::Tensor> parameters_;
    std::vector<Slot> slots_;
    std::vector<std::int64_t> steps_;
    std::int64_t parameter_count_ = 0;
    torch::Tensor exp_avg_codes_;    // uint8, every quantized parameter padded to whole blocks
    torch::Tensor exp_avg_sq_codes_; // uint8
    torch::Tensor exp_avg_absmax_;   // float32 [blocks]
    torch::Tensor exp_avg_sq_absmax_;
    torch::Tensor small_exp_avg_; // float32 moments of the small parameters
    torch::Tensor small_exp_avg_sq_;
    double pending_grad_scale_ = 1.0;
};

} // namespace headroom::train
