#!/usr/bin/env bash
# The pretrained-models benchmarks (docs/BENCHMARKS.md, "Pretrained models"), one command:
#   import   a TinyLlama-shaped 1.1 B model (random BF16 weights, make_tinyllama.py) into fp32:
#            time against read(2) of the same file, cold and warm page cache, and peak RSS
#            against the model's size;
#   lora     LoRA fine-tuning steps on a mid-size random Llama (make_llama.py: 8 layers, dim
#            512, GQA 8/2, vocabulary 32000) against the PyTorch reference lora_reference.py
#            on the same LibTorch build, the two taking turns step by step;
#   generate 256 new tokens with the KV cache against recomputing the whole prefix each token;
#   cli      headroom-cli generate on a tiny model (0.17 M parameters), as a user runs it;
#   quantized (not in the default list) the LoRA base held as fp32/bf16/int8/nf4
#            (model.base_dtype): bytes per projection weight after importing the TinyLlama-shaped
#            model, LoRA step time on an nf4, bf16 and fp32 base in turns (QUANT_LAYERS layers of
#            TinyLlama's width, default all 22; REPEATS steps each), and headroom-cli training
#            that base in nf4 under memory.budget=QUANT_CLI_BUDGET (default 2GiB) for
#            QUANT_CLI_STEPS steps (default 10), again under QUANT_CLI_FALLBACK_BUDGET (5GiB)
#            where that run fails. About 10 minutes on 2 busy cores with the defaults (REPEATS=3)
#            and 9 GiB of free memory; 15 with REPEATS=5 QUANT_CLI_STEPS=20.
# Prints a Markdown table; raw JSON lines go to $BUILD_DIR/benchmarks/pretrained.jsonl. About
# 12 minutes on 2 cores after the build; the import needs about 7 GiB of free memory and the
# models 2.3 GB of disk (kept in $WORK_DIR and reused).
#
#   tests/benchmarks/pretrained.sh
#   REPEATS=5 BENCHMARKS="lora generate" tests/benchmarks/pretrained.sh
#   TINYLLAMA=/tmp/tinyllama SKIP_BUILD=1 THREADS=2 tests/benchmarks/pretrained.sh
#   BENCHMARKS=quantized SKIP_BUILD=1 THREADS=2 tests/benchmarks/pretrained.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}" # Debian's python3-torch, the same LibTorch build
THREADS="${THREADS:-$(nproc)}"
REPEATS="${REPEATS:-3}"
BENCHMARKS="${BENCHMARKS:-import lora generate cli}"
WORK_DIR="${WORK_DIR:-$BUILD_DIR/bench/pretrained}"
TINYLLAMA="${TINYLLAMA:-$WORK_DIR/tinyllama}"
LORA_STEPS="${LORA_STEPS:-10}"
QUANT_LAYERS="${QUANT_LAYERS:-22}"
QUANT_CLI_STEPS="${QUANT_CLI_STEPS:-10}"
QUANT_CLI_BUDGET="${QUANT_CLI_BUDGET:-2GiB}"
QUANT_CLI_FALLBACK_BUDGET="${QUANT_CLI_FALLBACK_BUDGET:-5GiB}"
if (($# > 0)); then
  echo "usage: [BUILD_DIR=...] [THREADS=...] [REPEATS=...] [BENCHMARKS=...] [TINYLLAMA=DIR]" \
    "[WORK_DIR=...] [SKIP_BUILD=1] [PYTHON=...] [QUANT_*=...] $0" >&2
  exit 2
fi

if [[ -z "${SKIP_BUILD:-}" ]]; then
  if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$BUILD_DIR" --target pretrained_benchmark headroom-cli -j"$THREADS" >/dev/null
fi
BENCH="$BUILD_DIR/tests/benchmarks/pretrained_benchmark"
CLI="$BUILD_DIR/app/headroom-cli"
HERE="$ROOT/tests/benchmarks"
"$PYTHON" -c 'import torch' 2>/dev/null || { echo "$PYTHON has no torch (apt-get install python3-torch)" >&2; exit 2; }

# The environment run_benchmarks.sh gives both sides (docs/BENCHMARKS.md has the reasons):
# passive OpenMP waiting, OpenBLAS's kernels named when it does not know this CPU, and large
# freed blocks kept in glibc's heap. headroom-cli sets the same itself (the cli benchmark runs
# it without them, as a user would).
UNTUNED_ENV=(env -u OMP_WAIT_POLICY -u OPENBLAS_CORETYPE -u MALLOC_MMAP_THRESHOLD_
  -u MALLOC_TRIM_THRESHOLD_ -u HEADROOM_RUNTIME_TUNED)
source "$ROOT/tests/benchmarks/runtime_tuning.sh"
echo "threads: $THREADS, repeats: $REPEATS, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-}," \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

RESULTS="$BUILD_DIR/benchmarks/pretrained.jsonl"
mkdir -p "$(dirname "$RESULTS")" "$WORK_DIR"
: >"$RESULTS"
record() { # bench impl json
  echo "{\"bench\":\"$1\",\"impl\":\"$2\",\"run\":$3}" >>"$RESULTS"
  echo "  $1 $2: $3" >&2
}
wants() { [[ " $BENCHMARKS " == *" $1 "* ]]; }

MID="$WORK_DIR/llama-mid"
if { wants lora || wants generate; } && [[ ! -f "$MID/model.safetensors" ]]; then
  "$PYTHON" "$HERE/make_llama.py" "$MID" >&2
fi

if wants import; then
  available_kib="$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
  if ((available_kib < 7 * 1024 * 1024)); then
    echo "import: skipped, $((available_kib / 1024)) MiB available of the 7 GiB it needs" >&2
  else
    [[ -f "$TINYLLAMA/model.safetensors" ]] || "$PYTHON" "$HERE/make_tinyllama.py" "$TINYLLAMA" >&2
    weights="$TINYLLAMA/model.safetensors"
    for ((round = 1; round <= REPEATS; ++round)); do
      # --cold evicts the file from the page cache first (this file only).
      record import read-cold "$("$BENCH" read "$weights" --cold)"
      record import import-cold "$("$BENCH" import "$TINYLLAMA" --cold --threads "$THREADS")"
      record import read-warm "$("$BENCH" read "$weights")"
      line="$("$BENCH" import "$TINYLLAMA" --threads "$THREADS")"
      record import import-warm "$line"
      bytes="$(sed -n 's/.*"model_bytes":\([0-9]*\).*/\1/p' <<<"$line")"
      record import touch "$("$BENCH" touch "$bytes" --threads "$THREADS")"
    done
  fi
fi

if wants lora; then
  # The same model, LoRA and step on both sides (rank 8, alpha 16, q_proj and v_proj, batch 4
  # of 128 tokens, clip 1, AdamW lr 1e-4 without weight decay). Both processes run at once and
  # take turns step by step, passing a token around a ring of two FIFOs (run_benchmarks.sh's
  # scheme): whatever else the machine does hits both alike. Each counts only its own steps.
  common=(--threads "$THREADS" --rank 8 --alpha 16 --targets q_proj,v_proj --batch 4 --seq 128
    --warmup 2 --steps "$LORA_STEPS" --lr 1e-4 --turn-steps 1)
  RING="$(mktemp -d)"
  trap 'rm -rf "$RING"' EXIT
  for ((round = 1; round <= REPEATS; ++round)); do
    holders=()
    for index in 0 1; do
      rm -f "$RING/turn$index"
      mkfifo "$RING/turn$index"
      # Held open by the driver (read-write: never waits) so no token is dropped while a
      # process is still loading its libraries.
      exec {holder}<>"$RING/turn$index"
      holders+=("$holder")
    done
    # Who goes first alternates from round to round.
    first=$((round % 2))
    "$BENCH" lora "$MID" "${common[@]}" --turn-in "$RING/turn$first" \
      --turn-out "$RING/turn$((1 - first))" >"$RING/cpp" &
    cpp_pid=$!
    "$PYTHON" "$HERE/lora_reference.py" "$MID" "${common[@]}" --weight-decay 0 \
      --turn-in "$RING/turn$((1 - first))" --turn-out "$RING/turn$first" >"$RING/python" &
    python_pid=$!
    printf t >&"${holders[0]}"
    # A process that dies would leave the other waiting for the token forever: stop it.
    pids=("$cpp_pid" "$python_pid")
    while ((${#pids[@]} > 0)); do
      status=0
      wait -n -p finished "${pids[@]}" || status=$?
      if ((status != 0)); then
        echo "lora: a benchmark process failed (exit status $status); stopping the other" >&2
        kill "${pids[@]}" 2>/dev/null || true
        exit 1
      fi
      running=()
      for pid in "${pids[@]}"; do
        [[ "$pid" == "$finished" ]] || running+=("$pid")
      done
      pids=("${running[@]}")
    done
    for holder in "${holders[@]}"; do
      exec {holder}>&-
    done
    record lora cpp "$(cat "$RING/cpp")"
    out="$(cat "$RING/python")"
    rate="$(sed -n 's/^tokens_per_s=//p' <<<"$out")"
    step_ms="$(sed -n 's/.* median_ms_per_step=\([0-9.]*\) .*/\1/p' <<<"$out")"
    record lora python "{\"tokens_per_s\":$rate,\"median_step_ms\":$step_ms}"
  done
fi

if wants generate; then
  record generate cpp "$("$BENCH" generate "$MID" --threads "$THREADS" --prompt 16 \
    --new-tokens 256 --repeats "$REPEATS")"
fi

if wants cli; then
  TINY="$WORK_DIR/llama-tiny"
  if [[ ! -f "$TINY/tokenizer.json" ]]; then
    "$PYTHON" "$HERE/make_llama.py" "$TINY" --layers 3 --dim 64 --heads 4 --kv-heads 2 \
      --intermediate 160 --vocab 345 --context 256 >&2
    cp "$ROOT/tests/data/tokenizers/bpe_byte_level/tokenizer.json" "$TINY/"
  fi
  project="$WORK_DIR/tiny.headroom"
  rm -rf "$project" "$project.d"
  "$CLI" new "$project" --base "$TINY" --data "$ROOT/resources/sample/corpus.txt" >/dev/null 2>&1
  for ((round = 1; round <= REPEATS; ++round)); do
    start="$(date +%s%N)"
    message="$("${UNTUNED_ENV[@]}" "$CLI" generate "$project" --prompt "Once upon a time" \
      --max-tokens 200 --json 2>&1 >/dev/null | tail -n 1)"
    wall_ms="$((($(date +%s%N) - start) / 1000000))"
    tokens="$(sed -n 's/^\([0-9]*\) new tokens.*/\1/p' <<<"$message")"
    rate="$(sed -n 's/.* \([0-9]*\) tokens\/s$/\1/p' <<<"$message")"
    record cli headroom-cli "{\"tokens\":${tokens:-0},\"tokens_per_s\":${rate:-0},\"wall_ms\":$wall_ms}"
  done
fi

if wants quantized; then
  [[ -f "$TINYLLAMA/model.safetensors" ]] || "$PYTHON" "$HERE/make_tinyllama.py" "$TINYLLAMA" >&2
  # Bytes after importing the 1.1 B model with its projections in each format (one process each:
  # the fp32 one needs 4.1 GiB), measured by the counting CPU allocator the trainer installs.
  for format in fp32 bf16 int8 nf4; do
    record quantized "size-$format" "$("$BENCH" quant-size "$TINYLLAMA" --format "$format" \
      --threads "$THREADS")"
  done
  # Step time: one model per format in one process, taking turns step by step (QUANT_LAYERS
  # below 22: a folder of that many layers of TinyLlama's width).
  steps_model="$TINYLLAMA"
  if ((QUANT_LAYERS != 22)); then
    steps_model="$WORK_DIR/tinyllama-${QUANT_LAYERS}l"
    [[ -f "$steps_model/model.safetensors" ]] ||
      "$PYTHON" "$HERE/make_tinyllama.py" "$steps_model" --layers "$QUANT_LAYERS" >&2
  fi
  record quantized steps "$("$BENCH" quant-steps "$steps_model" --threads "$THREADS" \
    --formats nf4,bf16,fp32 --rank 8 --targets all-linear --batch 1 --seq 256 --checkpoint 1 \
    --warmup 1 --steps "$REPEATS")"
  # Capacity: the whole 1.1 B model, nf4 base, through headroom-cli under a 2 GiB budget. The
  # folder links the weights and adds the bundled 345-token test tokenizer (ids below 32000).
  cli_base="$WORK_DIR/tinyllama-cli"
  mkdir -p "$cli_base"
  for file in config.json generation_config.json model.safetensors; do
    ln -sf "$(realpath "$TINYLLAMA/$file")" "$cli_base/$file"
  done
  cp "$ROOT/tests/data/tokenizers/bpe_byte_level/tokenizer.json" "$cli_base/"
  train_quantized() { # budget
    local project="$WORK_DIR/quantized-$1.headroom" out="$WORK_DIR/quantized-$1" status=0 start
    rm -rf "$project" "$project.d"
    "$CLI" new "$project" --base "$cli_base" --data "$ROOT/resources/sample/corpus.txt" \
      --set lora.rank=8 --set model.base_dtype=nf4 --set model.seq_len=256 \
      --set train.micro_batch=1 --set checkpointing=1 --set memory.budget="$1" \
      --set train.steps="$QUANT_CLI_STEPS" >/dev/null
    start="$(date +%s%N)"
    "$CLI" train "$project" --json >"$out-train.jsonl" 2>"$out-train.log" || status=$?
    "$CLI" runs "$project" --json >"$out-runs.json"
    "$PYTHON" - "$out-train.jsonl" "$out-runs.json" "$(($(date +%s%N) - start))" "$status" \
      "$1" <<'EOF'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
steps = [line for line in lines if line.get("type") == "step"]
kinds = [line["kind"] for line in lines if line.get("type") == "event"]
done = ([line for line in lines if line.get("type") == "done"] or [{}])[-1]
runs = json.load(open(sys.argv[2]))
summary = runs[-1].get("summary", {}) if runs else {}
print(json.dumps({"budget": sys.argv[5], "exit_status": int(sys.argv[4]), "steps": len(steps),
                  "peak": max((s["mem_peak"] for s in steps), default=0),
                  "rss": max((s["mem_rss"] for s in steps), default=0),
                  "failures": [k for k in kinds if k in ("oom_recovered", "ladder", "out_of_memory")],
                  "events": sorted(set(kinds)), "message": done.get("message", ""),
                  "breakdown": summary.get("memory_breakdown", {}),
                  "wall_ms": int(sys.argv[3]) // 1000000}))
EOF
  }
  line="$(train_quantized "$QUANT_CLI_BUDGET")"
  record quantized cli "$line"
  if [[ "$line" != *'"exit_status": 0,'* ]]; then
    record quantized cli-fallback "$(train_quantized "$QUANT_CLI_FALLBACK_BUDGET")"
  fi
fi

if wants import || wants lora || wants generate || wants cli; then
  "$PYTHON" "$HERE/summarize_pretrained.py" "$RESULTS"
fi
if wants quantized; then
  "$PYTHON" - "$RESULTS" <<'EOF'
import json, statistics, sys
runs = {r["impl"]: r["run"] for r in map(json.loads, open(sys.argv[1])) if r["bench"] == "quantized"}
MIB, GIB = 2**20, 2**30
targets = {"int8": 1.07, "nf4": 0.53}
print("| base format | projections: bytes/param | planner's estimate | whole model (allocator) "
      "| import peak: allocator, RSS | dequantizing every projection once | target | met |")
print("|---|---|---|---|---|---|---|---|")
for fmt in ("fp32", "bf16", "int8", "nf4"):
    r = runs.get("size-" + fmt)
    if r:
        per = r["projection_bytes"] / r["projection_params"]
        target = targets.get(fmt)
        met = "-" if target is None else "yes" if per <= target else "**no**"
        print(f"| {fmt} | {per:.3f} | {r['estimate_bytes'] / r['projection_params']:.3f} | "
              f"{r['allocator_bytes'] / GIB:.2f} GiB (tensors {r['model_bytes'] / GIB:.2f} GiB) | "
              f"{r['import_peak_bytes'] / GIB:.2f} GiB, {r['peak_rss_kib'] / 2**20:.2f} GiB | "
              f"{r['dequantize_ms']:.0f} ms | {'-' if target is None else f'<= {target}'} | {met} |")
s = runs.get("steps")
if s:
    sides = {side["format"]: side for side in s["sides"]}
    print(f"\nLoRA r={s['rank']} {s['targets']}, {s['layers']} layers of width {s['dim']}, "
          f"micro-batch {s['batch']} x {s['seq']}, checkpointing every block, {s['threads']} "
          f"threads, median of {s['steps']} steps in turns; the dequantization buffer: "
          f"{s['dequantization_buffer_bytes'] / MIB:.0f} MiB:\n")
    print("| base | median step | vs bf16 base | vs fp32 base | model | step peak above the "
          "model | loss first -> last | steps (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for fmt, side in sides.items():
        def ratio(other):  # the median of the steps' ratios (each step's turns ran together)
            if other not in sides:
                return "-"
            pairs = zip(side["steps_ms"], sides[other]["steps_ms"])
            return f"{statistics.median(mine / theirs for mine, theirs in pairs):.2f}x"
        print(f"| {fmt} | {side['median_step_ms'] / 1000:.2f} s | {ratio('bf16')} | "
              f"{ratio('fp32')} | {side['model_bytes'] / MIB:.0f} MiB | "
              f"{side['step_peak_bytes'] / MIB:.0f} MiB | {side['loss_first']:.3f} -> "
              f"{side['loss_last']:.3f} | {', '.join(f'{v:.0f}' for v in side['steps_ms'])} |")
for key in ("cli", "cli-fallback"):
    c = runs.get(key)
    if not c:
        continue
    b = c["breakdown"]
    parts = ", ".join(f"{k} {b[k] / MIB:.0f} MiB"
                      for k in ("weights", "gradients", "optimizer", "activations") if k in b)
    print(f"\nheadroom-cli train, nf4 base, memory.budget={c['budget']}: exit status "
          f"{c['exit_status']}, {c['steps']} steps in {c['wall_ms'] / 1000:.0f} s"
          + (f"; peak (max mem_peak) {c['peak'] / GIB:.2f} GiB, RSS {c['rss'] / GIB:.2f} GiB; "
             f"breakdown at step {b.get('step', '-')}: {parts} = peak {b.get('peak', 0) / MIB:.0f} "
             f"MiB" if c["steps"] else "")
          + f"; out-of-memory events: {', '.join(c['failures']) or 'none'} (events: "
          f"{', '.join(c['events']) or 'none'}); \"{c['message']}\"")
EOF
fi
