#include "dispatch/fft_call.h"

#include <cmath>

namespace gpushim {
namespace {

constexpr std::size_t kDeviceMaxRank = 3;

bool is_dft(FftKind kind) {
    return kind == FftKind::c2c || kind == FftKind::r2c || kind == FftKind::c2r;
}

double product_of_lengths(const std::vector<FftDimension>& dimensions) {
    double product = 1.0;
    for (const FftDimension& d : dimensions) product *= static_cast<double>(d.n);
    return product;
}

}  // namespace

bool suits_device(const FftProblem& problem) {
    if (!problem.described || !is_dft(problem.kind)) return false;
    if (problem.dims.empty() || problem.dims.size() > kDeviceMaxRank) return false;
    if (problem.kind == FftKind::c2c && problem.sign != -1 && problem.sign != 1) return false;
    // Every length at least one, and the packed arrays' element count within int64_t (a
    // complex half spectrum is never larger than its real array).
    for (const auto* dimensions : {&problem.dims, &problem.howmany}) {
        for (const FftDimension& d : *dimensions) {
            if (d.n < 1) return false;
        }
    }
    return fft_points(problem) < 0x1p62;
}

double fft_points(const FftProblem& problem) {
    if (problem.dims.empty()) return 0.0;
    return product_of_lengths(problem.dims) * product_of_lengths(problem.howmany);
}

gpushim_fft_desc device_description(const FftProblem& problem) {
    gpushim_fft_desc desc{};
    desc.kind = problem.kind == FftKind::r2c   ? GPUSHIM_FFT_R2C
                : problem.kind == FftKind::c2r ? GPUSHIM_FFT_C2R
                                               : GPUSHIM_FFT_C2C;
    desc.precision = problem.single ? GPUSHIM_PREC_S : GPUSHIM_PREC_D;
    desc.sign = problem.sign;
    desc.rank = static_cast<int>(problem.dims.size());
    for (std::size_t i = 0; i < problem.dims.size(); ++i) desc.n[i] = problem.dims[i].n;
    desc.howmany = static_cast<int64_t>(product_of_lengths(problem.howmany));
    return desc;
}

StridedArray strided_array(const FftProblem& problem, bool input, const void* array) {
    const std::size_t real = problem.single ? sizeof(float) : sizeof(double);
    const bool complex = input ? problem.kind != FftKind::r2c : problem.kind != FftKind::c2r;
    // The complex side of a real transform holds the half spectrum in the last dimension.
    const bool half_spectrum = complex && problem.kind != FftKind::c2c;
    StridedArray side{
        static_cast<std::byte*>(const_cast<void*>(array)), complex ? 2 * real : real, {}, {}};
    for (const auto* dimensions : {&problem.howmany, &problem.dims}) {
        for (const FftDimension& d : *dimensions) {
            side.extent.push_back(d.n);
            side.stride.push_back(input ? d.is : d.os);
        }
    }
    if (half_spectrum) side.extent.back() = side.extent.back() / 2 + 1;
    return side;
}

FftReach byte_reach(const FftProblem& problem, bool input) {
    const bool complex = input ? problem.kind != FftKind::r2c : problem.kind != FftKind::c2r;
    const bool half_spectrum = complex && problem.kind != FftKind::c2c;
    int64_t low = 0, high = 0;
    for (const auto* dimensions : {&problem.dims, &problem.howmany}) {
        for (std::size_t i = 0; i < dimensions->size(); ++i) {
            const FftDimension& d = (*dimensions)[i];
            const bool last = dimensions == &problem.dims && i + 1 == dimensions->size();
            const int64_t n = half_spectrum && last ? d.n / 2 + 1 : d.n;
            const int64_t reach = (n - 1) * (input ? d.is : d.os);
            (reach < 0 ? low : high) += reach;
        }
    }
    const int64_t element = (problem.single ? 4 : 8) * (complex ? 2 : 1);
    return {low * element, (high + 1) * element};
}

double flop_count(const FftOp& op) {
    const FftProblem& problem = *op.problem;
    if (problem.dims.empty()) return 0.0;
    const double transform_points = product_of_lengths(problem.dims);
    const double transforms = product_of_lengths(problem.howmany);
    const double complex_flops = 5.0 * transform_points * std::log2(transform_points);
    const bool real_data = problem.kind != FftKind::c2c && problem.kind != FftKind::split_c2c;
    return transforms * (real_data ? complex_flops / 2 : complex_flops);
}

}  // namespace gpushim
