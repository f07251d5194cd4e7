// The shim's LAPACK solvers and inverses ({s,d,c,z}getrs, gesv, getri, potrs, posv, potri,
// trtrs, trtri) against OpenBLAS called directly, through the real exported entry points of
// libgpushim.so: standard names, 64_ names (the reference then is Debian's ILP64 OpenBLAS)
// and, when the device certainly completes every call, the scipy_ names (whose CPU symbols
// exist only inside a pip wheel; not for GETRI, whose workspace the shim checks with the CPU
// library's workspace query). CTest runs the program with forced offload, with faults
// injected, with a small device and with the shim disabled
// (tests/unit/lapack_routines_vs_cpu.cmake); the checks hold wherever a call ran.
//
// Checked, in every precision:
//  - on well-conditioned operands (lapack_test_harness.h), n in {1, 7, 33, 70}, lda and ldb
//    equal to n or larger, upper- and lower-case flags: every trans (N, T, C), uplo and
//    diag; solutions, factors and inverses agree with OpenBLAS's within 32 (n + 4) eps times
//    their scale, pivots equal, INFO = 0; what the routine only reads (GETRS's factors and
//    pivots, the triangle POTRS, POTRI, TRTRS and TRTRI do not reference, NaN there, and a
//    unit diagonal, NaN too), the padding and guard elements after every array stay bit-exact;
//  - GETRI's WORK(1): OpenBLAS's workspace query answer (or, run on the CPU, what OpenBLAS's
//    call stores); a workspace query (LWORK = -1) and a valid LWORK below the optimal one
//    give OpenBLAS's results bit for bit;
//  - INFO > 0 (GESV with an exactly zero column, POSV on a matrix that is not positive
//    definite, GETRI, TRTRS, TRTRI with an exact zero on the diagonal, POTRI with a zero on
//    the factor's diagonal): everything bit-identical to OpenBLAS's;
//  - invalid arguments: OpenBLAS's INFO < 0 and xerbla message, the arrays untouched;
//  - empty problems (n = 0, nrhs = 0; POSV factors A even then, OpenBLAS's GESV does not);
//  - n = 230 (too large for the small_device variant's device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lapack_test_harness.h"
#include "shim_test_harness.h"

#ifndef GPUSHIM_TEST_OPENBLAS_PATH
#define GPUSHIM_TEST_OPENBLAS_PATH "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
#endif
#ifndef GPUSHIM_TEST_OPENBLAS64_PATH
#define GPUSHIM_TEST_OPENBLAS64_PATH "/usr/lib/x86_64-linux-gnu/libopenblas64.so.0"
#endif

namespace {

using namespace gpushim::test_harness;          // NOLINT(google-build-using-namespace)
using namespace gpushim::test_harness::lapack;  // NOLINT(google-build-using-namespace)

// --- Routines -----------------------------------------------------------------------------
// GETRF and POTRF make the operands of the solvers; they are called on OpenBLAS only.
struct Getrf {
    template <class T>
    static std::string name() {
        return lapack_name<T>("getrf");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const I*, const I*, T*, const I*, I*, I*);
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), lda = as_int<I>(x.lda);
        IntArgument<I> ipiv(o.ipiv);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(&m, &n, o.a.data(), &lda, ipiv.data(), &info);
        o.info = info;
    }
};

struct Potrf {
    template <class T>
    static std::string name() {
        return lapack_name<T>("potrf");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const I*, T*, const I*, I*, std::size_t);
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), &n, o.a.data(), &lda, &info, 1);
        o.info = info;
    }
};

struct Getrs {
    template <class T>
    static std::string name() {
        return lapack_name<T>("getrs");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const I*, const I*, const T*, const I*, const I*, T*, const I*,
                       I*, std::size_t);
        const I n = as_int<I>(x.n), nrhs = as_int<I>(x.nrhs), lda = as_int<I>(x.lda),
                ldb = as_int<I>(x.ldb);
        IntArgument<I> ipiv(o.ipiv);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), &n, &nrhs, o.a.data(), &lda, ipiv.data(), o.b.data(),
                                 &ldb, &info, 1);
        o.info = info;
    }
};

struct Gesv {
    template <class T>
    static std::string name() {
        return lapack_name<T>("gesv");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const I*, const I*, T*, const I*, I*, T*, const I*, I*);
        const I n = as_int<I>(x.n), nrhs = as_int<I>(x.nrhs), lda = as_int<I>(x.lda),
                ldb = as_int<I>(x.ldb);
        IntArgument<I> ipiv(o.ipiv);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(&n, &nrhs, o.a.data(), &lda, ipiv.data(), o.b.data(), &ldb, &info);
        o.info = info;
    }
};

