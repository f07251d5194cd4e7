# FFTW clients of libgpushim.so (issue 4). Included by tests/integration/CMakeLists.txt, whose
# gpushim_integration_test, gpushim_skipped_test, here, shim, GPUSHIM_FAIL_EVERY and
# GPUSHIM_SYSTEM_PYTHON it uses. Each client checks its results
# against FFTW or numpy.fft; run_fftw.py then reads the report (see its docstring):
#
#   fftw_matrix_relinked[_faults,_small_device,_memory_limit,_sub_batches[_faults],_verify]
#                                  fftw_matrix.c,
#                                  linked -lgpushim -lfftw3 -lfftw3f: every planner form of
#                                  fftw3.h in both precisions vs FFTW itself (sub_batches: its
#                                  batches computed in sub-batches, tails included; verify:
#                                  GPUSHIM_VERIFY finds wrong device results, FFTW's replace them)
#   fftw_wisdom_relinked           fftw_wisdom.c: FFTW's wisdom of the transforms the shim
#                                  planned for the device without FFTW's search, in the
#                                  process and exported to one without the shim
#   fftw_legacy_relinked[_faults]  fftw_legacy.f90: the legacy Fortran API (dfftw_, sfftw_)
#   pyfftw_{debian,venv}[_faults], pyfftw_venv_verify
#                                  pyfftw_check.py: Debian's pyFFTW, and pip's in the venv
#                                  (with its bundled FFTW), under LD_PRELOAD (verify: as
#                                  fftw_matrix's)
#   fftw_exports                   check_fftw_exports.py: the shim exports FFTW's plan
#                                  functions, and no other FFTW name
#
# c2c, r2c and c2r must have run on the device (and with faults, in fftw_matrix, each must
# also have fallen back to FFTW); split arrays and r2r must have been counted, on FFTW only.

find_path(GPUSHIM_FFTW_INCLUDE_DIR NAMES fftw3.h)
find_file(GPUSHIM_FFTW_FORTRAN_INCLUDE NAMES fftw3.f PATHS ${GPUSHIM_FFTW_INCLUDE_DIR})
find_library(GPUSHIM_FFTW3_LIBRARY NAMES fftw3)
find_library(GPUSHIM_FFTW3F_LIBRARY NAMES fftw3f)

set(fftw_offloaded fftw_dft,fftw_dft_r2c,fftw_dft_c2r,fftwf_dft,fftwf_dft_r2c,fftwf_dft_c2r)
set(fftw_on_cpu fftw_split_dft,fftw_split_dft_r2c,fftw_split_dft_c2r,fftw_r2r)
string(APPEND fftw_on_cpu ,fftwf_split_dft,fftwf_split_dft_r2c,fftwf_split_dft_c2r,fftwf_r2r)

