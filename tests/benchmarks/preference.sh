#!/usr/bin/env bash
# Preference tuning against supervised fine-tuning (docs/BENCHMARKS.md, "Preference tuning"):
# headroom-cli trains the same pairs on a mid-size random Llama (make_llama.py: 8 layers, dim
# 512, GQA 8/2, vocabulary 32000, 55 M parameters) with LoRA rank 16, as
#   sft    the prompt and chosen completion of every pair (prompt/completion records);
#          sft-full the same training every weight;
#   dpo    the pairs, the reference being the base with the adapters switched off;
#   orpo   the pairs, no reference;
#   dpo-pre the pairs, the reference's log-probabilities computed before training
#          (pref.precompute_reference; the pass is not in the step times);
#   dpo-full / dpo-full-int8 / dpo-full-pre  every weight trains, the reference a frozen fp32 /
#          int8 copy, or precomputed with no copy while training (DPO_FULL=0 leaves them out);
# and prints a Markdown table of the mean step time (steps 2..STEPS) and the peak of the counting
# allocator (mem_peak), with the ratios to sft. The runs take turns, RUNS rounds of each.
#
#   tests/benchmarks/preference.sh
#   STEPS=8 RUNS=2 SEQ_LEN=256 MICRO_BATCH=4 THREADS=2 tests/benchmarks/preference.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
CLI="$BUILD_DIR/app/headroom-cli"
PYTHON="${PYTHON:-/usr/bin/python3}"
WORK_DIR="${WORK_DIR:-$BUILD_DIR/bench/preference}"
STEPS="${STEPS:-6}"
RUNS="${RUNS:-1}"
SEQ_LEN="${SEQ_LEN:-256}"
MICRO_BATCH="${MICRO_BATCH:-4}"
THREADS="${THREADS:-$(nproc)}"
DPO_FULL="${DPO_FULL:-1}"

[ -x "$CLI" ] || { echo "build headroom-cli first (cmake --build $BUILD_DIR --target headroom-cli)" >&2; exit 1; }
mkdir -p "$WORK_DIR"
cd "$WORK_DIR"
if [ ! -f llama/model.safetensors ]; then
  "$PYTHON" "$ROOT/tests/benchmarks/make_llama.py" llama >/dev/null
fi
cp "$ROOT/tests/data/tokenizers/bpe_byte_level/tokenizer.json" llama/

# Pairs of ~SEQ_LEN/2-token prompts and ~SEQ_LEN/3-token completions of random words.
"$PYTHON" - "$SEQ_LEN" <<'PY'
import json, random, sys
length = int(sys.argv[1])
random.seed(5)
words = ["river", "stone", "quiet", "lamp", "orbit", "maple", "copper", "window", "signal",
         "harbor", "tender", "puzzle", "meadow", "anchor", "velvet", "ember"]
def text(tokens):  # the test tokenizer spends about 5 tokens on each of these words
    return " ".join(random.choice(words) for _ in range(max(1, tokens // 5)))
with open("pairs.jsonl", "w") as pairs, open("sft.jsonl", "w") as sft:
    for _ in range(400):
        prompt, chosen, rejected = text(length // 2), text(length // 3), text(length // 3)
        pairs.write(json.dumps({"prompt": prompt, "chosen": chosen, "rejected": rejected}) + "\n")
        sft.write(json.dumps({"prompt": prompt, "completion": chosen}) + "\n")
PY

common=(--set "model.seq_len=$SEQ_LEN" --set "train.micro_batch=$MICRO_BATCH"
        --set "train.steps=$STEPS" --set train.eval_every=0 --set train.eval_batches=1
        --set train.checkpoint_every=0 --set train.sample_tokens=0 --set "train.threads=$THREADS"
        --set data.validation_fraction=0.05)
lora=(--set lora.rank=16 --set lora.targets=all-linear)
declare -A settings=(
  [sft]="${lora[*]}"
  [sft-full]=""
  [dpo]="${lora[*]} --set train.objective=dpo"
  [dpo-pre]="${lora[*]} --set train.objective=dpo --set pref.precompute_reference=1"
  [orpo]="${lora[*]} --set train.objective=orpo"
  [dpo-full]="--set train.objective=dpo"
  [dpo-full-int8]="--set train.objective=dpo --set pref.reference_dtype=int8"
  [dpo-full-pre]="--set train.objective=dpo --set pref.precompute_reference=1"
)
names=(sft dpo dpo-pre orpo)
[ "$DPO_FULL" = 1 ] && names+=(sft-full dpo-full dpo-full-int8 dpo-full-pre)
# NAMES="sft-full dpo-full-pre" runs only those (the ratios are to the first one named).
[ -n "${NAMES:-}" ] && read -r -a names <<<"$NAMES"

: >results.jsonl
for round in $(seq 1 "$RUNS"); do
  for name in "${names[@]}"; do
    data=pairs.jsonl
    case "$name" in sft*) data=sft.jsonl ;; esac
    rm -f "$name.headroom"
    # shellcheck disable=SC2086
    "$CLI" new "$name.headroom" --base llama --data "$data" "${common[@]}" ${settings[$name]} >/dev/null
    "$CLI" train "$name.headroom" --json 2>"$name.log" |
      "$PYTHON" -c '
import json, sys
name, steps = sys.argv[1], []
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "step":
        steps.append(o)
times = [b["elapsed_s"] - a["elapsed_s"] for a, b in zip(steps, steps[1:])]
print(json.dumps({"name": name, "step_s": sum(times) / len(times),
                  "peak": max(s["mem_peak"] for s in steps),
                  "tokens_per_s": sum(s["tokens_per_s"] for s in steps[1:]) / len(times)}))
' "$name" >>results.jsonl
  done
done

"$PYTHON" - <<'PY'
import json
rows = {}
for line in open("results.jsonl"):
    r = json.loads(line)
    rows.setdefault(r["name"], []).append(r)
def mean(name, key):
    return sum(r[key] for r in rows[name]) / len(rows[name])
first = next(iter(rows))
base_t, base_p = mean(first, "step_s"), mean(first, "peak")
print(f"| run | step time | vs {first} | peak (mem_peak) | vs {first} |")
print("|---|---:|---:|---:|---:|")
for name in rows:
    t, p = mean(name, "step_s"), mean(name, "peak")
    print(f"| {name} | {t:.2f} s | {t / base_t:.2f}x | {p / 2**20:.0f} MiB | {p / base_p:.2f}x |")
PY
