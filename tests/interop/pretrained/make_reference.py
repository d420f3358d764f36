#!/usr/bin/python3
"""Writes tiny random Hugging Face model folders and the logits/greedy tokens they must give.

  make_reference.py OUT_DIR

Under OUT_DIR, one folder per model (gpt2, gpt2-prefixed, llama, llama-sharded, qwen2, mistral,
mixtral),
each what `save_pretrained` plus a tokenizer would leave: config.json, generation_config.json,
tokenizer_config.json, tokenizer.json (tests/data/tokenizers/bpe_byte_level, 345 ids),
model.safetensors (or two shards and model.safetensors.index.json), and reference.safetensors
(F32/I64) with:
  inputs         I64 [3, 24]        random ids < 345
  logits         F32 [3, 24, vocab] reference_lm forward of the weights as stored on disk
  greedy_prompt  I64 [8]            bos, then 7 random ids
  greedy_tokens  I64 [N]            greedy continuation, at most 32 new tokens, ending after the
                                    first token in eos_token_id (that token included)
and for mixtral also, for the training objective at `inputs` (transformers' cross-entropy plus
router_aux_loss_coef x the balancing loss, applied per row and averaged):
  targets        I64 [3, 24]        random ids < 345
  aux_loss       F32 []             the balancing loss
  grad.NAME      F32                the objective's gradient of every weight
  routing.L      I64 [72, k]        layer L's selected experts per token (in topk order)
  moe_input.L    F32 [72, dim]      layer L's MoE block input, and its output moe_output.L
Deterministic: fixed seeds, and the same bytes on every run.
"""

import json
import os
import shutil
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_lm as ref  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOKENIZER = os.path.join(REPO, "tests", "data", "tokenizers", "bpe_byte_level", "tokenizer.json")
TOKENIZER_VOCAB = 345
SEP, MASK = 340, 343  # "<sep>" and "[MASK]" in that tokenizer
TOKEN_TEXT = {SEP: "<sep>", MASK: "[MASK]"}
MAX_NEW_TOKENS = 32
MIN_MARGIN = 0.05  # smallest gap between the two best logits along a greedy path
TRANSFORMERS_VERSION = "4.44.2"

DISK_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
TORCH_DTYPE_NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}


class Init:
    """Random tensors from one seeded generator."""

    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def normal(self, shape, std):
        return torch.randn(shape, generator=self.gen) * std

    def norm(self, shape, noise=0.1):
        return 1.0 + self.normal(shape, noise)


# ---------------------------------------------------------------------------------------------
# configs and weights


def gpt2_config(disk):
    return {
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "bos_token_id": SEP,
        "embd_pdrop": 0.1,
        "eos_token_id": SEP,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": 128,
        "n_embd": 64,
        "n_head": 4,
        "n_inner": None,
        "n_layer": 2,
        "n_positions": 128,
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "tie_word_embeddings": True,
        "torch_dtype": TORCH_DTYPE_NAMES[disk],
        "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True,
        "vocab_size": TOKENIZER_VOCAB,
    }


def gpt2_weights(config, seed, prefix, mask_buffers):
    """HF GPT2LMHeadModel tensors: Conv1D weights [in, out]; tied, so no lm_head.weight."""
    init = Init(seed)
    dim, layers, positions = config["n_embd"], config["n_layer"], config["n_positions"]
    inner = config["n_inner"] or 4 * dim
    w = {prefix + "wte.weight": init.normal((config["vocab_size"], dim), 0.3),
         prefix + "wpe.weight": init.normal((positions, dim), 0.2)}
    for i in range(layers):
        p = f"{prefix}h.{i}."
        w[p + "ln_1.weight"] = init.norm(dim)
        w[p + "ln_1.bias"] = init.normal(dim, 0.05)
        w[p + "attn.c_attn.weight"] = init.normal((dim, 3 * dim), 0.25)
        w[p + "attn.c_attn.bias"] = init.normal(3 * dim, 0.05)
        w[p + "attn.c_proj.weight"] = init.normal((dim, dim), 0.15)
        w[p + "attn.c_proj.bias"] = init.normal(dim, 0.05)
        w[p + "ln_2.weight"] = init.norm(dim)
        w[p + "ln_2.bias"] = init.normal(dim, 0.05)
        w[p + "mlp.c_fc.weight"] = init.normal((dim, inner), 0.15)
        w[p + "mlp.c_fc.bias"] = init.normal(inner, 0.05)
        w[p + "mlp.c_proj.weight"] = init.normal((inner, dim), 0.1)
        w[p + "mlp.c_proj.bias"] = init.normal(dim, 0.05)
        if mask_buffers:  # what the hub gpt2 model.safetensors carries (F32 lower triangle)
            w[p + "attn.bias"] = torch.tril(torch.ones(positions, positions)).view(
                1, 1, positions, positions)
    w[prefix + "ln_f.weight"] = init.norm(dim)
    w[prefix + "ln_f.bias"] = init.normal(dim, 0.05)
    return w


