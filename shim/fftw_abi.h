// FFTW3's binary interface, as far as the shim's entry points need it: the types of the
// arguments and the flag values (the documented, stable ABI of fftw3.h). Declared here
// rather than included, so that the shim builds where FFTW's headers are not installed
// (the GPU machine); tests/integration/fftw_matrix.c, compiled against fftw3.h, calls
// every entry point through FFTW's own declarations.
#pragma once

#include <cstddef>

// fftw_plan and fftwf_plan point to these incomplete structs (FFTW's own names, so that a
// translation unit including fftw3.h too sees identical declarations).
extern "C" {
struct fftw_plan_s;
struct fftwf_plan_s;
}

namespace gpushim::fftw {

// fftw_iodim, fftw_iodim64: a dimension of the guru interfaces; strides in elements of
// the array's own type (real or complex).
struct IoDim {
    int n, is, os;
};
struct IoDim64 {
    std::ptrdiff_t n, is, os;
};

// fftw_r2r_kind is a C enum: an int.
using R2rKind = int;

template <class Real>
struct Types;
template <>
struct Types<double> {
    using C = double[2];  // fftw_complex: {real, imaginary}
    using Plan = fftw_plan_s*;
};
template <>
struct Types<float> {
    using C = float[2];
    using Plan = fftwf_plan_s*;
};

// Planner flags (fftw3.h).
inline constexpr unsigned kMeasure = 0;
inline constexpr unsigned kDestroyInput = 1U << 0;
inline constexpr unsigned kUnaligned = 1U << 1;
inline constexpr unsigned kConserveMemory = 1U << 2;
inline constexpr unsigned kExhaustive = 1U << 3;
inline constexpr unsigned kPreserveInput = 1U << 4;
inline constexpr unsigned kPatient = 1U << 5;
inline constexpr unsigned kEstimate = 1U << 6;
inline constexpr unsigned kWisdomOnly = 1U << 21;

inline constexpr int kForward = -1;
inline constexpr int kBackward = +1;

}  // namespace gpushim::fftw
