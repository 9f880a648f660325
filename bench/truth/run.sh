#!/usr/bin/env bash
# bench/truth/run.sh -- ON THE GPU MACHINE (issue 39): memheat's default run
# against independent tools on real programs. Builds memheat (BUILD_DIR) and
# ref_activity.so (CUPTI activity records only), then per job: a plain run,
# a run under ref_activity, `memheat run` (the default), `memheat run
# --no-counters` (and `--passes one` with ONE=1); for the training job also
# ncu on its first NCU_COUNT launches (--clock-control none, --cache-control
# none and all: time and DRAM bytes). Every wall time goes to walls.txt.
# compare.py writes the per-kernel tables; everything lands in
# RESULT_DIR/truth.tar.gz.
# With EVERY=1 also `memheat run --counters` (every launch profiled, a run of
# its own). The default run's stdout and stderr lines are time-stamped.
# usage: bench/truth/run.sh [BUILD_DIR] [RESULT_DIR]   env: JOBS="train graph" (also compile, jax) NCU_COUNT=120 ONE= EVERY=
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build-truth}
R=${2:-${OUT:-/tmp/truth}}
JOBS=${JOBS:-"train graph"}
NCU_COUNT=${NCU_COUNT:-120}
W=/tmp/truth-work
rm -rf "$W" && mkdir -p "$W" "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$B/memheat" ]; then
  { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
    cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti; } >"$W/build.log" 2>&1 ||
    { grep -E "error" "$W/build.log" | head -20; echo "FAIL build"; exit 1; }
fi
M=$B/memheat
gcc -O1 -shared -fPIC -o "$W/ref_activity.so" bench/truth/ref_activity.c -I/usr/local/cuda/include \
  -L/usr/local/cuda/lib64 -lcupti -Wl,-rpath,/usr/local/cuda/lib64 || { echo "FAIL ref_activity"; exit 1; }
# stamp FILE: copies stdin to FILE, each line led by the seconds since the epoch
# (where a run's passes begin and end)
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$1"; }
# wall LABEL CMD...: runs CMD, appends "LABEL rc=.. wall_ms=.." to walls.txt
wall() {
  local l=$1 s=$(date +%s%N); shift
  "$@"; local rc=$?
  echo "$l rc=$rc wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" | tee -a "$W/walls.txt"
}
for j in $JOBS; do
  case $j in
    train) C="python3 bench/realworld/train.py" ;;
    graph) C="python3 bench/truth/graph_replay.py" ;;
    compile) C="python3 bench/truth/compiled.py" ;;
    jax) C="python3 bench/truth/jax_mlp.py" ;;
    *) echo "unknown job $j"; continue ;;
  esac
  wall "$j plain" timeout 150 $C >"$W/$j.plain.out" 2>&1
  wall "$j ref" timeout 150 env CUDA_INJECTION64_PATH="$W/ref_activity.so" REF_OUT="$W/$j.ref.tsv" $C >/dev/null 2>&1
  date +%s.%N >"$W/$j.mh.start"
  wall "$j memheat" timeout 300 "$M" run -o "$W/$j" -- $C > >(stamp "$W/$j.mh.out") 2> >(stamp "$W/$j.mh.err")
  sleep 1
  wall "$j memheat --no-counters" timeout 300 "$M" run --no-counters -o "$W/$j.nc" -- $C >"$W/$j.nc.out" 2>"$W/$j.nc.err"
  if [ -n "${EVERY:-}" ]; then
    wall "$j memheat --counters" timeout 300 "$M" run --counters -o "$W/$j.all" -- $C >"$W/$j.all.out" 2>"$W/$j.all.err"
  fi
  python3 bench/truth/compare.py times "$W/$j.mhdb" "$W/$j.ref.tsv" >"$W/$j.times.txt"
  tail -1 "$W/$j.times.txt"
  if [ -n "${ONE:-}" ]; then
    wall "$j memheat --passes one" timeout 300 "$M" run --passes one -o "$W/$j.one" -- $C >"$W/$j.one.out" 2>"$W/$j.one.err"
    python3 bench/truth/compare.py times "$W/$j.one.mhdb" "$W/$j.ref.tsv" >"$W/$j.one.times.txt"
    tail -1 "$W/$j.one.times.txt"
  fi
  # memheat runs the program several times: each run's result line against the plain run's
  ref=$(grep -E "^(losses|sum)" "$W/$j.plain.out")
  sed 's/^[0-9.]* //' "$W/$j.mh.out" | grep -E "^(losses|sum)" | awk -v r="$ref" -v j="$j" \
    '{ n++; if ($0 == r) same++ } END { printf "%s: %d of %d runs under memheat print the plain run'"'"'s result\n", j, same, n }'
done 2>&1 | tee "$W/run.log"
if [[ " $JOBS " == *" train "* ]] && command -v ncu >/dev/null; then
  for cc in none all; do
    wall "train ncu --cache-control $cc" timeout 250 ncu --csv --print-units base --clock-control none \
      --cache-control $cc -c "$NCU_COUNT" \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      python3 bench/realworld/train.py >"$W/train.ncu.$cc.csv" 2>"$W/train.ncu.$cc.err"
    python3 bench/truth/compare.py bytes "$W/train.timing.json" "$W/train.ncu.$cc.csv" >"$W/train.bytes.$cc.txt"
    tail -1 "$W/train.bytes.$cc.txt"
  done
  python3 bench/truth/compare.py ncu "$W/train.timing.json" "$W/train.ncu.none.csv" >"$W/train.ncu.txt"
  tail -1 "$W/train.ncu.txt"
fi 2>&1 | tee -a "$W/run.log"
tar -czf "$R/truth.tar.gz" --exclude='*.mht' -C /tmp truth-work
