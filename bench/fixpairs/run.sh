#!/usr/bin/env bash
# bench/fixpairs/run.sh -- ON THE GPU MACHINE (issue 40): memheat's estimated
# saving on each slow kernel of fixpairs.cu against the saving its fix brings.
# One call, about 2.5 minutes (build included; 2026-11-28 on an H200: 152 s
# with a --counters step since dropped, which took its 90 s limit):
#   1. builds memheat, its collectors and fixpairs (BUILD_DIR, sm_90)
#   2. plain: `fixpairs --variant both --reps REPS` (CUDA events, medians)
#   3. `memheat run --keep-trace` of the program holding every slow kernel
#      (`--variant slow`): its terminal output (the top findings), the
#      profile's `analyze --json` (findings with their estimated savings) and
#      the trace's (requests, wavefronts)
#   4. `memheat run` of the fixed kernels (what is left on them)
#   6. ncu on both variants, one launch each (time, DRAM bytes, L2 sectors,
#      L1 and shared wavefronts, throughputs), when ncu is found
#   7. table.py: the table (pair, cause, realised saving, estimate, ratio) and
#      the ranking check
# usage: bench/fixpairs/run.sh [BUILD_DIR] [RESULT_DIR]
#   env: REPS=21, MH_REPS=6 (launches per kernel under memheat), SKIP_BUILD=1,
#        STEP_S=90 (limit of one step), NCU=path
# RESULT_DIR (default $OUT, else /tmp/fixpairs) gets: fixpairs.log, table.md,
# table.tsv, fixpairs.tar.gz (every raw file, profiles and traces included).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build-fixpairs}
R=${2:-${OUT:-/tmp/fixpairs}}
REPS=${REPS:-21}
MH_REPS=${MH_REPS:-6}
STEP_S=${STEP_S:-90}
mkdir -p "$R"
W=$R/work
rm -rf "$W"
mkdir -p "$W"
exec > >(tee "$R/fixpairs.log") 2>&1
T0=$SECONDS
say() { echo "[$((SECONDS - T0))s] $*"; }
finish() { # traces apart: they are the largest files (<= 16 MiB each come back)
  (cd "$W" && tar -czf "$R/traces.tar.gz" ./*.mht ./*.timing.json 2>/dev/null)
  [ "$(stat -c %s "$R/traces.tar.gz" 2>/dev/null || echo 0)" -gt 16000000 ] && { rm -f "$R/traces.tar.gz"; say "traces over 16 MB: dropped"; }
  tar -czf "$R/fixpairs.tar.gz" -C "$W" --exclude='*.mht' --exclude='*.html' . 2>/dev/null
  rm -rf "$W"
  say "done: $R/fixpairs.tar.gz"
  sleep 1
}
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -2

if [ -z "${SKIP_BUILD:-}" ]; then
  say "build ($B)"
  if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
          -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
        cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti fixpairs; } >"$W/build.log" 2>&1; then
    grep -E "error|Error" "$W/build.log" | head -30
    echo "FAIL build"
    finish
    exit 1
  fi
fi
M=${MEMHEAT:-$B/memheat}
P=$B/bench/fixpairs/fixpairs
[ -x "$P" ] || { echo "FAIL no $P"; finish; exit 1; }

say "plain: both variants, $REPS runs each"
timeout -k 5 "$STEP_S" "$P" --variant both --reps "$REPS" >"$W/plain.txt" 2>"$W/plain.err"
say "plain exit $? ($(grep -c '^time' "$W/plain.txt") timings, $(grep -c ' FAIL' "$W/plain.txt") failed checks)"

say "memheat run: the slow kernels"
timeout -k 5 "$STEP_S" "$M" run --keep-trace -o "$W/slow" -- "$P" --variant slow --reps "$MH_REPS" \
  >"$W/slow.out" 2>"$W/slow.err"
say "memheat run exit $?"
tail -30 "$W/slow.out"
tail -12 "$W/slow.err"
if [ -f "$W/slow.mhdb" ]; then
  "$M" analyze --json "$W/slow.mhdb" >"$W/slow.profile.json" 2>"$W/slow.profile.err" || say "analyze (profile) exit $?"
  "$M" analyze "$W/slow.mhdb" >"$W/slow.profile.txt" 2>&1
  "$M" report -q -f -o "$W/slow.html" "$W/slow.mhdb" 2>>"$W/slow.profile.err"
fi
if [ -f "$W/slow.mht" ]; then
  timeout -k 5 "$STEP_S" "$M" analyze -q --max 0 -o "$W/slow.trace.json" "$W/slow.mht" >/dev/null 2>"$W/slow.trace.err" ||
    say "analyze (trace) exit $?"
fi

say "memheat run: the fixed kernels"
timeout -k 5 "$STEP_S" "$M" run -o "$W/fixed" -- "$P" --variant fixed --reps "$MH_REPS" >"$W/fixed.out" 2>"$W/fixed.err"
say "memheat run (fixed) exit $?"
[ -f "$W/fixed.mhdb" ] && "$M" analyze --json "$W/fixed.mhdb" >"$W/fixed.profile.json" 2>/dev/null

NCU=${NCU:-$(command -v ncu || true)}
for c in /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -n "$NCU" ] && break
  [ -x "$c" ] && NCU=$c
done
if [ -n "$NCU" ]; then
  MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum
  MET=$MET,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  MET=$MET,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  MET=$MET,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.sum
  MET=$MET,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
  MET=$MET,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
  MET=$MET,sm__warps_active.avg.pct_of_peak_sustained_active,launch__waves_per_multiprocessor
  ONLY=transpose,gemv_rows,aos,misaligned,bank32,bank8,bank16,reduce,smem_abuse,hot_spot,atomic,false_sharing,gather,small_grid,latency
  say "ncu ($NCU): both variants, one timed launch each"
  timeout -k 5 "$STEP_S" "$NCU" --csv --print-units base --clock-control none --metrics "$MET" -- \
    "$P" --variant both --reps 1 --only "$ONLY" >"$W/ncu.csv" 2>"$W/ncu.err"
  say "ncu exit $?"
  tail -3 "$W/ncu.err"
else
  say "no ncu found: skipped"
fi

say "table"
python3 bench/fixpairs/table.py --plain "$W/plain.txt" --profile "$W/slow.profile.json" \
  ${NCU:+--ncu "$W/ncu.csv"} --out "$R" 2>&1 | tail -40
cp "$R/table.tsv" "$W/" 2>/dev/null
finish
