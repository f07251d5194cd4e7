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
struct Geqrf {
    template <class T>
    static std::string name() {
        return lapack_name<T>("geqrf");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const I*, const I*, T*, const I*, T*, T*, const I*, I*);
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), lda = as_int<I>(x.lda),
                lwork = as_int<I>(x.lwork);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(&m, &n, o.a.data(), &lda, o.tau.data(), o.work.data(), &lwork,
                                 &info);
        o.info = info;
    }
};

struct Orgqr {
    template <class T>
    static std::string name() {
        return lapack_name<T>("orgqr", "ungqr");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const I*, const I*, const I*, T*, const I*, const T*, T*, const I*, I*);
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), k = as_int<I>(x.k), lda = as_int<I>(x.lda),
                lwork = as_int<I>(x.lwork);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(&m, &n, &k, o.a.data(), &lda, o.tau.data(), o.work.data(), &lwork,
                                 &info);
        o.info = info;
    }
};

struct Ormqr {
    template <class T>
    static std::string name() {
        return lapack_name<T>("ormqr", "unmqr");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using F = void(const char*, const char*, const I*, const I*, const I*, T*, const I*,
                       const T*, T*, const I*, T*, const I*, I*, std::size_t, std::size_t);
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), k = as_int<I>(x.k), lda = as_int<I>(x.lda),
                ldc = as_int<I>(x.ldc), lwork = as_int<I>(x.lwork);
        I info = as_int<I>(kInfoUnset);
        reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &m, &n, &k, o.a.data(), &lda, o.tau.data(),
                                 o.c.data(), &ldc, o.work.data(), &lwork, &info, 1, 1);
        o.info = info;
    }
};

// {s,d}syevd, {c,z}heevd (with RWORK and LRWORK).
struct Syevd {
    template <class T>
    static std::string name() {
        return lapack_name<T>("syevd", "heevd");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using R = Real<T>;
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda), lwork = as_int<I>(x.lwork),
                liwork = as_int<I>(x.liwork);
        IntArgument<I> iwork(o.iwork);
        I info = as_int<I>(kInfoUnset);
        if constexpr (kIsComplex<T>) {
            using F = void(const char*, const char*, const I*, T*, const I*, R*, T*, const I*, R*,
                           const I*, I*, const I*, I*, std::size_t, std::size_t);
            const I lrwork = as_int<I>(x.lrwork);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &n, o.a.data(), &lda, o.values.data(),
                                     o.work.data(), &lwork, o.rwork.data(), &lrwork, iwork.data(),
                                     &liwork, &info, 1, 1);
        } else {
            using F = void(const char*, const char*, const I*, T*, const I*, R*, T*, const I*, I*,
                           const I*, I*, std::size_t, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &n, o.a.data(), &lda, o.values.data(),
                                     o.work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
        }
        o.info = info;
    }
};

// {s,d}syev, {c,z}heev (with RWORK, of 3n - 2 elements).
struct Syev {
    template <class T>
    static std::string name() {
        return lapack_name<T>("syev", "heev");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using R = Real<T>;
        const I n = as_int<I>(x.n), lda = as_int<I>(x.lda), lwork = as_int<I>(x.lwork);
        I info = as_int<I>(kInfoUnset);
        if constexpr (kIsComplex<T>) {
            using F = void(const char*, const char*, const I*, T*, const I*, R*, T*, const I*, R*,
                           I*, std::size_t, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &n, o.a.data(), &lda, o.values.data(),
                                     o.work.data(), &lwork, o.rwork.data(), &info, 1, 1);
        } else {
            using F = void(const char*, const char*, const I*, T*, const I*, R*, T*, const I*, I*,
                           std::size_t, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &n, o.a.data(), &lda, o.values.data(),
                                     o.work.data(), &lwork, &info, 1, 1);
        }
        o.info = info;
    }
};

