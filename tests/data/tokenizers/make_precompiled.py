#!/usr/bin/python3
"""Makes the draft tokenizer.json of the Precompiled fixtures (unigram_precompiled*).

Trains tiny Unigram models with python3-sentencepiece (Debian package) and writes them as
transformers' converters write T5-style tokenizer.json files: the model's precompiled_charsmap
in a `Precompiled` normalizer, its pieces and scores in a Unigram model. make_fixtures.js then
loads each draft with the reference library, saves it and records the expected ids:
    /usr/bin/python3 tests/data/tokenizers/make_precompiled.py &&
    (cd $d && node .../make_fixtures.js .../tests/data/tokenizers unigram_precompiled unigram_precompiled_nmt_nfkc)
unigram_precompiled uses a few custom rules (small charsmap) chosen to hit the reference's
quirks: a whole grapheme replaced by its shortest matching prefix, multi-character keys, removals.
unigram_precompiled_nmt_nfkc carries SentencePiece's full nmt_nfkc map, as T5 and ALBERT do.
"""
import base64
import io
import json
import os
import random
import string
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))

# Source code points -> target code points (SentencePiece's normalization_rule_tsv format).
RULES = [
    *[(f"{0xFF21 + i:X}", f"{0x41 + i:X}") for i in range(26)],  # full-width A-Z
    *[(f"{0xFF41 + i:X}", f"{0x61 + i:X}") for i in range(26)],  # full-width a-z
    ("FB01", "66 69"), ("FB02", "66 6C"), ("2460", "31"), ("3000", "20"),
    ("41 301", "C1"), ("FF21 301", "C1"), ("65 301", "E9"), ("65 301 301", "45"),
    ("D", "20"), ("9", "20"), ("200B", ""), ("200D", ""), ("31 32 33", "58 59 5A"),
    ("1F44D", "2B 31"), ("1100 1161", "AC00"),
]

WORDS = ("the quick brown fox jumps over lazy dog hello world fine flow cafe cafe\u0301 "
         "A\u0301BC \uff21\uff22\uff23 \uff48\uff45\uff4c\uff4c\uff4f \ufb01ne \ufb02ow 123 42 "
         "\u2460 \u65e5\u672c\u8a9e \u4e2d\u6587 \ud55c\uad6d\uc5b4 \u00bd \u2122 \u338f "
         "\U0001F600 \U0001F44D \u0416\u0438\u0437\u043d\u044c caf\u00e9 na\u00efve").split()


# Every character the test texts normalize to gets a piece, so a wrong normalization shows in
# the ids rather than hiding behind <unk>.
CHARS = (string.ascii_letters + string.digits + string.punctuation +
         "\u00c1\u00c9\u00e1\u00e9\u00ed\u00f1\u00e5\u00c5\u00e7\u00fc\u00f6\u00e4\u00df"
         "\u00bd\u2122\u00b0\u65e5\u672c\u8a9e\u4e2d\u6587\u306e\u30c6\u30ad\u30b9\u30c8"
         "\u30ab\u30bf\u30ca\uac00\ud55c\uad6d\uc5b4\u0416\u0438\u0437\u043d\u044c\u0301")


def corpus():
    rng = random.Random(17)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(2000)]
    return lines + [" ".join(CHARS)] * 20


def field(data, number):
    """The bytes of the first length-delimited field `number` of a protobuf message."""
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = varint(data, pos)
            if key >> 3 == number:
                return data[pos:pos + length]
            pos += length
        else:
            raise ValueError("unexpected wire type")
    return b""


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def train(**rule):
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()), model_writer=out, model_type="unigram",
        vocab_size=300, hard_vocab_limit=False, character_coverage=1.0, pad_id=0, eos_id=1,
        unk_id=2, bos_id=-1, minloglevel=2, **rule)
    return out.getvalue()


def tokenizer_json(model, t5_legacy):
    sp = spm.SentencePieceProcessor(model_proto=model)
    charsmap = field(field(model, 3), 2)  # ModelProto.normalizer_spec.precompiled_charsmap
    precompiled = {"type": "Precompiled",
                   "precompiled_charsmap": base64.b64encode(charsmap).decode()}
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                 "split": True}
    if t5_legacy:  # t5-small's file: the charsmap alone, WhitespaceSplit before Metaspace
        normalizer = precompiled
        pre_tokenizer = {"type": "Sequence",
                         "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]}
    else:  # transformers' SpmConverter today
        normalizer = {"type": "Sequence", "normalizers": [
            precompiled, {"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"}]}
        pre_tokenizer = metaspace
    specials = ["<pad>", "</s>", "<unk>"]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for i, t in enumerate(specials)],
        "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 2, "byte_fallback": False,
                  "vocab": [[sp.id_to_piece(i), 0.0 if i < 3 else sp.get_score(i)]
                            for i in range(sp.get_piece_size())]},
    }


def write(name, data):
    os.makedirs(os.path.join(HERE, name), exist_ok=True)
    with open(os.path.join(HERE, name, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def main():
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as tsv:
        tsv.write("".join(f"{src}\t{trg}\n" for src, trg in RULES))
    try:
        write("unigram_precompiled", tokenizer_json(train(normalization_rule_tsv=tsv.name), False))
    finally:
        os.unlink(tsv.name)
    write("unigram_precompiled_nmt_nfkc",
          tokenizer_json(train(normalization_rule_name="nmt_nfkc"), True))


if __name__ == "__main__":
    main()
