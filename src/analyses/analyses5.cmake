# Locality metrics (AIWC), pattern detection (CUTHERMO IV-C), bank conflicts:
# their findings and tables are JSON too (jansson); the pass runs them on
# worker threads.
target_link_libraries(memheat_core PUBLIC mh::jansson)
find_package(Threads REQUIRED)
target_link_libraries(memheat_core PUBLIC Threads::Threads)
