// The shim's eigenproblem and least-squares routines ({s,d}syevr / {c,z}heevr, {s,d}sygvd /
// {c,z}hegvd, {s,d}sygv / {c,z}hegv, {s,d,c,z}geev, {s,d,c,z}gels) against OpenBLAS called
// directly, through the real exported entry points of libgpushim.so: standard names and 64_ names
// (the reference then is Debian's ILP64 OpenBLAS); not the scipy_ names, whose CPU symbols exist
// only inside a pip wheel: the shim asks the CPU library's workspace query before it offloads any
// of these routines. CTest runs the program with forced offload, with faults injected, with a small
// device and with the shim disabled (tests/unit/lapack_routines_vs_cpu.cmake); the checks hold
// wherever a call ran.
//
// Checked, in every precision, with leading dimensions equal to the rows or larger and
// upper- and lower-case flags (an offloaded result may differ from OpenBLAS's within a bound,
// and its eigenvectors by sign or phase; what runs on the CPU is OpenBLAS's bit for bit):
//  - SYEVR / HEEVR, jobz N and V, uplo U and L (the other triangle NaN: not to be read),
//    range A, V (an interval inside the spectrum, around all of it, inside one gap: M = 0)
//    and I (all, inside, one): the interval ends lie in the middle of gaps between
//    eigenvalues, so that M is OpenBLAS's; W(1:M) within 32 (n + 4) eps ||A||_2; Z(:, 1:M)
//    with ||A Z - Z diag(w)||_F / (n eps ||A||_F) below kResidualLimit and
//    ||Z^H Z - I||_F / (n eps) below it or twice OpenBLAS's; Z's columns past max(1, M)
//    untouched (a Z of exactly max(1, M) columns for some intervals; LAPACK sets Z(1, 1) = 1
//    for n = 1 even when M = 0); W past M and A's uplo triangle unspecified (LAPACK's
//    workspace); ISUPPZ, for the full spectrum with vectors, each vector's support in Z or
//    OpenBLAS's (see check_support()), else not checked; VL, VU, IL, IU NaN or invalid where
//    the range does not reference them, ABSTOL 0 or -1 (LAPACK's default accuracy);
//  - SYGVD / HEGVD and SYGV / HEGV, itype 1, 2, 3, jobz N and V, uplo U and L on A
//    Hermitian and B positive definite (other triangles NaN): W within bound; jobz V: the
//    residual of the itype's equation and Z's B-normalization (Z^H B Z = I; itype 3:
//    Z^H B^-1 Z = I); B's uplo triangle OpenBLAS's Cholesky factor within bound, the other
//    untouched; a B that is not positive definite: INFO = n + k and everything else as
//    OpenBLAS's, bit for bit;
//  - GEEV, every jobvl x jobvr: jobvl N (offloaded): A = X D X^-1 with X well conditioned
//    (every eigenvalue's condition number below 4) and eigenvalues whose real parts lie
//    at least 2 / n apart but for conjugate pairs: the eigenvalues OpenBLAS's as a multiset (each
//    matched with the nearest) within 32 (n + 4) eps 4 ||A||_F; real: conjugate pairs
//    adjacent, positive imaginary part first; each right eigenvector (LAPACK's real pair
//    convention) with ||A v - l v||_2 / (n eps ||A||_F) below kResidualLimit, of unit 2-norm
//    with its largest component real; VL untouched; jobvl V (the CPU): OpenBLAS's bit for bit;
//  - GELS, trans N with m >= n (offloaded): X within bound, for m > n the residual rows' norm
//    per column within bound, |R(i, i)| in A within bound; trans T / C, m < n, a zero
//    column (INFO > 0), A = 0, A or B scaled beyond LAPACK's [smlnum, bignum] (rescaled by
//    LAPACK): OpenBLAS's bit for bit;
//  - everywhere: INFO = 0; padding and guard elements after every array bit-exact; WORK(1)
//    (and RWORK(1), IWORK(1)) OpenBLAS's workspace query answer (or, run on the CPU, what
//    OpenBLAS's call stores);
//  - workspace queries (LWORK, LRWORK or LIWORK = -1) and valid workspaces below the optimal
//    ones: OpenBLAS's results bit for bit;
//  - invalid arguments: OpenBLAS's INFO < 0 and xerbla message, the arrays untouched;
//  - empty problems (n = 0; GELS: m, n or nrhs 0, where LAPACK zeroes B);
//  - n = 230 (too large for the small_device variant's device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lapack_test_harness.h"
#include "shim_test_harness.h"

namespace {

using namespace gpushim::test_harness;          // NOLINT(google-build-using-namespace)
using namespace gpushim::test_harness::lapack;  // NOLINT(google-build-using-namespace)

// --- Routines -----------------------------------------------------------------------------
// {s,d}syevr, {c,z}heevr (with RWORK and LRWORK). M is Operands::found.
struct Syevr : Named<"syevr", "heevr"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        using R = Real<T>;
        const R vl = static_cast<R>(x.vl), vu = static_cast<R>(x.vu),
                abstol = static_cast<R>(x.abstol);
        IntArgument<I> isuppz(o.isuppz);
        IntArgument<I> iwork(o.iwork);
        call_fortran(fn, x.flag(0), x.flag(1), x.flag(2), &i.n, o.a.data(), &i.lda, &vl, &vu, &i.il,
                     &i.iu, &abstol, &i.found, o.values.data(), o.z.data(), &i.ldz, isuppz.data(),
                     o.work.data(), &i.lwork, only_complex<T>(o.rwork.data(), &i.lrwork),
                     iwork.data(), &i.liwork, &i.info, kFlag, kFlag, kFlag);
    }
};

// {s,d}sygvd, {c,z}hegvd (with RWORK and LRWORK).
struct Sygvd : Named<"sygvd", "hegvd"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> iwork(o.iwork);
        call_fortran(fn, &i.itype, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, o.b.data(),
                     &i.ldb, o.values.data(), o.work.data(), &i.lwork,
                     only_complex<T>(o.rwork.data(), &i.lrwork), iwork.data(), &i.liwork, &i.info,
                     kFlag, kFlag);
    }
};

// {s,d}sygv, {c,z}hegv (with RWORK of 3n - 2 elements).
struct Sygv : Named<"sygv", "hegv"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, &i.itype, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, o.b.data(),
                     &i.ldb, o.values.data(), o.work.data(), &i.lwork,
                     only_complex<T>(o.rwork.data()), &i.info, kFlag, kFlag);
    }
};

// Both drivers of the generalized problem, one after the other.
template <class Visit>
void for_each_generalized_driver(Visit&& visit) {
    visit(Sygvd{});
    visit(Sygv{});
}

// Real: WR in Operands::values, WI in wi; complex: W in w_complex, with RWORK of 2n
// elements. VR is Operands::z.
struct Geev : Named<"geev"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(
            fn, x.flag(0), x.flag(1), &i.n, o.a.data(), &i.lda, only_complex<T>(o.w_complex.data()),
            only_real<T>(o.values.data(), o.wi.data()), o.vl.data(), &i.ldvl, o.z.data(), &i.ldvr,
            o.work.data(), &i.lwork, only_complex<T>(o.rwork.data()), &i.info, kFlag, kFlag);
    }
};

