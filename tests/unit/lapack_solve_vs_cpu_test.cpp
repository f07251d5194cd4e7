// The shim's LAPACK solvers and inverses ({s,d,c,z}getrs, gesv, getri, potrs, posv, potri,
// sytrs, sysv, sytri, trtrs, trtri) against OpenBLAS called directly, through the real exported
// entry points of libgpushim.so: standard names, 64_ names (the reference then is Debian's ILP64
// OpenBLAS) and, when the device certainly completes every call, the scipy_ names (whose CPU
// symbols exist only inside a pip wheel; not for GETRI, whose workspace the shim checks with the
// CPU library's workspace query). CTest runs the program with forced offload, with faults injected,
// with a small device and with the shim disabled (tests/unit/lapack_routines_vs_cpu.cmake); the
// checks hold wherever a call ran.
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
//  - SYTRS and SYTRI on OpenBLAS's SYTRF factors of well-conditioned symmetric (complex
//    symmetric) indefinite matrices, with 1 x 1 and with 2 x 2 blocks in D: X, and the
//    inverse's uplo triangle, agree with OpenBLAS's, the rest and the pivots untouched (SYTRI's
//    WORK is scratch); SYSV on such matrices: the factor, the pivots OpenBLAS's, X, WORK(1);
//    its workspace query and a workspace below the optimal one bit for bit OpenBLAS's;
//  - INFO > 0 (GESV with an exactly zero column, POSV on a matrix that is not positive
//    definite, GETRI, TRTRS, TRTRI with an exact zero on the diagonal, POTRI with a zero on
//    the factor's diagonal, SYTRI with an exactly zero 1 x 1 block of D, SYSV with a zero row
//    and column): everything
//    bit-identical to OpenBLAS's;
//  - invalid arguments: OpenBLAS's INFO < 0 and xerbla message, the arrays untouched;
//  - empty problems (n = 0, nrhs = 0; POSV factors A even then, OpenBLAS's GESV does not);
//  - n = 230 (too large for the small_device variant's device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "lapack_test_harness.h"
#include "shim_test_harness.h"

namespace {

using namespace gpushim::test_harness;          // NOLINT(google-build-using-namespace)
using namespace gpushim::test_harness::lapack;  // NOLINT(google-build-using-namespace)

// --- Routines -----------------------------------------------------------------------------
// GETRS's arguments (its flag TRANS), which SYTRS takes too (its flag UPLO).
template <Literal Name>
struct PivotedSolve : Named<Name> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, x.flag(0), &i.n, &i.nrhs, o.a.data(), &i.lda, ipiv.data(), o.b.data(),
                     &i.ldb, &i.info, kFlag);
    }
};
using Getrs = PivotedSolve<"getrs">;
using Sytrs = PivotedSolve<"sytrs">;

struct Gesv : Named<"gesv"> {
    template <class T, class I>
    static void call(void* fn, const Args&, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, &i.n, &i.nrhs, o.a.data(), &i.lda, ipiv.data(), o.b.data(), &i.ldb,
                     &i.info);
    }
};

struct Getri : Named<"getri"> {
    template <class T, class I>
    static void call(void* fn, const Args&, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, &i.n, o.a.data(), &i.lda, ipiv.data(), o.work.data(), &i.lwork, &i.info);
    }
};

// POTRS's arguments, which POSV takes too.
template <Literal Name>
struct UploSolve : Named<Name> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), &i.n, &i.nrhs, o.a.data(), &i.lda, o.b.data(), &i.ldb, &i.info,
                     kFlag);
    }
};
using Potrs = UploSolve<"potrs">;
using Posv = UploSolve<"posv">;
using Potri = UploMatrix<"potri">;

struct Trtrs : Named<"trtrs"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), x.flag(1), x.flag(2), &i.n, &i.nrhs, o.a.data(), &i.lda,
                     o.b.data(), &i.ldb, &i.info, kFlag, kFlag, kFlag);
    }
};

struct Trtri : Named<"trtri"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, &i.info, kFlag, kFlag);
    }
};

