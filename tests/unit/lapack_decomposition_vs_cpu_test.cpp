// The shim's LAPACK decompositions ({s,d,c,z}geqrf, {s,d}orgqr / {c,z}ungqr, {s,d}ormqr /
// {c,z}unmqr, {s,d}syevd / {c,z}heevd, {s,d}syev / {c,z}heev, {s,d,c,z}gesvd, gesdd) against
// OpenBLAS called directly, through the real exported entry points of libgpushim.so:
// standard names and 64_ names (the reference then is Debian's ILP64 OpenBLAS); not the
// scipy_ names, whose CPU symbols exist only inside a pip wheel: the shim asks the CPU
// library's workspace query before it offloads any of these routines. CTest runs the
// program with forced offload, with faults injected, with a small device and with the shim
// disabled (tests/unit/lapack_routines_vs_cpu.cmake); the checks hold wherever a call ran.
//
// Checked, in every precision, with leading dimensions equal to the rows or larger and
// upper- and lower-case flags:
//  - GEQRF (m > n, m = n, m < n): R, the reflectors and TAU agree with OpenBLAS's within
//    32 (n + 4) eps times their scale (the operands are well conditioned); ORGQR / UNGQR
//    (k = n and k < n): Q agrees; ORMQR / UNMQR, side L and R, trans N and T (real) or C
//    (complex): the product agrees, and A and TAU, which it only reads, stay bit-exact;
//  - SYEVD / HEEVD and SYEV / HEEV, jobz N and V, uplo U and L (the other triangle NaN: not
//    to be read): the eigenvalues agree with OpenBLAS's within 32 (n + 4) eps ||A||_2; with
//    jobz V, ||A V - V diag(w)||_F / (n eps ||A||_F) and ||V^H V - I||_F / (n eps) stay below
//    kResidualLimit (the eigenvectors may differ from OpenBLAS's by sign or phase); with
//    jobz N, A's contents are not checked;
//  - GESVD (every jobu x jobvt but O, O) and GESDD (every jobz), m > n (also m >= 1.6 n,
//    where LAPACK first factors A = QR), m = n, m < n, ldu and ldvt larger than needed: the
//    singular values agree within 32 (max(m, n) + 4) eps s_1; U and VT wherever they are
//    written (their arrays, or A for 'O') have orthonormal columns / rows, and
//    ||A - U S VT||_F / (max(m, n) eps ||A||_F) (with one side only,
//    ||A A^H U - U S^2|| or ||A^H A V - V S^2|| over max(m, n) eps ||A||_F^2) stays below
//    kResidualLimit; an array the job does not reference stays bit-exact;
//  - everywhere: INFO = 0; padding and guard elements after every array bit-exact; WORK(1)
//    (and RWORK(1), IWORK(1) of SYEVD / HEEVD) OpenBLAS's workspace query answer (or, run
//    on the CPU, what OpenBLAS's call stores);
//  - workspace queries (LWORK, LRWORK or LIWORK = -1) and valid workspaces below the optimal
//    ones: OpenBLAS's results bit for bit;
//  - invalid arguments: OpenBLAS's INFO < 0 and xerbla message, the arrays untouched;
//  - empty problems (m = 0, n = 0, k = 0);
//  - n = 230 (too large for the small_device variant's device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "lapack_test_harness.h"
#include "shim_test_harness.h"

namespace {

using namespace gpushim::test_harness;          // NOLINT(google-build-using-namespace)
using namespace gpushim::test_harness::lapack;  // NOLINT(google-build-using-namespace)

// --- Routines -----------------------------------------------------------------------------
struct Geqrf : Named<"geqrf"> {
    template <class T, class I>
    static void call(void* fn, const Args&, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, &i.m, &i.n, o.a.data(), &i.lda, o.tau.data(), o.work.data(), &i.lwork,
                     &i.info);
    }
};

struct Orgqr : Named<"orgqr", "ungqr"> {
    template <class T, class I>
    static void call(void* fn, const Args&, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, &i.m, &i.n, &i.k, o.a.data(), &i.lda, o.tau.data(), o.work.data(),
                     &i.lwork, &i.info);
    }
};

struct Ormqr : Named<"ormqr", "unmqr"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), x.flag(1), &i.m, &i.n, &i.k, o.a.data(), &i.lda, o.tau.data(),
                     o.c.data(), &i.ldc, o.work.data(), &i.lwork, &i.info, kFlag, kFlag);
    }
};

// {s,d}syevd, {c,z}heevd (with RWORK and LRWORK).
struct Syevd : Named<"syevd", "heevd"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> iwork(o.iwork);
        call_fortran(fn, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, o.values.data(),
                     o.work.data(), &i.lwork, only_complex<T>(o.rwork.data(), &i.lrwork),
                     iwork.data(), &i.liwork, &i.info, kFlag, kFlag);
    }
};

// {s,d}syev, {c,z}heev (with RWORK, of 3n - 2 elements).
struct Syev : Named<"syev", "heev"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, o.values.data(),
                     o.work.data(), &i.lwork, only_complex<T>(o.rwork.data()), &i.info, kFlag,
                     kFlag);
    }
};

// Complex: with RWORK, of 5 min(m, n) elements.
struct Gesvd : Named<"gesvd"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), x.flag(1), &i.m, &i.n, o.a.data(), &i.lda, o.values.data(),
                     o.u.data(), &i.ldu, o.vt.data(), &i.ldvt, o.work.data(), &i.lwork,
                     only_complex<T>(o.rwork.data()), &i.info, kFlag, kFlag);
    }
};

