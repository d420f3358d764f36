#!/usr/bin/env bash
# Headroom developer entry point: installs what is missing, builds, runs or tests.
#
#   ./headroom.sh run     install deps, build (Release), start the app with the sample project
#                         (headless training with headroom-cli when there is no display)
#   ./headroom.sh test    install deps, build (Release), run the whole suite through ctest
#   ./headroom.sh deps    only install the Debian packages that are missing
#   ./headroom.sh build   only configure and build (Release)
#   ./headroom.sh package build the Linux packages (DEB, RPM, TGZ) into build/release/packages,
#                         install the DEB into a clean Debian 12 root and run it there, validate
#                         the desktop file and metainfo, and compile the NSIS script
#   ./headroom.sh test --torch2
#                         build and run the whole suite against LibTorch 2.6 and Qt 6.8 inside a
#                         Debian 13 root (made once by mmdebstrap; the host is not changed)
#   ./headroom.sh check-cuda
#                         compile the engine and headroom-cli against Debian 13's CUDA LibTorch
#                         2.6 and CUDA 12.4 (no GPU needed; tests/gpu/ runs on a GPU machine)
#
# Environment: HEADROOM_BUILD_DIR (default build/release), HEADROOM_JOBS (default: all cores).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${HEADROOM_BUILD_DIR:-$repo_root/build/release}"
jobs="${HEADROOM_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Every package comes from Debian 12. libopenblas0-pthread matters: without it LibTorch falls
# back to reference BLAS and trains ~17x slower. qt6-qpa-plugins holds the xcb platform plugin
# (a real window), fonts-dejavu-core gives text to offscreen and Xvfb rendering. python3-torch
# (the same LibTorch build) runs the independent Python reference of the pretrained-model tests,
# python3-jinja2 the reference renderer of the chat-template tests.
# libgloo-dev holds the gloo headers that c10d's ProcessGroupGloo.hpp includes: without them
# the build has no distributed training (train --nproc).
packages=(
  cmake g++ ninja-build ccache git
  qt6-base-dev qt6-tools-dev qt6-l10n-tools qt6-svg-dev libqt6sql6-sqlite qt6-qpa-plugins
  libqcustomplot-dev libqcustomplot2.1-qt6
  libtorch-dev libopenblas0-pthread
  libsqlite3-dev nlohmann-json3-dev libcli11-dev libsentencepiece-dev libpcre2-dev libicu-dev
  libgloo-dev
  fonts-dejavu-core xvfb xauth
  python3-torch python3-sentencepiece python3-jinja2
)

# Only `package` needs these: a clean Debian root, dpkg-shlibdeps, rpmbuild, makensis and the
# freedesktop validators.
package_packages=(mmdebstrap dpkg-dev rpm nsis desktop-file-utils appstream)
# `test --torch2` and `check-cuda` build inside Debian 13 roots made by mmdebstrap.
debian13_packages=(mmdebstrap)

say() { printf '\033[1mheadroom:\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    say "need root to install packages: run as root or install sudo"
    exit 1
  fi
}

missing_packages() {
  local pkg
  for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
      printf '%s\n' "$pkg"
    fi
  done
}

install_deps() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "this script installs Debian packages; on other systems install the equivalents of: ${packages[*]}"
    return 0
  fi
  local missing
  mapfile -t missing < <(missing_packages)
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  say "installing missing packages: ${missing[*]}"
  # Refresh the package lists only when apt does not know a package we need.
  local pkg needs_update=0
  for pkg in "${missing[@]}"; do
    if ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      needs_update=1
      break
    fi
  done
  if [ "$needs_update" -eq 1 ]; then
    as_root apt-get update -q
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# build [TARGET...]: everything (the test suite included), or only the named targets.
build() {
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    say "configuring (Release) in $build_dir"
    cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  if [ "$#" -gt 0 ]; then
    say "building $* with $jobs jobs"
    cmake --build "$build_dir" --parallel "$jobs" --target "$@"
  else
    say "building with $jobs jobs"
    cmake --build "$build_dir" --parallel "$jobs"
  fi
}

has_display() {
  [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ "$(uname -s)" = Darwin ]
}

# The bundled sample: a small GPT on generated stories (resources/sample).
sample_project() {
  local sample_dir="$build_dir/sample"
  local project="$sample_dir/story.headroom"
  if [ ! -f "$project" ]; then
    mkdir -p "$sample_dir"
    "$build_dir/app/headroom-cli" new "$project" --recipe gpt \
      --data "$repo_root/resources/sample/corpus.txt" \
      --config "$repo_root/resources/sample/sample-gpt.json" >&2
  fi
  printf '%s\n' "$project"
}

run_app() {
  local project
  project="$(sample_project)"
  if has_display; then
    say "starting Headroom with the sample project $project"
    exec "$build_dir/app/headroom" "$project"
  fi
  say "no display found (DISPLAY and WAYLAND_DISPLAY are unset): training the sample project headless"
  "$build_dir/app/headroom-cli" devices
  "$build_dir/app/headroom-cli" train "$project"
  "$build_dir/app/headroom-cli" runs "$project"
}

build_packages() {
  say "validating the desktop file and the AppStream metainfo"
  desktop-file-validate "$repo_root/packaging/linux/io.headroom.Headroom.desktop"
  appstreamcli validate --no-net "$repo_root/packaging/linux/io.headroom.Headroom.metainfo.xml"
  HEADROOM_BUILD_DIR="$build_dir" HEADROOM_JOBS="$jobs" "$repo_root/packaging/verify-deb.sh"
  say "making the TGZ and RPM"
  (cd "$build_dir" && cpack -G "TGZ;RPM" -B "$build_dir/packages")
  # On Linux the NSIS installer holds Linux binaries: this only proves the script compiles.
  say "compiling the NSIS installer script (syntax check: it holds Linux binaries)"
  (cd "$build_dir" && cpack -G NSIS -B "$build_dir/packages/nsis-check")
  say "packages in $build_dir/packages:"
  ls -l "$build_dir/packages" >&2
}

run_tests() {
  say "running the test suite"
  cd "$build_dir"
  QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$jobs"
}

command="${1:-}"
case "$command" in
  # The app and the CLI only: the test executables are `test`'s to build. Without a display
  # the sample trains with headroom-cli alone, so the app is not built then.
  run)
    install_deps
    if has_display; then build headroom headroom-cli; else build headroom-cli; fi
    run_app
    ;;
  test)
    if [ "${2:-}" = --torch2 ]; then
      packages=("${debian13_packages[@]}"); install_deps
      exec "$repo_root/tests/debian13/debian13.sh" test
    fi
    install_deps; build; run_tests
    ;;
  check-cuda)
    packages=("${debian13_packages[@]}"); install_deps
    exec "$repo_root/tests/debian13/debian13.sh" check-cuda
    ;;
  deps) install_deps ;;
  build) install_deps; build ;;
  package) packages+=("${package_packages[@]}"); install_deps; build; build_packages ;;
  *)
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
