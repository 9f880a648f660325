#!/usr/bin/env bash
# Source ON THE GPU MACHINE: unpacks .gpudeps/*.deb into /tmp/mh-sysroot and
# exports the paths CMake and the loader need. `. scripts/gpu-env.sh`
MH_SYSROOT=/tmp/mh-sysroot
if [ ! -d "$MH_SYSROOT/usr" ]; then
  mkdir -p "$MH_SYSROOT"
  for f in .gpudeps/*.deb; do dpkg -x "$f" "$MH_SYSROOT"; done
fi
export CMAKE_PREFIX_PATH="$MH_SYSROOT/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export CMAKE_LIBRARY_PATH="$MH_SYSROOT/usr/lib/x86_64-linux-gnu"
export CMAKE_INCLUDE_PATH="$MH_SYSROOT/usr/include"
export LD_LIBRARY_PATH="$MH_SYSROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