// IWORK of 8 min(m, n) elements; complex: with RWORK (sized in svd_operands()).
struct Gesdd : Named<"gesdd"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> iwork(o.iwork);
        call_fortran(fn, x.flag(0), &i.m, &i.n, o.a.data(), &i.lda, o.values.data(), o.u.data(),
                     &i.ldu, o.vt.data(), &i.ldvt, o.work.data(), &i.lwork,
                     only_complex<T>(o.rwork.data()), iwork.data(), &i.info, kFlag);
    }
};

// --- Operands and checks ------------------------------------------------------------------
// ||Q^H Q - I||_F / (rows eps): Q's columns orthonormal.
template <class T>
double orthogonality(const Dense& q) {
    return identity_ratio<T>(product(adjoint(q), q), q.rows);
}

// ||A V - V diag(w)||_F / (n eps ||A||_F).
template <class T>
double eigen_residual(const Dense& a, const Dense& v, const std::vector<double>& w) {
    return frobenius(difference(product(a, v), scaled_columns(v, w))) /
           (static_cast<double>(a.rows) * epsilon<T>() * frobenius(a));
}

// ||A - U(:, 1:k) diag(s) VT(1:k, :)||_F / (max(m, n) eps ||A||_F), k = min(m, n).
template <class T>
double svd_residual(const Dense& a, const Dense& u, const std::vector<double>& s, const Dense& vt) {
    Dense r = a;
    for (std::size_t l = 0; l < s.size(); ++l) {
        const auto L = static_cast<int64_t>(l);
        for (int64_t j = 0; j < a.cols; ++j)
            for (int64_t i = 0; i < a.rows; ++i) r(i, j) -= u(i, L) * s[l] * vt(L, j);
    }
    return frobenius(r) /
           (static_cast<double>(std::max(a.rows, a.cols)) * epsilon<T>() * frobenius(a));
}

// One side of an SVD, Q the singular vectors of that side as columns and G = A A^H (U) or
// A^H A (V): ||G Q - Q diag(s^2)||_F / (max(m, n) eps ||A||_F^2), s_j = 0 past min(m, n).
template <class T>
double one_sided_residual(const Dense& a, const Dense& g, const Dense& q,
                          const std::vector<double>& s) {
    Dense r = product(g, q);
    for (int64_t j = 0; j < q.cols; ++j) {
        const double sj =
            static_cast<std::size_t>(j) < s.size() ? s[static_cast<std::size_t>(j)] : 0.0;
        for (int64_t i = 0; i < q.rows; ++i) r(i, j) -= q(i, j) * sj * sj;
    }
    const double norm = frobenius(a);
    return frobenius(r) /
           (static_cast<double>(std::max(a.rows, a.cols)) * epsilon<T>() * norm * norm);
}

// GEQRF of a well-conditioned matrix: R and the reflectors, and TAU (|TAU| <= 2), within
// tolerance of OpenBLAS's.
template <class T>
void geqrf_case(Scheme scheme, const Shape& shape, int64_t lda, int64_t extra, Rng& rng) {
    Args args{.m = shape.m, .n = shape.n, .lda = lda};
    Operands<T> operands, query;
    operands.a = array_of<T>(well_conditioned(shape.m, shape.n, kIsComplex<T>, rng), lda);
    operands.tau = Array<T>::vector(std::min(shape.m, shape.n));
    const Operands<T> input = with_queried_workspaces<Geqrf>(scheme, args, operands, extra, query);
    const Pair<T> p = run_both<Geqrf>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_to_scale("A", input.a, p.shim.a, p.ref.a, shape.m), "") << p.what;
    EXPECT_EQ(compare_array("TAU", input.tau, p.shim.tau, p.ref.tau, everywhere,
                            tolerance<T>(shape.m, 2.0)),
              "")
        << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
}

// The QR factorization of a well-conditioned rows x cols matrix by OpenBLAS (A holds R and
// the reflectors, TAU min(rows, cols) scalars): the operands of ORGQR and ORMQR.
template <class T>
Operands<T> qr_factors(int64_t rows, int64_t cols, int64_t lda, Rng& rng) {
    Args args{.m = rows, .n = cols, .lda = lda};
    Operands<T> o, query;
    o.a = array_of<T>(well_conditioned(rows, cols, kIsComplex<T>, rng), lda);
    o.tau = Array<T>::vector(std::min(rows, cols));
    o = run_reference<Geqrf>(Scheme::standard, args,
                             with_queried_workspaces<Geqrf>(Scheme::standard, args, o, 0, query));
    EXPECT_EQ(o.info, 0) << "OpenBLAS's GEQRF of an operand";
    o.work = Array<T>();
    return o;
}

// ORGQR / UNGQR of OpenBLAS's QR factors: Q (whose elements are at most 1) within tolerance
// of OpenBLAS's, TAU untouched.
template <class T>
void orgqr_case(Scheme scheme, Args args, const Operands<T>& qr, int64_t extra) {
    Operands<T> query;
    const Operands<T> input = with_queried_workspaces<Orgqr>(scheme, args, qr, extra, query);
    const Pair<T> p = run_both<Orgqr>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere, tolerance<T>(args.m, 1.0)),
              "")
        << p.what;
    EXPECT_EQ(compare_untouched("TAU", input.tau, p.shim.tau), "") << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
}

