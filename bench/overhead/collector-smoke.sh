#!/usr/bin/env bash
# collector-smoke.sh -- builds the CUDA collector, the examples and trace_stats
# with plain gcc/nvcc (no CMake, no memheat CLI), runs each example with and
# without the collector injected, and prints checksums, wall times and the
# per-launch trace summary. A quick check of the collector alone on a GPU
# machine; scripts/gpu-check.sh is the full check.
# usage: bench/overhead/collector-smoke.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${1:-${OUT:-/tmp}/smoke}
mkdir -p "$O"
S=/usr/local/cuda/compute-sanitizer
L=/tmp/mh-smoke
mkdir -p $L
C="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -fPIC -Iinclude -Isrc -Wall -Wextra -Werror"
gcc $C -shared -I$S/include -I/usr/local/cuda/include -Isrc/collectors/cuda -o $L/libmemheat_cuda.so \
  src/collectors/cuda/inject.c src/collectors/cuda/demangle.c src/collectors/collect.c src/trace/*.c src/util/*.c \
  -L$S -lsanitizer-public -Wl,-rpath,$S -L/usr/local/cuda/lib64/stubs -lcuda -lzstd -lpthread -lstdc++ || exit 1
nvcc --compile-as-tools-patch --fatbin -gencode arch=compute_90,code=sm_90 -I$S/include -Iinclude \
  -o $L/memheat_cuda_patch.fatbin src/collectors/cuda/patch.cu || exit 1
gcc $C -o $L/trace_stats bench/overhead/trace_stats.c src/trace/*.c src/util/*.c -lzstd -lm || exit 1
for e in gemm spmv gramschmidt smem_private smem_broadcast coalesced; do
  nvcc -arch=sm_90 -O2 -lineinfo -o $L/$e examples/cuda/$e.cu -lpthread || exit 1
done
echo "built"
now() { date +%s.%N; }
run() { # name args...
  local n=$1; shift
  local t0 t1 t2
  t0=$(now); timeout 300 "$@" >"$O/$n.plain" 2>&1; local r0=$?; t1=$(now)
  MEMHEAT_TRACE=$O/$n.mht CUDA_INJECTION64_PATH=$L/libmemheat_cuda.so timeout 300 "$@" >"$O/$n.traced" 2>&1
  local r1=$?; t2=$(now)
  awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" -v r0=$r0 -v r1=$r1 \
    'BEGIN{printf "%-16s rc %d/%d plain %.2fs traced %.2fs ratio %.2f\n", n, r0, r1, b-a, c-b, (c-b)/(b-a)}'
  if diff <(grep ^checksum "$O/$n.plain") <(grep ^checksum "$O/$n.traced") >/dev/null; then echo "  checksums equal"
  else echo "  CHECKSUMS DIFFER"; head -3 "$O/$n.traced"; fi
  $L/trace_stats "$O/$n.mht" >"$O/$n.stats" 2>&1; tail -2 "$O/$n.stats"; grep -m3 "^launch\|^dropped" "$O/$n.stats"
}
run gemm_v00 $L/gemm v00 512
run gemm_v01 $L/gemm v01 512
run spmv $L/spmv 65536
run smem_private $L/smem_private
run smem_broadcast $L/smem_broadcast
run coalesced $L/coalesced 1048576 50
run gramschmidt $L/gramschmidt 256
