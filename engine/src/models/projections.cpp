#include "models/projections.h"

#include "models/keyed_dropout.h"
#include "models/linear_storage.h"
#include "models/quantized_linear.h"

#include <stdexcept>

namespace headroom::models {

// torch's Linear and Embedding constructors initialise their weights (kaiming-uniform,
// normal): seconds of serial random numbers for a 1 B-parameter model, all overwritten by the
// import or resetParameters(). They are built 1 x 1 and given uninitialised storage of the
// real shape.
torch::nn::Linear uninitialisedLinear(std::int64_t in, std::int64_t out, bool bias, bool deferred) {
    torch::nn::Linear linear(torch::nn::LinearOptions(1, 1).bias(bias));
    linear->options.in_features(in).out_features(out);
    linear->weight.set_data(deferred ? torch::empty({0}) : torch::empty({out, in}));
    if (bias) {
        linear->bias.set_data(torch::empty({out}));
    }
    return linear;
}

namespace {

// Registers a buffer, or gives an existing one of that name the new value (a base quantized
// again holds its codes under the same names).
torch::Tensor holdBuffer(torch::nn::Module &module, const std::string &name,
                         const torch::Tensor &value) {
    auto buffers = module.named_buffers(/*recurse=*/false);
    if (torch::Tensor *existing = buffers.find(name)) {
        existing->set_data(value);
        return *existing;
    }
    return module.register_buffer(name, value);
}

} // namespace

// x [N, in] through weight [out, in]. A single row (a token being generated) takes BLAS's
// matrix-vector product, which streams the weight once; OpenBLAS's one-row matrix product
// packs it first and is 1.5-3x slower, and decoding is little else.
torch::Tensor applyLinear(const torch::Tensor &x, const torch::Tensor &weight,
                          const torch::Tensor &bias) {
    if (x.dim() != 2 || x.size(0) != 1 || !x.is_cpu()) {
        return torch::linear(x, weight, bias);
    }
    const torch::Tensor row = x.select(0, 0);
    return (bias.defined() ? torch::addmv(bias, weight, row) : torch::mv(weight, row)).unsqueeze(0);
}

torch::nn::Linear ProjectionsImpl::addLinear(const std::string &name, std::int64_t in,
                                             std::int64_t out, bool bias, bool deferred) {
    auto linear = register_module(name, uninitialisedLinear(in, out, bias, deferred));
    linears_.emplace_back(name, linear);
    return linear;
}

torch::nn::Linear ProjectionsImpl::linear(const std::string &name) const {
    for (const auto &[linear_name, linear] : linears_) {
        if (linear_name == name) {
            return linear;
        }
    }
    throw std::logic_error("no projection " + name);
}

torch::Tensor ProjectionsImpl::project(const std::string &name, const torch::Tensor &x) {
    return project(name, x, {}, 0);
}

torch::Tensor ProjectionsImpl::project(const std::string &name, const torch::Tensor &x,
                                       const torch::Tensor &positions, std::int64_t tokens) {
    torch::nn::Linear base = linear(name);
    torch::Tensor out;
    const auto quantized = quantized_.find(name);
    if (quantized != quantized_.end()) {
        out = quantizedLinear(x, quantized->second);
        if (base->bias.defined()) {
            out = out + base->bias.to(out.scalar_type());
        }
    } else {
        out = applyLinear(x, base->weight, base->bias);
    }
    if (!adapters_.empty() && adaptersOn()) {
        const auto adapter = adapters_.find(name);
        if (adapter != adapters_.end()) {
            LoraAdapter &lora = adapter->second;
            if (!positions.defined()) {
                return out + lora->delta(x);
            }
            const double p = lora->dropoutProbability();
            const bool drop = p > 0 && lora->is_training();
            out = out +
                  lora->deltaWithoutDropout(
                      drop ? keyedDropoutRows(x, p, lora->dropoutSite(), positions, tokens) : x);
        }
    }
    return out;
}

void ProjectionsImpl::storeBaseWeight(const std::string &name, BaseFormat format,
                                      const torch::Tensor &given) {
    torch::nn::Linear base = linear(name);
    torch::NoGradGuard no_grad;
    const auto held = quantized_.find(name);
    if (!given.defined() &&
        format == (held == quantized_.end() ? BaseFormat::Fp32 : held->second.format)) {
        return;
    }
    // From the format it is held in now: a ladder rung quantizes a bf16 base mid-run, and a
    // resumed run repeats the same conversions from the import's format.
    const torch::Tensor full = given.defined()            ? given.detach()
                               : held == quantized_.end() ? base->weight.detach()
                                                          : dequantize(held->second, torch::kFloat);
    if (held != quantized_.end()) {
        quantized_.erase(held);
    }
    if (format == BaseFormat::Fp32) {
        // A given weight may be the import's reused staging buffer: the parameter gets a copy.
        base->weight.set_data(given.defined() ? full.to(torch::kFloat).clone()
                                              : full.to(torch::kFloat));
        return;
    }
    if (!isQuantized(format)) {
        // The parameter itself holds the narrow copy; the quantized layer reads it as its codes
        // (a plain product would widen it for every fp32 step and keep the copy for backward).
        base->weight.set_data(
            full.to(format == BaseFormat::Bf16 ? torch::kBFloat16 : torch::kHalf));
        QuantizedWeight weight;
        weight.format = format;
        weight.out = base->options.out_features();
        weight.in = base->options.in_features();
        weight.codes = base->weight;
        quantized_.emplace(name, std::move(weight));
        return;
    }
    installQuantized(name, quantizeWeight(full, format));
}

void ProjectionsImpl::installQuantized(const std::string &name, QuantizedWeight weight) {
    torch::nn::Linear base = linear(name);
    if (weight.out != base->options.out_features() || weight.in != base->options.in_features() ||
        !isQuantized(weight.format)) {
        throw std::invalid_argument("quantized weight for " + name + " does not fit the layer");
    }
    quantized_.erase(name);
    weight.codes = holdBuffer(*base, "weight_codes", weight.codes);
    weight.scales = holdBuffer(*base, "weight_scales", weight.scales);
    if (weight.group_offsets.defined()) {
        weight.group_offsets = holdBuffer(*base, "weight_group_offsets", weight.group_offsets);
        weight.group_steps = holdBuffer(*base, "weight_group_steps", weight.group_steps);
    }
    // The full-precision weight is gone; the Linear's options keep its shape.
    base->weight.set_data(torch::empty({0}, base->weight.options().dtype(torch::kFloat)));
    quantized_.emplace(name, std::move(weight));
}

torch::Tensor ProjectionsImpl::baseWeight(const std::string &name) const {
    const auto quantized = quantized_.find(name);
    if (quantized != quantized_.end()) {
        return dequantize(quantized->second, torch::kFloat);
    }
    return linear(name)->weight.detach().to(torch::kFloat);
}

void ProjectionsImpl::enableLora(const LoraOptions &options, std::uint64_t first_dropout_site) {
    std::uint64_t site = first_dropout_site;
    for (auto &[name, linear] : linears_) {
        if (options.targets().count(name) != 0 && adapters_.count(name) == 0) {
            adapters_.emplace(name,
                              register_module("lora_" + name, LoraAdapter(linear, options, site)));
        }
        ++site;
    }
}

} // namespace headroom::models