// ORMQR / UNMQR with OpenBLAS's QR factors and C: Q C (or C Q) within tolerance of OpenBLAS's;
// A, which ORMQR changes and restores, and TAU bit-exact.
template <class T>
void ormqr_case(Scheme scheme, Args args, const Operands<T>& operands, int64_t extra) {
    Operands<T> query;
    const Operands<T> input = with_queried_workspaces<Ormqr>(scheme, args, operands, extra, query);
    const Pair<T> p = run_both<Ormqr>(scheme, args, input);
    expect_success(p);
    const int64_t nq = same_flag(args.flags[0], 'L') ? args.m : args.n;  // Q's order
    EXPECT_EQ(compare_to_scale("C", input.c, p.shim.c, p.ref.c, nq), "") << p.what;
    EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << p.what;
    EXPECT_EQ(compare_untouched("TAU", input.tau, p.shim.tau), "") << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
}

// SYEVD / HEEVD take LIWORK, and for complex LRWORK; SYEV / HEEV a fixed RWORK.
template <class R, class T>
Args eigen_args(const std::string& flags, int64_t n, int64_t lda) {
    Args args{.flags = flags, .n = n, .lda = lda};
    if constexpr (std::is_same_v<R, Syevd>) {  // set from the query's answers
        args.liwork = 0;
        if constexpr (kIsComplex<T>) args.lrwork = 0;
    }
    return args;
}

// The uplo triangle of the Hermitian h, the other triangle NaN; the eigenvalue array; and
// for HEEV its RWORK; the workspaces of OpenBLAS's query (`query`), `extra` elements longer.
template <class R, class T>
Operands<T> eigen_operands(const Dense& h, Args& args, int64_t extra, Operands<T>& query,
                           Scheme scheme) {
    const int64_t n = h.rows;
    Operands<T> o;
    o.a = triangle_of<T>(h, args.flags[1], args.lda);
    o.values = Array<Real<T>>::vector(n);
    if constexpr (std::is_same_v<R, Syev> && kIsComplex<T>)
        o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, 3 * n - 2));
    return with_queried_workspaces<R>(scheme, args, o, extra, query);
}

// SYEVD / HEEVD or SYEV / HEEV of the Hermitian h, with workspaces `extra` elements longer
// than the optimal ones.
template <class R, class T>
void eigen_case(Scheme scheme, const Dense& h, const std::string& flags, int64_t lda,
                int64_t extra) {
    const int64_t n = h.rows;
    Args args = eigen_args<R, T>(flags, n, lda);
    Operands<T> query;
    const Operands<T> input = eigen_operands<R, T>(h, args, extra, query, scheme);
    const Pair<T> p = run_both<R>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("W", input.values, p.shim.values, p.ref.values, everywhere,
                            tolerance<T>(n, max_abs(p.ref.values))),
              "")
        << p.what;
    // A: the eigenvectors (jobz V, checked below) or destroyed (jobz N).
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
    if (same_flag(args.flags[0], 'V') && p.shim.info == 0) {
        const Dense v = dense_of(p.shim.a, n, n);
        EXPECT_EQ(ratio_problem("||A V - V diag(w)||",
                                eigen_residual<T>(h, v, values_of(p.shim.values, n))),
                  "")
            << p.what;
        EXPECT_EQ(ratio_problem("||V^H V - I||", orthogonality<T>(v)), "") << p.what;
    }
}

// Where an SVD job leaves U and VT: which array (nullptr: not computed), and its shape.
struct Placement {
    const char* array = nullptr;  // "U", "VT" or "A"
    int64_t rows = 0, cols = 0;
};
struct SvdLayout {
    Placement u, vt;
};

// GESVD: jobu / jobvt A (all m or n vectors), S (the first min(m, n)), O (over A), N. U's
// placement for jobu (`order` m); VT's is the transpose of that for jobvt (`order` n).
Placement vectors_placement(char job, const char* array, int64_t order, int64_t k) {
    switch (std::toupper(static_cast<unsigned char>(job))) {
        case 'A':
            return {array, order, order};
        case 'S':
            return {array, order, k};
        case 'O':
            return {"A", order, k};
        default:
            return {};
    }
}

SvdLayout gesvd_layout(char jobu, char jobvt, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    const Placement vt = vectors_placement(jobvt, "VT", n, k);
    return {vectors_placement(jobu, "U", m, k), {vt.array, vt.cols, vt.rows}};
}

// GESDD: jobz A, S, N as GESVD's; O: U over A and VT in its array when m >= n, else U in its
// array (m x m) and VT over A.
SvdLayout gesdd_layout(char jobz, int64_t m, int64_t n) {
    if (same_flag(jobz, 'O')) {
        if (m >= n) return {{"A", m, n}, {"VT", n, n}};
        return {{"U", m, m}, {"A", m, n}};
    }
    return gesvd_layout(jobz, jobz, m, n);
}

// An SVD's arguments with the least leading dimensions.
Args svd_args(const char* flags, const Shape& shape) {
    const int64_t lda = std::max<int64_t>(shape.m, 1);
    return {.flags = flags,
            .m = shape.m,
            .n = shape.n,
            .lda = lda,
            .ldu = lda,
            .ldvt = std::max<int64_t>(shape.n, 1)};
}

// The layout of R's job (args.flags) on an m x n matrix.
template <class R>
SvdLayout svd_layout(const Args& args) {
    if constexpr (std::is_same_v<R, Gesvd>)
        return gesvd_layout(args.flags[0], args.flags[1], args.m, args.n);
    else
        return gesdd_layout(args.flags[0], args.m, args.n);
}