struct Sysv : Named<"sysv"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, x.flag(0), &i.n, &i.nrhs, o.a.data(), &i.lda, ipiv.data(), o.b.data(),
                     &i.ldb, o.work.data(), &i.lwork, &i.info, kFlag);
    }
};

struct Sytri : Named<"sytri"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, x.flag(0), &i.n, o.a.data(), &i.lda, ipiv.data(), o.work.data(), &i.info,
                     kFlag);
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

// The Cholesky factor of `h` (POTRS's and POTRI's operand) by OpenBLAS's POTRF, in the uplo
// triangle; the other triangle NaN.
template <class T>
Operands<T> cholesky_factor(const Dense& h, int64_t lda, char uplo) {
    Operands<T> o;
    o.a = triangle_of<T>(h, uplo, lda);
    o = run_reference<Potrf>(Scheme::standard,
                             Args{.flags = std::string(1, uplo), .n = h.rows, .lda = lda}, o);
    EXPECT_EQ(o.info, 0) << "OpenBLAS's POTRF of an operand";
    return o;
}

// A symmetric (complex symmetric) indefinite matrix of eigenvalues away from zero: with
// `paired`, 2 x 2 blocks [0.1 1; 1 0.1] on the diagonal (Bunch-Kaufman takes them as 2 x 2
// pivots), else a diagonal of alternating sign and magnitude in [1, 2]; entries of at most
// 0.25 / n elsewhere.
inline Dense symmetric_indefinite(int64_t n, bool complex, bool paired, Rng& rng) {
    const Dense r = random_dense(n, n, complex, rng);
    Dense a(n, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i <= j; ++i) {
            c64 x = r(i, j) * (0.25 / static_cast<double>(n));
            if (i == j)
                x = paired ? c64(0.1) : c64((j % 2 == 0 ? 1.0 : -1.0) * (1.0 + std::abs(r(i, j))));
            if (paired && i % 2 == 0 && j == i + 1) x = 1.0;
            a(i, j) = a(j, i) = x;
        }
    }
    return a;
}

// SYTRI's operands: OpenBLAS's SYTRF factor of `a` in the uplo triangle (the other NaN), its
// pivots, and WORK of N elements; its INFO kept.
template <class T>
Operands<T> sytrf_factors(const Dense& a, int64_t lda, char uplo) {
    const int64_t n = a.rows;
    Operands<T> o;
    o.a = triangle_of<T>(a, uplo, lda);
    o.ipiv = Array<int64_t>::vector(n);
    Args args{.flags = std::string(1, uplo), .n = n, .lda = lda};
    Operands<T> query;
    o = with_bunch_kaufman_workspace<Sytrf>(Scheme::standard, args, std::move(o), 0, query);
    o = run_reference<Sytrf>(Scheme::standard, args, std::move(o));
    o.work = Array<T>::vector(n);
    return o;
}

// GESV's and POSV's operands: A (POSV: the uplo triangle of the Hermitian `a`, the other
// NaN), the pivots (GESV), B.
template <class T>
Operands<T> gesv_operands(const Dense& a, int64_t lda, Array<T> b) {
    Operands<T> o;
    o.a = array_of<T>(a, lda);
    o.ipiv = Array<int64_t>::vector(a.rows);
    o.b = std::move(b);
    return o;
}
template <class T>
Operands<T> posv_operands(const Dense& a, int64_t lda, char uplo, Array<T> b) {
    Operands<T> o;
    o.a = triangle_of<T>(a, uplo, lda);
    o.b = std::move(b);
    return o;
}

// A well-conditioned triangular matrix: a Cholesky factor of random_hpd (condition number
// below 2), scaled by its diagonal when that is the unit one. The other triangle, and a
// unit diagonal, hold NaN (not to be read).
template <class T>
Array<T> triangular(int64_t n, int64_t lda, char uplo, char diag, Rng& rng) {
    Dense r = cholesky_upper(random_hpd(n, kIsComplex<T>, rng));
    const bool unit = same_flag(diag, 'U');
    if (unit) {
        for (int64_t i = 0; i < n; ++i) {
            const double d = r(i, i).real();
            for (int64_t j = i; j < n; ++j) r(i, j) /= d;
        }
    }
    return array_of<T>(same_flag(uplo, 'U') ? r : adjoint(r), lda, [&](int64_t i, int64_t j) {
        return in_triangle(uplo, i, j, /*diagonal=*/!unit);
    });
}

