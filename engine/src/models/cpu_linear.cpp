#include "models/cpu_linear.h"

#include "compat/autocast.h"
#include "compat/cpu_gemm.h"

#include <ATen/record_function.h>

#include <cstdint>
#include <vector>

namespace headroom::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

float *floats(const torch::Tensor &tensor) {
    return tensor.data_ptr<float>();
}

// y = x W^T (+ b), both forms sharing one forward and backward; LibTorch 1.13's custom
// functions take no undefined tensor among their inputs.
torch::Tensor gemmForward(AutogradContext *ctx, const torch::Tensor &input,
                          const torch::Tensor &weight_in, const torch::Tensor &bias) {
    // Named for the profiler's operator table, where ATen's path shows aten::addmm.
    RECORD_FUNCTION("headroom::linear", std::vector<c10::IValue>({input, weight_in}));
    const torch::Tensor x = input.contiguous();
    const torch::Tensor weight = weight_in.contiguous();
    const std::int64_t rows = x.size(0);
    const std::int64_t in = x.size(1);
    const std::int64_t out = weight.size(0);
    // As ATen's addmm: the bias rows first, then C = x W^T + C. A fresh tensor: for one row
    // expand().contiguous() would be the bias itself.
    torch::Tensor y = torch::empty({rows, out}, x.options());
    if (bias.defined()) {
        y.copy_(bias.expand({rows, out}));
    }
    compat::dnnlSgemm(false, true, rows, out, in, 1.0F, floats(x), in, floats(weight), in,
                      bias.defined() ? 1.0F : 0.0F, floats(y), out);
    // Only what the wanted gradients read, as ATen's addmm saves: x for the weight's, the
    // weight for x's (a frozen base weight under LoRA keeps no copy of its input alive).
    ctx->save_for_backward({weight_in.requires_grad() ? x : torch::Tensor(),
                            input.requires_grad() ? weight : torch::Tensor()});
    ctx->saved_data["rows"] = rows;
    ctx->saved_data["in"] = in;
    ctx->saved_data["out"] = out;
    return y;
}

variable_list gemmBackward(AutogradContext *ctx, const variable_list &grads, bool has_bias) {
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0];
    const torch::Tensor &weight = saved[1];
    const torch::Tensor grad = grads[0].contiguous();
    const std::int64_t rows = ctx->saved_data["rows"].toInt();
    const std::int64_t in = ctx->saved_data["in"].toInt();
    const std::int64_t out = ctx->saved_data["out"].toInt();
    variable_list result(has_bias ? 3 : 2);
    if (ctx->needs_input_grad(0) && weight.defined()) {
        result[0] = torch::empty({rows, in}, grad.options());
        compat::dnnlSgemm(false, false, rows, in, out, 1.0F, floats(grad), out, floats(weight), in,
                          0.0F, floats(result[0]), in);
    }
    if (ctx->needs_input_grad(1) && x.defined()) {
        result[1] = torch::empty({out, in}, grad.options());
        compat::dnnlSgemm(true, false, out, in, rows, 1.0F, floats(grad), out, floats(x), in, 0.0F,
                          floats(result[1]), in);
    }
    if (has_bias && ctx->needs_input_grad(2)) {
        result[2] = grad.sum(0);
    }
    return result;
}

struct GemmLinear : torch::autograd::Function<GemmLinear> {
    static torch::Tensor forward(AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight, const torch::Tensor &bias) {
        return gemmForward(ctx, x, weight, bias);
    }
    static variable_list backward(AutogradContext *ctx, variable_list grads) {
        return gemmBackward(ctx, grads, true);
    }
};

struct GemmLinearNoBias : torch::autograd::Function<GemmLinearNoBias> {
    static torch::Tensor forward(AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight) {
        return gemmForward(ctx, x, weight, {});
    }
    static variable_list backward(AutogradContext *ctx, variable_list grads) {
        return gemmBackward(ctx, grads, false);
    }
};

} // namespace

bool cpuGemmLinearApplies(const torch::Tensor &x, const torch::Tensor &weight) {
    return x.dim() == 2 && weight.dim() == 2 && x.device().is_cpu() && weight.device().is_cpu() &&
           x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
           x.size(1) == weight.size(1) && x.numel() > 0 && weight.numel() > 0 && !x.is_mkldnn() &&
           !compat::activeAutocastDtype(torch::kCPU) &&
           compat::preferredCpuGemm() == compat::CpuGemm::OneDnn;
}

torch::Tensor cpuLinear(const torch::Tensor &x, const torch::Tensor &weight,
                        const torch::Tensor &bias) {
    const bool bias_fits = !bias.defined() || (bias.scalar_type() == torch::kFloat &&
                                               bias.dim() == 1 && bias.size(0) == weight.size(0));
    if (!bias_fits || !cpuGemmLinearApplies(x, weight)) {
        return torch::linear(x, weight, bias);
    }
    return bias.defined() ? GemmLinear::apply(x, weight, bias) : GemmLinearNoBias::apply(x, weight);
}

} // namespace headroom::models