// The operands of an SVD of a: A, S, and U and VT arrays of ldu x (m or min(m, n)) and
// ldvt x n (whether the job writes them or not: then they must stay as they are); RWORK and
// IWORK as the routine needs; the workspace of OpenBLAS's query (`query`), `extra` longer.
template <class R, class T>
Operands<T> svd_operands(const Dense& a, Args& args, int64_t extra, Operands<T>& query,
                         Scheme scheme) {
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n), mx = std::max(m, n);
    const SvdLayout layout = svd_layout<R>(args);
    Operands<T> o;
    o.a = array_of<T>(a, args.lda);
    o.values = Array<Real<T>>::vector(k);
    const bool u_here = layout.u.array != nullptr && std::string(layout.u.array) == "U";
    const bool vt_here = layout.vt.array != nullptr && std::string(layout.vt.array) == "VT";
    o.u = u_here ? Array<T>(layout.u.rows, layout.u.cols, args.ldu) : Array<T>(m, k, args.ldu);
    o.vt =
        vt_here ? Array<T>(layout.vt.rows, layout.vt.cols, args.ldvt) : Array<T>(k, n, args.ldvt);
    if constexpr (std::is_same_v<R, Gesdd>) {
        o.iwork = Array<int64_t>::vector(8 * k);
        if constexpr (kIsComplex<T>) {
            // LAPACK 3.10's LRWORK bounds (jobz N: 7 min(m, n), as before 3.7).
            const int64_t lrwork = same_flag(args.flags[0], 'N')
                                       ? 7 * k
                                       : std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k);
            o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, lrwork));
        }
    } else if constexpr (kIsComplex<T>) {
        o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, 5 * k));
    }
    return with_queried_workspaces<R>(scheme, args, o, extra, query);
}

template <class T>
Dense vectors_of(const Operands<T>& o, const Placement& place) {
    const std::string array = place.array;
    const Array<T>& from = array == "U" ? o.u : array == "VT" ? o.vt : o.a;
    return dense_of(from, place.rows, place.cols);
}

// GESVD or GESDD of a random m x n matrix, the leading dimensions `pad` larger than needed
// (ldu 2 pad), the workspace `pad` elements longer than the optimal one.
template <class R, class T>
void svd_case(Scheme scheme, const std::string& flags, const Shape& shape, int64_t pad, Rng& rng) {
    const int64_t m = shape.m, n = shape.n, k = std::min(m, n);
    const Dense a = random_dense(m, n, kIsComplex<T>, rng);
    Args args{.flags = flags, .m = m, .n = n, .lda = m + pad, .ldu = m + 2 * pad, .ldvt = n + pad};
    const SvdLayout layout = svd_layout<R>(args);
    Operands<T> query;
    const Operands<T> input = svd_operands<R, T>(a, args, pad, query, scheme);
    const Pair<T> p = run_both<R>(scheme, args, input);
    expect_success(p);
    EXPECT_EQ(compare_array("S", input.values, p.shim.values, p.ref.values, everywhere,
                            tolerance<T>(std::max(m, n), max_abs(p.ref.values))),
              "")
        << p.what;
    const auto written_if = [](const Placement& place, const char* array) {
        const bool here = place.array != nullptr && std::string(place.array) == array;
        return here ? anything : nowhere;
    };
    // A: destroyed, or U or VT (checked below).
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << p.what;
    EXPECT_EQ(compare_array("U", input.u, p.shim.u, p.ref.u, written_if(layout.u, "U"), 0.0), "")
        << p.what;
    EXPECT_EQ(compare_array("VT", input.vt, p.shim.vt, p.ref.vt, written_if(layout.vt, "VT"), 0.0),
              "")
        << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
    if (p.shim.info != 0) return;
    const std::vector<double> s = values_of(p.shim.values, k);
    const bool has_u = layout.u.array != nullptr, has_vt = layout.vt.array != nullptr;
    const Dense u = has_u ? vectors_of(p.shim, layout.u) : Dense(0, 0);
    const Dense v = has_vt ? adjoint(vectors_of(p.shim, layout.vt)) : Dense(0, 0);
    if (has_u) {
        EXPECT_EQ(ratio_problem("||U^H U - I||", orthogonality<T>(u)), "") << p.what;
    }
    if (has_vt) {
        EXPECT_EQ(ratio_problem("||VT VT^H - I||", orthogonality<T>(v)), "") << p.what;
    }
    if (has_u && has_vt) {
        EXPECT_EQ(ratio_problem("||A - U S VT||", svd_residual<T>(a, u, s, adjoint(v))), "")
            << p.what;
    } else if (has_u) {
        EXPECT_EQ(ratio_problem("||A A^H U - U S^2||",
                                one_sided_residual<T>(a, product(a, adjoint(a)), u, s)),
                  "")
            << p.what;
    } else if (has_vt) {
        EXPECT_EQ(ratio_problem("||A^H A V - V S^2||",
                                one_sided_residual<T>(a, product(adjoint(a), a), v, s)),
                  "")
            << p.what;
    }
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class LapackDecomposition : public testing::Test {};
TYPED_TEST_SUITE(LapackDecomposition, Precisions, PrecisionNames);

constexpr Shape kQrShapes[] = {{1, 1},   {7, 7}, {33, 33}, {70, 33},
                               {33, 70}, {7, 1}, {1, 7},   {41, 17}};
// 70 x 33: m >= 1.6 n, where GESVD and GESDD first factor A = QR; 24 x 16 not.
constexpr Shape kSvdShapes[] = {{70, 33}, {24, 16}, {16, 16}, {16, 24}, {9, 1}, {1, 9}};

TYPED_TEST(LapackDecomposition, GeqrfMatchesOpenBLAS) {
    Rng rng(41);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (const Shape& shape : kQrShapes) {
            for (int64_t pad : {0, 3})
                geqrf_case<TypeParam>(scheme, shape, shape.m + pad, pad * 4, rng);
        }
    }
}

