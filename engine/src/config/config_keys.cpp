// The registry of configuration keys: one place for names, types, defaults and limits.
#include <headroom/config.h>

namespace headroom {

namespace {

KeySpec choice(const char *name, const char *default_value, std::vector<std::string> choices,
               const char *description) {
    KeySpec spec;
    spec.name = name;
    spec.type = KeyType::Choice;
    spec.default_value = default_value;
    spec.choices = std::move(choices);
    spec.description = description;
    return spec;
}

KeySpec integer(const char *name, const char *default_value, double minimum, double maximum,
                const char *description) {
    KeySpec spec;
    spec.name = name;
    spec.type = KeyType::Integer;
    spec.default_value = default_value;
    spec.minimum = minimum;
    spec.maximum = maximum;
    spec.description = description;
    return spec;
}

KeySpec real(const char *name, const char *default_value, double minimum, double maximum,
             const char *description) {
    KeySpec spec = integer(name, default_value, minimum, maximum, description);
    spec.type = KeyType::Real;
    return spec;
}

// An integer key that also reads true/on/yes as `true_value` and false/off/no as 0.
KeySpec onOff(KeySpec spec, const char *true_value) {
    spec.true_value = true_value;
    return spec;
}

KeySpec text(const char *name, const char *default_value, KeyType type, const char *description) {
    KeySpec spec;
    spec.name = name;
    spec.type = type;
    spec.default_value = default_value;
    spec.description = description;
    return spec;
}

std::vector<KeySpec> buildKeys() {
    return {
        choice("recipe", "gpt", {"gpt", "tabular", "splade", "causal_lm"},
               "What to train: a GPT language model from scratch, a tabular MLP, a SPLADE sparse "
               "retrieval encoder (on a BERT-family model.base) or a pretrained causal language "
               "model (causal_lm, on model.base; projects before it say gpt)"),
        text("device", "auto", KeyType::String, "auto, cpu, cuda, cuda:N or mps"),
        choice("device.fallback", "off", {"off", "cpu"},
               "When a GPU (mps, cuda) runs out of memory even at the smallest micro-batch and "
               "after every recovery.ladder rung: cpu = move the run to the CPU and go on with "
               "the same samples (slower); off = keep the device and pause with a diagnosis"),

        text("data.path", "", KeyType::Path,
             "Training data file (relative paths are relative to the project file)"),
        choice("data.format", "auto", {"auto", "text", "jsonl", "json", "csv", "chat"},
               "Data format; auto goes by the file extension (JSONL whose first record has "
               "\"messages\" or \"conversations\" is chat); chat = conversations in JSONL "
               "or JSON, rendered with the chat template"),
        text("data.chat_template", "", KeyType::String,
             "Chat data: the template conversations are rendered with; empty = the one of "
             "model.base, chatml = the built-in ChatML template, else a file (.jinja, or a "
             "tokenizer_config.json / chat_template.json holding one)"),
        choice("data.train_on", "assistant", {"assistant", "last_assistant", "all"},
               "Chat data: the tokens learned; assistant = every assistant reply with its "
               "end-of-turn, last_assistant = the final reply only, all = the whole text"),
        text("data.text_field", "text", KeyType::String,
             "JSONL field or CSV column holding the text (gpt)"),
        text("data.target", "", KeyType::String, "CSV target column (tabular); empty = last"),
        choice("data.task", "auto", {"auto", "classification", "regression"},
               "Tabular task; auto infers it from the target column"),
        integer("data.shuffle_buffer", "1024", 1, 10000000, "Examples held for shuffling"),
        integer("data.max_examples", "0", 0, 1e12, "Records read from the file; 0 = all"),
        real("data.validation_fraction", "0.1", 0, 0.5, "Share of records kept for validation"),
        integer("data.stride", "0", 0, 1000000, "Tokens between windows (gpt); 0 = seq_len"),
        onOff(integer("data.packing", "0", 0, 1,
                      "Language models: place whole records (text, prompt/completion, "
                      "conversations) side by side in windows of model.seq_len, best fit over "
                      "the next 64, each attending only to itself with positions from 0; "
                      "0 = one padded window per prompt/completion or conversation, plain text "
                      "as one stream"),
              "1"),
        integer("data.max_prompt_len", "0", 0, 1000000,
                "Preference pairs and grpo prompts: the most prompt tokens kept (the prompt's "
                "end, as TRL keeps it); 0 = no limit (a pair is cut at model.seq_len + 1 tokens, "
                "a prompt at model.seq_len, either way)"),

        choice("tokenizer", "byte", {"byte", "bpe", "unigram", "base"},
               "byte needs no training; bpe/unigram train SentencePiece on the corpus; base "
               "uses the tokenizer of model.base"),
        integer("tokenizer.vocab_size", "1024", 64, 65536, "SentencePiece vocabulary size"),

        text("model.base", "", KeyType::Path,
             "Hugging Face model folder to fine-tune (gpt); empty = a new model from scratch"),
        choice("model.base_dtype", "fp32", {"fp32", "bf16", "fp16", "int8", "nf4"},
               "How the frozen base of a LoRA run (model.base) holds its attention and MLP "
               "weights: fp32, bf16/fp16 (2 bytes), int8 (per-row absmax, ~1 byte) or nf4 "
               "(4-bit NormalFloat with double-quantized scales, ~0.52 bytes); embeddings, "
               "norms and the output head stay fp32"),
        integer("model.params", "0", 0, 1e11,
                "Target parameter count (gpt); 0 = use layers, heads and dim"),
        integer("model.layers", "4", 1, 128, "Transformer blocks (gpt)"),
        integer("model.heads", "4", 1, 128, "Attention heads (gpt)"),
        integer("model.dim", "128", 8, 16384, "Embedding width (gpt)"),
        integer("model.seq_len", "64", 2, 65536, "Context length in tokens (gpt)"),
        real("model.dropout", "0.1", 0, 0.9, "Dropout probability"),
        choice("model.attention", "auto", {"auto", "sdpa", "explicit"},
               "How a GPT made from scratch attends: auto = on the CPU the explicit form while "
               "its T x T weights are cheap (seq_len <= 16 x head size and, under memory.budget, "
               "all layers' weights within a quarter of it), otherwise the fused kernel; on a "
               "GPU the fused kernel; sdpa = LibTorch 2.x's scaled_dot_product_attention (keeps "
               "no T x T weights, slower on the CPU; needs model.dropout=0); explicit = scores "
               "and softmax weights as tensors (what LibTorch 1.13 always runs)"),
        text("model.hidden", "128,64", KeyType::String,
             "Hidden layer widths of the tabular MLP, comma-separated"),
        integer("model.embedding_dim", "0", 0, 1024,
                "Embedding width of categorical columns (tabular); 0 = automatic"),

        text("memory.budget", "none", KeyType::Bytes,
             "Hard memory cap such as 512MiB or 8GiB: CPU allocations beyond it fail, CUDA and "
             "MPS behave as a device of this size; none = no cap"),
        choice("precision", "fp32", {"fp32", "bf16", "fp16"},
               "Mixed precision: bf16 autocast (CPU; CUDA from compute capability 8.0), fp16 "
               "autocast with dynamic loss scaling (CUDA); weights stay fp32"),
        onOff(integer("checkpointing", "0", 0, 1024,
                      "Activation checkpointing (gpt): 0 = off, 1 = every block, k = every k-th "
                      "block (true/on = 1, false/off = 0); recomputes activations in backward to "
                      "save memory"),
              "1"),
        choice("optimizer", "adamw", {"adamw", "adamw8bit"},
               "adamw keeps two fp32 moments (8 bytes per parameter); adamw8bit quantizes them "
               "block-wise (about 2 bytes per parameter)"),
        choice("offload.optimizer", "off", {"off", "on"},
               "Keep optimizer state in pinned host memory and update there (CUDA only)"),
        integer("memory.clear_every", "0", 0, 1e9,
                "Release cached device memory every N steps; 0 = never"),
        choice("memory.expandable_segments", "off", {"off", "on"},
               "CUDA allocator expandable segments (LibTorch 2.1 or newer)"),
        text("memory.max_split_size", "none", KeyType::Bytes,
             "CUDA allocator: blocks larger than this are never split (fights fragmentation); none "
             "= LibTorch's default"),
        real("memory.gc_threshold", "0", 0, 1,
             "CUDA allocator: reclaim cached blocks above this share of the budget; 0 = off"),
        text("recovery.ladder", "checkpointing,bf16,adamw8bit,int8,nf4,offload", KeyType::String,
             "What out-of-memory recovery may switch on, in order, once the micro-batch is 1: "
             "checkpointing, bf16, adamw8bit, int8 and nf4 (the frozen base of a LoRA run on "
             "model.base), offload; none = nothing"),
        integer("recovery.min_micro_batch", "1", 1, 1048576,
                "Out-of-memory recovery never halves the micro-batch below this"),
        integer("recovery.max_recoveries", "16", 0, 1000000,
                "Out-of-memory recoveries allowed per run before it pauses"),
        integer("train.micro_batch", "12", 1, 1048576, "Examples per forward/backward pass"),
        integer("train.accumulation", "1", 1, 1048576,
                "Micro-batches per optimizer step (effective batch = micro_batch x accumulation)"),
        real("train.lr", "0.0003", 1e-9, 10, "Peak learning rate (AdamW)"),
        real("train.min_lr_ratio", "0.1", 0, 1, "Final learning rate as a share of train.lr"),
        integer("train.warmup_steps", "10", 0, 1e9, "Linear warm-up steps before cosine decay"),
        integer("train.steps", "200", 1, 1e9,
                "Optimizer steps of the run (derived from train.epochs when that is set)"),
        real("train.epochs", "0", 0, 1e6,
             "Passes over the training split (tabular); above 0 the run's steps follow from it: "
             "epochs x training rows / effective batch. 0 = use train.steps"),
        onOff(integer("train.early_stopping", "0", 0, 1e6,
                      "Stop after this many validation passes without a lower validation loss "
                      "and make the best checkpoint the run's result; 0 = off (true/on = 10)"),
              "10"),
        choice("train.class_weights", "auto", {"auto", "none", "balanced"},
               "Loss weights per class (tabular classification): balanced = inverse class "
               "frequency; auto = square root of that when the largest class has 4 or more "
               "times the rows of the smallest, else none"),
        real("train.weight_decay", "0.01", 0, 10, "AdamW weight decay"),
        real("train.grad_clip", "1.0", 0, 1e9, "Clip the gradient norm to this; 0 = off"),
        integer("train.seed", "1234", 0, 9007199254740992.0,
                "Seed of initialization, dropout and shuffling"),
        integer("train.checkpoint_every", "50", 0, 1e9,
                "Steps between checkpoints; 0 = only at the end"),
        integer("train.keep_checkpoints", "3", 1, 1e6,
                "Checkpoints kept per run; older ones are deleted"),
        integer("train.eval_every", "50", 0, 1e9,
                "Steps between validation passes; 0 = only at the end"),
        integer("train.eval_batches", "8", 0, 1e6,
                "Micro-batches per validation pass; 0 = the whole validation split"),
        integer("train.threads", "0", 0, 4096, "CPU threads for LibTorch; 0 = all cores"),
        integer("distributed.timeout_s", "300", 1, 86400,
                "Distributed runs (RANK/WORLD_SIZE set, or train --nproc): seconds a rank waits "
                "for the others at the rendezvous and each gradient exchange before it stops "
                "with a message naming the missing rank"),
        choice("distributed.backend", "auto", {"auto", "gloo", "nccl"},
               "Distributed runs: how ranks exchange gradients. gloo = through host memory "
               "(CPU, or any device); nccl = on the GPUs (device=cuda; each rank takes "
               "cuda:LOCAL_RANK; needs a LibTorch built with NCCL); auto = nccl on CUDA when "
               "this build has it, else gloo"),
        onOff(integer("distributed.shard_optimizer", "0", 0, 1,
                      "Distributed runs: each rank keeps the optimizer state (AdamW moments, "
                      "8-bit states, offloaded master copies) of about 1/ranks of the "
                      "parameters and broadcasts its updated parameters after each step "
                      "(ZeRO stage 1); checkpoints hold the whole state"),
              "1"),
        onOff(integer("distributed.overlap", "1", 0, 1,
                      "Distributed runs: send the gradients in buckets while the backward of "
                      "each step's last micro-batch still runs (as PyTorch DDP does); 0 = after "
                      "the whole backward. Both give the same update"),
              "1"),
        integer("distributed.bucket_kib", "4096", 1, 16384,
                "Distributed runs: KiB of gradients per bucket of the overlapped exchange "
                "(distributed.overlap); a larger parameter has a bucket of its own"),
        integer("distributed.ranks", "1", 1, 65536,
                "Ranks the estimate and the plan assume for a sharded optimizer state; a "
                "distributed run sets it to its WORLD_SIZE"),
        integer("train.sample_tokens", "24", 0, 4096,
                "Tokens of a sample continuation written at each validation (gpt); 0 = off"),

        // --- LoRA (train/lora_setup.cpp): low-rank adapters on a frozen base run (gpt) ---
        integer("lora.rank", "0", 0, 4096,
                "Rank of the LoRA adapters; 0 = off (train every weight). Needs model.base or "
                "lora.base_run"),
        real("lora.alpha", "16", 1e-6, 1e6, "LoRA scaling numerator: updates scale by alpha/rank"),
        real("lora.dropout", "0.05", 0, 0.9, "Dropout on the input of the LoRA adapters"),
        text("lora.targets", "qkv,attn_out,mlp_in,mlp_out", KeyType::String,
             "Projections that get adapters, comma-separated: qkv, attn_out, mlp_in, mlp_out, "
             "experts_in, experts_out (the experts of MoE blocks); for model.base also the "
             "folder's names (q_proj, v_proj, c_attn, ...) or all-linear"),
        integer("lora.base_run", "0", 0, 9007199254740992.0,
                "Run whose latest checkpoint is the frozen base (lora.rank > 0 without "
                "model.base)"),

        // --- Mixture of Experts (models/moe.h): routed expert MLPs in GPT blocks (gpt) ---
        integer("moe.experts", "0", 0, 256,
                "Experts per Mixture-of-Experts block (gpt); 0 = dense blocks"),
        integer("moe.top_k", "2", 1, 256, "Experts each token is routed to (1 to moe.experts)"),
        real("moe.capacity_factor", "1.25", 0, 1000,
             "Tokens an expert takes per sequence: capacity_factor x tokens x top_k / "
             "experts; routings beyond it are dropped (the residual carries the token); 0 = "
             "no limit"),
        integer("moe.every", "1", 1, 128,
                "Every k-th block is an MoE block (blocks k, 2k, ... counting from 1); 1 = all"),
        integer("moe.expert_hidden", "0", 0, 1048576,
                "Hidden width of each expert MLP; 0 = 4 x model.dim"),
        real("moe.aux_loss", "0.01", 0, 1000,
             "Weight of the load-balancing loss (Switch/GShard form, which is 1 for "
             "perfectly balanced routing)"),
        real("moe.z_loss", "0.001", 0, 1000,
             "Weight of the router z-loss (ST-MoE: mean squared logsumexp of the router "
             "logits)"),
        real("moe.jitter", "0", 0, 0.99,
             "Router input noise in training: the input is multiplied by uniform noise in [1 "
             "- j, 1 + j]; 0 = off"),

        // --- Preference tuning (recipes/preference_objective.h) on a pretrained base ---
        choice("train.objective", "sft", {"sft", "dpo", "ipo", "simpo", "orpo", "kto", "grpo"},
               "What the run optimizes: sft = next-token loss on the data; dpo, ipo, simpo, orpo "
               "= preference tuning on \"prompt\"/\"chosen\"/\"rejected\" pairs (model.base; "
               "dpo and ipo against a frozen reference: the base with the LoRA adapters off, "
               "or a frozen copy without LoRA); kto = unpaired \"prompt\"/\"completion\"/"
               "\"label\" records against the reference; grpo = online RL on \"prompt\" "
               "records: completions sampled in groups, scored by grpo.reward. Dropout is off "
               "for them, as in TRL"),
        real("pref.beta", "0.1", 1e-6, 1000,
             "Preference objectives: beta, how far the policy may move from the reference (dpo, "
             "ipo) or the reward scale (simpo)"),
        real("pref.label_smoothing", "0", 0, 0.49,
             "dpo and simpo: the share of pairs assumed mislabelled (conservative DPO); 0 = "
             "none"),
        real("pref.simpo_gamma", "0.5", 0, 1000, "simpo: the target reward margin gamma"),
        real("pref.kto_desirable_weight", "1", 0, 1000,
             "kto: the weight of the loss of records labelled desirable (true)"),
        real("pref.kto_undesirable_weight", "1", 0, 1000,
             "kto: the weight of the loss of records labelled undesirable (false)"),
        real("pref.orpo_lambda", "0.1", 0, 1000,
             "orpo: the weight of the odds-ratio term beside the next-token loss of the chosen "
             "sequence (its prompt and completion, as TRL)"),
        onOff(integer("pref.precompute_reference", "0", 0, 1,
                      "dpo and ipo: one no-grad pass over the data before training computes the "
                      "reference log-probabilities and stores them in the project (reused while "
                      "the data, base and settings stay the same), so training runs no reference "
                      "model: faster steps, and without LoRA no frozen copy in memory"),
              "1"),
        choice("pref.reference_dtype", "fp32", {"fp32", "bf16", "int8", "nf4"},
               "dpo and ipo without LoRA: how the frozen reference copy of the base holds its "
               "attention and MLP weights (int8/nf4 save memory at a small error in the "
               "reference log-probabilities)"),

        // --- Online RL with verifiable rewards (recipes/grpo_objective.h), TRL's GRPO ---
        text("grpo.reward", "", KeyType::String,
             "grpo: the rewards, comma-separated, each KIND:ARGUMENT*WEIGHT: regex:PATTERN (1 "
             "when found), format:PATTERN (1 when the whole completion matches), exact:FIELD "
             "(the final answer equals the record's FIELD), length:N (1 at N tokens, less "
             "further away), command:CMD (a program reading JSONL on stdin, printing one reward "
             "per line); e.g. exact:answer,format:<think>.*</think>*0.2"),
        text("grpo.answer_pattern", "-?[0-9][0-9,]*(?:\\.[0-9]+)?", KeyType::String,
             "grpo, exact: rewards: where the final answer is in a completion (a regular "
             "expression; its last match, the first group when it has groups)"),
        real("grpo.reward_timeout", "60", 0.1, 86400,
             "grpo, command: rewards: seconds the program may take for one step's completions "
             "before the run pauses"),
        integer("grpo.group_size", "8", 2, 1024,
                "grpo: completions sampled per prompt, whose rewards are compared with each "
                "other (train.micro_batch x train.accumulation must be a multiple)"),
        integer("grpo.max_new_tokens", "256", 1, 1000000,
                "grpo: the longest completion, in tokens (model.seq_len bounds prompt and "
                "completion together)"),
        real("grpo.temperature", "1", 0.01, 100, "grpo: sampling temperature of the completions"),
        real("grpo.top_p", "1", 0.01, 1,
             "grpo: nucleus sampling, the smallest set of tokens holding this probability; 1 = "
             "off"),
        integer("grpo.top_k", "0", 0, 1000000,
                "grpo: sample among the k most likely tokens only; 0 = off"),
        real("grpo.beta", "0", 0, 1000,
             "grpo: weight of the KL penalty to the reference (the base with the LoRA adapters "
             "off, or a frozen copy); 0 = no reference model, as TRL's default"),
        real("grpo.epsilon", "0.2", 0, 10,
             "grpo: the policy ratio is clipped to [1 - epsilon, 1 + epsilon_high]"),
        real("grpo.epsilon_high", "0", 0, 10,
             "grpo: the upper clipping bound (DAPO suggests 0.28); 0 = grpo.epsilon"),
        choice("grpo.loss_type", "dapo", {"dapo", "grpo", "dr_grpo", "bnpo"},
               "grpo: how token losses are averaged: dapo = over the step's completion tokens, "
               "grpo = per completion then over completions, dr_grpo = over completions x "
               "grpo.max_new_tokens, bnpo = over each micro-batch's completion tokens"),
        choice("grpo.scale_rewards", "group", {"group", "batch", "none"},
               "grpo: advantages are the rewards minus their group's mean, divided by the "
               "group's standard deviation (group), the step's (batch), or not (none)"),
        integer("grpo.log_completions", "2", 0, 64,
                "grpo: completions with their rewards written to the log at each validation"),

        // --- SPLADE (models/splade.h): sparse retrieval encoder fine-tuning (splade) ---
        real("splade.lambda_q", "0.0005", 0, 1000,
             "Weight of the FLOPS regularizer on the queries (sparser queries as it grows)"),
        real("splade.lambda_d", "0.0003", 0, 1000,
             "Weight of the FLOPS regularizer on the passages"),
        integer("splade.warmup_steps", "0", 0, 1e9,
                "Steps over which the FLOPS weights grow quadratically to their values; 0 = "
                "full weights from the start"),
        integer("splade.hard_negatives", "1", 0, 64,
                "Hard negatives per query in training, taken in turn from each record's "
                "\"negatives\" (every other passage of the batch is a negative too)"),
    };
}

} // namespace

const std::vector<KeySpec> &configKeys() {
    static const std::vector<KeySpec> keys = buildKeys();
    return keys;
}

const KeySpec *findConfigKey(const std::string &name) {
    for (const KeySpec &spec : configKeys()) {
        if (spec.name == name) {
            return &spec;
        }
    }
    return nullptr;
}

} // namespace headroom
