// Translatable copies of the engine's setting descriptions (the engine is Qt-free, so lupdate
// cannot see them there). test_translations checks that every key of configKeys() is listed.
#include "look/ConfigKeyTexts.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace headroom::ui {

namespace {

const char *const kDescriptions[] = {
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "What to train: a GPT language model from scratch, a tabular MLP, a "
                      "SPLADE sparse retrieval encoder (on a BERT-family model.base) or a "
                      "pretrained causal language model (causal_lm, on model.base; projects "
                      "before it say gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "auto, cpu, cuda, cuda:N or mps"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Training data file (relative paths are relative to the project file)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Data format; auto goes by the file extension (JSONL whose first record has "
                      "\"messages\" or \"conversations\" is chat); chat = conversations in JSONL "
                      "or JSON, rendered with the chat template"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Chat data: the template conversations are rendered with; empty = the one of "
        "model.base, chatml = the built-in ChatML template, else a file (.jinja, or a "
        "tokenizer_config.json / chat_template.json holding one)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Chat data: the tokens learned; assistant = every assistant reply with its "
                      "end-of-turn, last_assistant = the final reply only, all = the whole text"),
    QT_TRANSLATE_NOOP("ConfigKeys", "JSONL field or CSV column holding the text (gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "CSV target column (tabular); empty = last"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Tabular task; auto infers it from the target column"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Examples held for shuffling"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Records read from the file; 0 = all"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Share of records kept for validation"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Tokens between windows (gpt); 0 = seq_len"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Language models: place whole records (text, prompt/completion, "
                      "conversations) side by side in windows of model.seq_len, best fit over "
                      "the next 64, each attending only to itself with positions from 0; 0 = "
                      "one padded window per prompt/completion or conversation, plain text as "
                      "one stream"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "byte needs no training; bpe/unigram train SentencePiece on the corpus; "
                      "base uses the tokenizer of model.base"),
    QT_TRANSLATE_NOOP("ConfigKeys", "SentencePiece vocabulary size"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Tokens of a sample continuation written at each validation (gpt); 0 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Hugging Face model folder to fine-tune (gpt); empty = a new "
                                    "model from scratch"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "How the frozen base of a LoRA run (model.base) holds its attention and MLP "
                      "weights: fp32, bf16/fp16 (2 bytes), int8 (per-row absmax, ~1 byte) or nf4 "
                      "(4-bit NormalFloat with double-quantized scales, ~0.52 bytes); embeddings, "
                      "norms and the output head stay fp32"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Target parameter count (gpt); 0 = use layers, heads and dim"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Transformer blocks (gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Attention heads (gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Embedding width (gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Context length in tokens (gpt)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Dropout probability"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "How a GPT made from scratch attends: auto = on the CPU the explicit form while "
        "its T x T weights are cheap (seq_len <= 16 x head size and, under memory.budget, "
        "all layers' weights within a quarter of it), otherwise the fused kernel; on a "
        "GPU the fused kernel; sdpa = LibTorch 2.x's scaled_dot_product_attention (keeps "
        "no T x T weights, slower on the CPU; needs model.dropout=0); explicit = scores "
        "and softmax weights as tensors (what LibTorch 1.13 always runs)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Hidden layer widths of the tabular MLP, comma-separated"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Embedding width of categorical columns (tabular); 0 = automatic"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Hard memory cap such as 512MiB or 8GiB: CPU allocations beyond it fail, "
                      "CUDA and MPS behave as a device of this size; none = no cap"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Mixed precision: bf16 autocast (CPU; CUDA from compute capability 8.0), "
                      "fp16 autocast with dynamic loss scaling (CUDA); weights stay fp32"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Activation checkpointing (gpt): 0 = off, 1 = every block, k = every k-th "
                      "block (true/on = 1, false/off = 0); recomputes activations in backward to "
                      "save memory"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "adamw keeps two fp32 moments (8 bytes per parameter); adamw8bit quantizes "
                      "them block-wise (about 2 bytes per parameter)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Keep optimizer state in pinned host memory and update there (CUDA only)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Release cached device memory every N steps; 0 = never"),
    QT_TRANSLATE_NOOP("ConfigKeys", "CUDA allocator expandable segments (LibTorch 2.1 or newer)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "CUDA allocator: blocks larger than this are never split "
                                    "(fights fragmentation); none = LibTorch's default"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "CUDA allocator: reclaim cached blocks above this share of the budget; 0 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "What out-of-memory recovery may switch on, in order, once the micro-batch "
                      "is 1: checkpointing, bf16, adamw8bit, int8 and nf4 (the frozen base of a "
                      "LoRA run on model.base), offload; none = nothing"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Out-of-memory recovery never halves the micro-batch below this"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Out-of-memory recoveries allowed per run before it pauses"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Examples per forward/backward pass"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Micro-batches per optimizer step (effective batch = micro_batch x accumulation)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Peak learning rate (AdamW)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Final learning rate as a share of train.lr"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Linear warm-up steps before cosine decay"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Optimizer steps of the run (derived from train.epochs when that is set)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Passes over the training split (tabular); above 0 the run's steps follow "
                      "from it: epochs x training rows / effective batch. 0 = use train.steps"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Stop after this many validation passes without a lower validation loss and "
                      "make the best checkpoint the run's result; 0 = off (true/on = 10)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Loss weights per class (tabular classification): balanced = inverse class "
                      "frequency; auto = square root of that when the largest class has 4 or "
                      "more times the rows of the smallest, else none"),
    QT_TRANSLATE_NOOP("ConfigKeys", "AdamW weight decay"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Clip the gradient norm to this; 0 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Seed of initialization, dropout and shuffling"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Steps between checkpoints; 0 = only at the end"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Checkpoints kept per run; older ones are deleted"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Steps between validation passes; 0 = only at the end"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Micro-batches per validation pass; 0 = the whole validation split"),
    QT_TRANSLATE_NOOP("ConfigKeys", "CPU threads for LibTorch; 0 = all cores"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Rank of the LoRA adapters; 0 = off (train every weight). Needs model.base or "
        "lora.base_run"),
    QT_TRANSLATE_NOOP("ConfigKeys", "LoRA scaling numerator: updates scale by alpha/rank"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Dropout on the input of the LoRA adapters"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Projections that get adapters, comma-separated: qkv, attn_out, mlp_in, mlp_out, "
        "experts_in, experts_out (the experts of MoE blocks); for model.base also the folder's "
        "names (q_proj, v_proj, c_attn, ...) or all-linear"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Run whose latest checkpoint is the frozen base (lora.rank > 0 without model.base)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Experts per Mixture-of-Experts block (gpt); 0 = dense blocks"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Experts each token is routed to (1 to moe.experts)"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Tokens an expert takes per sequence: capacity_factor x tokens x top_k / "
        "experts; routings beyond it are dropped (the residual carries the token); 0 = "
        "no limit"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Every k-th block is an MoE block (blocks k, 2k, ... counting from 1); 1 = all"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Hidden width of each expert MLP; 0 = 4 x model.dim"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Weight of the load-balancing loss (Switch/GShard form, which is 1 for "
                      "perfectly balanced routing)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Weight of the router z-loss (ST-MoE: mean squared logsumexp of the router "
                      "logits)"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "Router input noise in training: the input is multiplied by uniform noise in [1 "
        "- j, 1 + j]; 0 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Distributed runs (RANK/WORLD_SIZE set, or train --nproc): seconds a rank "
                      "waits for the others at the rendezvous and each gradient exchange before "
                      "it stops with a message naming the missing rank"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "When a GPU (mps, cuda) runs out of memory even at the smallest micro-batch "
                      "and after every recovery.ladder rung: cpu = move the run to the CPU and go "
                      "on with the same samples (slower); off = keep the device and pause with a "
                      "diagnosis"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Distributed runs: how ranks exchange gradients. gloo = through host memory "
                      "(CPU, or any device); nccl = on the GPUs (device=cuda; each rank takes "
                      "cuda:LOCAL_RANK; needs a LibTorch built with NCCL); auto = nccl on CUDA "
                      "when this build has it, else gloo"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Distributed runs: each rank keeps the optimizer state (AdamW moments, "
                      "8-bit states, offloaded master copies) of about 1/ranks of the parameters "
                      "and broadcasts its updated parameters after each step (ZeRO stage 1); "
                      "checkpoints hold the whole state"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Distributed runs: send the gradients in buckets while the backward of "
                      "each step's last micro-batch still runs (as PyTorch DDP does); 0 = after "
                      "the whole backward. Both give the same update"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Distributed runs: KiB of gradients per bucket of the overlapped exchange "
                      "(distributed.overlap); a larger parameter has a bucket of its own"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Ranks the estimate and the plan assume for a sharded optimizer state; a "
                      "distributed run sets it to its WORLD_SIZE"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Weight of the FLOPS regularizer on the queries (sparser queries as it "
                      "grows)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "Weight of the FLOPS regularizer on the passages"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Steps over which the FLOPS weights grow quadratically to their values; 0 "
                      "= full weights from the start"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Hard negatives per query in training, taken in turn from each record's "
                      "\"negatives\" (every other passage of the batch is a negative too)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Preference pairs and grpo prompts: the most prompt tokens kept (the "
                      "prompt's end, as TRL keeps it); 0 = no limit (a pair is cut at "
                      "model.seq_len + 1 tokens, a prompt at model.seq_len, either way)"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "What the run optimizes: sft = next-token loss on the data; dpo, ipo, simpo, orpo = "
        "preference tuning on \"prompt\"/\"chosen\"/\"rejected\" pairs (model.base; dpo and ipo "
        "against a frozen reference: the base with the LoRA adapters off, or a frozen copy without "
        "LoRA); kto = unpaired \"prompt\"/\"completion\"/\"label\" records against the reference; "
        "grpo = online RL on \"prompt\" records: completions sampled in groups, scored by "
        "grpo.reward. Dropout is off for them, as in TRL"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "Preference objectives: beta, how far the policy may move from the reference "
                      "(dpo, ipo) or the reward scale (simpo)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "dpo and simpo: the share of pairs assumed mislabelled (conservative DPO); 0 "
                      "= none"),
    QT_TRANSLATE_NOOP("ConfigKeys", "simpo: the target reward margin gamma"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "kto: the weight of the loss of records labelled desirable (true)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "kto: the weight of the loss of records labelled undesirable (false)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "orpo: the weight of the odds-ratio term beside the next-token loss of the "
                      "chosen sequence (its prompt and completion, as TRL)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "dpo and ipo: one no-grad pass over the data before training computes the "
                      "reference log-probabilities and stores them in the project (reused while "
                      "the data, base and settings stay the same), so training runs no reference "
                      "model: faster steps, and without LoRA no frozen copy in memory"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "dpo and ipo without LoRA: how the frozen reference copy of the base holds "
                      "its attention and MLP weights (int8/nf4 save memory at a small error in the "
                      "reference log-probabilities)"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "grpo: the rewards, comma-separated, each KIND:ARGUMENT*WEIGHT: regex:PATTERN (1 when "
        "found), format:PATTERN (1 when the whole completion matches), exact:FIELD (the final "
        "answer equals the record's FIELD), length:N (1 at N tokens, less further away), "
        "command:CMD (a program reading JSONL on stdin, printing one reward per line); e.g. "
        "exact:answer,format:<think>.*</think>*0.2"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo, exact: rewards: where the final answer is in a completion (a regular "
                      "expression; its last match, the first group when it has groups)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "grpo, command: rewards: seconds the program may take for one "
                                    "step's completions before the run pauses"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: completions sampled per prompt, whose rewards are compared with each "
                      "other (train.micro_batch x train.accumulation must be a multiple)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "grpo: the longest completion, in tokens (model.seq_len bounds "
                                    "prompt and completion together)"),
    QT_TRANSLATE_NOOP("ConfigKeys", "grpo: sampling temperature of the completions"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "grpo: nucleus sampling, the smallest set of tokens holding this probability; 1 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys", "grpo: sample among the k most likely tokens only; 0 = off"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: weight of the KL penalty to the reference (the base with the LoRA "
                      "adapters off, or a frozen copy); 0 = no reference model, as TRL's default"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: the policy ratio is clipped to [1 - epsilon, 1 + epsilon_high]"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: the upper clipping bound (DAPO suggests 0.28); 0 = grpo.epsilon"),
    QT_TRANSLATE_NOOP(
        "ConfigKeys",
        "grpo: how token losses are averaged: dapo = over the step's completion tokens, grpo = per "
        "completion then over completions, dr_grpo = over completions x grpo.max_new_tokens, bnpo "
        "= over each micro-batch's completion tokens"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: advantages are the rewards minus their group's mean, divided by the "
                      "group's standard deviation (group), the step's (batch), or not (none)"),
    QT_TRANSLATE_NOOP("ConfigKeys",
                      "grpo: completions with their rewards written to the log at each validation"),
};

} // namespace

bool hasTranslatableDescription(const std::string &description) {
    return std::any_of(std::begin(kDescriptions), std::end(kDescriptions),
                       [&description](const char *text) { return description == text; });
}

QString translatedDescription(const KeySpec &spec) {
    return QCoreApplication::translate("ConfigKeys", spec.description.c_str());
}

} // namespace headroom::ui
