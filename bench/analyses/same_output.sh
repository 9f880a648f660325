#!/bin/sh
# same_output.sh -- do two memheat builds print the same `analyze` results?
#
# usage: same_output.sh OLD_MEMHEAT NEW_MEMHEAT TRACE...
# For every trace: `analyze --json` and the text output, each with --threads
# 1, 2, 3, 9 (every stage on a thread of its own: pass.c), 10 (and the heat maps in two parts), 12 (and the third stages' helpers), 13 (and the locality's stage 1c), 15 (and the heat maps in four parts), 16 (and the patterns' word owners apart) and the default, plus --group-mem 1 (a budget small enough to split
# groups on big traces) and --no-patterns / --no-locality, of the new build
# against the old build's default-thread output, byte for byte (peak_bytes
# included); standard error is compared after standard output, not mixed in
# (where an error line lands in a mixed stream depends on buffer sizes). Exit 0 when every output is equal; the differing ones are named.
# IGNORE=REGEX: lines matching it are left out of both sides (e.g. IGNORE=peak_bytes
# where a change of the analyses' memory accounting is intended).
set -u
ignore=${IGNORE:-}
strip() { if [ -n "$ignore" ]; then grep -Ev "$ignore" "$1" > "$1.s"; mv "$1.s" "$1"; fi; }
old=$1 new=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
for t in "$@"; do
    for v in "" "--group-mem 1" "--no-patterns" "--no-locality"; do
        for fmt in "--json" "--max 0 --all"; do
            # shellcheck disable=SC2086
            "$old" analyze -q $fmt $v "$t" > "$tmp/ref" 2> "$tmp/ref.err"
            echo "exit $?" >> "$tmp/ref"
            cat "$tmp/ref.err" >> "$tmp/ref"
            strip "$tmp/ref"
            for th in 1 2 3 9 10 12 13 15 16 default; do
                if [ "$th" = default ]; then thr=""; else thr="--threads $th"; fi
                # shellcheck disable=SC2086
                "$new" analyze -q $fmt $v $thr "$t" > "$tmp/out" 2> "$tmp/out.err"
                echo "exit $?" >> "$tmp/out"
                cat "$tmp/out.err" >> "$tmp/out"
                strip "$tmp/out"
                n=$((n + 1))
                if ! cmp -s "$tmp/ref" "$tmp/out"; then
                    echo "DIFFERS: $t $fmt $v threads=$th"
                    bad=$((bad + 1))
                fi
            done
        done
    done
done
echo "$n outputs compared, $bad differ"
[ "$bad" -eq 0 ]
