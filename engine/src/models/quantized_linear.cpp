#include "models/quantized_linear.h"

#include "compat/autocast.h"
#include "models/linear_storage.h"

#include <map>
#include <utility>

namespace headroom::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One buffer per device and dtype on each thread, grown to the largest weight seen. Reuse is
// safe: each matrix product that reads the buffer is issued before the next dequantization
// writes it, on the CPU synchronously and on a GPU on the same stream.
std::map<std::pair<std::string, torch::ScalarType>, torch::Tensor> &buffers() {
    thread_local std::map<std::pair<std::string, torch::ScalarType>, torch::Tensor> held;
    return held;
}

torch::Tensor dequantizedInBuffer(const QuantizedWeight &weight, torch::ScalarType dtype) {
    if (!isQuantized(weight.format) && weight.codes.scalar_type() == dtype) {
        return weight.codes.view({weight.out, weight.in}); // a bf16/fp16 base computing in it
    }
    torch::Tensor &buffer = buffers()[{weight.codes.device().str(), dtype}];
    const std::int64_t needed = weight.out * weight.in;
    if (!buffer.defined() || buffer.numel() < needed) {
        buffer = torch::Tensor(); // free the smaller one first
        buffer = torch::empty({needed}, weight.codes.options().dtype(dtype));
    }
    torch::Tensor view = buffer.narrow(0, 0, needed).view({weight.out, weight.in});
    dequantizeInto(weight, view);
    return view;
}

QuantizedWeight weightFrom(const variable_list &saved, AutogradContext *ctx) {
    QuantizedWeight weight;
    weight.format = static_cast<BaseFormat>(ctx->saved_data["format"].toInt());
    weight.out = ctx->saved_data["out"].toInt();
    weight.in = ctx->saved_data["in"].toInt();
    weight.codes = saved[0];
    if (isQuantized(weight.format)) {
        weight.scales = saved[1];
    }
    if (weight.format == BaseFormat::Nf4) {
        weight.group_offsets = saved[2];
        weight.group_steps = saved[3];
    }
    return weight;
}

class QuantizedLinearFunction : public torch::autograd::Function<QuantizedLinearFunction> {
public:
    static torch::Tensor forward(AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &codes, const torch::Tensor &scales,
                                 const torch::Tensor &group_offsets,
                                 const torch::Tensor &group_steps, std::int64_t format,
                                 std::int64_t out, std::int64_t in) {
        ctx->save_for_backward({codes, scales, group_offsets, group_steps});
        ctx->saved_data["format"] = format;
        ctx->saved_data["out"] = out;
        ctx->saved_data["in"] = in;
        const QuantizedWeight weight = weightFrom({codes, scales, group_offsets, group_steps}, ctx);
        const torch::Tensor matrix = dequantizedInBuffer(weight, x.scalar_type());
        if (x.numel() == in) {
            // One token being generated: a matrix-vector product (see applyLinear).
            std::vector<std::int64_t> shape = x.sizes().vec();
            shape.back() = out;
            return applyLinear(x.reshape({1, in}), matrix, {}).view(shape);
        }
        return torch::matmul(x, matrix.t());
    }

    static variable_list backward(AutogradContext *ctx, variable_list grad_outputs) {
        const QuantizedWeight weight = weightFrom(ctx->get_saved_variables(), ctx);
        const torch::Tensor &grad = grad_outputs[0];
        torch::Tensor grad_x;
        if (ctx->needs_input_grad(0)) {
            grad_x = torch::matmul(grad, dequantizedInBuffer(weight, grad.scalar_type()));
        }
        return {grad_x,          torch::Tensor(), torch::Tensor(), torch::Tensor(),
                torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

torch::Tensor quantizedLinear(const torch::Tensor &x, const QuantizedWeight &weight) {
    TORCH_CHECK(x.size(-1) == weight.in, "quantizedLinear: input has ", x.size(-1),
                " features, the weight takes ", weight.in);
    const torch::Tensor input =
        x.to(compat::activeAutocastDtype(x.device().type()).value_or(x.scalar_type()));
    // The autograd function takes defined tensors only: absent fields travel as empty ones.
    const auto present = [&weight](const torch::Tensor &tensor) {
        return tensor.defined() ? tensor : torch::empty({0}, weight.codes.options());
    };
    return QuantizedLinearFunction::apply(
        input, weight.codes, present(weight.scales), present(weight.group_offsets),
        present(weight.group_steps), static_cast<std::int64_t>(weight.format), weight.out,
        weight.in);
}

std::int64_t dequantizationBufferBytes() {
    std::int64_t total = 0;
    for (const auto &item : buffers()) {
        total += static_cast<std::int64_t>(item.second.nbytes());
    }
    return total;
}

} // namespace headroom::models
