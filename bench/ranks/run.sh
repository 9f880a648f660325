#!/usr/bin/env bash
# bench/ranks/run.sh -- merge and report of a job of many ranks (issue 44):
# per rank count, the time and peak memory of `memheat merge`, the merged
# profile's size, the report's size (and per extra rank, against the report
# of one rank), its writing time and the page's time to screen and to answer
# in headless Chromium. CPU only.
#
# usage: bench/ranks/run.sh [BUILD_DIR] [OUT_DIR]
#   env COUNTS   rank counts (default "32 256 1024")
#       RUNS     page loads per report, median taken (default 3)
#       BASE     the profile every rank copies (default: the OpenCL pattern
#                kernels under Oclgrind, as scripts/main-job.sh runs them)
#       TIMING   a real timing file joined to every rank (default: the CUDA
#                gramschmidt run of bench/realworld, H100; "" = none)
#       SEED     rank_synth's seed (default 1)
# Prints a Markdown table; raw figures in OUT_DIR/results.tsv and open-N.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
OUT=${2:-/tmp/memheat-bench-ranks}
COUNTS=${COUNTS:-"32 256 1024"}
RUNS=${RUNS:-3}
SEED=${SEED:-1}
TIMING=${TIMING-bench/realworld/results/h100/2026-11-25/verdict-inputs/gramschmidt.timing.json}
M=$B/memheat
SYNTH=$B/bench/ranks/rank_synth
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
NODE_MODULES=$B/tests/report/browser/node_modules
for f in "$M" "$SYNTH"; do [ -x "$f" ] || { echo "run.sh: $f missing (cmake --build $B --target memheat rank_synth)" >&2; exit 2; }; done
mkdir -p "$OUT"

if [ -z "${BASE:-}" ]; then
  BASE=$OUT/patterns.mhdb
  if [ ! -s "$BASE" ]; then
    [ -x "$B/examples/opencl/ocl_examples" ] || { echo "run.sh: no OpenCL examples in $B (or give BASE)" >&2; exit 2; }
    rm -f "$OUT/patterns.mhdb"
    "$M" run --backend oclgrind -q -o "$OUT/patterns" -- "$B/examples/opencl/ocl_examples" --only pat --n 16 \
      --items 1024 >/dev/null
  fi
fi
tflag=()
[ -n "$TIMING" ] && tflag=(--timing "$TIMING")

# the report of one rank: what every extra rank is counted against
"$SYNTH" --base "$BASE" "${tflag[@]}" --ranks 1 --out "$OUT/one" --seed "$SEED"
"$M" report -q -f "$OUT/one/rank_00000.mhdb" -o "$OUT/one.html"
one=$(stat -c %s "$OUT/one.html")

field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; } # /usr/bin/time -v field
secs() { awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<<"$1"; }
printf 'ranks\tsynth_s\tinputs_MB\tmerge_s\tmerge_maxrss_MB\tprofile_MB\treport_s\treport_maxrss_MB\treport_bytes\tbytes_per_extra_rank\tready_ms\tpainted_ms\tswitch_ms\ttask_ms\tloadavg\n' \
  >"$OUT/results.tsv"
for n in $COUNTS; do
  d=$OUT/r$n
  rm -rf "$d"
  t0=$(date +%s.%N)
  "$SYNTH" --base "$BASE" "${tflag[@]}" --ranks "$n" --out "$d" --seed "$SEED"
  synth=$(echo "$(date +%s.%N) - $t0" | bc)
  inputs=$(du -sm "$d" | cut -f1)
  /usr/bin/time -v "$M" merge -q -o "$OUT/m$n.mhdb" "$d"/rank_*.mhdb 2>"$OUT/merge$n.time"
  /usr/bin/time -v "$M" report -q -f "$OUT/m$n.mhdb" -o "$OUT/m$n.html" 2>"$OUT/report$n.time"
  bytes=$(stat -c %s "$OUT/m$n.html")
  per=$(( (bytes - one) / (n > 1 ? n - 1 : 1) ))
  page='{}'
  if [ -n "$CHROMIUM" ] && [ -d "$NODE_MODULES" ]; then
    page=$(NODE_PATH=$NODE_MODULES node bench/ranks/open.mjs --chromium "$CHROMIUM" --html "$OUT/m$n.html" --runs "$RUNS")
    echo "$page" >"$OUT/open-$n.json"
  fi
  js() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d.get(sys.argv[2], ''))" "$page" "$1"; }
  printf '%s\t%.1f\t%s\t%.2f\t%.1f\t%.1f\t%.2f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$synth" "$inputs" \
    "$(secs "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$OUT/merge$n.time")")" \
    "$(echo "$(field 'Maximum resident set size (kbytes)' "$OUT/merge$n.time") / 1024" | bc -l)" \
    "$(echo "$(stat -c %s "$OUT/m$n.mhdb") / 1048576" | bc -l)" \
    "$(secs "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$OUT/report$n.time")")" \
    "$(echo "$(field 'Maximum resident set size (kbytes)' "$OUT/report$n.time") / 1024" | bc -l)" \
    "$bytes" "$per" "$(js ready_ms)" "$(js painted_ms)" "$(js switch_ms)" "$(js task_ms)" "$(js loadavg)" \
    >>"$OUT/results.tsv"
  rm -rf "$d" # the inputs of 1,024 ranks take 385 MB
done
echo "one rank's report: $one bytes; $(nproc) CPUs; base $(basename "$BASE"), timing ${TIMING:-none}"
column -t -s $'\t' "$OUT/results.tsv"
