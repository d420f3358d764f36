#!/usr/bin/env bash
# GRPO on small hardware (docs/BENCHMARKS.md, "GRPO"):
#  1. sampling: grpo_benchmark on the mid-size random Llama (make_llama.py: 8 layers, dim 512,
#     55 M parameters): a group of GROUP completions sampled in lockstep through one KV cache, as
#     a GRPO step samples them, against `generate` producing the same number one by one;
#  2. groups under 2 GiB: a random Llama of Qwen2.5-0.5B's shape (24 layers, dim 896, 14 heads /
#     2 key-value heads, SwiGLU 4864, vocabulary 151936; make_llama.py writes an untied head, so
#     0.63 B parameters where Qwen2.5-0.5B ties it and has 0.49 B) held as NF4 with LoRA rank 16 on
#     every linear layer, memory.budget=2GiB: `estimate` gives the plan (techniques, micro-batch x
#     accumulation, predicted peak) for groups of 2..64 (SEQ_LEN window, NEW_TOKENS completion
#     tokens); REAL=1 trains one step of group REAL_GROUP with its plan and reports the measured
#     peak. A group is sampled whole and scored micro-batch rows at a time, so its size is
#     bounded by time, not memory.
#
#   tests/benchmarks/grpo.sh
#   GROUP=8 NEW_TOKENS=64 SEQ_LEN=512 REAL=1 REAL_GROUP=8 THREADS=2 tests/benchmarks/grpo.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
CLI="$BUILD_DIR/app/headroom-cli"
BENCH="$BUILD_DIR/tests/benchmarks/grpo_benchmark"
PYTHON="${PYTHON:-/usr/bin/python3}"
WORK_DIR="${WORK_DIR:-$BUILD_DIR/bench/grpo}"
GROUP="${GROUP:-8}"
NEW_TOKENS="${NEW_TOKENS:-64}"
SEQ_LEN="${SEQ_LEN:-512}"
REAL="${REAL:-1}"
THREADS="${THREADS:-$(nproc)}"

for program in "$CLI" "$BENCH"; do
  [ -x "$program" ] || { echo "build $(basename "$program") first" >&2; exit 1; }
done
mkdir -p "$WORK_DIR"
cd "$WORK_DIR"
tokenizer="$ROOT/tests/data/tokenizers/bpe_byte_level/tokenizer.json"
if [ ! -f llama/model.safetensors ]; then
  "$PYTHON" "$ROOT/tests/benchmarks/make_llama.py" llama >/dev/null
fi
cp "$tokenizer" llama/
if [ ! -f qwen-shape/model.safetensors ]; then
  "$PYTHON" "$ROOT/tests/benchmarks/make_llama.py" qwen-shape --layers 24 --dim 896 --heads 14 \
    --kv-heads 2 --intermediate 4864 --vocab 151936 --context 32768 >/dev/null
fi
cp "$tokenizer" qwen-shape/

echo "### Sampling a group (55 M Llama)"
"$BENCH" llama --group "$GROUP" --prompt 32 --new-tokens "$NEW_TOKENS" --repeats 3 \
  --threads "$THREADS"

# Prompts of about SEQ_LEN - NEW_TOKENS tokens of random words.
"$PYTHON" - "$SEQ_LEN" "$NEW_TOKENS" <<'PY'
import json, random, sys
length, new = int(sys.argv[1]), int(sys.argv[2])
random.seed(5)
words = ["river", "stone", "quiet", "lamp", "orbit", "maple", "copper", "window", "signal"]
with open("prompts.jsonl", "w") as out:
    for i in range(200):
        text = " ".join(random.choice(words) for _ in range(max(1, (length - new) // 5)))
        out.write(json.dumps({"prompt": text, "answer": str(i)}) + "\n")
PY

settings=(--set train.objective=grpo --set "grpo.reward=regex:river" --set "model.seq_len=$SEQ_LEN"
          --set "grpo.max_new_tokens=$NEW_TOKENS" --set model.base_dtype=nf4 --set lora.rank=16
          --set lora.targets=all-linear --set memory.budget=2GiB --set train.eval_every=0
          --set train.checkpoint_every=0 --set "train.threads=$THREADS" --set train.steps=1
          --set data.max_prompt_len=$((SEQ_LEN - NEW_TOKENS)))
echo
echo "### Groups under 2 GiB (Qwen2.5-0.5B's shape, untied: 0.63 B, NF4 + LoRA r16, window $SEQ_LEN)"
cat >plan_row.py <<'PY'
import json, sys
plan = json.load(sys.stdin)["plan"]
e = plan["estimate"]
print("| %s | %s | %d x %d | %.0f MiB | %s |" % (sys.argv[1], "yes" if plan["feasible"] else "no",
      e["micro_batch"], e["accumulation"], e["peak"] / 2**20, plan["summary"]))
with open("plan-%s.txt" % sys.argv[1], "w") as out:
    out.write(" ".join("--set " + o for o in plan["overrides"]))
PY
cat >step_row.py <<'PY'
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "step":
        print("measured peak %.0f MiB at micro-batch %d x %d, %.0f s, completion length %.0f tokens"
              % (o["mem_peak"] / 2**20, o["micro_batch"], o["accumulation"], o["elapsed_s"],
                 o["completion_length"]))
    elif "oom_recovered" in line:
        print("out-of-memory recovery: " + str(o.get("message")))
PY
echo "| group | fits | plan: micro-batch x accumulation | predicted peak | the plan |"
echo "|---:|---|---:|---:|---|"
for group in 2 4 8 16 32 64; do
  rm -f "g$group.headroom"
  "$CLI" new "g$group.headroom" --base qwen-shape --data prompts.jsonl "${settings[@]}" \
    --set "grpo.group_size=$group" --set "train.micro_batch=$group" >/dev/null 2>&1
  "$CLI" estimate "g$group.headroom" --json | "$PYTHON" plan_row.py "$group"
done
REAL_GROUP="${REAL_GROUP:-8}"
if [ "$REAL" = 1 ]; then
  echo
  echo "One real step of group $REAL_GROUP with its plan:"
  # shellcheck disable=SC2046
  "$CLI" train "g$REAL_GROUP.headroom" --json $(cat "plan-$REAL_GROUP.txt") \
    2>"g$REAL_GROUP.log" | "$PYTHON" step_row.py
fi
