// GPUSHIM_VERIFY's check of an FFT execution (dispatch/fft_check.h). Both the "device" and
// the "CPU" (FftOnCpu) compute the transform by its definition, a direct sum in long double,
// on the caller's strided layout, so that the two results are equal and any difference is
// the one a test makes: a change just within the documented bound eps log2(N) sqrt(N) ||x||
// times the ratio limit agrees, just beyond it differs (and FFTW's result, the CPU's,
// replaces the device's in the whole output); an in-place transform is checked against its
// input as it was before the device overwrote it; the CPU computes on copies, never on the
// caller's arrays, at the caller's alignment; non-finite input is not compared.
#include "dispatch/fft_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace gpushim {
namespace {

using Wide = std::complex<long double>;

bool complex_input(const FftProblem& p) {
    return p.kind != FftKind::r2c;
}
bool complex_output(const FftProblem& p) {
    return p.kind != FftKind::c2r;
}

template <class Real>
Real* element(const StridedArray& side, uint64_t packed) {
    const auto length = static_cast<uint64_t>(side.row_length());
    std::byte* row = side.row_address(packed / length);
    return reinterpret_cast<Real*>(row + static_cast<int64_t>(packed % length) *
                                             side.stride.back() *
                                             static_cast<int64_t>(side.element));
}

// The index in each transform dimension of the packed index `linear` within a transform of
// extents `extent`.
std::vector<int64_t> indices(uint64_t linear, const std::vector<int64_t>& extent) {
    std::vector<int64_t> index(extent.size());
    for (std::size_t d = extent.size(); d-- > 0;) {
        index[d] = static_cast<int64_t>(linear % static_cast<uint64_t>(extent[d]));
        linear /= static_cast<uint64_t>(extent[d]);
    }
    return index;
}

// The unnormalised DFT of every transform of the problem by its definition (FFTW's sign
// convention; C2R reads a half spectrum, the rest of the spectrum its conjugate twin).
template <class Real>
void direct_transform(const FftProblem& p, const void* in, void* out) {
    const StridedArray input = strided_array(p, true, in);
    const StridedArray output = strided_array(p, false, out);
    std::vector<int64_t> lengths;
    for (const FftDimension& d : p.dims) lengths.push_back(d.n);
    const std::size_t rank = lengths.size();
    const std::vector<int64_t> in_extent(input.extent.end() - static_cast<long>(rank),
                                         input.extent.end());
    const std::vector<int64_t> out_extent(output.extent.end() - static_cast<long>(rank),
                                          output.extent.end());
    uint64_t points = 1, in_each = 1, out_each = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        points *= static_cast<uint64_t>(lengths[d]);
        in_each *= static_cast<uint64_t>(in_extent[d]);
        out_each *= static_cast<uint64_t>(out_extent[d]);
    }
    const uint64_t transforms = input.count() / in_each;
    const auto spectrum = [&](uint64_t t, const std::vector<int64_t>& k) -> Wide {
        if (p.kind != FftKind::c2r || k.back() < in_extent.back()) {
            uint64_t linear = 0;
            for (std::size_t d = 0; d < rank; ++d)
                linear = linear * static_cast<uint64_t>(in_extent[d]) + static_cast<uint64_t>(k[d]);
            const Real* x = element<Real>(input, t * in_each + linear);
            return complex_input(p) ? Wide(x[0], x[1]) : Wide(x[0], 0);
        }
        std::vector<int64_t> twin(rank);
        for (std::size_t d = 0; d < rank; ++d) twin[d] = (lengths[d] - k[d]) % lengths[d];
        return std::conj([&] {
            uint64_t linear = 0;
            for (std::size_t d = 0; d < rank; ++d)
                linear =
                    linear * static_cast<uint64_t>(in_extent[d]) + static_cast<uint64_t>(twin[d]);
            const Real* x = element<Real>(input, t * in_each + linear);
            return Wide(x[0], x[1]);
        }());
    };
    std::vector<Wide> results(transforms * out_each);
    for (uint64_t t = 0; t < transforms; ++t) {
        for (uint64_t o = 0; o < out_each; ++o) {
            const std::vector<int64_t> k = indices(o, out_extent);
            Wide sum = 0;
            for (uint64_t i = 0; i < points; ++i) {
                const std::vector<int64_t> j = indices(i, lengths);
                long double phase = 0;
                for (std::size_t d = 0; d < rank; ++d)
                    phase += static_cast<long double>(j[d] * k[d] % lengths[d]) / lengths[d];
                const Wide twiddle =
                    std::polar(1.0L, p.sign * 2 * std::numbers::pi_v<long double> * phase);
                sum += spectrum(t, j) * twiddle;
            }
            results[t * out_each + o] = sum;
        }
    }
    // Written only now: an in-place transform reads its input to the end.
    for (uint64_t e = 0; e < results.size(); ++e) {
        Real* y = element<Real>(output, e);
        y[0] = static_cast<Real>(results[e].real());
        if (complex_output(p)) y[1] = static_cast<Real>(results[e].imag());
    }
}

