// GPUSHIM_VERIFY's check of SYEVR's part of a spectrum (dispatch/lapack_check.h): the values
// (and vectors) of a "device" that returns exact eigenpairs of A = H diag(1, ..., n) H, H a
// Householder reflector, are the part the range asked for or another part. Another part is
// ordered, inside the Gershgorin hull and (vl, vu], and its pairs have small residuals: only
// the count by inertia (the CPU library's DSYTRF of A - shift I) can tell it is not the one.
#include "dispatch/lapack_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "fallback/fortran_blas3.h"
#include "tests/unit/cpu_library_calls.h"
#include "tests/unit/exact_matrices.h"

namespace gpushim {
namespace {

using test::precision_of;
using test::Real;
using test::Wide;

constexpr int64_t kOrder = 40;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A = H diag(1, ..., n) H scale with H = I - 2 v v^H / (v^H v) (Hermitian and unitary):
// eigenvalue (k + 1) scale with H's column k, computed in long double and rounded.
template <class T>
struct Spectrum {
    std::vector<T> a, h;

    explicit Spectrum(double scale) : a(kOrder * kOrder), h(kOrder * kOrder) {
        const std::vector<Wide<T>> reflector = test::householder<T>(kOrder, 7);
        for (int64_t j = 0; j < kOrder; ++j)
            for (int64_t i = 0; i < kOrder; ++i) {
                Wide<T> sum = 0;
                for (int64_t k = 0; k < kOrder; ++k)
                    sum += reflector[i + k * kOrder] * Wide<T>((k + 1) * scale) *
                           test::conjugate(reflector[j + k * kOrder]);
                a[i + j * kOrder] = static_cast<T>(sum);
                h[i + j * kOrder] = static_cast<T>(reflector[i + j * kOrder]);
            }
    }
};

struct Range {
    char range;
    int64_t il = 0, iu = 0;
    double vl = 0, vu = 0;
};

// The check of a SYEVR call on A's lower triangle whose device returned the eigenpairs with
// 0-based indices `returned`, with (jobz 'V') or without vectors, of Spectrum(scale). The
// device destroys A; a check that fails must put it back.
template <class T>
class SyevrCheck {
  public:
    SyevrCheck(char jobz, Range range, const std::vector<int64_t>& returned, double scale = 1) {
        const Spectrum<T> spectrum(scale);
        std::vector<T> a = spectrum.a;
        std::vector<Real<T>> w(kOrder);
        std::vector<T> u(kOrder * kOrder);
        int64_t found = static_cast<int64_t>(returned.size());
        LapackOp op{};
        op.kind = GPUSHIM_SYEVR;
        op.precision = precision_of<T>();
        op.jobz = jobz;
        op.range = range.range;
        op.uplo = 'L';
        op.n = kOrder;
        op.a = a.data();
        op.lda = kOrder;
        op.il = range.il;
        op.iu = range.iu;
        op.vl = range.vl;
        op.vu = range.vu;
        op.w = w.data();
        op.u = u.data();
        op.ldu = kOrder;
        op.found = &found;
        LapackCheck check(op, test::cpu_part, test::cpu_symmetric_factor);
        for (std::size_t k = 0; k < returned.size(); ++k) {
            w[k] = static_cast<Real<T>>(static_cast<double>(returned[k] + 1) * scale);
            if (jobz == 'V')
                std::copy_n(spectrum.h.begin() + returned[k] * kOrder, kOrder,
                            u.begin() + static_cast<int64_t>(k) * kOrder);
        }
        std::fill(a.begin(), a.end(), T(-3));
        verdict_ = check.finish();
        difference_ = check.difference();
        restored_ = a == spectrum.a;
    }

    Verdict verdict() const { return verdict_; }
    const std::string& difference() const { return difference_; }
    bool restored() const { return restored_; }

  private:
    Verdict verdict_ = Verdict::unchecked;
    std::string difference_;
    bool restored_ = false;
};

std::vector<int64_t> indices(int64_t first, int64_t last) {
    std::vector<int64_t> result;
    for (int64_t k = first; k <= last; ++k) result.push_back(k);
    return result;
}

template <class T>
class SyevrRangeCheck : public ::testing::Test {};
using Precisions = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SyevrRangeCheck, Precisions);

// il..iu = 5..12 is eigenvalues 5..12 (indices 4..11).
TYPED_TEST(SyevrRangeCheck, IndexRangeAgrees) {
    for (char jobz : {'N', 'V'}) {
        SCOPED_TRACE(jobz);
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, {'I', 5, 12}, indices(4, 11)).verdict(),
                  Verdict::agreed);
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, {'I', 1, kOrder}, indices(0, kOrder - 1)).verdict(),
                  Verdict::agreed);
    }
}