def llama_like_config(kind, disk, **sizes):
    base = {
        "llama": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                  "attention_bias": False, "mlp_bias": False, "pretraining_tp": 1,
                  "rms_norm_eps": 1e-05, "rope_theta": 10000.0},
        "qwen2": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
                  "max_window_layers": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                  "sliding_window": 4096, "use_sliding_window": False},
        "mistral": {"architectures": ["MistralForCausalLM"], "model_type": "mistral",
                    "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": 4096},
        # output_router_logits true: training adds the balancing loss, as transformers does then.
        "mixtral": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
                    "num_experts_per_tok": 2, "num_local_experts": 4,
                    "output_router_logits": True, "rms_norm_eps": 1e-05,
                    "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02,
                    "router_jitter_noise": 0.0, "sliding_window": None},
    }[kind]
    config = dict(base)
    config.update({
        "attention_dropout": 0.0,
        "bos_token_id": MASK,
        "eos_token_id": SEP,
        "hidden_act": "silu",
        "initializer_range": 0.02,
        "rope_scaling": None,
        "tie_word_embeddings": False,
        "torch_dtype": TORCH_DTYPE_NAMES[disk],
        "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True,
        "vocab_size": TOKENIZER_VOCAB,
    })
    config.update(sizes)
    return dict(sorted(config.items()))


def llama_like_weights(config, seed, qkv_bias=False):
    """HF Llama/Qwen2/Mistral tensors (lm_head.weight only when untied)."""
    init = Init(seed)
    dim, inter = config["hidden_size"], config["intermediate_size"]
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    head_dim = config.get("head_dim") or dim // heads
    w = {"model.embed_tokens.weight": init.normal((config["vocab_size"], dim), 0.5)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = init.norm(dim)
        w[p + "self_attn.q_proj.weight"] = init.normal((heads * head_dim, dim), 0.3)
        w[p + "self_attn.k_proj.weight"] = init.normal((kv_heads * head_dim, dim), 0.3)
        w[p + "self_attn.v_proj.weight"] = init.normal((kv_heads * head_dim, dim), 0.2)
        if qkv_bias:
            w[p + "self_attn.q_proj.bias"] = init.normal(heads * head_dim, 0.2)
            w[p + "self_attn.k_proj.bias"] = init.normal(kv_heads * head_dim, 0.2)
            w[p + "self_attn.v_proj.bias"] = init.normal(kv_heads * head_dim, 0.2)
        w[p + "self_attn.o_proj.weight"] = init.normal((dim, heads * head_dim), 0.15)
        w[p + "post_attention_layernorm.weight"] = init.norm(dim)
        if config["model_type"] == "mixtral":
            # A wide router: clear gaps between each token's chosen and next-best expert.
            experts = config["num_local_experts"]
            w[p + "block_sparse_moe.gate.weight"] = init.normal((experts, dim), 0.6)
            for e in range(experts):
                q = f"{p}block_sparse_moe.experts.{e}."
                w[q + "w1.weight"] = init.normal((inter, dim), 0.2)
                w[q + "w2.weight"] = init.normal((dim, inter), 0.15)
                w[q + "w3.weight"] = init.normal((inter, dim), 0.2)
            continue
        w[p + "mlp.gate_proj.weight"] = init.normal((inter, dim), 0.15)
        w[p + "mlp.up_proj.weight"] = init.normal((inter, dim), 0.15)
        w[p + "mlp.down_proj.weight"] = init.normal((dim, inter), 0.1)
    w["model.norm.weight"] = init.norm(dim)
    if not config["tie_word_embeddings"]:
        w["lm_head.weight"] = init.normal((config["vocab_size"], dim), 0.3)
    # Rows past the tokenizer (vocab padded as Qwen pads it) are never seen in training: small,
    # so greedy decoding stays inside the tokenizer's ids.
    for name in ("model.embed_tokens.weight", "lm_head.weight"):
        if name in w:
            w[name][TOKENIZER_VOCAB:] *= 0.01
    return w


def models():
    """(folder name, config, weights, disk dtype, shards, seed)"""
    out = []
    config = gpt2_config("F32")
    out.append(("gpt2", config, gpt2_weights(config, 101, "", True), "F32", 1))
    config = gpt2_config("F16")
    out.append(("gpt2-prefixed", config, gpt2_weights(config, 102, "transformer.", False),
                "F16", 1))
    # original_max_position_embeddings 64 puts the head_dim-16 wavelengths (6.3, 32.5, 168, ...
    # at theta 500000) in all three llama3 bands: kept (< 16), blended, divided (> 64).
    config = llama_like_config(
        "llama", "BF16", hidden_size=64, intermediate_size=160, num_hidden_layers=3,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=256,
        rope_theta=500000.0,
        rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 64, "rope_type": "llama3"})
    out.append(("llama", config, llama_like_weights(config, 103), "BF16", 1))
    # Old-style {"type": ...} plus the "rope_type" that save_pretrained adds to it.
    config = llama_like_config(
        "llama", "F32", hidden_size=64, intermediate_size=160, num_hidden_layers=3,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=256,
        rope_scaling={"factor": 2.0, "rope_type": "linear", "type": "linear"},
        tie_word_embeddings=True)
    out.append(("llama-sharded", config, llama_like_weights(config, 104), "F32", 2))
    config = llama_like_config(
        "qwen2", "F16", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        vocab_size=384, tie_word_embeddings=True, bos_token_id=SEP)
    out.append(("qwen2", config, llama_like_weights(config, 105, qkv_bias=True), "F16", 1))
    config = llama_like_config(
        "mistral", "F32", hidden_size=64, intermediate_size=160, num_hidden_layers=2,
        num_attention_heads=8, num_key_value_heads=2, head_dim=8, max_position_embeddings=512)
    out.append(("mistral", config, llama_like_weights(config, 106), "F32", 1))
    # Tiny Mixtral: 2 layers of 4 experts, top-2, hidden 32, grouped-query attention.
    config = llama_like_config(
        "mixtral", "F32", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512)
    out.append(("mixtral", config, llama_like_weights(config, 107), "F32", 1))
    return out


