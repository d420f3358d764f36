#!/usr/bin/env bash
# Builds Headroom's DEB, installs it with `apt-get install ./headroom_*.deb` into a clean
# Debian 12 root made by mmdebstrap, and runs the installed programs there
# (packaging/verify-deb-inside.sh): the desktop app's smoke start (offscreen) and
# headroom-cli new / train / runs on the bundled sample. Prints the package size and the
# install time; exits non-zero when any step fails.
#
#   packaging/verify-deb.sh            (or ./headroom.sh package)
#
# Environment:
#   HEADROOM_BUILD_DIR     build tree (default build/release; configured Release if missing)
#   HEADROOM_JOBS          build jobs (default: all cores)
#   HEADROOM_DEBIAN_MIRROR Debian mirror (default http://deb.debian.org/debian)
#   HEADROOM_APT_CACHE     folder keeping downloaded .debs between runs (default: none, so the
#                          install time includes the downloads a user would have)
#   HEADROOM_SKIP_BUILD=1  package the build tree as it is (cpack still builds what `install`
#                          needs unless the tree was configured with
#                          -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON)
# Needs: mmdebstrap, dpkg-dev (dpkg-shlibdeps), network access to the mirror, and root (or
# unprivileged user namespaces for mmdebstrap's unshare mode).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${HEADROOM_BUILD_DIR:-$repo_root/build/release}"
jobs="${HEADROOM_JOBS:-$(nproc 2>/dev/null || echo 2)}"
mirror="${HEADROOM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${mirror%/debian}/debian-security"
apt_cache="${HEADROOM_APT_CACHE:-}"

say() { printf '\033[1mverify-deb:\033[0m %s\n' "$*" >&2; }

for tool in mmdebstrap cmake cpack dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { say "missing $tool (./headroom.sh package installs it)"; exit 2; }
done

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  say "configuring (Release) in $build_dir"
  cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
if [ "${HEADROOM_SKIP_BUILD:-0}" != 1 ]; then
  say "building with $jobs jobs"
  cmake --build "$build_dir" --parallel "$jobs"
fi

say "making the DEB"
package_dir="$build_dir/packages"
rm -rf "$package_dir"
mkdir -p "$package_dir"
(cd "$build_dir" && cpack -G DEB -B "$package_dir" >&2)
deb="$(ls "$package_dir"/headroom_*.deb)"
say "$(basename "$deb"): $(du -h "$deb" | cut -f1) ($(stat -c %s "$deb") bytes)"
dpkg-deb --field "$deb" Depends Recommends >&2

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$deb" "$repo_root/packaging/verify-deb-inside.sh" "$stage/"

hooks=()
if [ -n "$apt_cache" ]; then
  mkdir -p "$apt_cache"
  hooks+=(--skip=essential/unlink
          --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\""
          --setup-hook="sync-in '$apt_cache' /var/cache/apt/archives")
fi
hooks+=(--customize-hook="mkdir -p \"\$1/tmp/headroom-verify\""
        --customize-hook="sync-in '$stage' /tmp/headroom-verify"
        --customize-hook='chroot "$1" sh /tmp/headroom-verify/verify-deb-inside.sh')
if [ -n "$apt_cache" ]; then
  hooks+=(--customize-hook="sync-out /var/cache/apt/archives '$apt_cache'")
fi

say "installing into a clean Debian 12 root (mmdebstrap, $mirror)"
started=$(date +%s)
mmdebstrap --variant=apt --quiet \
  --aptopt='Acquire::Retries "3"' \
  "${hooks[@]}" \
  bookworm /dev/null \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb $security_mirror bookworm-security main"
say "passed: the DEB installs into a clean Debian 12 and runs there ($(($(date +%s) - started)) s in all)"
