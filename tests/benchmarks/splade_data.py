#!/usr/bin/python3
"""Writes the SPLADE benchmark's inputs (tests/benchmarks/splade.sh).

  splade_data.py OUT_DIR

A small synthetic retrieval task that needs query expansion, the thing SPLADE learns: 150
concepts each have two surface words ("a17" and "b17"); passages name their three concepts with
the b-words among filler words, queries name one concept with its b-word and two with their
a-words. BM25 sees only the one shared word, which a hard negative shares too; a fine-tuned
encoder can learn that a17 means b17. Under OUT_DIR:

  base/          a random BertForMaskedLM (2 layers, dim 128, no dropout) whose WordPiece
                 vocabulary is [PAD] [UNK] [CLS] [SEP] [MASK] and the task's words
  train.jsonl    3000 records {"query", "positive", "negatives": [hard negative]}
  test.jsonl     300 held-out records (new concept triples) in the same form
  queries.txt    the test queries, one per line; corpus.txt the test passages, one per line;
  qrels.json     for each query line, the corpus line of its positive (0-based)
  ids.json       the training records as token ids (for the Python reference's speed run)
Deterministic: fixed seeds.
"""

import json
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "interop"))
from reference_safetensors import write_safetensors  # noqa: E402

CONCEPTS, FILLERS = 150, 100
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def vocabulary():
    words = [f"a{c}" for c in range(CONCEPTS)] + [f"b{c}" for c in range(CONCEPTS)]
    words += [f"f{i}" for i in range(FILLERS)]
    return SPECIALS + words


def tokenizer_json(vocab):
    ids = {token: i for i, token in enumerate(vocab)}
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": True} for t in SPECIALS]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": True, "strip_accents": None,
                           "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", ids["[SEP]"]],
                               "cls": ["[CLS]", ids["[CLS]"]]},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                      "vocab": ids}}


def write_base(folder, vocab):
    os.makedirs(folder, exist_ok=True)
    hidden, inner, layers, positions = 128, 512, 2, 64
    config = {"architectures": ["BertForMaskedLM"], "model_type": "bert",
              "vocab_size": len(vocab), "hidden_size": hidden, "num_hidden_layers": layers,
              "num_attention_heads": 4, "intermediate_size": inner,
              "max_position_embeddings": positions, "type_vocab_size": 2,
              "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
              "attention_probs_dropout_prob": 0.0, "layer_norm_eps": 1e-12, "pad_token_id": 0}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tokenizer_json(vocab), f)
    gen = torch.Generator().manual_seed(5)

    def normal(*shape):
        return torch.randn(*shape, generator=gen) * 0.02

    w = {"bert.embeddings.word_embeddings.weight": normal(len(vocab), hidden),
         "bert.embeddings.position_embeddings.weight": normal(positions, hidden),
         "bert.embeddings.token_type_embeddings.weight": normal(2, hidden),
         "bert.embeddings.LayerNorm.weight": torch.ones(hidden),
         "bert.embeddings.LayerNorm.bias": torch.zeros(hidden),
         "cls.predictions.transform.dense.weight": normal(hidden, hidden),
         "cls.predictions.transform.dense.bias": torch.zeros(hidden),
         "cls.predictions.transform.LayerNorm.weight": torch.ones(hidden),
         "cls.predictions.transform.LayerNorm.bias": torch.zeros(hidden),
         "cls.predictions.bias": torch.zeros(len(vocab))}
    for i in range(layers):
        p = f"bert.encoder.layer.{i}."
        for name, out, inp in [("attention.self.query", hidden, hidden),
                               ("attention.self.key", hidden, hidden),
                               ("attention.self.value", hidden, hidden),
                               ("attention.output.dense", hidden, hidden),
                               ("intermediate.dense", inner, hidden),
                               ("output.dense", hidden, inner)]:
            w[p + name + ".weight"] = normal(out, inp)
            w[p + name + ".bias"] = torch.zeros(out)
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"]:
            w[p + norm + ".weight"] = torch.ones(hidden)
            w[p + norm + ".bias"] = torch.zeros(hidden)
    write_safetensors(os.path.join(folder, "model.safetensors"), w)


def passage(rng, concepts):
    words = [f"b{c}" for c in concepts] * 2 + [f"f{rng.randrange(FILLERS)}" for _ in range(8)]
    rng.shuffle(words)
    return " ".join(words)


def record(rng, concepts):
    lexical, *expanded = concepts
    query = [f"b{lexical}"] + [f"a{c}" for c in expanded]
    rng.shuffle(query)
    others = rng.sample([c for c in range(CONCEPTS) if c not in concepts], 2)
    return {"query": " ".join(query), "positive": passage(rng, concepts),
            "negatives": [passage(rng, [lexical] + others)]}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    vocab = vocabulary()
    write_base(os.path.join(out, "base"), vocab)
    rng = random.Random(9)
    seen = set()

    def triple():
        while True:
            concepts = tuple(rng.sample(range(CONCEPTS), 3))
            if frozenset(concepts) not in seen:
                seen.add(frozenset(concepts))
                return concepts

    train = [record(rng, triple()) for _ in range(3000)]
    test = [record(rng, triple()) for _ in range(300)]
    for name, records in [("train.jsonl", train), ("test.jsonl", test)]:
        with open(os.path.join(out, name), "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    corpus, qrels = [], []
    for r in test:
        qrels.append(len(corpus))
        corpus.append(r["positive"])
        corpus.extend(r["negatives"])
    with open(os.path.join(out, "queries.txt"), "w") as f:
        f.write("".join(r["query"] + "\n" for r in test))
    with open(os.path.join(out, "corpus.txt"), "w") as f:
        f.write("".join(p + "\n" for p in corpus))
    with open(os.path.join(out, "qrels.json"), "w") as f:
        json.dump(qrels, f)
    ids = {t: i for i, t in enumerate(vocab)}

    def encode(text):
        return [ids["[CLS]"]] + [ids[w] for w in text.split()] + [ids["[SEP]"]]

    with open(os.path.join(out, "ids.json"), "w") as f:
        json.dump([[encode(r["query"]), encode(r["positive"]), encode(r["negatives"][0])]
                   for r in train], f)


if __name__ == "__main__":
    main()
