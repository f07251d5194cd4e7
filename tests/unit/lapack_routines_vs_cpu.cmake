# lapack_solve_vs_cpu_test ({s,d,c,z}getrs, gesv, getri, potrs, posv, potri, sytrs, sysv, sytri,
# trtrs, trtri),
# lapack_decomposition_vs_cpu_test ({s,d,c,z}geqrf, orgqr/ungqr, ormqr/unmqr,
# syevd/heevd, syev/heev, gesvd, gesdd) and lapack_eigen_lstsq_vs_cpu_test ({s,d}syevr /
# {c,z}heevr, {s,d}sygvd / {c,z}hegvd, {s,d}sygv / {c,z}hegv, {s,d,c,z}geev, gels): through libgpushim.so's exported
# entry points against OpenBLAS called directly (tests/unit/lapack_solve_vs_cpu_test.cpp,
# tests/unit/lapack_decomposition_vs_cpu_test.cpp, tests/unit/lapack_eigen_lstsq_vs_cpu_test.cpp,
# sharing tests/unit/lapack_test_harness.h).
# Included from tests/unit/CMakeLists.txt after lapack_vs_cpu.cmake, whose variants they
# run (see there) and whose GPUSHIM_TEST_OPENBLAS64 (Debian's ILP64 OpenBLAS) they use. The
# small_device variant's 200000 bytes of device memory hold the calls of order 70 and below,
# not those of order 230 (211 KB a matrix in single precision): the report check wants both.
# In the faults variant every 11th device operation fails, not every 7th: a GESV takes 7
# (two uploads, the solve, four downloads), so that none would complete on the device; the
# longest calls of lapack_eigen_lstsq_vs_cpu_test take 7 too (SYGVD with vectors: two
# uploads, the solve, A, B, W and INFO back; SYEVR also downloads the count found), under 11.
# The at_once variant (lapack_vs_cpu.cmake) puts the threshold between those two orders.
# The little_pinned variant lets each thread pin its two 32 MiB chunk buffers and 64 KiB
# more: every call, also those whose arrays exceed a chunk, still runs where it runs in the
# offload variant (its results come back through the chunk buffers), without a failure.

include(${CMAKE_CURRENT_LIST_DIR}/variant_tests.cmake)  # GPUSHIM_TEST_OPENBLAS, the functions

set(_lapack_solve_vs_cpu_routines "")
foreach(p s d c z)
  foreach(r getrs gesv getri potrs posv potri sytrs sysv sytri trtrs trtri)
    list(APPEND _lapack_solve_vs_cpu_routines ${p}${r})
  endforeach()
endforeach()
set(_lapack_decomposition_vs_cpu_routines
    sorgqr dorgqr cungqr zungqr sormqr dormqr cunmqr zunmqr
    ssyevd dsyevd cheevd zheevd ssyev dsyev cheev zheev)
foreach(p s d c z)
  foreach(r geqrf gesvd gesdd)
    list(APPEND _lapack_decomposition_vs_cpu_routines ${p}${r})
  endforeach()
endforeach()

set(_lapack_eigen_lstsq_vs_cpu_routines
    ssyevr dsyevr cheevr zheevr ssygvd dsygvd chegvd zhegvd ssygv dsygv chegv zhegv)
foreach(p s d c z)
  foreach(r geev gels)
    list(APPEND _lapack_eigen_lstsq_vs_cpu_routines ${p}${r})
  endforeach()
endforeach()

math(EXPR _little_pinned "2 * 32 * 1024 * 1024 + 64 * 1024")
foreach(name lapack_solve_vs_cpu lapack_decomposition_vs_cpu lapack_eigen_lstsq_vs_cpu)
  gpushim_vs_cpu_executable(${name}_test ${CMAKE_CURRENT_LIST_DIR}/${name}_test.cpp
    GPUSHIM_TEST_OPENBLAS64_PATH="${GPUSHIM_TEST_OPENBLAS64}")
  set(_${name}_env_offload "")
  set(_${name}_env_faults GPUSHIM_HOSTSIM_FAIL_EVERY=11 GPUSHIM_CPU_BLAS=)
  set(_${name}_env_faults3 GPUSHIM_HOSTSIM_FAIL_EVERY=3 GPUSHIM_CPU_BLAS=)
  set(_${name}_env_small_device GPUSHIM_HOSTSIM_MEMORY=200000 GPUSHIM_CPU_BLAS=)
  set(_${name}_env_memory_limit GPUSHIM_GPU_MEMORY=200000 GPUSHIM_HOSTSIM_MEMORY=200000
      GPUSHIM_HOSTSIM_MEMORY_STRICT=1 GPUSHIM_CPU_BLAS=)
  set(_${name}_env_disabled GPUSHIM_DISABLE=1 GPUSHIM_CPU_BLAS=)
  set(_${name}_env_little_pinned GPUSHIM_HOSTSIM_PINNED_MEMORY=${_little_pinned})
  set(_${name}_env_at_once GPUSHIM_THRESHOLD=100)
  set(_${name}_env_disabled_at_once GPUSHIM_DISABLE=1)
  set(_${name}_check_offload --gpu --no-fallbacks)
  set(_${name}_check_faults --hostsim-only --gpu --fallbacks)
  set(_${name}_check_faults3 --hostsim-only --fallbacks)
  set(_${name}_check_small_device --hostsim-only --gpu --more-cpu-than
      ${CMAKE_CURRENT_BINARY_DIR}/${name}_offload.json)
  set(_${name}_check_memory_limit ${_${name}_check_small_device} --no-fallbacks)
  set(_${name}_check_disabled --no-gpu)
  set(_${name}_check_little_pinned --hostsim-only --gpu --no-fallbacks --same-split-as
      ${CMAKE_CURRENT_BINARY_DIR}/${name}_offload.json)
  list(JOIN _${name}_routines "," routines)
  gpushim_vs_cpu_variant_tests(${name}
    VARIANTS offload faults faults3 small_device memory_limit little_pinned disabled at_once
             disabled_at_once
    WITHOUT_REPORT at_once disabled_at_once
    CUDASIM offload faults small_device memory_limit
    COMMON GPUSHIM_THRESHOLD=0 OPENBLAS_NUM_THREADS=1
    CHECK --routines ${routines}
    LABELS ${name} lapack)
endforeach()
