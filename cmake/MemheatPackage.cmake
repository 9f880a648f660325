# The Debian packages (docs/install.md): `cpack -G DEB` in the build folder
# writes memheat_<version>_amd64.deb (install component memheat: the CLI, the
# Oclgrind plugin, the split library and its development files, man page,
# completion, docs) and, where CUDA parts were built, memheat-cuda_<version>_amd64.deb
# (component cuda: the CUDA tracer and its device patch, the CUPTI timer,
# memheat-bwcal, memheat-campbench). memheat's dependencies come from
# dpkg-shlibdeps (libsqlite3-0, libzstd1, libjansson4, libgsl27,
# liboclgrind-21.10, libllvm14, libc6, ...: whatever its ELF files link), and
# the Oclgrind simulator program is recommended. memheat-cuda links the
# NVIDIA driver and toolkit libraries (libcuda, CUPTI, the Compute Sanitizer),
# which are not Debian packages here: it declares only memheat.
set(CPACK_PACKAGE_NAME memheat)
set(CPACK_PACKAGE_VENDOR "memheat")
set(CPACK_PACKAGE_CONTACT "memheat maintainers <memheat@localhost>")
# Each package's Description (first line: the synopsis) is its CPACK_DEBIAN_<C>_DESCRIPTION.
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL memheat)
if(TARGET memheat_cuda OR TARGET memheat_cupti OR TARGET memheat-bwcal OR TARGET camp_bench_build)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_MEMHEAT_PACKAGE_NAME memheat)
set(CPACK_DEBIAN_MEMHEAT_PACKAGE_SHLIBDEPS ON)
if(MEMHEAT_HAVE_CUDA)  # where dpkg-shlibdeps finds libcudart (split library) outside ld.so.conf
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
set(CPACK_DEBIAN_MEMHEAT_PACKAGE_GENERATE_SHLIBS ON)  # libmemheat_split.so.0: shlibs + ldconfig trigger
set(CPACK_DEBIAN_MEMHEAT_PACKAGE_RECOMMENDS "oclgrind")
set(CPACK_DEBIAN_MEMHEAT_PACKAGE_SUGGESTS "pkg-config, memheat-cuda")
set(CPACK_DEBIAN_MEMHEAT_DESCRIPTION
    "GPU memory-performance analyzer (heat maps, access patterns, locality)\n\
memheat profiles the memory accesses of OpenCL programs under the Oclgrind\n\
simulator and of CUDA programs (with memheat-cuda), and reports word-sector\n\
heat maps, access patterns with advice, locality metrics and bandwidth. It\n\
also ships libmemheat_split, a C library that pipelines data-parallel loops\n\
whose data exceed device memory, with its headers, pkg-config file and CMake\n\
package.")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME memheat-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "memheat (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION
    "memheat's CUDA collectors (needs the NVIDIA driver and CUDA toolkit)\n\
The Compute Sanitizer injection library and device patch (memheat run's CUDA\n\
tracer), the CUPTI timing and counters library, and the calibration programs\n\
memheat-bwcal and memheat-campbench. They load the NVIDIA driver (libcuda), the\n\
toolkit's CUPTI and Compute Sanitizer libraries, which must be installed.")
include(CPack)
