# Partition-camping model (issue 8, CampProf): GSL regression + jansson model file.
target_sources(memheat_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/camp.c)
target_link_libraries(memheat_core PUBLIC mh::gsl mh::jansson)
