#!/bin/sh
# Runs inside the clean Debian 12 root made by packaging/verify-deb.sh: installs the DEB the
# way a user does, then starts the installed programs. Any failing command fails the check.
set -eu
cd /tmp/headroom-verify
export DEBIAN_FRONTEND=noninteractive
step() { printf '\n== %s\n' "$*"; }

step "apt-get install ./headroom_*.deb"
started=$(date +%s)
apt-get install -y -q ./headroom_*.deb >apt.log 2>&1 || { tail -40 apt.log; exit 1; }
finished=$(date +%s)
tail -1 apt.log
echo "install took $((finished - started)) s; $(grep -c '^Setting up' apt.log) packages set up"
dpkg-query -W -f='installed ${Package} ${Version}, Installed-Size ${Installed-Size} KiB\n' headroom
echo "installed root: $(du -sm / --exclude=/proc --exclude=/sys --exclude=/dev 2>/dev/null | cut -f1) MiB"

step "files in place"
for file in /usr/bin/headroom /usr/bin/headroom-cli \
  /usr/share/applications/io.headroom.Headroom.desktop \
  /usr/share/metainfo/io.headroom.Headroom.metainfo.xml \
  /usr/share/mime/packages/io.headroom.Headroom.xml \
  /usr/share/icons/hicolor/scalable/apps/io.headroom.Headroom.svg \
  /usr/share/headroom/sample/corpus.txt; do
  test -e "$file" || { echo "missing $file"; exit 1; }
done
ls /usr/lib/headroom/
if [ -f /usr/share/mime/globs2 ]; then
  grep -q 'application/x-headroom-project:\*\.headroom' /usr/share/mime/globs2 \
    || { echo "*.headroom is not in the MIME database"; exit 1; }
  echo "MIME database knows *.headroom"
fi

work=$(mktemp -d)
export QT_QPA_PLATFORM=offscreen
XDG_RUNTIME_DIR=$(mktemp -d)
export XDG_RUNTIME_DIR

step "Qt 5 next to Qt 6 (Debian's LibTorch -> OpenCV -> Qt 5)"
echo "headroom loads: $(ldd /usr/bin/headroom | grep -o 'libQt[56][A-Za-z]*' | sort -u | tr '\n' ' ')"
sample=/usr/share/headroom/sample

step "headroom --version, --smoke"
headroom --version
headroom --smoke
echo "smoke: exit 0"

step "headroom-cli new / train / runs on the bundled sample"
headroom-cli --version
headroom-cli new "$work/story.headroom" --recipe gpt --data "$sample/corpus.txt" \
  --config "$sample/sample-gpt.json"
headroom-cli train "$work/story.headroom" --steps 5 --set train.threads=2 --json >"$work/train.jsonl"
grep -c '"type":"step"' "$work/train.jsonl" | sed 's/^/step lines: /'
tail -1 "$work/train.jsonl"
headroom-cli runs "$work/story.headroom"

step "headroom --smoke with the trained project"
headroom --smoke "$work/story.headroom"
echo "smoke with project: exit 0"

step "SentencePiece module (installed layout)"
headroom-cli new "$work/bpe.headroom" --recipe gpt --data "$sample/corpus.txt" \
  --set tokenizer=bpe --set tokenizer.vocab_size=512
echo "bpe tokenizer trained"

step "all checks passed"
