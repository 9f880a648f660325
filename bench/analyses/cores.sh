#!/usr/bin/env bash
# bench/analyses/cores.sh -- `memheat analyze` on every core of a bigger
# machine (issue 13 item 5: >= 5 x 10^7 accesses/s on 16 cores). Two traces:
# T.mht, one launch of N accesses (bench_analyses N T.mht), and y.mht, L small
# launches (bench_import L: 2,048 coalesced loads each). Each build's memheat
# analyzes each with each thread count in THREADS and each environment in
# ENVS (a list of VAR=VALUE[,VAR=VALUE] settings, "-" = none), RUNS rounds
# interleaved; one line per run: build trace threads env wall_s user_s sys_s
# accesses/s, then the run's own times (MEMHEAT_PASS_TIMES=1: analysis and
# output; reader, chunk waits, helpers, lanes). A TRACES word with a slash is
# a trace file of one's own (a real program's, `memheat run --keep-trace`),
# analyzed the same way; its peak RSS is printed too.
# usage: bench/analyses/cores.sh BUILD_DIR [BUILD_DIR...]
#   env: N=40000000 L=8000 ML=400 MA=100000 TRACES="T y m" THREADS="1 16" ENVS=- RUNS=3 W=/tmp/mh-cores
#   (a THREADS word "default" runs without --threads: what a user gets)
set -uo pipefail
N=${N:-40000000}
L=${L:-8000}
ML=${ML:-400}
MA=${MA:-100000}
TRACES=${TRACES:-"T y m"}
THREADS=${THREADS:-"1 16"}
ENVS=${ENVS:--}
RUNS=${RUNS:-3}
W=${W:-/tmp/mh-cores}
mkdir -p "$W"
B0=$(cd "$1" && pwd)
echo "# $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2) x $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f "$W/T.mht" ] || "$B0/bench/analyses/bench_analyses" "$N" "$W/T.mht" --write-only >"$W/bench_analyses.txt" 2>&1
[ -f "$W/y.mht" ] || (cd "$W" && "$B0/bench/analyses/bench_import" "$L" y.mht y.mhdb 2048 --write-only >"$W/bench_import.txt" 2>&1)
[ -f "$W/m.mht" ] || (cd "$W" && "$B0/bench/analyses/bench_import" "$ML" m.mht m.mhdb "$MA" --write-only >>"$W/bench_import.txt" 2>&1)
acc() { # accesses in a trace, from memheat info
  "$B0/memheat" info "$1" 2>/dev/null | awk '$1 == "accesses" { print $2; exit }'
}
NT=$(acc "$W/T.mht"); NY=$(acc "$W/y.mht"); NM=$(acc "$W/m.mht")
echo "# T.mht ${NT:-?} accesses, y.mht ${NY:-?} accesses, m.mht ${NM:-?} accesses"
declare -A NOWN
for tr in $TRACES; do
  case $tr in */*) NOWN[$tr]=$(acc "$tr"); echo "# $tr ${NOWN[$tr]:-?} accesses" ;; esac
done
echo "build trace threads env wall_s user_s sys_s Macc_per_s [peak_rss_kb]"
TIMEFORMAT="%R %U %S"
for r in $(seq 1 "$RUNS"); do
  for b in "$@"; do
    for tr in $TRACES; do
      for t in $THREADS; do
        for e in $ENVS; do
          f=$W/$tr.mht rss=
          case $tr in T) n=${NT:-0} ;; y) n=${NY:-0} ;; */*) n=${NOWN[$tr]:-0} f=$tr ;; *) n=${NM:-0} ;; esac
          ev=(env MEMHEAT_PASS_TIMES=1)
          [ "$e" = - ] || ev+=(${e//,/ })
          case $tr in */*) [ -x /usr/bin/time ] && ev=(/usr/bin/time -f "rss_kb %M" -o "$W/rss.txt" "${ev[@]}") ;; esac
          thr=(--threads "$t")
          [ "$t" = default ] && thr=()
          w=$( { time "${ev[@]}" "$b/memheat" analyze --json -q "${thr[@]}" "$f" >/dev/null 2>"$W/times.txt"; } 2>&1 )
          case $tr in */*) [ -f "$W/rss.txt" ] && rss=$(awk '{ print $2 }' "$W/rss.txt") ;; esac
          echo "$(basename "$b") $tr $t $e $w $(echo "$w" | awk -v n="$n" '{ printf "%.1f", ($1 > 0) ? n / $1 / 1e6 : 0 }') $rss"
          grep -m1 "^memheat analyze: total" "$W/times.txt" | sed 's/^memheat analyze: /  # /'
        done
      done
    done
  done
done