// Complex: with RWORK, of 5 min(m, n) elements.
struct Gesvd {
    template <class T>
    static std::string name() {
        return lapack_name<T>("gesvd");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using R = Real<T>;
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), lda = as_int<I>(x.lda),
                ldu = as_int<I>(x.ldu), ldvt = as_int<I>(x.ldvt), lwork = as_int<I>(x.lwork);
        I info = as_int<I>(kInfoUnset);
        if constexpr (kIsComplex<T>) {
            using F = void(const char*, const char*, const I*, const I*, T*, const I*, R*, T*,
                           const I*, T*, const I*, T*, const I*, R*, I*, std::size_t, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &m, &n, o.a.data(), &lda,
                                     o.values.data(), o.u.data(), &ldu, o.vt.data(), &ldvt,
                                     o.work.data(), &lwork, o.rwork.data(), &info, 1, 1);
        } else {
            using F = void(const char*, const char*, const I*, const I*, T*, const I*, R*, T*,
                           const I*, T*, const I*, T*, const I*, I*, std::size_t, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), x.flag(1), &m, &n, o.a.data(), &lda,
                                     o.values.data(), o.u.data(), &ldu, o.vt.data(), &ldvt,
                                     o.work.data(), &lwork, &info, 1, 1);
        }
        o.info = info;
    }
};

// IWORK of 8 min(m, n) elements; complex: with RWORK (sized in svd_operands()).
struct Gesdd {
    template <class T>
    static std::string name() {
        return lapack_name<T>("gesdd");
    }
    template <class T, class I>
    static void call(void* fn, const Args& x, Operands<T>& o) {
        using R = Real<T>;
        const I m = as_int<I>(x.m), n = as_int<I>(x.n), lda = as_int<I>(x.lda),
                ldu = as_int<I>(x.ldu), ldvt = as_int<I>(x.ldvt), lwork = as_int<I>(x.lwork);
        IntArgument<I> iwork(o.iwork);
        I info = as_int<I>(kInfoUnset);
        if constexpr (kIsComplex<T>) {
            using F = void(const char*, const I*, const I*, T*, const I*, R*, T*, const I*, T*,
                           const I*, T*, const I*, R*, I*, I*, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), &m, &n, o.a.data(), &lda, o.values.data(),
                                     o.u.data(), &ldu, o.vt.data(), &ldvt, o.work.data(), &lwork,
                                     o.rwork.data(), iwork.data(), &info, 1);
        } else {
            using F = void(const char*, const I*, const I*, T*, const I*, R*, T*, const I*, T*,
                           const I*, T*, const I*, I*, I*, std::size_t);
            reinterpret_cast<F*>(fn)(x.flag(0), &m, &n, o.a.data(), &lda, o.values.data(),
                                     o.u.data(), &ldu, o.vt.data(), &ldvt, o.work.data(), &lwork,
                                     iwork.data(), &info, 1);
        }
        o.info = info;
    }
};

// --- Operands and checks ------------------------------------------------------------------
// LAPACK's test ratios (residuals over n eps) pass below 30.
constexpr double kResidualLimit = 30.0;

template <class T>
void expect_success(const Pair<T>& p, const std::string& what) {
    EXPECT_EQ(p.ref.info, 0) << what << ": OpenBLAS";
    EXPECT_EQ(p.shim.info, 0) << what;
}

