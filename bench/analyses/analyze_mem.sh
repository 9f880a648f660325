#!/bin/sh
# analyze_mem.sh -- accesses/s and peak RSS of `memheat analyze` on the
# synthetic trace of every shape (bench/analyses/README.md, "Peak memory and
# speed of analyze").
#
# usage: analyze_mem.sh MEMHEAT [MEMHEAT...]
# Writes `memheat synth --shape all --warps 32 --blocks 16 --iters 200` (13
# launches, 42,505,728 accesses) to $TRACE (default /dev/shm/all.mht) unless
# it is there, then runs `MEMHEAT analyze --json -q $ARGS TRACE` of each
# build RUNS times (default 5), the builds interleaved per round. Prints per
# run `build wall_s user_s sys_s peak_rss_mb Macc_per_s`, then per build the
# median wall, accesses/s and peak RSS. Needs GNU time (/usr/bin/time).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 MEMHEAT [MEMHEAT...]" >&2; exit 2; }
trace=${TRACE:-/dev/shm/all.mht}
runs=${RUNS:-5}
args=${ARGS:-}
[ -f "$trace" ] || "$1" synth --shape all --warps 32 --blocks 16 --iters 200 -o "$trace" > /dev/null
acc=$("$1" info "$trace" | awk '$1 == "accesses" {print $2; exit}')
out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.t"' EXIT
echo "trace $trace: $acc accesses; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build wall_s user_s sys_s peak_rss_mb Macc_per_s"
r=0
while [ "$r" -lt "$runs" ]; do
    for b in "$@"; do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %U %S %M" -o "$out.t" "$b" analyze --json -q $args "$trace" > /dev/null
        read -r wall user sys rss < "$out.t"
        line=$(awk -v b="$b" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v a="$acc" \
            'BEGIN {printf "%s %.2f %.2f %.2f %.1f %.2f", b, w, u, s, m / 1000, a / w / 1e6}')
        echo "$line"
        echo "$line" >> "$out"
    done
    r=$((r + 1))
done
for b in "$@"; do
    awk -v b="$b" 'BEGIN {n = 0} $1 == b {w[n] = $2; m[n] = $5; n++}
        END {
            # medians of wall and peak RSS (insertion sort: a few runs)
            for (i = 1; i < n; i++) for (j = i; j > 0 && w[j - 1] > w[j]; j--) {t = w[j]; w[j] = w[j - 1]; w[j - 1] = t}
            for (i = 1; i < n; i++) for (j = i; j > 0 && m[j - 1] > m[j]; j--) {t = m[j]; m[j] = m[j - 1]; m[j - 1] = t}
            mw = n % 2 ? w[(n - 1) / 2] : (w[n / 2 - 1] + w[n / 2]) / 2
            mm = n % 2 ? m[(n - 1) / 2] : (m[n / 2 - 1] + m[n / 2]) / 2
            printf "median %s: %d runs, wall %.2f s (%.2f-%.2f), %.2f x 10^6 accesses/s, peak RSS %.1f MB (%.1f-%.1f)\n",
                b, n, mw, w[0], w[n - 1], '"$acc"' / mw / 1e6, mm, m[0], m[n - 1]
        }' "$out"
done
