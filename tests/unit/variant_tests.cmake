# What the *_vs_cpu test programs (tests/unit/shim_vs_cpu.cmake, tests/unit/lapack_vs_cpu.cmake)
# share: the reference OpenBLAS, the executable (which links no BLAS: it dlopen()s the shim and
# OpenBLAS, tests/unit/shim_test_harness.h) and its CTest variants, each run with a
# GPUSHIM_REPORT that check_report.py then reads. Included by each snippet.
include_guard(GLOBAL)

if(CMAKE_LIBRARY_ARCHITECTURE)
  set(GPUSHIM_TEST_MULTIARCH ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(GPUSHIM_TEST_MULTIARCH x86_64-linux-gnu)
endif()
set(GPUSHIM_TEST_OPENBLAS "/usr/lib/${GPUSHIM_TEST_MULTIARCH}/libopenblas.so.0"
    CACHE FILEPATH "The 32-bit OpenBLAS (Fortran and CBLAS names, LAPACK) that the *_vs_cpu tests compare with")

find_package(Python3 COMPONENTS Interpreter)

# gpushim_vs_cpu_executable(<target> <source> [<compile definition>...]): a test program that
# loads the shim (GPUSHIM_SHIM_PATH) and the 32-bit OpenBLAS (GPUSHIM_TEST_OPENBLAS_PATH) at
# run time; further compile definitions name further libraries.
function(gpushim_vs_cpu_executable target source)
  add_executable(${target} ${source})
  target_link_libraries(${target} PRIVATE gpushim_build_flags GTest::gtest ${CMAKE_DL_LIBS}
                                          Threads::Threads)
  target_compile_definitions(${target} PRIVATE
    GPUSHIM_SHIM_PATH="$<TARGET_FILE:gpushim>"
    GPUSHIM_TEST_OPENBLAS_PATH="${GPUSHIM_TEST_OPENBLAS}"
    ${ARGN})
  # Loaded at run time, not linked: the shim, and the plugin that GPUSHIM_BACKEND=hostsim
  # names. (The CUDA plugin, for TEST_GPUSHIM_BACKEND=cuda, is built whenever the toolkit is
  # found.)
  add_dependencies(${target} gpushim gpushim_hostsim)
endfunction()

# gpushim_vs_cpu_variant_tests(<name> VARIANTS <variant>... LABELS <label>...
#                              [COMMON <VAR=value>...] [CHECK <check_report.py argument>...])
# Runs <name>_test once per variant as unit.<name>.<variant>, with the environment COMMON,
# then ${_<name>_env_<variant>}, then GPUSHIM_REPORT=<binary dir>/<name>_<variant>.json, and
# TEST_GPUSHIM_SETTINGS naming these settings (the program removes any other); and,
# with Python, unit.<name>.<variant>.report: check_report.py on that report with CHECK, then
# ${_<name>_check_<variant>}. A report check that names the offload variant's report (small_device,
# memory_limit, little_pinned: compared with it) also requires the offload run. The program's exit status 77 is a skip. The
# variants listed in WITHOUT_REPORT run with no GPUSHIM_REPORT at all (a report makes every
# call take the routing path; without one, small calls leave at the entry point). The
# variants listed in CUDASIM run again as unit.<name>.<variant>.cudasim (and .report) on the
# CUDA plugin over the emulated CUDA libraries (tests/cudasim), where those are built; there
# GPUSHIM_HOSTSIM_FAIL_EVERY becomes CUDASIM_FAIL_EVERY (the emulated libraries fail about one
# allocation or library call in N, picked at random), GPUSHIM_HOSTSIM_MEMORY CUDASIM_MEMORY, and
# the report check drops --hostsim-only, asks for --some-fallbacks where hostsim's asks every
# routine for --fallbacks, and compares small_device with the offload variant's cudasim copy.
# In a cross build only the variants listed in EMULATED run (under the emulator, which is
# ten to forty times slower).
function(gpushim_vs_cpu_variant_tests name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" ""
                        "VARIANTS;LABELS;COMMON;CHECK;WITHOUT_REPORT;CUDASIM;EMULATED")
  foreach(variant IN LISTS arg_VARIANTS)
    if(CMAKE_CROSSCOMPILING AND NOT variant IN_LIST arg_EMULATED)
      continue()
    endif()
    set(backends hostsim)
    if(GPUSHIM_CUDASIM_DIR AND variant IN_LIST arg_CUDASIM)
      list(APPEND backends cudasim)
    endif()
    foreach(backend IN LISTS backends)
      set(environment ${arg_COMMON} ${_${name}_env_${variant}})
      set(check ${arg_CHECK} ${_${name}_check_${variant}})
      set(modifications "")
      set(labels ${arg_LABELS})
      set(check_environment "")
      set(timeout 300)
      set(suffix "")
      if(backend STREQUAL "cudasim")
        list(TRANSFORM environment REPLACE "^GPUSHIM_HOSTSIM_FAIL_EVERY=" "CUDASIM_FAIL_EVERY=")
        list(TRANSFORM environment REPLACE "^GPUSHIM_HOSTSIM_MEMORY=" "CUDASIM_MEMORY=")
        list(APPEND environment TEST_GPUSHIM_BACKEND=cuda)
        list(REMOVE_ITEM check --hostsim-only)
        list(TRANSFORM check REPLACE "^--fallbacks$" "--some-fallbacks")
        list(TRANSFORM check REPLACE "_offload\\.json$" "_offload_cudasim.json")
        list(APPEND modifications LD_LIBRARY_PATH=path_list_prepend:${GPUSHIM_CUDASIM_DIR})
        list(APPEND labels cudasim)
        set(check_environment TEST_GPUSHIM_BACKEND=cuda)
        set(timeout 600)
        set(suffix .cudasim)
      endif()
      set(test unit.${name}.${variant}${suffix})
      string(REPLACE "." "_" file_suffix "${suffix}")
      set(report ${CMAKE_CURRENT_BINARY_DIR}/${name}_${variant}${file_suffix}.json)
      if(NOT variant IN_LIST arg_WITHOUT_REPORT)
        list(APPEND environment GPUSHIM_REPORT=${report})
      endif()
      # The program removes every other GPUSHIM_ setting (tests/unit/shim_test_harness.h); its
      # GPUSHIM_BACKEND it sets from TEST_GPUSHIM_BACKEND.
      set(settings "")
      foreach(entry IN LISTS environment)
        if(entry MATCHES "^(GPUSHIM_[A-Z0-9_]+)=")
          list(APPEND settings ${CMAKE_MATCH_1})
        endif()
      endforeach()
      list(JOIN settings "," settings)
      list(APPEND environment TEST_GPUSHIM_SETTINGS=${settings})
      add_test(NAME ${test} COMMAND ${name}_test)
      set_tests_properties(${test} PROPERTIES
        ENVIRONMENT "${environment}"
        ENVIRONMENT_MODIFICATION "${modifications}"
        SKIP_RETURN_CODE 77
        FIXTURES_SETUP ${name}.${variant}${suffix}
        LABELS "${labels}"
        TIMEOUT ${timeout})
      if(Python3_Interpreter_FOUND AND NOT variant IN_LIST arg_WITHOUT_REPORT)
        add_test(NAME ${test}.report
                 COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_report.py
                         ${report} ${check})
        set(required ${name}.${variant}${suffix})
        if("${check}" MATCHES "_offload(_cudasim)?\\.json")  # compared with offload's report
          list(APPEND required ${name}.offload${suffix})
        endif()
        set_tests_properties(${test}.report PROPERTIES
          ENVIRONMENT "${check_environment}"
          FIXTURES_REQUIRED "${required}"
          SKIP_RETURN_CODE 77
          LABELS "${labels}")
      endif()
    endforeach()
  endforeach()
endfunction()