struct Gels : Named<"gels"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), &i.m, &i.n, &i.nrhs, o.a.data(), &i.lda, o.b.data(), &i.ldb,
                     o.work.data(), &i.lwork, &i.info, kFlag);
    }
};

// --- Checks -------------------------------------------------------------------------------
// The inverse by Gauss-Jordan elimination with partial pivoting (of well-conditioned
// matrices only).
Dense inverse(Dense a) {
    const int64_t n = a.rows;
    Dense x = identity(n);
    for (int64_t k = 0; k < n; ++k) {
        int64_t pivot = k;
        for (int64_t i = k + 1; i < n; ++i)
            if (std::abs(a(i, k)) > std::abs(a(pivot, k))) pivot = i;
        for (int64_t j = 0; j < n; ++j) {
            std::swap(a(k, j), a(pivot, j));
            std::swap(x(k, j), x(pivot, j));
        }
        const c64 d = a(k, k);
        for (int64_t j = 0; j < n; ++j) {
            a(k, j) /= d;
            x(k, j) /= d;
        }
        for (int64_t i = 0; i < n; ++i) {
            const c64 f = a(i, k);
            if (i == k || f == 0.0) continue;
            for (int64_t j = 0; j < n; ++j) {
                a(i, j) -= f * a(k, j);
                x(i, j) -= f * x(k, j);
            }
        }
    }
    return x;
}

// Region of an array whose rows (or columns) below `count` hold results checked apart and
// whose others must stay as they were.
auto first_columns(int64_t count) {
    return
        [count](int64_t, int64_t j) { return j < count ? Region::unspecified : Region::untouched; };
}
// The uplo triangle destroyed (LAPACK's workspace), the other not to be written.
auto triangle_destroyed(char uplo) {
    return triangle_region(uplo, /*diagonal=*/true, Region::unspecified);
}

// --- SYEVR / HEEVR ------------------------------------------------------------------------

// SYEVR's operands: A (uplo triangle), W, Z of z_columns columns (jobz N: one element, not
// referenced), ISUPPZ; the workspaces of OpenBLAS's query (`query`), `extra` elements longer.
template <class T>
Operands<T> syevr_operands(const Dense& h, Args& args, int64_t z_columns, int64_t extra,
                           Operands<T>& query, Scheme scheme) {
    const int64_t n = h.rows;
    const bool vectors = same_flag(args.flags[0], 'V');
    args.liwork = 0;  // set from the query's answers
    if constexpr (kIsComplex<T>) args.lrwork = 0;
    Operands<T> o;
    o.a = triangle_of<T>(h, args.flags[2], args.lda);
    o.values = Array<Real<T>>::vector(n);
    o.z = vectors ? Array<T>(n, z_columns, args.ldz) : Array<T>(1, 1, args.ldz);
    o.isuppz = Array<int64_t>::vector(2 * std::max<int64_t>(1, z_columns));
    return with_queried_workspaces<Syevr>(scheme, args, o, extra, query);
}

// The eigenvalues of h (in T's precision), ascending, by OpenBLAS.
template <class T>
std::vector<double> spectrum(const Dense& h) {
    Args args{.flags = "NAU", .n = h.rows, .lda = std::max<int64_t>(h.rows, 1), .ldz = 1};
    Operands<T> query;
    const Operands<T> o = run_reference<Syevr>(
        Scheme::standard, args, syevr_operands<T>(h, args, 1, 0, query, Scheme::standard));
    EXPECT_EQ(o.info, 0) << "OpenBLAS's eigenvalues of an operand";
    return values_of(o.values, h.rows);
}

// The widest gap between consecutive eigenvalues w[after] < w[after + 1] with `after` within
// 3 of `near` and at least `from` (-1: below the spectrum; n - 1: above it), where an
// interval end lies far from every eigenvalue.
struct Gap {
    int64_t after = -2;
    double middle = 0.0, half = -1.0;
};
Gap widest_gap(const std::vector<double>& w, int64_t near, int64_t from = -1) {
    const auto n = static_cast<int64_t>(w.size());
    const auto at = [&w](int64_t i) { return w[static_cast<std::size_t>(i)]; };
    Gap best;
    for (int64_t i = std::max(from, near - 3); i <= std::min(n - 1, std::max(from, near + 3));
         ++i) {
        const double below = i >= 0 ? at(i) : at(0) - 2.0;
        const double above = i + 1 < n ? at(i + 1) : at(n - 1) + 2.0;
        if ((above - below) / 2 > best.half) best = {i, (above + below) / 2, (above - below) / 2};
    }
    return best;
}

// One SYEVR call's range and what it finds.
struct Selection {
    char range;
    double vl, vu;   // NaN: not referenced
    int64_t il, iu;  // invalid where not referenced
    int64_t count;   // M
};

// Ranges V: inside the spectrum, around all of it, inside one gap; I: all, inside, one.
std::vector<Selection> selections(const std::vector<double>& w) {
    const auto n = static_cast<int64_t>(w.size());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Gap low = widest_gap(w, n / 4 - 1);
    const Gap high = widest_gap(w, (3 * n) / 4, low.after + 1);  // at least one inside
    const Gap middle = widest_gap(w, n / 2);
    std::vector<Selection> s = {
        {'A', nan, nan, 0, -1, n},
        {'V', low.middle, high.middle, 0, -1, high.after - low.after},
        {'V', w.front() - 1.0, w.back() + 1.0, 0, -1, n},
        {'V', middle.middle - middle.half / 2, middle.middle + middle.half / 2, 0, -1, 0},
        {'I', nan, nan, 1, n, n},
        {'I', nan, nan, (n + 3) / 4, (3 * n + 3) / 4, (3 * n + 3) / 4 - (n + 3) / 4 + 1},
        {'I', nan, nan, (n + 1) / 2, (n + 1) / 2, 1}};
    return s;
}

// The full spectrum, where LAPACK (and the shim) set ISUPPZ.
bool full_spectrum(const Args& args) {
    return same_flag(args.flags[1], 'A') ||
           (same_flag(args.flags[1], 'I') && args.il == 1 && args.iu == args.n);
}

// ISUPPZ of the full spectrum with vectors, each vector's pair (first, last row): the
// support of the shim's Z(:, j) (an offloaded call: (1, n) for a dense matrix) or
// OpenBLAS's (a call run on the CPU). They differ: DSTEMR's supports are those of the
// tridiagonal matrix's eigenvectors, narrower than Z's after the back-transformation (at
// n = 33 OpenBLAS gives (2, 32) for eigenvectors whose every component is nonzero). Empty:
// one or the other for every vector.
template <class T>
std::string check_support(const Array<T>& z, const Array<int64_t>& isuppz,
                          const Array<int64_t>& ref, int64_t n, int64_t m) {
    for (int64_t j = 0; j < m; ++j) {
        int64_t first = 0, last = n - 1;
        while (first < last && z.at(first, j) == T{}) ++first;
        while (last > first && z.at(last, j) == T{}) --last;
        const auto at = [j](const Array<int64_t>& a, int64_t k) {
            return a.v[static_cast<std::size_t>(2 * j + k)];
        };
        const bool support = at(isuppz, 0) == first + 1 && at(isuppz, 1) == last + 1;
        const bool openblas = at(isuppz, 0) == at(ref, 0) && at(isuppz, 1) == at(ref, 1);
        if (!support && !openblas) {
            std::ostringstream s;
            s << "ISUPPZ of vector " << j + 1 << ": (" << at(isuppz, 0) << ", " << at(isuppz, 1)
              << "), neither its support (" << first + 1 << ", " << last + 1 << ") nor OpenBLAS's ("
              << at(ref, 0) << ", " << at(ref, 1) << ")";
            return s.str();
        }
    }
    return "";
}

