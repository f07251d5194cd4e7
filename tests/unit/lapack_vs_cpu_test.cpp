// The shim's LAPACK factorizations ({s,d,c,z}potrf, getrf, sytrf) against OpenBLAS called
// directly, through the real exported entry points of libgpushim.so, with the calls and
// comparisons of lapack_test_harness.h.
//
// The test links no BLAS: it dlopen()s the shim (GPUSHIM_SHIM_PATH, or $GPUSHIM_TEST_SHIM),
// Debian's 32-bit OpenBLAS (GPUSHIM_TEST_OPENBLAS_PATH, or $GPUSHIM_TEST_OPENBLAS), which has
// LAPACK, and Debian's ILP64 OpenBLAS (GPUSHIM_TEST_OPENBLAS64_PATH, or
// $GPUSHIM_TEST_OPENBLAS64), whose plain names (dpotrf_) take 64-bit integers: the reference
// for the shim's 64_ names, and the CPU library the shim itself finds for them. Every call is
// made twice, through the shim and through OpenBLAS, on identical operands. main() points the
// shim at the host-simulated device (or $TEST_GPUSHIM_BACKEND) with a zero threshold, so that
// every valid, non-empty call is offloaded; CTest runs the executable again with faults
// injected, with a small device and with the shim disabled (tests/unit/lapack_vs_cpu.cmake).
//
// Checked, in every precision, through the standard names and the 64_ names (and, when the
// device certainly completes every call, the scipy_ names, whose CPU symbols exist only
// inside a pip wheel):
//  - POTRF, uplo U/L (and u/l), on random Hermitian positive definite matrices, n in
//    {1, 7, 33, 70}, lda = n and n + 3: the factor agrees with OpenBLAS's to a scaled-eps
//    bound; INFO = 0; the other triangle (NaN: must not be read) and the padding stay
//    bit-exact, as do guard elements past the end of the array;
//  - GETRF on random square and rectangular (m > n, m < n) matrices, lda = m and lda > m:
//    the pivots equal OpenBLAS's, the factors agree to a scaled-eps bound, INFO = 0, padding
//    and the pivot entries past min(m, n) untouched;
//  - SYTRF (Bunch-Kaufman; complex symmetric for c, z), uplo U/L (and u/l), on random
//    symmetric matrices and on ones with a zero diagonal (2 x 2 pivots), n in {1, 7, 33, 70},
//    lda = n and n + 3, with the workspace of OpenBLAS's query (and one element more): the
//    pivots equal OpenBLAS's, the factor agrees to a scaled-eps bound, the other triangle
//    and the padding bit-exact, INFO = 0, WORK(1) as OpenBLAS leaves it; a workspace query
//    and a workspace below the optimal one run on the CPU, bit for bit OpenBLAS's;
//  - INFO > 0: POTRF on matrices whose leading minor of order k is not positive definite
//    (INFO = k), GETRF on matrices with an exactly zero column k (INFO = k) and SYTRF on
//    symmetric matrices with a zero row and column k (D exactly singular) or a NaN: the shim
//    recomputes such calls on the CPU, so the whole array, the pivots and INFO must equal
//    OpenBLAS's bit for bit;
//  - invalid arguments (uplo 'X', m < 0, n < 0, lda too small, SYTRF's lwork 0): forwarded,
//    the same xerbla message and the same INFO < 0, the array untouched;
//  - empty matrices (n = 0, m = 0): INFO = 0, nothing written;
//  - larger matrices (n = 260), which the small_device variant computes on the CPU;
//  - a leading dimension above 2^32 through the 64-bit names;
//  - concurrent callers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "lapack_test_harness.h"
#include "shim_test_harness.h"