TYPED_TEST(SyevrRangeCheck, IndexRangeOneHigherOrLowerDiffers) {
    for (char jobz : {'N', 'V'}) {
        for (int64_t first : {3, 5}) {
            SCOPED_TRACE(std::string(1, jobz) + " from index " + std::to_string(first));
            const SyevrCheck<TypeParam> check(jobz, {'I', 5, 12}, indices(first, first + 7));
            EXPECT_EQ(check.verdict(), Verdict::differed);
            EXPECT_NE(check.difference().find("counted by inertia"), std::string::npos)
                << check.difference();
            EXPECT_TRUE(check.restored());
        }
    }
}

// (4.5, 12.5] holds eigenvalues 5..12; an infinite end needs no factorization.
TYPED_TEST(SyevrRangeCheck, ValueRangeAgrees) {
    for (char jobz : {'N', 'V'}) {
        SCOPED_TRACE(jobz);
        Range range{'V'};
        range.vl = 4.5;
        range.vu = 12.5;
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, indices(4, 11)).verdict(), Verdict::agreed);
        range.vl = -kInfinity;
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, indices(0, 11)).verdict(), Verdict::agreed);
        range.vl = 4.5;
        range.vu = kInfinity;
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, indices(4, kOrder - 1)).verdict(),
                  Verdict::agreed);
        range.vl = 20.25;
        range.vu = 20.75;
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, {}).verdict(), Verdict::agreed);
    }
}

// The whole spectrum without vectors is checked by its power sums, whose scale (A's Frobenius
// norm) must neither overflow nor underflow: at far scales the right values agree and a
// value counted twice in place of another differs.
TYPED_TEST(SyevrRangeCheck, WholeSpectrumAtFarScales) {
    const bool single = std::is_same_v<Real<TypeParam>, float>;
    std::vector<int64_t> twice = indices(0, kOrder - 1);
    twice[kOrder - 1] = kOrder - 2;
    for (const int exponent : {single ? 66 : 515, single ? -80 : -545}) {
        SCOPED_TRACE(exponent);
        const double scale = std::ldexp(1.0, exponent);
        const SyevrCheck<TypeParam> right('N', {'A'}, indices(0, kOrder - 1), scale);
        EXPECT_EQ(right.verdict(), Verdict::agreed) << right.difference();
        EXPECT_EQ(SyevrCheck<TypeParam>('N', {'A'}, twice, scale).verdict(), Verdict::differed);
    }
}

// A = 0: no rounding is allowed, and every eigenvalue is on a shift (W's, or vl or vu).
TYPED_TEST(SyevrRangeCheck, ZeroMatrixAgrees) {
    for (char jobz : {'N', 'V'}) {
        SCOPED_TRACE(jobz);
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, {'I', 5, 12}, indices(4, 11), 0.0).verdict(),
                  Verdict::agreed);
        Range range{'V'};
        range.vl = -1;
        range.vu = 0;  // all of them
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, indices(0, kOrder - 1), 0.0).verdict(),
                  Verdict::agreed);
        range.vl = 0;
        range.vu = 1;  // none
        EXPECT_EQ(SyevrCheck<TypeParam>(jobz, range, {}, 0.0).verdict(), Verdict::agreed);
    }
}

// One eigenvalue inside left out (at either end or in the middle), or one counted twice.
TYPED_TEST(SyevrRangeCheck, ValueRangeMissingOrExtraDiffers) {
    Range range{'V'};
    range.vl = 4.5;
    range.vu = 12.5;
    std::vector<std::vector<int64_t>> wrong = {indices(5, 11), indices(4, 10), {4, 5, 6, 8, 9}};
    wrong.push_back(indices(4, 11));
    wrong.back().push_back(11);
    for (char jobz : {'N', 'V'}) {
        for (const std::vector<int64_t>& returned : wrong) {
            SCOPED_TRACE(std::string(1, jobz) + " " + std::to_string(returned.size()) + " values");
            const SyevrCheck<TypeParam> check(jobz, range, returned);
            EXPECT_EQ(check.verdict(), Verdict::differed);
            EXPECT_TRUE(check.restored());
        }
    }
    range.vl = 20.25;
    range.vu = 21.5;  // holds 21 alone
    EXPECT_EQ(SyevrCheck<TypeParam>('N', range, {}).verdict(), Verdict::differed);
}

}  // namespace
}  // namespace gpushim
