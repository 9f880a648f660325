#!/bin/sh
# libfuzzer.sh SRC WORK SECONDS [libFuzzer options...] -- mh_fuzz_lf under
# libFuzzer: builds it in a clang build of its own (WORK/build: everything
# instrumented for coverage, MEMHEAT_LIBFUZZER, with ASan and UBSan, or
# UBSan alone with LF_SANITIZE=undefined: about 3x the runs a second; CPU
# parts only) and runs it SECONDS (0: until -runs=N or a failure) on one
# core on a fresh copy of tests/fuzz/corpus. Exit 0: no crash, no sanitizer report, no failed check
# (bench/fuzz/README.md); 77 (ctest: skipped) without clang or its libFuzzer
# runtime (Debian: clang-14 and libclang-rt-14-dev, scripts/install-deps.sh).
# The build stays in WORK, so a second run only rebuilds what changed.
set -u
SRC=$1 WORK=$2 SECS=$3
shift 3
CC= CXX=
for v in -14 ""; do
    if command -v clang$v >/dev/null 2>&1 && command -v clang++$v >/dev/null 2>&1; then
        CC=clang$v CXX=clang++$v
        break
    fi
done
[ -n "$CC" ] || { echo "skip: no clang (scripts/install-deps.sh installs clang-14)"; exit 77; }
mkdir -p "$WORK" || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$WORK/probe.c"
"$CC" -fsanitize=fuzzer "$WORK/probe.c" -o "$WORK/probe" 2>/dev/null \
    || { echo "skip: $CC has no libFuzzer runtime (libclang-rt-14-dev)"; exit 77; }
case "${LF_SANITIZE:-address,undefined}" in
address,undefined) SAN="-DMEMHEAT_SANITIZE=ON" UB="" ;;
undefined) SAN="-DMEMHEAT_SANITIZE=OFF" UB="-fsanitize=undefined -fno-sanitize-recover=undefined" ;;
*) echo "LF_SANITIZE: address,undefined or undefined"; exit 2 ;;
esac
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_LIBFUZZER=ON $SAN -DMEMHEAT_CUDA=OFF \
      -DCMAKE_C_FLAGS="$UB" -DCMAKE_EXE_LINKER_FLAGS="$UB" \
      >"$WORK/cmake.log" 2>&1 || { tail -20 "$WORK/cmake.log"; exit 1; }
cmake --build "$WORK/build" --target mh_fuzz_lf -j "${JOBS:-2}" >"$WORK/build.log" 2>&1 \
    || { tail -30 "$WORK/build.log"; exit 1; }
rm -rf "$WORK/corpus" && mkdir -p "$WORK/corpus" && cp "$SRC"/tests/fuzz/corpus/* "$WORK/corpus"/ || exit 1
# the inputs are written and read back every run: on a tmpfs where there is
# one (on a disk, a third of each run was the file system), removed after
FW=${MH_FUZZ_WORK:-}
if [ -z "$FW" ]; then
    FW=$(mktemp -d /dev/shm/mh_fuzz_lf.XXXXXX 2>/dev/null || mktemp -d "$WORK/work.XXXXXX") || exit 1
    trap 'rm -rf "$FW"' EXIT
fi
# a small quarantine and short allocation stacks: the runs allocate and free
# whole chunks and tables, and the defaults made the kernel's page faults
# most of each run (leaks are still looked for at the end)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16:malloc_context_size=8} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
MH_FUZZ_WORK="$FW" MH_FUZZ_SEEDS="$SRC/tests/fuzz/corpus" \
    "$WORK/build/tests/fuzz/mh_fuzz_lf" -max_total_time="$SECS" -seed=1 -max_len=1048576 -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$WORK/" "$@" "$WORK/corpus"
