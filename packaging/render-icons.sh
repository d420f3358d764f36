#!/usr/bin/env bash
# Renders the platform icons from resources/icons/headroom.svg (the one source of the icon).
# Needs Debian's librsvg2-bin, imagemagick and icnsutils. Run it after editing the SVG and
# commit the results: Windows and macOS builds should not need these tools.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
svg="$repo_root/resources/icons/headroom.svg"
out="$repo_root/resources/icons/platform"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for size in 16 24 32 48 64 128 256 512; do
  rsvg-convert -w "$size" -h "$size" "$svg" -o "$work/$size.png"
done
convert "$work"/{16,24,32,48,64,256}.png "$out/headroom.ico"
png2icns "$out/headroom.icns" "$work"/{16,32,128,256,512}.png >/dev/null
echo "wrote $out/headroom.ico and $out/headroom.icns"
