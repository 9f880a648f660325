# The Debian package (docs/install.md): `cpack -G DEB` in the build folder
# writes memheat_<version>_amd64.deb with everything `cmake --install` puts
# under /usr. Dependencies come from dpkg-shlibdeps (libsqlite3-0, libzstd1,
# libjansson4, libgsl27, liboclgrind-21.10, libllvm14, libc6, ...: whatever the
# ELF files link); the Oclgrind simulator program is recommended (OpenCL
# back end). CUDA parts, when built, link the NVIDIA toolkit's libraries,
# which are not Debian packages: they are not declared (see docs/install.md).
set(CPACK_PACKAGE_NAME memheat)
set(CPACK_PACKAGE_VENDOR "memheat")
set(CPACK_PACKAGE_CONTACT "memheat maintainers <memheat@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU memory-performance analyzer (heat maps, access patterns, locality)")
set(CPACK_PACKAGE_DESCRIPTION
    "memheat profiles the memory accesses of CUDA programs (Compute Sanitizer and CUPTI\n\
injection libraries) and OpenCL programs (under the Oclgrind simulator), and reports\n\
word-sector heat maps, access patterns with advice, locality metrics and bandwidth.\n\
It also ships libmemheat_split, a C library that pipelines data-parallel loops whose\n\
data exceed device memory.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # memheat_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # libmemheat_split.so.0: shlibs + ldconfig trigger
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "oclgrind")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config")
include(CPack)