struct Getri {
    template <class T>
    static std::string name() {
        return lapack_name<T>("getri");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const I*, T*, const I*, const I*, T*, const I*, I*);
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda), lwork = as_int<I>(x.lwork);
        IntArgument<I> ipiv(o.ipiv);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(&n, o.a.data(), &lda, ipiv.data(), o.work.data(), &lwork, &info);
        o.info = info;
    }
};

struct Potrs {
    template <class T>
    static std::string name() {
        return lapack_name<T>("potrs");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const I*, const I*, const T*, const I*, T*, const I*, I*,
                       std::size_t);
        const I n = as_int<I>(x.n), nrhs = as_int<I>(x.nrhs), lda = as_int<I>(x.lda),
                ldb = as_int<I>(x.ldb);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), &n, &nrhs, o.a.data(), &lda, o.b.data(), &ldb, &info,
                                 1);
        o.info = info;
    }
};

struct Posv {
    template <class T>
    static std::string name() {
        return lapack_name<T>("posv");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F =
            void(const char*, const I*, const I*, T*, const I*, T*, const I*, I*, std::size_t);
        const I n = as_int<I>(x.n), nrhs = as_int<I>(x.nrhs), lda = as_int<I>(x.lda),
                ldb = as_int<I>(x.ldb);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), &n, &nrhs, o.a.data(), &lda, o.b.data(), &ldb, &info,
                                 1);
        o.info = info;
    }
};

struct Potri {
    template <class T>
    static std::string name() {
        return lapack_name<T>("potri");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const I*, T*, const I*, I*, std::size_t);
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), &n, o.a.data(), &lda, &info, 1);
        o.info = info;
    }
};

struct Trtrs {
    template <class T>
    static std::string name() {
        return lapack_name<T>("trtrs");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const char*, const char*, const I*, const I*, const T*,
                       const I*, T*, const I*, I*, std::size_t, std::size_t, std::size_t);
        const I n = as_int<I>(x.n), nrhs = as_int<I>(x.nrhs), lda = as_int<I>(x.lda),
                ldb = as_int<I>(x.ldb);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), x.flag(2), &n, &nrhs, o.a.data(), &lda,
                                 o.b.data(), &ldb, &info, 1, 1, 1);
        o.info = info;
    }
};

struct Trtri {
    template <class T>
    static std::string name() {
        return lapack_name<T>("trtri");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F =
            void(const char*, const char*, const I*, T*, const I*, I*, std::size_t, std::size_t);
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &n, o.a.data(), &lda, &info, 1, 1);
        o.info = info;
    }
};

// --- Operands -----------------------------------------------------------------------------
// The LU factors and pivots of `a` (GETRS's and GETRI's operands), by OpenBLAS's GETRF,
// whose INFO they keep.
template <class T>
Operands<T> lu_factors(const Dense& a, int64_t lda) {
    Operands<T> o;
    o.a = array_of<T>(a, lda);
    o.ipiv = Array<int64_t>::vector(a.rows);
    return run_reference<Getrf>(Scheme::standard, Args{.m = a.rows, .n = a.cols, .lda = lda}, o);
}

// The Hermitian positive definite `h` in the uplo triangle, the other triangle NaN (not to
// be read).
template <class T>
Array<T> hpd_triangle(const Dense& h, int64_t lda, char uplo) {
    return array_of<T>(h, lda, [&](int64_t i, int64_t j) { return in_triangle(uplo, i, j); });
}

// The Cholesky factor of `h` (POTRS's and POTRI's operand) by OpenBLAS's POTRF, in the uplo
// triangle; the other triangle NaN.
template <class T>
Operands<T> cholesky_factor(const Dense& h, int64_t lda, char uplo) {
    Operands<T> o;
    o.a = hpd_triangle<T>(h, lda, uplo);
    o = run_reference<Potrf>(Scheme::standard,
                             Args{.flags = std::string(1, uplo), .n = h.rows, .lda = lda}, o);
    EXPECT_EQ(o.info, 0) << "OpenBLAS's POTRF of an operand";
    return o;
}

bool is_unit(char diag) {
    return diag == 'U' || diag == 'u';
}

