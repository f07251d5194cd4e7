# shim_vs_cpu_test: every Level-3 routine through libgpushim.so's exported entry points
# against OpenBLAS called directly (tests/unit/shim_vs_cpu_test.cpp). Included from
# tests/unit/CMakeLists.txt, after find_package(GTest).
#
# The executable links no BLAS: it dlopen()s the shim and the reference OpenBLAS. It runs
# once per variant below, each with a GPUSHIM_REPORT that check_report.py then reads, but for
# those that say "no report":
#   offload       forced offload (GPUSHIM_THRESHOLD=0) to the backend under test; the CPU
#                 BLAS is the 32-bit reference OpenBLAS (main() sets GPUSHIM_CPU_BLAS)
#   faults        every 7th device operation fails: those calls must be recomputed on the CPU
#   small_device  100000 bytes of device memory: larger calls must stay on the CPU
#   disabled      GPUSHIM_DISABLE=1: everything on the CPU
#   at_once       no report, GPUSHIM_THRESHOLD=40: the calls below it leave at the entry point
#   disabled_at_once  no report, GPUSHIM_DISABLE=1: every call leaves at the entry point
#   boundary      no report, GPUSHIM_THRESHOLD=12, one byte of device memory, info logged to a
#                 file: ThresholdBoundary counts the calls routed to the device (it skips in
#                 the other variants)
#   portable_at_once, portable_boundary
#                 the same through a build of the shim whose Level-3 entry points are the C++
#                 ones of other architectures than x86-64 (libgpushim_portable_entries.so)
# The backend under test is $TEST_GPUSHIM_BACKEND when the test runs (main() reads it; the
# default is hostsim, the host-simulated device): `TEST_GPUSHIM_BACKEND=cuda ctest` runs
# offload and disabled on the CUDA plugin and skips faults and small_device, which need
# hostsim's GPUSHIM_HOSTSIM_* settings.
# The last three set GPUSHIM_CPU_BLAS empty, so that the shim searches for its CPU BLAS as in
# a real process: it finds the reference OpenBLAS the test loaded for the standard names, and
# Debian's ILP64 OpenBLAS (libopenblas64-0-pthread) for the 64_ names, which then run every
# case there, CPU fallbacks included.

include(${CMAKE_CURRENT_LIST_DIR}/variant_tests.cmake)  # GPUSHIM_TEST_OPENBLAS, the functions

if(NOT EXISTS "${GPUSHIM_TEST_OPENBLAS}")
  message(WARNING "shim_vs_cpu_test: ${GPUSHIM_TEST_OPENBLAS} does not exist (install "
                  "libopenblas0-pthread or set GPUSHIM_TEST_OPENBLAS); its tests will fail")
endif()

gpushim_vs_cpu_executable(shim_vs_cpu_test ${CMAKE_CURRENT_LIST_DIR}/shim_vs_cpu_test.cpp)

set(_shim_vs_cpu_common GPUSHIM_THRESHOLD=0 OPENBLAS_NUM_THREADS=1)
set(_shim_vs_cpu_env_offload "")
set(_shim_vs_cpu_env_faults GPUSHIM_HOSTSIM_FAIL_EVERY=7 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_env_small_device GPUSHIM_HOSTSIM_MEMORY=100000 GPUSHIM_CPU_BLAS=)
# GPUSHIM_GPU_MEMORY on a device of that very capacity, which aborts the test at any request
# beyond it (GPUSHIM_HOSTSIM_MEMORY_STRICT): the library keeps within the limit by itself, and
# what does not fit stays on the CPU without a device failure.
set(_shim_vs_cpu_env_memory_limit GPUSHIM_GPU_MEMORY=100000 GPUSHIM_HOSTSIM_MEMORY=100000
    GPUSHIM_HOSTSIM_MEMORY_STRICT=1 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_env_disabled GPUSHIM_DISABLE=1 GPUSHIM_CPU_BLAS=)
# Panels of a few columns and several copy threads: the pipelined path on every call, and
# faults that strike after some panels were delivered (the rest computed on the CPU).
set(_shim_vs_cpu_env_panels GPUSHIM_PANEL_BYTES=1024 GPUSHIM_COPY_THREADS=3)
set(_shim_vs_cpu_env_panel_faults GPUSHIM_PANEL_BYTES=1024 GPUSHIM_COPY_THREADS=3
    GPUSHIM_HOSTSIM_FAIL_EVERY=23 GPUSHIM_CPU_BLAS=)
set(_shim_vs_cpu_env_at_once GPUSHIM_THRESHOLD=40)
set(_shim_vs_cpu_env_disabled_at_once GPUSHIM_DISABLE=1)
set(_shim_vs_cpu_env_boundary GPUSHIM_THRESHOLD=12 GPUSHIM_HOSTSIM_MEMORY=1 GPUSHIM_LOG=info
    GPUSHIM_LOG_FILE=${CMAKE_CURRENT_BINARY_DIR}/shim_vs_cpu_boundary.log GPUSHIM_CPU_BLAS=)
gpushim_shim_library(gpushim_portable_entries GPUSHIM_PORTABLE_ENTRY_POINTS)
add_dependencies(shim_vs_cpu_test gpushim_portable_entries)
set(_shim_vs_cpu_env_portable_at_once ${_shim_vs_cpu_env_at_once}
    GPUSHIM_TEST_SHIM=$<TARGET_FILE:gpushim_portable_entries>)
set(_shim_vs_cpu_env_portable_boundary ${_shim_vs_cpu_env_boundary}
    GPUSHIM_LOG_FILE=${CMAKE_CURRENT_BINARY_DIR}/shim_vs_cpu_portable_boundary.log
    GPUSHIM_TEST_SHIM=$<TARGET_FILE:gpushim_portable_entries>)
set(_shim_vs_cpu_check_offload --gpu --no-fallbacks)
set(_shim_vs_cpu_check_faults --hostsim-only --gpu --fallbacks)
set(_shim_vs_cpu_check_small_device --hostsim-only --gpu --more-cpu-than
    ${CMAKE_CURRENT_BINARY_DIR}/shim_vs_cpu_offload.json)
set(_shim_vs_cpu_check_memory_limit ${_shim_vs_cpu_check_small_device} --no-fallbacks)
set(_shim_vs_cpu_check_disabled --no-gpu)
set(_shim_vs_cpu_check_panels --gpu --no-fallbacks)
set(_shim_vs_cpu_check_panel_faults --hostsim-only --gpu --fallbacks)

gpushim_vs_cpu_variant_tests(shim_vs_cpu
  VARIANTS offload faults small_device memory_limit disabled panels panel_faults at_once boundary
           portable_at_once portable_boundary disabled_at_once
  WITHOUT_REPORT at_once boundary portable_at_once portable_boundary disabled_at_once
  CUDASIM offload faults small_device memory_limit panels panel_faults
  EMULATED offload faults panels at_once
  COMMON ${_shim_vs_cpu_common}
  LABELS shim_vs_cpu)
