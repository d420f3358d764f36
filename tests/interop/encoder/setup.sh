#!/usr/bin/env bash
# Writes the tiny random BERT / DistilBERT masked-LM folders (bert, bert-unprefixed,
# bert-sharded, distilbert) and their reference hidden states and MLM logits, computed by the
# independent pure-torch reference (reference_encoder.py, Debian's python3-torch; no
# transformers), that the encoder import test compares against. Run by CTest as a fixture; by
# hand:
#   tests/interop/encoder/setup.sh build/release/encoder-interop
# Without a /usr/bin/python3 that imports torch it writes why into OUT/status.txt and exits 0:
# the test then skips. The folders are cached, keyed by these scripts and the tokenizer file.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: setup.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
status="$out/status.txt"
python=/usr/bin/python3
tokenizer="$here/../../data/tokenizers/wordpiece_bert/tokenizer.json"

skip() {
  echo "$1" >"$status"
  echo "encoder interop reference not generated: $1"
  exit 0
}

[ -x "$python" ] || skip "$python is not installed"
"$python" -c 'import torch' >/dev/null 2>&1 ||
  skip "$python cannot import torch (apt install python3-torch)"

key="$(cat "$here/reference_encoder.py" "$here/make_reference.py" "$here/../pretrained/reference_lm.py" "$tokenizer" | sha256sum | cut -c1-16)"
if [ -f "$out/reference/.key" ] && [ "$(cat "$out/reference/.key")" = "$key" ]; then
  echo "ok (cached)" >"$status"
  echo "encoder interop reference: cached in $out/reference"
  exit 0
fi

rm -rf "$out/reference.tmp"
if ! "$python" "$here/make_reference.py" "$out/reference.tmp" >"$out/generate.log" 2>&1; then
  echo "generating the reference encoders failed: see $out/generate.log" >"$status"
  cat "$out/generate.log"
  exit 1
fi
echo "$key" >"$out/reference.tmp/.key"
rm -rf "$out/reference"
mv "$out/reference.tmp" "$out/reference"
echo "ok" >"$status"
cat "$out/generate.log"
