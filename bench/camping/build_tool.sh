#!/usr/bin/env bash
# build_tool.sh -- compile camp_tool without CMake (GPU machine: after
# `. scripts/gpu-env.sh`, libraries come from $MH_SYSROOT). Output: $1 (default /tmp/camp_tool).
set -eu
out=${1:-/tmp/camp_tool}
root=$(cd "$(dirname "$0")/../.." && pwd)
sys=${MH_SYSROOT:-}
inc=(-I"$root/include" -I"$root/src"); lib=()
if [ -n "$sys" ]; then inc+=(-I"$sys/usr/include"); lib+=(-L"$sys/usr/lib/x86_64-linux-gnu" -Wl,-rpath,"$sys/usr/lib/x86_64-linux-gnu"); fi
gcc -std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L "${inc[@]}" \
    "$root/bench/camping/camp_tool.c" "$root/src/analyses/camp.c" "$root/src/util/err.c" \
    "${lib[@]}" -lgsl -lgslcblas -ljansson -lm -o "$out"
