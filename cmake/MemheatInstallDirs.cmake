# Where `cmake --install` puts memheat (issue 16, docs/install.md). GNU
# directories for the public parts (bin/, include/, the split library's lib/,
# share/man, share/bash-completion); one private folder for what only memheat
# loads or runs (collectors, plugin, device patch, helper programs), as Debian
# does for /usr/lib/<package>. memheat finds that folder relative to its own
# executable (MEMHEAT_PKGLIBDIR_REL, src/run/find.c), so an installed tree
# can be moved or unpacked anywhere.
include(GNUInstallDirs)
# Two install components: memheat (everything by default) and cuda (what
# only works with the NVIDIA driver and toolkit; its own Debian package).
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME memheat)
set(MEMHEAT_INSTALL_PKGLIBDIR "lib/memheat" CACHE STRING
    "memheat's private folder (collectors, plugin, helper programs), relative to the prefix")
file(RELATIVE_PATH MEMHEAT_PKGLIBDIR_REL /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${MEMHEAT_INSTALL_PKGLIBDIR})