// `norm2` is ||A||_2, the largest eigenvalue magnitude.
template <class T>
void check_syevr(const Dense& h, double norm2, const Args& args, int64_t count,
                 const Operands<T>& input, const Operands<T>& query, const Pair<T>& p) {
    const int64_t n = args.n;
    const std::string& what = p.what;
    expect_success(p);
    EXPECT_EQ(p.ref.found, count) << what << ": OpenBLAS (the test's interval)";
    EXPECT_EQ(p.shim.found, p.ref.found) << what << ": M";
    if (p.shim.found != p.ref.found || p.shim.info != 0) return;
    const int64_t m = p.ref.found;
    const bool vectors = same_flag(args.flags[0], 'V');
    // W past M: LAPACK's workspace.
    EXPECT_EQ(
        compare_array(
            "W", input.values, p.shim.values, p.ref.values,
            [m](int64_t i, int64_t) { return i < m ? Region::compared : Region::unspecified; },
            tolerance<T>(n, norm2)),
        "")
        << what;
    EXPECT_EQ(
        compare_array("A", input.a, p.shim.a, p.ref.a, triangle_destroyed(args.flags[2]), 0.0), "")
        << what;
    EXPECT_EQ(compare_array("Z", input.z, p.shim.z, p.ref.z,
                            first_columns(vectors ? std::max<int64_t>(1, m) : 0), 0.0),
              "")
        << what;
    EXPECT_EQ(compare_array("ISUPPZ", input.isuppz, p.shim.isuppz, p.ref.isuppz, anything, 0.0), "")
        << what;
    if (vectors && full_spectrum(args)) {
        EXPECT_EQ(check_support(p.shim.z, p.shim.isuppz, p.ref.isuppz, n, m), "") << what;
    }
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    if (vectors && m > 0) {
        const Dense z = dense_of(p.shim.z, n, m);
        const Dense r = difference(product(h, z), scaled_columns(z, values_of(p.shim.values, m)));
        EXPECT_EQ(
            ratio_problem("||A Z - Z diag(w)||",
                          frobenius(r) / (static_cast<double>(n) * epsilon<T>() * frobenius(h))),
            "")
            << what;
        // MRRR (DSTEMR) keeps orthogonality to O(n eps) with a larger constant than the
        // limit's (OpenBLAS's own vectors reach 41 at n = 33): no worse than twice OpenBLAS's.
        const Dense zr = dense_of(p.ref.z, n, m);
        const double ref = identity_ratio<T>(product(adjoint(zr), zr), n);
        const double ratio = identity_ratio<T>(product(adjoint(z), z), n);
        EXPECT_LT(ratio, std::max(kResidualLimit, 2.0 * ref))
            << what << ": ||Z^H Z - I|| / (n eps); OpenBLAS's " << ref;
    }
}

template <class T>
void syevr_case(Scheme scheme, const Dense& h, const std::vector<double>& w, const Selection& s,
                const std::string& flags, int64_t pad, int64_t abstol_sign) {
    const int64_t n = h.rows;
    const bool vectors = same_flag(flags[0], 'V');
    Args args{.flags = flags, .n = n, .lda = n + pad};
    args.il = s.il;
    args.iu = s.iu;
    args.vl = s.vl;
    args.vu = s.vu;
    // ABSTOL <= 0 asks for LAPACK's default accuracy, which the device gives.
    args.abstol = static_cast<double>(abstol_sign);
    args.ldz = vectors ? n + pad : 1 + pad;
    // Z: room for the largest M of the range (n for V), or exactly M columns.
    int64_t columns = s.range == 'I' ? s.iu - s.il + 1 : n;
    if (s.range == 'V' && pad > 0) columns = std::max<int64_t>(1, s.count);
    Operands<T> query;
    const Operands<T> input = syevr_operands<T>(h, args, columns, pad, query, scheme);
    const Pair<T> p = run_both<Syevr>(scheme, args, input);
    const double norm2 = std::max(std::abs(w.front()), std::abs(w.back()));
    check_syevr(h, norm2, args, s.count, input, query, p);
}

// --- SYGVD / HEGVD, SYGV / HEGV -----------------------------------------------------------
// A and B's uplo triangles (the other NaN), W; for HEGV its RWORK; the workspaces of
// OpenBLAS's query.
template <class R, class T>
Operands<T> generalized_operands(const Dense& a, const Dense& b, Args& args, int64_t extra,
                                 Operands<T>& query, Scheme scheme) {
    Operands<T> o;
    if constexpr (std::is_same_v<R, Sygvd>) {  // set from the query's answers
        args.liwork = 0;
        if constexpr (kIsComplex<T>) args.lrwork = 0;
    } else if constexpr (kIsComplex<T>) {
        o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, 3 * a.rows - 2));
    }
    o.a = triangle_of<T>(a, args.flags[1], args.lda);
    o.b = triangle_of<T>(b, args.flags[1], args.ldb);
    o.values = Array<Real<T>>::vector(a.rows);
    return with_queried_workspaces<R>(scheme, args, o, extra, query);
}

// The itype's residual over n eps times its terms' norms (LAPACK's xSGT01), and Z's
// normalization (Z^H B Z = I; itype 3: Z^H B^-1 Z = I) over n eps.
template <class T>
void check_generalized_vectors(const Dense& a, const Dense& b, int64_t itype, const Dense& z,
                               const std::vector<double>& w, const std::string& what) {
    const int64_t n = a.rows;
    const double scale = static_cast<double>(n) * epsilon<T>() * frobenius(z);
    double ratio = 0.0;
    if (itype == 1) {
        const Dense r = difference(product(a, z), scaled_columns(product(b, z), w));
        const double largest = std::max(std::abs(w.front()), std::abs(w.back()));
        ratio = frobenius(r) / (scale * (frobenius(a) + frobenius(b) * largest));
    } else {
        const Dense left = itype == 2 ? product(a, product(b, z)) : product(b, product(a, z));
        ratio = frobenius(difference(left, scaled_columns(z, w))) /
                (scale * frobenius(a) * frobenius(b));
    }
    EXPECT_EQ(ratio_problem("generalized eigen residual", ratio), "") << what;
    const Dense metric = itype == 3 ? inverse(b) : b;
    EXPECT_EQ(ratio_problem("||Z^H B Z - I|| (itype 3: B^-1)",
                            identity_ratio<T>(product(adjoint(z), product(metric, z)), n)),
              "")
        << what;
}