// The "CPU": FftOnCpu's plan is the problem; it records the arrays it was given.
struct CpuCalls {
    int count = 0;
    const void* in = nullptr;
    void* out = nullptr;
};
CpuCalls cpu_calls;

template <class Real>
void cpu_execute(const void* plan, const void* in, void* out) {
    ++cpu_calls.count;
    cpu_calls.in = in;
    cpu_calls.out = out;
    direct_transform<Real>(*static_cast<const FftProblem*>(plan), in, out);
}

// A problem's arrays in memory the test owns, with room for strides; random input.
template <class Real>
struct Arrays {
    std::vector<Real> in_storage, out_storage;
    Real* in;
    Real* out;

    Arrays(const FftProblem& p, bool in_place, unsigned seed) {
        const FftReach in_reach = byte_reach(p, true), out_reach = byte_reach(p, false);
        const auto reals = [](FftReach r) {
            return static_cast<std::size_t>(r.high - r.low) / sizeof(Real) + 1;
        };
        in_storage.resize(std::max(reals(in_reach), reals(out_reach)) + kSlack);
        out_storage.resize(reals(out_reach) + kSlack);
        in = placed(in_storage, in_reach, 24);
        out = in_place ? in : placed(out_storage, out_reach, 40);
        std::mt19937 random(seed);
        std::uniform_real_distribution<Real> value(-1, 1);
        const StridedArray input = strided_array(p, true, in);
        for (uint64_t e = 0; e < input.count(); ++e) {
            Real* x = element<Real>(input, e);
            x[0] = value(random);
            if (complex_input(p)) x[1] = value(random);
        }
        if (p.kind == FftKind::c2r) make_hermitian_ends(p, input);
    }

    static constexpr std::size_t kSlack = 64 / sizeof(Real);

    // The array's start in `storage`: `offset` bytes past a 64-byte boundary (as FFTW tells
    // alignments apart), with the reach below it inside.
    static Real* placed(std::vector<Real>& storage, FftReach reach, std::uintptr_t offset) {
        Real* start = storage.data() - reach.low / static_cast<int64_t>(sizeof(Real));
        while (reinterpret_cast<std::uintptr_t>(start) % 64 != offset) ++start;
        return start;
    }

    // A real signal's spectrum: real DC and (even length) Nyquist terms in one dimension.
    static void make_hermitian_ends(const FftProblem& p, const StridedArray& input) {
        const uint64_t half = static_cast<uint64_t>(input.row_length());
        for (uint64_t e = 0; e < input.count(); e += half) {
            element<Real>(input, e)[1] = 0;
            if (p.dims.back().n % 2 == 0) element<Real>(input, e + half - 1)[1] = 0;
        }
    }

    std::vector<Real> output_values(const FftProblem& p) const {
        std::vector<Real> values;
        const StridedArray output = strided_array(p, false, out);
        for (uint64_t e = 0; e < output.count(); ++e) {
            const Real* y = element<Real>(output, e);
            values.push_back(y[0]);
            if (complex_output(p)) values.push_back(y[1]);
        }
        return values;
    }
};

