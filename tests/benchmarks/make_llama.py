#!/usr/bin/python3
"""Writes a random LlamaForCausalLM folder of any shape (BF16 weights, no tokenizer).

  make_llama.py OUT_DIR [--layers 8] [--dim 512] [--heads 8] [--kv-heads 2]
                [--intermediate 1376] [--vocab 32000] [--context 2048] [--seed 0]

make_tinyllama.py's writer with the shape as options: the mid-size model of the LoRA and
generation benchmarks (tests/benchmarks/pretrained.sh). The defaults are a quarter-width
TinyLlama of 8 layers: dim 512, 8 heads of 64 with 2 key/value heads (grouped-query
attention, as TinyLlama's 32/4), SwiGLU width 1376, vocabulary 32000, untied head:
54.9 M parameters (32.8 M of them the embedding and the head), 110 MB on disk.
Run with Debian's /usr/bin/python3 (python3-torch).
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_tinyllama as tiny  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--intermediate", type=int, default=1376)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--context", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.time()
    config = tiny.tinyllama_config(args.layers)
    config.update({"hidden_size": args.dim, "num_attention_heads": args.heads,
                   "num_key_value_heads": args.kv_heads,
                   "intermediate_size": args.intermediate, "vocab_size": args.vocab,
                   "max_position_embeddings": args.context})
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")

    shapes = tiny.tensor_shapes(config)
    names = sorted(shapes)
    header, offsets = tiny.ref.safetensors_header([(n, "BF16", shapes[n]) for n in names],
                                                  {"format": "pt"})
    path = os.path.join(args.out_dir, "model.safetensors")
    gen = torch.Generator().manual_seed(args.seed)
    with open(path + ".tmp", "wb") as f:
        f.write(header)
        for name in names:
            tiny.write_tensor(f, name, shapes[name], gen)
    os.replace(path + ".tmp", path)
    params = sum(offsets[n][1] - offsets[n][0] for n in names) // 2
    print(f"{path}: {len(names)} tensors, {params} parameters, {os.path.getsize(path)} bytes "
          f"in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