template <class R, class T>
void generalized_case(Scheme scheme, const Dense& a, const Dense& b, int64_t itype,
                      const std::string& flags, int64_t pad) {
    const int64_t n = a.rows;
    Args args{.flags = flags, .n = n, .lda = n + pad, .ldb = n + 2 * pad};
    args.itype = itype;
    Operands<T> query;
    const Operands<T> input = generalized_operands<R, T>(a, b, args, pad, query, scheme);
    const Pair<T> p = run_both<R>(scheme, args, input);
    const std::string& what = p.what;
    expect_success(p);
    const bool vectors = same_flag(flags[0], 'V');
    const char uplo = flags[1];
    // |dw| <~ eps ||A|| ||B|| ||B^-1||, below 4 eps max|w| for these B (eigenvalues in [1, 4]).
    EXPECT_EQ(compare_array("W", input.values, p.shim.values, p.ref.values, everywhere,
                            tolerance<T>(n, 4.0 * max_abs(p.ref.values))),
              "")
        << what;
    // A: the eigenvectors (jobz V, checked below) or its uplo triangle destroyed.
    if (vectors) {
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << what;
    } else {
        EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, triangle_destroyed(uplo), 0.0), "")
            << what;
    }
    EXPECT_EQ(compare_array(
                  "B (Cholesky factor)", input.b, p.shim.b, p.ref.b,
                  [uplo](int64_t i, int64_t j) {
                      return in_triangle(uplo, i, j) ? Region::compared : Region::untouched;
                  },
                  tolerance<T>(n, max_abs(p.ref.b))),
              "")
        << what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    if (vectors && p.shim.info == 0 && n > 0)
        check_generalized_vectors<T>(a, b, itype, dense_of(p.shim.a, n, n),
                                     values_of(p.shim.values, n), what);
}

// --- GEEV ---------------------------------------------------------------------------------
// X D X^-1, X well conditioned (cond < 4: every eigenvalue's condition number is below 4).
// D's eigenvalues have real parts in (-1, 1), 2 / (number of groups) apart, one group a real
// eigenvalue or (real matrices, every third group) a conjugate pair re +- i im with
// im in [0.3, 0.8]; complex matrices: imaginary parts in [-1, 1].
Dense nonsymmetric(int64_t n, bool complex, Rng& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<int64_t> groups;
    for (int64_t covered = 0; covered < n;) {
        const bool pair = !complex && groups.size() % 3 == 1 && covered + 1 < n;
        groups.push_back(pair ? 2 : 1);
        covered += groups.back();
    }
    const auto count = static_cast<double>(groups.size());
    Dense d(n, n);
    int64_t at = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const double re = -1.0 + 2.0 * (static_cast<double>(g) + 0.75) / count;
        if (groups[g] == 2) {
            const double im = 0.55 + 0.25 * u(rng);
            d(at, at) = d(at + 1, at + 1) = re;
            d(at, at + 1) = im;
            d(at + 1, at) = -im;
        } else {
            d(at, at) = c64(re, complex ? u(rng) : 0.0);
        }
        at += groups[g];
    }
    const Dense x = well_conditioned(n, n, complex, rng);
    return product(product(x, d), inverse(x));
}

template <class T>
std::vector<c64> eigenvalues_of(const Operands<T>& o, int64_t n) {
    std::vector<c64> l(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < l.size(); ++i) {
        if constexpr (kIsComplex<T>)
            l[i] = c64(o.w_complex.v[i]);
        else
            l[i] = c64(o.values.v[i], o.wi.v[i]);
    }
    return l;
}

// Each of OpenBLAS's eigenvalues matched with the nearest of the shim's not yet matched
// (unambiguous: the eigenvalues lie much farther apart than the tolerance). Empty: all
// matched within tol.
std::string compare_eigenvalue_sets(const std::vector<c64>& shim, const std::vector<c64>& ref,
                                    double tol) {
    std::vector<bool> taken(shim.size(), false);
    for (const c64& l : ref) {
        std::size_t best = shim.size();
        for (std::size_t i = 0; i < shim.size(); ++i) {
            if (!taken[i] &&
                (best == shim.size() || std::abs(shim[i] - l) < std::abs(shim[best] - l)))
                best = i;
        }
        if (best == shim.size() || !(std::abs(shim[best] - l) <= tol)) {
            std::ostringstream s;
            s << "OpenBLAS's eigenvalue " << l << " has no match within " << tol;
            if (best != shim.size()) s << " (nearest " << shim[best] << ")";
            return s.str();
        }
        taken[best] = true;
    }
    return "";
}

// LAPACK's order for real matrices: a conjugate pair's eigenvalues adjacent, the one with the
// positive imaginary part first. Empty: as LAPACK orders them.
std::string check_pairs(const std::vector<c64>& l, double tol) {
    for (std::size_t j = 0; j < l.size(); ++j) {
        if (l[j].imag() == 0.0) continue;
        std::ostringstream s;
        if (l[j].imag() < 0.0 || j + 1 == l.size() || std::abs(l[j + 1] - std::conj(l[j])) > tol) {
            s << "eigenvalue " << j + 1 << " = " << l[j]
              << " does not start a conjugate pair (positive imaginary part, then its conjugate)";
            return s.str();
        }
        ++j;
    }
    return "";
}

// The right eigenvectors: the residual ||A v - l v||_2 / (n eps ||A||_F), unit 2-norm, the
// largest component real (up to rounding: one of those within tol of the largest).
template <class T>
void check_right_vectors(const Dense& a, const Operands<T>& o, const std::vector<c64>& l,
                         const std::string& what) {
    const int64_t n = a.rows;
    const double tol = tolerance<T>(n, 1.0), unit = static_cast<double>(n) * epsilon<T>();
    for (int64_t j = 0; j < n; ++j) {
        const auto J = static_cast<std::size_t>(j);
        Dense v(n, 1);
        // Real matrices: columns j and j + 1 hold the real and imaginary parts of the first
        // vector of a pair; the second's is its conjugate (not checked apart).
        const bool pair = !kIsComplex<T> && l[J].imag() != 0.0 && j + 1 < n;
        for (int64_t i = 0; i < n; ++i)
            v(i, 0) = pair ? c64(std::real(o.z.at(i, j)), std::real(o.z.at(i, j + 1)))
                           : c64(o.z.at(i, j));
        const std::string which = what + ": eigenvector " + std::to_string(j + 1);
        Dense r = product(a, v);
        for (int64_t i = 0; i < n; ++i) r(i, 0) -= l[J] * v(i, 0);
        EXPECT_EQ(ratio_problem("||A v - l v||", frobenius(r) / (unit * frobenius(a))), "")
            << which;
        EXPECT_EQ(ratio_problem("| ||v|| - 1 |", std::abs(frobenius(v) - 1.0) / unit), "") << which;
        double largest = 0.0;
        for (const c64& x : v.v) largest = std::max(largest, std::abs(x));
        const bool real_largest = std::any_of(v.v.begin(), v.v.end(), [&](const c64& x) {
            return std::abs(x) >= largest - tol && std::abs(x.imag()) <= tol;
        });
        EXPECT_TRUE(real_largest) << which << ": its largest component is not real";
        if (pair) ++j;
    }
}

template <class T>
Operands<T> geev_operands(const Dense& a, Args& args, int64_t extra, Operands<T>& query,
                          Scheme scheme) {
    const int64_t n = a.rows;
    Operands<T> o;
    o.a = array_of<T>(a, args.lda);
    if constexpr (kIsComplex<T>) {
        o.w_complex = Array<T>::vector(n);
        o.rwork = Array<Real<T>>::vector(std::max<int64_t>(1, 2 * n));
    } else {
        o.values = Array<Real<T>>::vector(n);
        o.wi = Array<Real<T>>::vector(n);
    }
    // VL and VR n x n where computed, else one element (not referenced)
    o.vl = same_flag(args.flags[0], 'V') ? Array<T>(n, n, args.ldvl) : Array<T>(1, 1, args.ldvl);
    o.z = same_flag(args.flags[1], 'V') ? Array<T>(n, n, args.ldvr) : Array<T>(1, 1, args.ldvr);
    return with_queried_workspaces<Geev>(scheme, args, o, extra, query);
}

