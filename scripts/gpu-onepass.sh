#!/usr/bin/env bash
# gpu-onepass.sh -- on the GPU machine: the default `memheat run` (one run of
# the program, traced and timed in the same process) against separate passes.
#   1. CUDA examples: outputs unchanged; the timing file of the one run holds
#      every launch with a GPU time and the copies; per-kernel medians of the
#      one run beside those of the separate timing run (timing_compare.py).
#   2. Stream overlap (issue 13 item 3): split_vecadd's pipelined time (copies
#      and kernels overlapped on streams) plain, under the default run and
#      under --no-timing; medians of RUNS runs each, interleaved.
# usage: scripts/gpu-onepass.sh [BUILD_DIR] [RESULT_DIR]   (env RUNS=3)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/onepass}
RUNS=${RUNS:-3}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
        -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
      cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti ex_cuda_gemm ex_cuda_coalesced \
        ex_cuda_spmv split_vecadd; } >"$R/build.log" 2>&1; then
  grep -E "error|Error" "$R/build.log" | head -30; echo "FAIL build"; exit 1
fi
M=$B/memheat
E=$B/examples/cuda
fail=0
check_case() { # name program args...
  local n=$1; shift
  "$@" >"$R/$n.plain.out" 2>&1
  "$M" run -q --passes one -o "$R/$n.one" -- "$@" >"$R/$n.one.out" 2>"$R/$n.one.err"; local rc1=$?
  "$M" run -q --passes separate -o "$R/$n.sep" -- "$@" >"$R/$n.sep.out" 2>"$R/$n.sep.err"; local rc2=$?
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "FAIL $n: exit $rc1 (one) $rc2 (separate)"; cat "$R/$n.one.err"; fail=1; return
  fi
  if ! diff -q <(grep -v -i "time\|ms\b" "$R/$n.plain.out") <(grep -v -i "time\|ms\b" "$R/$n.one.out") >/dev/null; then
    echo "FAIL $n: output differs under the one run"; fail=1
  fi
  cat "$R/$n.one.err"
  python3 scripts/timing_compare.py "$R/$n.one.timing.json" "$R/$n.sep.timing.json" || fail=1
}
check_case coalesced "$E/coalesced" 1048576 50
check_case gemm "$E/gemm" both 512
check_case spmv "$E/spmv" 65536

echo "== stream overlap: split_vecadd pipelined_ms (medians of $RUNS)"
V="$B/examples/split/split_vecadd --runs 3 --no-serial --no-cold"
for i in $(seq 1 "$RUNS"); do
  $V 2>&1 | grep RESULT | sed 's/^/plain /' >>"$R/overlap.txt"
  "$M" run -q --passes one -o "$R/vec_one" -- $V 2>>"$R/overlap.err" | grep RESULT | sed 's/^/one /' >>"$R/overlap.txt"
  "$M" run -q --no-timing -o "$R/vec_nt" -- $V 2>>"$R/overlap.err" | grep RESULT | sed 's/^/notiming /' \
    >>"$R/overlap.txt"
done
python3 - "$R/overlap.txt" <<'PY' || fail=1
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode = line.split()[0]
    m = re.search(r"pipelined_ms=([0-9.]+)", line)
    c = "check=ok" in line
    if m: rows.setdefault(mode, []).append((float(m.group(1)), c))
med = {k: statistics.median(v for v, _ in rows[k]) for k in rows}
for k in rows: print(f"{k}: pipelined_ms median {med[k]:.2f} over {len(rows[k])} runs, all checks ok: {all(c for _, c in rows[k])}")
bad = 0
for k in ("one", "notiming"):
    if k in med and "plain" in med:
        r = med[k] / med["plain"]
        print(f"{k} / plain = {r:.3f} ({'within' if r <= 1.05 else 'OVER'} 5%)")
        bad |= r > 1.05
sys.exit(0)
PY
[ $fail -eq 0 ] && echo "ALL PASS" || echo "SOME FAILED"
exit $fail
