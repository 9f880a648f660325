#!/usr/bin/env bash
# gpu-diagnoses.sh -- ON THE GPU MACHINE, one device call: what a user sees on
# real programs (issues 13, 14, 15), under the default run.
#   1. scripts/gpu-check.sh (every CUDA example, outputs as plain, heat maps,
#      shared arrays by name)
#   2. findings named by kernel argument: the gemm example and the PyTorch
#      training job (counts of findings with and without an argument name,
#      the top findings, the kernels' verdicts)
#   3. findings of the default launch policy against tracing every launch
#      (bench/realworld/compare_findings.py): the cuBLAS/cuSPARSE job and a
#      2-step training job
#   4. bench/multiproc/run.sh with MP_RUNS runs (default 5), incl. torchrun
#      DDP (NCCL on 2 GPUs, else Gloo with both ranks on one)
# usage: scripts/gpu-diagnoses.sh [BUILD_DIR] [RESULT_DIR]   env: TOTAL_S=540,
#   ONLY="1 2" (the steps to run; default all)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp/gpu-diag}}
TOTAL_S=${TOTAL_S:-540}
mkdir -p "$R"
L=$R/diagnoses.log
T0=$SECONDS
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
say() { echo "[$((SECONDS - T0))s] $*" | tee -a "$L"; }
. scripts/gpu-env.sh
say "build ($B)"
if ! mh_gpu_build "$B" /tmp/gd-build.log memheat memheat_cuda memheat_cupti split_vecadd ex_cuda_gemm ex_cuda_spmv \
    ex_cuda_gramschmidt ex_cuda_smem_private ex_cuda_smem_broadcast ex_cuda_coalesced | tee -a "$L"; then
  say "FAIL build"; exit 1
fi
M=$B/memheat
sq() { python3 -c "import sqlite3,sys; [print('|'.join(map(str,r))) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]" "$1" "$2"; }
args() { # profile: findings with/without an argument name, the top 8
  "$M" analyze --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d.get("findings", []) if x.get("kind") != "coalesced"]
g = [x for x in f if x.get("space") == "global"]
print("findings %d (global %d): global with an argument name %d, without %d" % (
    len(f), len(g), sum(1 for x in g if x.get("arg")), sum(1 for x in g if not x.get("arg"))))
for x in sorted(f, key=lambda x: -x.get("cost", 0))[:8]:
    a = x.get("arg") or {}
    print("  %-14s cost %-10.0f %-40.40s %s | %s" % (x["kind"], x["cost"], x["kernel"], x["space"],
          a.get("name") or x.get("label")))'
}
if want 1; then
say "1. gpu-check.sh"
timeout 150 scripts/gpu-check.sh "$B" /tmp/gd-check >/tmp/gd-check.log 2>&1
say "gpu-check exit $?"
grep -E "^(FAIL|ALL|SOME)|shared|named" /tmp/gd-check.log | tail -30 >>"$L"
fi
if want 2; then
say "2a. gemm example: names by argument"
timeout 40 "$M" run -q -o /tmp/gd-gemm -- "$B/examples/cuda/gemm" both 512 >/dev/null 2>>"$L"
args /tmp/gd-gemm.mhdb >>"$L" 2>&1
say "2b. PyTorch training job (default run)"
timeout 90 "$M" run -o /tmp/gd-train -- python3 bench/realworld/train.py >/tmp/gd-train.out 2>/tmp/gd-train.err
say "train exit $?"
grep -E "^memheat:" /tmp/gd-train.err | tail -4 >>"$L"
args /tmp/gd-train.mhdb >>"$L" 2>&1
echo "verdicts (kernel.bound): $(sq /tmp/gd-train.mhdb "SELECT COALESCE(bound,'-') || ' ' || COUNT(*) FROM kernel GROUP BY bound" | tr '\n' ',')" >>"$L"
grep -E "bound|latency|launch-bound|first-touch|small-grid" /tmp/gd-train.err | head -12 >>"$L"
"$M" report /tmp/gd-train.mhdb -o "$R/train-report.html" >/dev/null 2>>"$L" && say "train report written"
fi
if want 3; then
say "3. default launch policy against every launch"
for w in blas train2; do
  case $w in
    blas) P="python3 bench/realworld/sparse_blas.py" ;;
    train2) P="env STEPS=2 python3 bench/realworld/train.py" ;;
  esac
  timeout 100 "$M" run -q --no-timing -o /tmp/gd-$w-def -- $P >/dev/null 2>>"$L"
  timeout 150 "$M" run -q --no-timing --launch-policy all -o /tmp/gd-$w-all -- $P >/dev/null 2>>"$L"
  echo "-- $w: traced $(sq /tmp/gd-$w-def.mhdb "SELECT COUNT(*) FROM launch") (default) vs $(sq /tmp/gd-$w-all.mhdb "SELECT COUNT(*) FROM launch") (all)" >>"$L"
  python3 bench/realworld/compare_findings.py /tmp/gd-$w-def.mhdb /tmp/gd-$w-all.mhdb >>"$L" 2>&1
  say "$w compared"
done
fi
if want 4; then
say "4. several processes"
RUNS=${MP_RUNS:-5} timeout $(( TOTAL_S - (SECONDS - T0) - 10 )) bench/multiproc/run.sh "$B" /tmp/gd-mp >/tmp/gd-mp.log 2>&1
say "multiproc exit $?"
grep -vE "^\s*$" /tmp/gd-mp.log | tail -24 >>"$L"
fi
say "done"