template <class T>
void geev_case(Scheme scheme, const Dense& a, const std::string& flags, int64_t pad) {
    const int64_t n = a.rows;
    const bool left = same_flag(flags[0], 'V'), right = same_flag(flags[1], 'V');
    Args args{.flags = flags, .n = n, .lda = n + pad};
    args.ldvl = left ? n + 2 * pad : 1 + pad;
    args.ldvr = right ? n + pad : 1 + 2 * pad;
    Operands<T> query;
    const Operands<T> input = geev_operands<T>(a, args, pad, query, scheme);
    if (left) {  // left eigenvectors stay on the CPU
        expect_exactly_openblas<Geev>(scheme, args, input, "(left eigenvectors)");
        return;
    }
    const Pair<T> p = run_both<Geev>(scheme, args, input);
    const std::string& what = p.what;
    expect_success(p);
    if (p.shim.info != 0 || p.ref.info != 0) return;
    // |dl| <~ cond(X) eps ||A||_2, cond(X) < 4
    const double tol = tolerance<T>(n, 4.0 * frobenius(a));
    const std::vector<c64> l = eigenvalues_of(p.shim, n);
    EXPECT_EQ(compare_eigenvalue_sets(l, eigenvalues_of(p.ref, n), tol), "") << what;
    if (!kIsComplex<T>) {
        EXPECT_EQ(check_pairs(l, tol), "") << what;
    }
    const auto compare_all = [&](const char* name, const auto& in, const auto& shim,
                                 const auto& ref) {
        EXPECT_EQ(compare_array(name, in, shim, ref, anything, 0.0), "") << what;
    };
    compare_all("A", input.a, p.shim.a, p.ref.a);
    compare_all("WR", input.values, p.shim.values, p.ref.values);
    compare_all("WI", input.wi, p.shim.wi, p.ref.wi);
    compare_all("W", input.w_complex, p.shim.w_complex, p.ref.w_complex);
    EXPECT_EQ(compare_untouched("VL", input.vl, p.shim.vl), "") << what;
    EXPECT_EQ(compare_array("VR", input.z, p.shim.z, p.ref.z, right ? anything : nowhere, 0.0), "")
        << what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
    if (right) check_right_vectors(a, p.shim, l, what);
}

// --- GELS ---------------------------------------------------------------------------------
// A (m x n) and B (max(m, n) x nrhs: the right-hand sides in its first m rows (trans N) or
// n rows); the workspace of OpenBLAS's query.
template <class T>
Operands<T> gels_operands(const Dense& a, const Dense& b, Args& args, int64_t extra,
                          Operands<T>& query, Scheme scheme) {
    Operands<T> o;
    o.a = array_of<T>(a, args.lda);
    o.b = array_of<T>(b, args.ldb);
    return with_queried_workspaces<Gels>(scheme, args, o, extra, query);
}

// The 2-norm of rows from..rows - 1 of column j.
template <class T>
double tail_norm(const Array<T>& b, int64_t from, int64_t rows, int64_t j) {
    double s = 0.0;
    for (int64_t i = from; i < rows; ++i) s += std::norm(c64(b.at(i, j)));
    return std::sqrt(s);
}

// trans N, m >= n: offloaded.
template <class T>
void gels_case(Scheme scheme, int64_t m, int64_t n, int64_t nrhs, const std::string& flags,
               int64_t pad, Rng& rng) {
    const Dense a = well_conditioned(m, n, kIsComplex<T>, rng);
    const Dense b = random_dense(m, nrhs, kIsComplex<T>, rng);
    Args args{.flags = flags, .m = m, .n = n, .nrhs = nrhs, .lda = m + pad, .ldb = m + 2 * pad};
    Operands<T> query;
    const Operands<T> input = gels_operands<T>(a, b, args, pad, query, scheme);
    const Pair<T> p = run_both<Gels>(scheme, args, input);
    const std::string& what = p.what;
    expect_success(p);
    // X (B's first n rows): cond(A) < 4 keeps it within a few eps of ||B|| / sigma_min(A)
    // scaled by cond(A); the residual rows, which the solution does not fix, apart.
    EXPECT_EQ(
        compare_array(
            "X", input.b, p.shim.b, p.ref.b,
            [n](int64_t i, int64_t) { return i < n ? Region::compared : Region::unspecified; },
            tolerance<T>(m, max_abs(p.ref.b) + max_abs(input.b))),
        "")
        << what;
    for (int64_t j = 0; j < nrhs; ++j) {
        const double shim = tail_norm(p.shim.b, n, m, j), ref = tail_norm(p.ref.b, n, m, j);
        EXPECT_LE(std::abs(shim - ref), tolerance<T>(m, tail_norm(input.b, 0, m, j)))
            << what << ": residual norm of column " << j + 1 << ": shim " << shim << ", OpenBLAS "
            << ref;
    }
    // A: GEQRF's factors, whose reflectors and signs may differ; |R(i, i)| may not.
    EXPECT_EQ(compare_array("A", input.a, p.shim.a, p.ref.a, anything, 0.0), "") << what;
    const double tol = tolerance<T>(m, max_abs(p.ref.a));
    for (int64_t i = 0; i < n; ++i) {
        const double shim = std::abs(p.shim.a.at(i, i)), ref = std::abs(p.ref.a.at(i, i));
        EXPECT_LE(std::abs(shim - ref), tol) << what << ": |R(" << i + 1 << ", " << i + 1
                                             << ")|: shim " << shim << ", OpenBLAS " << ref;
    }
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << what;
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class LapackEigenLstsq : public testing::Test {};
TYPED_TEST_SUITE(LapackEigenLstsq, Precisions, PrecisionNames);

// Each scheme, order of kOrders and padding of the leading dimensions (0 or 3); `index`
// counts the scheme's cases, for `body` to vary their flags by.
template <class Body>
void for_each_order(Body&& body) {
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) body(scheme, n, pad, index);
        }
    }
}

// Every 5th case's flags lower-case.
std::string flags_of_case(const std::string& flags, int index) {
    return index % 5 == 4 ? lower_case(flags) : flags;
}

TYPED_TEST(LapackEigenLstsq, SyevrMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(61);
    for_each_order([&](Scheme scheme, int64_t n, int64_t pad, int& index) {
        const Dense h = random_hermitian(n, kIsComplex<T>, rng);
        const std::vector<double> w = spectrum<T>(h);
        for (const Selection& s : selections(w)) {
            for (const char* jobs : {"VU", "VL", "NU", "NL"}) {
                const std::string flags = flags_of_case({jobs[0], s.range, jobs[1]}, index);
                syevr_case<T>(scheme, h, w, s, flags, pad, index++ % 3 == 2 ? -1 : 0);
            }
        }
    });
}

