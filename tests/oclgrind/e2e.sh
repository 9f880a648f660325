#!/usr/bin/env bash
# e2e.sh -- end-to-end tests of the Oclgrind path: `memheat run --backend
# oclgrind` on examples/opencl -> trace -> checks (test_ocl_trace) and
# `memheat heatmap`. Called by ctest (tests/oclgrind/CMakeLists.txt):
#   e2e.sh MODE MEMHEAT OCL_EXAMPLES TEST_OCL_TRACE WORKDIR
# MODE: count | heat | matmul | auto | policy. Exit 0 = pass.
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
*)
  echo "unknown mode $mode"; exit 2 ;;
esac
echo "e2e $mode: ok"
