// GPUSHIM_VERIFY's check of GELSD's singular values, effective rank and solution length
// (dispatch/lapack_check.h), on a "device" that returns exact results of A = U diag(s) V^H,
// U and V Householder reflectors, with rcond = 1e-3: kept singular values from 1 down to 0.02,
// dropped ones of 1e-6 and 0. A solution that kept a dropped value is still a least-squares
// solution whose residual is orthogonal to A's columns (to within the rcond the check allows):
// only its length, against the singular values, can tell.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch/lapack_check.h"
#include "fallback/fortran_blas3.h"
#include "tests/unit/cpu_library_calls.h"
#include "tests/unit/exact_matrices.h"

namespace gpushim {
namespace {

using test::kComplex;
using test::Real;
using test::Wide;

constexpr int64_t kRows = 50, kCols = 30, kRhs = 2, kRank = 24;
constexpr double kRcond = 1e-3;

// Exact quantities of the problem, in long double (complex long double for complex T).
template <class T>
struct Problem {
    std::vector<long double> s;  // descending
    std::vector<Wide<T>> u, v;   // kRows x kRows and kCols x kCols, unitary
    std::vector<T> a, b;         // A = U(:, 1:n) diag(s) V^H, and B

    Problem()
        : s(kCols),
          u(test::householder<T>(kRows, 3)),
          v(test::householder<T>(kCols, 5)),
          a(kRows * kCols),
          b(kRows * kRhs) {
        for (int64_t k = 0; k < kCols; ++k)
            s[k] = k < kRank ? 1.0L - 0.98L * k / (kRank - 1) : k < kRank + 3 ? 1e-6L : 0.0L;
        for (int64_t j = 0; j < kCols; ++j)
            for (int64_t i = 0; i < kRows; ++i) {
                Wide<T> sum = 0;
                for (int64_t k = 0; k < kCols; ++k)
                    sum += u[i + k * kRows] * Wide<T>(s[k]) * test::conjugate(v[j + k * kCols]);
                a[i + j * kRows] = static_cast<T>(sum);
            }
        for (int64_t e = 0; e < kRows * kRhs; ++e)
            b[e] = static_cast<T>(Wide<T>(static_cast<long double>((e * 13) % 17) - 8));
    }

    // X = V(:, kept) diag(s)^-1 U(:, kept)^H B, the minimum-norm solution with the singular
    // values `kept` (0-based indices).
    std::vector<T> solution(const std::vector<int64_t>& kept) const {
        std::vector<T> x(kCols * kRhs);
        for (int64_t c = 0; c < kRhs; ++c)
            for (int64_t i = 0; i < kCols; ++i) {
                Wide<T> sum = 0;
                for (int64_t k : kept) {
                    Wide<T> projection = 0;
                    for (int64_t r = 0; r < kRows; ++r)
                        projection += test::conjugate(u[r + k * kRows]) * Wide<T>(b[r + c * kRows]);
                    sum += v[i + k * kCols] * projection / Wide<T>(s[k]);
                }
                x[i + c * kCols] = static_cast<T>(sum);
            }
        return x;
    }
};

std::vector<int64_t> first(int64_t count) {
    std::vector<int64_t> kept;
    for (int64_t k = 0; k < count; ++k) kept.push_back(k);
    return kept;
}

template <class T>
T times_power_of_two(const T& value, int exponent) {
    if constexpr (kComplex<T>) {
        return {std::ldexp(value.real(), exponent), std::ldexp(value.imag(), exponent)};
    } else {
        return std::ldexp(value, exponent);
    }
}

template <class T>
std::vector<T> times_power_of_two(std::vector<T> values, int exponent) {
    for (T& value : values) value = times_power_of_two(value, exponent);
    return values;
}

// The check of a GELSD call on the problem, A scaled by 2^a_exponent and B by 2^b_exponent,
// whose device answered `x`, `rank` and the singular values `s` of the unscaled problem
// (scaled here as the problem is: X by 2^(b_exponent - a_exponent), S by 2^a_exponent).
template <class T>
struct GelsdCheck {
    Verdict verdict = Verdict::unchecked;
    std::string difference;