FftProblem problem(FftKind kind, bool single, std::vector<FftDimension> dims,
                   std::vector<FftDimension> howmany = {}) {
    FftProblem p;
    p.kind = kind;
    p.single = single;
    p.sign = kind == FftKind::c2r ? 1 : -1;
    p.described = true;
    p.dims = std::move(dims);
    p.howmany = std::move(howmany);
    return p;
}

// The check's unit for a transform: eps log2(N) sqrt(N), times the 2-norm of its input.
template <class Real>
double unit(const FftProblem& p) {
    double points = 1;
    for (const FftDimension& d : p.dims) points *= static_cast<double>(d.n);
    return std::numeric_limits<Real>::epsilon() * std::max(1.0, std::log2(points)) *
           std::sqrt(points);
}

struct Checked {
    std::unique_ptr<FftCheck> check;
    Verdict verdict;
};

// Runs the check around a "device" that computes the transform exactly, then adds `change`
// to the first real of the output element `changed` (of the packed output).
template <class Real>
Checked check_with_change(const FftProblem& p, Arrays<Real>& arrays, uint64_t changed,
                          double change) {
    auto check = std::make_unique<FftCheck>(FftOp{&p, arrays.in, arrays.out},
                                            FftOnCpu{&cpu_execute<Real>, &p});
    direct_transform<Real>(p, arrays.in, arrays.out);
    element<Real>(strided_array(p, false, arrays.out), changed)[0] += static_cast<Real>(change);
    const Verdict verdict = check->finish();
    return {std::move(check), verdict};
}

// The input norm of transform `t` as the check defines it.
template <class Real>
double input_norm(const FftProblem& p, const Arrays<Real>& arrays, uint64_t t, bool twinned) {
    const StridedArray input = strided_array(p, true, arrays.in);
    const uint64_t each = input.count() / [&] {
        uint64_t transforms = 1;
        for (const FftDimension& d : p.howmany) transforms *= static_cast<uint64_t>(d.n);
        return transforms;
    }();
    const auto half = static_cast<uint64_t>(input.row_length());
    long double sum = 0;
    for (uint64_t e = t * each; e < (t + 1) * each; ++e) {
        const Real* x = element<Real>(input, e);
        long double square = static_cast<long double>(x[0]) * x[0];
        if (complex_input(p)) square += static_cast<long double>(x[1]) * x[1];
        const uint64_t column = e % half;
        const bool edge = column == 0 || 2 * static_cast<int64_t>(column) == p.dims.back().n;
        sum += twinned && !edge ? 2 * square : square;
    }
    return static_cast<double>(std::sqrt(sum));
}

// Three strided transforms of 12 points: input every 2nd complex, 30 apart; output every
// 3rd, 40 apart.
FftProblem strided_batch(bool single) {
    return problem(FftKind::c2c, single, {{12, 2, 3}}, {{3, 30, 40}});
}

TEST(FftCheck, ExactResultAgreesAndOutputIsKept) {
    for (bool single : {false, true}) {
        const FftProblem p = strided_batch(single);
        cpu_calls = {};
        if (single) {
            Arrays<float> arrays(p, false, 1);
            EXPECT_EQ(check_with_change(p, arrays, 0, 0.0).verdict, Verdict::agreed);
        } else {
            Arrays<double> arrays(p, false, 1);
            EXPECT_EQ(check_with_change(p, arrays, 0, 0.0).verdict, Verdict::agreed);
        }
        EXPECT_EQ(cpu_calls.count, 1);
    }
}

