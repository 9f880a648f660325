# Issue 5: locality metrics (AIWC), pattern detection (CUTHERMO IV-C), bank
# conflicts, and the `memheat analyze` driver with its JSON output.
target_sources(memheat_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/canon.c
  ${CMAKE_CURRENT_LIST_DIR}/groupbuf.c
  ${CMAKE_CURRENT_LIST_DIR}/occur.c
  ${CMAKE_CURRENT_LIST_DIR}/locality.c
  ${CMAKE_CURRENT_LIST_DIR}/locality_steps.c
  ${CMAKE_CURRENT_LIST_DIR}/banks.c
  ${CMAKE_CURRENT_LIST_DIR}/patterns.c
  ${CMAKE_CURRENT_LIST_DIR}/pass.c
  ${CMAKE_CURRENT_LIST_DIR}/pass_units.c
  ${CMAKE_CURRENT_LIST_DIR}/analyze.c)
target_link_libraries(memheat_core PUBLIC mh::jansson)
# mh_pass feeds the analyses on worker threads.
find_package(Threads REQUIRED)
target_link_libraries(memheat_core PUBLIC Threads::Threads)