# ---------------------------------------------------------------------------------------------
# folder files


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def tokenizer_config(config):
    added = {}
    with open(TOKENIZER) as f:
        for token in json.load(f)["added_tokens"]:
            added[str(token["id"])] = {k: token[k] for k in (
                "content", "lstrip", "normalized", "rstrip", "single_word", "special")}
    kind = config["model_type"]
    bos = config.get("bos_token_id")
    eos = ref.eos_ids(config)[0]
    return {
        "add_bos_token": kind in ("llama", "mistral", "mixtral"),
        "add_eos_token": False,
        "added_tokens_decoder": added,
        "bos_token": None if kind == "qwen2" else TOKEN_TEXT[bos],
        "clean_up_tokenization_spaces": False,
        "eos_token": TOKEN_TEXT[eos],
        "model_max_length": config.get("n_positions") or config["max_position_embeddings"],
        "pad_token": TOKEN_TEXT[SEP] if kind == "qwen2" else None,
        "tokenizer_class": "GPT2Tokenizer" if kind == "gpt2" else "PreTrainedTokenizerFast",
    }


def write_weights(folder, weights, disk, shards):
    """The tensors, rounded to the disk dtype (non-float buffers kept as they are)."""
    dtype = DISK_DTYPES[disk]
    stored = {name: t.to(dtype) if t.is_floating_point() else t for name, t in weights.items()}
    meta = {"format": "pt"}
    if shards == 1:
        ref.save_safetensors(os.path.join(folder, "model.safetensors"), stored, meta)
        return stored
    names = sorted(stored, key=shard_order)
    per_shard = -(-len(names) // shards)
    weight_map = {}
    total = 0
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: stored[n] for n in names[s * per_shard:(s + 1) * per_shard]}
        ref.save_safetensors(os.path.join(folder, file), part, meta)
        for name, tensor in part.items():
            weight_map[name] = file
            total += tensor.numel() * tensor.element_size()
    write_json(os.path.join(folder, "model.safetensors.index.json"),
               {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))})
    return stored


def shard_order(name):
    """Embedding first, layers in order, final norm and head last (as save_pretrained shards)."""
    parts = name.split(".")
    if "layers" in parts:
        return (1, int(parts[parts.index("layers") + 1]), name)
    return (0 if "embed" in name else 2, 0, name)


def check_causal(model, inputs, logits):
    """Finite logits, and changing a token changes no logits before it."""
    assert torch.isfinite(logits).all()
    changed = inputs.clone()
    changed[:, 12] = (changed[:, 12] + 1) % TOKENIZER_VOCAB
    with torch.no_grad():
        other = model(changed)
    assert torch.equal(other[:, :12], logits[:, :12]) or torch.allclose(
        other[:, :12], logits[:, :12], rtol=0, atol=1e-5)
    assert (other[:, 12:] - logits[:, 12:]).abs().max() > 1e-3