TEST(FftCheck, BoundIsEpsLog2NSqrtNInputNormTimesTheLimit) {
    const FftProblem p = strided_batch(false);
    for (const double factor : {0.99, 1.01}) {
        Arrays<double> arrays(p, false, 2);
        // the second transform's fourth output element
        const double change =
            factor * FftCheck::kRatioLimit * unit<double>(p) * input_norm(p, arrays, 1, false);
        const Checked checked = check_with_change(p, arrays, 12 + 3, change);
        if (factor < 1) {
            EXPECT_EQ(checked.verdict, Verdict::agreed);
        } else {
            EXPECT_EQ(checked.verdict, Verdict::differed);
            const std::string difference = checked.check->difference();
            EXPECT_NE(difference.find("transform 2 of 3"), std::string::npos) << difference;
            EXPECT_NE(difference.find("(1 transforms differ)"), std::string::npos);
        }
    }
}

TEST(FftCheck, BatchOfTwoDimensionalTransformsIsJudgedTransformByTransform) {
    // Three 4 x 5 transforms, 20 apart (rows of 5), output 24 apart in rows of 6.
    const FftProblem p = problem(FftKind::c2c, false, {{4, 5, 6}, {5, 1, 1}}, {{3, 20, 24}});
    for (const double factor : {0.99, 1.01}) {
        Arrays<double> arrays(p, false, 9);
        // the third transform's element (1, 2): packed index 2 * 20 + 1 * 5 + 2
        const double change =
            factor * FftCheck::kRatioLimit * unit<double>(p) * input_norm(p, arrays, 2, false);
        const Checked checked = check_with_change(p, arrays, 2 * 20 + 7, change);
        EXPECT_EQ(checked.verdict, factor < 1 ? Verdict::agreed : Verdict::differed);
        if (factor > 1) {
            EXPECT_NE(std::string(checked.check->difference()).find("transform 3 of 3"),
                      std::string::npos)
                << checked.check->difference();
        }
    }
}

TEST(FftCheck, DifferenceIsReplacedByTheCpuResultEverywhere) {
    const FftProblem p = strided_batch(true);
    Arrays<float> arrays(p, false, 3);
    Arrays<float> expected(p, false, 3);
    direct_transform<float>(p, expected.in, expected.out);
    ASSERT_EQ(check_with_change(p, arrays, 30, 0.5).verdict, Verdict::differed);
    EXPECT_EQ(arrays.output_values(p), expected.output_values(p));
}

TEST(FftCheck, CpuComputesOnCopiesAtTheCallersAlignment) {
    const FftProblem p = strided_batch(false);
    Arrays<double> arrays(p, false, 4);
    cpu_calls = {};
    check_with_change(p, arrays, 0, 0.0);
    ASSERT_EQ(cpu_calls.count, 1);
    EXPECT_NE(cpu_calls.in, arrays.in);
    EXPECT_NE(cpu_calls.out, arrays.out);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(cpu_calls.in) % 64,
              reinterpret_cast<std::uintptr_t>(arrays.in) % 64);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(cpu_calls.out) % 64,
              reinterpret_cast<std::uintptr_t>(arrays.out) % 64);
}

TEST(FftCheck, InPlaceTransformIsCheckedAgainstItsInputAsItWas) {
    // A 2-D r2c in place: rows of 10 reals padded to 12 (6 complex), 4 rows, 2 transforms.
    const FftProblem p = problem(FftKind::r2c, false, {{4, 12, 6}, {10, 1, 1}}, {{2, 48, 24}});
    Arrays<double> arrays(p, true, 5);
    Arrays<double> expected(p, false, 5);
    direct_transform<double>(p, expected.in, expected.out);
    cpu_calls = {};
    EXPECT_EQ(check_with_change(p, arrays, 0, 0.0).verdict, Verdict::agreed);
    EXPECT_EQ(cpu_calls.in, cpu_calls.out);
    EXPECT_EQ(arrays.output_values(p), expected.output_values(p));

    Arrays<double> changed(p, true, 5);
    ASSERT_EQ(check_with_change(p, changed, 7, 1e-6).verdict, Verdict::differed);
    EXPECT_EQ(changed.output_values(p), expected.output_values(p));
}

