// Finding the CPU implementation of a symbol the shim also exports (DESIGN.md,
// "Finding the CPU implementation"): never the shim's own definition.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dispatch/config.h"

namespace gpushim::fallback {

// The CPU definition of `symbol`, or nullptr. Order: the library named by `override_path`
// (when not empty); the next definition after the shim in the global scope;
// any loaded object that defines it; the default libraries for the name. A definition
// whose integer width differs from the name's (an ILP64 OpenBLAS under plain names, for a
// 32-bit name) is passed over.
void* find_cpu_symbol(const char* symbol, const std::string& override_path);

// The setting that names the CPU library of a symbol: GPUSHIM_CPU_FFTW for FFTW's names,
// GPUSHIM_CPU_LAPACK for the LAPACK routines of the routine table (under any name scheme),
// GPUSHIM_CPU_BLAS for the others.
struct CpuLibrarySetting {
    const char* variable;  // the setting for the symbol's kind of library
    const char* kind;      // "BLAS", "LAPACK" or "FFTW"
    // The override to search first (empty: none), and the setting it comes from: a LAPACK
    // routine's is GPUSHIM_CPU_BLAS's while GPUSHIM_CPU_LAPACK is unset, as OpenBLAS, MKL
    // and BLIS+libFLAME builds hold both.
    std::string path;
    const char* path_variable;
};
CpuLibrarySetting cpu_library_setting(std::string_view symbol, const Config& settings);

// As find_cpu_symbol with the override of cpu_library_setting; when nothing is found, stops
// the process with a message naming the symbol and the variable to set (a wrong answer is
// worse than a clear stop).
void* resolve_cpu_symbol(const char* symbol);

// A definition of `symbol` in the objects already loaded (never the shim's), or nullptr:
// for a CPU library's optional functions, which must not load a library the program does
// not use.
void* find_loaded_symbol(const char* symbol);

struct DefaultLocation {
    std::string library;
    std::string symbol;  // the name the library uses for the routine
};

// Where a symbol is looked for last, by its name scheme: FFTW's names in libfftw3 (double)
// or libfftw3f (float). Debian's ILP64 OpenBLAS
// (libopenblas64.so.0) defines the 64-bit interface under the plain names, so a 64_ name
// also maps to its plain twin there.
std::vector<DefaultLocation> default_locations(const std::string& symbol);

// Whether `address` lies inside the shim itself.
bool is_inside_shim(const void* address);

// The file of the loaded object `address` lies in, or "(unknown library)".
std::string library_of(const void* address);

}  // namespace gpushim::fallback
