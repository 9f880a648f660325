#!/usr/bin/env bash
# bench/realworld/run.sh -- memheat on real programs, on the GPU machine, in one go.
#
# Workloads: train (PyTorch transformer training, train.py), blas (cuBLAS +
# cuSPARSE through PyTorch, sparse_blas.py), and the CUDA examples (gemm, spmv,
# gramschmidt, coalesced). Modes: plain, memheat (default `memheat run`),
# notiming (`memheat run --no-timing`), one / separate (`--passes one` /
# `--passes separate`, whichever the default is), all (`--launch-policy all --no-timing`:
# every launch traced), memcheck (compute-sanitizer), ncu (Nsight Compute,
# bounded with -c so it finishes). Runs are interleaved (mode order inside each
# round), RUNS rounds (default 3); medians per (workload, mode) in
# $R/summary.txt; every run's wall time, exit status and output checksum in
# $R/runs.tsv. Program outputs (losses, checksums) are compared with plain.
#
# usage: bench/realworld/run.sh [BUILD_DIR] [RESULT_DIR]
#   env: RUNS=3 WORKLOADS="train blas gemm spmv gramschmidt coalesced"
#        MODES="plain memheat notiming memcheck ncu" NCU_COUNT=54 TAG=prefix-of-copies-in-$OUT
# Findings of the default against every-launch tracing: compare_findings.py.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-/tmp/realworld}
RUNS=${RUNS:-3}
WORKLOADS=${WORKLOADS:-"train blas gemm spmv gramschmidt coalesced"}
MODES=${MODES:-"plain memheat notiming memcheck ncu"}
NCU_COUNT=${NCU_COUNT:-54}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$B/memheat" ] || [ -n "${REBUILD:-}" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 \
    >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cuda_patch memheat_cupti \
      ex_cuda_gemm ex_cuda_spmv ex_cuda_gramschmidt ex_cuda_coalesced >>"$R/build.log" 2>&1 ||
    { tail -30 "$R/build.log"; echo "FAIL build"; exit 1; }
fi
M=$B/memheat
E=$B/examples/cuda
cmd_of() { # workload -> command line
  case $1 in
    train) echo "python3 bench/realworld/train.py" ;;
    blas) echo "python3 bench/realworld/sparse_blas.py" ;;
    gemm) echo "$E/gemm both 512" ;;
    spmv) echo "$E/spmv" ;;
    gramschmidt) echo "$E/gramschmidt" ;;
    coalesced) echo "$E/coalesced" ;;
  esac
}
prefix_of() { # mode workload -> wrapper
  case $1 in
    plain) echo "" ;;
    memheat) echo "$M run -q -o $R/memheat_$2 --" ;;
    notiming) echo "$M run -q --no-timing -o $R/notiming_$2 --" ;;
    one) echo "$M run -q --passes one -o $R/one_$2 --" ;;
    separate) echo "$M run -q --passes separate -o $R/separate_$2 --" ;;
    all) echo "$M run -q --no-timing --launch-policy all -o $R/all_$2 --" ;;
    memcheck) echo "compute-sanitizer --tool memcheck --print-limit 1" ;;
    ncu) echo "ncu --section MemoryWorkloadAnalysis -c $NCU_COUNT --clock-control none" ;;
  esac
}
printf "workload\tmode\trun\twall_s\trc\toutput\tprofile_bytes\n" >"$R/runs.tsv"
for run in $(seq 1 "$RUNS"); do
  for w in $WORKLOADS; do
    for m in $MODES; do
      out="$R/out_${w}_${m}_$run.txt"
      t0=$(date +%s%N)
      timeout 590 $(prefix_of "$m" "$w") $(cmd_of "$w") >"$out" 2>"$R/err_${w}_${m}_$run.txt"
      rc=$?
      t1=$(date +%s%N)
      # the default runs the program twice (timing, trace): compare the distinct result lines
      sum=$(grep -E "^(losses|checksum|result|ok|max_err|sum)" "$out" | sort -u | md5sum | cut -c1-8)
      prof=$(stat -c %s "$R/${m}_$w.mhdb" 2>/dev/null || echo 0)
      case $m in memheat|notiming|all|one|separate) ;; *) prof=0 ;; esac
      printf "%s\t%s\t%s\t%.3f\t%s\t%s\t%s\n" "$w" "$m" "$run" "$(( (t1 - t0) / 1000000 ))e-3" "$rc" "$sum" "$prof" >>"$R/runs.tsv"
    done
  done
done
python3 bench/realworld/summarize.py "$R"