namespace {

using namespace gpushim::test_harness;          // NOLINT(google-build-using-namespace)
using namespace gpushim::test_harness::lapack;  // NOLINT(google-build-using-namespace)

// --- Operands -----------------------------------------------------------------------------
// POTRF's: the uplo triangle of the Hermitian positive definite h, the other triangle NaN.
template <class T>
Operands<T> potrf_operands(const Dense& h, int64_t lda, char uplo) {
    Operands<T> o;
    o.a = triangle_of<T>(h, uplo, lda);
    return o;
}

// GETRF's: `a`, and room for the pivots.
template <class T>
Operands<T> getrf_operands(const Dense& a, int64_t lda) {
    Operands<T> o;
    o.a = array_of<T>(a, lda);
    o.ipiv = Array<int64_t>::vector(std::min(a.rows, a.cols));
    return o;
}

template <class T>
Operands<T> random_getrf_operands(int64_t m, int64_t n, int64_t lda, Rng& rng) {
    return getrf_operands<T>(random_dense(m, n, kIsComplex<T>, rng), lda);
}

// SYTRF: the uplo triangle of `a` (which stands for the symmetric matrix it determines; the
// other triangle NaN), room for the pivots, and a workspace set by with_queried_workspaces().
template <class T>
Operands<T> sytrf_operands(const Dense& a, int64_t lda, char uplo) {
    Operands<T> o;
    o.a = triangle_of<T>(a, uplo, lda);
    o.ipiv = Array<int64_t>::vector(a.rows);
    o.work = Array<T>::vector(1);
    return o;
}

// A random n x n matrix whose diagonal is zero where `zero_diagonal`: Bunch-Kaufman then takes
// 2 x 2 pivots.
inline Dense sytrf_matrix(int64_t n, bool complex, bool zero_diagonal, Rng& rng) {
    Dense a = random_dense(n, n, complex, rng);
    if (zero_diagonal) {
        for (int64_t i = 0; i < n; ++i) a(i, i) = 0.0;
    }
    return a;
}

// --- Checks -------------------------------------------------------------------------------
// After a factorization that should succeed: INFO = 0; the factor within 32 (k + 4) eps
// times its scale of OpenBLAS's where the routine writes it (POTRF: the uplo triangle, and
// |L(i, j)| <= sqrt(A(i, i)): the scale is sqrt(max |A|)), every other storage position
// bit-exact with the input; GETRF's pivots OpenBLAS's. Empty: agreement.
template <class R, class T>
std::string factor_difference(const Args& args, const Operands<T>& input, const Pair<T>& p) {
    if (p.shim.info != 0) return "INFO = " + std::to_string(p.shim.info);
    if constexpr (std::is_same_v<R, Potrf>) {
        return compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(args.flags[0]),
                             tolerance<T>(args.n, std::sqrt(std::max(1.0, max_abs(input.a)))));
    } else {
        const std::string pivots =
            compare_array("IPIV", input.ipiv, p.shim.ipiv, p.ref.ipiv, everywhere, 0.0);
        if (!pivots.empty()) return pivots;
        return compare_to_scale("A", input.a, p.shim.a, p.ref.a, std::min(args.m, args.n));
    }
}

// SYTRF with OpenBLAS's workspace (`extra` elements longer) through both: INFO = 0, the pivots
// OpenBLAS's, the factor within 32 (n + 4) eps of OpenBLAS's at the larger scale of the input
// and OpenBLAS's factor in the uplo triangle, the rest bit-exact, WORK(1) as OpenBLAS leaves it.
// Returns whether the factor is OpenBLAS's bit for bit.
template <class T>
bool expect_sytrf_factored(Scheme scheme, Args args, Operands<T> input, int64_t extra) {
    Operands<T> query;
    input = with_bunch_kaufman_workspace<Sytrf>(scheme, args, input, extra, query);
    const Pair<T> p = run_both<Sytrf>(scheme, args, input);
    EXPECT_EQ(p.ref.info, 0) << p.what << ": OpenBLAS";
    EXPECT_EQ(p.shim.info, 0) << p.what;
    EXPECT_EQ(compare_array("IPIV", input.ipiv, p.shim.ipiv, p.ref.ipiv, everywhere, 0.0), "")
        << p.what;
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(args.flags[0]),
                            tolerance<T>(args.n, std::max(max_abs(input.a), max_abs(p.ref.a)))),
              "")
        << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
    return identical(p.shim.a, p.ref.a);
}

