#include "models/activation_checkpoint.h"

#include "compat/autocast.h"
#include "models/keyed_dropout.h"

#include <ATen/Context.h>

#include <mutex>
#include <optional>
#include <utility>

namespace headroom::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Everything backward needs besides the saved input. Kept in the autograd context as a capsule
// because saved_data holds IValues only.
struct RecomputeRecipe : torch::CustomClassHolder {
    CheckpointBlockOutputs block;
    compat::AutocastState autocast;
    torch::Tensor cpu_rng_state;
    std::optional<torch::Device> cuda_device;
    torch::Tensor cuda_rng_state;
    // The dropout key of the forward pass: backward may run outside that scope (a recipe that
    // opens its own scopes per encoder pass).
    std::optional<ScopedDropoutKey::Key> dropout_key;
};

at::Generator defaultGenerator(const torch::Device &device) {
    return at::globalContext().defaultGenerator(device);
}

// Generators are shared by all threads; their own mutex guards get_state/set_state.
torch::Tensor generatorState(at::Generator generator) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    return generator.get_state();
}

void setGeneratorState(at::Generator generator, const torch::Tensor &state) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
}

// torch.random.fork_rng for the duration of the recompute: the recorded states go in, the
// states of the surrounding code come back on exit (also when the block throws).
class ForkedRng {
public:
    explicit ForkedRng(const RecomputeRecipe &recipe)
        : cuda_device_(recipe.cuda_device),
          outer_cpu_state_(generatorState(defaultGenerator(torch::kCPU))) {
        if (cuda_device_) {
            outer_cuda_state_ = generatorState(defaultGenerator(*cuda_device_));
            setGeneratorState(defaultGenerator(*cuda_device_), recipe.cuda_rng_state);
        }
        setGeneratorState(defaultGenerator(torch::kCPU), recipe.cpu_rng_state);
    }
    ~ForkedRng() {
        setGeneratorState(defaultGenerator(torch::kCPU), outer_cpu_state_);
        if (cuda_device_) {
            setGeneratorState(defaultGenerator(*cuda_device_), outer_cuda_state_);
        }
    }
    ForkedRng(const ForkedRng &) = delete;
    ForkedRng &operator=(const ForkedRng &) = delete;

private:
    std::optional<torch::Device> cuda_device_;
    torch::Tensor outer_cpu_state_;
    torch::Tensor outer_cuda_state_;
};

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
public:
    // Function::apply runs this with grad mode off, so the block builds no graph.
    static variable_list forward(AutogradContext *context, const torch::Tensor &input,
                                 const CheckpointBlockOutputs &block) {
        auto recipe = c10::make_intrusive<RecomputeRecipe>();
        recipe->block = block;
        recipe->autocast = compat::currentAutocastState();
        if (const ScopedDropoutKey::Key *key = ScopedDropoutKey::current()) {
            recipe->dropout_key = *key;
        }
        recipe->cpu_rng_state = generatorState(defaultGenerator(torch::kCPU));
        if (input.is_cuda()) {
            recipe->cuda_device = input.device();
            recipe->cuda_rng_state = generatorState(defaultGenerator(input.device()));
        }

        // Autocast's weight cache (1.13 on CUDA, older 2.x; pytorch issue 112583) also keeps
        // casts made with grad mode off. Such a cast has no gradient edge, and a later
        // grad-enabled use of the same weight in this autocast region would silently lose its
        // gradient. The cast values are the same either way, so the output does not change.
        compat::AutocastState uncached = recipe->autocast;
        uncached.cache_enabled = false;
        compat::applyAutocastState(uncached);
        variable_list outputs;
        try {
            outputs = block(input);
        } catch (...) {
            compat::applyAutocastState(recipe->autocast);
            throw;
        }
        compat::applyAutocastState(recipe->autocast);
        for (const torch::Tensor &output : outputs) {
            if (!output.is_floating_point()) {
                context->mark_non_differentiable({output});
            }
        }

        // save_for_backward (not a plain copy) so an in-place change of the input before
        // backward is reported instead of silently recomputing from different values.
        context->save_for_backward({input});
        context->saved_data["recipe"] = c10::IValue::make_capsule(std::move(recipe));
        return outputs;
    }

    static variable_list backward(AutogradContext *context, variable_list grad_outputs) {
        const variable_list saved = context->get_saved_variables();
        const auto recipe = c10::static_intrusive_pointer_cast<RecomputeRecipe>(
            context->saved_data["recipe"].toCapsule());

        const torch::Tensor input = saved.at(0).detach().requires_grad_(true);
        variable_list outputs;
        {
            ForkedRng rng(*recipe);
            std::optional<ScopedDropoutKey> dropout_key;
            if (recipe->dropout_key) {
                dropout_key.emplace(*recipe->dropout_key);
            }
            compat::ScopedAutocastState autocast(recipe->autocast);
            at::AutoGradMode grad_mode(true);
            outputs = recipe->block(input);
        }
        variable_list differentiable;
        variable_list gradients;
        for (std::size_t i = 0; i < outputs.size() && i < grad_outputs.size(); ++i) {
            if (outputs[i].requires_grad() && grad_outputs[i].defined()) {
                differentiable.push_back(outputs[i]);
                gradients.push_back(grad_outputs[i]);
            }
        }
        if (!differentiable.empty()) {
            torch::autograd::backward(differentiable, gradients);
        }
        // One gradient per forward argument; the block itself gets none.
        return {input.grad(), torch::Tensor()};
    }
};

} // namespace

torch::Tensor checkpointed(const CheckpointBlock &block, const torch::Tensor &input) {
    if (!torch::GradMode::is_enabled() || !input.requires_grad()) {
        return block(input);
    }
    const CheckpointBlockOutputs single = [block](const torch::Tensor &x) {
        return variable_list{block(x)};
    };
    return CheckpointFunction::apply(input, single).at(0);
}

std::vector<torch::Tensor> checkpointedOutputs(const CheckpointBlockOutputs &block,
                                               const torch::Tensor &input) {
    if (!torch::GradMode::is_enabled() || !input.requires_grad()) {
        return block(input);
    }
    return CheckpointFunction::apply(input, block);
}

} // namespace headroom::models
