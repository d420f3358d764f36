#!/usr/bin/python3
"""folder_logits.py FOLDER IDS.safetensors OUT.safetensors

The reference logits (reference_lm.py, fp32) of a Hugging Face causal-LM folder for the token
ids in IDS.safetensors ("ids": I64 [B, T]), written to OUT.safetensors as "logits" F32
[B, T, vocab]. The folder may be sharded (model.safetensors.index.json).
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_lm import ReferenceLM, load_folder, load_safetensors, save_safetensors  # noqa: E402


def main():
    folder, ids_path, out_path = sys.argv[1:4]
    config, state = load_folder(folder)
    model = ReferenceLM(config, state)
    ids = load_safetensors(ids_path)["ids"].to(torch.int64)
    with torch.no_grad():
        logits = model(ids).float().contiguous()
    save_safetensors(out_path, {"logits": logits})


if __name__ == "__main__":
    main()
