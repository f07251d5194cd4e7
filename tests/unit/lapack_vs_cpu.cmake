# lapack_vs_cpu_test: {s,d,c,z}potrf and {s,d,c,z}getrf through libgpushim.so's exported
# entry points (standard and 64_ names) against OpenBLAS called directly
# (tests/unit/lapack_vs_cpu_test.cpp). Included from tests/unit/CMakeLists.txt, after
# find_package(GTest) and shim_vs_cpu.cmake (whose GPUSHIM_TEST_OPENBLAS it shares).
#
# The executable links no BLAS: it dlopen()s the shim, the 32-bit OpenBLAS and Debian's ILP64
# OpenBLAS (libopenblas64-0-pthread; the reference for the 64_ names, and the CPU library the
# shim must find for them by itself). It runs once per variant below, each with a
# GPUSHIM_REPORT that check_report.py then reads:
#   offload   forced offload (GPUSHIM_THRESHOLD=0) to the backend under test; the CPU library
#             of the standard names is the 32-bit OpenBLAS (main() sets GPUSHIM_CPU_BLAS)
#   faults    every 7th device operation fails: those calls must be recomputed on the CPU, and
#             the others complete on the device
#   faults3   every 3rd device operation fails: as a factorization takes 4 (POTRF: upload,
#             factor, download the factor and INFO) or 5 (GETRF: and the pivots), no call
#             completes on the device (but for interleaved callers); each fails at another step
#   small_device  256 KiB of device memory: the larger calls (a matrix of 270 KB or more; INFO
#             and the pivots take a 64 KiB pool granule each) stay on the CPU
#   disabled  GPUSHIM_DISABLE=1: everything on the CPU
# faults, faults3, small_device and disabled set GPUSHIM_CPU_BLAS empty: the shim searches the process, as in a real
# one. The backend under test is $TEST_GPUSHIM_BACKEND when the test runs (default hostsim);
# with another backend, faults, faults3 and small_device skip (they need hostsim's
# GPUSHIM_HOSTSIM_* settings).

if(CMAKE_LIBRARY_ARCHITECTURE)
  set(_lapack_vs_cpu_multiarch ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(_lapack_vs_cpu_multiarch x86_64-linux-gnu)
endif()
if(NOT DEFINED GPUSHIM_TEST_OPENBLAS)
  set(GPUSHIM_TEST_OPENBLAS "/usr/lib/${_lapack_vs_cpu_multiarch}/libopenblas.so.0"
      CACHE FILEPATH "The 32-bit OpenBLAS (with LAPACK) that the *_vs_cpu tests compare with")
endif()
set(GPUSHIM_TEST_OPENBLAS64 "/usr/lib/${_lapack_vs_cpu_multiarch}/libopenblas64.so.0"
    CACHE FILEPATH "Debian's ILP64 OpenBLAS (plain names, 64-bit integers) for lapack_vs_cpu_test")
if(NOT EXISTS "${GPUSHIM_TEST_OPENBLAS64}")
  message(WARNING "lapack_vs_cpu_test: ${GPUSHIM_TEST_OPENBLAS64} does not exist (install "
                  "libopenblas64-0-pthread): the 64_ names are tested under forced offload only")
endif()

add_executable(lapack_vs_cpu_test ${CMAKE_CURRENT_LIST_DIR}/lapack_vs_cpu_test.cpp)
target_link_libraries(lapack_vs_cpu_test PRIVATE gpushim_build_flags GTest::gtest ${CMAKE_DL_LIBS}
                                                 Threads::Threads)
target_compile_definitions(lapack_vs_cpu_test PRIVATE
  GPUSHIM_SHIM_PATH="$<TARGET_FILE:gpushim>"
  GPUSHIM_TEST_OPENBLAS_PATH="${GPUSHIM_TEST_OPENBLAS}"
  GPUSHIM_TEST_OPENBLAS64_PATH="${GPUSHIM_TEST_OPENBLAS64}")
# Loaded at run time, not linked: the shim, and the plugin that GPUSHIM_BACKEND=hostsim names.
add_dependencies(lapack_vs_cpu_test gpushim gpushim_hostsim)

find_package(Python3 COMPONENTS Interpreter)

set(_lapack_vs_cpu_routines spotrf,dpotrf,cpotrf,zpotrf,sgetrf,dgetrf,cgetrf,zgetrf)
set(_lapack_vs_cpu_common GPUSHIM_THRESHOLD=0 OPENBLAS_NUM_THREADS=1)
set(_lapack_vs_cpu_env_offload "")
set(_lapack_vs_cpu_env_faults GPUSHIM_HOSTSIM_FAIL_EVERY=7 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_faults3 GPUSHIM_HOSTSIM_FAIL_EVERY=3 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_small_device GPUSHIM_HOSTSIM_MEMORY=200000 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_disabled GPUSHIM_DISABLE=1 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_check_offload --gpu)
set(_lapack_vs_cpu_check_faults --hostsim-only --gpu --fallbacks)
set(_lapack_vs_cpu_check_faults3 --hostsim-only --fallbacks)
set(_lapack_vs_cpu_check_small_device --hostsim-only --gpu --more-cpu-than
    ${CMAKE_CURRENT_BINARY_DIR}/lapack_vs_cpu_offload.json)
set(_lapack_vs_cpu_check_disabled --no-gpu)

foreach(variant offload faults faults3 small_device disabled)
  set(report ${CMAKE_CURRENT_BINARY_DIR}/lapack_vs_cpu_${variant}.json)
  set(environment ${_lapack_vs_cpu_common} ${_lapack_vs_cpu_env_${variant}} GPUSHIM_REPORT=${report})
  add_test(NAME unit.lapack_vs_cpu.${variant} COMMAND lapack_vs_cpu_test)
  set_tests_properties(unit.lapack_vs_cpu.${variant} PROPERTIES
    ENVIRONMENT "${environment}"
    # no GPUSHIM_BACKEND of the caller's: main() sets it from TEST_GPUSHIM_BACKEND
    ENVIRONMENT_MODIFICATION GPUSHIM_BACKEND=unset:
    SKIP_RETURN_CODE 77
    FIXTURES_SETUP lapack_vs_cpu.${variant}
    LABELS "lapack_vs_cpu;lapack"
    TIMEOUT 300)
  if(Python3_Interpreter_FOUND)
    add_test(NAME unit.lapack_vs_cpu.${variant}.report
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/check_report.py ${report}
                     --routines ${_lapack_vs_cpu_routines} ${_lapack_vs_cpu_check_${variant}})
    set(required lapack_vs_cpu.${variant})
    if(variant STREQUAL "small_device")
      list(APPEND required lapack_vs_cpu.offload)
    endif()
    set_tests_properties(unit.lapack_vs_cpu.${variant}.report PROPERTIES
      FIXTURES_REQUIRED "${required}"
      SKIP_RETURN_CODE 77
      LABELS "lapack_vs_cpu;lapack")
  endif()
endforeach()
