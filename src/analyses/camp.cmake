# Partition-camping model (issue 8, CampProf): GSL regression + jansson model file.
target_link_libraries(memheat_core PUBLIC mh::gsl mh::jansson)