if(GPUSHIM_FFTW_INCLUDE_DIR AND GPUSHIM_FFTW3_LIBRARY AND GPUSHIM_FFTW3F_LIBRARY)
  # The shim first on the link line (and in DT_NEEDED), so that the program's fftw_plan_* and
  # fftw_execute* bind to it; FFTW after it is what the shim forwards to.
  add_executable(gpushim_fftw_matrix fftw_matrix.c)
  set_target_properties(gpushim_fftw_matrix PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
  target_include_directories(gpushim_fftw_matrix PRIVATE ${GPUSHIM_FFTW_INCLUDE_DIR})
  target_compile_options(gpushim_fftw_matrix PRIVATE -Wall -Wextra)
  target_link_libraries(gpushim_fftw_matrix PRIVATE gpushim ${GPUSHIM_FFTW3_LIBRARY}
                                                    ${GPUSHIM_FFTW3F_LIBRARY} m ${CMAKE_DL_LIBS})
  target_link_options(gpushim_fftw_matrix PRIVATE LINKER:--no-as-needed)
  add_dependencies(gpushim_fftw_matrix gpushim_hostsim)
  gpushim_integration_test(NAME fftw_matrix_relinked LABELS "fftw;relink" TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded} --cpu ${fftw_on_cpu}
            -- $<TARGET_FILE:gpushim_fftw_matrix>)
  gpushim_integration_test(NAME fftw_matrix_relinked_faults LABELS "fftw;relink;faults"
    TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded} --cpu ${fftw_on_cpu}
            --fail-every ${GPUSHIM_FAIL_EVERY} --fallbacks ${fftw_offloaded}
            -- $<TARGET_FILE:gpushim_fftw_matrix>)
  # GPUSHIM_VERIFY=1: every execution checked against FFTW; on hostsim every 7th device
  # result made wrong, found, and replaced by FFTW's (the program's own checks still pass).
  gpushim_integration_test(NAME fftw_matrix_relinked_verify LABELS "fftw;relink;verify"
    TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded} --verify --wrong-every 7
            -- $<TARGET_FILE:gpushim_fftw_matrix>)
  # GPUSHIM_PANEL_BYTES=3000: the program's batches computed in sub-batches, of one transform
  # where a transform has more than 1500 bytes (100 complex doubles), else of several and a
  # smaller tail (5 transforms of 81 complex floats: 4 + 1).
  foreach(variant IN ITEMS "" _faults)
    set(labels fftw relink sub_batches)
    set(faults_arguments)
    if(variant STREQUAL "_faults")
      list(APPEND labels faults)
      set(faults_arguments --fail-every ${GPUSHIM_FAIL_EVERY} --fallbacks ${fftw_offloaded})
    endif()
    gpushim_integration_test(NAME fftw_matrix_relinked_sub_batches${variant}
      LABELS "${labels}" TIMEOUT 300
      COMMAND ${here}/run_fftw.py --shim ${shim} --panel-bytes 3000 --gpu ${fftw_offloaded}
              ${faults_arguments} -- $<TARGET_FILE:gpushim_fftw_matrix>)
  endforeach()
  # 70000 bytes of device memory: an execution needs its input and output there (one array
  # for c2c) in one block of 64 KiB or more (the pool's granule): the transforms of more data
  # (c2c of 4099 points in double) do not fit and run on FFTW (not a device failure), the
  # others run on the device.
  gpushim_integration_test(NAME fftw_matrix_relinked_small_device
    LABELS "fftw;relink;small_device" TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --device-memory 70000
            --partly-on-cpu ${fftw_offloaded}
            -- $<TARGET_FILE:gpushim_fftw_matrix>)
  # The same bound set by GPUSHIM_GPU_MEMORY, on a device that aborts any request beyond it.
  gpushim_integration_test(NAME fftw_matrix_relinked_memory_limit
    LABELS "fftw;relink;small_device" TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --memory-limit 70000
            --partly-on-cpu ${fftw_offloaded}
            -- $<TARGET_FILE:gpushim_fftw_matrix>)
else()
  gpushim_skipped_test(fftw_matrix_relinked
                       "fftw3.h, libfftw3 or libfftw3f not found (libfftw3-dev)")
endif()

find_library(GPUSHIM_FFTW3_THREADS_LIBRARY NAMES fftw3_threads)
find_library(GPUSHIM_FFTW3F_THREADS_LIBRARY NAMES fftw3f_threads)
if(CMAKE_CROSSCOMPILING)
  # not registered: the program starts its plain twin, which only the emulator could run
elseif(GPUSHIM_FFTW_INCLUDE_DIR AND GPUSHIM_FFTW3_LIBRARY AND GPUSHIM_FFTW3F_LIBRARY
   AND GPUSHIM_FFTW3_THREADS_LIBRARY AND GPUSHIM_FFTW3F_THREADS_LIBRARY)
  set(fftw_wisdom_libraries ${GPUSHIM_FFTW3_THREADS_LIBRARY} ${GPUSHIM_FFTW3F_THREADS_LIBRARY}
                            ${GPUSHIM_FFTW3_LIBRARY} ${GPUSHIM_FFTW3F_LIBRARY})
  foreach(target gpushim_fftw_wisdom gpushim_fftw_wisdom_plain)
    add_executable(${target} fftw_wisdom.c)
    set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
    target_include_directories(${target} PRIVATE ${GPUSHIM_FFTW_INCLUDE_DIR})
    target_compile_options(${target} PRIVATE -Wall -Wextra)
    target_link_options(${target} PRIVATE LINKER:--no-as-needed)
  endforeach()
  target_link_libraries(gpushim_fftw_wisdom PRIVATE gpushim ${fftw_wisdom_libraries})
  target_link_libraries(gpushim_fftw_wisdom_plain PRIVATE ${fftw_wisdom_libraries})
  add_dependencies(gpushim_fftw_wisdom gpushim_hostsim)
  gpushim_integration_test(NAME fftw_wisdom_relinked LABELS "fftw;relink" TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded}
            -- $<TARGET_FILE:gpushim_fftw_wisdom> $<TARGET_FILE:gpushim_fftw_wisdom_plain>)