// k = n and k < n reflectors.
TYPED_TEST(LapackDecomposition, OrgqrMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(42);
    struct Case {
        int64_t m, n, k;
    };
    const Case cases[] = {{1, 1, 1},    {7, 7, 7},    {7, 7, 3},    {33, 33, 33},
                          {70, 33, 33}, {70, 33, 12}, {41, 17, 17}, {41, 17, 1}};
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (const Case& c : cases) {
            const int64_t pad = index++ % 2 == 0 ? 0 : 3;
            const Args args{.m = c.m, .n = c.n, .k = c.k, .lda = c.m + pad};
            orgqr_case(scheme, args, qr_factors<T>(c.m, c.n, args.lda, rng), pad * 3);
        }
    }
}

// Q of order m (side L) or n (side R) from k reflectors.
TYPED_TEST(LapackDecomposition, OrmqrMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(43);
    const Shape shapes[] = {{1, 1}, {7, 5}, {33, 41}, {70, 33}};
    const char conjugate = kIsComplex<T> ? 'C' : 'T';
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (const Shape& shape : shapes) {
            for (char side : {'L', 'R'}) {
                for (char trans : {'N', conjugate}) {
                    const int64_t pad = index % 2 == 0 ? 0 : 3;
                    const std::string flags{side, trans};
                    const bool lower = index++ % 4 == 3;
                    const int64_t nq = side == 'L' ? shape.m : shape.n;
                    const int64_t k = std::max<int64_t>(1, nq - 2 * (index % 3));
                    const Args args{.flags = lower ? lower_case(flags) : flags,
                                    .m = shape.m,
                                    .n = shape.n,
                                    .k = k,
                                    .lda = nq + pad,
                                    .ldc = shape.m + 2 * pad};
                    Operands<T> input = qr_factors<T>(nq, k, args.lda, rng);
                    input.c =
                        array_of<T>(random_dense(shape.m, shape.n, kIsComplex<T>, rng), args.ldc);
                    ormqr_case(scheme, args, input, pad);
                }
            }
        }
    }
}

template <class R, class T>
void eigen_cases(Rng& rng) {
    for_each_case(schemes_for_workspace_routines(), {"VU", "VL", "NU", "NL", "vl", "nu"},
                  [&](Scheme scheme, int64_t n, int64_t pad, const std::string& flags) {
                      eigen_case<R, T>(scheme, random_hermitian(n, kIsComplex<T>, rng), flags,
                                       n + pad, pad * 2);
                  });
}

TYPED_TEST(LapackDecomposition, SyevdMatchesOpenBLAS) {
    Rng rng(44);
    eigen_cases<Syevd, TypeParam>(rng);
}

TYPED_TEST(LapackDecomposition, SyevMatchesOpenBLAS) {
    Rng rng(45);
    eigen_cases<Syev, TypeParam>(rng);
}

TYPED_TEST(LapackDecomposition, GesvdMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(46);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (char jobu : {'A', 'S', 'O', 'N'}) {
            for (char jobvt : {'A', 'S', 'O', 'N'}) {
                if (jobu == 'O' && jobvt == 'O') continue;  // invalid
                for (const Shape& shape : kSvdShapes) {
                    const int64_t pad = index % 2 == 0 ? 0 : 2;
                    const std::string flags{jobu, jobvt};
                    svd_case<Gesvd, T>(scheme, index++ % 5 == 4 ? lower_case(flags) : flags, shape,
                                       pad, rng);
                }
            }
        }
    }
}

TYPED_TEST(LapackDecomposition, GesddMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(47);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (const char* jobz : {"A", "S", "O", "N", "a", "o"}) {
            for (const Shape& shape : kSvdShapes) {
                const int64_t pad = index++ % 2 == 0 ? 0 : 2;
                svd_case<Gesdd, T>(scheme, jobz, shape, pad, rng);
            }
        }
    }
}

// A workspace query (any of LWORK, LRWORK, LIWORK -1, the others valid) runs on the CPU:
// OpenBLAS's answers, nothing else written.
TYPED_TEST(LapackDecomposition, WorkspaceQueriesGiveOpenBLASsAnswers) {
    using T = TypeParam;
    Rng rng(48);
    const int64_t m = 33, n = 20;
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto each_query = [&](auto routine, const Args& args, const Operands<T>& input) {
            expect_each_workspace_query<decltype(routine)>(scheme, args, input);
        };
        {
            Operands<T> input;
            input.a = array_of<T>(random_dense(m, n, kIsComplex<T>, rng), m);
            input.tau = Array<T>::vector(n);
            each_query(Geqrf{}, Args{.m = m, .n = n, .lda = m}, input);
        }
        const Operands<T> qr = qr_factors<T>(m, n, m, rng);
        each_query(Orgqr{}, Args{.m = m, .n = n, .k = n, .lda = m}, qr);
        for (const char* flags : {"LN", kIsComplex<T> ? "RC" : "RT"}) {
            Operands<T> input = qr;
            const int64_t cols = flags[0] == 'L' ? 5 : m;
            input.c = array_of<T>(random_dense(m, cols, kIsComplex<T>, rng), m);
            each_query(Ormqr{}, Args{.flags = flags, .m = m, .n = cols, .k = n, .lda = m, .ldc = m},
                       input);
        }
        for (const char* flags : {"VU", "NL"}) {
            const Dense h = random_hermitian(n, kIsComplex<T>, rng);
            Operands<T> unused;
            Args args = eigen_args<Syevd, T>(flags, n, n);
            each_query(Syevd{}, args, eigen_operands<Syevd, T>(h, args, 0, unused, scheme));
            args = eigen_args<Syev, T>(flags, n, n);
            each_query(Syev{}, args, eigen_operands<Syev, T>(h, args, 0, unused, scheme));
        }
        for (const Shape& shape : {Shape{m, n}, Shape{n, m}}) {
            const Dense a = random_dense(shape.m, shape.n, kIsComplex<T>, rng);
            Operands<T> unused;
            for (const char* jobs : {"AA", "SO", "NN"}) {
                Args args = svd_args(jobs, shape);
                each_query(Gesvd{}, args, svd_operands<Gesvd, T>(a, args, 0, unused, scheme));
            }
            for (const char* jobz : {"A", "O", "N"}) {
                Args args = svd_args(jobz, shape);
                each_query(Gesdd{}, args, svd_operands<Gesdd, T>(a, args, 0, unused, scheme));
            }
        }
    }
}

