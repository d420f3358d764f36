#!/usr/bin/python3
"""Makes the tokenizer.model fixtures of tests/engine/test_sentencepiece_tokenizer.cpp.

Trains two tiny SentencePiece models (BPE and unigram, byte_fallback on) on a generated corpus
with python3-sentencepiece (Debian package) and writes, per model folder, the ids and decoded
text the library gives for the test texts (expected.json). Run from anywhere:
    /usr/bin/python3 tests/data/sentencepiece/make_fixtures.py  (Debian's Python)
Expected ids follow transformers' slow LlamaTokenizer (legacy mode): the added tokens of
tokenizer_config.json are cut out of the raw text first (longest match), each stretch of text
between them is encoded by SentencePiece alone, then BOS/EOS are added as the config says.
"""
import io
import json
import os
import random

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))

WORDS = ("the quick brown fox jumps over lazy dog tokenizer model piece unigram byte "
         "fallback hello world training workbench memory budget llama mistral caf\u00e9 "
         "na\u00efve \u00fcber stra\u00dfe 2024 3.14 x=y+1; def main(): return").split()

TEXTS = [
    "",
    "Hello world",
    "Hello world ",
    " Hello world",
    "  two  spaces   and three",
    "   ",
    "trailing spaces   ",
    "\tTabs\tand\nnewlines\n",
    "emoji \U0001F600 and \U0001F44D\U0001F3FD fall back to bytes",
    "\u4f60\u597d\uff0c\u4e16\u754c",
    "caf\u00e9 na\u00efve \u00fcber",
    "<s>Hello</s>",
    "Hello <s> world </s> again",
    "<unk> is matched as a token",
    "a<|im_start|>user\nhi<|im_end|>b",
    "<|im_start|><|im_start|>",
    "x=y+1; def main(): return 3.14",
    "\u2581 literal meta symbol \u2581\u2581",
    "unseen: \u0416\u0438\u0437\u043d\u044c \u05e9\u05dc\u05d5\u05dd \U0001F680",
]


def corpus():
    rng = random.Random(17)
    lines = []
    for _ in range(3000):
        lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))))
    return lines


def train(model_type, vocab_size, extra):
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()), model_writer=out, model_type=model_type,
        vocab_size=vocab_size, byte_fallback=True, character_coverage=1.0,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, normalization_rule_name="identity",
        num_threads=1, minloglevel=2, **extra)
    return out.getvalue()


def split_added(text, added):
    """Leftmost-longest split of `text` on the added tokens' contents."""
    parts, start, i = [], 0, 0
    while i < len(text):
        match = max((t for t in added if text.startswith(t, i)), key=len, default=None)
        if match is None:
            i += 1
            continue
        if start < i:
            parts.append((text[start:i], False))
        parts.append((match, True))
        i += len(match)
        start = i
    if start < len(text):
        parts.append((text[start:], False))
    return parts


def decode(sp, ids, added):
    """Runs of model ids decoded by SentencePiece, added tokens written as they are."""
    content = {i: text for text, (i, _) in added.items()}
    out, run = "", []
    for i in ids:
        if i in content:
            out += sp.decode(run) + content[i]
            run = []
        else:
            run.append(i)
    return out + sp.decode(run)


def expected(sp, config, texts):
    added = {entry["content"]: (int(key), entry.get("special", False))
             for key, entry in config.get("added_tokens_decoder", {}).items()}
    # Without added_tokens_decoder transformers registers its unk/bos/eos tokens (the model's
    # own pieces here) as special tokens all the same.
    for i in (sp.unk_id(), sp.bos_id(), sp.eos_id()):
        if i >= 0:
            added.setdefault(sp.id_to_piece(i), (i, True))
    cases = []
    for text in texts:
        ids = []
        for part, is_added in split_added(text, added):
            ids += [added[part][0]] if is_added else sp.encode(part)
        with_special = list(ids)
        if config.get("add_bos_token", True):
            with_special.insert(0, sp.bos_id())
        if config.get("add_eos_token", False):
            with_special.append(sp.eos_id())
        specials = {i for (i, special) in added.values() if special}
        plain = [i for i in with_special if i not in specials]
        cases.append({"text": text, "ids": with_special, "ids_no_special": ids,
                      "decoded_skip_special": decode(sp, plain, added)})
    return cases


def added_entry(content, special):
    return {"content": content, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": special}


def write(folder, model, config):
    path = os.path.join(HERE, folder)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "tokenizer.model"), "wb") as f:
        f.write(model)
    if config is not None:
        with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
            json.dump(config, f, indent=2, ensure_ascii=False)
    sp = spm.SentencePieceProcessor(model_proto=model)
    cases = expected(sp, config or {}, TEXTS)
    with open(os.path.join(path, "expected.json"), "w") as f:
        f.write('{"vocab_size": %d, "cases": [\n' % sp.get_piece_size())
        f.write(",\n".join(json.dumps(case, ensure_ascii=False) for case in cases))
        f.write("\n]}\n")


def main():
    # Llama 2 style: BPE, dummy prefix, whitespace kept as is, BOS only; the chat markers are
    # added tokens beyond the model's vocabulary, one of them not special.
    bpe = train("bpe", 420, {"add_dummy_prefix": True, "remove_extra_whitespaces": False,
                             "split_digits": True})
    bpe_size = spm.SentencePieceProcessor(model_proto=bpe).get_piece_size()
    write("bpe", bpe, {
        "add_bos_token": True, "add_eos_token": False, "legacy": True,
        "tokenizer_class": "LlamaTokenizer",
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": None,
        "added_tokens_decoder": {
            "0": added_entry("<unk>", True), "1": added_entry("<s>", True),
            "2": added_entry("</s>", True), str(bpe_size): added_entry("<|im_start|>", True),
            str(bpe_size + 1): added_entry("<|im_end|>", False)}})
    # Unigram without any config (transformers' defaults: BOS, no EOS; the model's own
    # unk/bos/eos pieces are the special tokens); whitespace runs collapsed by the normalizer.
    # 340 pieces: it is also the tokenizer of a tiny pretrained Llama folder (345 embedding
    # rows) in test_cli_pretrained.
    unigram = train("unigram", 340, {"add_dummy_prefix": True, "remove_extra_whitespaces": True})
    write("unigram", unigram, None)
    # The same unigram model with BOS and EOS both asked for.
    write("unigram_bos_eos", unigram, {"add_bos_token": True, "add_eos_token": True})


if __name__ == "__main__":
    main()
