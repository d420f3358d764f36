// Activation checkpointing: trade compute for memory by keeping only a block's input in forward
// and recomputing the block in backward (torch.utils.checkpoint's reentrant variant, which
// LibTorch lacks).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace headroom::models {

using CheckpointBlock = std::function<torch::Tensor(const torch::Tensor &)>;

// block(input), with the activations inside the block freed after forward and recomputed in
// backward. Gradients (of the input and of every parameter the block uses) equal those of
// calling block(input) directly, bit for bit, dropout included: forward records the CPU
// generator state, the input's CUDA device generator state when the input is on CUDA, and the
// autocast state, and backward recomputes under exactly those, then puts the outer generator
// states back so the random stream of the surrounding code is the same as without
// checkpointing.
//
// The block must be a function of its input and of parameters only (no other tensor that
// requires grad), must not depend on state it changes (batch-norm running statistics are
// updated twice) and must return one tensor.
//
// With grad mode off, or when the input does not require grad, this simply returns
// block(input): a block whose input needs no gradient gains nothing from checkpointing here
// (the recompute is driven by the input's gradient edge), so it runs with full activations.
//
// Limitation of the reentrant approach: backward runs a nested torch::autograd::backward over
// the recomputed block, which accumulates parameter gradients into their .grad. So
// torch::autograd::grad(outputs, inputs) over a graph containing a checkpointed block returns
// the right gradient for tensors outside the block and for the block's input, but it neither
// returns gradients for parameters used inside the block (they appear undefined/unused) nor
// leaves their .grad untouched. Use backward() (the trainer's path) with checkpointing.
torch::Tensor checkpointed(const CheckpointBlock &block, const torch::Tensor &input);

using CheckpointBlockOutputs = std::function<std::vector<torch::Tensor>(const torch::Tensor &)>;

// The same for a block that returns several tensors (a Mixture-of-Experts block: its output,
// its balancing losses and its routing counts). The outputs come from the one forward pass:
// counts and other side results are read there, and the recompute in backward, whose results
// only feed the gradients, cannot count them twice. Floating outputs carry gradients (each one
// that is used gets its gradient in the one nested backward); integer outputs carry none.
std::vector<torch::Tensor> checkpointedOutputs(const CheckpointBlockOutputs &block,
                                               const torch::Tensor &input);

} // namespace headroom::models