template <class X>
std::vector<double> values_of(const Array<X>& a, int64_t count) {
    std::vector<double> v(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
        v[static_cast<std::size_t>(i)] = a.v[static_cast<std::size_t>(i)];
    return v;
}

// ||Q^H Q - I||_F / (rows eps): Q's columns orthonormal.
template <class T>
double orthogonality(const Dense& q) {
    const Dense g = difference(product(adjoint(q), q), identity(q.cols));
    return frobenius(g) / (static_cast<double>(std::max<int64_t>(q.rows, 1)) * epsilon<T>());
}

// ||A V - V diag(w)||_F / (n eps ||A||_F).
template <class T>
double eigen_residual(const Dense& a, const Dense& v, const std::vector<double>& w) {
    Dense r = product(a, v);
    for (int64_t j = 0; j < v.cols; ++j)
        for (int64_t i = 0; i < v.rows; ++i) r(i, j) -= v(i, j) * w[static_cast<std::size_t>(j)];
    return frobenius(r) / (static_cast<double>(a.rows) * epsilon<T>() * frobenius(a));
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

std::string ratio_problem(const char* what, double ratio) {
    if (ratio < kResidualLimit) return "";
    return std::string(what) + " ratio " + std::to_string(ratio) +
           " >= " + std::to_string(kResidualLimit);
}

// Whether a flag is `letter` (upper case), in either case.
bool same_flag(char flag, char letter) {
    return std::toupper(static_cast<unsigned char>(flag)) == letter;
}

// The QR factorization of a well-conditioned rows x cols matrix by OpenBLAS (A holds R and
// the reflectors, TAU min(rows, cols) scalars): the operands of ORGQR and ORMQR.
template <class T>
Operands<T> qr_factors(int64_t rows, int64_t cols, int64_t lda, Rng& rng) {
    Args args{.m = rows, .n = cols, .lda = lda};
    Operands<T> o;
    o.a = array_of<T>(well_conditioned(rows, cols, kIsComplex<T>, rng), lda);
    o.tau = Array<T>::vector(std::min(rows, cols));
    give_workspaces(workspace_query<Geqrf>(Scheme::standard, args, o), 0, args, o);
    o = run_reference<Geqrf>(Scheme::standard, args, o);
    EXPECT_EQ(o.info, 0) << "OpenBLAS's GEQRF of an operand";
    o.work = Array<T>();
    return o;
}

// SYEVD / HEEVD take LIWORK, and for complex LRWORK; SYEV / HEEV a fixed RWORK.
template <class R, class T>
Args eigen_args(const char* flags, int64_t n, int64_t lda) {
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
    o.a = array_of<T>(h, args.lda,
                      [&](int64_t i, int64_t j) { return in_triangle(args.flags[1], i, j); });
    o.values = Array<Real<T>>::vector(n);
    if constexpr (std::is_same_v<R, Syev> && kIsComplex<T>)
        o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, 3 * n - 2));
    query = workspace_query<R>(scheme, args, o);
    give_workspaces(query, extra, args, o);
    return o;
}