// A well-conditioned triangular matrix: a Cholesky factor of random_hpd (condition number
// below 2), scaled by its diagonal when that is the unit one. The other triangle, and a
// unit diagonal, hold NaN (not to be read).
template <class T>
Array<T> triangular(int64_t n, int64_t lda, char uplo, char diag, Rng& rng) {
    Dense r = cholesky_upper(random_hpd(n, kIsComplex<T>, rng));
    if (is_unit(diag)) {
        for (int64_t i = 0; i < n; ++i) {
            const double d = r(i, i).real();
            for (int64_t j = i; j < n; ++j) r(i, j) /= d;
        }
    }
    const bool upper = uplo == 'U' || uplo == 'u';
    return array_of<T>(upper ? r : adjoint(r), lda, [&](int64_t i, int64_t j) {
        return in_triangle(uplo, i, j, /*diagonal=*/!is_unit(diag));
    });
}

template <class T>
Array<T> right_hand_sides(int64_t n, int64_t nrhs, int64_t ldb, Rng& rng) {
    return array_of<T>(random_dense(n, nrhs, kIsComplex<T>, rng), ldb);
}

// In the uplo triangle (its diagonal with it when `diagonal`): compared; elsewhere untouched.
auto triangle_region(char uplo, bool diagonal = true) {
    return [=](int64_t i, int64_t j) {
        return in_triangle(uplo, i, j, diagonal) ? Region::compared : Region::untouched;
    };
}

// --- Checks -------------------------------------------------------------------------------
template <class T>
void expect_success(const Pair<T>& p, const std::string& what) {
    EXPECT_EQ(p.ref.info, 0) << what << ": OpenBLAS";
    EXPECT_EQ(p.shim.info, 0) << what;
}

// X (B on exit) within tolerance of OpenBLAS's; the operands are well conditioned.
template <class T>
std::string compare_solution(const Operands<T>& input, const Pair<T>& p, int64_t n) {
    return compare_array("B", input.b, p.shim.b, p.ref.b, everywhere,
                         tolerance<T>(n, max_abs(p.ref.b)));
}

// The call runs on the CPU (INFO > 0, a small workspace): everything bit-identical, and
// OpenBLAS's INFO the one the operands were made for.
template <class R, class T>
void expect_exactly_openblas(Scheme scheme, const Args& args, const Operands<T>& input,
                             int64_t info, const std::string& why) {
    const Pair<T> p = run_both<R>(scheme, args, input);
    const std::string what = describe<R, T>(scheme, args) + " " + why;
    EXPECT_EQ(p.ref.info, info) << what << ": OpenBLAS";
    EXPECT_EQ(compare_exact(p), "") << what;
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class LapackSolve : public testing::Test {};
TYPED_TEST_SUITE(LapackSolve, Precisions, PrecisionNames);

constexpr int64_t kOrders[] = {1, 7, 33, 70};

TYPED_TEST(LapackSolve, GetrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(21);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (const char* trans : {"N", "T", "C", "n", "t", "c"}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(trans[0]))) continue;
                    const int64_t nrhs = pad == 0 ? 1 : 9;
                    const Args args{
                        .flags = trans, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 2 * pad};
                    Operands<T> input =
                        lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
                    input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                    const Pair<T> p = run_both<Getrs>(scheme, args, input);
                    const std::string what = describe<Getrs, T>(scheme, args);
                    expect_success(p, what);
                    EXPECT_EQ(compare_solution(input, p, n), "") << what;
                    EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << what;
                    EXPECT_EQ(compare_untouched("IPIV", input.ipiv, p.shim.ipiv), "") << what;
                }
            }
        }
    }
}

TYPED_TEST(LapackSolve, GesvMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(22);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                const int64_t nrhs = pad == 0 ? 1 : 4;
                const Args args{.n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 1};
                Operands<T> input;
                input.a = array_of<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
                input.ipiv = Array<int64_t>::vector(n);
                input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                const Pair<T> p = run_both<Gesv>(scheme, args, input);
                const std::string what = describe<Gesv, T>(scheme, args);
                expect_success(p, what);
                EXPECT_EQ(
                    compare_array("A", input.a, p.shim.a, p.ref.a, everywhere,
                                  tolerance<T>(n, std::max(max_abs(input.a), max_abs(p.ref.a)))),
                    "")
                    << what;
                EXPECT_EQ(
                    compare_array("IPIV", input.ipiv, p.shim.ipiv, p.ref.ipiv, everywhere, 0.0), "")
                    << what;
                EXPECT_EQ(compare_solution(input, p, n), "") << what;
            }
        }
    }
}

