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
  src/collectors/cupti/inject.c src/collectors/cupti/events.c src/collectors/cupti/counters.c src/timing/timing.c src/util/err.c \
  -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lcupti -lcuda $LJ -Wl,-rpath,/usr/local/cuda/lib64 -lpthread -lm
gcc $CF -o "$B/mh-timing-tool" bench/timing/timing_tool.c src/run/backends.c src/run/cmd.c src/run/cuda.c \
  src/run/cupti.c src/run/detect_opencl.c src/run/find.c src/run/oclgrind.c src/run/spawn.c src/collectors/collect.c \
  src/timing/timing.c src/timing/merge.c src/analyses/bandwidth.c src/util/err.c $LJ -lm
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
if [ -f "$B/crash.json" ]; then
  python3 -c "import json; j = json.load(open('$B/crash.json')); print('kept after the crash:', len(j['kernels']), 'kernel(s), runs', j['runs'])"
fi

echo "== side by side"
PYTHONUNBUFFERED=1 python3 bench/timing/compare.py --build "$B" --out "$OUTDIR" "$@"

echo "== overlap: SAXPY pipelined over two streams from pinned memory (timing pass only)"
"$B/mh-timing-tool" run --no-counters -o "$OUTDIR/pipeline.json" -- "$B/kernels" --pipeline --n 268435456 \
  | tee "$OUTDIR/pipeline.txt"

echo "== worst case for per-launch cost: 50000 launches of a one-warp kernel (end-to-end, median of 5)"
python3 - "$B" <<'PY' | tee "$OUTDIR/tiny.txt"
import os, statistics, subprocess, sys, time
b = os.path.abspath(sys.argv[1])
prog = [os.path.join(b, "kernels"), "--tiny", "50000"]
lib = os.path.join(b, "lib", "memheat", "libmemheat_cupti.so")
subprocess.run(prog, check=True, stdout=subprocess.DEVNULL)
t = {"plain": [], "events": [], "activity": []}
for i in range(5):
    for v in t:
        env = None if v == "plain" else dict(os.environ, CUDA_INJECTION64_PATH=lib, MEMHEAT_TIMING_MODE="timing",
                                             MEMHEAT_TIMING_KERNELS=v, MEMHEAT_TIMING_OUT=os.path.join(b, "tiny.json"))
        t0 = time.perf_counter()
        subprocess.run(prog, env=env, check=True, stdout=subprocess.DEVNULL)
        t[v].append(time.perf_counter() - t0)
p = statistics.median(t["plain"])
print({v: (round(statistics.median(x), 4), round(statistics.median(x) / p, 3)) for v, x in t.items()})
PY