template <class T>
void check_eigen(const Dense& h, const Args& args, const Operands<T>& input,
                 const Operands<T>& query, const Pair<T>& p, const std::string& what) {
    const int64_t n = args.n;
    expect_success(p, what);
    EXPECT_EQ(compare_array("W", input.values, p.shim.values, p.ref.values, everywhere,
                            tolerance<T>(n, max_abs(p.ref.values))),
              "")
        << what;
    // A: the eigenvectors (jobz V, checked below) or destroyed (jobz N).
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    if (same_flag(args.flags[0], 'V') && p.shim.info == 0) {
        const Dense v = dense_of(p.shim.a, n, n);
        EXPECT_EQ(ratio_problem("||A V - V diag(w)||",
                                eigen_residual<T>(h, v, values_of(p.shim.values, n))),
                  "")
            << what;
        EXPECT_EQ(ratio_problem("||V^H V - I||", orthogonality<T>(v)), "") << what;
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

// GESVD: jobu / jobvt A (all m or n vectors), S (the first min(m, n)), O (over A), N.
SvdLayout gesvd_layout(char jobu, char jobvt, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    SvdLayout l;
    switch (std::toupper(static_cast<unsigned char>(jobu))) {
        case 'A':
            l.u = {"U", m, m};
            break;
        case 'S':
            l.u = {"U", m, k};
            break;
        case 'O':
            l.u = {"A", m, k};
            break;
        default:
            break;
    }
    switch (std::toupper(static_cast<unsigned char>(jobvt))) {
        case 'A':
            l.vt = {"VT", n, n};
            break;
        case 'S':
            l.vt = {"VT", k, n};
            break;
        case 'O':
            l.vt = {"A", k, n};
            break;
        default:
            break;
    }
    return l;
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

// The operands of an SVD of a: A, S, and U and VT arrays of ldu x (m or min(m, n)) and
// ldvt x n (whether the job writes them or not: then they must stay as they are); RWORK and
// IWORK as the routine needs; the workspace of OpenBLAS's query (`query`), `extra` longer.
template <class R, class T>
Operands<T> svd_operands(const Dense& a, const SvdLayout& layout, Args& args, int64_t extra,
                         Operands<T>& query, Scheme scheme) {
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n), mx = std::max(m, n);
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
    query = workspace_query<R>(scheme, args, o);
    give_workspaces(query, extra, args, o);
    return o;
}

template <class T>
Dense vectors_of(const Operands<T>& o, const Placement& place) {
    const std::string array = place.array;
    const Array<T>& from = array == "U" ? o.u : array == "VT" ? o.vt : o.a;
    return dense_of(from, place.rows, place.cols);
}

template <class T>
void check_svd(const Dense& a, const SvdLayout& layout, const Args& args, const Operands<T>& input,
               const Operands<T>& query, const Pair<T>& p, const std::string& what) {
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    expect_success(p, what);
    EXPECT_EQ(compare_array("S", input.values, p.shim.values, p.ref.values, everywhere,
                            tolerance<T>(std::max(m, n), max_abs(p.ref.values))),
              "")
        << what;
    const auto written_if = [](const Placement& place, const char* array) {
        const bool here = place.array != nullptr && std::string(place.array) == array;
        return here ? anything : nowhere;
    };
    // A: destroyed, or U or VT (checked below).
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << what;
    EXPECT_EQ(compare_array("U", input.u, p.shim.u, p.ref.u, written_if(layout.u, "U"), 0.0), "")
        << what;
    EXPECT_EQ(compare_array("VT", input.vt, p.shim.vt, p.ref.vt, written_if(layout.vt, "VT"), 0.0),
              "")
        << what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    if (p.shim.info != 0) return;
    const std::vector<double> s = values_of(p.shim.values, k);
    const bool has_u = layout.u.array != nullptr, has_vt = layout.vt.array != nullptr;
    const Dense u = has_u ? vectors_of(p.shim, layout.u) : Dense(0, 0);
    const Dense v = has_vt ? adjoint(vectors_of(p.shim, layout.vt)) : Dense(0, 0);
    if (has_u) {
        EXPECT_EQ(ratio_problem("||U^H U - I||", orthogonality<T>(u)), "") << what;
    }
    if (has_vt) {
        EXPECT_EQ(ratio_problem("||VT VT^H - I||", orthogonality<T>(v)), "") << what;
    }
    if (has_u && has_vt) {
        EXPECT_EQ(ratio_problem("||A - U S VT||", svd_residual<T>(a, u, s, adjoint(v))), "")
            << what;
    } else if (has_u) {
        EXPECT_EQ(ratio_problem("||A A^H U - U S^2||",
                                one_sided_residual<T>(a, product(a, adjoint(a)), u, s)),
                  "")
            << what;
    } else if (has_vt) {
        EXPECT_EQ(ratio_problem("||A^H A V - V S^2||",
                                one_sided_residual<T>(a, product(adjoint(a), a), v, s)),
                  "")
            << what;
    }
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class LapackDecomposition : public testing::Test {};
TYPED_TEST_SUITE(LapackDecomposition, Precisions, PrecisionNames);

constexpr int64_t kOrders[] = {1, 7, 33, 70};

struct Shape {
    int64_t m, n;
};
constexpr Shape kQrShapes[] = {{1, 1},   {7, 7}, {33, 33}, {70, 33},
                               {33, 70}, {7, 1}, {1, 7},   {41, 17}};
// 70 x 33: m >= 1.6 n, where GESVD and GESDD first factor A = QR; 24 x 16 not.
constexpr Shape kSvdShapes[] = {{70, 33}, {24, 16}, {16, 16}, {16, 24}, {9, 1}, {1, 9}};

TYPED_TEST(LapackDecomposition, GeqrfMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(41);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (const Shape& shape : kQrShapes) {
            for (int64_t pad : {0, 3}) {
                const int64_t k = std::min(shape.m, shape.n);
                Args args{.m = shape.m, .n = shape.n, .lda = shape.m + pad};
                Operands<T> input;
                input.a =
                    array_of<T>(well_conditioned(shape.m, shape.n, kIsComplex<T>, rng), args.lda);
                input.tau = Array<T>::vector(k);
                const Operands<T> query = workspace_query<Geqrf>(scheme, args, input);
                give_workspaces(query, pad * 4, args, input);
                const Pair<T> p = run_both<Geqrf>(scheme, args, input);
                const std::string what = describe<Geqrf, T>(scheme, args);
                expect_success(p, what);
                EXPECT_EQ(compare_array(
                              "A", input.a, p.shim.a, p.ref.a, everywhere,
                              tolerance<T>(shape.m, std::max(max_abs(input.a), max_abs(p.ref.a)))),
                          "")
                    << what;
                EXPECT_EQ(compare_array("TAU", input.tau, p.shim.tau, p.ref.tau, everywhere,
                                        tolerance<T>(shape.m, 2.0)),
                          "")
                    << what;
                EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
            }
        }
    }
}

// k = n and k < n reflectors; Q's elements are at most 1.
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
            Args args{.m = c.m, .n = c.n, .k = c.k, .lda = c.m + pad};
            Operands<T> input = qr_factors<T>(c.m, c.n, args.lda, rng);
            const Operands<T> query = workspace_query<Orgqr>(scheme, args, input);
            give_workspaces(query, pad * 3, args, input);
            const Pair<T> p = run_both<Orgqr>(scheme, args, input);
            const std::string what = describe<Orgqr, T>(scheme, args);
            expect_success(p, what);
            EXPECT_EQ(
                compare_array("A", input.a, p.shim.a, p.ref.a, everywhere, tolerance<T>(c.m, 1.0)),
                "")
                << what;
            EXPECT_EQ(compare_untouched("TAU", input.tau, p.shim.tau), "") << what;
            EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
        }
    }
}