// The factorization through both, checked as factor_difference() says. Returns whether the
// factor is OpenBLAS's bit for bit.
template <class R, class T>
bool expect_factored(Scheme scheme, const Args& args, const Operands<T>& input) {
    const Pair<T> p = run_both<R>(scheme, args, input);
    EXPECT_EQ(p.ref.info, 0) << p.what << ": OpenBLAS";
    EXPECT_EQ(factor_difference<R>(args, input, p), "") << p.what;
    return identical(p.shim.a, p.ref.a);
}

// How many offloaded factors came out bit-equal to OpenBLAS's: a property of the test's XML
// report and a line of its output.
void record_bit_equal(const std::string& routine, int bit_equal, int cases) {
    testing::Test::RecordProperty("bit_equal_factors",
                                  std::to_string(bit_equal) + "/" + std::to_string(cases));
    std::printf("%s: %d of %d factors bit-equal to OpenBLAS's\n", routine.c_str(), bit_equal,
                cases);
}

// Nothing to factor: INFO = 0, nothing written (and no pivot), as by OpenBLAS, which prints
// nothing either.
template <class R, class T>
void expect_nothing_factored(Scheme scheme, const Args& args, const Operands<T>& input) {
    const Pair<T> p = run_both<R>(scheme, args, input, /*capture=*/true);
    EXPECT_EQ(p.ref.info, 0) << p.what << ": OpenBLAS";
    EXPECT_EQ(compare_arrays_exactly(p.shim, input), "") << p.what;
    EXPECT_EQ(compare_exact(p), "") << p.what;
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class Lapack : public testing::Test {};
TYPED_TEST_SUITE(Lapack, Precisions, PrecisionNames);

constexpr Shape kShapes[] = {{1, 1},   {7, 7}, {33, 33}, {70, 70}, {70, 33},
                             {33, 70}, {7, 1}, {1, 7},   {41, 17}, {17, 41}};

TYPED_TEST(Lapack, PotrfMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(11);
    int cases = 0, bit_equal = 0;
    for_each_case(schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      const Args args{.flags = uplo, .n = n, .lda = n + pad};
                      const Dense h = random_hpd(n, kIsComplex<T>, rng);
                      bit_equal += expect_factored<Potrf>(scheme, args,
                                                          potrf_operands<T>(h, args.lda, uplo[0]));
                      ++cases;
                  });
    record_bit_equal(Potrf::name<T>(), bit_equal, cases);
}

TYPED_TEST(Lapack, GetrfMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(12);
    int cases = 0, bit_equal = 0;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (const Shape& shape : kShapes) {
            for (int64_t pad : {3, 0}) {
                const Args args{.m = shape.m, .n = shape.n, .lda = shape.m + pad};
                bit_equal += expect_factored<Getrf>(
                    scheme, args, random_getrf_operands<T>(shape.m, shape.n, args.lda, rng));
                ++cases;
            }
        }
    }
    record_bit_equal(Getrf::name<T>(), bit_equal, cases);
}

TYPED_TEST(Lapack, SytrfMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(18);
    int cases = 0, bit_equal = 0;
    for_each_case(schemes_for_workspace_routines(), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      for (bool zero_diagonal : {false, true}) {
                          const Dense a = sytrf_matrix(n + (zero_diagonal ? 1 : 0), kIsComplex<T>,
                                                       zero_diagonal, rng);
                          const Args args{.flags = uplo, .n = a.rows, .lda = a.rows + pad};
                          bit_equal += expect_sytrf_factored(
                              scheme, args, sytrf_operands<T>(a, args.lda, uplo[0]), pad % 2);
                          ++cases;
                      }
                  });
    record_bit_equal(Sytrf::name<T>(), bit_equal, cases);
}

