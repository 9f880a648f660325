#!/usr/bin/env bash
# run_device.sh -- build camp_bench for sm_90 and run it on the GPU machine.
# Usage (device machine, repo root): bench/camping/run_device.sh OUTDIR [MODES] [extra camp_bench args]
# MODES: comma list of probe,sweep,validate (default all three).  Writes
# OUTDIR/{probe,hotscan,sweep,validate}.csv and OUTDIR/camp_log.txt.
set -u
out=${1:?usage: run_device.sh OUTDIR [MODES] [args]}
modes=${2:-probe,sweep,validate}
shift; [ $# -gt 0 ] && shift
mkdir -p "$out"
log="$out/camp_log.txt"
here=$(dirname "$0")
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  "$nvcc" -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Xptxas -v \
      -o /tmp/camp_bench "$here/camp_bench.cu" 2>&1 | grep -E "registers|error" | head -20
  cuobjdump -sass /tmp/camp_bench 2>/dev/null | grep -oE "(LDG|STG)[.A-Z0-9]*" | sort | uniq -c
  echo "== modes $modes"
  timeout 420 /tmp/camp_bench --mode "$modes" --out "$out" "$@"
  echo "== camp_bench rc=$?"
} 2>&1 | tee "$log"
