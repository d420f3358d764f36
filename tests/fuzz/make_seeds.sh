#!/usr/bin/env bash
# Regenerates the seed corpora under tests/fuzz/corpus/ (committed; run only to change them).
# Project seeds use 512-byte pages so the fuzzer mutates a few kilobytes, not 40.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$here/../.."
corpus="$here/corpus"
# Only the corpora made here: the tokenizer, safetensors and hf_config seeds are kept.
rm -rf "$corpus/config" "$corpus/records" "$corpus/project"
mkdir -p "$corpus/config" "$corpus/records" "$corpus/project"

cp "$repo/resources/sample/sample-gpt.json" "$corpus/config/sample-gpt.json"
cp "$repo/resources/sample/sample-tabular.json" "$corpus/config/sample-tabular.json"
printf 'memory.budget=512MiB\ntrain.micro_batch=8\nmodel.hidden=128,64\ndevice=cuda:1\n' \
  > "$corpus/config/set-lines"
printf '{"model.dim":"96","model.heads":"4","train.lr":1e-3,"checkpointing":"true"}' \
  > "$corpus/config/numbers.json"

# Records: first byte = format (0 text, 1 jsonl, 2 csv) | 0x08 want text | 0x10 field "b".
seed() { printf "$1" > "$corpus/records/$2"; cat >> "$corpus/records/$2"; }
head -c 600 "$repo/resources/sample/corpus.txt" | seed '\x08' text
printf '\xef\xbb\xbfbom line\r\nsecond\n\nlast' | seed '\x08' text-bom-crlf
printf '{"text":"hello","n":1}\n\n{"text":"w\\u00f6rld \\"q\\"","b":[1,2]}\n' | seed '\x09' jsonl
printf '{"b":"x","text":{"deep":[[[]]]}}\n' | seed '\x19' jsonl-field-b
head -c 500 "$repo/resources/sample/greenhouse.csv" | seed '\x02' csv
printf 'text,b\r\n"a, ""quoted""\nline",2\r\n\r\nplain,3\n' | seed '\x0a' csv-quoted
printf 'a,b,text\n1,2,"x"\n' | seed '\x1a' csv-text-b