// A workspace query, and LWORK below OpenBLAS's optimum (1, LAPACK's minimum, and one less
// than the optimum), run on the CPU: everything as OpenBLAS leaves it.
TYPED_TEST(Lapack, SytrfWorkspaceQueryAndSmallWorkspaceGiveOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(19);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (int64_t n : {7, 70}) {
            for (const char* uplo : {"U", "L"}) {
                const Dense a = sytrf_matrix(n, kIsComplex<T>, false, rng);
                const Args args{.flags = uplo, .n = n, .lda = n};
                expect_each_workspace_query<Sytrf>(scheme, args, sytrf_operands<T>(a, n, uplo[0]));
                expect_small_workspaces_as_openblas<Sytrf>(scheme, args,
                                                           sytrf_operands<T>(a, n, uplo[0]), 1);
            }
        }
    }
}

// Row and column k zero: D is exactly singular, INFO > 0 (LAPACK names the first zero block it
// meets), the factorization completed. Recomputed on the CPU: bit for bit OpenBLAS's.
TYPED_TEST(Lapack, SytrfSingularGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(20);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (int64_t n : kOrders) {
            for (int64_t k : {int64_t{1}, (n + 1) / 2, n}) {
                Dense a = sytrf_matrix(n, kIsComplex<T>, false, rng);
                for (int64_t i = 0; i < n; ++i) a(i, k - 1) = a(k - 1, i) = 0.0;
                for (const char* uplo : {"U", "L"}) {
                    Args args{.flags = uplo, .n = n, .lda = n + 2};
                    Operands<T> query;
                    const Operands<T> input = with_bunch_kaufman_workspace<Sytrf>(
                        scheme, args, sytrf_operands<T>(a, args.lda, uplo[0]), 0, query);
                    const Pair<T> p = run_both<Sytrf>(scheme, args, input);
                    const std::string what =
                        p.what + " row and column " + std::to_string(k) + " zero";
                    EXPECT_GT(p.ref.info, 0) << what << ": OpenBLAS";
                    EXPECT_EQ(compare_exact(p), "") << what;
                    Operands<T> with_nan = input;
                    with_nan.a.at(k - 1, k - 1) = nan_value<T>();
                    const Pair<T> q = run_both<Sytrf>(scheme, args, with_nan);
                    EXPECT_GT(q.ref.info, 0) << q.what << " NaN at " << k << ": OpenBLAS";
                    EXPECT_EQ(compare_exact(q), "") << q.what << " NaN at " << k;
                }
            }
        }
    }
}

// Larger matrices (at least 270 KB: too large for the small_device variant's 262144 bytes of
// device memory, which then computes them on the CPU).
TYPED_TEST(Lapack, LargerMatricesMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(17);
    const int64_t n = 260;
    const Dense h = random_hpd(n, kIsComplex<T>, rng);
    for (const char* uplo : {"U", "L"}) {
        expect_factored<Potrf>(Scheme::standard, Args{.flags = uplo, .n = n, .lda = n + 1},
                               potrf_operands<T>(h, n + 1, uplo[0]));
    }
    for (const Shape& shape : {Shape{260, 260}, Shape{300, 240}}) {
        const Args args{.m = shape.m, .n = shape.n, .lda = shape.m + 2};
        expect_factored<Getrf>(Scheme::standard, args,
                               random_getrf_operands<T>(shape.m, shape.n, args.lda, rng));
    }
    const Dense s = sytrf_matrix(n, kIsComplex<T>, false, rng);
    for (const char* uplo : {"U", "L"}) {
        expect_sytrf_factored(Scheme::standard, Args{.flags = uplo, .n = n, .lda = n + 1},
                              sytrf_operands<T>(s, n + 1, uplo[0]), 0);
    }
}