// Q of order m (side L) or n (side R) from k reflectors; A, which ORMQR changes and
// restores, and TAU stay bit-exact.
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
                    std::string flags{side, trans};
                    if (index++ % 4 == 3) {
                        for (char& f : flags)
                            f = static_cast<char>(std::tolower(static_cast<unsigned char>(f)));
                    }
                    const int64_t nq = side == 'L' ? shape.m : shape.n;
                    const int64_t k = std::max<int64_t>(1, nq - 2 * (index % 3));
                    Args args{.flags = flags,
                              .m = shape.m,
                              .n = shape.n,
                              .k = k,
                              .lda = nq + pad,
                              .ldc = shape.m + 2 * pad};
                    Operands<T> input = qr_factors<T>(nq, k, args.lda, rng);
                    input.c =
                        array_of<T>(random_dense(shape.m, shape.n, kIsComplex<T>, rng), args.ldc);
                    const Operands<T> query = workspace_query<Ormqr>(scheme, args, input);
                    give_workspaces(query, pad, args, input);
                    const Pair<T> p = run_both<Ormqr>(scheme, args, input);
                    const std::string what = describe<Ormqr, T>(scheme, args);
                    expect_success(p, what);
                    EXPECT_EQ(compare_array(
                                  "C", input.c, p.shim.c, p.ref.c, everywhere,
                                  tolerance<T>(nq, std::max(max_abs(input.c), max_abs(p.ref.c)))),
                              "")
                        << what;
                    EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << what;
                    EXPECT_EQ(compare_untouched("TAU", input.tau, p.shim.tau), "") << what;
                    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
                }
            }
        }
    }
}

template <class R, class T>
void eigen_cases(Rng& rng) {
    for (Scheme scheme : schemes_for_workspace_routines()) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (const char* flags : {"VU", "VL", "NU", "NL", "vl", "nu"}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(flags[0]))) continue;
                    const Dense h = random_hermitian(n, kIsComplex<T>, rng);
                    Args args = eigen_args<R, T>(flags, n, n + pad);
                    Operands<T> query;
                    const Operands<T> input = eigen_operands<R, T>(h, args, pad * 2, query, scheme);
                    const Pair<T> p = run_both<R>(scheme, args, input);
                    check_eigen(h, args, input, query, p, describe<R, T>(scheme, args));
                }
            }
        }
    }
}

TYPED_TEST(LapackDecomposition, SyevdMatchesOpenBLAS) {
    Rng rng(44);
    eigen_cases<Syevd, TypeParam>(rng);
}