    GelsdCheck(const Problem<T>& problem, const std::vector<T>& x, int64_t rank,
               std::vector<long double> s, int a_exponent = 0, int b_exponent = 0) {
        std::vector<T> a = times_power_of_two(problem.a, a_exponent);
        std::vector<T> b = times_power_of_two(problem.b, b_exponent);
        const std::vector<T> scaled_x = times_power_of_two(x, b_exponent - a_exponent);
        std::vector<Real<T>> w(kCols);
        int64_t found = -1;
        LapackOp op{};
        op.kind = GPUSHIM_GELSD;
        op.precision = test::precision_of<T>();
        op.m = kRows;
        op.n = kCols;
        op.nrhs = kRhs;
        op.a = a.data();
        op.lda = kRows;
        op.b = b.data();
        op.ldb = kRows;
        op.rcond = kRcond;
        op.w = w.data();
        op.found = &found;
        LapackCheck check(op, test::cpu_part, test::cpu_symmetric_factor);
        std::fill(a.begin(), a.end(), T(-3));
        for (int64_t c = 0; c < kRhs; ++c)
            std::copy_n(scaled_x.begin() + c * kCols, kCols, b.begin() + c * kRows);
        for (int64_t k = 0; k < kCols; ++k)
            w[k] = std::ldexp(static_cast<Real<T>>(s[k]), a_exponent);
        found = rank;
        verdict = check.finish();
        difference = check.difference();
    }
};

template <class T>
class GelsdRankCheck : public ::testing::Test {};
using Precisions = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(GelsdRankCheck, Precisions);

TYPED_TEST(GelsdRankCheck, TheMinimumNormSolutionAgrees) {
    const Problem<TypeParam> problem;
    const GelsdCheck<TypeParam> check(problem, problem.solution(first(kRank)), kRank, problem.s);
    EXPECT_EQ(check.verdict, Verdict::agreed) << check.difference;
}

// Scaled by powers of two (exactly) far from 1: the squares of X's, B's and A's entries, and
// the products the checks form, would overflow or underflow in T unscaled.
TYPED_TEST(GelsdRankCheck, TheMinimumNormSolutionOfAFarScaledProblemAgrees) {
    const Problem<TypeParam> problem;
    const int far = std::is_same_v<Real<TypeParam>, float> ? 70 : 530;
    for (const auto& [a_exponent, b_exponent] :
         {std::pair{-far / 2, far / 2}, std::pair{0, -far - 10}, std::pair{far, 0},
          std::pair{-far - 10, 0}}) {
        const GelsdCheck<TypeParam> check(problem, problem.solution(first(kRank)), kRank, problem.s,
                                          a_exponent, b_exponent);
        EXPECT_EQ(check.verdict, Verdict::agreed)
            << "A by 2^" << a_exponent << ", B by 2^" << b_exponent << ": " << check.difference;
    }
}

TYPED_TEST(GelsdRankCheck, ASolutionThatKeptADroppedValueDiffers) {
    const Problem<TypeParam> problem;
    std::vector<int64_t> kept = first(kRank);
    kept.push_back(kRank);  // s = 1e-6, below rcond s(1)
    const GelsdCheck<TypeParam> check(problem, problem.solution(kept), kRank, problem.s);
    EXPECT_EQ(check.verdict, Verdict::differed);
    EXPECT_NE(check.difference.find("||X(:, j)|| S(RANK)"), std::string::npos) << check.difference;
}

TYPED_TEST(GelsdRankCheck, ARankOtherThanTheCountAboveRcondDiffers) {
    const Problem<TypeParam> problem;
    for (const int64_t rank : {kRank - 1, kRank + 1, int64_t{0}, kCols}) {
        const GelsdCheck<TypeParam> check(problem, problem.solution(first(kRank)), rank, problem.s);
        EXPECT_EQ(check.verdict, Verdict::differed) << "rank " << rank;
        EXPECT_NE(check.difference.find("RANK, the number of S(i) above rcond S(1)"),
                  std::string::npos)
            << check.difference;
    }
}

TYPED_TEST(GelsdRankCheck, WrongSingularValuesDiffer) {
    const Problem<TypeParam> problem;
    std::vector<long double> s = problem.s;
    s[3] *= 1.01L;
    const GelsdCheck<TypeParam> check(problem, problem.solution(first(kRank)), kRank, s);
    EXPECT_EQ(check.verdict, Verdict::differed);
}

}  // namespace
}  // namespace gpushim