TEST(FftCheck, C2rInputNormCountsTheConjugateTwins) {
    // Only terms with a twin not stored: the spectrum's norm is sqrt(2) times the half's.
    const FftProblem p = problem(FftKind::c2r, false, {{3, 5, 10}, {8, 1, 1}});
    const auto twinned_only = [&p] {
        auto arrays = std::make_unique<Arrays<double>>(p, false, 6);
        const StridedArray input = strided_array(p, true, arrays->in);
        for (uint64_t e = 0; e < input.count(); e += 5) {
            element<double>(input, e)[0] = 0;
            element<double>(input, e + 4)[0] = 0;
        }
        return arrays;
    };
    const auto arrays = twinned_only();
    const double half_norm = input_norm(p, *arrays, 0, false);
    ASSERT_NEAR(input_norm(p, *arrays, 0, true), std::sqrt(2.0) * half_norm, 1e-12 * half_norm);
    // Beyond the limit for the half spectrum's norm, within it for the whole spectrum's
    // (sqrt(2) larger), and beyond that.
    const double limit = FftCheck::kRatioLimit * unit<double>(p) * half_norm;
    EXPECT_EQ(check_with_change(p, *arrays, 9, 1.3 * limit).verdict, Verdict::agreed);
    EXPECT_EQ(check_with_change(p, *twinned_only(), 9, 1.5 * limit).verdict, Verdict::differed);
}

TEST(FftCheck, NonFiniteInputIsNotCompared) {
    const FftProblem p = strided_batch(false);
    Arrays<double> arrays(p, false, 7);
    const StridedArray input = strided_array(p, true, arrays.in);
    for (uint64_t t = 0; t < 3; ++t)
        element<double>(input, t * 12 + 5)[1] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(check_with_change(p, arrays, 0, 1.0).verdict, Verdict::unchecked);
}

TEST(FftCheck, FiniteTransformsAreComparedBesideOneThatIsNot) {
    const FftProblem p = strided_batch(false);
    Arrays<double> arrays(p, false, 10);
    element<double>(strided_array(p, true, arrays.in), 5)[1] =
        std::numeric_limits<double>::infinity();
    EXPECT_EQ(check_with_change(p, arrays, 2 * 12, 1e-6).verdict, Verdict::differed);
}

TEST(FftCheck, InPlaceCopyHasTheCallersAlignment) {
    const FftProblem p = problem(FftKind::c2c, true, {{16, 1, 1}}, {{2, 16, 16}});
    Arrays<float> arrays(p, true, 11);
    cpu_calls = {};
    check_with_change(p, arrays, 0, 0.0);
    ASSERT_EQ(cpu_calls.count, 1);
    EXPECT_EQ(cpu_calls.in, cpu_calls.out);
    EXPECT_NE(cpu_calls.in, arrays.in);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(cpu_calls.in) % 64,
              reinterpret_cast<std::uintptr_t>(arrays.in) % 64);
}

TEST(FftCheck, NegativeStridesAreFollowed) {
    // Two transforms of 9 points read backwards (input stride -1, the second transform
    // below the first), written forwards.
    const FftProblem p = problem(FftKind::c2c, false, {{9, -1, 1}}, {{2, -9, 9}});
    Arrays<double> arrays(p, false, 12);
    Arrays<double> expected(p, false, 12);
    direct_transform<double>(p, expected.in, expected.out);
    EXPECT_EQ(check_with_change(p, arrays, 0, 0.0).verdict, Verdict::agreed);
    Arrays<double> changed(p, false, 12);
    ASSERT_EQ(check_with_change(p, changed, 13, 1e-6).verdict, Verdict::differed);
    EXPECT_EQ(changed.output_values(p), expected.output_values(p));
}

TEST(FftCheck, NotANumberFromTheDeviceDiffers) {
    const FftProblem p = strided_batch(false);
    Arrays<double> arrays(p, false, 8);
    EXPECT_EQ(check_with_change(p, arrays, 20, std::numeric_limits<double>::quiet_NaN()).verdict,
              Verdict::differed);
    for (double value : arrays.output_values(p)) EXPECT_TRUE(std::isfinite(value));
}

}  // namespace
}  // namespace gpushim
