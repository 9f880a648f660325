#!/usr/bin/env bash
# bench/overhead/patch_race.sh -- ON THE GPU MACHINE: the patch race of the
# CUDA collector (docs/cuda-collector.md, "Patching while other threads
# launch"). Runs the coalesced example at 2^26 elements (two host threads,
# two streams, ~0.3 ms kernels) RUNS times plain and under `memheat run
# --no-timing` in each VARIANT, and prints per run whether its checksums
# equal plain's, the first error line and the collector's counters
# (MEMHEAT_CUDA_DEBUG=1: patches, unpatches, gate timeouts).
#   VARIANTS: gate (default collector), nogate (MEMHEAT_CUDA_PATCH_SYNC=0),
#             keep (never unpatch), keepnogate (both)
# usage: bench/overhead/patch_race.sh BUILD_DIR [RESULT_DIR]   env RUNS=8 VARIANTS="gate"
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:?usage: patch_race.sh BUILD_DIR [RESULT_DIR]}
R=${2:-${OUT:-/tmp}/patch-race}
RUNS=${RUNS:-8}
VARIANTS=${VARIANTS:-gate}
mkdir -p "$R"
E=$B/examples/cuda/coalesced
"$E" 67108864 20 >"$R/plain.out" 2>&1 || { echo "FAIL plain run: $(tail -1 "$R/plain.out")"; exit 1; }
bad_all=0
for v in $VARIANTS; do
  case $v in
    gate) env=() ;;
    nogate) env=(MEMHEAT_CUDA_PATCH_SYNC=0) ;;
    keep) env=(MEMHEAT_CUDA_KEEP_PATCHED=1) ;;
    keepnogate) env=(MEMHEAT_CUDA_KEEP_PATCHED=1 MEMHEAT_CUDA_PATCH_SYNC=0) ;;
    *) echo "unknown variant $v"; exit 2 ;;
  esac
  bad=0
  for i in $(seq 1 "$RUNS"); do
    t0=$(date +%s.%N)
    env "${env[@]}" MEMHEAT_CUDA_DEBUG=1 timeout 120 "$B/memheat" run --no-timing -q -o "$R/$v$i" -- "$E" 67108864 20 \
      >"$R/$v$i.out" 2>"$R/$v$i.err"
    rc=$?
    t1=$(date +%s.%N)
    same=no
    diff -q <(grep '^checksum' "$R/plain.out") <(grep '^checksum' "$R/$v$i.out") >/dev/null && [ $rc -eq 0 ] && same=yes
    [ $same = yes ] || bad=$((bad + 1))
    printf '%s run %d: rc %d, outputs as plain: %s, %.2f s; %s %s\n' "$v" "$i" "$rc" "$same" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(grep -m1 -o 'modules patched.*' "$R/$v$i.err")" \
      "$(grep -m1 -E 'illegal|error' "$R/$v$i.err" "$R/$v$i.out" | head -1)"
  done
  echo "$v: $bad of $RUNS runs differ or died"
  bad_all=$((bad_all + bad))
done
[ $bad_all -eq 0 ]
