# lapack_vs_cpu_test: {s,d,c,z}potrf, getrf and sytrf through libgpushim.so's exported
# entry points (standard and 64_ names) against OpenBLAS called directly
# (tests/unit/lapack_vs_cpu_test.cpp). Included from tests/unit/CMakeLists.txt, after
# find_package(GTest); the executable and its variants come from tests/unit/variant_tests.cmake,
# shared with shim_vs_cpu.cmake.
#
# The executable links no BLAS: it dlopen()s the shim, the 32-bit OpenBLAS and Debian's ILP64
# OpenBLAS (libopenblas64-0-pthread; the reference for the 64_ names, and the CPU library the
# shim must find for them by itself). It runs once per variant below, each with a
# GPUSHIM_REPORT that check_report.py then reads, but for those that say "no report":
#   offload   forced offload (GPUSHIM_THRESHOLD=0) to the backend under test; the CPU library
#             of the standard names is the 32-bit OpenBLAS (main() sets GPUSHIM_CPU_BLAS)
#   faults    every 7th device operation fails: those calls must be recomputed on the CPU, and
#             the others complete on the device
#   faults3   every 3rd device operation fails: as a factorization takes 5 (POTRF: upload A
#             and INFO's -1, factor, download the factor and INFO) or 6 (GETRF, SYTRF: and the
#             pivots), no call completes on the device (but for interleaved callers); each fails
#             at another step
#   small_device  256 KiB of device memory: the larger calls (a matrix of 270 KB or more; INFO
#             and the pivots take a 64 KiB pool granule each) stay on the CPU
#   disabled  GPUSHIM_DISABLE=1: everything on the CPU
#   at_once   no report, GPUSHIM_THRESHOLD=100: the calls below it go to the CPU library at
#             once, before any other test; the larger ones to the device
#   disabled_at_once  no report, GPUSHIM_DISABLE=1: every call goes to the CPU library at once
# faults, faults3, small_device and disabled set GPUSHIM_CPU_BLAS empty: the shim searches the process, as in a real
# one. The backend under test is $TEST_GPUSHIM_BACKEND when the test runs (default hostsim);
# with another backend, faults, faults3 and small_device skip (they need hostsim's
# GPUSHIM_HOSTSIM_* settings).

include(${CMAKE_CURRENT_LIST_DIR}/variant_tests.cmake)  # GPUSHIM_TEST_OPENBLAS, the functions

set(GPUSHIM_TEST_OPENBLAS64 "/usr/lib/${GPUSHIM_TEST_MULTIARCH}/libopenblas64.so.0"
    CACHE FILEPATH "Debian's ILP64 OpenBLAS (plain names, 64-bit integers) for lapack_vs_cpu_test")
if(NOT EXISTS "${GPUSHIM_TEST_OPENBLAS64}")
  message(WARNING "lapack_vs_cpu_test: ${GPUSHIM_TEST_OPENBLAS64} does not exist (install "
                  "libopenblas64-0-pthread): the 64_ names are tested under forced offload only")
endif()

gpushim_vs_cpu_executable(lapack_vs_cpu_test ${CMAKE_CURRENT_LIST_DIR}/lapack_vs_cpu_test.cpp
  GPUSHIM_TEST_OPENBLAS64_PATH="${GPUSHIM_TEST_OPENBLAS64}")

set(_lapack_vs_cpu_routines
    spotrf,dpotrf,cpotrf,zpotrf,sgetrf,dgetrf,cgetrf,zgetrf,ssytrf,dsytrf,csytrf,zsytrf)
set(_lapack_vs_cpu_common GPUSHIM_THRESHOLD=0 OPENBLAS_NUM_THREADS=1)
set(_lapack_vs_cpu_env_offload "")
set(_lapack_vs_cpu_env_faults GPUSHIM_HOSTSIM_FAIL_EVERY=7 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_faults3 GPUSHIM_HOSTSIM_FAIL_EVERY=3 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_small_device GPUSHIM_HOSTSIM_MEMORY=200000 GPUSHIM_CPU_BLAS=)
# As shim_vs_cpu's memory_limit (shim_vs_cpu.cmake).
set(_lapack_vs_cpu_env_memory_limit GPUSHIM_GPU_MEMORY=200000 GPUSHIM_HOSTSIM_MEMORY=200000
    GPUSHIM_HOSTSIM_MEMORY_STRICT=1 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_disabled GPUSHIM_DISABLE=1 GPUSHIM_CPU_BLAS=)
set(_lapack_vs_cpu_env_at_once GPUSHIM_THRESHOLD=100)
set(_lapack_vs_cpu_env_disabled_at_once GPUSHIM_DISABLE=1)
set(_lapack_vs_cpu_check_offload --gpu --no-fallbacks)
set(_lapack_vs_cpu_check_faults --hostsim-only --gpu --fallbacks)
set(_lapack_vs_cpu_check_faults3 --hostsim-only --fallbacks)
set(_lapack_vs_cpu_check_small_device --hostsim-only --gpu --more-cpu-than
    ${CMAKE_CURRENT_BINARY_DIR}/lapack_vs_cpu_offload.json)
set(_lapack_vs_cpu_check_memory_limit ${_lapack_vs_cpu_check_small_device} --no-fallbacks)
set(_lapack_vs_cpu_check_disabled --no-gpu)

gpushim_vs_cpu_variant_tests(lapack_vs_cpu
  VARIANTS offload faults faults3 small_device memory_limit disabled at_once disabled_at_once
  WITHOUT_REPORT at_once disabled_at_once
  CUDASIM offload faults small_device memory_limit
  EMULATED offload faults small_device at_once
  COMMON ${_lapack_vs_cpu_common}
  CHECK --routines ${_lapack_vs_cpu_routines}
  LABELS lapack_vs_cpu lapack)
