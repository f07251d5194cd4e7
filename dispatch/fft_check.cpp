#include "dispatch/fft_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "dispatch/norm_sum.h"

namespace gpushim {
namespace {

// Arrays FFTW tells apart by alignment differ modulo its widest SIMD alignment (AVX-512):
// a copy with the caller's address modulo this is, to a plan, the caller's array.
constexpr std::uintptr_t kAlignment = 64;

uint64_t transform_count(const FftProblem& problem) {
    uint64_t transforms = 1;
    for (const FftDimension& d : problem.howmany) transforms *= static_cast<uint64_t>(d.n);
    return transforms;
}

// Calls visit(transform, column, element) for every element of one side, in packed order;
// `column` is the element's index in the transform's last dimension.
template <class Visit>
void for_each_element(const StridedArray& side, uint64_t transforms, Visit&& visit) {
    const auto length = static_cast<uint64_t>(side.row_length());
    const uint64_t rows = side.count() / length;
    const uint64_t rows_per_transform = rows / transforms;
    const std::ptrdiff_t step = side.stride.back() * static_cast<std::ptrdiff_t>(side.element);
    for (uint64_t row = 0; row < rows; ++row) {
        std::byte* element = side.row_address(row);
        for (uint64_t column = 0; column < length; ++column, element += step)
            visit(row / rows_per_transform, column, element);
    }
}

// Copies the elements of `side` (the caller's) to the same offsets from `origin`, and no
// byte between them (other threads may be writing there).
void copy_elements(const StridedArray& side, std::byte* origin) {
    const auto length = static_cast<uint64_t>(side.row_length());
    const uint64_t rows = side.count() / length;
    const std::ptrdiff_t step = side.stride.back() * static_cast<std::ptrdiff_t>(side.element);
    for (uint64_t row = 0; row < rows; ++row) {
        const std::byte* from = side.row_address(row);
        std::byte* to = origin + (from - side.base);
        if (step == static_cast<std::ptrdiff_t>(side.element)) {
            std::memcpy(to, from, length * side.element);
            continue;
        }
        for (uint64_t column = 0; column < length; ++column, from += step, to += step)
            std::memcpy(to, from, side.element);
    }
}

template <class Real>
void add_element(NormSum& sum, const std::byte* element, bool complex) {
    const auto* parts = reinterpret_cast<const Real*>(element);
    sum.add(parts[0]);
    if (complex) sum.add(parts[1]);
}

template <class Real>
void add_difference(NormSum& sum, const std::byte* element, const std::byte* reference,
                    bool complex) {
    const auto* parts = reinterpret_cast<const Real*>(element);
    const auto* reference_parts = reinterpret_cast<const Real*>(reference);
    sum.add(static_cast<double>(parts[0]) - reference_parts[0]);
    if (complex) sum.add(static_cast<double>(parts[1]) - reference_parts[1]);
}

// The 2-norm of each transform's input; for C2R, of the whole spectrum the half spectrum
// stands for (every term but the DC and Nyquist ones has a conjugate twin not stored).
template <class Real>
std::vector<double> input_norms(const FftProblem& problem, const StridedArray& input,
                                uint64_t transforms) {
    std::vector<NormSum> sums(transforms);
    const bool complex = problem.kind != FftKind::r2c;
    const int64_t last = problem.dims.back().n;
    for_each_element(input, transforms, [&](uint64_t transform, uint64_t column, std::byte* x) {
        add_element<Real>(sums[transform], x, complex);
        const bool twinned =
            problem.kind == FftKind::c2r && column != 0 && 2 * static_cast<int64_t>(column) != last;
        if (twinned) add_element<Real>(sums[transform], x, complex);
    });
    std::vector<double> norms;
    norms.reserve(transforms);
    for (const NormSum& sum : sums) norms.push_back(sum.norm());
    return norms;
}

}  // namespace

FftCheck::Scratch FftCheck::make_scratch(FftReach reach, const void* like) {
    Scratch scratch;
    const auto span = static_cast<std::size_t>(reach.high - reach.low);
    scratch.storage.reset(new (std::nothrow) std::byte[span + kAlignment]);
    if (scratch.storage == nullptr) return scratch;
    std::byte* origin = scratch.storage.get() - reach.low;
    const std::uintptr_t want = reinterpret_cast<std::uintptr_t>(like) % kAlignment;
    const std::uintptr_t have = reinterpret_cast<std::uintptr_t>(origin) % kAlignment;
    scratch.origin = origin + (want + kAlignment - have) % kAlignment;
    return scratch;
}

FftCheck::FftCheck(const FftOp& op, FftOnCpu cpu) : op_(op), cpu_(cpu) {
    const FftProblem& problem = *op.problem;
    if (!suits_device(problem)) return;  // FFTW's alone: nothing to check
    const FftReach in = byte_reach(problem, true);
    const FftReach out = byte_reach(problem, false);
    const bool in_place = op.in == op.out;
    input_ = make_scratch(
        in_place ? FftReach{std::min(in.low, out.low), std::max(in.high, out.high)} : in, op.in);
    if (input_.storage == nullptr) return;
    try {
        copy_elements(strided_array(problem, true, op.in), input_.origin);
    } catch (const std::exception&) {  // no memory for the description: unchecked
        return;
    }
    if (!in_place) {
        output_ = make_scratch(out, op.out);
        if (output_.storage == nullptr) return;
    }
    copied_ = true;
}

Verdict FftCheck::finish() {
    if (!copied_) return Verdict::unchecked;
    try {
        return op_.problem->single ? finish_in<float>() : finish_in<double>();
    } catch (const std::exception&) {  // no memory for the check (before any output is
        return Verdict::unchecked;     // written): the device's result stands
    }
}

template <class Real>
Verdict FftCheck::finish_in() {
    const FftProblem& problem = *op_.problem;
    const uint64_t transforms = transform_count(problem);
    const std::vector<double> norms =
        input_norms<Real>(problem, strided_array(problem, true, input_.origin), transforms);

    std::byte* fftw_out = op_.in == op_.out ? input_.origin : output_.origin;
    cpu_.execute(cpu_.plan, input_.origin, fftw_out);

    const StridedArray output = strided_array(problem, false, op_.out);
    const bool complex = problem.kind != FftKind::c2r;
    const auto* device_out = static_cast<const std::byte*>(op_.out);
    std::vector<NormSum> differences(transforms), results(transforms);
    for_each_element(output, transforms, [&](uint64_t transform, uint64_t, std::byte* y) {
        const std::byte* reference = fftw_out + (y - device_out);
        add_element<Real>(results[transform], reference, complex);
        add_difference<Real>(differences[transform], y, reference, complex);
    });

    double points = 1;
    for (const FftDimension& d : problem.dims) points *= static_cast<double>(d.n);
    const double unit =
        std::numeric_limits<Real>::epsilon() * std::max(1.0, std::log2(points)) * std::sqrt(points);
    uint64_t compared = 0, differing = 0, worst = 0;
    double worst_ratio = 0;
    for (uint64_t t = 0; t < transforms; ++t) {
        if (!std::isfinite(results[t].norm())) continue;
        ++compared;
        const double difference = differences[t].norm();
        const double ratio =
            difference == 0
                ? 0.0
                : difference / std::max(unit * norms[t], std::numeric_limits<double>::min());
        if (ratio <= kRatioLimit) continue;
        if (differing++ == 0 || ratio > worst_ratio || std::isnan(ratio)) {
            worst = t;
            worst_ratio = ratio;
        }
    }
    if (compared == 0) return Verdict::unchecked;
    if (differing == 0) return Verdict::agreed;

    for_each_element(output, transforms, [&](uint64_t, uint64_t, std::byte* y) {
        std::memcpy(y, fftw_out + (y - device_out), output.element);
    });
    std::snprintf(difference_, sizeof difference_,
                  "transform %llu of %llu: ||y - y_fftw|| / (eps log2(N) sqrt(N) ||x||) = %.3g "
                  "> %g (%llu transforms differ)",
                  static_cast<unsigned long long>(worst + 1),
                  static_cast<unsigned long long>(transforms), worst_ratio, kRatioLimit,
                  static_cast<unsigned long long>(differing));
    return Verdict::differed;
}

}  // namespace gpushim