TYPED_TEST(LapackSolve, GetriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(23);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                Args args{.n = n, .lda = n + pad};
                Operands<T> input =
                    lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
                const Operands<T> query = workspace_query<Getri>(scheme, args, input);
                // more than the optimal workspace is as good as the optimal one
                give_workspaces(query, /*extra=*/pad * 5, args, input);
                const Pair<T> p = run_both<Getri>(scheme, args, input);
                const std::string what = describe<Getri, T>(scheme, args);
                expect_success(p, what);
                EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere,
                                        tolerance<T>(n, max_abs(p.ref.a))),
                          "")
                    << what;
                EXPECT_EQ(compare_untouched("IPIV", input.ipiv, p.shim.ipiv), "") << what;
                EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
            }
        }
    }
}

TYPED_TEST(LapackSolve, PotrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(24);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (char uplo : {'U', 'L', 'u', 'l'}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(uplo))) continue;
                    const int64_t nrhs = pad == 0 ? 1 : 6;
                    const Args args{.flags = std::string(1, uplo),
                                    .n = n,
                                    .nrhs = nrhs,
                                    .lda = n + pad,
                                    .ldb = n + 2 * pad};
                    Operands<T> input =
                        cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), args.lda, uplo);
                    input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                    const Pair<T> p = run_both<Potrs>(scheme, args, input);
                    const std::string what = describe<Potrs, T>(scheme, args);
                    expect_success(p, what);
                    EXPECT_EQ(compare_solution(input, p, n), "") << what;
                    EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << what;
                }
            }
        }
    }
}

TYPED_TEST(LapackSolve, PosvMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(25);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (char uplo : {'U', 'L', 'u', 'l'}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(uplo))) continue;
                    const int64_t nrhs = pad == 0 ? 2 : 5;
                    const Args args{.flags = std::string(1, uplo),
                                    .n = n,
                                    .nrhs = nrhs,
                                    .lda = n + pad,
                                    .ldb = n + pad + 1};
                    Operands<T> input;
                    input.a = hpd_triangle<T>(random_hpd(n, kIsComplex<T>, rng), args.lda, uplo);
                    input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                    const Pair<T> p = run_both<Posv>(scheme, args, input);
                    const std::string what = describe<Posv, T>(scheme, args);
                    expect_success(p, what);
                    // |R(i, j)| <= sqrt(A(j, j)): the factor's scale is sqrt(max |A|).
                    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(uplo),
                                            tolerance<T>(n, std::sqrt(max_abs(input.a)))),
                              "")
                        << what;
                    EXPECT_EQ(compare_solution(input, p, n), "") << what;
                }
            }
        }
    }
}

TYPED_TEST(LapackSolve, PotriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(26);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (char uplo : {'U', 'L', 'u', 'l'}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(uplo))) continue;
                    const Args args{.flags = std::string(1, uplo), .n = n, .lda = n + pad};
                    const Operands<T> input =
                        cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), args.lda, uplo);
                    const Pair<T> p = run_both<Potri>(scheme, args, input);
                    const std::string what = describe<Potri, T>(scheme, args);
                    expect_success(p, what);
                    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(uplo),
                                            tolerance<T>(n, max_abs(p.ref.a))),
                              "")
                        << what;
                }
            }
        }
    }
}

// Every uplo x trans x diag; a lower-case trans on the padded half.
TYPED_TEST(LapackSolve, TrtrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(27);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            int combination = 0;
            for (char uplo : {'U', 'L'}) {
                for (char trans : {'N', 'T', 'C'}) {
                    for (char diag : {'N', 'U'}) {
                        const int64_t pad = combination++ % 2 == 0 ? 0 : 3;
                        std::string flags{uplo, trans, diag};
                        // OpenBLAS 0.3.21's TRTRS rejects a lower-case uplo or diag (INFO -1
                        // or -3, where LAPACK accepts them): only trans is ever lower-case.
                        if (pad != 0)
                            flags[1] =
                                static_cast<char>(std::tolower(static_cast<unsigned char>(trans)));
                        const int64_t nrhs = 1 + combination % 4;
                        const Args args{
                            .flags = flags, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + pad};
                        Operands<T> input;
                        input.a = triangular<T>(n, args.lda, uplo, diag, rng);
                        input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                        const Pair<T> p = run_both<Trtrs>(scheme, args, input);
                        const std::string what = describe<Trtrs, T>(scheme, args);
                        expect_success(p, what);
                        EXPECT_EQ(compare_solution(input, p, n), "") << what;
                        EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << what;
                    }
                }
            }
        }
    }
}

