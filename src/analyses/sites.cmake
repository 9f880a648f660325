# Call sites (memheat/sites.h): native frames symbolised with elfutils' libdw.
mh_find_lib(dw elfutils/libdwfl.h dw)
target_link_libraries(memheat_core PUBLIC mh::dw)
