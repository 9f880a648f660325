#!/usr/bin/env bash
# bench/timing/run.sh -- ON THE GPU MACHINE: builds memheat's timing collector,
# memheat-bwcal, mh-timing-tool and the workload (copy, SAXPY, transpose), then
# measures side by side in one run (compare.py): memheat vs ncu kernel times and
# DRAM bytes, SAXPY's bandwidth vs the blog formula, and the timing pass's
# end-to-end overhead. Also: bandwidth calibration and the crash path.
#   . scripts/gpu-env.sh first is done here; carry .gpudeps.
#   usage: bench/timing/run.sh OUTDIR [compare.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: run.sh OUTDIR}; shift
. scripts/gpu-env.sh
B=build-timing-gpu
mkdir -p "$B/lib/memheat" "$OUTDIR"
SR=/tmp/mh-sysroot/usr
CF="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror -Iinclude -Isrc -I$SR/include -I/usr/local/cuda/include"
LJ="-L$SR/lib/x86_64-linux-gnu -ljansson -Wl,-rpath,$SR/lib/x86_64-linux-gnu"
echo "== build"
gcc $CF -Isrc/collectors/cupti/compat -fPIC -fvisibility=hidden -shared -o "$B/lib/memheat/libmemheat_cupti.so" \
  src/collectors/cupti/inject.c src/collectors/cupti/events.c src/collectors/cupti/counters.c src/collectors/cupti/timing.c src/util/err.c \
  -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lcupti -lcuda $LJ -Wl,-rpath,/usr/local/cuda/lib64 -lpthread -lm
gcc $CF -o "$B/mh-timing-tool" bench/timing/timing_tool.c src/cli/spawn.c src/collectors/cupti/run_timing.c \
  src/collectors/cupti/timing.c src/analyses/bandwidth.c src/util/err.c $LJ -lm
nvcc -O3 -arch=sm_90 -o "$B/lib/memheat/memheat-bwcal" src/collectors/cupti/bwcal.cu
nvcc -O3 -arch=sm_90 -o "$B/kernels" bench/timing/kernels.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv | tee "$OUTDIR/gpu.txt"

echo "== calibrate --bandwidth (memheat-bwcal + store)"
export MEMHEAT_CALIBRATION=$PWD/$B/calibration.json
"$B/lib/memheat/memheat-bwcal" -o "$OUTDIR/bwcal.json"
cat "$OUTDIR/bwcal.json"
"$B/mh-timing-tool" store-cal "$OUTDIR/bwcal.json"

echo "== crash path: the program aborts after its first kernel"
set +e
"$B/mh-timing-tool" run -o "$B/crash.json" -- "$B/kernels" --n 1048576 --side 1024 --reps 2 --crash \
  > "$OUTDIR/crash.txt" 2>&1
echo "exit status $?" >> "$OUTDIR/crash.txt"
set -e
tail -3 "$OUTDIR/crash.txt"

echo "== side by side"
PYTHONUNBUFFERED=1 python3 bench/timing/compare.py --build "$B" --out "$OUTDIR" "$@"