// A valid workspace below the optimal one (LAPACK's minimum, and the optimum less one):
// the call runs on the CPU, exactly as OpenBLAS's.
TYPED_TEST(LapackDecomposition, SmallWorkspacesGiveOpenBLASsResultsExactly) {
    using T = TypeParam;
    Rng rng(49);
    const int64_t m = 33, n = 20;
    for (Scheme scheme : schemes_for_workspace_routines()) {
        // LAPACK's minimum LWORK (LRWORK, LIWORK)
        const auto small = [&](auto routine, const Args& args, const Operands<T>& input,
                               int64_t lwork, int64_t lrwork = kUnset, int64_t liwork = kUnset) {
            expect_small_workspaces_as_openblas<decltype(routine)>(scheme, args, input, lwork,
                                                                   lrwork, liwork);
        };
        {
            Operands<T> input;
            input.a = array_of<T>(random_dense(m, n, kIsComplex<T>, rng), m);
            input.tau = Array<T>::vector(n);
            small(Geqrf{}, Args{.m = m, .n = n, .lda = m}, input, n);
        }
        const Operands<T> qr = qr_factors<T>(m, n, m, rng);
        small(Orgqr{}, Args{.m = m, .n = n, .k = n, .lda = m}, qr, n);
        for (const char* flags : {"LN", kIsComplex<T> ? "LC" : "LT", "RN"}) {
            Operands<T> input = qr;
            const int64_t cols = flags[0] == 'L' ? 9 : m;
            input.c = array_of<T>(random_dense(m, cols, kIsComplex<T>, rng), m);
            // LAPACK's minimum: the order of C's other dimension
            small(Ormqr{}, Args{.flags = flags, .m = m, .n = cols, .k = n, .lda = m, .ldc = m},
                  input, flags[0] == 'L' ? cols : m);
        }
        for (const char* flags : {"VU", "NL"}) {
            const Dense h = random_hermitian(n, kIsComplex<T>, rng);
            const bool vectors = flags[0] == 'V';
            Operands<T> unused;
            Args args = eigen_args<Syevd, T>(flags, n, n);
            const Operands<T> syevd = eigen_operands<Syevd, T>(h, args, 0, unused, scheme);
            // LAPACK's minima of SYEVD (HEEVD: LWORK, LRWORK, LIWORK)
            if constexpr (kIsComplex<T>)
                small(Syevd{}, args, syevd, vectors ? 2 * n + n * n : n + 1,
                      vectors ? 1 + 5 * n + 2 * n * n : n, vectors ? 3 + 5 * n : 1);
            else
                small(Syevd{}, args, syevd, vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1, kUnset,
                      vectors ? 3 + 5 * n : 1);
            args = eigen_args<Syev, T>(flags, n, n);
            small(Syev{}, args, eigen_operands<Syev, T>(h, args, 0, unused, scheme),
                  kIsComplex<T> ? 2 * n - 1 : 3 * n - 1);
        }
        for (const Shape& shape : {Shape{m, n}, Shape{n, m}}) {
            const Dense a = random_dense(shape.m, shape.n, kIsComplex<T>, rng);
            const int64_t k = std::min(shape.m, shape.n), mx = std::max(shape.m, shape.n);
            Operands<T> unused;
            for (const char* jobs : {"AA", "SO", "NN"}) {
                Args args = svd_args(jobs, shape);
                small(Gesvd{}, args, svd_operands<Gesvd, T>(a, args, 0, unused, scheme),
                      kIsComplex<T> ? 2 * k + mx : std::max(3 * k + mx, 5 * k));
            }
            for (const char* jobz : {"A", "S", "O", "N"}) {
                Args args = svd_args(jobz, shape);
                // LAPACK 3.10's minima of GESDD's LWORK
                int64_t lwork = 0;
                switch (jobz[0]) {
                    case 'N':
                        lwork = kIsComplex<T> ? 2 * k + mx : 3 * k + std::max(mx, 7 * k);
                        break;
                    case 'O':
                        lwork = kIsComplex<T> ? 2 * k * k + 2 * k + mx
                                              : 3 * k + std::max(mx, 5 * k * k + 4 * k);
                        break;
                    case 'S':
                        lwork = kIsComplex<T> ? k * k + 3 * k : 4 * k * k + 7 * k;
                        break;
                    default:
                        lwork = kIsComplex<T> ? k * k + 2 * k + mx : 4 * k * k + 6 * k + mx;
                        break;
                }
                small(Gesdd{}, args, svd_operands<Gesdd, T>(a, args, 0, unused, scheme), lwork);
            }
        }
    }
}