def make_model(out_dir, name, config, weights, disk, shards, seed):
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith(".safetensors") or old.endswith(".json"):
            os.remove(os.path.join(folder, old))
    inputs_gen = torch.Generator().manual_seed(1000 + seed)
    inputs = torch.randint(0, TOKENIZER_VOCAB, (3, 24), generator=inputs_gen)

    stored = write_weights(folder, weights, disk, shards)
    # The reference runs on the weights read back from disk (and they must equal what was put).
    write_json(os.path.join(folder, "config.json"), config)
    loaded_config, state = ref.load_folder(folder)
    assert loaded_config == config
    assert set(state) == set(stored), name
    for key, tensor in stored.items():
        assert torch.equal(state[key], tensor.float()), (name, key)

    model = ref.ReferenceLM(config, state)
    with torch.no_grad():
        logits = model(inputs)
    check_causal(model, inputs, logits)
    eos = ref.eos_ids(config)
    # A prompt whose greedy path never has a near tie between the two best logits (an
    # implementation with other rounding must still take the same path).
    for _ in range(100):
        prompt = torch.cat((torch.tensor([config["bos_token_id"]]),
                            torch.randint(0, TOKENIZER_VOCAB, (7,), generator=inputs_gen)))
        margins = []
        greedy = model.greedy(prompt, MAX_NEW_TOKENS, eos, margins)
        if min(margins) >= MIN_MARGIN and len(set(greedy.tolist())) > 4:
            break
    else:
        raise SystemExit(f"{name}: no prompt with a clear greedy path")
    if name == "llama":
        # A list eos_token_id (as Llama 3.x ships), whose second id is a token the greedy
        # continuation first reaches after a few steps, so the stop-at-eos path is exercised.
        free_run = greedy.tolist()
        stop = next(t for i, t in enumerate(free_run) if i >= 5 and t not in free_run[:i])
        eos = [SEP, stop]
        config["eos_token_id"] = eos
        write_json(os.path.join(folder, "config.json"), config)
        greedy = model.greedy(prompt, MAX_NEW_TOKENS, eos)
    assert len(greedy) == MAX_NEW_TOKENS or int(greedy[-1]) in eos

    generation = {"_from_model_config": True, "bos_token_id": config["bos_token_id"],
                  "eos_token_id": config["eos_token_id"],
                  "transformers_version": TRANSFORMERS_VERSION}
    write_json(os.path.join(folder, "generation_config.json"), generation)
    write_json(os.path.join(folder, "tokenizer_config.json"), tokenizer_config(config))
    shutil.copyfile(TOKENIZER, os.path.join(folder, "tokenizer.json"))
    tensors = {"inputs": inputs, "logits": logits.contiguous(), "greedy_prompt": prompt,
               "greedy_tokens": greedy}
    if config["model_type"] == "mixtral":
        tensors.update(mixtral_training_reference(model, inputs, inputs_gen))
    ref.save_safetensors(os.path.join(folder, "reference.safetensors"), tensors,
                         {"max_new_tokens": MAX_NEW_TOKENS})
    return logits, greedy, min(margins)


MIN_ROUTING_GAP = 1e-3  # smallest gap between a token's k-th and (k+1)-th router logit


def mixtral_training_reference(model, inputs, gen):
    """The training objective's gradients and each layer's routing at `inputs`."""
    targets = torch.randint(0, TOKENIZER_VOCAB, inputs.shape, generator=gen)
    for tensor in model.state.values():
        tensor.requires_grad_(True)
    logits = model(inputs)
    aux = model.load_balancing_loss(rows=inputs.shape[0])
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             targets.reshape(-1))
    (loss + model.config["router_aux_loss_coef"] * aux).backward()
    top_k = model.config["num_experts_per_tok"]
    out = {"targets": targets, "aux_loss": aux.detach().reshape([])}
    for layer, router_logits in enumerate(model.router_logits):
        ordered = router_logits.detach().sort(dim=-1).values
        gap = (ordered[:, -top_k] - ordered[:, -top_k - 1]).min()
        assert gap >= MIN_ROUTING_GAP, f"layer {layer}: routing gap {gap:.2e} is too small"
        out[f"routing.{layer}"] = model.selected_experts[layer]
        out[f"moe_input.{layer}"] = model.moe_inputs[layer].detach()
        out[f"moe_output.{layer}"] = model.moe_outputs[layer].detach()
    for name, tensor in model.state.items():
        out["grad." + name] = tensor.grad.detach().clone()
        tensor.requires_grad_(False)
        tensor.grad = None
    print(f"mixtral: balancing loss {float(aux):.4f}, routing per layer "
          + ", ".join(str(torch.bincount(s.reshape(-1), minlength=4).tolist())
                      for s in model.selected_experts))
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_reference.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    start = time.time()
    for seed, (name, config, weights, disk, shards) in enumerate(models(), start=1):
        logits, greedy, margin = make_model(out_dir, name, config, weights, disk, shards, seed)
        params = sum(t.numel() for k, t in weights.items() if not k.endswith(".attn.bias"))
        print(f"{name}: {config['architectures'][0]} {disk} x{shards} params={params} "
              f"logits{list(logits.shape)} std={logits.std():.3f} min_greedy_margin={margin:.3f} "
              f"greedy={greedy.tolist()}")
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
