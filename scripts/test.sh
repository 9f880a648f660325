#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need, builds
# memheat, runs the whole ctest suite, then rebuilds with AddressSanitizer +
# UBSan (CPU parts only) and runs the suite again, minus tests labelled
# "noasan" (those that load memheat code into a program not built with ASan,
# measure the real process's memory, or run no memheat code at all).
# Both builds treat warnings as errors (MEMHEAT_WERROR, off for users).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
scripts/install-deps.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_WERROR=ON
cmake --build build -j "$JOBS"
(cd build && ctest --output-on-failure -j "$JOBS")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMEMHEAT_SANITIZE=ON -DMEMHEAT_CUDA=OFF -DMEMHEAT_WERROR=ON
cmake --build build-asan -j "$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j "$JOBS" -LE noasan)