// A unit diagonal is neither read (it holds NaN) nor written.
TYPED_TEST(LapackSolve, TrtriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(28);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (const char* flags : {"UN", "LN", "UU", "LU", "un", "lu"}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(flags[0]))) continue;
                    const Args args{.flags = flags, .n = n, .lda = n + pad};
                    Operands<T> input;
                    input.a = triangular<T>(n, args.lda, flags[0], flags[1], rng);
                    const Pair<T> p = run_both<Trtri>(scheme, args, input);
                    const std::string what = describe<Trtri, T>(scheme, args);
                    expect_success(p, what);
                    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a,
                                            triangle_region(flags[0], !is_unit(flags[1])),
                                            tolerance<T>(n, max_abs(p.ref.a))),
                              "")
                        << what;
                }
            }
        }
    }
}

// A workspace query runs on the CPU: OpenBLAS's answer, nothing else written.
TYPED_TEST(LapackSolve, GetriWorkspaceQueryGivesOpenBLASsAnswer) {
    using T = TypeParam;
    Rng rng(29);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : {1, 7, 33}) {
            const Args args{.n = n, .lda = n + 1, .lwork = -1};
            Operands<T> input = lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
            input.work = Array<T>::vector(1);
            expect_exactly_openblas<Getri>(scheme, args, input, 0, "(workspace query)");
        }
    }
}

// A valid LWORK below the optimal one: the call runs on the CPU, exactly as OpenBLAS's.
TYPED_TEST(LapackSolve, GetriSmallWorkspaceGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(30);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : kOrders) {
            Args args{.n = n, .lda = n};
            Operands<T> input = lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
            const int64_t optimal =
                workspace_size(workspace_query<Getri>(scheme, args, input).work);
            for (int64_t lwork : {n, optimal - 1}) {  // LAPACK's minimum is n
                if (lwork < n || lwork >= optimal) continue;
                args.lwork = lwork;
                input.work = Array<T>::vector(lwork);
                expect_exactly_openblas<Getri>(scheme, args, input, 0, "(small workspace)");
            }
        }
    }
}

// INFO > 0: the shim leaves such calls to the CPU library, on the untouched operands, so
// that everything equals OpenBLAS's bit for bit. For each order n, k = 1, the middle, n.
TYPED_TEST(LapackSolve, SingularGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(31);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : kOrders) {
            for (int64_t k : {int64_t{1}, (n + 1) / 2, n}) {
                const std::string why = "(singular at " + std::to_string(k) + ")";
                const int64_t lda = n + 2;
                // Column k exactly zero: GETRF completes with U(k, k) = 0 exactly.
                Dense a = well_conditioned(n, n, kIsComplex<T>, rng);
                for (int64_t i = 0; i < n; ++i) a(i, k - 1) = 0.0;
                {
                    const Args args{.n = n, .nrhs = 2, .lda = lda, .ldb = lda};
                    Operands<T> input;
                    input.a = array_of<T>(a, lda);
                    input.ipiv = Array<int64_t>::vector(n);
                    input.b = right_hand_sides<T>(n, 2, lda, rng);
                    expect_exactly_openblas<Gesv>(scheme, args, input, k, why);
                }
                {
                    Args args{.n = n, .lda = lda};
                    Operands<T> input = lu_factors<T>(a, lda);
                    EXPECT_EQ(input.info, k) << "OpenBLAS's GETRF of GETRI's operand";
                    give_workspaces(workspace_query<Getri>(scheme, args, input), 0, args, input);
                    expect_exactly_openblas<Getri>(scheme, args, input, k, why);
                }
                for (char uplo : {'U', 'L'}) {
                    const std::string flag(1, uplo);
                    // A(k, k) below what the Schur complement needs: the leading minor of
                    // order k is indefinite, those of lower order positive definite.
                    Dense h = random_hpd(n, kIsComplex<T>, rng);
                    h(k - 1, k - 1) = -0.5 - static_cast<double>(n);
                    {
                        const Args args{.flags = flag, .n = n, .nrhs = 3, .lda = lda, .ldb = n};
                        Operands<T> input;
                        input.a = hpd_triangle<T>(h, lda, uplo);
                        input.b = right_hand_sides<T>(n, 3, n, rng);
                        expect_exactly_openblas<Posv>(scheme, args, input, k, why);
                    }
                    {
                        Operands<T> input =
                            cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), lda, uplo);
                        input.a.at(k - 1, k - 1) = T{};
                        expect_exactly_openblas<Potri>(
                            scheme, Args{.flags = flag, .n = n, .lda = lda}, input, k, why);
                    }
                    Operands<T> input;
                    input.a = triangular<T>(n, lda, uplo, 'N', rng);
                    input.a.at(k - 1, k - 1) = T{};
                    expect_exactly_openblas<Trtri>(
                        scheme, Args{.flags = flag + "N", .n = n, .lda = lda}, input, k, why);
                    input.b = right_hand_sides<T>(n, 2, n, rng);
                    for (const char* rest : {"NN", "CN"}) {
                        const Args args{
                            .flags = flag + rest, .n = n, .nrhs = 2, .lda = lda, .ldb = n};
                        expect_exactly_openblas<Trtrs>(scheme, args, input, k, why);
                    }
                }
            }
        }
    }
}

