#!/usr/bin/env bash
# gpu-check-patterns.sh -- on the GPU machine: pattern-detection precision and
# recall over the CUDA lines of tests/analyses/labeled.tsv (each example run
# under `memheat run`, its trace analysed, findings compared with the labels).
#
# usage: scripts/gpu-check-patterns.sh [BUILD_DIR] [RESULT_DIR]
#   BUILD_DIR   a build with the CUDA collector and examples (default build-gpu,
#               as configured by scripts/gpu-check.sh; built here if missing)
#   RESULT_DIR  default $OUT/gpu-patterns or /tmp/memheat-gpu-patterns
# Exit 0 when every labeled pattern is found and no control has a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/gpu-patterns}
mkdir -p "$R"
if [ -d .gpudeps ] && [ -f scripts/gpu-env.sh ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$B/memheat" ] || [ ! -x "$B/tests/analyses/test_labeled" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
    -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -20 "$R/build.log"; echo "FAIL build"; exit 1; }
fi
"$B/tests/analyses/test_labeled" --labels tests/analyses/labeled.tsv --source cuda --memheat "$B/memheat" \
  --examples-dir "$B/examples/cuda" --workdir "$R" | tee "$R/labeled.txt"
exit "${PIPESTATUS[0]}"
