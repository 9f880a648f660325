#!/usr/bin/env bash
# bench/realworld/launch_cost.sh -- ON THE GPU MACHINE: what a traced launch
# costs the program, by part. Runs the dynamic-shape decoder (decoder.py)
# plain, under the trace-only run with the default policy and with
# `--launch-policy shape`, and the training job (train.py) plain and traced,
# RUNS rounds, each traced run with MEMHEAT_CUDA_DEBUG=1, whose exit line
# gives the host time of the waits, the patching and the read-back.
# Per run: wall time, the training loop's own time (train_s), the losses'
# checksum and the collector's cost line, in RESULT_DIR/log.txt.
# docs/cuda-collector.md ("Cost of a traced launch") holds the figures.
#
# usage: bench/realworld/launch_cost.sh [BUILD_DIR] [RESULT_DIR]   (env RUNS=2)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/launch_cost}
RUNS=${RUNS:-2}
mkdir -p "$R"
. scripts/gpu-env.sh
mh_gpu_build "$B" "$R/build.log" memheat memheat_cuda memheat_cuda_patch memheat_cupti >"$R/build.txt" 2>&1 ||
  { cat "$R/build.txt"; exit 1; }
M=$B/memheat
L=$R/log.txt
: >"$L"
run() { # tag command...
  local tag=$1 t0 t1 rc
  shift
  t0=$(date +%s%N)
  timeout 300 "$@" >"$R/$tag.out" 2>"$R/$tag.err"
  rc=$?
  t1=$(date +%s%N)
  printf "%s rc=%s wall=%s ms loops=%s losses=%s\n" "$tag" "$rc" "$(((t1 - t0) / 1000000))" \
    "$(grep -o 'train_s [0-9.]*' "$R/$tag.err" | awk '{printf "%s,", $2}')" \
    "$(grep -h '^losses' "$R/$tag.out" | sort -u | md5sum | cut -c1-8)" | tee -a "$L"
  grep -h "memheat-cuda: traced" "$R/$tag.err" | tee -a "$L"
}
export MEMHEAT_CUDA_DEBUG=1
for i in $(seq 1 "$RUNS"); do
  run "dplain$i" python3 bench/realworld/decoder.py
  run "dcfg$i" "$M" run -q --no-timing -o "$R/dcfg$i" -- python3 bench/realworld/decoder.py
  run "dshape$i" "$M" run -q --no-timing --launch-policy shape -o "$R/dshape$i" -- python3 bench/realworld/decoder.py
  run "tplain$i" python3 bench/realworld/train.py
  run "tcfg$i" "$M" run -q --no-timing -o "$R/tcfg$i" -- python3 bench/realworld/train.py
done