// The leading minor of order k is not positive definite: INFO = k, and the shim recomputes
// the call on the CPU, so everything equals OpenBLAS's bit for bit (the partial factor, the
// untouched rest, the other triangle, the padding).
TYPED_TEST(Lapack, PotrfNotPositiveDefiniteGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(13);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : kOrders) {
            for (int64_t k : {int64_t{1}, (n + 1) / 2, n}) {
                Dense h = random_hpd(n, kIsComplex<T>, rng);
                // A(k, k) below what the Schur complement needs: the minor of order k is
                // indefinite, those of order < k stay positive definite.
                h(k - 1, k - 1) = -0.5 - static_cast<double>(n);
                for (const char* uplo : {"U", "L"}) {
                    for (int64_t pad : {0, 3}) {
                        expect_exactly_openblas<Potrf>(scheme,
                                                       Args{.flags = uplo, .n = n, .lda = n + pad},
                                                       potrf_operands<T>(h, n + pad, uplo[0]),
                                                       "indefinite at " + std::to_string(k), k);
                    }
                }
            }
        }
    }
}

// Column k exactly zero: U(k, k) = 0, INFO = k; the factorization completes. Recomputed on
// the CPU: the factors, the pivots and INFO equal OpenBLAS's bit for bit.
TYPED_TEST(Lapack, GetrfSingularGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(14);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (const Shape& shape : kShapes) {
            const int64_t kmax = std::min(shape.m, shape.n);
            for (int64_t k : {int64_t{1}, (kmax + 1) / 2, kmax}) {
                Dense a = random_dense(shape.m, shape.n, kIsComplex<T>, rng);
                for (int64_t i = 0; i < shape.m; ++i) a(i, k - 1) = 0.0;
                expect_exactly_openblas<Getrf>(
                    scheme, Args{.m = shape.m, .n = shape.n, .lda = shape.m + 3},
                    getrf_operands<T>(a, shape.m + 3), "column " + std::to_string(k) + " zero", k);
            }
        }
    }
}

// Invalid arguments reach OpenBLAS: its xerbla message (Debian's prints on stdout and
// returns), its INFO < 0, the array untouched.
TYPED_TEST(Lapack, InvalidArgumentsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(15);
    const Dense h = random_hpd(4, kIsComplex<T>, rng);
    // INFO: minus the position of the first invalid argument
    const std::pair<Args, int64_t> potrf[] = {
        {{.flags = "X", .n = 4, .lda = 4}, -1},  {{.flags = "x", .n = 4, .lda = 4}, -1},
        {{.flags = "U", .n = -1, .lda = 4}, -2}, {{.flags = "L", .n = 4, .lda = 3}, -4},
        {{.flags = "U", .n = 0, .lda = 0}, -4},  {{.flags = "X", .n = -1, .lda = 0}, -1}};
    const std::pair<Args, int64_t> getrf[] = {
        {{.m = -1, .n = 4, .lda = 4}, -1}, {{.m = 4, .n = -1, .lda = 4}, -2},
        {{.m = 4, .n = 4, .lda = 3}, -4},  {{.m = 0, .n = 0, .lda = 0}, -4},
        {{.m = 4, .n = 2, .lda = 3}, -4},  {{.m = 2, .n = 4, .lda = 1}, -4}};
    const std::pair<Args, int64_t> sytrf[] = {{{.flags = "X", .n = 4, .lda = 4, .lwork = 64}, -1},
                                              {{.flags = "U", .n = -1, .lda = 4, .lwork = 64}, -2},
                                              {{.flags = "L", .n = 4, .lda = 3, .lwork = 64}, -4},
                                              {{.flags = "U", .n = 4, .lda = 4, .lwork = 0}, -7}};
    Operands<T> sytrf_input = sytrf_operands<T>(h, 4, 'U');
    sytrf_input.work = Array<T>::vector(64);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (const auto& [args, info] : potrf)
            expect_rejected_as_by_openblas<Potrf>(scheme, args, potrf_operands<T>(h, 4, 'U'), info);
        for (const auto& [args, info] : getrf) {
            expect_rejected_as_by_openblas<Getrf>(scheme, args,
                                                  random_getrf_operands<T>(4, 4, 4, rng), info);
        }
        for (const auto& [args, info] : sytrf)
            expect_rejected_as_by_openblas<Sytrf>(scheme, args, sytrf_input, info);
    }
}

