#!/usr/bin/env bash
# run.sh -- memheat's overhead next to the usual tools, on the GPU machine.
#
# For each workload (the CUDA examples and a PyTorch/cuBLAS matrix product),
# REPS runs (default 5) of each mode, interleaved:
#   plain     the program alone
#   memheat   memheat run --no-timing --keep-trace (default sampling: block 0 of
#             every launch), the whole tool: collector pass + profile import
#   collector the program with only the collector injected (CUDA_INJECTION64_PATH)
#   memcheck  compute-sanitizer --tool memcheck
#   ncu       ncu --clock-control none --section MemoryWorkloadAnalysis
# Reports median wall time per mode and its ratio to plain, the geometric
# means, and for memheat the traced kernels' GPU-time ratio: the sum of the
# collector's per-launch kernel times (mh_kernel_end.gpu_ns) over the
# program's own CUDA-event time of the same kernels without memheat.
#
# usage: bench/overhead/run.sh BUILD_DIR [RESULT_DIR]   (REPS=N, WORKLOADS="a b")
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:?usage: run.sh BUILD_DIR [RESULT_DIR]}
R=${2:-${OUT:-/tmp}/overhead}
REPS=${REPS:-5}
mkdir -p "$R/runs"
M=$B/memheat
E=$B/examples/cuda
LIB=$B/lib/memheat/libmemheat_cuda.so
TS=$R/trace_stats
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iinclude -Isrc -o "$TS" bench/overhead/trace_stats.c \
  "$B/libmemheat_core.a" -lzstd -lm 2>"$R/trace_stats.build.log" ||
  gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iinclude -Isrc -o "$TS" bench/overhead/trace_stats.c \
    src/trace/*.c src/util/*.c -lzstd -lm || { echo "cannot build trace_stats"; exit 1; }

# name | kernel regex for the GPU-time ratio | command
WL=(
  "gemm|gemm_v0|$E/gemm both 512"
  "spmv|spmv_csr|$E/spmv 65536"
  "gramschmidt|gs_kernel|$E/gramschmidt 64"
  "smem_private|smem_private_sum|$E/smem_private 1048576"
  "smem_broadcast|warp_broadcast_smem|$E/smem_broadcast 1048576"
  "coalesced|saxpy|$E/coalesced 1048576 50"
  "torch_matmul|gemm|GEMM|cutlass|sm90|xmma|python3 bench/overhead/matmul.py 2048 5"
)
MODES=(plain memheat collector memcheck ncu)
CSV=$R/runs.csv
echo "workload,mode,rep,rc,wall_s,gpu_ms" >"$CSV"

one() { # workload mode rep cmd
  local w=$1 mode=$2 rep=$3 cmd=$4 t0 t1 rc gpu=""
  local tag="$R/runs/${w}_${mode}_${rep}"
  t0=$(date +%s.%N)
  case $mode in
    plain) timeout ${RUN_TIMEOUT:-300} $cmd >"$tag.out" 2>"$tag.err"; rc=$? ;;
    memheat) timeout ${RUN_TIMEOUT:-300} "$M" run --no-timing --keep-trace -q -o "$tag" -- $cmd >"$tag.out" 2>"$tag.err"; rc=$? ;;
    collector) MEMHEAT_TRACE="$tag.mht" CUDA_INJECTION64_PATH=$LIB timeout ${RUN_TIMEOUT:-300} $cmd >"$tag.out" 2>"$tag.err"; rc=$? ;;
    memcheck) timeout ${RUN_TIMEOUT:-300} compute-sanitizer --tool memcheck $cmd >"$tag.out" 2>"$tag.err"; rc=$? ;;
    ncu) timeout ${RUN_TIMEOUT:-300} ncu --clock-control none --section MemoryWorkloadAnalysis -f -o "$tag" $cmd \
           >"$tag.out" 2>"$tag.err"; rc=$? ;;
  esac
  t1=$(date +%s.%N)
  if [ "$mode" = plain ]; then gpu=$(awk '/^gpu_ms/{print $2}' "$tag.err" | tail -1); fi
  echo "$w,$mode,$rep,$rc,$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}'),$gpu" >>"$CSV"
}

for entry in "${WL[@]}"; do
  w=${entry%%|*}; rest=${entry#*|}; cmd=${rest##*|}; kre=${rest%|*}
  case " ${WORKLOADS:-$w} " in *" $w "*) ;; *) continue ;; esac
  echo "== $w: $cmd"
  for rep in $(seq 1 "$REPS"); do
    for mode in "${MODES[@]}"; do one "$w" "$mode" "$rep" "$cmd"; done
  done
  # traced-kernel GPU time from the last memheat and collector traces
  for mode in memheat collector; do
    t="$R/runs/${w}_${mode}_${REPS}.mht"
    [ -f "$t" ] && "$TS" "$t" "$kre" >"$R/${w}_${mode}.stats" 2>&1
  done
  rm -f "$R"/runs/${w}_*.mht "$R"/runs/${w}_*.mhdb "$R"/runs/${w}_*.ncu-rep
done
python3 bench/overhead/summarize.py "$R" | tee "$R/summary.md"
