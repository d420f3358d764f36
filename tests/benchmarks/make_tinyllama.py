#!/usr/bin/python3
"""Writes a TinyLlama-1.1B-shaped LlamaForCausalLM folder with random BF16 weights.

  make_tinyllama.py OUT_DIR [--layers 22] [--seed 0]

For import and fine-tuning speed benchmarks without downloading a checkpoint: config.json and
generation_config.json as TinyLlama/TinyLlama-1.1B-Chat-v1.0 ships them (22 layers, hidden 2048,
intermediate 5632, 32 heads, 4 kv heads, vocab 32000, max_position_embeddings 2048, untied,
rope_theta 10000, rms_norm_eps 1e-5) and one model.safetensors (~2.2 GB at 22 layers) of
normal(0, 0.02) weights with RMSNorm weights 1.0. No tokenizer (the bundled test tokenizer has
345 ids, not 32000). The file is streamed: the header (all offsets computed up front) and then
each tensor's bytes, generated a block of rows at a time, so memory stays small.
Run with Debian's /usr/bin/python3 (python3-torch).
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop",
                                "pretrained"))
import reference_lm as ref  # noqa: E402

BLOCK_ELEMENTS = 1 << 23  # rows generated at a time: about 32 MB of fp32


def tinyllama_config(layers):
    return {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "initializer_range": 0.02,
        "intermediate_size": 5632,
        "max_position_embeddings": 2048,
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_hidden_layers": layers,
        "num_key_value_heads": 4,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.35.0",
        "use_cache": True,
        "vocab_size": 32000,
    }


def tensor_shapes(config):
    """{HF name: shape} of a LlamaForCausalLM."""
    dim, inter, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    head_dim = dim // config["num_attention_heads"]
    kv = config["num_key_value_heads"] * head_dim
    shapes = {"model.embed_tokens.weight": (vocab, dim), "model.norm.weight": (dim,),
              "lm_head.weight": (vocab, dim)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes.update({
            p + "input_layernorm.weight": (dim,),
            p + "self_attn.q_proj.weight": (dim, dim),
            p + "self_attn.k_proj.weight": (kv, dim),
            p + "self_attn.v_proj.weight": (kv, dim),
            p + "self_attn.o_proj.weight": (dim, dim),
            p + "post_attention_layernorm.weight": (dim,),
            p + "mlp.gate_proj.weight": (inter, dim),
            p + "mlp.up_proj.weight": (inter, dim),
            p + "mlp.down_proj.weight": (dim, inter),
        })
    return shapes


def write_tensor(f, name, shape, gen):
    """Streams one BF16 tensor: ones for norms, normal(0, 0.02) otherwise."""
    if len(shape) == 1:
        f.write(ref.tensor_bytes(torch.ones(shape, dtype=torch.bfloat16)))
        return
    rows, cols = shape
    step = max(1, BLOCK_ELEMENTS // cols)
    for begin in range(0, rows, step):
        block = torch.randn((min(step, rows - begin), cols), generator=gen).mul_(0.02)
        f.write(block.to(torch.bfloat16).view(torch.int16).numpy())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--layers", type=int, default=22)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.time()
    os.makedirs(args.out_dir, exist_ok=True)
    config = tinyllama_config(args.layers)
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out_dir, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 1, "eos_token_id": 2, "max_length": 2048, "pad_token_id": 0,
                   "transformers_version": config["transformers_version"]}, f, indent=2)
        f.write("\n")

    shapes = tensor_shapes(config)
    names = sorted(shapes)
    header, offsets = ref.safetensors_header([(n, "BF16", shapes[n]) for n in names],
                                             {"format": "pt"})
    path = os.path.join(args.out_dir, "model.safetensors")
    gen = torch.Generator().manual_seed(args.seed)
    with open(path + ".tmp", "wb") as f:
        f.write(header)
        for name in names:
            write_tensor(f, name, shapes[name], gen)
            expected = len(header) + offsets[name][1]
            if f.tell() != expected:
                raise SystemExit(f"{name}: wrote up to {f.tell()}, expected {expected}")
    os.replace(path + ".tmp", path)
    params = sum(offsets[n][1] - offsets[n][0] for n in names) // 2
    size = os.path.getsize(path)
    print(f"{path}: {len(names)} tensors, {params} parameters, {size} bytes "
          f"({size / 2**30:.2f} GiB) in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