// Each routine's arguments in the order LAPACK checks them; each case's expected INFO is
// minus the position of its first invalid argument.
TYPED_TEST(LapackSolve, InvalidArgumentsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(32);
    const int64_t n = 4;
    Operands<T> lu = lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), n);
    lu.b = right_hand_sides<T>(n, 2, n, rng);
    lu.work = Array<T>::vector(64 * n);
    Operands<T> chol = cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), n, 'U');
    chol.b = lu.b;
    Operands<T> tri;
    tri.a = triangular<T>(n, n, 'L', 'N', rng);
    tri.b = lu.b;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        const auto getrs = [&](const char* trans, int64_t nn, int64_t nrhs, int64_t lda,
                               int64_t ldb, int64_t info) {
            expect_rejected_as_by_openblas<Getrs>(
                scheme, Args{.flags = trans, .n = nn, .nrhs = nrhs, .lda = lda, .ldb = ldb}, lu,
                info, /*info_may_stay_unset=*/true);
        };
        getrs("X", n, 2, n, n, -1);
        getrs("N", -1, 2, n, n, -2);
        getrs("T", n, -1, n, n, -3);
        getrs("C", n, 2, n - 1, n, -5);
        getrs("N", n, 2, n, n - 1, -8);
        const auto gesv = [&](int64_t nn, int64_t nrhs, int64_t lda, int64_t ldb, int64_t info) {
            expect_rejected_as_by_openblas<Gesv>(
                scheme, Args{.n = nn, .nrhs = nrhs, .lda = lda, .ldb = ldb}, lu, info);
        };
        gesv(-1, 2, n, n, -1);
        gesv(n, -1, n, n, -2);
        gesv(n, 2, n - 1, n, -4);
        gesv(n, 2, n, n - 1, -7);
        const auto getri = [&](int64_t nn, int64_t lda, int64_t lwork, int64_t info) {
            expect_rejected_as_by_openblas<Getri>(scheme, Args{.n = nn, .lda = lda, .lwork = lwork},
                                                  lu, info);
        };
        getri(-1, n, 64 * n, -1);
        getri(n, n - 1, 64 * n, -3);
        getri(n, n, n - 1, -6);  // below LAPACK's minimum n (and not a query)
        for (bool solve : {true, false}) {
            const auto posv = [&](const char* uplo, int64_t nn, int64_t nrhs, int64_t lda,
                                  int64_t ldb, int64_t info) {
                const Args args{.flags = uplo, .n = nn, .nrhs = nrhs, .lda = lda, .ldb = ldb};
                if (solve)
                    expect_rejected_as_by_openblas<Potrs>(scheme, args, chol, info);
                else
                    expect_rejected_as_by_openblas<Posv>(scheme, args, chol, info);
            };
            posv("X", n, 2, n, n, -1);
            posv("U", -1, 2, n, n, -2);
            posv("L", n, -1, n, n, -3);
            posv("U", n, 2, n - 1, n, -5);
            posv("L", n, 2, n, n - 1, -7);
        }
        const auto potri = [&](const char* uplo, int64_t nn, int64_t lda, int64_t info) {
            expect_rejected_as_by_openblas<Potri>(scheme, Args{.flags = uplo, .n = nn, .lda = lda},
                                                  chol, info);
        };
        potri("X", n, n, -1);
        potri("U", -1, n, -2);
        potri("L", n, n - 1, -4);
        const auto trtrs = [&](const char* flags, int64_t nn, int64_t nrhs, int64_t lda,
                               int64_t ldb, int64_t info) {
            expect_rejected_as_by_openblas<Trtrs>(
                scheme, Args{.flags = flags, .n = nn, .nrhs = nrhs, .lda = lda, .ldb = ldb}, tri,
                info);
        };
        trtrs("XNN", n, 2, n, n, -1);
        trtrs("LXN", n, 2, n, n, -2);
        trtrs("LNX", n, 2, n, n, -3);
        trtrs("LNN", -1, 2, n, n, -4);
        trtrs("LTN", n, -1, n, n, -5);
        trtrs("LCU", n, 2, n - 1, n, -7);
        trtrs("LNN", n, 2, n, n - 1, -9);
        // OpenBLAS's own TRTRS rejects a lower-case uplo or diag, which LAPACK accepts: the
        // shim leaves such calls to the CPU library and so answers as it does.
        trtrs("lNN", n, 2, n, n, -1);
        trtrs("LNu", n, 2, n, n, -3);
        const auto trtri = [&](const char* flags, int64_t nn, int64_t lda, int64_t info) {
            expect_rejected_as_by_openblas<Trtri>(scheme, Args{.flags = flags, .n = nn, .lda = lda},
                                                  tri, info);
        };
        trtri("XN", n, n, -1);
        trtri("LX", n, n, -2);
        trtri("LN", -1, n, -3);
        trtri("LU", n, n - 1, -5);
    }
}

