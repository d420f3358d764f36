#!/usr/bin/python3
"""Writes tiny random BERT / DistilBERT masked-LM folders and the outputs they must give.

  make_reference.py OUT_DIR

Under OUT_DIR, one folder per model, each what save_pretrained plus a WordPiece tokenizer
(tests/data/tokenizers/wordpiece_bert, 287 ids) would leave, with the variations real
checkpoints show:
  bert             F32, "bert." prefix, gelu; also a pooler, the next-sentence head and the
                   position_ids buffer (a BertForPreTraining-style file: all ignored)
  bert-unprefixed  BF16, body saved without "bert.", gelu_new, vocabulary padded to 300,
                   one token type, the tied decoder weight stored, the bias stored as
                   cls.predictions.decoder.bias
  bert-sharded     F16, two shards and model.safetensors.index.json, relu, three layers,
                   tie_word_embeddings false (a decoder weight of its own)
  distilbert       F32, DistilBertForMaskedLM, gelu, the tied vocab_projector.weight stored
Each folder has reference.safetensors (F32/I64):
  inputs          I64 [3, 12]   [CLS] random ids [SEP], then padding (id 0) to 12
  attention_mask  I64 [3, 12]   1 for the 12, 9 and 4 real tokens, 0 after
  hidden          F32 [3, 12, H]      reference_encoder's last hidden states
  logits          F32 [3, 12, vocab]  its MLM logits
computed from the weights as read back from disk. Deterministic: fixed seeds.
"""

import json
import os
import shutil
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_encoder as ref  # noqa: E402

st = ref.st
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOKENIZER = os.path.join(REPO, "tests", "data", "tokenizers", "wordpiece_bert", "tokenizer.json")
TOKENIZER_VOCAB = 287
CLS, SEP = 284, 285
PAD = 0
LENGTHS = (12, 9, 4)
TRANSFORMERS_VERSION = "4.44.2"
DISK_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
TORCH_DTYPE_NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}


class Init:
    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def normal(self, shape, std):
        return torch.randn(shape, generator=self.gen) * std

    def norm(self, shape):
        return 1.0 + self.normal(shape, 0.1)


def bert_config(disk, **changes):
    config = {
        "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64,
        "layer_norm_eps": 1e-12, "max_position_embeddings": 64, "model_type": "bert",
        "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": PAD,
        "position_embedding_type": "absolute", "torch_dtype": TORCH_DTYPE_NAMES[disk],
        "transformers_version": TRANSFORMERS_VERSION, "type_vocab_size": 2, "use_cache": True,
        "vocab_size": TOKENIZER_VOCAB}
    config.update(changes)
    return dict(sorted(config.items()))


def distilbert_config(disk):
    return {
        "activation": "gelu", "architectures": ["DistilBertForMaskedLM"],
        "attention_dropout": 0.1, "dim": 32, "dropout": 0.1, "hidden_dim": 48,
        "initializer_range": 0.02, "max_position_embeddings": 64, "model_type": "distilbert",
        "n_heads": 2, "n_layers": 2, "pad_token_id": PAD, "qa_dropout": 0.1,
        "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False, "tie_weights_": True,
        "torch_dtype": TORCH_DTYPE_NAMES[disk], "transformers_version": TRANSFORMERS_VERSION,
        "vocab_size": TOKENIZER_VOCAB}


def linear(w, init, name, out, inp, std=0.2):
    w[name + ".weight"] = init.normal((out, inp), std)
    w[name + ".bias"] = init.normal(out, 0.05)


def layer_norm(w, init, name, dim):
    w[name + ".weight"] = init.norm(dim)
    w[name + ".bias"] = init.normal(dim, 0.05)


def bert_weights(config, seed, body="bert."):
    init = Init(seed)
    h, inner, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    w = {body + "embeddings.word_embeddings.weight": init.normal((vocab, h), 0.25),
         body + "embeddings.position_embeddings.weight": init.normal(
             (config["max_position_embeddings"], h), 0.3),
         body + "embeddings.token_type_embeddings.weight": init.normal(
             (config["type_vocab_size"], h), 0.3)}
    layer_norm(w, init, body + "embeddings.LayerNorm", h)
    for i in range(config["num_hidden_layers"]):
        p = f"{body}encoder.layer.{i}."
        for part in ("query", "key", "value"):
            linear(w, init, p + "attention.self." + part, h, h, 0.3)
        linear(w, init, p + "attention.output.dense", h, h)
        layer_norm(w, init, p + "attention.output.LayerNorm", h)
        linear(w, init, p + "intermediate.dense", inner, h)
        linear(w, init, p + "output.dense", h, inner, 0.15)
        layer_norm(w, init, p + "output.LayerNorm", h)
    linear(w, init, "cls.predictions.transform.dense", h, h)
    layer_norm(w, init, "cls.predictions.transform.LayerNorm", h)
    w["cls.predictions.bias"] = init.normal(vocab, 0.1)
    if not config.get("tie_word_embeddings", True):
        w["cls.predictions.decoder.weight"] = init.normal((vocab, h), 0.25)
    return w


