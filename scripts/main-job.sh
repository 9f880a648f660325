#!/usr/bin/env bash
# main-job.sh -- memheat's main job on a CPU-only machine (README): installs the
# Debian packages, builds memheat in build/, runs the OpenCL examples under the
# Oclgrind simulator with `memheat run --backend oclgrind`, and writes heat maps.
#
# Outputs (all under out/opencl/):
#   <kernel>.mht, <kernel>.mhdb       trace and profile of each matrix multiply
#                                     (every work-group traced: --all-blocks)
#   patterns.mht, patterns.mhdb       the heat-map pattern kernels (work-group 0,
#                                     as CUTHERMO samples one block)
#   heatmaps/<name>/launch<ID>_<space>.csv (+ _regions.csv)   heat maps as CSV
#   heatmaps/<name>.txt               the same maps rendered for a terminal
#   findings/<name>.txt, .json        patterns with advice + locality metrics (memheat analyze)
#   report/<name>.html                HTML report, when `memheat report` exists
#
# Environment: MH_MAIN_N (matrix order, default 256, the AIWC paper's size),
# MH_MAIN_ITEMS (pattern work-items, default 1024), JOBS (build parallelism),
# BUILD_DIR (default build), OUT_DIR (default out; outputs go to $OUT_DIR/opencl).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${MH_MAIN_N:-256}
ITEMS=${MH_MAIN_ITEMS:-1024}
JOBS=${JOBS:-$(nproc)}

scripts/install-deps.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j "$JOBS" --target memheat memheat_oclgrind ocl_examples

MEMHEAT=$BUILD/memheat
HOST=$BUILD/examples/opencl/ocl_examples
OUT=${OUT_DIR:-out}/opencl
mkdir -p "$OUT/heatmaps"
have_report=0
if "$MEMHEAT" report --help >/dev/null 2>&1; then have_report=1; mkdir -p "$OUT/report"; fi

maps() { # name
  local name=$1
  rm -rf "$OUT/heatmaps/$name"
  "$MEMHEAT" heatmap "$OUT/$name.mht" -o "$OUT/heatmaps/$name"
  "$MEMHEAT" heatmap "$OUT/$name.mht" --no-color --rows 64 > "$OUT/heatmaps/$name.txt"
  mkdir -p "$OUT/findings"
  "$MEMHEAT" analyze "$OUT/$name.mht" -o "$OUT/findings/$name.json" > "$OUT/findings/$name.txt"
  if [ "$have_report" = 1 ]; then
    "$MEMHEAT" report -f --source examples/opencl/kernels "$OUT/$name.mhdb" -o "$OUT/report/$name.html" || echo "main-job: report for $name failed" >&2
  fi
}

start=$(date +%s)
for k in simpleMultiply coalescedAMultiply coalescedABMultiply coalescedABTMultiply alignedABTMultiply; do
  echo "== $k (${N}x${N}, every work-group traced)"
  rm -f "$OUT/$k.mht" "$OUT/$k.mhdb"
  "$MEMHEAT" run --backend oclgrind --all-blocks --keep-trace -o "$OUT/$k" -- "$HOST" --only "$k" --n "$N"
  maps "$k"
done

echo "== pattern kernels (${ITEMS} work-items, work-group 0 traced)"
rm -f "$OUT/patterns.mht" "$OUT/patterns.mhdb"
"$MEMHEAT" run --backend oclgrind --keep-trace -o "$OUT/patterns" -- "$HOST" --only pat --n 16 --items "$ITEMS"
maps patterns

echo "main-job: done in $(( $(date +%s) - start )) s; outputs in $OUT/ (heat maps in $OUT/heatmaps/)"
