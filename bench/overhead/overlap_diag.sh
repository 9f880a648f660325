#!/usr/bin/env bash
# GPU: where does split_vecadd's pipelined time go under memheat? (issue 13 item 3)
# Modes, interleaved, RUNS rounds: plain; memheat --no-timing --kernel with no
# match (Sanitizer subscribed, nothing traced); memheat --no-timing (default
# launch policy); the default run; the one run (--passes one). Prints every pipelined run's time and split.
# usage: bench/overhead/overlap_diag.sh [BUILD_DIR] [RESULT_DIR]   (env RUNS=3, MODES=...)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/overlap}
RUNS=${RUNS:-3}
MODES=${MODES:-"plain none notiming default one"}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
        -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
      cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti split_vecadd; } >"$R/build.log" 2>&1; then
  grep -E "error|Error" "$R/build.log" | head -30; echo "FAIL build"; exit 1
fi
M=$B/memheat
V="$B/examples/split/split_vecadd --runs 5 --no-serial --no-cold"
for i in $(seq 1 "$RUNS"); do
  for mode in $MODES; do
    case $mode in
      plain) $V ;;
      none) "$M" run -q --no-timing --kernel no_such_kernel_xyz -o "$R/v_none" -- $V ;;
      notiming) "$M" run -q --no-timing -o "$R/v_nt" -- $V ;;
      default) "$M" run -q -o "$R/v_def" -- $V ;;
      one) "$M" run -q --passes one -o "$R/v_one" -- $V ;;
    esac 2>&1 | grep -E "RESULT|# pipelined run" | sed "s/^/$mode /"
  done
done >"$R/overlap_runs.txt"
[ -f "$R/v_nt.mhdb" ] && "$M" info "$R/v_nt.mhdb" >"$R/v_nt.info" 2>&1
python3 - "$R/overlap_runs.txt" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode = line.split()[0]
    m = re.search(r"pipelined run (\d+): ([0-9.]+) ms split=(\d+)", line)
    if m: rows.setdefault(mode, []).append((int(m.group(1)), float(m.group(2)), int(m.group(3))))
for k, v in rows.items():
    first = [t for r, t, s in v if r == 0]; later = [t for r, t, s in v if r > 0]
    print(f"{k}: run0 median {statistics.median(first):.2f} ms, later runs median {statistics.median(later):.2f} ms, splits {sorted(set(s for _,_,s in v))}")
PY