TYPED_TEST(LapackEigenLstsq, SygvdAndSygvMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(62);
    for_each_generalized_driver([&](auto driver) {
        using R = decltype(driver);
        for_each_order([&](Scheme scheme, int64_t n, int64_t pad, int& index) {
            const Dense a = random_hermitian(n, kIsComplex<T>, rng);
            const Dense b = random_hpd(n, kIsComplex<T>, rng);
            for (int64_t itype : {1, 2, 3}) {
                for (const char* flags : {"VU", "VL", "NU", "NL"})
                    generalized_case<R, T>(scheme, a, b, itype, flags_of_case(flags, index++), pad);
            }
        });
    });
}

// Cholesky's failure on B at column k: INFO = n + k, computed on the CPU.
TYPED_TEST(LapackEigenLstsq, SygvdAndSygvWithIndefiniteBAreOpenBLASs) {
    using T = TypeParam;
    Rng rng(63);
    for_each_generalized_driver([&](auto driver) {
        using R = decltype(driver);
        for (Scheme scheme : schemes_for_workspace_routines()) {
            for (int64_t n : {1, 7, 33}) {
                for (int64_t itype : {1, 2, 3}) {
                    for (const char* flags : {"VU", "NL"}) {
                        const Dense a = random_hermitian(n, kIsComplex<T>, rng);
                        Dense b = random_hpd(n, kIsComplex<T>, rng);
                        const int64_t k = n / 2;
                        b(k, k) = -1.0;
                        Args args{.flags = flags, .n = n, .lda = n, .ldb = n + 1};
                        args.itype = itype;
                        Operands<T> query;
                        const Operands<T> input =
                            generalized_operands<R, T>(a, b, args, 0, query, scheme);
                        expect_exactly_openblas<R>(scheme, args, input, "(B indefinite)",
                                                   n + k + 1);
                    }
                }
            }
        }
    });
}

TYPED_TEST(LapackEigenLstsq, GeevMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(64);
    for_each_order([&](Scheme scheme, int64_t n, int64_t pad, int& index) {
        const Dense a = nonsymmetric(n, kIsComplex<T>, rng);
        for (const char* flags : {"NV", "NN", "VN", "VV"})
            geev_case<T>(scheme, a, flags_of_case(flags, index++), pad);
    });
}

TYPED_TEST(LapackEigenLstsq, GelsMatchesOpenBLAS) {
    using T = TypeParam;
    Rng rng(65);
    struct Case {
        int64_t m, n, nrhs;
    };
    const Case cases[] = {{1, 1, 1},   {7, 7, 3}, {33, 33, 1}, {70, 33, 5},
                          {41, 17, 2}, {9, 1, 4}, {70, 70, 2}, {50, 49, 1}};
    for (Scheme scheme : schemes_for_workspace_routines()) {
        int index = 0;
        for (const Case& c : cases) {
            for (int64_t pad : {0, 3}) {
                gels_case<T>(scheme, c.m, c.n, c.nrhs, index++ % 3 == 2 ? "n" : "N", pad, rng);
            }
        }
    }
}

// What GELS leaves to the CPU: OpenBLAS's results bit for bit.
TYPED_TEST(LapackEigenLstsq, GelsOnTheCpuIsOpenBLASs) {
    using T = TypeParam;
    Rng rng(66);
    const char* conjugate = kIsComplex<T> ? "C" : "T";
    // beyond LAPACK's bignum = eps / tiny (about 1e292 in double, 1e31 in single) and below
    // its reciprocal
    const double huge = std::is_same_v<Real<T>, float> ? 1e35 : 1e300;
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto exact = [&](const std::string& flags, const Dense& a, const Dense& b,
                               int64_t ldb, const std::string& why, int64_t info = 0) {
            Args args{.flags = flags,
                      .m = a.rows,
                      .n = a.cols,
                      .nrhs = b.cols,
                      .lda = a.rows + 1,
                      .ldb = ldb};
            Operands<T> query;
            const Operands<T> input = gels_operands<T>(a, b, args, 1, query, scheme);
            expect_exactly_openblas<Gels>(scheme, args, input, why, info);
        };
        const auto rhs = [&](int64_t rows, int64_t nrhs, int64_t ldb) {
            // the right-hand sides in the first `rows` rows of max(m, n): the rest is X's room
            Dense b = random_dense(ldb, nrhs, kIsComplex<T>, rng);
            for (int64_t j = 0; j < nrhs; ++j)
                for (int64_t i = rows; i < ldb; ++i) b(i, j) = 0.0;
            return b;
        };
        for (const auto& [m, n] : {std::pair<int64_t, int64_t>{33, 20}, {20, 33}, {7, 7}}) {
            const int64_t rows = std::max(m, n);
            const Dense a = well_conditioned(m, n, kIsComplex<T>, rng);
            // trans T / C: min ||X|| or least squares of A^H X = B, B's first n rows
            exact(conjugate, a, rhs(n, 3, rows), rows, "(transposed)");
            if (m < n) exact("N", a, rhs(m, 3, rows), rows, "(m < n: minimum norm)");
        }
        {
            Dense a = well_conditioned(33, 20, kIsComplex<T>, rng);
            for (int64_t i = 0; i < a.rows; ++i) a(i, 7) = 0.0;
            // R(8, 8) = 0: DTRTRS's INFO
            exact("N", a, rhs(33, 2, 33), 33, "(zero column)", 8);
            exact("N", Dense(33, 20), rhs(33, 2, 33), 33, "(A = 0)");
        }
        for (double scale : {huge, 1.0 / huge}) {
            Dense a = well_conditioned(33, 20, kIsComplex<T>, rng);
            for (c64& x : a.v) x *= scale;
            exact("N", a, rhs(33, 2, 33), 33, "(A rescaled by LAPACK)");
            Dense b = rhs(33, 2, 33);
            for (c64& x : b.v) x *= scale;
            exact("N", well_conditioned(33, 20, kIsComplex<T>, rng), b, 33,
                  "(B rescaled by LAPACK)");
        }
    }
}

// A workspace query (any of LWORK, LRWORK, LIWORK -1, the others valid) runs on the CPU:
// OpenBLAS's answers, nothing else written.
TYPED_TEST(LapackEigenLstsq, WorkspaceQueriesGiveOpenBLASsAnswers) {
    using T = TypeParam;
    Rng rng(67);
    const int64_t n = 20;
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto each_query = [&](auto routine, const Args& args, const Operands<T>& input) {
            expect_each_workspace_query<decltype(routine)>(scheme, args, input);
        };
        const Dense h = random_hermitian(n, kIsComplex<T>, rng);
        const Dense b = random_hpd(n, kIsComplex<T>, rng);
        Operands<T> unused;
        for (const char* flags : {"VAU", "NIL", "VVL"}) {
            Args args{.flags = flags, .n = n, .lda = n, .ldz = n};
            args.il = 3;
            args.iu = 9;
            args.vl = -1.0;
            args.vu = 1.0;
            each_query(Syevr{}, args, syevr_operands<T>(h, args, n, 0, unused, scheme));
        }
        for_each_generalized_driver([&](auto driver) {
            using R = decltype(driver);
            for (const char* flags : {"VU", "NL"}) {
                for (int64_t itype : {1, 3}) {
                    Args args{.flags = flags, .n = n, .lda = n, .ldb = n};
                    args.itype = itype;
                    each_query(driver, args,
                               generalized_operands<R, T>(h, b, args, 0, unused, scheme));
                }
            }
        });
        const Dense a = nonsymmetric(n, kIsComplex<T>, rng);
        for (const char* flags : {"NN", "NV", "VV"}) {
            Args args{.flags = flags, .n = n, .lda = n};
            args.ldvl = n;
            args.ldvr = n;
            each_query(Geev{}, args, geev_operands<T>(a, args, 0, unused, scheme));
        }
        for (const auto& [m, cols] : {std::pair<int64_t, int64_t>{33, n}, {n, 33}}) {
            for (const char* trans : {"N", kIsComplex<T> ? "C" : "T"}) {
                Args args{.flags = trans,
                          .m = m,
                          .n = cols,
                          .nrhs = 3,
                          .lda = m,
                          .ldb = std::max(m, cols)};
                each_query(Gels{}, args,
                           gels_operands<T>(random_dense(m, cols, kIsComplex<T>, rng),
                                            random_dense(args.ldb, 3, kIsComplex<T>, rng), args, 0,
                                            unused, scheme));
            }
        }
    }
}

