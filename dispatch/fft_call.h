// The canonical description of an FFTW transform: FFTW's guru64 form, to which every
// planner of the API reduces (the basic, advanced and guru interfaces are all special
// cases of it), and what the device interface needs from it.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/device_interface.h"

namespace gpushim {

enum class FftKind : unsigned char { c2c, r2c, c2r, split_c2c, split_r2c, split_c2r, r2r };

// A dimension of the transform or of the batch: its length, and the strides between
// consecutive elements of the input and of the output, in elements of each array's own
// type (real or complex), as fftw_iodim64.
struct FftDimension {
    int64_t n;
    int64_t is;
    int64_t os;

    auto operator<=>(const FftDimension&) const = default;
};

struct FftProblem {
    FftKind kind = FftKind::c2c;
    bool single = false;  // fftwf_ (float), else fftw_ (double)
    int sign = -1;        // FFTW_FORWARD or FFTW_BACKWARD; r2c forward, c2r backward
    // Only described when the device could compute the transform: FFTW itself judges every
    // other problem (split, r2r, invalid arguments).
    bool described = false;
    std::vector<FftDimension> dims;     // the transform, the last varying fastest
    std::vector<FftDimension> howmany;  // the batch

    bool operator==(const FftProblem&) const = default;
};

// What the device would compute for a problem, when it can: rank 1 to 3 and a batch of
// at least one transform of at least one point, sizes within the device's reach.
bool suits_device(const FftProblem& problem);

// Points per transform times the number of transforms: the threshold's measure.
double fft_points(const FftProblem& problem);

// The packed description the device interface takes (suits_device must hold).
gpushim_fft_desc device_description(const FftProblem& problem);

// The bytes one side of a described transform reaches around its array's start: from `low`
// (below the start with negative strides) to one before `high`. An element is a real or a
// complex number of the precision, and the complex side of a real transform holds the half
// spectrum in the last dimension.
struct FftReach {
    int64_t low = 0;
    int64_t high = 0;
};
FftReach byte_reach(const FftProblem& problem, bool input);

// One side (input or output) of a described transform in the caller's memory, in the
// packed order of the device interface: the batch dimensions, then the transform's, the last
// fastest.
struct StridedArray {
    std::byte* base;
    std::size_t element;  // bytes of one real or complex number
    std::vector<int64_t> extent;
    std::vector<int64_t> stride;  // in elements

    int64_t row_length() const { return extent.back(); }
    uint64_t count() const {
        uint64_t total = 1;
        for (int64_t e : extent) total *= static_cast<uint64_t>(e);
        return total;
    }
    std::size_t bytes() const { return static_cast<std::size_t>(count()) * element; }

    // The host address of the packed row `row`.
    std::byte* row_address(uint64_t row) const {
        int64_t offset = 0;
        for (std::size_t d = extent.size() - 1; d-- > 0;) {
            const auto length = static_cast<uint64_t>(extent[d]);
            offset += static_cast<int64_t>(row % length) * stride[d];
            row /= length;
        }
        return base + offset * static_cast<std::ptrdiff_t>(element);
    }
};

StridedArray strided_array(const FftProblem& problem, bool input, const void* array);

// One execution of a plan: its problem, on the planned or on new arrays.
struct FftOp {
    const FftProblem* problem;
    const void* in;
    void* out;
};

// Computes an execution of a plan on the CPU, on arrays of the caller's layout and alignment
// other than the caller's: FFTW's plan of the CPU path, by its new-array execute function.
struct FftOnCpu {
    void (*execute)(const void* plan, const void* in, void* out);
    const void* plan;
};

// The flops FFTW's convention counts for the transform (5 N log2 N per complex transform
// of N points, half for real data), for the report's rates.
double flop_count(const FftOp& op);

// An execution of a plan FFTW accepted has valid arguments.
constexpr bool arguments_valid(const FftOp&) {
    return true;
}

}  // namespace gpushim