// Each case's expected INFO is minus the position of its first invalid argument.
TYPED_TEST(LapackDecomposition, InvalidArgumentsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(50);
    const int64_t n = 4, big = 64 * 64;  // `big`: enough workspace for every call here
    Operands<T> qr = qr_factors<T>(n, n, n, rng);
    qr.c = array_of<T>(random_dense(n, n, kIsComplex<T>, rng), n);
    qr.work = Array<T>::vector(big);
    Operands<T> eig;
    eig.a = array_of<T>(random_hermitian(n, kIsComplex<T>, rng), n);
    eig.values = Array<Real<T>>::vector(n);
    eig.work = Array<T>::vector(big);
    eig.rwork = Array<Real<T>>::vector(big);
    eig.iwork = Array<int64_t>::vector(big);
    Operands<T> svd = eig;
    svd.a = array_of<T>(random_dense(n, n, kIsComplex<T>, rng), n);
    svd.u = Array<T>(n, n, n);
    svd.vt = Array<T>(n, n, n);
    const char* bad_trans = kIsComplex<T> ? "LT" : "LC";  // ORMQR: N or T; UNMQR: N or C
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto geqrf = [&](int64_t m, int64_t nn, int64_t lda, int64_t lwork, int64_t info) {
            expect_rejected_as_by_openblas<Geqrf>(
                scheme, Args{.m = m, .n = nn, .lda = lda, .lwork = lwork}, qr, info);
        };
        geqrf(-1, n, n, big, -1);
        geqrf(n, -1, n, big, -2);
        geqrf(n, n, n - 1, big, -4);
        geqrf(n, n, n, n - 1, -7);
        const auto orgqr = [&](int64_t m, int64_t nn, int64_t k, int64_t lda, int64_t lwork,
                               int64_t info) {
            expect_rejected_as_by_openblas<Orgqr>(
                scheme, Args{.m = m, .n = nn, .k = k, .lda = lda, .lwork = lwork}, qr, info);
        };
        orgqr(-1, n, n, n, big, -1);
        orgqr(n - 1, n, 1, n, big, -2);  // n > m
        orgqr(n, n, n + 1, n, big, -3);  // k > n
        orgqr(n, n, n, n - 1, big, -5);
        orgqr(n, n, n, n, n - 1, -8);
        const auto ormqr = [&](const char* flags, int64_t m, int64_t nn, int64_t k, int64_t lda,
                               int64_t ldc, int64_t lwork, int64_t info) {
            const Args args{
                .flags = flags, .m = m, .n = nn, .k = k, .lda = lda, .ldc = ldc, .lwork = lwork};
            expect_rejected_as_by_openblas<Ormqr>(scheme, args, qr, info);
        };
        ormqr("XN", n, n, n, n, n, big, -1);
        ormqr("LX", n, n, n, n, n, big, -2);
        ormqr(bad_trans, n, n, n, n, n, big, -2);
        ormqr("LN", -1, n, n, n, n, big, -3);
        ormqr("RN", n, -1, n, n, n, big, -4);
        ormqr("LN", n, n, n + 1, n, n, big, -5);  // k > m
        ormqr("RN", n, n, n, n - 1, n, big, -7);
        ormqr("LN", n, n, n, n, n - 1, big, -10);
        ormqr("LN", n, n, n, n, n, n - 1, -12);
        for (bool divide_and_conquer : {true, false}) {
            const auto eigen = [&](const char* flags, int64_t nn, int64_t lda, int64_t lwork,
                                   int64_t info) {
                Args args{.flags = flags, .n = nn, .lda = lda, .lwork = lwork};
                if (divide_and_conquer) {
                    args.liwork = big;
                    if (kIsComplex<T>) args.lrwork = big;
                    expect_rejected_as_by_openblas<Syevd>(scheme, args, eig, info);
                } else {
                    expect_rejected_as_by_openblas<Syev>(scheme, args, eig, info);
                }
            };
            eigen("XU", n, n, big, -1);
            eigen("VX", n, n, big, -2);
            eigen("NL", -1, n, big, -3);
            eigen("VU", n, n - 1, big, -5);
            eigen("VL", n, n, 1, -8);
        }
        {
            // SYEVD's LIWORK (10th argument; HEEVD: LRWORK 10th, LIWORK 12th) too small
            Args args{.flags = "VU", .n = n, .lda = n, .lwork = big, .liwork = 1};
            if (kIsComplex<T>) {
                args.lrwork = 1;
                expect_rejected_as_by_openblas<Syevd>(scheme, args, eig, -10);
                args.lrwork = big;
                expect_rejected_as_by_openblas<Syevd>(scheme, args, eig, -12);
            } else {
                expect_rejected_as_by_openblas<Syevd>(scheme, args, eig, -10);
            }
        }
        // GESVD's jobu and jobvt, or GESDD's jobz
        const auto svd_rejected = [&](auto routine, const char* jobs, int64_t m, int64_t nn,
                                      int64_t lda, int64_t ldu, int64_t ldvt, int64_t lwork,
                                      int64_t info) {
            Args args{.flags = jobs, .m = m, .n = nn, .lda = lda, .ldu = ldu, .ldvt = ldvt};
            args.lwork = lwork;
            expect_rejected_as_by_openblas<decltype(routine)>(scheme, args, svd, info);
        };
        const auto gesvd = [&](auto... row) { svd_rejected(Gesvd{}, row...); };
        const auto gesdd = [&](auto... row) { svd_rejected(Gesdd{}, row...); };
        gesvd("XA", n, n, n, n, n, big, -1);
        gesvd("AX", n, n, n, n, n, big, -2);
        gesvd("OO", n, n, n, n, n, big, -2);  // U and VT cannot both overwrite A
        gesvd("AA", -1, n, n, n, n, big, -3);
        gesvd("AA", n, -1, n, n, n, big, -4);
        gesvd("SS", n, n, n - 1, n, n, big, -6);
        gesvd("AN", n, n, n, n - 1, n, big, -9);
        gesvd("NA", n, n, n, n, n - 1, big, -11);
        gesvd("AA", n, n, n, n, n, 1, -13);
        gesdd("X", n, n, n, n, n, big, -1);
        gesdd("A", -1, n, n, n, n, big, -2);
        gesdd("S", n, -1, n, n, n, big, -3);
        gesdd("A", n, n, n - 1, n, n, big, -5);
        gesdd("S", n, n, n, n - 1, n, big, -8);
        gesdd("A", n, n, n, n, n - 1, big, -10);
        gesdd("N", n, n, n, n, n, 1, -12);
    }
}

