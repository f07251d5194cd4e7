# shim_vs_cpu_test: every Level-3 routine through libgpushim.so's exported entry points
# against OpenBLAS called directly (tests/unit/shim_vs_cpu_test.cpp). Included from
# tests/unit/CMakeLists.txt, after find_package(GTest).
#
# The executable links no BLAS: it dlopen()s the shim and the reference OpenBLAS. It runs
# once per variant below, each with a GPUSHIM_REPORT that check_report.py then reads:
#   offload       forced offload (GPUSHIM_THRESHOLD=0) to the backend under test; the CPU
#                 BLAS is the 32-bit reference OpenBLAS (main() sets GPUSHIM_CPU_BLAS)
#   faults        every 7th device operation fails: those calls must be recomputed on the CPU
#   small_device  100000 bytes of device memory: larger calls must stay on the CPU
#   disabled      GPUSHIM_DISABLE=1: everything on the CPU
# The backend under test is $TEST_GPUSHIM_BACKEND when the test runs (main() reads it; the
# default is hostsim, the host-simulated device): `TEST_GPUSHIM_BACKEND=cuda ctest` runs
# offload and disabled on the CUDA plugin and skips faults and small_device, which need
# hostsim's GPUSHIM_HOSTSIM_* settings.
# The last three set GPUSHIM_CPU_BLAS empty, so that the shim searches for its CPU BLAS as in
# a real process: it finds the reference OpenBLAS the test loaded for the standard names, and
# Debian's ILP64 OpenBLAS (libopenblas64-0-pthread) for the 64_ names, which then run every
# case there, CPU fallbacks included.

if(CMAKE_LIBRARY_ARCHITECTURE)
  set(_shim_vs_cpu_multiarch ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(_shim_vs_cpu_multiarch x86_64-linux-gnu)
endif()
set(GPUSHIM_TEST_OPENBLAS "/usr/lib/${_shim_vs_cpu_multiarch}/libopenblas.so.0"
    CACHE FILEPATH "The 32-bit OpenBLAS (Fortran and CBLAS names) that shim_vs_cpu_test compares with")
if(NOT EXISTS "${GPUSHIM_TEST_OPENBLAS}")
  message(WARNING "shim_vs_cpu_test: ${GPUSHIM_TEST_OPENBLAS} does not exist (install "
                  "libopenblas0-pthread or set GPUSHIM_TEST_OPENBLAS); its tests will fail")
endif()

add_executable(shim_vs_cpu_test ${CMAKE_CURRENT_LIST_DIR}/shim_vs_cpu_test.cpp)
target_link_libraries(shim_vs_cpu_test PRIVATE gpushim_build_flags GTest::gtest ${CMAKE_DL_LIBS}
                                               Threads::Threads)
target_compile_definitions(shim_vs_cpu_test PRIVATE
  GPUSHIM_SHIM_PATH="$<TARGET_FILE:gpushim>"
  GPUSHIM_TEST_OPENBLAS_PATH="${GPUSHIM_TEST_OPENBLAS}")
# Loaded at run time, not linked: the shim, and the plugin that GPUSHIM_BACKEND=hostsim names.
# (The CUDA plugin, for TEST_GPUSHIM_BACKEND=cuda, is built whenever the toolkit is found.)
add_dependencies(shim_vs_cpu_test gpushim gpushim_hostsim)

find_package(Python3 COMPONENTS Interpreter)

set(_shim_vs_cpu_common GPUSHIM_THRESHOLD=0 OPENBLAS_NUM_THREADS=1)
set(_shim_vs_cpu_env_offload "")
set(_shim_vs_cpu_env_faults GPUSHIM_HOSTSIM_FAIL_EVERY=7 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_env_small_device GPUSHIM_HOSTSIM_MEMORY=100000 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_env_disabled GPUSHIM_DISABLE=1 GPUSHIM_CPU_BLAS=)
# Panels of a few columns and several copy threads: the pipelined path on every call, and
# faults that strike after some panels were delivered (the rest computed on the CPU).
set(_shim_vs_cpu_env_panels GPUSHIM_PANEL_BYTES=1024 GPUSHIM_COPY_THREADS=3)
set(_shim_vs_cpu_env_panel_faults GPUSHIM_PANEL_BYTES=1024 GPUSHIM_COPY_THREADS=3
    GPUSHIM_HOSTSIM_FAIL_EVERY=23 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_check_offload --gpu)
set(_shim_vs_cpu_check_faults --hostsim-only --gpu --fallbacks)
set(_shim_vs_cpu_check_small_device --hostsim-only --gpu --more-cpu-than
    ${CMAKE_CURRENT_BINARY_DIR}/shim_vs_cpu_offload.json)
set(_shim_vs_cpu_check_disabled --no-gpu)
set(_shim_vs_cpu_check_panels --gpu)
set(_shim_vs_cpu_check_panel_faults --hostsim-only --gpu --fallbacks)

foreach(variant offload faults small_device disabled panels panel_faults)
  set(report ${CMAKE_CURRENT_BINARY_DIR}/shim_vs_cpu_${variant}.json)
  set(environment ${_shim_vs_cpu_common} ${_shim_vs_cpu_env_${variant}} GPUSHIM_REPORT=${report})
  add_test(NAME unit.shim_vs_cpu.${variant} COMMAND shim_vs_cpu_test)
  set_tests_properties(unit.shim_vs_cpu.${variant} PROPERTIES
    ENVIRONMENT "${environment}"
    # no GPUSHIM_BACKEND of the caller's: main() sets it from TEST_GPUSHIM_BACKEND
    ENVIRONMENT_MODIFICATION GPUSHIM_BACKEND=unset:
    SKIP_RETURN_CODE 77
    FIXTURES_SETUP shim_vs_cpu.${variant}
    LABELS shim_vs_cpu
    TIMEOUT 300)
  if(Python3_Interpreter_FOUND)
    add_test(NAME unit.shim_vs_cpu.${variant}.report
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/check_report.py ${report}
                     ${_shim_vs_cpu_check_${variant}})
    set(required shim_vs_cpu.${variant})
    if(variant STREQUAL "small_device")
      list(APPEND required shim_vs_cpu.offload)
    endif()
    set_tests_properties(unit.shim_vs_cpu.${variant}.report PROPERTIES
      FIXTURES_REQUIRED "${required}"
      SKIP_RETURN_CODE 77
      LABELS shim_vs_cpu)
  endif()
endforeach()
