#!/usr/bin/env bash
# Builds and tests Headroom against Debian 13's LibTorch 2.6 (and its CUDA build) inside a
# Debian 13 root made by mmdebstrap. The host is not changed: the root lives in a cache folder,
# is made once and reused, and the trixie packages never enter the host's apt state.
#
#   tests/debian13/debian13.sh test        build everything (GUI and tests included) against
#                                          LibTorch 2.6 (CPU) and Qt 6.8, run the whole suite
#                                          (./headroom.sh test --torch2)
#   tests/debian13/debian13.sh check-cuda  compile the engine and headroom-cli
#                                          against libtorch-cuda 2.6 and CUDA 12.4 with every
#                                          CUDA path and c10d's NCCL and Gloo backends enabled
#                                          (./headroom.sh check-cuda); runs
#                                          nothing (there is no GPU here)
#   tests/debian13/debian13.sh root [cpu|cuda]    only make (or update) a root
#   tests/debian13/debian13.sh shell [cpu|cuda]   an interactive shell in a root
#   tests/debian13/debian13.sh run CMD [ARG]...   run one command in the CPU root, in /src
#                                          (the environment is cleared: pass variables
#                                          with env, e.g. run env BUILD_DIR=build/torch2 ...)
#
# Environment:
#   HEADROOM_ROOTS_DIR     where the roots, their ccache and the apt cache live
#                          (default ${XDG_CACHE_HOME:-$HOME/.cache}/headroom)
#   HEADROOM_DEBIAN_MIRROR Debian mirror (default http://deb.debian.org/debian)
#   HEADROOM_JOBS          build and test jobs (default: all cores)
#   HEADROOM_TORCH2_TESTS  a ctest -R regex to run only some tests (default: all)
#
# Needs root (or sudo) for mmdebstrap, the bind mounts and chroot; ./headroom.sh installs
# mmdebstrap on the host. Build trees: build/torch2 and build/cuda in the repository, seen as
# /src inside the root so that ccache hits across clones.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
roots_dir="${HEADROOM_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/headroom}"
mirror="${HEADROOM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${mirror%/debian}/debian-security"
jobs="${HEADROOM_JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { printf '\033[1mdebian13:\033[0m %s\n' "$*" >&2; }

# Both roots: the build tools and the engine's libraries. The CPU root adds the GUI stack,
# python3-torch 2.6 (the Python references of the pretrained-model tests) and Xvfb; the CUDA
# root, which builds only the engine and headroom-cli, LibTorch's CUDA build and nvcc.
common_packages=(
  cmake g++ ninja-build ccache git pkgconf ca-certificates
  libsqlite3-dev nlohmann-json3-dev libcli11-dev libsentencepiece-dev libpcre2-dev libicu-dev
)
cpu_packages=(
  qt6-base-dev qt6-tools-dev qt6-l10n-tools libqt6svg6-dev libqt6sql6-sqlite
  libtorch-dev libopenblas0-pthread qt6-qpa-plugins libqcustomplot-dev fonts-dejavu-core
  xvfb xauth python3-torch libgloo-dev
)
# The headers c10d's backends include: libnccl-dev holds nccl.h (libtorch-cuda-dev pulls only the
# libnccl2 runtime), libgloo-cuda-dev the gloo headers of the CUDA build of gloo that
# libtorch-cuda links (libgloo-dev conflicts with it). Without them that backend is not built.
cuda_packages=(libtorch-cuda-dev nvidia-cuda-toolkit libnccl-dev libgloo-cuda-dev)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    say "need root for mmdebstrap, bind mounts and chroot: run as root or install sudo"
    exit 1
  fi
}

packages_for() {
  case "$1" in
    cpu) printf '%s\n' "${common_packages[@]}" "${cpu_packages[@]}" ;;
    cuda) printf '%s\n' "${common_packages[@]}" "${cuda_packages[@]}" ;;
  esac
}

# ensure_root FLAVOUR: makes $roots_dir/debian13-FLAVOUR once. A stamp holding the package list
# says whether an existing root is current; a changed list installs what is missing in place.
ensure_root() {
  local flavour="$1" root="$roots_dir/debian13-$1"
  local wanted
  wanted="$(packages_for "$flavour" | sort | tr '\n' ' ')"
  if [ -f "$root/.headroom-packages" ]; then
    if [ "$(cat "$root/.headroom-packages")" = "$wanted" ]; then
      return 0
    fi
    say "the package list of $root changed: installing what is missing"
    in_root "$flavour" bash -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"' \
      apt $wanted
    printf '%s' "$wanted" >"$root/.headroom-packages"
    return 0
  fi
  command -v mmdebstrap >/dev/null || {
    say "missing mmdebstrap: ./headroom.sh deps installs it (apt-get install mmdebstrap)"
    exit 2
  }
  local partial="$root.partial" started
  started=$(date +%s)
  say "making the Debian 13 root $root (once; about 1-2 minutes for cpu, 5-10 for cuda)"
  # mmdebstrap wants the target's parent to exist (on a fresh machine nothing has made the cache
  # folder yet).
  mkdir -p "$roots_dir"
  as_root rm -rf "$partial"
  local hooks=()
  if [ "$flavour" = cuda ]; then
    # nvidia-cudnn's postinst downloads cuDNN from developer.download.nvidia.com, which a build
    # machine may not reach (this one does not). The compile check needs no cuDNN: a stub
    # stands in for the download script, and check-cuda links with --allow-shlib-undefined.
    hooks+=(--essential-hook='chroot "$1" dpkg-divert --local --rename --divert /usr/sbin/update-nvidia-cudnn.headroom-real --add /usr/sbin/update-nvidia-cudnn'
      --essential-hook='printf "#!/bin/sh\nexit 0\n" >"$1/usr/sbin/update-nvidia-cudnn" && chmod +x "$1/usr/sbin/update-nvidia-cudnn"')
  fi
  as_root mmdebstrap --variant=apt --quiet \
    --aptopt='Acquire::Retries "3"' \
    "${hooks[@]}" \
    --include="$(packages_for "$flavour" | tr '\n' ',' | sed 's/,$//')" \
    trixie "$partial" \
    "deb $mirror trixie main contrib non-free" \
    "deb $mirror trixie-updates main contrib non-free" \
    "deb $security_mirror trixie-security main contrib non-free"
  printf '%s' "$wanted" | as_root tee "$partial/.headroom-packages" >/dev/null
  as_root mv "$partial" "$root"
  say "root ready in $(($(date +%s) - started)) s"
}

