#!/usr/bin/python3
"""sentencepiece_ids.py FOLDER TEXTS.json OUT.json

What python3-sentencepiece (Debian's, the library transformers' LlamaTokenizer runs) makes of
FOLDER/tokenizer.model: the ids of each text in TEXTS.json (a list of strings), encoded as the
slow LlamaTokenizer in legacy mode encodes text without special tokens, and the ids of the
model's unk/bos/eos/pad pieces (-1: none). Written to OUT.json as
{"ids": [[...], ...], "special": {"unk": [ID, PIECE], ...}, "vocab": N}.
"""

import json
import os
import sys

import sentencepiece


def main():
    folder, texts_path, out_path = sys.argv[1:4]
    processor = sentencepiece.SentencePieceProcessor(
        model_file=os.path.join(folder, "tokenizer.model"))
    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    special = {}
    for name, id_ in (("unk", processor.unk_id()), ("bos", processor.bos_id()),
                      ("eos", processor.eos_id()), ("pad", processor.pad_id())):
        special[name] = [id_, processor.id_to_piece(id_) if id_ >= 0 else None]
    result = {
        "ids": [processor.encode(text) for text in texts],
        "special": special,
        "vocab": processor.get_piece_size(),
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
