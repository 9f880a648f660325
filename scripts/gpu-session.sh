#!/usr/bin/env bash
# gpu-session.sh -- ON THE GPU MACHINE, for one device call of at most 10
# minutes: builds everything once, then runs the GPU checks in order of
# priority, each under its own time limit, so that a call cut short still
# returns what finished. Results in RESULT_DIR (default $OUT): session.log
# plus the oracle's oracle.md / oracle.json / oracle.log / raw.tar.gz.
#   0. bench/overhead/onerun_hang.sh: one run on a multi-threaded, multi-stream
#      program (it hung once): stacks on a hang
#   1. scripts/gpu-check.sh: every CUDA example plain and under `memheat run`
#      (same outputs; heat maps against the CUTHERMO patterns)
#   1b. the gemm example's findings named by kernel argument
#   2. the PyTorch training job once under the default run: memheat's own
#      peak memory, the one-run timing file's kernels and copies
#   3. bench/overhead/overlap_diag.sh: stream overlap (plain, --no-timing, one run)
#   3b. bench/multiproc/run.sh: two programs at once (x20), torch spawn
#   4. bench/realworld/run.sh (what time is left; ORACLE=1: bench/oracle/run.sh instead)
# usage: scripts/gpu-session.sh [BUILD_DIR] [RESULT_DIR]   env: TOTAL_S=540
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp/gpu-session}}
TOTAL_S=${TOTAL_S:-540}
mkdir -p "$R"
L=$R/session.log
T0=$SECONDS
say() { echo "[$((SECONDS - T0))s] $*" | tee -a "$L"; }
left() { echo $((TOTAL_S - (SECONDS - T0))); }
. scripts/gpu-env.sh
say "build ($B)"
if ! mh_gpu_build "$B" /tmp/gs-build.log memheat memheat_cuda memheat_cupti split_vecadd ex_cuda_gemm ex_cuda_spmv \
    ex_cuda_gramschmidt ex_cuda_smem_private ex_cuda_smem_broadcast ex_cuda_coalesced oracle_kernels | tee -a "$L"; then
  say "FAIL build"; exit 1
fi
cmake --build "$B" -j"$(nproc)" --target oracle_libs >>/tmp/gs-build.log 2>&1 || say "oracle_libs not built"
M=$B/memheat
say "0. one run on split_vecadd"
LIMIT_S=25 VARIANTS="full nolaunches nocopies entry" timeout 150 bench/overhead/onerun_hang.sh "$B" "$R/hang" >>"$L" 2>&1
say "hang check exit $?"
say "1. gpu-check.sh"
timeout 150 scripts/gpu-check.sh "$B" /tmp/gs-check >/tmp/gs-check.log 2>&1
say "gpu-check exit $?"
grep -E "^(PASS|FAIL|ALL|SOME|==)" /tmp/gs-check.log | tail -40 >>"$L"
say "1b. kernel-argument names (gemm example, default run)"
timeout 40 "$M" run -q -o /tmp/gs-gemm -- "$B/examples/cuda/gemm" both 512 >/dev/null 2>>"$L"
"$M" analyze /tmp/gs-gemm.mhdb 2>&1 | grep -m10 -E "arg [0-9]|shared" >>"$L"
"$M" analyze --json /tmp/gs-gemm.mhdb 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print('objects with arg:', sum(1 for o in d.get('objects', []) if o.get('arg')))" >>"$L" 2>&1
say "2. training job, default run"
timeout 90 "$M" run --keep-trace -o /tmp/gs-train -- python3 bench/realworld/train.py >/tmp/gs-train.out 2>/tmp/gs-train.err
say "train exit $?"
grep -E "^memheat:|warning|error" /tmp/gs-train.err | tail -8 >>"$L"
tail -3 /tmp/gs-train.out >>"$L"
for f in /tmp/gs-train*.timing.json; do [ -f "$f" ] && python3 bench/overhead/timing_summary.py "$f" >>"$L" 2>&1; done
"$M" info /tmp/gs-train.mhdb 2>&1 | head -8 >>"$L"
say "3. overlap"
RUNS=3 MODES="plain notiming one" timeout 150 bench/overhead/overlap_diag.sh "$B" /tmp/gs-ov >>"$L" 2>&1
say "overlap exit $?"
say "3b. several processes (bench/multiproc/run.sh, RUNS=${MP_RUNS:-20})"
RUNS=${MP_RUNS:-20} timeout 150 bench/multiproc/run.sh "$B" /tmp/gs-mp >/tmp/gs-mp.log 2>&1
say "multiproc exit $?"
grep -vE "^\s*$" /tmp/gs-mp.log | tail -20 >>"$L"
if [ -n "${ORACLE:-}" ]; then
  say "4. oracle ($(left) s left)"
  b=$(( $(left) - 60 ))
  [ $b -gt 30 ] && SKIP_BUILD=1 BUDGET_S=$b STEP_S=90 timeout $(( $(left) - 10 )) bench/oracle/run.sh "$B" "$R" >/dev/null 2>&1
  say "oracle exit $?"
else
  say "4. realworld ($(left) s left)"
  RUNS=${RW_RUNS:-3} WORKLOADS=${RW_WORKLOADS:-"train blas gemm spmv"} MODES=${RW_MODES:-"plain one notiming"} \
    timeout $(( $(left) - 15 )) bench/realworld/run.sh "$B" /tmp/gs-rw >/dev/null 2>&1
  say "realworld exit $?"
  cat /tmp/gs-rw/summary.txt >>"$L" 2>/dev/null
  cp /tmp/gs-rw/runs.tsv "$R/realworld-runs.tsv" 2>/dev/null
fi
say "done"
