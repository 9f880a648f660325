#!/usr/bin/env bash
# e2e.sh -- end-to-end tests of the Oclgrind path: `memheat run --backend
# oclgrind` on examples/opencl -> trace -> checks (test_ocl_trace) and
# `memheat heatmap`. Called by ctest (tests/oclgrind/CMakeLists.txt):
#   e2e.sh MODE MEMHEAT OCL_EXAMPLES TEST_OCL_TRACE WORKDIR
# MODE: count | heat | matmul | auto | policy | norelease | multiproc. Exit 0 = pass.
set -euo pipefail
mode=$1 memheat=$2 host=$3 checker=$4 work=$5
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"

case "$mode" in
count)
  # 32 work-groups on 4 Oclgrind worker threads, every block traced, three
  # runs: the count must be exact every time (a racy collector loses some).
  for run in 1 2 3; do
    OCLGRIND_NUM_THREADS=4 "$memheat" run -q --backend oclgrind --all-blocks --keep-trace -o "count$run" -- \
      "$host" --only countAccesses --items 8192
    "$checker" count "count$run.mht" 8192
  done
  ;;
heat)
  # CUTHERMO-style sampling: block 0 only (the default).
  "$memheat" run -q --backend oclgrind --keep-trace -o pat -- "$host" --only pat --n 16
  "$checker" heat pat.mht
  "$memheat" heatmap pat.mht -o maps
  n=$(ls maps/*.csv | wc -l)
  [ "$n" -ge 6 ] || { echo "memheat heatmap wrote $n CSV files, expected >= 6"; exit 1; }
  # issue 40: memheat run ends with the top five fixes (cause, kernel, object, saving, fix); -q prints none
  "$memheat" run --backend oclgrind -o pat2 -- "$host" --only pat --n 16 >run.out 2>run.err
  grep -q "^What to fix first (5 of " run.out || { echo "memheat run printed no top five fixes"; tail -5 run.out; exit 1; }
  [ "$(grep -c '^    fix: ' run.out)" -eq 5 ] || { echo "memheat run: not five fixes"; exit 1; }
  grep -q "patFalseSharing - arg 1: float\* (out)" run.out || { echo "memheat run: no kernel and object"; exit 1; }
  tail -1 run.out | grep -q "^    fix: " || { echo "memheat run: the fixes do not end its output"; exit 1; }
  "$memheat" run -q --backend oclgrind -o pat3 -- "$host" --only pat --n 16 >runq.out 2>&1
  if grep -q "What to fix first" runq.out; then echo "memheat run -q printed the fixes"; exit 1; fi
  ;;
matmul)
  # The five matrix multiplies, every block, under the plugin: the host
  # checks results against its CPU reference and fails on a mismatch.
  "$memheat" run -q --backend oclgrind --all-blocks --keep-trace -o mm -- "$host" --only Multiply --n 32
  "$memheat" heatmap mm.mht -o maps
  ls maps/*.csv >/dev/null
  ;;
auto)
  # No --backend: the program links libOpenCL, so memheat picks Oclgrind.
  "$checker" detect "$host"
  "$memheat" run -q --keep-trace -o auto -- "$host" --only patHot
  [ -s auto.mht ] || { echo "no trace written"; exit 1; }
  "$memheat" info auto.mht | grep -qi oclgrind
  ;;
policy)
  # One kernel launched 3 times in one configuration: by default the first is
  # traced and all 3 are counted; --launch-policy all traces every one.
  "$memheat" run -q --backend oclgrind -o cfg -- "$host" --only patHot --repeat 3
  got=$(sqlite3 cfg.mhdb "SELECT launches || '/' || traced FROM launch_config WHERE name = 'patHot'")
  [ "$got" = "3/1" ] || { echo "default policy: launches/traced of patHot = '$got', want 3/1"; exit 1; }
  [ "$(sqlite3 cfg.mhdb "SELECT COUNT(*) FROM launch WHERE name = 'patHot'")" = 1 ] || { echo "default policy: not one traced launch"; exit 1; }
  "$memheat" run -q --backend oclgrind --launch-policy all -o all -- "$host" --only patHot --repeat 3
  got=$(sqlite3 all.mhdb "SELECT launches || '/' || traced FROM launch_config WHERE name = 'patHot'")
  [ "$got" = "3/3" ] || { echo "--launch-policy all: launches/traced of patHot = '$got', want 3/3"; exit 1; }
  "$memheat" run -q --backend oclgrind --launch-policy every:2 -o ev -- "$host" --only patHot --repeat 3
  got=$(sqlite3 ev.mhdb "SELECT launches || '/' || traced FROM launch_config WHERE name = 'patHot'")
  [ "$got" = "3/2" ] || { echo "--launch-policy every:2: launches/traced of patHot = '$got', want 3/2"; exit 1; }
  # info and the report carry the counts ("traced k of n")
  "$memheat" run -q --backend oclgrind --keep-trace -o cfgt -- "$host" --only patHot --repeat 3
  "$memheat" info cfgt.mht | grep -q "traced 1 of 3  patHot" || { echo "info: no 'traced 1 of 3'"; "$memheat" info cfgt.mht; exit 1; }
  "$memheat" report cfg.mhdb -o cfg.html
  grep -q '"launch_counts"' cfg.html || { echo "report: no launch counts"; exit 1; }
  # Findings (kernel, space, object, pattern) of the default equal those of
  # every-launch tracing (issue 13 item 1), on every pattern kernel launched
  # twice; the same checker as bench/realworld's GPU workloads.
  "$memheat" run -q --backend oclgrind -o fcfg -- "$host" --only pat --repeat 2
  "$memheat" run -q --backend oclgrind --launch-policy all -o fall -- "$host" --only pat --repeat 2
  [ "$(sqlite3 fall.mhdb "SELECT SUM(traced) || '/' || SUM(launches) FROM launch_config")" = \
    "$(sqlite3 fcfg.mhdb "SELECT (2 * SUM(traced)) || '/' || SUM(launches) FROM launch_config")" ] ||
    { echo "every-launch run did not trace twice the default's launches"; exit 1; }
  python3 "$src/bench/realworld/compare_findings.py" fcfg.mhdb fall.mhdb >cmp.txt ||
    { echo "default and every-launch findings differ"; cat cmp.txt; exit 1; }
  [ "$(sqlite3 fcfg.mhdb "SELECT COUNT(*) FROM finding WHERE kind != 'coalesced'")" -gt 0 ] ||
    { echo "no finding to compare"; exit 1; }
  if "$memheat" run -q --backend oclgrind --launch-policy sometimes -o bad -- "$host" 2>err.txt; then
    echo "a bad --launch-policy was accepted"; exit 1
  fi
  [ "$(wc -l <err.txt)" = 1 ] && grep -q "sometimes" err.txt || { echo "bad --launch-policy: not one line naming it"; cat err.txt; exit 1; }
  ;;
norelease)
  # A program that ends normally without clReleaseCommandQueue/clReleaseContext
  # (issue 39): its trace is closed at exit, complete, exit 0; a program killed
  # mid-run still leaves a trace without its end record (exit 4).
  "$memheat" run -q --backend oclgrind --keep-trace -o norel -- "$host" --only patHot --repeat 2 --no-release
  "$memheat" info norel.mht | head -1 | grep -q "complete)" || { echo "no end record"; "$memheat" info norel.mht | head -1; exit 1; }
  [ "$(sqlite3 norel.mhdb "SELECT value FROM meta WHERE key = 'trace_complete'")" = 1 ] || { echo "profile: incomplete trace"; exit 1; }
  [ "$(sqlite3 norel.mhdb "SELECT launches || '/' || traced FROM launch_config WHERE name = 'patHot'")" = 2/1 ] ||
    { echo "launch counts lost"; exit 1; }
  # killed: the kernel runs long enough (all work-items of 2^20) to be killed inside it
  MEMHEAT_TRACE=$PWD/killed.mht MEMHEAT_ALL_BLOCKS=1 oclgrind --plugins "$(dirname "$memheat")/lib/memheat/libmemheat_oclgrind.so" \
    "$host" --only countAccesses --items 1048576 --no-release >/dev/null 2>&1 &
  pid=$!
  i=0; while [ ! -s killed.mht ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  sleep 1
  kill -KILL $pid; wait $pid 2>/dev/null || true
  rc=0; "$memheat" info killed.mht >/dev/null 2>err.txt || rc=$?
  [ $rc = 4 ] && grep -q "without its end record" err.txt || { echo "killed run: exit $rc, $(cat err.txt)"; exit 1; }
  ;;
multiproc)
  # Two OpenCL processes at once (issue 14): one trace each, one profile with
  # two processes, and the profile's launches and accesses equal the sum of
  # the two programs' own counts, over repeated runs. Each program alone first.
  a=("$host" --only patHot --repeat 3)
  b=("$host" --only Multiply --n 16)
  q() { sqlite3 "$1" "$2"; }
  counts() { q "$1" "SELECT (SELECT SUM(launches) FROM launch_config) || '/' || (SELECT COUNT(*) FROM launch)
                       || '/' || (SELECT SUM(recorded) FROM launch)"; }
  "$memheat" run -q --backend oclgrind --launch-policy all --all-blocks -o alone_a -- "${a[@]}"
  "$memheat" run -q --backend oclgrind --launch-policy all --all-blocks -o alone_b -- "${b[@]}"
  IFS=/ read -r ra ta xa <<<"$(counts alone_a.mhdb)"
  IFS=/ read -r rb tb xb <<<"$(counts alone_b.mhdb)"
  [ "$ra" -ge 3 ] && [ "$rb" -ge 2 ] && [ "$xa" -gt 0 ] && [ "$xb" -gt 0 ] || { echo "baselines: $ra/$ta/$xa $rb/$tb/$xb"; exit 1; }
  want="$((ra + rb))/$((ta + tb))/$((xa + xb))"
  runs=${MEMHEAT_MULTIPROC_RUNS:-4}
  for run in $(seq 1 "$runs"); do
    "$memheat" run -q --backend oclgrind --launch-policy all --all-blocks --keep-trace -o "mp$run" -- \
      sh -c '"$0" --only patHot --repeat 3 & "$0" --only Multiply --n 16 & wait' "$host"
    [ "$(q "mp$run.mhdb" "SELECT COUNT(*) FROM process")" = 2 ] || { echo "run $run: not 2 processes"; exit 1; }
    [ "$(q "mp$run.mhdb" "SELECT COUNT(DISTINCT pid) FROM process")" = 2 ] || { echo "run $run: pids"; exit 1; }
    got=$(counts "mp$run.mhdb")
    [ "$got" = "$want" ] || { echo "run $run: launches run/traced/accesses $got, want $want"; exit 1; }
    [ "$(q "mp$run.mhdb" "SELECT value FROM meta WHERE key = 'trace_complete'")" = 1 ] || { echo "run $run: damaged trace"; exit 1; }
    # every launch belongs to a process, each trace in the manifest is complete
    [ "$(q "mp$run.mhdb" "SELECT COUNT(*) FROM launch WHERE process IS NULL")" = 0 ] || { echo "untagged launches"; exit 1; }
    [ "$(wc -l <"mp$run.mht.procs")" = 2 ] || { echo "run $run: manifest"; cat "mp$run.mht.procs"; exit 1; }
    while read -r pid name; do
      "$memheat" info "$name" | head -1 | grep -q "complete)" || { echo "run $run: $name incomplete"; exit 1; }
      "$memheat" info "$name" | grep -q "^process    pid $pid " || { echo "run $run: $name has no process $pid"; exit 1; }
    done <"mp$run.mht.procs"
  done
  # a later run under the same name replaces every file of the earlier one
  "$memheat" run -q --backend oclgrind -o mp1 -- "${a[@]}"
  [ "$(q mp1.mhdb "SELECT COUNT(*) FROM process")" = 1 ] || { echo "rerun: stale process"; exit 1; }
  ls mp1.*.mht >/dev/null 2>&1 && { echo "rerun: stale per-process trace left"; exit 1; }
  # a process that changes directory still writes beside the others (absolute MEMHEAT_TRACE)
  mkdir -p sub
  "$memheat" run -q --backend oclgrind -o cdrun -- sh -c '(cd sub && "$0" --only patHot) & "$0" --only patHot & wait' "$host"
  [ "$(q cdrun.mhdb "SELECT COUNT(*) FROM process")" = 2 ] || { echo "a process in another directory was lost"; exit 1; }
  # -o substitutions: rank and host
  host_short=$(hostname | cut -d. -f1)
  RANK=3 "$memheat" run -q --backend oclgrind -o "r%r_%h" -- "${a[@]}"
  [ -s "r3_$host_short.mhdb" ] || { echo "-o r%r_%h: no r3_$host_short.mhdb"; ls; exit 1; }
  [ "$(q "r3_$host_short.mhdb" "SELECT rank FROM process")" = 3 ] || { echo "rank not recorded"; exit 1; }
  if "$memheat" run -q --backend oclgrind -o "bad%z" -- "${a[@]}" 2>err.txt; then echo "-o bad%z accepted"; exit 1; fi
  grep -q "%z" err.txt || { echo "-o bad%z: no message naming it"; cat err.txt; exit 1; }
  # merge: per-rank profiles into one, nothing lost, processes renumbered
  "$memheat" merge -q mp2.mhdb "r3_$host_short.mhdb" alone_b.mhdb -o job.mhdb
  [ "$(q job.mhdb "SELECT COUNT(*) FROM process")" = 4 ] || { echo "merge: processes"; exit 1; }
  [ "$(q job.mhdb "SELECT group_concat(id) FROM process")" = "1,2,3,4" ] || { echo "merge: ids"; exit 1; }
  # every map's rows kept (SUM(nrows): what the maps read), those of maps of
  # the same content once: r3 ran what mp2's processes ran, so stored rows are fewer
  ma=$(q mp2.mhdb "SELECT SUM(nrows) FROM heat_map")
  mr=$(q "r3_$host_short.mhdb" "SELECT SUM(nrows) FROM heat_map")
  mb=$(q alone_b.mhdb "SELECT SUM(nrows) FROM heat_map")
  [ "$(q job.mhdb "SELECT SUM(nrows) FROM heat_map")" = "$((ma + mr + mb))" ] || { echo "merge: heat rows lost"; exit 1; }
  [ "$(q job.mhdb "SELECT COUNT(*) FROM heat_row")" -lt "$((ma + mr + mb))" ] || { echo "merge: equal heat maps not kept once"; exit 1; }
  la=$(q mp2.mhdb "SELECT COUNT(*) FROM launch"); lr=$(q "r3_$host_short.mhdb" "SELECT COUNT(*) FROM launch")
  [ "$(q job.mhdb "SELECT COUNT(*) FROM launch")" = "$((la + lr + tb))" ] || { echo "merge: launches lost"; exit 1; }
  [ "$(q job.mhdb "SELECT COUNT(*) FROM heat_map m LEFT JOIN launch l ON l.id = m.launch WHERE l.id IS NULL")" = 0 ] ||
    { echo "merge: heat map of no launch"; exit 1; }
  "$memheat" info job.mhdb | grep -q "rank 3" || { echo "merge: rank lost"; exit 1; }
  if "$memheat" merge mp2.mhdb err.txt -o bad.mhdb 2>err2.txt; then echo "merge of a non-profile accepted"; exit 1; fi
  [ "$(wc -l <err2.txt)" = 1 ] && grep -q "err.txt" err2.txt || { echo "merge: not one line naming the file"; cat err2.txt; exit 1; }
  [ ! -e bad.mhdb ] || { echo "merge: output written after an error"; exit 1; }
  ;;
*)
  echo "unknown mode $mode"; exit 2 ;;
esac
echo "e2e $mode: ok"
