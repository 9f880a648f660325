# MemheatCudaPrograms.cmake -- the set-up every folder of CUDA programs shares
# (examples/cuda, bench/oracle): nvcc as a language, the folder's own warning
# flags (the project's C flags are not nvcc options), the architectures.
# A macro, so that the language and the directory properties land in the
# calling folder. Sets OK_VAR to TRUE when CUDA programs can be built there.
include(CheckLanguage)
macro(memheat_cuda_programs OK_VAR)
  set(${OK_VAR} FALSE)
  if(MEMHEAT_HAVE_CUDA)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      enable_language(CUDA)
      set_property(DIRECTORY PROPERTY COMPILE_OPTIONS "")
      set_property(DIRECTORY PROPERTY LINK_OPTIONS "")
      add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
      if(MEMHEAT_WERROR)
        add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
      endif()
      set(MEMHEAT_EXAMPLE_CUDA_ARCHS "75;80;86;89;90" CACHE STRING "CUDA architectures of the example programs")
      set(${OK_VAR} TRUE)
    endif()
  endif()
endmacro()