template <class T>
Array<T> right_hand_sides(int64_t n, int64_t nrhs, int64_t ldb, Rng& rng) {
    return array_of<T>(random_dense(n, nrhs, kIsComplex<T>, rng), ldb);
}

// --- Checks of successful calls -----------------------------------------------------------
// X (B on exit) within tolerance of OpenBLAS's; the operands are well conditioned.
template <class T>
std::string compare_solution(const Operands<T>& input, const Pair<T>& p, int64_t n) {
    return compare_array("B", input.b, p.shim.b, p.ref.b, everywhere,
                         tolerance<T>(n, max_abs(p.ref.b)));
}

// GETRS, POTRS, TRTRS: X; what they only read (A, GETRS's pivots) untouched.
template <class R, class T>
void expect_solved(Scheme scheme, const Args& args, const Operands<T>& input) {
    const Pair<T> p = run_both<R>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_solution(input, p, args.n), "") << p.what;
    EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << p.what;
    EXPECT_EQ(compare_untouched("IPIV", input.ipiv, p.shim.ipiv), "") << p.what;
}

// GESV: the LU factors, the pivots OpenBLAS's, X.
template <class T>
void expect_gesv_solved(Scheme scheme, const Args& args, const Operands<T>& input) {
    const Pair<T> p = run_both<Gesv>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_to_scale("A", input.a, p.shim.a, p.ref.a, args.n), "") << p.what;
    EXPECT_EQ(compare_array("IPIV", input.ipiv, p.shim.ipiv, p.ref.ipiv, everywhere, 0.0), "")
        << p.what;
    EXPECT_EQ(compare_solution(input, p, args.n), "") << p.what;
}

// POSV: the factor in the uplo triangle (|R(i, j)| <= sqrt(A(j, j)): its scale is
// sqrt(max |A|)), the other untouched; X.
template <class T>
void expect_posv_solved(Scheme scheme, const Args& args, const Operands<T>& input) {
    const Pair<T> p = run_both<Posv>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(args.flags[0]),
                            tolerance<T>(args.n, std::sqrt(max_abs(input.a)))),
              "")
        << p.what;
    EXPECT_EQ(compare_solution(input, p, args.n), "") << p.what;
}

// SYSV's operands: the uplo triangle of `a` (the other NaN), room for the pivots, B, and the
// workspace of OpenBLAS's query, `extra` elements more, in `args` too.
template <class T>
Operands<T> sysv_operands(Scheme scheme, Args& args, const Dense& a, Array<T> b, int64_t extra,
                          Operands<T>& query) {
    Operands<T> o;
    o.a = triangle_of<T>(a, args.flags[0], args.lda);
    o.ipiv = Array<int64_t>::vector(a.rows);
    o.b = std::move(b);
    return with_bunch_kaufman_workspace<Sysv>(scheme, args, std::move(o), extra, query);
}

// SYSV: the factor within 32 (n + 4) eps of OpenBLAS's at the larger scale of the input and
// OpenBLAS's factor in the uplo triangle, the rest untouched, the pivots OpenBLAS's, X, WORK(1).
template <class T>
void expect_sysv_solved(Scheme scheme, Args args, const Dense& a, Array<T> b, int64_t extra) {
    Operands<T> query;
    const Operands<T> input = sysv_operands(scheme, args, a, std::move(b), extra, query);
    const Pair<T> p = run_both<Sysv>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_region(args.flags[0]),
                            tolerance<T>(args.n, std::max(max_abs(input.a), max_abs(p.ref.a)))),
              "")
        << p.what;
    EXPECT_EQ(compare_array("IPIV", input.ipiv, p.shim.ipiv, p.ref.ipiv, everywhere, 0.0), "")
        << p.what;
    EXPECT_EQ(compare_solution(input, p, args.n), "") << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
}

