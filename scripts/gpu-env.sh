#!/usr/bin/env bash
# Source ON THE GPU MACHINE: unpacks .gpudeps/*.deb into /tmp/mh-sysroot and
# exports the paths CMake and the loader need. `. scripts/gpu-env.sh`
MH_SYSROOT=/tmp/mh-sysroot
if [ ! -d "$MH_SYSROOT/usr" ] && [ -d .gpudeps ]; then
  mkdir -p "$MH_SYSROOT"
  for f in .gpudeps/*.deb; do dpkg -x "$f" "$MH_SYSROOT"; done
fi
export CMAKE_PREFIX_PATH="$MH_SYSROOT/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export CMAKE_LIBRARY_PATH="$MH_SYSROOT/usr/lib/x86_64-linux-gnu"
export CMAKE_INCLUDE_PATH="$MH_SYSROOT/usr/include"
export LD_LIBRARY_PATH="$MH_SYSROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"

# mh_gpu_build BUILD_DIR LOG TARGET...: configure (RelWithDebInfo, sm_90) and
# build the targets; on failure prints the errors and returns 1.
mh_gpu_build() {
  local b=$1 log=$2
  shift 2
  if ! { cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
          -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 && cmake --build "$b" -j"$(nproc)" --target "$@"; } >"$log" 2>&1; then
    grep -E "error|Error" "$log" | head -30
    return 1
  fi
}
