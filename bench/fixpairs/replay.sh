#!/usr/bin/env bash
# replay.sh MEMHEAT WORKDIR [JUDGE ARGS...] -- bench/fixpairs's recorded GPU
# run judged again on the CPU with this tree's memheat: the slow program's
# trace and timing (results/h200-2026-11-28: the run's kernel times, marked
# "gap" by the tree that ran it, kept as clean) imported again, its fixes
# ranked, the table rebuilt beside the recorded plain times (table.py) and
# judged (judge.py); the rebuilt table must equal the recorded one
# (results/table.tsv), so that the figures in docs/metrics.md are this code's.
set -uo pipefail
M=$1 W=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
R=$HERE/results/h200-2026-11-28
mkdir -p "$W"
gunzip -c "$R/slow.timing.json.gz" >"$W/slow.timing.json" || { echo "FAIL gunzip"; exit 1; }
"$M" import "$R/slow.mht" --timing "$W/slow.timing.json" -o "$W/slow.mhdb" -f -q || { echo "FAIL import"; exit 1; }
"$M" analyze --json "$W/slow.mhdb" >"$W/slow.json" || { echo "FAIL analyze"; exit 1; }
python3 "$HERE/table.py" --plain "$R/plain.txt" --profile "$W/slow.json" --out "$W" >/dev/null || { echo "FAIL table"; exit 1; }
fail=0
if cmp -s <(cut -f1-8 "$W/table.tsv") <(cut -f1-8 "$HERE/results/table.tsv"); then
  echo "ok   the rebuilt table equals the recorded one"
else
  echo "FAIL the rebuilt table differs from results/table.tsv (rebuild it with table.py and update docs/metrics.md):"
  diff <(cut -f1-8 "$HERE/results/table.tsv") <(cut -f1-8 "$W/table.tsv")
  fail=1
fi
python3 "$HERE/judge.py" --self-test "$W/table.tsv" "$@" || fail=1
exit $fail
