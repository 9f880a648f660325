#!/usr/bin/env bash
# Installs the Debian packages memheat builds, tests and runs with (idempotent).
# One list for the whole project: append what your area needs.
set -euo pipefail
PKGS=(
  build-essential cmake pkg-config file
  libzstd-dev libsqlite3-dev sqlite3 libjansson-dev libgsl-dev libdw-dev libiberty-dev
  oclgrind liboclgrind-dev llvm-14-dev ocl-icd-opencl-dev opencl-headers
  chromium
  clang-14 libclang-rt-14-dev   # tests/fuzz/libfuzzer.sh: the coverage-guided fuzzer (libFuzzer)
)
# HTML report browser tests (tests/report): node + npm, from Debian unless a
# node with npm is already installed (e.g. NodeSource's nodejs ships npm itself).
command -v npm >/dev/null 2>&1 || PKGS+=(nodejs npm)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
