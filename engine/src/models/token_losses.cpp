#include "models/token_losses.h"

#include "compat/autocast.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace headroom::models {

namespace {

constexpr std::int64_t kIgnored = -100;
// Logits are a step's largest tensors with a large vocabulary (64 MiB for 512 tokens of
// 32 000): blocks of rows under glibc's mmap threshold come back from the heap, where whole
// ones would be mapped and faulted in afresh every step (65 000 page faults a step here).
constexpr std::int64_t kBlockBytes = 16 << 20;

// Cross-entropy from the softmax: loss = logsumexp - x_t with logsumexp = max - log(p_max)
// (p_max >= 1/vocab cannot underflow), and the gradient (p - onehot(t)) * g is written over p,
// which nothing else needs. In LibTorch 1.13, log_softmax and its backward take about three
// times as long as softmax, and nll_loss's backward zero-fills a logits-sized tensor.
class SoftmaxCrossEntropy : public torch::autograd::Function<SoftmaxCrossEntropy> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *context,
                                 const torch::Tensor &logits, const torch::Tensor &targets) {
        const torch::Tensor wide = logits.to(torch::kFloat);
        const auto [top, top_index] = wide.max(1, /*keepdim=*/true);
        const torch::Tensor probabilities = at::softmax(wide, 1);
        const torch::Tensor valid = targets.ne(kIgnored);
        const torch::Tensor picked = targets.masked_fill(valid.logical_not(), 0).unsqueeze(1);
        const torch::Tensor logsumexp = top - probabilities.gather(1, top_index).log();
        context->save_for_backward({probabilities, picked, valid});
        context->saved_data["dtype"] = static_cast<std::int64_t>(logits.scalar_type());
        return (logsumexp - wide.gather(1, picked))
            .squeeze(1)
            .masked_fill(valid.logical_not(), 0.0);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *context,
                                                   torch::autograd::variable_list grads) {
        const torch::autograd::variable_list saved = context->get_saved_variables();
        torch::Tensor gradient = saved[0];
        const torch::Tensor scale =
            grads[0].to(torch::kFloat).masked_fill(saved[2].logical_not(), 0.0).unsqueeze(1);
        gradient.mul_(scale).scatter_add_(1, saved[1], scale.neg());
        const auto dtype = static_cast<torch::ScalarType>(context->saved_data["dtype"].toInt());
        return {gradient.to(dtype), torch::Tensor()};
    }
};

// The head as the blocks' products read it: under autocast its low-precision copy, made once here.
// Autocast caches its casts of leaf weights that require grad only, so a frozen head (LoRA) would
// be cast again for every block, each copy kept for the gradient of h. Autograd records this cast
// when the head trains, and turns the blocks' summed gradient back to the head's dtype.
torch::Tensor headAsComputed(const torch::Tensor &head) {
    const std::optional<torch::ScalarType> dtype =
        compat::activeAutocastDtype(head.device().type());
    // The tensors autocast casts: floating point other than double.
    if (!dtype || !head.is_floating_point() || head.scalar_type() == torch::kDouble) {
        return head;
    }
    return head.to(*dtype);
}

} // namespace

torch::Tensor tokenLosses(const torch::Tensor &h, const torch::Tensor &head,
                          const torch::Tensor &targets) {
    TORCH_CHECK(h.dim() == 2 && targets.dim() == 1 && targets.size(0) == h.size(0),
                "tokenLosses: h [N, dim] and targets [N], got ", h.sizes(), " ", targets.sizes());
    const std::int64_t block = std::max<std::int64_t>(
        1, kBlockBytes / (head.size(0) * static_cast<std::int64_t>(sizeof(float))));
    const torch::Tensor weight = headAsComputed(head);
    if (h.size(0) <= block) {
        return SoftmaxCrossEntropy::apply(torch::linear(h, weight), targets);
    }
    const std::vector<torch::Tensor> rows = h.split(block);
    const std::vector<torch::Tensor> wanted = targets.split(block);
    std::vector<torch::Tensor> losses;
    losses.reserve(rows.size());
    for (std::size_t index = 0; index < rows.size(); ++index) {
        losses.push_back(
            SoftmaxCrossEntropy::apply(torch::linear(rows[index], weight), wanted[index]));
    }
    return torch::cat(losses);
}

} // namespace headroom::models
