#!/usr/bin/env bash
# Chat data throughput, Headroom vs Python: N conversations (the Qwen3 cases of the chat
# reference, repeated) rendered with Qwen3's chat template and tokenized, single-threaded.
# The Python side renders only (Jinja2 as transformers sets it up): Python's `tokenizers`
# package is not on this machine (PyPI is out of reach), so the ratio against a Python loop of
# jinja2 + tokenizers is at least the one printed. Usage (after building chat_benchmark):
#   tests/benchmarks/chat_benchmark.sh [BUILD_DIR=build/release] [N=10000]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build/release}" && pwd)"
count="${2:-10000}"
interop="$build/chat-interop"
"$repo/tests/interop/chat/setup.sh" "$interop" >/dev/null
if ! grep -q '^ok' "$interop/status.txt"; then
  echo "no chat reference: $(cat "$interop/status.txt")" >&2
  exit 1
fi
bench="$build/tests/benchmarks/chat_benchmark"
[ -x "$bench" ] || { echo "build the chat_benchmark target first" >&2; exit 1; }
reference="$interop/reference"
template="$reference/templates/qwen3.json"
tokenizer="$reference/$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['tokenizer'])" "$template")"
conversations="$interop/benchmark-conversations.jsonl"
python3 - "$reference/cases.jsonl" "$conversations" "$count" <<'PY'
import json, sys
cases = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
cases = [c for c in cases if c["template"] == "qwen3" and c["error"] is None
         and not c["add_generation_prompt"]
         and any(m["role"] == "assistant" for m in c["messages"])]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for i in range(int(sys.argv[3])):
        c = cases[i % len(cases)]
        record = {"messages": c["messages"], "chat_template_kwargs": c["chat_template_kwargs"]}
        if c["tools"] is not None:
            record["tools"] = c["tools"]
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
PY
ours="$(taskset -c 0 "$bench" "$template" "$tokenizer" "$conversations" 3)"
theirs="$(taskset -c 0 /usr/bin/python3 "$repo/tests/benchmarks/chat_benchmark.py" "$template" "$conversations" 3)"
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n = ours["conversations"]
print(f"{n} conversations, Qwen3 template, {ours['tokens']} tokens, one core")
print(f"{'path':<42} {'seconds':>8} {'conv/s':>9} {'vs Python':>10}")
rows = [("Python jinja2 render only", theirs["seconds"]),
        ("Headroom render", ours["render"]),
        ("Headroom render + tokenize", ours["render_tokenize"]),
        ("Headroom training path (spans + mask)", ours["training"])]
for name, seconds in rows:
    print(f"{name:<42} {seconds:8.3f} {n / seconds:9.0f} {theirs['seconds'] / seconds:9.1f}x")
if ours["bytes"] != theirs["bytes"]:
    print(f"rendered bytes differ: {ours['bytes']} vs {theirs['bytes']}")
PY