// POTRI, TRTRI: the inverse where `region` says; GETRI (with the workspace of OpenBLAS's
// query, `extra` elements longer): everywhere, its pivots untouched, and its workspace answer.
template <class R, class T, class RegionOf>
void expect_inverted(Scheme scheme, Args args, Operands<T> input, RegionOf&& region,
                     int64_t extra = 0) {
    Operands<T> query;
    if constexpr (std::is_same_v<R, Getri>)
        input = with_queried_workspaces<Getri>(scheme, args, input, extra, query);
    const Pair<T> p = run_both<R>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, region,
                            tolerance<T>(args.n, max_abs(p.ref.a))),
              "")
        << p.what;
    EXPECT_EQ(compare_untouched("IPIV", input.ipiv, p.shim.ipiv), "") << p.what;
    if constexpr (std::is_same_v<R, Getri>) {
        EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
    }
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class LapackSolve : public testing::Test {};
TYPED_TEST_SUITE(LapackSolve, Precisions, PrecisionNames);

TYPED_TEST(LapackSolve, GetrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(21);
    for_each_case(schemes_for(/*offloaded_only=*/true), {"N", "T", "C", "n", "t", "c"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& trans) {
                      const int64_t nrhs = pad == 0 ? 1 : 9;
                      const Args args{
                          .flags = trans, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 2 * pad};
                      Operands<T> input =
                          lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda);
                      input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                      expect_solved<Getrs>(scheme, args, input);
                  });
}

TYPED_TEST(LapackSolve, GesvMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(22);
    for_each_case(schemes_for(/*offloaded_only=*/true), {""},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string&) {
                      const int64_t nrhs = pad == 0 ? 1 : 4;
                      const Args args{.n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 1};
                      const Dense a = well_conditioned(n, n, kIsComplex<T>, rng);
                      expect_gesv_solved(
                          scheme, args,
                          gesv_operands<T>(a, args.lda, right_hand_sides<T>(n, nrhs, n + 1, rng)));
                  });
}

// More than the optimal workspace is as good as the optimal one.
TYPED_TEST(LapackSolve, GetriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(23);
    for_each_case(schemes_for_workspace_routines(), {""},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string&) {
                      const Args args{.n = n, .lda = n + pad};
                      expect_inverted<Getri>(
                          scheme, args,
                          lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda),
                          everywhere, /*extra=*/pad * 5);
                  });
}

TYPED_TEST(LapackSolve, PotrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(24);
    for_each_case(schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      const int64_t nrhs = pad == 0 ? 1 : 6;
                      const Args args{
                          .flags = uplo, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 2 * pad};
                      Operands<T> input =
                          cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), args.lda, uplo[0]);
                      input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                      expect_solved<Potrs>(scheme, args, input);
                  });
}

TYPED_TEST(LapackSolve, PosvMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(25);
    for_each_case(schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      const int64_t nrhs = pad == 0 ? 2 : 5;
                      const Args args{
                          .flags = uplo, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + pad + 1};
                      const Dense h = random_hpd(n, kIsComplex<T>, rng);
                      expect_posv_solved(
                          scheme, args,
                          posv_operands<T>(h, args.lda, uplo[0],
                                           right_hand_sides<T>(n, nrhs, args.ldb, rng)));
                  });
}

TYPED_TEST(LapackSolve, PotriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(26);
    for_each_case(schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      const Args args{.flags = uplo, .n = n, .lda = n + pad};
                      expect_inverted<Potri>(
                          scheme, args,
                          cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), args.lda, uplo[0]),
                          triangle_region(uplo[0]));
                  });
}

// With 1 x 1 and with 2 x 2 blocks of D.
TYPED_TEST(LapackSolve, SytrsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(37);
    for_each_case(
        schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
        [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
            for (bool paired : {false, true}) {
                const int64_t nrhs = paired ? 1 : 5;
                const Args args{
                    .flags = uplo, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 2 * pad};
                Operands<T> input = sytrf_factors<T>(
                    symmetric_indefinite(n, kIsComplex<T>, paired, rng), args.lda, uplo[0]);
                ASSERT_EQ(input.info, 0) << "OpenBLAS's SYTRF of SYTRS's operand";
                input.b = right_hand_sides<T>(n, nrhs, args.ldb, rng);
                expect_solved<Sytrs>(scheme, args, input);
            }
        });
}