// Nothing to solve (n = 0, or nrhs = 0): INFO = 0, nothing written; but POSV (LAPACK's)
// still factors A when nrhs = 0, where OpenBLAS's own GESV returns at once.
TYPED_TEST(LapackSolve, EmptyProblemsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(33);
    const int64_t n = 7;
    const Operands<T> none = [] {
        Operands<T> o;
        o.a = Array<T>(0, 0, 1);
        o.b = Array<T>(0, 0, 1);
        o.ipiv = Array<int64_t>::vector(0);
        o.work = Array<T>::vector(1);
        return o;
    }();
    Operands<T> lu = lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), n);
    lu.b = Array<T>(n, 0, n);
    Operands<T> tri;
    tri.a = triangular<T>(n, n, 'U', 'N', rng);
    tri.b = lu.b;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        const auto empty = [&](auto routine, const Args& args, const Operands<T>& input) {
            using R = decltype(routine);
            expect_exactly_openblas<R>(scheme, args, input, 0, "(empty)");
        };
        empty(Getrs{}, Args{.flags = "N", .n = 0, .nrhs = 2, .lda = 1, .ldb = 1}, none);
        empty(Getrs{}, Args{.flags = "T", .n = n, .nrhs = 0, .lda = n, .ldb = n}, lu);
        empty(Gesv{}, Args{.n = 0, .nrhs = 2, .lda = 1, .ldb = 1}, none);
        empty(Getri{}, Args{.n = 0, .lda = 1, .lwork = 1}, none);
        empty(Potrs{}, Args{.flags = "U", .n = 0, .nrhs = 1, .lda = 1, .ldb = 1}, none);
        empty(Potrs{}, Args{.flags = "L", .n = n, .nrhs = 0, .lda = n, .ldb = n},
              cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), n, 'L'));
        empty(Posv{}, Args{.flags = "L", .n = 0, .nrhs = 1, .lda = 1, .ldb = 1}, none);
        empty(Potri{}, Args{.flags = "U", .n = 0, .lda = 1}, none);
        empty(Trtrs{}, Args{.flags = "UNN", .n = 0, .nrhs = 3, .lda = 1, .ldb = 1}, none);
        empty(Trtrs{}, Args{.flags = "UTN", .n = n, .nrhs = 0, .lda = n, .ldb = n}, tri);
        empty(Trtri{}, Args{.flags = "LN", .n = 0, .lda = 1}, none);
        {
            Operands<T> input;
            input.a = array_of<T>(well_conditioned(n, n, kIsComplex<T>, rng), n + 1);
            input.ipiv = Array<int64_t>::vector(n);
            input.b = Array<T>(n, 0, n);
            empty(Gesv{}, Args{.n = n, .nrhs = 0, .lda = n + 1, .ldb = n}, input);
        }
        {
            const Args args{.flags = "U", .n = n, .nrhs = 0, .lda = n, .ldb = n};
            Operands<T> input;
            input.a = hpd_triangle<T>(random_hpd(n, kIsComplex<T>, rng), n, 'U');
            input.b = Array<T>(n, 0, n);
            const Pair<T> p = run_both<Posv>(scheme, args, input);
            const std::string what = describe<Posv, T>(scheme, args);
            expect_success(p, what);
            EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region('U'),
                                    tolerance<T>(n, std::sqrt(max_abs(input.a)))),
                      "")
                << what;
            EXPECT_EQ(compare_untouched("B", input.b, p.shim.b), "") << what;
        }
    }
}

