#!/bin/sh
# memheat run --backend cuda where the CUDA collector was not built (no
# Compute Sanitizer API): one clear line naming the collector, non-zero exit.
M=$1
out=$("$M" run --backend cuda --no-timing -q -o "${TMPDIR:-/tmp}/mh_run_missing_$$" -- true 2>&1)
rc=$?
rm -f "${TMPDIR:-/tmp}/mh_run_missing_$$".*
[ $rc -ne 0 ] || { echo "expected a non-zero exit, got 0"; exit 1; }
echo "$out" | grep -q "CUDA collector (libmemheat_cuda.so) is not installed" || { echo "unexpected message: $out"; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "expected one line, got: $out"; exit 1; }
echo "ok: $out"