else()
  gpushim_skipped_test(fftw_wisdom_relinked
                       "fftw3.h, libfftw3[f] or libfftw3[f]_threads not found (libfftw3-dev)")
endif()

if(GPUSHIM_FFTW_FORTRAN_INCLUDE AND GPUSHIM_FFTW3_LIBRARY AND GPUSHIM_FFTW3F_LIBRARY
   AND CMAKE_Fortran_COMPILER)
  get_filename_component(fftw_fortran_include_dir ${GPUSHIM_FFTW_FORTRAN_INCLUDE} DIRECTORY)
  add_executable(gpushim_fftw_legacy fftw_legacy.f90)
  target_include_directories(gpushim_fftw_legacy PRIVATE ${fftw_fortran_include_dir})
  target_link_libraries(gpushim_fftw_legacy PRIVATE gpushim ${GPUSHIM_FFTW3_LIBRARY}
                                                    ${GPUSHIM_FFTW3F_LIBRARY})
  target_link_options(gpushim_fftw_legacy PRIVATE LINKER:--no-as-needed)
  add_dependencies(gpushim_fftw_legacy gpushim_hostsim)
  gpushim_integration_test(NAME fftw_legacy_relinked LABELS "fftw;relink" TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded}
            -- $<TARGET_FILE:gpushim_fftw_legacy>)
  gpushim_integration_test(NAME fftw_legacy_relinked_faults LABELS "fftw;relink;faults"
    TIMEOUT 300
    COMMAND ${here}/run_fftw.py --shim ${shim} --gpu ${fftw_offloaded}
            --fail-every ${GPUSHIM_FAIL_EVERY} -- $<TARGET_FILE:gpushim_fftw_legacy>)
else()
  gpushim_skipped_test(fftw_legacy_relinked
                       "gfortran, fftw3.f, libfftw3 or libfftw3f not found (libfftw3-dev)")
endif()

# a header or library not found reaches the script as a missing path: it skips (77)
gpushim_integration_test(NAME fftw_exports LABELS "fftw;exports" TIMEOUT 60
  COMMAND ${here}/check_fftw_exports.py --shim ${shim}
          --header ${GPUSHIM_FFTW_INCLUDE_DIR}/fftw3.h
          --fftw ${GPUSHIM_FFTW3_LIBRARY} --fftwf ${GPUSHIM_FFTW3F_LIBRARY})

# Python is this machine's: not in a cross build.
if(CMAKE_CROSSCOMPILING)
  return()
endif()

# pyFFTW under LD_PRELOAD: Debian's (python3-pyfftw, on Debian's libfftw3), and pip's in the
# venv, whose wheel bundles an FFTW of its own (pyfftw.libs), loaded privately by the
# extension module: the shim must find and forward to that one. pyfftw_check.py exits 77
# when pyfftw cannot be imported: run_fftw.py skips.
set(pyfftw_python_debian ${GPUSHIM_SYSTEM_PYTHON})
set(pyfftw_python_venv ${GPUSHIM_VENV_PYTHON})
foreach(flavour IN ITEMS debian venv)
  set(python ${pyfftw_python_${flavour}})
  set(pyfftw_run ${here}/run_fftw.py --shim ${shim} --preload --gpu ${fftw_offloaded}
                 --cpu fftw_r2r,fftwf_r2r)
  gpushim_integration_test(NAME pyfftw_${flavour} LABELS "fftw;pyfftw" TIMEOUT 300
    COMMAND ${pyfftw_run} -- ${python} ${here}/pyfftw_check.py)
  gpushim_integration_test(NAME pyfftw_${flavour}_faults LABELS "fftw;pyfftw;faults"
    TIMEOUT 300
    COMMAND ${pyfftw_run} --fail-every ${GPUSHIM_FAIL_EVERY} -- ${python}
            ${here}/pyfftw_check.py)
endforeach()
# GPUSHIM_VERIFY through the wheel's bundled FFTW, whose new-array execute functions the
# check calls.
gpushim_integration_test(NAME pyfftw_venv_verify LABELS "fftw;pyfftw;verify" TIMEOUT 300
  COMMAND ${here}/run_fftw.py --shim ${shim} --preload --gpu ${fftw_offloaded}
          --cpu fftw_r2r,fftwf_r2r --verify --wrong-every 7
          -- ${pyfftw_python_venv} ${here}/pyfftw_check.py)
