#!/usr/bin/env bash
# gpu-verdicts.sh -- ON THE GPU MACHINE (issue 15): the verdict memheat gives
# each CUDA example kernel, with its figures, beside what Nsight Compute
# measures on the same kernel (duration, DRAM and SM throughput as % of peak,
# waves per SM, achieved occupancy, DRAM bytes). scripts/verdict_vs_ncu.py
# checks each verdict against the ncu figures by the verdict's own rule
# (docs/timing.md, "Verdicts") and prints one line per kernel.
#   memheat: `memheat run --counters` (timing + hardware counters + trace)
#   ncu:     `--clock-control none` (the card as found), -c 60 launches
# usage: scripts/gpu-verdicts.sh [BUILD_DIR] [RESULT_DIR]   (env CASES="gemm spmv ...")
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/verdicts}
mkdir -p "$R"
. scripts/gpu-env.sh
if [ ! -x "$B/memheat" ] || [ ! -x "$B/examples/cuda/gemm" ]; then
  mh_gpu_build "$B" "$R/build.log" memheat memheat_cuda memheat_cupti ex_cuda_gemm ex_cuda_spmv ex_cuda_gramschmidt \
    ex_cuda_smem_private ex_cuda_smem_broadcast ex_cuda_coalesced || { echo "FAIL build"; exit 1; }
fi
M=$B/memheat
E=$B/examples/cuda
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
METRICS=$METRICS,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__waves_per_multiprocessor
METRICS=$METRICS,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes.sum
METRICS=$METRICS,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
cmd_of() {
  case $1 in
    gemm) echo "$E/gemm both 512" ;;
    spmv) echo "$E/spmv 65536" ;;
    gramschmidt) echo "$E/gramschmidt 128" ;;
    smem_private) echo "$E/smem_private 1048576" ;;
    smem_broadcast) echo "$E/smem_broadcast 1048576" ;;
    coalesced) echo "$E/coalesced 1048576 50" ;;
    coalesced_big) echo "$E/coalesced 67108864 20" ;;
  esac
}
CASES=${CASES:-"gemm spmv gramschmidt smem_private smem_broadcast coalesced coalesced_big"}
fail=0
for c in $CASES; do
  # shellcheck disable=SC2046
  timeout 150 "$M" run --counters -o "$R/$c" -- $(cmd_of "$c") >"$R/$c.out" 2>"$R/$c.err" ||
    { echo "FAIL $c: memheat exit $? ($(tail -1 "$R/$c.err"))"; fail=1; continue; }
  # shellcheck disable=SC2046
  timeout 200 "$NCU" --csv --print-units base --print-kernel-base mangled --clock-control none -c 60 \
    --metrics "$METRICS" $(cmd_of "$c") >"$R/$c.ncu.csv" 2>"$R/$c.ncu.err" ||
    { echo "FAIL $c: ncu exit $?"; tail -3 "$R/$c.ncu.err"; fail=1; continue; }
  python3 scripts/verdict_vs_ncu.py "$c" "$R/$c.mhdb" "$R/$c.ncu.csv" || fail=1
done
[ $fail -eq 0 ] && echo "ALL VERDICTS AGREE" || echo "SOME VERDICTS DISAGREE OR FAILED"
exit $fail
