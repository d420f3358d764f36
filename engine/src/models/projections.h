// Named Linear projections of an imported model's layer (attention, MLP, one Mixture-of-Experts
// expert) that LoRA can adapt and whose frozen weights the base can hold compact (bf16, fp16,
// int8, nf4).
#pragma once

#include "models/lora.h"
#include "quant/base_quantization.h"

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace headroom::models {

// A module owning named Linear projections that LoRA can adapt (attention and MLP).
class ProjectionsImpl : public torch::nn::Module {
public:
    torch::nn::Linear addLinear(const std::string &name, std::int64_t in, std::int64_t out,
                                bool bias, bool deferred = false);
    torch::Tensor project(const std::string &name, const torch::Tensor &x);
    // The same for rows gathered from a [tokens, in] input (an expert's slice of tokens): x holds
    // its rows `positions`, which key the adapter's input dropout (keyedDropoutRows) as the
    // whole input would.
    torch::Tensor project(const std::string &name, const torch::Tensor &x,
                          const torch::Tensor &positions, std::int64_t tokens);
    // Adds an adapter "lora_<name>" to each projection named in `targets`.
    void enableLora(const LoraOptions &options, std::uint64_t first_dropout_site);
    // Holds a projection's frozen weight in `format`: bf16/fp16 as the converted parameter,
    // int8/nf4 quantized in buffers of the Linear ("weight_codes", "weight_scales", ...) with
    // the weight parameter emptied. fp32 leaves it as it is. From `full` ([out, in] float)
    // when given, else from the weight as it is held now.
    void storeBaseWeight(const std::string &name, BaseFormat format,
                         const torch::Tensor &full = {});
    // Holds an already quantized (int8/nf4) weight, e.g. from the quantized-base cache.
    // Throws std::invalid_argument when its shape is not the projection's.
    void installQuantized(const std::string &name, QuantizedWeight weight);
    const std::map<std::string, QuantizedWeight> &quantized() const { return quantized_; }
    // The projection's base weight [out, in] in float32 whatever its storage; detached.
    torch::Tensor baseWeight(const std::string &name) const;
    bool holdsQuantized(const std::string &name) const { return quantized_.count(name) != 0; }
    const std::vector<std::pair<std::string, torch::nn::Linear>> &linears() const {
        return linears_;
    }
    const std::map<std::string, LoraAdapter> &adapters() const { return adapters_; }

private:
    torch::nn::Linear linear(const std::string &name) const;

    std::vector<std::pair<std::string, torch::nn::Linear>> linears_;
    std::map<std::string, LoraAdapter> adapters_;
    std::map<std::string, QuantizedWeight> quantized_;
};
TORCH_MODULE(Projections);

} // namespace headroom::models
