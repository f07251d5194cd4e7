# Cross-compiling for aarch64 Linux (NVIDIA Grace Hopper) with Debian's cross compilers, for
# .ci/cross-aarch64. The host's CUDA toolkit is x86-64: CUDA is not looked for. Libraries
# and headers come from the cross toolchain's folder and from Debian's arm64 packages
# (multiarch: /usr/lib/aarch64-linux-gnu, /usr/include/aarch64-linux-gnu), which the test
# clients link against.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
find_program(aarch64_fortran_compiler aarch64-linux-gnu-gfortran)
if(aarch64_fortran_compiler)
  set(CMAKE_Fortran_COMPILER ${aarch64_fortran_compiler})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit ON)