// A valid workspace below the optimal one (LAPACK's minimum, and the optimum less one):
// the call runs on the CPU, exactly as OpenBLAS's. (SYGVD's optimum is its minimum.)
TYPED_TEST(LapackEigenLstsq, SmallWorkspacesGiveOpenBLASsResultsExactly) {
    using T = TypeParam;
    Rng rng(68);
    const int64_t n = 20;
    for (Scheme scheme : schemes_for_workspace_routines()) {
        // LAPACK's minimum LWORK
        const auto small = [&](auto routine, const Args& args, const Operands<T>& input,
                               int64_t lwork) {
            expect_small_workspaces_as_openblas<decltype(routine)>(scheme, args, input, lwork);
        };
        const Dense h = random_hermitian(n, kIsComplex<T>, rng);
        Operands<T> unused;
        for (const char* flags : {"VAU", "NIL", "VIU"}) {
            Args args{.flags = flags, .n = n, .lda = n, .ldz = n};
            args.il = 1;
            args.iu = flags[0] == 'V' ? n : 5;
            // LAPACK's minimum LWORK: 26 n (HEEVR: 2 n)
            small(Syevr{}, args, syevr_operands<T>(h, args, n, 0, unused, scheme),
                  kIsComplex<T> ? 2 * n : 26 * n);
        }
        const Dense a = nonsymmetric(n, kIsComplex<T>, rng);
        for (const char* flags : {"NN", "NV"}) {
            Args args{.flags = flags, .n = n, .lda = n};
            args.ldvl = 1;
            args.ldvr = n;
            // LAPACK's minimum: 3 n, 4 n with vectors (complex: 2 n)
            small(Geev{}, args, geev_operands<T>(a, args, 0, unused, scheme),
                  kIsComplex<T> ? 2 * n : (flags[1] == 'V' ? 4 : 3) * n);
        }
        for (int64_t nrhs : {1, 30}) {
            const int64_t m = 33;
            Args args{.flags = "N", .m = m, .n = n, .nrhs = nrhs, .lda = m, .ldb = m};
            small(Gels{}, args,
                  gels_operands<T>(well_conditioned(m, n, kIsComplex<T>, rng),
                                   random_dense(m, nrhs, kIsComplex<T>, rng), args, 0, unused,
                                   scheme),
                  n + std::max(n, nrhs));  // LAPACK's minimum: mn + max(mn, nrhs)
        }
    }
}

// Each case's expected INFO is minus the position of its first invalid argument.
TYPED_TEST(LapackEigenLstsq, InvalidArgumentsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(69);
    const int64_t n = 4, big = 64 * 64;  // `big`: enough workspace for every call here
    Operands<T> ops;
    ops.a = array_of<T>(random_hermitian(n, kIsComplex<T>, rng), n);
    ops.b = array_of<T>(random_hpd(n, kIsComplex<T>, rng), n);
    ops.values = Array<Real<T>>::vector(n);
    ops.wi = Array<Real<T>>::vector(n);
    ops.w_complex = Array<T>::vector(n);
    ops.z = Array<T>(n, n, n);
    ops.vl = Array<T>(n, n, n);
    ops.isuppz = Array<int64_t>::vector(2 * n);
    ops.work = Array<T>::vector(big);
    ops.rwork = Array<Real<T>>::vector(big);
    ops.iwork = Array<int64_t>::vector(big);
    const int64_t c = kIsComplex<T> ? 1 : 0;  // GEEV: the complex one has no WI
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto syevr = [&](const char* flags, int64_t nn, int64_t lda, double vl, double vu,
                               int64_t il, int64_t iu, int64_t ldz, int64_t lwork, int64_t lrwork,
                               int64_t liwork, int64_t info) {
            Args args{.flags = flags, .n = nn, .lda = lda, .lwork = lwork, .liwork = liwork};
            if (kIsComplex<T>) args.lrwork = lrwork;
            args.vl = vl;
            args.vu = vu;
            args.il = il;
            args.iu = iu;
            args.ldz = ldz;
            expect_rejected_as_by_openblas<Syevr>(scheme, args, ops, info);
        };
        syevr("XAU", n, n, 0, 1, 1, n, n, big, big, big, -1);
        syevr("VXU", n, n, 0, 1, 1, n, n, big, big, big, -2);
        syevr("VAX", n, n, 0, 1, 1, n, n, big, big, big, -3);
        syevr("NAU", -1, n, 0, 1, 1, n, n, big, big, big, -4);
        syevr("VAL", n, n - 1, 0, 1, 1, n, n, big, big, big, -6);
        syevr("VVU", n, n, 1, 1, 1, n, n, big, big, big, -8);  // VU <= VL
        syevr("NVL", n, n, 2, -1, 1, n, n, big, big, big, -8);
        syevr("VIU", n, n, 0, 1, 0, n, n, big, big, big, -9);  // IL < 1
        syevr("VIL", n, n, 0, 1, n + 1, n, n, big, big, big, -9);
        syevr("NIU", n, n, 0, 1, 3, 2, n, big, big, big, -10);  // IU < IL
        syevr("VIU", n, n, 0, 1, 1, n + 1, n, big, big, big, -10);
        syevr("VAU", n, n, 0, 1, 1, n, n - 1, big, big, big, -15);
        syevr("NAU", n, n, 0, 1, 1, n, 0, big, big, big, -15);
        syevr("VAU", n, n, 0, 1, 1, n, n, 1, big, big, -18);
        if (kIsComplex<T>) {
            syevr("VAU", n, n, 0, 1, 1, n, n, big, 1, big, -20);
            syevr("VAU", n, n, 0, 1, 1, n, n, big, big, 1, -22);
        } else {
            syevr("VAU", n, n, 0, 1, 1, n, n, big, big, 1, -20);
        }
        const auto sygvd = [&](int64_t itype, const char* flags, int64_t nn, int64_t lda,
                               int64_t ldb, int64_t lwork, int64_t lrwork, int64_t liwork,
                               int64_t info) {
            Args args{
                .flags = flags, .n = nn, .lda = lda, .ldb = ldb, .lwork = lwork, .liwork = liwork};
            if (kIsComplex<T>) args.lrwork = lrwork;
            args.itype = itype;
            expect_rejected_as_by_openblas<Sygvd>(scheme, args, ops, info);
        };
        sygvd(0, "VU", n, n, n, big, big, big, -1);
        sygvd(4, "VU", n, n, n, big, big, big, -1);
        sygvd(1, "XU", n, n, n, big, big, big, -2);
        sygvd(2, "VX", n, n, n, big, big, big, -3);
        sygvd(3, "NL", -1, n, n, big, big, big, -4);
        sygvd(1, "VL", n, n - 1, n, big, big, big, -6);
        sygvd(1, "VU", n, n, n - 1, big, big, big, -8);
        sygvd(1, "VU", n, n, n, 1, big, big, -11);
        if (kIsComplex<T>) {
            sygvd(1, "VU", n, n, n, big, 1, big, -13);
            sygvd(2, "VU", n, n, n, big, big, 1, -15);
        } else {
            sygvd(2, "VU", n, n, n, big, big, 1, -13);
        }
        const auto sygv = [&](int64_t itype, const char* flags, int64_t nn, int64_t lda,
                              int64_t ldb, int64_t lwork, int64_t info) {
            Args args{.flags = flags, .n = nn, .lda = lda, .ldb = ldb, .lwork = lwork};
            args.itype = itype;
            expect_rejected_as_by_openblas<Sygv>(scheme, args, ops, info);
        };
        sygv(0, "VU", n, n, n, big, -1);
        sygv(1, "XU", n, n, n, big, -2);
        sygv(2, "VX", n, n, n, big, -3);
        sygv(3, "NL", -1, n, n, big, -4);
        sygv(1, "VL", n, n - 1, n, big, -6);
        sygv(1, "VU", n, n, n - 1, big, -8);
        sygv(1, "VU", n, n, n, 1, -11);
        const auto geev = [&](const char* flags, int64_t nn, int64_t lda, int64_t ldvl,
                              int64_t ldvr, int64_t lwork, int64_t info) {
            Args args{.flags = flags, .n = nn, .lda = lda, .lwork = lwork};
            args.ldvl = ldvl;
            args.ldvr = ldvr;
            expect_rejected_as_by_openblas<Geev>(scheme, args, ops, info);
        };
        geev("XN", n, n, n, n, big, -1);
        geev("NX", n, n, n, n, big, -2);
        geev("NV", -1, n, n, n, big, -3);
        geev("NV", n, n - 1, n, n, big, -5);
        geev("VN", n, n, n - 1, n, big, -9 + c);
        geev("NN", n, n, 0, n, big, -9 + c);
        geev("NV", n, n, n, n - 1, big, -11 + c);
        geev("NN", n, n, n, 0, big, -11 + c);
        geev("NV", n, n, n, n, 1, -13 + c);
        const auto gels = [&](const char* trans, int64_t m, int64_t nn, int64_t nrhs, int64_t lda,
                              int64_t ldb, int64_t lwork, int64_t info) {
            expect_rejected_as_by_openblas<Gels>(scheme,
                                                 Args{.flags = trans,
                                                      .m = m,
                                                      .n = nn,
                                                      .nrhs = nrhs,
                                                      .lda = lda,
                                                      .ldb = ldb,
                                                      .lwork = lwork},
                                                 ops, info);
        };
        gels("X", n, n, 1, n, n, big, -1);
        gels(kIsComplex<T> ? "T" : "C", n, n, 1, n, n, big, -1);  // GELS: N or T; ZGELS: N or C
        gels("N", -1, n, 1, n, n, big, -2);
        gels("N", n, -1, 1, n, n, big, -3);
        gels("N", n, n, -1, n, n, big, -4);
        gels("N", n, n - 1, 1, n - 1, n, big, -6);
        gels("N", n - 1, n, 1, n - 1, n - 1, big, -8);  // LDB < max(m, n)
        gels("N", n, n, 2, n, n, 1, -10);
    }
}

