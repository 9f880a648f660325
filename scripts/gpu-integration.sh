#!/usr/bin/env bash
# gpu-integration.sh -- on the GPU machine, the whole user path in one go:
# build; heat-map checks of the CUDA examples (gpu-check.sh) and pattern
# precision/recall (gpu-check-patterns.sh); `memheat run` with every pass
# (timing + counters + trace) on gemm; report; calibrate --bandwidth and
# --camping; band. Results under RESULT_DIR (default /tmp/integ; packed into $OUT/integ.tgz).
# usage: scripts/gpu-integration.sh [BUILD_DIR] [RESULT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-/tmp/integ}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH MEMHEAT_MODEL_DIR=$R/models MEMHEAT_CALIBRATION=$R/calibration.json
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$R/device.txt"
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 \
  >"$R/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cuda_patch memheat_cupti memheat-bwcal \
    camp_bench_build test_labeled ex_cuda_gemm ex_cuda_spmv ex_cuda_gramschmidt ex_cuda_smem_private \
    ex_cuda_smem_broadcast ex_cuda_coalesced >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "FAIL build"; exit 1; }
echo "== build $(( $(date +%s) - t0 )) s"
M=$B/memheat
st=0
if [ -z "${SKIP_CHECK:-}" ]; then
  echo "== gpu-check"; timeout 200 scripts/gpu-check.sh "$B" "$R/check" >"$R/check.txt" 2>&1 || st=1
  grep -E "PASS|FAIL" "$R/check.txt" | tail -25
fi
echo "== patterns";     timeout 120 scripts/gpu-check-patterns.sh "$B" "$R/patterns" >"$R/patterns.txt" 2>&1 || st=1; tail -8 "$R/patterns.txt"
echo "== calibrate --bandwidth"; timeout 60 "$M" calibrate --bandwidth 2>&1 | tail -3
echo "== calibrate --camping";   timeout 150 "$M" calibrate --camping 2>&1 | tail -6
echo "== run (timing + counters + trace): gemm"
timeout 120 "$M" run --keep-trace -o "$R/gemm" -- "$B/examples/cuda/gemm" both 512 >"$R/run.txt" 2>&1; echo "rc=$?"
head -40 "$R/run.txt"
echo "== band";   timeout 30 "$M" band "$R/gemm.mhdb" 2>&1 | head -10
echo "== report"; timeout 60 "$M" report "$R/gemm.mhdb" -o "$R/gemm.html" 2>&1 | tail -2; ls -la "$R/gemm.html"
echo "== analyze"; timeout 60 "$M" analyze "$R/gemm.mht" -o "$R/gemm.findings.json" 2>&1 | head -30
# What the patched code costs launches that are not traced: the coalesced
# example times its 100 saxpy launches itself (gpu_ms, CUDA events). Runs:
# plain; memheat with no launch selected (every launch runs the patched code
# and returns at once); memheat tracing only the first launch; tracing all.
echo "== cost of untraced launches (coalesced example: 2 threads x 50 launches; median of 3 gpu_ms)"
gms() { "$@" 2>&1 >/dev/null | awk '/^gpu_ms/ {s += $2} END {print s}'; }
for mode in plain none first all; do
  vals=""
  for i in 1 2 3; do
    case $mode in
      plain) v=$(gms "$B/examples/cuda/coalesced") ;;
      none)  v=$(gms "$M" run -q --no-timing --kernel '^no_such_kernel$' -o "$R/u_$mode" -- "$B/examples/cuda/coalesced") ;;
      first) v=$(gms "$M" run -q --no-timing --launch-count 1 -o "$R/u_$mode" -- "$B/examples/cuda/coalesced") ;;
      all)   v=$(gms "$M" run -q --no-timing -o "$R/u_$mode" -- "$B/examples/cuda/coalesced") ;;
    esac
    vals="$vals $v"
  done
  echo "$mode gpu_ms:$vals median $(echo $vals | tr ' ' '\n' | sort -g | sed -n 2p)"
done
rm -f "$R"/*.mht "$R"/check/*.mht "$R"/patterns/*.mht 2>/dev/null
[ -n "${OUT:-}" ] && tar czf "$OUT/integ.tgz" -C "$R" . 2>/dev/null
exit $st