// Nothing to compute (m, n or k zero): INFO 0, nothing written but the workspace answer;
// ORGQR with k = 0 and ORMQR with k = 0 are valid calls with Q = I.
TYPED_TEST(LapackDecomposition, EmptyProblemsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(51);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto empty = [&](auto routine, const Args& args, const Operands<T>& input) {
            expect_empty_problem_as_openblas<decltype(routine)>(scheme, args, input);
        };
        const auto matrix = [&](int64_t rows, int64_t cols, int64_t ld) {
            Operands<T> o;
            o.a = array_of<T>(random_dense(rows, cols, kIsComplex<T>, rng), ld);
            o.tau = Array<T>::vector(std::min(rows, cols));
            o.c = array_of<T>(random_dense(rows, cols, kIsComplex<T>, rng), ld);
            o.values = Array<Real<T>>::vector(std::min(rows, cols));
            o.u = Array<T>(rows, rows, ld);
            o.vt = Array<T>(cols, cols, std::max<int64_t>(cols, 1));
            o.rwork = Array<Real<T>>::vector(1);
            o.iwork = Array<int64_t>::vector(1);
            return o;
        };
        empty(Geqrf{}, Args{.m = 0, .n = 3, .lda = 1}, matrix(0, 3, 1));
        empty(Geqrf{}, Args{.m = 3, .n = 0, .lda = 3}, matrix(3, 0, 3));
        empty(Orgqr{}, Args{.m = 0, .n = 0, .k = 0, .lda = 1}, matrix(0, 0, 1));
        empty(Orgqr{}, Args{.m = 5, .n = 3, .k = 0, .lda = 6}, matrix(5, 3, 6));
        for (const char* flags : {"LN", "RN"}) {
            empty(Ormqr{}, Args{.flags = flags, .m = 0, .n = 3, .k = 0, .lda = 3, .ldc = 1},
                  matrix(3, 3, 3));
            empty(Ormqr{}, Args{.flags = flags, .m = 3, .n = 0, .k = 0, .lda = 3, .ldc = 3},
                  matrix(3, 3, 3));
            empty(Ormqr{}, Args{.flags = flags, .m = 3, .n = 3, .k = 0, .lda = 3, .ldc = 3},
                  matrix(3, 3, 3));
        }
        for (const char* flags : {"VU", "NL"}) {
            empty(Syevd{}, eigen_args<Syevd, T>(flags, 0, 1), matrix(0, 0, 1));
            empty(Syev{}, eigen_args<Syev, T>(flags, 0, 1), matrix(0, 0, 1));
        }
        for (const Shape& shape : {Shape{0, 3}, Shape{3, 0}}) {
            const int64_t lda = std::max<int64_t>(shape.m, 1);
            for (const char* jobs : {"AA", "SN"})
                empty(Gesvd{}, svd_args(jobs, shape), matrix(shape.m, shape.n, lda));
            for (const char* jobz : {"A", "N"})
                empty(Gesdd{}, svd_args(jobz, shape), matrix(shape.m, shape.n, lda));
        }
    }
}

// n = 230: at least 211 KB a matrix, too large for the small_device variant's 200000 bytes of
// device memory, which leaves these calls to the CPU.
TYPED_TEST(LapackDecomposition, LargerMatricesMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(52);
    const int64_t n = 230, lda = n + 1;
    const Scheme scheme = Scheme::standard;
    geqrf_case<T>(scheme, Shape{n, n}, lda, 0, rng);
    const Operands<T> qr = qr_factors<T>(n, n, lda, rng);
    orgqr_case(scheme, Args{.m = n, .n = n, .k = n, .lda = lda}, qr, 0);
    Operands<T> input = qr;
    input.c = array_of<T>(random_dense(n, 30, kIsComplex<T>, rng), n);
    ormqr_case(
        scheme,
        Args{.flags = kIsComplex<T> ? "LC" : "LT", .m = n, .n = 30, .k = n, .lda = lda, .ldc = n},
        input, 0);
    const Dense h = random_hermitian(n, kIsComplex<T>, rng);
    eigen_case<Syevd, T>(scheme, h, "VL", lda, 0);
    eigen_case<Syev, T>(scheme, h, "VU", lda, 0);
    svd_case<Gesvd, T>(scheme, "SS", Shape{n, n}, 1, rng);
    svd_case<Gesdd, T>(scheme, "A", Shape{n, n}, 1, rng);
}

// A tall SVD whose A and U (m x 64) are a little over the 32 MiB of a pinned chunk buffer:
// uploaded, and U delivered, in two chunks, a column split between them (m is odd).
TYPED_TEST(LapackDecomposition, OutputsLargerThanAChunkMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(53);
    constexpr int64_t kChunkBytes = int64_t{32} << 20;
    constexpr int64_t n = 64;
    const int64_t m = kChunkBytes * 9 / 8 / (n * static_cast<int64_t>(sizeof(T))) | 1;
    svd_case<Gesdd, T>(Scheme::standard, "S", Shape{m, n}, 1, rng);
}

}  // namespace

int main(int argc, char** argv) {
    return run_all_tests(argc, argv, "lapack_decomposition_vs_cpu_test");
}