make_project() { # NAME SQL...
  local file="$corpus/project/$1"; shift
  { echo "PRAGMA page_size = 512; PRAGMA journal_mode = DELETE;"; cat "$@"; } | sqlite3 "$file"
}
grep -v 'journal_mode' "$repo/tests/data/project/v1_project.sql" > "$here/.v1.sql"
make_project v1.headroom "$here/.v1.sql"
cat > "$here/.v2.sql" <<'SQL'
BEGIN;
ALTER TABLE runs ADD COLUMN summary_json TEXT NOT NULL DEFAULT '{}';
CREATE TABLE evaluations (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    loss REAL,
    accuracy REAL,
    rmse REAL,
    examples INTEGER NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
INSERT INTO evaluations VALUES (1, 100, 2.0, 0.5, NULL, 64, '2025-03-01T10:04:00.000Z');
INSERT INTO runs (id, status, config_json, device, started_at, resumed_from, summary_json)
VALUES (3, 'running', '{}', 'cpu', '2025-03-02T00:00:00.000Z', 2, '{"accuracy":0.5}');
INSERT INTO checkpoints (run_id, step, path, sha256, bytes, created_at) VALUES
    (3, 10, 'run-3/../../escape.pt', '00', 1, '2025-03-02T00:00:01.000Z');
PRAGMA user_version = 2;
COMMIT;
SQL
make_project v2.headroom "$here/.v1.sql" "$here/.v2.sql"
rm -f "$here/.v1.sql" "$here/.v2.sql"
ls -l "$corpus"/*

# Tokenizer seeds: small reference-made tokenizer.json fixtures, minified, and one pipeline
# that names every component type the loader knows.
mkdir -p "$corpus/tokenizer"
for fixture in bpe_suffix unigram wordpiece_bert bpe_chain; do
  python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' \
    "$repo/tests/data/tokenizers/$fixture/tokenizer.json" > "$corpus/tokenizer/$fixture.json"
done
python3 - "$corpus/tokenizer/every-component.json" <<'PY'
import json, sys
S = lambda s: {"String": s}
R = lambda r: {"Regex": r}
doc = {
  "version": "1.0", "truncation": {"direction": "Left", "max_length": 9, "strategy": "LongestFirst", "stride": 0},
  "padding": {"strategy": {"Fixed": 12}, "direction": "Right", "pad_to_multiple_of": 5, "pad_id": 0, "pad_type_id": 0, "pad_token": "<unk>"},
  "added_tokens": [{"id": 5, "content": "<s>", "single_word": False, "lstrip": True, "rstrip": True, "normalized": False, "special": True},
                   {"id": 6, "content": "ab", "single_word": True, "lstrip": False, "rstrip": False, "normalized": True, "special": False}],
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "NFD"}, {"type": "NFC"}, {"type": "NFKD"}, {"type": "Lowercase"},
      {"type": "Strip", "strip_left": True, "strip_right": False}, {"type": "StripAccents"}, {"type": "Replace", "pattern": R("\\s+"), "content": " "},
      {"type": "Prepend", "prepend": "\u2581"}, {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
      {"type": "Nmt"}, {"type": "Replace", "pattern": S("x"), "content": "y"}]},
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Punctuation", "behavior": "Contiguous"}, {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
      {"type": "Digits", "individual_digits": True}, {"type": "Split", "pattern": R("\\s+(?!\\S)"), "behavior": "MergedWithPrevious", "invert": True},
      {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True}, {"type": "Whitespace"}, {"type": "WhitespaceSplit"},
      {"type": "BertPreTokenizer"}, {"type": "CharDelimiterSplit", "delimiter": "-"}, {"type": "Split", "pattern": S("a"), "behavior": "Removed", "invert": False}]},
  "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>", "fuse_unk": True, "byte_fallback": True, "ignore_merges": True,
            "vocab": {"<unk>": 0, "a": 1, "##b": 2, "ab": 3, "<0x41>": 4}, "merges": ["a ##b"]},
  "post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": False},
      {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
       "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [5], "tokens": ["<s>"]}}},
      {"type": "BertProcessing", "sep": ["<s>", 5], "cls": ["<s>", 5]}, {"type": "RobertaProcessing", "sep": ["<s>", 5], "cls": ["<s>", 5], "trim_offsets": True, "add_prefix_space": True}]},
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": S("\u2581"), "content": " "}, {"type": "ByteFallback"}, {"type": "ByteLevel"}, {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"},
      {"type": "WordPiece", "prefix": "##", "cleanup": True}, {"type": "BPEDecoder", "suffix": "</w>"}, {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
      {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 1}]},
}
open(sys.argv[1], "w").write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False))
PY
# Precompiled normalizers (tokenizer and precompiled targets): the small-rules fixture (vocabulary cut to 60 pieces) and a one-key
# hand-made trie ("A" -> "b") whose units the fuzzer can reach through the base64.
python3 - "$repo/tests/data/tokenizers/unigram_precompiled/tokenizer.json" "$corpus/tokenizer" <<'PY'
import base64, json, struct, sys
doc = json.load(open(sys.argv[1]))
doc["model"]["vocab"] = doc["model"]["vocab"][:60]
open(sys.argv[2] + "/precompiled.json", "w").write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False))
units = [0] * 256
units[0x41] = ((0x41 ^ 0x80) << 10) | (1 << 8) | 0x41
units[0x80] = 0x80000000
charsmap = struct.pack("<I", 1024) + b"".join(struct.pack("<I", u) for u in units) + b"b\0"
tiny = {"normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
        "model": {"type": "WordLevel", "vocab": {"b": 0, "<unk>": 1}, "unk_token": "<unk>"}}
open(sys.argv[2] + "/precompiled-tiny.json", "w").write(json.dumps(tiny, separators=(",", ":")))
# The precompiled target's seeds: the same two charsmaps as raw bytes.
import os
raw = os.path.join(sys.argv[2], "..", "precompiled")
os.makedirs(raw, exist_ok=True)
open(raw + "/small-rules.bin", "wb").write(base64.b64decode(doc["normalizer"]["normalizers"][0]["precompiled_charsmap"]))
open(raw + "/one-key.bin", "wb").write(charsmap)
PY

# Chat-template seeds: a template, a NUL byte, then the variables as JSON (fuzz_chat_template).
# A real template (SmolLM3, with {% generation %}) and small ones for each kind of tag.
rm -rf "$corpus/chat_template"
mkdir -p "$corpus/chat_template"
python3 - "$repo/tests/data/chat_templates/smollm3.jinja" "$corpus/chat_template" <<'PY'
import json, sys
conversation = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Grüße 😀"},
                             {"role": "assistant", "content": "<think>\nok\n</think>\n\nHi!", "reasoning_content": "ok"},
                             {"role": "user", "content": "  again  "}],
                "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                           "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}}],
                "add_generation_prompt": True, "bos_token": "<s>", "eos_token": "</s>", "enable_thinking": False}
seeds = {
    "smollm3": open(sys.argv[1], encoding="utf-8").read(),
    "loops": "{%- for m in messages if m.role != 'tool' %}{{ loop.index }}/{{ loop.length }} {{ m.role|upper }}:"
             " {{ m.content|trim }}{% if not loop.last %}\n{% endif %}{% else %}none{% endfor %}",
    "namespace": "{% set ns = namespace(last=-1) %}{% for m in messages[::-1] %}{% if m.role == 'user' %}"
                 "{% set ns.last = loop.index0 %}{% break %}{% endif %}{% endfor %}{{ ns.last }}",
    "macros": "{% macro render(v, depth=0) %}{% if v is mapping %}{% for k, x in v|dictsort %}{{ k }}="
              "{{ render(x, depth + 1) }};{% endfor %}{% elif v is iterable and v is not string %}"
              "[{{ v|map('string')|join(',') }}]{% else %}{{ v }}{% endif %}{% endmacro %}"
              "{% macro each(xs) %}{% for x in xs %}{{ caller(x) }}{% endfor %}{% endmacro %}"
              "{% for t in tools %}{{ render(t) }}{% endfor %}{% call(x) each(tools) %}{{ render(x) }}{% endcall %}",
    "filters": "{{ messages|selectattr('role', 'equalto', 'user')|map(attribute='content')|list|tojson(indent=2) }}"
               "{{ '%s-%05.1f' % ('a', 1.5) }}{{ 'a,b'.split(',')|reverse|join('|') }}{{ range(3)|sum }}"
               "{{ tools[0].function.parameters|tojson(sort_keys=true) }}{{ 'é'|upper ~ 1 // 2 ~ 2 ** 3 }}",
    "whitespace": "  {% if true -%}\n  a\n  {%- endif %}\n{# c #}\n  {%+ raw %}{{ x }}{% endraw %}\n{{- 'b' }}\r\n"
                  "{% set x %}{{ bos_token }}{% endset %}{% filter trim %} {{ x }} {% endfilter %}",
    "generation": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}"
                  "{{ eos_token }}{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}"
                  "{{ raise_exception('x') if messages|length > 9 }}{{ strftime_now('%d %b %Y') }}",
}
for name, template in seeds.items():
    with open(f"{sys.argv[2]}/{name}", "wb") as out:
        out.write(template.encode() + b"\0" + json.dumps(conversation, ensure_ascii=False).encode())
PY