TYPED_TEST(Lapack, EmptyMatricesBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(16);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (const char* uplo : {"U", "L"}) {
            for (int64_t lda : {1, 4}) {
                Operands<T> input;
                input.a = Array<T>(0, 0, lda);
                expect_nothing_factored<Potrf>(scheme, Args{.flags = uplo, .n = 0, .lda = lda},
                                               input);
            }
        }
        for (const Shape& shape : {Shape{0, 0}, Shape{0, 5}, Shape{5, 0}}) {
            const Args args{.m = shape.m, .n = shape.n, .lda = std::max<int64_t>(1, shape.m) + 1};
            expect_nothing_factored<Getrf>(
                scheme, args, random_getrf_operands<T>(shape.m, shape.n, args.lda, rng));
        }
        for (const char* uplo : {"U", "L"}) {
            expect_empty_problem_as_openblas<Sytrf>(scheme, Args{.flags = uplo, .n = 0, .lda = 1},
                                                    sytrf_operands<T>(Dense(0, 0), 1, uplo[0]));
        }
    }
}

// A leading dimension above 2^32 through the 64-bit names, on a single column (valid, and
// only lda * (n - 1) + m elements are addressed): POTRF n = 1 and GETRF 7 x 1.
TEST(LapackSchemes64, LeadingDimensionAbove2To32) {
    const int64_t huge = (int64_t{1} << 32) + 3;
    bool any = false;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        // the 32-bit OpenBLAS cannot be the reference here
        if (!is_64(scheme) || !reference_function("dpotrf", scheme).wide) continue;
        any = true;
        {
            Operands<double> input;
            input.a = Array<double>(1, 1, 1);
            input.a.at(0, 0) = 2.25;
            const Pair<double> p =
                run_both<Potrf>(scheme, Args{.flags = "L", .n = 1, .lda = huge}, input);
            EXPECT_EQ(p.shim.info, 0) << p.what;
            EXPECT_EQ(p.shim.a.at(0, 0), 1.5) << p.what;
            EXPECT_EQ(compare_exact(p), "") << p.what;
        }
        Dense a(7, 1);
        for (int64_t i = 0; i < 7; ++i) a(i, 0) = c64(static_cast<double>(i % 4) - 1.5, 0.5 * i);
        expect_factored<Getrf>(scheme, Args{.m = 7, .n = 1, .lda = huge},
                               getrf_operands<c64>(a, 7));
    }
    if (!any)
        GTEST_SKIP()
            << "no ILP64 OpenBLAS, or no CPU symbol for the 64_ names outside forced offload";
}

// Concurrent callers: each thread's factors and pivots agree with OpenBLAS's.
TEST(LapackThreads, ConcurrentCallsAgreeWithOpenBLAS) {
    constexpr int kThreads = 4, kCalls = 12;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Rng rng(2000 + t);
            const auto difference = [](auto routine, const Args& args, const auto& input) {
                using R = decltype(routine);
                return factor_difference<R>(args, input,
                                            run_both<R>(Scheme::standard, args, input));
            };
            for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
                const int64_t n = 20 + 3 * t + call % 5;
                const std::string diff =
                    (call + t) % 2 == 0
                        ? difference(Getrf{}, Args{.m = n + 2, .n = n, .lda = n + 5},
                                     random_getrf_operands<double>(n + 2, n, n + 5, rng))
                        : difference(Potrf{}, Args{.flags = "L", .n = n, .lda = n + 1},
                                     potrf_operands<c64>(random_hpd(n, true, rng), n + 1, 'L'));
                if (!diff.empty()) failures[t] = "call " + std::to_string(call) + ": " + diff;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace

int main(int argc, char** argv) {
    return run_all_tests(argc, argv, "lapack_vs_cpu_test");
}
