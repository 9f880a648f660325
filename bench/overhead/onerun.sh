#!/usr/bin/env bash
# GPU: what one run (--passes one: trace + timing in one process) costs per
# launch and per copy, against the traced run alone and plain (issue 13 item 2).
# bench/overhead/launches.py in each mode, RUNS rounds interleaved, medians;
# then the one-run timing file's summary (kernels, copies, spans).
# usage: bench/overhead/onerun.sh [BUILD_DIR] [RESULT_DIR]   (env RUNS=3, N=3000)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/onerun}
RUNS=${RUNS:-3}
N=${N:-3000}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
        -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
      cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti; } >"$R/build.log" 2>&1; then
  grep -E "error|Error" "$R/build.log" | head -30; echo "FAIL build"; exit 1
fi
M=$B/memheat
P="python3 bench/overhead/launches.py $N 50"
for i in $(seq 1 "$RUNS"); do
  for mode in plain notiming one one_nolaunch one_nothing; do
    case $mode in
      plain) $P ;;
      notiming) "$M" run -q --no-timing -o "$R/l_nt" -- $P ;;
      one) "$M" run -q --passes one -o "$R/l_one" -- $P ;;
      one_nolaunch) MEMHEAT_TIMING_LAUNCHES=0 "$M" run -q --passes one -o "$R/l_onk" -- $P ;;
      one_nothing) MEMHEAT_TIMING_LAUNCHES=0 MEMHEAT_TIMING_COPIES=0 "$M" run -q --passes one -o "$R/l_on0" -- $P ;;
    esac 2>>"$R/stderr.txt" | grep RESULT | sed "s/^/$mode /"
  done
done >"$R/launch_runs.txt"
python3 - "$R/launch_runs.txt" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode = line.split()[0]
    l = float(re.search(r"per_launch_us=([0-9.]+)", line).group(1))
    c = float(re.search(r"per_copy_us=([0-9.]+)", line).group(1))
    rows.setdefault(mode, []).append((l, c, re.search(r"check=(\S+)", line).group(1)))
for k, v in rows.items():
    print(f"{k:13s} per launch {statistics.median(x for x, _, _ in v):8.2f} us   per copy "
          f"{statistics.median(y for _, y, _ in v):8.2f} us   checks {sorted(set(z for _, _, z in v))}  ({len(v)} runs)")
PY
"$M" run -q --passes one --keep-trace -o "$R/keep_one" -- $P >/dev/null 2>>"$R/stderr.txt"
for f in "$R"/keep_one*.timing.json; do [ -f "$f" ] && python3 bench/overhead/timing_summary.py "$f"; done
