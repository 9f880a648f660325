# Bandwidth / roofline / overlap / OpenMPC model (issue 6): pure C over timing JSON.
target_sources(memheat_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bandwidth.c)
target_link_libraries(memheat_core PUBLIC mh::jansson)
