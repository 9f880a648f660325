#!/usr/bin/env bash
# Run HERE (the CPU machine with apt): downloads the Debian packages memheat
# links into .gpudeps/, which a device `run` carries (carry: [".gpudeps"]).
# The GPU machine reaches no package registry, so this is how it gets them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpudeps
cd .gpudeps
apt-get download -q libzstd-dev libzstd1 libsqlite3-dev libsqlite3-0 libjansson-dev libjansson4 \
  libgsl-dev libgsl27 libgslcblas0 libdw-dev libdw1 libelf-dev libelf1 libiberty-dev 2>&1 | tail -1
ls