// Random symmetric matrices, and ones of 2 x 2 blocks; the workspace of OpenBLAS's query, one
// element more on the padded half.
TYPED_TEST(LapackSolve, SysvMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(38);
    for_each_case(schemes_for_workspace_routines(), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      for (bool paired : {false, true}) {
                          const int64_t nrhs = paired ? 2 : 1;
                          const Args args{
                              .flags = uplo, .n = n, .nrhs = nrhs, .lda = n + pad, .ldb = n + 1};
                          expect_sysv_solved<T>(scheme, args,
                                                symmetric_indefinite(n, kIsComplex<T>, paired, rng),
                                                right_hand_sides<T>(n, nrhs, n + 1, rng), pad % 2);
                      }
                  });
}

// A workspace query, and LWORK 1 (LAPACK's minimum) and one below the optimum: on the CPU.
TYPED_TEST(LapackSolve, SysvWorkspaceQueryAndSmallWorkspaceGiveOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(39);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (int64_t n : {7, 70}) {
            for (const char* uplo : {"U", "L"}) {
                const Args args{.flags = uplo, .n = n, .nrhs = 2, .lda = n, .ldb = n};
                Operands<T> input;
                input.a =
                    triangle_of<T>(symmetric_indefinite(n, kIsComplex<T>, false, rng), uplo[0], n);
                input.ipiv = Array<int64_t>::vector(n);
                input.b = right_hand_sides<T>(n, 2, n, rng);
                input.work = Array<T>::vector(1);
                expect_each_workspace_query<Sysv>(scheme, args, input);
                expect_small_workspaces_as_openblas<Sysv>(scheme, args, input, 1);
            }
        }
    }
}

// With 1 x 1 and with 2 x 2 blocks of D.
TYPED_TEST(LapackSolve, SytriMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(36);
    for_each_case(schemes_for(/*offloaded_only=*/true), {"U", "L", "u", "l"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& uplo) {
                      for (bool paired : {false, true}) {
                          const Args args{.flags = uplo, .n = n, .lda = n + pad};
                          const Operands<T> input =
                              sytrf_factors<T>(symmetric_indefinite(n, kIsComplex<T>, paired, rng),
                                               args.lda, uplo[0]);
                          ASSERT_EQ(input.info, 0) << "OpenBLAS's SYTRF of SYTRI's operand";
                          expect_inverted<Sytri>(scheme, args, input, triangle_region(uplo[0]));
                      }
                  });
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
                        expect_solved<Trtrs>(scheme, args, input);
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
    for_each_case(schemes_for(/*offloaded_only=*/true), {"UN", "LN", "UU", "LU", "un", "lu"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& flags) {
                      const Args args{.flags = flags, .n = n, .lda = n + pad};
                      Operands<T> input;
                      input.a = triangular<T>(n, args.lda, flags[0], flags[1], rng);
                      expect_inverted<Trtri>(
                          scheme, args, input,
                          triangle_region(flags[0], /*diagonal=*/!same_flag(flags[1], 'U')));
                  });
}

// A workspace query runs on the CPU: OpenBLAS's answer, nothing else written.
TYPED_TEST(LapackSolve, GetriWorkspaceQueryGivesOpenBLASsAnswer) {
    using T = TypeParam;
    Rng rng(29);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : {1, 7, 33}) {
            const Args args{.n = n, .lda = n + 1};
            expect_each_workspace_query<Getri>(
                scheme, args, lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda));
        }
    }
}

