#!/usr/bin/env bash
# ranks_size.sh -- the report of many ranks holds the distinct content once
# and a summary per rank (issue 44): 64 synthesised ranks of the synth profile
# (bench/ranks/rank_synth: times, addresses and data varied per rank) merged
# and reported; the report may grow by at most 2 KB per extra rank against
# the report of one rank, holds one summary row per rank and one launch per
# distinct content, and the merge keeps equal heat maps once.
# usage: ranks_size.sh MEMHEAT MAKE_PROFILE RANK_SYNTH
set -euo pipefail
M=$1 MP=$2 SYNTH=$3
d=$(mktemp -d /tmp/memheat-ranks-size-XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
q() { sqlite3 "$1" "$2"; }
"$MP" synth base.mhdb
"$SYNTH" --base base.mhdb --ranks 1 --out one --seed 5
"$SYNTH" --base base.mhdb --ranks 64 --out many --seed 5
"$M" merge -q -o job.mhdb many/rank_*.mhdb
"$M" report -q -f one/rank_00000.mhdb -o one.html
"$M" report -q -f job.mhdb -o job.html
one=$(stat -c %s one.html) job=$(stat -c %s job.html)
per=$(( (job - one) / 63 ))
echo "one rank: $one bytes; 64 ranks: $job bytes; $per bytes per extra rank"
[ "$per" -le 2048 ] || { echo "FAIL: $per bytes per extra rank (at most 2048)"; exit 1; }
rows=$(grep -o '<tr class="mh-out[012]"' job.html | wc -l)
[ "$rows" = 64 ] || { echo "FAIL: $rows summary rows, want 64"; exit 1; }
# the page holds one launch per distinct content: far fewer than the 64 x 9 launches
held=$(grep -o '"rank_group":' job.html | wc -l)
variants=$(grep -o '"variants":\[[^]]*\]' job.html | grep -o '"launch":' | wc -l)
[ "$held" = "$variants" ] && [ "$held" -ge 9 ] && [ "$held" -lt 64 ] ||
  { echo "FAIL: the page holds $held launches for $variants distinct contents"; exit 1; }
# the merge: every map's rows read back (SUM(nrows)), those of equal maps stored once
stored=$(q job.mhdb "SELECT COUNT(*) FROM heat_row") read=$(q job.mhdb "SELECT SUM(nrows) FROM heat_map")
[ "$read" = "$((64 * $(q base.mhdb "SELECT SUM(nrows) FROM heat_map")))" ] || { echo "FAIL: $read rows read"; exit 1; }
[ "$stored" -lt "$((read / 8))" ] || { echo "FAIL: $stored heat rows stored of $read"; exit 1; }
echo "ok: $held launches held, $stored of $read heat rows stored"