TYPED_TEST(LapackDecomposition, SyevMatchesOpenBLAS) {
    Rng rng(45);
    eigen_cases<Syev, TypeParam>(rng);
}

template <class R, class T, class Layout>
void svd_case(Scheme scheme, const std::string& flags, const Shape& shape, int64_t pad,
              Layout&& layout_of, Rng& rng) {
    const int64_t m = shape.m, n = shape.n;
    const Dense a = random_dense(m, n, kIsComplex<T>, rng);
    Args args{.flags = flags, .m = m, .n = n, .lda = m + pad, .ldu = m + 2 * pad, .ldvt = n + pad};
    const SvdLayout layout = layout_of(m, n);
    Operands<T> query;
    const Operands<T> input = svd_operands<R, T>(a, layout, args, pad, query, scheme);
    const Pair<T> p = run_both<R>(scheme, args, input);
    check_svd(a, layout, args, input, query, p, describe<R, T>(scheme, args));
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
                    std::string flags{jobu, jobvt};
                    if (index++ % 5 == 4) {
                        for (char& f : flags)
                            f = static_cast<char>(std::tolower(static_cast<unsigned char>(f)));
                    }
                    svd_case<Gesvd, T>(
                        scheme, flags, shape, pad,
                        [&](int64_t m, int64_t n) { return gesvd_layout(jobu, jobvt, m, n); }, rng);
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
                svd_case<Gesdd, T>(
                    scheme, jobz, shape, pad,
                    [&](int64_t m, int64_t n) { return gesdd_layout(jobz[0], m, n); }, rng);
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
                Args args{.flags = jobs,
                          .m = shape.m,
                          .n = shape.n,
                          .lda = shape.m,
                          .ldu = shape.m,
                          .ldvt = shape.n};
                const SvdLayout layout = gesvd_layout(jobs[0], jobs[1], shape.m, shape.n);
                each_query(Gesvd{}, args,
                           svd_operands<Gesvd, T>(a, layout, args, 0, unused, scheme));
            }
            for (const char* jobz : {"A", "O", "N"}) {
                Args args{.flags = jobz,
                          .m = shape.m,
                          .n = shape.n,
                          .lda = shape.m,
                          .ldu = shape.m,
                          .ldvt = shape.n};
                const SvdLayout layout = gesdd_layout(jobz[0], shape.m, shape.n);
                each_query(Gesdd{}, args,
                           svd_operands<Gesdd, T>(a, layout, args, 0, unused, scheme));
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
    const std::string why = "(small workspace)";
    for (Scheme scheme : schemes_for_workspace_routines()) {
        // `lwork` and the optimum less one, where below the optimum; likewise LRWORK, LIWORK
        const auto small = [&](auto routine, Args args, Operands<T> input, int64_t lwork,
                               int64_t lrwork = 0, int64_t liwork = 0) {
            using R = decltype(routine);
            const Operands<T> query = workspace_query<R>(scheme, args, input);
            give_workspaces(query, 0, args, input);
            const auto below = [&](auto size, auto array, int64_t minimum, int64_t optimal) {
                for (int64_t value : {minimum, optimal - 1}) {
                    if (value < minimum || value >= optimal) continue;
                    Args a = args;
                    Operands<T> o = input;
                    (a.*size) = value;
                    (o.*array) = std::decay_t<decltype(o.*array)>::vector(value);
                    expect_exactly_openblas<R>(scheme, a, o, why);
                }
            };
            below(&Args::lwork, &Operands<T>::work, lwork, workspace_size(query.work));
            if (args.lrwork != kUnset)
                below(&Args::lrwork, &Operands<T>::rwork, lrwork, workspace_size(query.rwork));
            if (args.liwork != kUnset)
                below(&Args::liwork, &Operands<T>::iwork, liwork, workspace_size(query.iwork));
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
                small(Syevd{}, args, syevd, vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1, 0,
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
                Args args{.flags = jobs,
                          .m = shape.m,
                          .n = shape.n,
                          .lda = shape.m,
                          .ldu = shape.m,
                          .ldvt = shape.n};
                const SvdLayout layout = gesvd_layout(jobs[0], jobs[1], shape.m, shape.n);
                small(Gesvd{}, args, svd_operands<Gesvd, T>(a, layout, args, 0, unused, scheme),
                      kIsComplex<T> ? 2 * k + mx : std::max(3 * k + mx, 5 * k));
            }
            for (const char* jobz : {"A", "S", "O", "N"}) {
                Args args{.flags = jobz,
                          .m = shape.m,
                          .n = shape.n,
                          .lda = shape.m,
                          .ldu = shape.m,
                          .ldvt = shape.n};
                const SvdLayout layout = gesdd_layout(jobz[0], shape.m, shape.n);
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
                small(Gesdd{}, args, svd_operands<Gesdd, T>(a, layout, args, 0, unused, scheme),
                      lwork);
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
            expect_rejected_as_by_openblas<Ormqr>(scheme,
                                                  Args{.flags = flags,
                                                       .m = m,
                                                       .n = nn,
                                                       .k = k,
                                                       .lda = lda,
                                                       .ldc = ldc,
                                                       .lwork = lwork},
                                                  qr, info);
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
        const auto gesvd = [&](const char* jobs, int64_t m, int64_t nn, int64_t lda, int64_t ldu,
                               int64_t ldvt, int64_t lwork, int64_t info) {
            expect_rejected_as_by_openblas<Gesvd>(scheme,
                                                  Args{.flags = jobs,
                                                       .m = m,
                                                       .n = nn,
                                                       .lda = lda,
                                                       .ldu = ldu,
                                                       .ldvt = ldvt,
                                                       .lwork = lwork},
                                                  svd, info);
        };
        gesvd("XA", n, n, n, n, n, big, -1);
        gesvd("AX", n, n, n, n, n, big, -2);
        gesvd("OO", n, n, n, n, n, big, -2);  // U and VT cannot both overwrite A
        gesvd("AA", -1, n, n, n, n, big, -3);
        gesvd("AA", n, -1, n, n, n, big, -4);
        gesvd("SS", n, n, n - 1, n, n, big, -6);
        gesvd("AN", n, n, n, n - 1, n, big, -9);
        gesvd("NA", n, n, n, n, n - 1, big, -11);
        gesvd("AA", n, n, n, n, n, 1, -13);
        const auto gesdd = [&](const char* jobz, int64_t m, int64_t nn, int64_t lda, int64_t ldu,
                               int64_t ldvt, int64_t lwork, int64_t info) {
            expect_rejected_as_by_openblas<Gesdd>(scheme,
                                                  Args{.flags = jobz,
                                                       .m = m,
                                                       .n = nn,
                                                       .lda = lda,
                                                       .ldu = ldu,
                                                       .ldvt = ldvt,
                                                       .lwork = lwork},
                                                  svd, info);
        };
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
        // Compared bit for bit but for WORK, RWORK, IWORK (check_workspaces()).
        const auto empty = [&](auto routine, Args args, Operands<T> input) {
            using R = decltype(routine);
            const Operands<T> query = workspace_query<R>(scheme, args, input);
            give_workspaces(query, 1, args, input);
            const Pair<T> p = run_both<R>(scheme, args, input);
            const std::string what = describe<R, T>(scheme, args) + " (empty)";
            expect_success(p, what);
            Pair<T> rest = p;
            for (Operands<T>* o : {&rest.shim, &rest.ref}) {
                o->work = Array<T>();
                o->rwork = Array<Real<T>>();
                o->iwork = Array<int64_t>();
            }
            EXPECT_EQ(compare_exact(rest), "") << what;
            EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
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
            const Args args{.m = shape.m,
                            .n = shape.n,
                            .lda = lda,
                            .ldu = lda,
                            .ldvt = std::max<int64_t>(shape.n, 1)};
            for (const char* jobs : {"AA", "SN"}) {
                Args gesvd = args;
                gesvd.flags = jobs;
                empty(Gesvd{}, gesvd, matrix(shape.m, shape.n, lda));
            }
            for (const char* jobz : {"A", "N"}) {
                Args gesdd = args;
                gesdd.flags = jobz;
                empty(Gesdd{}, gesdd, matrix(shape.m, shape.n, lda));
            }
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
    {
        Args args{.m = n, .n = n, .lda = lda};
        Operands<T> input;
        input.a = array_of<T>(well_conditioned(n, n, kIsComplex<T>, rng), lda);
        input.tau = Array<T>::vector(n);
        const Operands<T> query = workspace_query<Geqrf>(scheme, args, input);
        give_workspaces(query, 0, args, input);
        const Pair<T> p = run_both<Geqrf>(scheme, args, input);
        const std::string what = describe<Geqrf, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere,
                                tolerance<T>(n, std::max(max_abs(input.a), max_abs(p.ref.a)))),
                  "")
            << what;
        EXPECT_EQ(compare_array("TAU", input.tau, p.shim.tau, p.ref.tau, everywhere,
                                tolerance<T>(n, 2.0)),
                  "")
            << what;
        EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    }
    const Operands<T> qr = qr_factors<T>(n, n, lda, rng);
    {
        Args args{.m = n, .n = n, .k = n, .lda = lda};
        Operands<T> input = qr;
        const Operands<T> query = workspace_query<Orgqr>(scheme, args, input);
        give_workspaces(query, 0, args, input);
        const Pair<T> p = run_both<Orgqr>(scheme, args, input);
        const std::string what = describe<Orgqr, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, everywhere, tolerance<T>(n, 1.0)),
                  "")
            << what;
        EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    }
    {
        Args args{
            .flags = kIsComplex<T> ? "LC" : "LT", .m = n, .n = 30, .k = n, .lda = lda, .ldc = n};
        Operands<T> input = qr;
        input.c = array_of<T>(random_dense(n, 30, kIsComplex<T>, rng), n);
        const Operands<T> query = workspace_query<Ormqr>(scheme, args, input);
        give_workspaces(query, 0, args, input);
        const Pair<T> p = run_both<Ormqr>(scheme, args, input);
        const std::string what = describe<Ormqr, T>(scheme, args);
        expect_success(p, what);
        EXPECT_EQ(compare_array("C", input.c, p.shim.c, p.ref.c, everywhere,
                                tolerance<T>(n, std::max(max_abs(input.c), max_abs(p.ref.c)))),
                  "")
            << what;
        EXPECT_EQ(compare_untouched("A", input.a, p.shim.a), "") << what;
        EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    }
    const Dense h = random_hermitian(n, kIsComplex<T>, rng);
    {
        Args args = eigen_args<Syevd, T>("VL", n, lda);
        Operands<T> query;
        const Operands<T> input = eigen_operands<Syevd, T>(h, args, 0, query, scheme);
        const Pair<T> p = run_both<Syevd>(scheme, args, input);
        check_eigen(h, args, input, query, p, describe<Syevd, T>(scheme, args));
    }
    {
        Args args = eigen_args<Syev, T>("VU", n, lda);
        Operands<T> query;
        const Operands<T> input = eigen_operands<Syev, T>(h, args, 0, query, scheme);
        const Pair<T> p = run_both<Syev>(scheme, args, input);
        check_eigen(h, args, input, query, p, describe<Syev, T>(scheme, args));
    }
    svd_case<Gesvd, T>(
        scheme, "SS", Shape{n, n}, 1,
        [](int64_t m, int64_t cols) { return gesvd_layout('S', 'S', m, cols); }, rng);
    svd_case<Gesdd, T>(
        scheme, "A", Shape{n, n}, 1,
        [](int64_t m, int64_t cols) { return gesdd_layout('A', m, cols); }, rng);
}

}  // namespace

// The shim reads its configuration once, at its first call: start_harness() sets it before
// any test runs.
int main(int argc, char** argv) {
    if (const int status = start_harness(argc, argv, "lapack_decomposition_vs_cpu_test",
                                         GPUSHIM_TEST_OPENBLAS_PATH, GPUSHIM_TEST_OPENBLAS64_PATH);
        status != 0)
        return status;
    std::printf("lapack_decomposition_vs_cpu_test: CPU symbols for the 64_ names: %s\n",
                cpu_has_64bit_lapack() ? "found" : "none");
    return RUN_ALL_TESTS();
}