// n = 230: at least 211 KB a matrix, too large for the small_device variant's 200000 bytes of
// device memory, which leaves these calls to the CPU.
TYPED_TEST(LapackSolve, LargerMatricesMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(34);
    const int64_t n = 230, nrhs = 3, lda = n + 1;
    const Scheme scheme = Scheme::standard;
    const Dense general = well_conditioned(n, n, kIsComplex<T>, rng);
    const Dense hpd = random_hpd(n, kIsComplex<T>, rng);
    Operands<T> lu = lu_factors<T>(general, lda);
    lu.b = right_hand_sides<T>(n, nrhs, n, rng);
    {
        const Args args{.flags = "C", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n};
        const Pair<T> p = run_both<Getrs>(scheme, args, lu);
        expect_success(p, describe<Getrs, T>(scheme, args));
        EXPECT_EQ(compare_solution(lu, p, n), "") << describe<Getrs, T>(scheme, args);
    }
    {
        const Args args{.n = n, .nrhs = nrhs, .lda = lda, .ldb = n};
        Operands<T> input;
        input.a = array_of<T>(general, lda);
        input.ipiv = Array<int64_t>::vector(n);
        input.b = lu.b;
        const Pair<T> p = run_both<Gesv>(scheme, args, input);
        const std::string what = describe<Gesv, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(p.shim.ipiv.v, p.ref.ipiv.v) << what;
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere,
                                tolerance<T>(n, std::max(max_abs(input.a), max_abs(p.ref.a)))),
                  "")
            << what;
        EXPECT_EQ(compare_solution(input, p, n), "") << what;
    }
    {
        Args args{.n = n, .lda = lda};
        Operands<T> input = lu;
        const Operands<T> query = workspace_query<Getri>(scheme, args, input);
        give_workspaces(query, 0, args, input);
        const Pair<T> p = run_both<Getri>(scheme, args, input);
        const std::string what = describe<Getri, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere,
                                tolerance<T>(n, max_abs(p.ref.a))),
                  "")
            << what;
        EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    }
    Operands<T> chol = cholesky_factor<T>(hpd, lda, 'L');
    chol.b = lu.b;
    {
        const Args args{.flags = "L", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n};
        const Pair<T> p = run_both<Potrs>(scheme, args, chol);
        expect_success(p, describe<Potrs, T>(scheme, args));
        EXPECT_EQ(compare_solution(chol, p, n), "") << describe<Potrs, T>(scheme, args);
    }
    {
        const Args args{.flags = "U", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n};
        Operands<T> input;
        input.a = hpd_triangle<T>(hpd, lda, 'U');
        input.b = lu.b;
        const Pair<T> p = run_both<Posv>(scheme, args, input);
        const std::string what = describe<Posv, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region('U'),
                                tolerance<T>(n, std::sqrt(max_abs(input.a)))),
                  "")
            << what;
        EXPECT_EQ(compare_solution(input, p, n), "") << what;
    }
    {
        const Args args{.flags = "L", .n = n, .lda = lda};
        const Pair<T> p = run_both<Potri>(scheme, args, chol);
        const std::string what = describe<Potri, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", chol.a, p.shim.a, p.ref.a, triangle_region('L'),
                                tolerance<T>(n, max_abs(p.ref.a))),
                  "")
            << what;
    }
    Operands<T> tri;
    tri.a = triangular<T>(n, lda, 'U', 'N', rng);
    tri.b = lu.b;
    {
        const Args args{.flags = "UTN", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n};
        const Pair<T> p = run_both<Trtrs>(scheme, args, tri);
        expect_success(p, describe<Trtrs, T>(scheme, args));
        EXPECT_EQ(compare_solution(tri, p, n), "") << describe<Trtrs, T>(scheme, args);
    }
    {
        const Args args{.flags = "UN", .n = n, .lda = lda};
        const Pair<T> p = run_both<Trtri>(scheme, args, tri);
        const std::string what = describe<Trtri, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", tri.a, p.shim.a, p.ref.a, triangle_region('U'),
                                tolerance<T>(n, max_abs(p.ref.a))),
                  "")
            << what;
    }
}

}  // namespace

// The shim reads its configuration once, at its first call: start_harness() sets it before
// any test runs.
int main(int argc, char** argv) {
    if (const int status = start_harness(argc, argv, "lapack_solve_vs_cpu_test",
                                         GPUSHIM_TEST_OPENBLAS_PATH, GPUSHIM_TEST_OPENBLAS64_PATH);
        status != 0)
        return status;
    std::printf("lapack_solve_vs_cpu_test: CPU symbols for the 64_ names: %s\n",
                cpu_has_64bit_lapack() ? "found" : "none");
    return RUN_ALL_TESTS();
}
