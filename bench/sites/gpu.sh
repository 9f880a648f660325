#!/usr/bin/env bash
# bench/sites/gpu.sh -- ON THE GPU MACHINE: call sites on real programs
# (issue 43). Builds memheat (scripts/gpu-env.sh), then:
#  1. cost: train.py plain, under `memheat run` with MEMHEAT_SITES=0 and =1
#     (RUNS rounds, interleaved; wall times in times.tsv)
#  2. train.py (under emit_nvtx: EMIT_NVTX=1 wraps it) and cnn.py:
#     `memheat analyze --group-by site|nvtx` and the report's first lines
#  3. the gemm CUDA example (built -g): the same
#  4. each profile's fix list (the first screen: every fix with the user's
#     call site) and its HTML report
# Results under $1 (default $OUT): one tar of everything.
set -uo pipefail
cd "$(dirname "$0")/../.."
R=${1:-${OUT:-/tmp/sites}}; B=${B:-build-gpu}; RUNS=${RUNS:-3}
mkdir -p "$R/w"; W=$R/w
. scripts/gpu-env.sh
mh_gpu_build "$B" "$W/build.log" memheat memheat_cuda memheat_cupti ex_cuda_gemm >"$W/build.txt" 2>&1 || { tail -30 "$W/build.log"; tar czf "$R/sites.tgz" -C "$R" w; exit 1; }
M=$B/memheat
python3 -c "import sys, torch; print(sys.version, torch.__version__)" > "$W/versions.txt" 2>&1
printf "run\tmode\twall_s\trc\n" > "$W/times.tsv"
for run in $(seq 1 "$RUNS"); do
  for mode in plain off on; do
    t0=$(date +%s.%N)
    case $mode in
      plain) STEPS=10 timeout 200 python3 bench/realworld/train.py >"$W/out_$mode.txt" 2>&1 ;;
      off) MEMHEAT_SITES=0 STEPS=10 timeout 200 $M run -q -o "$W/train_off" -- python3 bench/realworld/train.py >"$W/out_$mode.txt" 2>&1 ;;
      on) STEPS=10 timeout 200 $M run -q -o "$W/train_on" -- python3 bench/realworld/train.py >"$W/out_$mode.txt" 2>&1 ;;
    esac
    rc=$?; t1=$(date +%s.%N)
    printf "%s\t%s\t%s\t%s\n" "$run" "$mode" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')" "$rc" >> "$W/times.tsv"
  done
done
for g in site nvtx; do $M analyze "$W/train_on.mhdb" --group-by $g --max 15 > "$W/train_$g.txt" 2>&1; done
$M analyze "$W/train_on.mhdb" --group-by site --json > "$W/train_site.json" 2>&1
# emit_nvtx: backward launches tied to their forward call
cat > "$W/train_nvtx.py" <<'PY'
import runpy, torch
with torch.autograd.profiler.emit_nvtx():
    runpy.run_path("bench/realworld/train.py", run_name="__main__")
PY
STEPS=3 timeout 240 $M run -q -o "$W/train_emit" -- python3 "$W/train_nvtx.py" > "$W/out_emit.txt" 2>&1
for g in site nvtx; do $M analyze "$W/train_emit.mhdb" --group-by $g --max 15 > "$W/emit_$g.txt" 2>&1; done
STEPS=3 timeout 200 $M run -q -o "$W/cnn" -- python3 bench/sites/cnn.py > "$W/out_cnn.txt" 2>&1
for g in site nvtx kernel; do $M analyze "$W/cnn.mhdb" --group-by $g --max 15 > "$W/cnn_$g.txt" 2>&1; done
timeout 120 $M run -q -o "$W/gemm" -- "$B/examples/cuda/gemm" both 256 > "$W/out_gemm.txt" 2>&1
$M analyze "$W/gemm.mhdb" --group-by site --max 10 > "$W/gemm_site.txt" 2>&1
# the first screen: each fix with the user's call site (terminal and report)
for p in train_on train_emit cnn gemm; do
  $M analyze "$W/$p.mhdb" 2>/dev/null | sed -n '/What to fix first/,$p' > "$W/${p}_fixes.txt"
  $M report -q -o "$W/$p.html" "$W/$p.mhdb" > /dev/null 2>&1
  grep -o '"site":"[^"]*"' "$W/$p.html" | sort | uniq -c | sort -rn > "$W/${p}_html_sites.txt"
done
rm -f "$W"/*.mhdb.p*.tmp
tar czf "$R/sites.tgz" -C "$R" --exclude='*.mht' --exclude='*.mhdb' --exclude='*.html' w
