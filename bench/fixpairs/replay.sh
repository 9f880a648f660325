#!/usr/bin/env bash
# replay.sh MEMHEAT WORKDIR [JUDGE ARGS...] -- bench/fixpairs's recorded GPU
# run judged again on the CPU with this tree's memheat: the slow program's
# trace and timing (results/h200-2026-11-29, as the run wrote them) imported
# again, its fixes ranked, the table rebuilt beside the recorded plain times
# (table.py) and judged (judge.py); the rebuilt table must equal the
# recorded one (results/table.tsv), so that the figures in docs/metrics.md
# are this code's. A kernel time the recording marked "gap" (event timing
# that may hold the host's launch gap) is taken as clean, the one change the
# replay makes to the record; the default run's activity timing writes none.
set -uo pipefail
M=$1 W=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
R=$HERE/results/h200-2026-11-29
mkdir -p "$W"
python3 - "$R/slow.timing.json.gz" "$W/slow.timing.json" <<'PY' || { echo "FAIL timing"; exit 1; }
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
for k in t["kernels"]:
    if k.get("timed") == "gap":
        del k["timed"]
json.dump(t, open(sys.argv[2], "w"))
PY
"$M" import "$R/slow.mht" --timing "$W/slow.timing.json" -o "$W/slow.mhdb" -f -q || { echo "FAIL import"; exit 1; }
"$M" analyze --json "$W/slow.mhdb" >"$W/slow.json" || { echo "FAIL analyze"; exit 1; }
python3 "$HERE/table.py" --plain "$R/plain.txt" --profile "$W/slow.json" \
  --out "$W" >/dev/null || { echo "FAIL table"; exit 1; }
fail=0
if cmp -s <(cut -f1-10 "$W/table.tsv") <(cut -f1-10 "$HERE/results/table.tsv"); then
  echo "ok   the rebuilt table equals the recorded one"
else
  echo "FAIL the rebuilt table differs from results/table.tsv (rebuild it with table.py and update docs/metrics.md):"
  diff <(cut -f1-10 "$HERE/results/table.tsv") <(cut -f1-10 "$W/table.tsv")
  fail=1
fi
python3 "$HERE/judge.py" --self-test "$W/table.tsv" "$@" || fail=1
exit $fail
