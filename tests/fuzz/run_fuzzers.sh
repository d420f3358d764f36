#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a fixed time, one after the other,
# at the lowest priority (the machine is shared). Usage:
#   tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET=600] [TARGET...]
#   (config records project tokenizer precompiled safetensors hf_config chat_template)
# The committed seeds (tests/fuzz/corpus/TARGET) are copied into build/fuzz/corpus-TARGET, where
# new inputs go; a crash is saved as build/fuzz/crash-TARGET-* and the script exits non-zero.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="$repo/build/fuzz"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config records project tokenizer precompiled safetensors hf_config chat_template)

if [ ! -f "$build/build.ninja" ]; then
  CXX=clang++ cmake -S "$here" -B "$build" -G Ninja >/dev/null
fi
nice -n 19 cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' "${targets[@]}")

declare -A max_len=([config]=4096 [records]=16384 [project]=32768 [tokenizer]=16384 [precompiled]=8192
  [safetensors]=8192 [hf_config]=4096 [chat_template]=16384)
status=0
for target in "${targets[@]}"; do
  # libFuzzer writes new and reduced inputs into the first corpus folder it is given (and may
  # replace files there), so it gets only the working copy, seeded from the committed seeds.
  mkdir -p "$build/corpus-$target"
  cp -n "$here/corpus/$target"/* "$build/corpus-$target"/
  log="$build/fuzz-$target.log"
  echo "== fuzz_$target for ${seconds}s (log: $log)"
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      nice -n 19 "$build/fuzz_$target" -max_total_time="$seconds" \
      -max_len="${max_len[$target]}" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
      -artifact_prefix="$build/crash-$target-" \
      "$build/corpus-$target" >"$log" 2>&1; then
    echo "   FINDING: see $log and $build/crash-$target-*"
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done ' "$log" | sed 's/^/   /' || true
  echo "   corpus: $(ls "$build/corpus-$target" | wc -l) inputs"
done
exit $status