// Nothing to compute: INFO 0, nothing written but the workspace answers, and GELS's B zeroed
// (LAPACK sets its first max(m, n) rows to 0 when m, n or nrhs is 0).
TYPED_TEST(LapackEigenLstsq, EmptyProblemsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(70);
    for (Scheme scheme : schemes_for_workspace_routines()) {
        const auto empty = [&](auto routine, const Args& args, const Operands<T>& input) {
            expect_empty_problem_as_openblas<decltype(routine)>(scheme, args, input);
        };
        const Dense none(0, 0);
        Operands<T> unused;
        for (const char* flags : {"VAU", "NVL", "VIL"}) {
            Args args{.flags = flags, .n = 0, .lda = 1, .ldz = 1};
            args.vl = 0.0;
            args.vu = 1.0;
            args.il = 1;
            args.iu = 0;
            empty(Syevr{}, args, syevr_operands<T>(none, args, 1, 0, unused, scheme));
        }
        for (int64_t itype : {1, 2, 3}) {
            Args args{.flags = itype == 2 ? "NL" : "VU", .n = 0, .lda = 1, .ldb = 1};
            args.itype = itype;
            empty(Sygvd{}, args,
                  generalized_operands<Sygvd, T>(none, none, args, 0, unused, scheme));
            empty(Sygv{}, args, generalized_operands<Sygv, T>(none, none, args, 0, unused, scheme));
        }
        for (const char* flags : {"NN", "NV", "VV"}) {
            Args args{.flags = flags, .n = 0, .lda = 1};
            args.ldvl = 1;
            args.ldvr = 1;
            empty(Geev{}, args, geev_operands<T>(none, args, 0, unused, scheme));
        }
        struct Shape {
            int64_t m, n, nrhs;
        };
        for (const Shape& s : {Shape{0, 3, 2}, Shape{3, 0, 2}, Shape{3, 2, 0}, Shape{0, 0, 1}}) {
            for (const char* trans : {"N", kIsComplex<T> ? "C" : "T"}) {
                const int64_t ldb = std::max<int64_t>({1, s.m, s.n});
                Args args{.flags = trans,
                          .m = s.m,
                          .n = s.n,
                          .nrhs = s.nrhs,
                          .lda = std::max<int64_t>(1, s.m),
                          .ldb = ldb};
                empty(Gels{}, args,
                      gels_operands<T>(random_dense(s.m, s.n, kIsComplex<T>, rng),
                                       random_dense(ldb, s.nrhs, kIsComplex<T>, rng), args, 0,
                                       unused, scheme));
            }
        }
    }
}

// n = 230: at least 211 KB a matrix, too large for the small_device variant's 200000 bytes of
// device memory, which leaves these calls to the CPU.
TYPED_TEST(LapackEigenLstsq, LargerMatricesMatchOpenBLAS) {
    using T = TypeParam;
    Rng rng(71);
    const int64_t n = 230;
    const Scheme scheme = Scheme::standard;
    const Dense h = random_hermitian(n, kIsComplex<T>, rng);
    const std::vector<double> w = spectrum<T>(h);
    syevr_case<T>(scheme, h, w, selections(w)[5], "VIL", 1, 0);
    generalized_case<Sygvd, T>(scheme, h, random_hpd(n, kIsComplex<T>, rng), 1, "VU", 1);
    generalized_case<Sygv, T>(scheme, h, random_hpd(n, kIsComplex<T>, rng), 2, "VL", 1);
    geev_case<T>(scheme, nonsymmetric(n, kIsComplex<T>, rng), "NV", 1);
    gels_case<T>(scheme, n, n, 3, "N", 1, rng);
}

}  // namespace

int main(int argc, char** argv) {
    return run_all_tests(argc, argv, "lapack_eigen_lstsq_vs_cpu_test");
}