// A valid LWORK below the optimal one: the call runs on the CPU, exactly as OpenBLAS's.
TYPED_TEST(LapackSolve, GetriSmallWorkspaceGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    Rng rng(30);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : kOrders) {
            const Args args{.n = n, .lda = n};
            expect_small_workspaces_as_openblas<Getri>(
                scheme, args, lu_factors<T>(well_conditioned(n, n, kIsComplex<T>, rng), args.lda),
                /*lwork=*/n);  // LAPACK's minimum
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
                expect_exactly_openblas<Gesv>(
                    scheme, Args{.n = n, .nrhs = 2, .lda = lda, .ldb = lda},
                    gesv_operands<T>(a, lda, right_hand_sides<T>(n, 2, lda, rng)), why, k);
                {
                    Args args{.n = n, .lda = lda};
                    Operands<T> input = lu_factors<T>(a, lda);
                    EXPECT_EQ(input.info, k) << "OpenBLAS's GETRF of GETRI's operand";
                    give_workspaces(workspace_query<Getri>(scheme, args, input), 0, args, input);
                    expect_exactly_openblas<Getri>(scheme, args, input, why, k);
                }
                for (char uplo : {'U', 'L'}) {
                    const std::string flag(1, uplo);
                    // A(k, k) below what the Schur complement needs: the leading minor of
                    // order k is indefinite, those of lower order positive definite.
                    Dense h = random_hpd(n, kIsComplex<T>, rng);
                    h(k - 1, k - 1) = -0.5 - static_cast<double>(n);
                    expect_exactly_openblas<Posv>(
                        scheme, Args{.flags = flag, .n = n, .nrhs = 3, .lda = lda, .ldb = n},
                        posv_operands<T>(h, lda, uplo, right_hand_sides<T>(n, 3, n, rng)), why, k);
                    {
                        Operands<T> input =
                            cholesky_factor<T>(random_hpd(n, kIsComplex<T>, rng), lda, uplo);
                        input.a.at(k - 1, k - 1) = T{};
                        expect_exactly_openblas<Potri>(
                            scheme, Args{.flags = flag, .n = n, .lda = lda}, input, why, k);
                    }
                    {
                        // Row and column k zero: SYTRF's D is exactly singular, INFO > 0 (the
                        // first zero block it meets), and SYSV solves nothing.
                        Dense s = symmetric_indefinite(n, kIsComplex<T>, false, rng);
                        for (int64_t i = 0; i < n; ++i) s(i, k - 1) = s(k - 1, i) = 0.0;
                        Args args{.flags = flag, .n = n, .nrhs = 2, .lda = lda, .ldb = n};
                        Operands<T> query;
                        const Operands<T> input = sysv_operands(
                            scheme, args, s, right_hand_sides<T>(n, 2, n, rng), 0, query);
                        const Pair<T> p = run_both<Sysv>(scheme, args, input);
                        EXPECT_GT(p.ref.info, 0) << p.what << " " << why << ": OpenBLAS";
                        EXPECT_EQ(compare_exact(p), "") << p.what << " " << why;
                    }
                    {
                        // D's 1 x 1 blocks are its diagonal (a diagonally dominant matrix
                        // pivots nowhere): the k-th made exactly zero.
                        Operands<T> input = sytrf_factors<T>(
                            symmetric_indefinite(n, kIsComplex<T>, false, rng), lda, uplo);
                        input.a.at(k - 1, k - 1) = T{};
                        expect_exactly_openblas<Sytri>(
                            scheme, Args{.flags = flag, .n = n, .lda = lda}, input, why, k);
                    }
                    Operands<T> input;
                    input.a = triangular<T>(n, lda, uplo, 'N', rng);
                    input.a.at(k - 1, k - 1) = T{};
                    expect_exactly_openblas<Trtri>(
                        scheme, Args{.flags = flag + "N", .n = n, .lda = lda}, input, why, k);
                    input.b = right_hand_sides<T>(n, 2, n, rng);
                    for (const char* rest : {"NN", "CN"}) {
                        const Args args{
                            .flags = flag + rest, .n = n, .nrhs = 2, .lda = lda, .ldb = n};
                        expect_exactly_openblas<Trtrs>(scheme, args, input, why, k);
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
    const Operands<T> bk =
        sytrf_factors<T>(symmetric_indefinite(n, kIsComplex<T>, true, rng), n, 'U');
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
        const auto sytri = [&](const char* uplo, int64_t nn, int64_t lda, int64_t info) {
            expect_rejected_as_by_openblas<Sytri>(scheme, Args{.flags = uplo, .n = nn, .lda = lda},
                                                  bk, info);
        };
        sytri("X", n, n, -1);
        sytri("U", -1, n, -2);
        sytri("L", n, n - 1, -4);
        Operands<T> bk_rhs = bk;
        bk_rhs.b = lu.b;
        bk_rhs.work = Array<T>::vector(64 * n);
        const auto sytrs = [&](auto routine, const char* uplo, int64_t nn, int64_t nrhs,
                               int64_t lda, int64_t ldb, int64_t lwork, int64_t info) {
            using R = decltype(routine);
            expect_rejected_as_by_openblas<R>(
                scheme,
                Args{.flags = uplo, .n = nn, .nrhs = nrhs, .lda = lda, .ldb = ldb, .lwork = lwork},
                bk_rhs, info);
        };
        sytrs(Sytrs{}, "X", n, 2, n, n, kUnset, -1);
        sytrs(Sytrs{}, "U", -1, 2, n, n, kUnset, -2);
        sytrs(Sytrs{}, "L", n, -1, n, n, kUnset, -3);
        sytrs(Sytrs{}, "U", n, 2, n - 1, n, kUnset, -5);
        sytrs(Sytrs{}, "L", n, 2, n, n - 1, kUnset, -8);
        sytrs(Sysv{}, "X", n, 2, n, n, 64 * n, -1);
        sytrs(Sysv{}, "U", -1, 2, n, n, 64 * n, -2);
        sytrs(Sysv{}, "L", n, -1, n, n, 64 * n, -3);
        sytrs(Sysv{}, "U", n, 2, n - 1, n, 64 * n, -5);
        sytrs(Sysv{}, "L", n, 2, n, n - 1, 64 * n, -8);
        sytrs(Sysv{}, "U", n, 2, n, n, 0, -10);
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
            expect_exactly_openblas<R>(scheme, args, input, "(empty)");
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
        empty(Sytri{}, Args{.flags = "L", .n = 0, .lda = 1}, none);
        empty(Sytrs{}, Args{.flags = "U", .n = 0, .nrhs = 2, .lda = 1, .ldb = 1}, none);
        empty(Sysv{}, Args{.flags = "L", .n = 0, .nrhs = 2, .lda = 1, .ldb = 1, .lwork = 1}, none);
        {
            Operands<T> bk =
                sytrf_factors<T>(symmetric_indefinite(n, kIsComplex<T>, true, rng), n, 'L');
            bk.b = Array<T>(n, 0, n);
            empty(Sytrs{}, Args{.flags = "L", .n = n, .nrhs = 0, .lda = n, .ldb = n}, bk);
            // SYSV factors A even with no right-hand side.
            Operands<T> factor_only;
            factor_only.a =
                triangle_of<T>(symmetric_indefinite(n, kIsComplex<T>, false, rng), 'U', n);
            factor_only.ipiv = Array<int64_t>::vector(n);
            factor_only.b = Array<T>(n, 0, n);
            factor_only.work = Array<T>::vector(65 * n);
            empty(Sysv{},
                  Args{.flags = "U", .n = n, .nrhs = 0, .lda = n, .ldb = n, .lwork = 64 * n},
                  factor_only);
        }
        empty(Trtrs{}, Args{.flags = "UNN", .n = 0, .nrhs = 3, .lda = 1, .ldb = 1}, none);
        empty(Trtrs{}, Args{.flags = "UTN", .n = n, .nrhs = 0, .lda = n, .ldb = n}, tri);
        empty(Trtri{}, Args{.flags = "LN", .n = 0, .lda = 1}, none);
        empty(
            Gesv{}, Args{.n = n, .nrhs = 0, .lda = n + 1, .ldb = n},
            gesv_operands<T>(well_conditioned(n, n, kIsComplex<T>, rng), n + 1, Array<T>(n, 0, n)));
        // B has no element to write: compare_solution() finds it untouched.
        expect_posv_solved(
            scheme, Args{.flags = "U", .n = n, .nrhs = 0, .lda = n, .ldb = n},
            posv_operands<T>(random_hpd(n, kIsComplex<T>, rng), n, 'U', Array<T>(n, 0, n)));
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
    expect_solved<Getrs>(scheme, Args{.flags = "C", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                         lu);
    expect_gesv_solved(scheme, Args{.n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                       gesv_operands<T>(general, lda, lu.b));
    expect_inverted<Getri>(scheme, Args{.n = n, .lda = lda}, lu, everywhere);
    Operands<T> chol = cholesky_factor<T>(hpd, lda, 'L');
    chol.b = lu.b;
    expect_solved<Potrs>(scheme, Args{.flags = "L", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                         chol);
    expect_posv_solved(scheme, Args{.flags = "U", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                       posv_operands<T>(hpd, lda, 'U', lu.b));
    expect_inverted<Potri>(scheme, Args{.flags = "L", .n = n, .lda = lda}, chol,
                           triangle_region('L'));
    Operands<T> tri;
    tri.a = triangular<T>(n, lda, 'U', 'N', rng);
    tri.b = lu.b;
    expect_solved<Trtrs>(scheme, Args{.flags = "UTN", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                         tri);
    expect_inverted<Trtri>(scheme, Args{.flags = "UN", .n = n, .lda = lda}, tri,
                           triangle_region('U'));
    const Dense bk = symmetric_indefinite(n, kIsComplex<T>, true, rng);
    expect_inverted<Sytri>(scheme, Args{.flags = "U", .n = n, .lda = lda},
                           sytrf_factors<T>(bk, lda, 'U'), triangle_region('U'));
    Operands<T> bk_factors = sytrf_factors<T>(bk, lda, 'L');
    bk_factors.b = lu.b;
    expect_solved<Sytrs>(scheme, Args{.flags = "L", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                         bk_factors);
    expect_sysv_solved<T>(scheme, Args{.flags = "U", .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                          bk, lu.b, 0);
}

// Hermitian with a diagonal of 2n, dominating the rest of its row (entries of modulus below
// sqrt(2)): positive definite, its condition number below 6, made in O(n^2) (random_hpd's
// product is O(n^3)).
Dense diagonally_dominant_hpd(int64_t n, bool complex, Rng& rng) {
    Dense h = random_dense(n, n, complex, rng);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < j; ++i) h(i, j) = std::conj(h(j, i));
        h(j, j) = c64(2.0 * static_cast<double>(n), 0.0);
    }
    return h;
}

// GESV's and POSV's A a little over one 32 MiB chunk buffer: the factors come back in two
// chunks with a column split between them, POSV's in its triangle alone (the other holds NaN,
// which must stay). (That A is put back when a later copy fails, for the CPU to start from,
// the faults variants of the smaller cases check: there B's copy fails after A was written.)
TYPED_TEST(LapackSolve, OverwrittenArraysLargerThanAChunkMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(57);
    constexpr double kChunkBytes = 32 << 20;
    const int64_t n = static_cast<int64_t>(std::sqrt(kChunkBytes * 9 / 8 / sizeof(T))) | 1;
    const int64_t nrhs = 3, lda = n + 2;
    const Scheme scheme = Scheme::standard;
    const Array<T> b = right_hand_sides<T>(n, nrhs, n, rng);
    expect_gesv_solved(scheme, Args{.n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
                       gesv_operands<T>(well_conditioned(n, n, kIsComplex<T>, rng), lda, b));
    for (const char* uplo : {"U", "L"}) {
        expect_posv_solved(
            scheme, Args{.flags = uplo, .n = n, .nrhs = nrhs, .lda = lda, .ldb = n},
            posv_operands<T>(diagonally_dominant_hpd(n, kIsComplex<T>, rng), lda, uplo[0], b));
    }
}

}  // namespace

int main(int argc, char** argv) {
    return run_all_tests(argc, argv, "lapack_solve_vs_cpu_test");
}
