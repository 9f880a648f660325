# Locates the Debian libraries memheat links (zstd, SQLite, jansson, GSL) and the
# optional CUDA toolkit. Plain find_path/find_library so that an unpacked
# sysroot (CMAKE_PREFIX_PATH, used on the GPU machine) works as well as /usr.
function(mh_find_lib name header lib)
  find_path(${name}_INCLUDE ${header})
  find_library(${name}_LIBRARY ${lib})
  if(NOT ${name}_INCLUDE OR NOT ${name}_LIBRARY)
    message(FATAL_ERROR "memheat needs ${lib} (${header}); run scripts/install-deps.sh")
  endif()
  add_library(mh::${name} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(mh::${name} PROPERTIES
    IMPORTED_LOCATION ${${name}_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${${name}_INCLUDE})
endfunction()

mh_find_lib(zstd zstd.h zstd)
mh_find_lib(sqlite3 sqlite3.h sqlite3)
mh_find_lib(jansson jansson.h jansson)
mh_find_lib(gsl gsl/gsl_multifit.h gsl)
find_library(gslcblas_LIBRARY gslcblas)
if(gslcblas_LIBRARY)
  set_property(TARGET mh::gsl APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${gslcblas_LIBRARY})
endif()

# CUDA: optional. MEMHEAT_HAVE_CUDA = toolkit (nvcc + cudart + CUPTI headers);
# MEMHEAT_HAVE_SANITIZER = Compute Sanitizer API headers and library as well.
set(MEMHEAT_HAVE_CUDA OFF)
set(MEMHEAT_HAVE_SANITIZER OFF)
if(MEMHEAT_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
    set(MEMHEAT_HAVE_CUDA ON)
    get_filename_component(_mh_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
    find_path(MEMHEAT_SANITIZER_INCLUDE sanitizer.h
      HINTS ${_mh_cuda_root}/compute-sanitizer/include ${CUDAToolkit_INCLUDE_DIRS})
    find_library(MEMHEAT_SANITIZER_LIBRARY sanitizer-public
      HINTS ${_mh_cuda_root}/compute-sanitizer)
    if(MEMHEAT_SANITIZER_INCLUDE AND MEMHEAT_SANITIZER_LIBRARY)
      set(MEMHEAT_HAVE_SANITIZER ON)
    else()
      message(STATUS "memheat: Compute Sanitizer API not found; the CUDA collector is skipped")
    endif()
  else()
    message(STATUS "memheat: CUDA toolkit not found; CUDA parts are skipped")
  endif()
endif()
