# MemheatLayers.cmake -- one static library per layer of src/ (bottom to top:
# util, trace, timing, collectors, sched, analyses, pass, render, store,
# import, run, report; docs/ARCHITECTURE.md), each seeing only its own
# folder and those of the layers it links: an include of a higher layer's
# header does not build (tests/layers). A layer's headers are included as
# "<layer>/<file>.h"; the build gives each layer a folder of its own that
# holds only a link to its source folder, so that no layer sees src/ whole.
# include/memheat/ (errors and the formats every layer shares) is seen by all.
#
#   mh_layer(NAME SOURCES... [USES layer...] [LIBS lib...])
# makes memheat_NAME from src/NAME's SOURCES; USES: the lower layers it
# includes and calls (public: their headers are in its own); LIBS: other
# libraries. memheat_core links every layer (tests, benches, tools).
add_library(memheat_core INTERFACE)
target_include_directories(memheat_core INTERFACE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)

function(mh_layer name)
  cmake_parse_arguments(L "" "" "USES;LIBS" ${ARGN})
  set(inc ${PROJECT_BINARY_DIR}/layers/${name})
  if(NOT EXISTS ${inc}/${name})
    file(MAKE_DIRECTORY ${inc})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${inc}/${name} SYMBOLIC)
  endif()
  add_library(memheat_${name} STATIC ${L_UNPARSED_ARGUMENTS})
  target_include_directories(memheat_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${inc})
  foreach(u ${L_USES})
    target_link_libraries(memheat_${name} PUBLIC memheat_${u})
  endforeach()
  if(L_LIBS)
    target_link_libraries(memheat_${name} PUBLIC ${L_LIBS})
  endif()
  target_link_libraries(memheat_core INTERFACE memheat_${name})
endfunction()