def distilbert_weights(config, seed):
    init = Init(seed)
    h, inner, vocab = config["dim"], config["hidden_dim"], config["vocab_size"]
    w = {"distilbert.embeddings.word_embeddings.weight": init.normal((vocab, h), 0.25),
         "distilbert.embeddings.position_embeddings.weight": init.normal(
             (config["max_position_embeddings"], h), 0.3)}
    layer_norm(w, init, "distilbert.embeddings.LayerNorm", h)
    for i in range(config["n_layers"]):
        p = f"distilbert.transformer.layer.{i}."
        for part in ("q_lin", "k_lin", "v_lin"):
            linear(w, init, p + "attention." + part, h, h, 0.3)
        linear(w, init, p + "attention.out_lin", h, h)
        layer_norm(w, init, p + "sa_layer_norm", h)
        linear(w, init, p + "ffn.lin1", inner, h)
        linear(w, init, p + "ffn.lin2", h, inner, 0.15)
        layer_norm(w, init, p + "output_layer_norm", h)
    linear(w, init, "vocab_transform", h, h)
    layer_norm(w, init, "vocab_layer_norm", h)
    w["vocab_projector.bias"] = init.normal(vocab, 0.1)
    return w


def models():
    """(folder name, config, weights as stored, disk dtype, shards)"""
    out = []
    config = bert_config("F32")
    w = bert_weights(config, 201)
    init = Init(301)
    linear(w, init, "bert.pooler.dense", 32, 32)
    linear(w, init, "cls.seq_relationship", 2, 32)
    w["bert.embeddings.position_ids"] = torch.arange(64).view(1, 64)
    out.append(("bert", config, w, "F32", 1))

    config = bert_config("BF16", hidden_act="gelu_new", vocab_size=300, type_vocab_size=1)
    w = bert_weights(config, 202, body="")
    w["cls.predictions.decoder.bias"] = w.pop("cls.predictions.bias")
    w["cls.predictions.decoder.weight"] = w["embeddings.word_embeddings.weight"]
    out.append(("bert-unprefixed", config, w, "BF16", 1))

    config = bert_config("F16", hidden_act="relu", num_hidden_layers=3, tie_word_embeddings=False)
    out.append(("bert-sharded", config, bert_weights(config, 203), "F16", 2))

    config = distilbert_config("F32")
    w = distilbert_weights(config, 204)
    w["vocab_projector.weight"] = w["distilbert.embeddings.word_embeddings.weight"]
    out.append(("distilbert", config, w, "F32", 1))
    return out


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def write_weights(folder, weights, disk, shards):
    dtype = DISK_DTYPES[disk]
    stored = {n: t.to(dtype) if t.is_floating_point() else t for n, t in weights.items()}
    meta = {"format": "pt"}
    if shards == 1:
        st.save_safetensors(os.path.join(folder, "model.safetensors"), stored, meta)
        return
    names = sorted(stored)
    per_shard = -(-len(names) // shards)
    weight_map, total = {}, 0
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: stored[n] for n in names[s * per_shard:(s + 1) * per_shard]}
        st.save_safetensors(os.path.join(folder, file), part, meta)
        for name, tensor in part.items():
            weight_map[name] = file
            total += tensor.numel() * tensor.element_size()
    write_json(os.path.join(folder, "model.safetensors.index.json"),
               {"metadata": {"total_size": total}, "weight_map": weight_map})


def write_tokenizer(folder, max_length):
    shutil.copyfile(TOKENIZER, os.path.join(folder, "tokenizer.json"))
    with open(TOKENIZER) as f:
        vocab = json.load(f)["model"]["vocab"]
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        for token, _ in sorted(vocab.items(), key=lambda item: item[1]):
            f.write(token + "\n")
    special = {"cls_token": "[CLS]", "mask_token": "[MASK]", "sep_token": "[SEP]",
               "unk_token": "[UNK]"}
    write_json(os.path.join(folder, "special_tokens_map.json"), special)
    config = dict(special, do_lower_case=True, model_max_length=max_length,
                  tokenizer_class="BertTokenizer", clean_up_tokenization_spaces=True)
    write_json(os.path.join(folder, "tokenizer_config.json"), config)


def make_inputs(seed):
    gen = torch.Generator().manual_seed(seed)
    t = LENGTHS[0]
    ids = torch.full((len(LENGTHS), t), PAD, dtype=torch.int64)
    mask = torch.zeros((len(LENGTHS), t), dtype=torch.int64)
    for row, length in enumerate(LENGTHS):
        ids[row, 0], ids[row, length - 1] = CLS, SEP
        ids[row, 1:length - 1] = torch.randint(0, CLS, (length - 2,), generator=gen)
        mask[row, :length] = 1
    return ids, mask


def make_model(out_dir, name, config, weights, disk, shards, seed):
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    write_weights(folder, weights, disk, shards)
    write_json(os.path.join(folder, "config.json"), config)
    write_tokenizer(folder, config["max_position_embeddings"])
    loaded_config, state = st.load_folder(folder)
    assert loaded_config == config
    model = ref.ReferenceEncoder(config, state)
    ids, mask = make_inputs(1000 + seed)
    with torch.no_grad():
        hidden, logits = model.forward(ids, mask)
        # Padding changes nothing at the real positions: the shortest row alone, unpadded.
        length = LENGTHS[-1]
        alone, alone_logits = model.forward(ids[-1:, :length], mask[-1:, :length])
    assert torch.isfinite(logits).all() and torch.isfinite(hidden).all()
    assert (alone_logits[0] - logits[-1, :length]).abs().max() < 1e-5
    st.save_safetensors(os.path.join(folder, "reference.safetensors"), {
        "inputs": ids, "attention_mask": mask, "hidden": hidden.contiguous(),
        "logits": logits.contiguous()})
    return hidden, logits


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_reference.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    start = time.time()
    for seed, (name, config, weights, disk, shards) in enumerate(models(), start=1):
        hidden, logits = make_model(out_dir, name, config, weights, disk, shards, seed)
        print(f"{name}: {config['architectures'][0]} {disk} x{shards} "
              f"hidden{list(hidden.shape)} logits{list(logits.shape)} std={logits.std():.3f}")
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
