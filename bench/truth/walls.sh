#!/usr/bin/env bash
# bench/truth/walls.sh -- ON THE GPU MACHINE (issue 39): what the default
# `memheat run` costs in wall time against the plain program, in interleaved
# rounds (plain, then each of VARIANTS: default; counters = `--counters`, the
# counters run of every launch, three runs; serial = `--no-overlap`, the
# traced run started only after the timing run), with memheat's stderr
# time-stamped so each pass's start shows; then where each run's pass began,
# in seconds from its start.
# usage: bench/truth/walls.sh BUILD_DIR RESULT_DIR
#   env: ROUNDS=3 JOB="python3 bench/realworld/train.py" VARIANTS="default counters"
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
M=$(realpath "${1:?build dir}")/memheat
R=${2:?result dir}
ROUNDS=${ROUNDS:-3}
JOB=${JOB:-python3 bench/realworld/train.py}
VARIANTS=${VARIANTS:-default counters}
W=$R/walls; mkdir -p "$W"
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$1"; }
wall() {
  local l=$1 s=$(date +%s%N); shift
  "$@"; local rc=$?
  echo "$l rc=$rc wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" >>"$W/walls.txt"
}
for r in $(seq "$ROUNDS"); do
  wall "plain $r" timeout 300 $JOB >"$W/plain$r.out" 2>&1
  for v in $VARIANTS; do
    case $v in counters) flag=--counters ;; serial) flag=--no-overlap ;; *) flag= ;; esac
    date +%s.%N >"$W/$v$r.start"
    wall "$v $r" timeout 600 "$M" run $flag -o "$W/$v$r" -- $JOB >"$W/$v$r.out" 2> >(stamp "$W/$v$r.err")
    sleep 1 # the stamping reader finishes its file
  done
done
cat "$W/walls.txt"
for f in "$W"/*.err; do
  echo "== $(basename "$f" .err)"
  awk -v s="$(cat "${f%.err}.start")" '/memheat: (timing|counters|traced|profile)/ { printf "%7.2f %s\n", $1 - s, substr($0, index($0, $2), 100) }' "$f"
done