# in_root FLAVOUR CMD...: runs CMD in the root with the repository at /src and the root's ccache
# at /ccache. The mounts live in a private mount namespace and vanish with it.
in_root() {
  local flavour="$1"
  shift
  local root="$roots_dir/debian13-$flavour"
  mkdir -p "$roots_dir/ccache-debian13-$flavour"
  # shellcheck disable=SC2016
  local inside='
    set -e
    root="$1" repo="$2" ccache_dir="$3" jobs="$4"
    shift 4
    mount --make-rprivate /
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root/src" "$root/ccache"
    mount --bind "$repo" "$root/src"
    mount --bind "$ccache_dir" "$root/ccache"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # No address-space randomisation: GCC 14 maps the Torch precompiled header at a fixed
    # address and fails now and then ("PCH allocation failure") when that address is taken.
    exec setarch "$(uname -m)" --addr-no-randomize chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      CCACHE_DIR=/ccache CCACHE_MAXSIZE=5G HEADROOM_JOBS="$jobs" TERM="${TERM:-dumb}" "$@"'
  as_root unshare --mount --fork bash -c "$inside" in_root "$root" "$repo_root" \
    "$roots_dir/ccache-debian13-$flavour" "$jobs" "$@"
}

run_suite() {
  ensure_root cpu
  local filter="${HEADROOM_TORCH2_TESTS:-}"
  say "building against LibTorch 2.6 and Qt 6.8 in build/torch2"
  in_root cpu bash -c '
    set -e
    cd /src
    if [ ! -f build/torch2/CMakeCache.txt ]; then
      cmake -S . -B build/torch2 -G Ninja -DCMAKE_BUILD_TYPE=Release
    fi
    python3 -c "import torch; print(\"python3-torch\", torch.__version__)"
    cmake --build build/torch2 --parallel "$HEADROOM_JOBS"
    cd build/torch2
    if [ -n "$1" ]; then
      QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$HEADROOM_JOBS" -R "$1"
    else
      QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$HEADROOM_JOBS"
    fi
  ' suite "$filter"
}

check_cuda() {
  ensure_root cuda
  say "compiling the engine and headroom-cli against libtorch-cuda 2.6 (build/cuda)"
  in_root cuda bash -c '
    set -e
    cd /src
    if [ ! -f build/cuda/CMakeCache.txt ]; then
      cmake -S . -B build/cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEADROOM_GUI=OFF \
        -DHEADROOM_REQUIRE_CUDA=ON -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined
    fi
    cmake --build build/cuda --parallel "$HEADROOM_JOBS"
    grep -q "^HEADROOM_CUDA_BUILT:INTERNAL=ON" build/cuda/CMakeCache.txt
    # distributed.backend=nccl (and gloo) must be compiled in, not refused.
    grep -q "^HEADROOM_NCCL_BUILT:INTERNAL=ON" build/cuda/CMakeCache.txt ||
      { echo "check-cuda: the c10d NCCL backend was not compiled (see the configure output)"; exit 1; }
    grep -q "^HEADROOM_GLOO_BUILT:INTERNAL=ON" build/cuda/CMakeCache.txt ||
      { echo "check-cuda: the c10d Gloo backend was not compiled (see the configure output)"; exit 1; }
    echo "check-cuda: compiled with CUDA paths, c10d NCCL and Gloo enabled ($(nvcc --version | tail -1))"
  '
}

case "${1:-}" in
  test) run_suite ;;
  check-cuda) check_cuda ;;
  root) ensure_root "${2:-cpu}" ;;
  shell)
    ensure_root "${2:-cpu}"
    in_root "${2:-cpu}" bash -c 'cd /src && exec bash -i'
    ;;
  run)
    shift
    (($# > 0)) || { say "run needs a command"; exit 2; }
    ensure_root cpu
    in_root cpu bash -c 'cd /src && exec "$@"' run "$@"
    ;;
  *)
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
