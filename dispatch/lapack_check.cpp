#include "dispatch/lapack_check.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "fallback/fortran_blas3.h"

namespace gpushim {
namespace {

template <class T>
using Real = typename fallback::RealOf<T>::type;

// |value| in double, which a complex float's finite parts cannot overflow.
template <class T>
double magnitude(const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
        return std::abs(static_cast<double>(value));
    } else {
        return std::hypot(static_cast<double>(value.real()), static_cast<double>(value.imag()));
    }
}

// |value|^2 in long double, whose range holds the square of any double: sums of squares
// neither overflow nor underflow.
static_assert(std::numeric_limits<long double>::max_exponent >=
                  2 * std::numeric_limits<double>::max_exponent,
              "the squares of doubles need a wider long double");
template <class T>
long double squared_magnitude(const T& value) {
    return std::norm(std::complex<long double>(std::real(value), std::imag(value)));
}

template <class T>
T conjugated(const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
        return value;
    } else {
        return std::conj(value);
    }
}

// A packed column-major matrix.
template <class T>
struct Dense {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<T> data;

    Dense(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<std::size_t>(r * c)) {}
    T& operator()(int64_t i, int64_t j) { return data[static_cast<std::size_t>(i + j * rows)]; }
    const T& operator()(int64_t i, int64_t j) const {
        return data[static_cast<std::size_t>(i + j * rows)];
    }
};

template <class T>
Dense<T> identity(int64_t n) {
    Dense<T> result(n, n);
    for (int64_t i = 0; i < n; ++i) result(i, i) = T(1);
    return result;
}

// The caller's rows x cols matrix at `from` (leading dimension ld).
template <class T>
Dense<T> load(const void* from, int64_t ld, int64_t rows, int64_t cols) {
    Dense<T> result(rows, cols);
    for (int64_t j = 0; j < cols; ++j) {
        std::memcpy(&result(0, j), static_cast<const T*>(from) + j * ld,
                    static_cast<std::size_t>(rows) * sizeof(T));
    }
    return result;
}

// One triangle of `m` (the diagonal included), the rest zero.
template <class T>
Dense<T> triangle(const Dense<T>& m, char uplo) {
    Dense<T> result(m.rows, m.cols);
    for (int64_t j = 0; j < m.cols; ++j)
        for (int64_t i = 0; i < m.rows; ++i)
            if (uplo == 'U' ? i <= j : i >= j) result(i, j) = m(i, j);
    return result;
}

// The Hermitian (real symmetric) matrix whose `uplo` triangle `m` holds; its diagonal real,
// as LAPACK reads it.
template <class T>
Dense<T> hermitian(const Dense<T>& m, char uplo) {
    Dense<T> result(m.rows, m.cols);
    for (int64_t j = 0; j < m.cols; ++j)
        for (int64_t i = 0; i < m.rows; ++i) {
            if (i == j) {
                result(i, i) = T(std::real(m(i, i)));
            } else if (uplo == 'U' ? i < j : i > j) {
                result(i, j) = m(i, j);
                result(j, i) = conjugated(m(i, j));
            }
        }
    return result;
}

// The larger of two, a NaN the largest (std::max(0, NaN) is 0: a NaN in a result would vanish
// from its norm, and the check would pass it).
double larger(double a, double b) {
    return std::isnan(a) || a > b ? a : b;
}

// The 1-norm (largest column sum) and the infinity-norm (largest row sum).
template <class T>
double norm_one(const Dense<T>& m) {
    double largest = 0;
    for (int64_t j = 0; j < m.cols; ++j) {
        double sum = 0;
        for (int64_t i = 0; i < m.rows; ++i) sum += magnitude(m(i, j));
        largest = larger(largest, sum);
    }
    return largest;
}
template <class T>
double norm_infinity(const Dense<T>& m) {
    std::vector<double> sums(static_cast<std::size_t>(m.rows));
    for (int64_t j = 0; j < m.cols; ++j)
        for (int64_t i = 0; i < m.rows; ++i)
            sums[static_cast<std::size_t>(i)] += magnitude(m(i, j));
    double largest = 0;
    for (double sum : sums) largest = larger(largest, sum);
    return largest;
}
template <class T>
double norm_either(const Dense<T>& m) {
    return larger(norm_one(m), norm_infinity(m));
}

template <class T>
Blas3Op blas_op(gpushim_blas3_kind kind) {
    Blas3Op op{};
    op.kind = kind;
    if constexpr (std::is_same_v<T, float>) op.precision = GPUSHIM_PREC_S;
    if constexpr (std::is_same_v<T, double>) op.precision = GPUSHIM_PREC_D;
    if constexpr (std::is_same_v<T, std::complex<float>>) op.precision = GPUSHIM_PREC_C;
    if constexpr (std::is_same_v<T, std::complex<double>>) op.precision = GPUSHIM_PREC_Z;
    op.alpha[0] = 1.0;
    return op;
}

// c := alpha op(a) op(b) + beta c, on the CPU library.
template <class T>
bool gemm(CpuPart blas, char transa, char transb, double alpha, const Dense<T>& a,
          const Dense<T>& b, double beta, Dense<T>& c) {
    Blas3Op op = blas_op<T>(GPUSHIM_GEMM);
    op.transa = transa;
    op.transb = transb;
    op.m = c.rows;
    op.n = c.cols;
    op.k = transa == 'N' ? a.cols : a.rows;
    op.alpha[0] = alpha;
    op.beta[0] = beta;
    op.a = a.data.data();
    op.lda = std::max<int64_t>(1, a.rows);
    op.b = b.data.data();
    op.ldb = std::max<int64_t>(1, b.rows);
    op.c = c.data.data();
    op.ldc = std::max<int64_t>(1, c.rows);
    return blas(op);
}

// b := op(t) b (TRMM) or op(t)^-1 b (TRSM) with the `uplo` triangle of t, on the CPU library.
template <class T>
bool triangular(CpuPart blas, gpushim_blas3_kind kind, char uplo, char trans, char diag,
                const Dense<T>& t, Dense<T>& b) {
    Blas3Op op = blas_op<T>(kind);
    op.side = 'L';
    op.uplo = uplo;
    op.transa = trans;
    op.diag = diag;
    op.m = b.rows;
    op.n = b.cols;
    op.a = t.data.data();
    op.lda = std::max<int64_t>(1, t.rows);
    op.b = b.data.data();
    op.ldb = std::max<int64_t>(1, b.rows);
    return blas(op);
}
template <class T>
bool trmm(CpuPart blas, char uplo, char trans, char diag, const Dense<T>& t, Dense<T>& b) {
    return triangular(blas, GPUSHIM_TRMM, uplo, trans, diag, t, b);
}

// Interchanges rows i and ipiv(i) of w for i in order (forward: P^T w for A = P L U) or in
// reverse (P w); false, leaving w half done, for a pivot beyond w's rows (a caller's GETRS
// may pass any).
template <class T>
bool interchange(const LapackOp& op, int64_t count, Dense<T>& w, bool forward) {
    for (int64_t step = 0; step < count; ++step) {
        const int64_t i = forward ? step : count - 1 - step;
        const int64_t p = caller_pivot(op, i) - 1;
        if (p < 0 || p >= w.rows) return false;
        if (p == i) continue;
        for (int64_t j = 0; j < w.cols; ++j) std::swap(w(i, j), w(p, j));
    }
    return true;
}

// The binary exponent of the largest magnitude among `m`'s entries (0 for a zero or
// non-finite matrix): scaled by 2^-exponent, products of entries neither overflow nor
// underflow in T, and the scaling is exact.
template <class T>
int largest_exponent(const Dense<T>& m) {
    double largest = 0;
    for (const T& entry : m.data) largest = larger(largest, magnitude(entry));
    return largest == 0 || !std::isfinite(largest) ? 0 : std::ilogb(largest);
}

// `value` times 2^exponent, exactly (but where it leaves T's range).
template <class T>
T times_power_of_two(const T& value, int exponent) {
    if constexpr (std::is_floating_point_v<T>) {
        return std::ldexp(value, exponent);
    } else {
        return {std::ldexp(value.real(), exponent), std::ldexp(value.imag(), exponent)};
    }
}

template <class T>
Dense<T> times_power_of_two(Dense<T> m, int exponent) {
    for (T& entry : m.data) entry = times_power_of_two(entry, exponent);
    return m;
}

// A ratio of LAPACK's tests: the residual's norm over its scale, to which the smallest normal
// number is added (what products of entries that underflow lose); 0 for no residual.
template <class T>
double ratio(double residual, double scale) {
    if (residual == 0) return 0;
    return residual / (scale + std::numeric_limits<Real<T>>::min());
}

// What a check found: its worst ratio, and which.
struct Finding {
    double ratio = 0;
    const char* what = "";
    void take(double r, const char* name) {
        if (std::isnan(ratio)) return;  // a NaN is the worst
        if (std::isnan(r) || r > ratio) {
            ratio = r;
            what = name;
        }
    }
};

// The worse of two checks' findings; nothing where either could not be had.
std::optional<Finding> worse(std::optional<Finding> first, const std::optional<Finding>& second) {
    if (!first || !second) return std::nullopt;
    first->take(second->ratio, second->what);
    return first;
}

template <class T>
double epsilon() {
    return std::numeric_limits<Real<T>>::epsilon();
}

// GETRF: ||P L U - A|| / (max(m, n) ||A|| eps).
template <class T>
std::optional<Finding> check_getrf(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const int64_t m = a.rows, n = a.cols, steps = std::min(m, n);
    const Dense<T> factors = load<T>(op.a, op.lda, m, n);
    // L U: the unit lower triangle of the first `steps` rows times U by TRMM, the rows of L
    // below them (m > n) times U by GEMM.
    Dense<T> upper(steps, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, steps - 1); ++i) upper(i, j) = factors(i, j);
    Dense<T> lower_top(steps, steps);
    for (int64_t j = 0; j < steps; ++j)
        for (int64_t i = j + 1; i < steps; ++i) lower_top(i, j) = factors(i, j);
    Dense<T> top = upper;
    if (!trmm(blas, 'L', 'N', 'U', lower_top, top)) return std::nullopt;
    Dense<T> product(m, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < steps; ++i) product(i, j) = top(i, j);
    if (m > steps) {
        Dense<T> lower_rest(m - steps, steps);
        for (int64_t j = 0; j < steps; ++j)
            for (int64_t i = steps; i < m; ++i) lower_rest(i - steps, j) = factors(i, j);
        Dense<T> rest(m - steps, n);
        if (!gemm(blas, 'N', 'N', 1.0, lower_rest, upper, 0.0, rest)) return std::nullopt;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = steps; i < m; ++i) product(i, j) = rest(i - steps, j);
    }
    if (!interchange(op, steps, product, false)) return std::nullopt;
    for (std::size_t e = 0; e < product.data.size(); ++e) product.data[e] -= a.data[e];
    Finding found;
    found.take(ratio<T>(norm_one(product),
                        static_cast<double>(std::max(m, n)) * norm_one(a) * epsilon<T>()),
               "||P L U - A|| / (max(m, n) ||A|| eps)");
    return found;
}

// POTRF: ||L L^H - A|| / (n ||A|| eps) (U^H U for 'U'), the factor in `factored` (the
// caller's A, or SYGVD's B).
template <class T>
std::optional<Finding> check_potrf(const LapackOp& op, CpuPart blas, const Dense<T>& a,
                                   const void* factored, int64_t ld) {
    const Dense<T> factor = triangle(load<T>(factored, ld, op.n, op.n), op.uplo);
    const Dense<T> original = hermitian(a, op.uplo);
    const bool lower = op.uplo == 'L';
    // L (L^H), or U^H (U), by TRMM: half GEMM's work
    Dense<T> product(op.n, op.n);
    for (int64_t j = 0; j < op.n; ++j)
        for (int64_t i = 0; i < op.n; ++i)
            product(i, j) = lower ? conjugated(factor(j, i)) : factor(i, j);
    if (!trmm(blas, op.uplo, lower ? 'N' : 'C', 'N', factor, product)) return std::nullopt;
    for (std::size_t e = 0; e < product.data.size(); ++e) product.data[e] -= original.data[e];
    Finding found;
    found.take(
        ratio<T>(norm_one(product), static_cast<double>(op.n) * norm_one(original) * epsilon<T>()),
        lower ? "||L L^H - A|| / (n ||A|| eps)" : "||U^H U - A|| / (n ||A|| eps)");
    return found;
}

// Applies A = P L U (GETRS, GESV, GETRI; its transpose for GETRS's trans 'T', 'C'), L L^H
// (U^H U) (POTRS, POSV, POTRI) or op(T) (TRTRS), given by `factors`, to `w`.
template <class T>
bool apply_factored(const LapackOp& op, CpuPart blas, const Dense<T>& factors, Dense<T>& w) {
    if (op.kind == GPUSHIM_TRTRS) return trmm(blas, op.uplo, op.trans, op.diag, factors, w);
    if (op.kind == GPUSHIM_GETRS || op.kind == GPUSHIM_GESV || op.kind == GPUSHIM_GETRI) {
        const char trans = op.kind == GPUSHIM_GETRS ? op.trans : 'N';
        if (trans == 'N') {
            return trmm(blas, 'U', 'N', 'N', factors, w) && trmm(blas, 'L', 'N', 'U', factors, w) &&
                   interchange(op, op.n, w, false);
        }
        return interchange(op, op.n, w, true) && trmm(blas, 'L', trans, 'U', factors, w) &&
               trmm(blas, 'U', trans, 'N', factors, w);
    }
    const bool lower = op.uplo == 'L';  // L (L^H w), or U^H (U w)
    return trmm(blas, op.uplo, lower ? 'C' : 'N', 'N', factors, w) &&
           trmm(blas, op.uplo, lower ? 'N' : 'C', 'N', factors, w);
}

template <class T>
Dense<T> magnitudes(const Dense<T>& m) {
    Dense<T> result(m.rows, m.cols);
    for (std::size_t e = 0; e < m.data.size(); ++e) result.data[e] = T(magnitude(m.data[e]));
    return result;
}

// max |b - A x| / (n scale eps) element by element, `product` A x and `scale` the bound's
// |factors| |x| (a solve's residual with triangular factors is within a small multiple of it).
template <class T>
Finding componentwise_residual(const Dense<T>& b, const Dense<T>& product, const Dense<T>& scale,
                               int64_t n, const char* what) {
    Finding found;
    for (std::size_t e = 0; e < product.data.size(); ++e) {
        found.take(ratio<T>(magnitude(b.data[e] - product.data[e]),
                            static_cast<double>(n) * std::real(scale.data[e]) * epsilon<T>()),
                   what);
    }
    return found;
}

// GETRS, POTRS, TRTRS (and GESV, POSV, after the check of the factors they leave): the
// solutions against the factors, element by element: the residual
// of a solve with triangular factors is within a small multiple of n eps |L| |U| |x|
// (Higham, Accuracy and Stability, 9.3), and so is the rounding of its computation here.
template <class T>
std::optional<Finding> check_solve_with_factors(const LapackOp& op, CpuPart blas,
                                                const Dense<T>& b) {
    const Dense<T> factors = load<T>(op.a, op.lda, op.n, op.n);
    const Dense<T> x = load<T>(op.b, op.ldb, op.n, op.nrhs);
    Dense<T> product = x;
    Dense<T> scale = magnitudes(x);
    if (!apply_factored(op, blas, factors, product) ||
        !apply_factored(op, blas, magnitudes(factors), scale))
        return std::nullopt;
    return componentwise_residual(b, product, scale, op.n,
                                  "max |b - A x| / (n |L| |U| |x| eps), A from its factors");
}

// GETRI, POTRI, TRTRI: ||A X - I|| / (n ||A|| ||X|| eps) for the inverse X the device left in
// A's place, with A from the factors it was given (T itself for TRTRI; X Hermitian from its
// triangle for POTRI, triangular for TRTRI, with a unit diagonal for diag 'U').
template <class T>
std::optional<Finding> check_inverse(const LapackOp& op, CpuPart blas, const Dense<T>& factors) {
    const int64_t n = op.n;
    const Dense<T> stored = load<T>(op.a, op.lda, n, n);
    Dense<T> inverse = op.kind == GPUSHIM_POTRI   ? hermitian(stored, op.uplo)
                       : op.kind == GPUSHIM_TRTRI ? triangle(stored, op.uplo)
                                                  : stored;
    Dense<T> original = identity<T>(n);
    if (op.kind == GPUSHIM_TRTRI) {
        original = triangle(factors, op.uplo);
        if (op.diag == 'U') {
            for (int64_t i = 0; i < n; ++i) {
                original(i, i) = T(1);
                inverse(i, i) = T(1);
            }
        }
    } else if (!apply_factored(op, blas, factors, original)) {
        return std::nullopt;
    }
    Dense<T> residual = identity<T>(n);
    if (!gemm(blas, 'N', 'N', 1.0, original, inverse, -1.0, residual)) return std::nullopt;
    Finding found;
    found.take(ratio<T>(norm_one(residual), static_cast<double>(n) * norm_one(original) *
                                                norm_one(inverse) * epsilon<T>()),
               "||A X - I|| / (n ||A|| ||X|| eps)");
    return found;
}

// ||I - Q^H Q|| / (rows eps) for the columns of q (`rows_first`: of q^H, the rows of q).
template <class T>
std::optional<double> orthonormality(CpuPart blas, const Dense<T>& q, bool rows_first) {
    const int64_t order = rows_first ? q.rows : q.cols;
    Dense<T> gram = identity<T>(order);
    if (!gemm(blas, rows_first ? 'N' : 'C', rows_first ? 'C' : 'N', 1.0, q, q, -1.0, gram))
        return std::nullopt;
    // The vectors' length: the Gram matrix's rounding grows with it (LAPACK's xQRT01 divides
    // by m for Q's n columns).
    const int64_t length = rows_first ? q.cols : q.rows;
    return ratio<T>(norm_one(gram), static_cast<double>(std::max(order, length)) * epsilon<T>());
}

// A whole m x m U (m > n) against its first n columns: ||[I; 0] - U^H U_n|| / (m eps), in
// O(m^2 n) (the whole Gram matrix would cost O(m^3)).
template <class T>
std::optional<double> orthonormal_to_first(CpuPart blas, const Dense<T>& u, int64_t n) {
    Dense<T> first(u.rows, n);
    std::copy(u.data.begin(), u.data.begin() + u.rows * n, first.data.begin());
    Dense<T> gram(u.cols, n);
    for (int64_t i = 0; i < n; ++i) gram(i, i) = T(1);
    if (!gemm(blas, 'C', 'N', 1.0, u, first, -1.0, gram)) return std::nullopt;
    return ratio<T>(norm_one(gram), static_cast<double>(u.rows) * epsilon<T>());
}

// A residual's ratio, and the orthonormality of q's columns; nothing where a product failed.
template <class T>
std::optional<Finding> residual_and_orthonormality(CpuPart blas, double residual,
                                                   const char* residual_what, const Dense<T>& q,
                                                   const char* orthonormality_what) {
    const std::optional<double> orthonormal = orthonormality(blas, q, false);
    if (!orthonormal) return std::nullopt;
    Finding found;
    found.take(residual, residual_what);
    found.take(*orthonormal, orthonormality_what);
    return found;
}

// The first `count` columns of m, column j times the real values[j] (the op's w: eigen- or
// singular values).
template <class T>
Dense<T> scaled_columns(const Dense<T>& m, const void* values, int64_t count) {
    const auto* scale = static_cast<const Real<T>*>(values);
    Dense<T> result(m.rows, count);
    for (int64_t j = 0; j < count; ++j)
        for (int64_t i = 0; i < m.rows; ++i) result(i, j) = m(i, j) * scale[j];
    return result;
}

// SYEVD with eigenvectors: ||A - V W V^H|| / (n ||A|| eps), ||I - V^H V|| / (n eps).
template <class T>
std::optional<Finding> check_eigen(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const Dense<T> original = hermitian(a, op.uplo);
    const Dense<T> vectors = load<T>(op.a, op.lda, op.n, op.n);
    const Dense<T> scaled = scaled_columns(vectors, op.w, op.n);
    Dense<T> residual = original;
    if (!gemm(blas, 'N', 'C', -1.0, scaled, vectors, 1.0, residual)) return std::nullopt;
    return residual_and_orthonormality(
        blas,
        ratio<T>(norm_one(residual), static_cast<double>(op.n) * norm_one(original) * epsilon<T>()),
        "||A - V W V^H|| / (n ||A|| eps)", vectors, "||I - V^H V|| / (n eps)");
}

// The hull of the Gershgorin intervals of the Hermitian `a` (whole): every eigenvalue lies in
// [first, second].
template <class T>
std::pair<double, double> gershgorin_hull(const Dense<T>& a) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (int64_t i = 0; i < a.rows; ++i) {
        double radius = 0;
        for (int64_t j = 0; j < a.cols; ++j)
            if (j != i) radius += magnitude(a(i, j));
        low = std::min(low, std::real(a(i, i)) - radius);
        high = std::max(high, std::real(a(i, i)) + radius);
    }
    return {low, high};
}

// The number of eigenvalues of the Hermitian `a` (whole) below `shift`, by Sylvester's law of
// inertia: the negative eigenvalues of D in the CPU library's DSYTRF of a - shift I, in double
// whatever the call's precision. A complex A = X + iY is factored as the real symmetric
// [[X, -Y], [Y, X]], which has each of A's eigenvalues twice. Shifts outside the Gershgorin
// hull need no factorization. Nothing where DSYTRF did not run.
template <class T>
std::optional<int64_t> eigenvalues_below(CpuSymmetricFactor factor, const Dense<T>& a,
                                         std::pair<double, double> hull, double shift) {
    const int64_t n = a.rows;
    if (shift <= hull.first) return 0;
    if (shift > hull.second) return n;
    if (factor == nullptr) return std::nullopt;
    constexpr int64_t kCopies = std::is_floating_point_v<T> ? 1 : 2;
    const int64_t order = kCopies * n;
    Dense<double> m(order, order);  // its lower triangle, which DSYTRF 'L' reads
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j; i < n; ++i) {
            const double real = std::real(a(i, j)) - (i == j ? shift : 0.0);
            m(i, j) = real;
            if constexpr (kCopies == 2) m(n + i, n + j) = real;
        }
        if constexpr (kCopies == 2)
            for (int64_t i = 0; i < n; ++i) m(n + i, j) = std::imag(a(i, j));
    }
    std::vector<int64_t> pivots;
    if (!factor(order, m.data.data(), pivots) || static_cast<int64_t>(pivots.size()) != order)
        return std::nullopt;
    int64_t negative = 0;
    for (int64_t k = 0; k < order;) {
        if (pivots[static_cast<std::size_t>(k)] > 0) {
            negative += m(k, k) < 0 ? 1 : 0;
            ++k;
            continue;
        }
        if (k + 1 == order) return std::nullopt;
        // A 2 x 2 block's eigenvalues: of opposite signs when its determinant is negative,
        // else of its trace's sign (one of them zero when the determinant is).
        const double scale =
            std::max({std::abs(m(k, k)), std::abs(m(k + 1, k)), std::abs(m(k + 1, k + 1))});
        const double d11 = m(k, k) / scale, d21 = m(k + 1, k) / scale,
                     d22 = m(k + 1, k + 1) / scale;
        const double determinant = d11 * d22 - d21 * d21;
        if (determinant < 0) {
            negative += 1;
        } else if (d11 + d22 < 0) {
            negative += determinant > 0 ? 2 : 1;
        }
        k += 2;
    }
    return negative / kCopies;
}

// SYEVR of part of the spectrum: whether its m values are the part its range asked for, by
// counting A's eigenvalues below shifts (eigenvalues_below, with `hull` A's Gershgorin hull),
// each finite shift moved by `slack` (the rounding allowed: kRatioLimit n ||A|| eps), and at
// least past itself, to the side that makes the condition weaker:
//   'I' il..iu: fewer than il eigenvalues below w(1), at least iu below w(m);
//   'V' (vl, vu]: m no fewer than the eigenvalues inside, no more than those inside or on its
//       ends.
template <class T>
std::optional<Finding> check_range(const LapackOp& op, CpuSymmetricFactor factor, const Dense<T>& a,
                                   std::pair<double, double> hull, int64_t count, double slack) {
    // A shift moved by the slack (up: +1, down: -1), and always past itself: a slack of 0
    // (A = 0) or one lost in the shift's rounding would count a value at the shift on the
    // wrong side.
    const auto below = [&](double shift, double direction) {
        if (!std::isfinite(shift)) return eigenvalues_below(factor, a, hull, shift);
        const double step =
            std::max({slack, std::abs(shift) * std::numeric_limits<double>::epsilon(),
                      std::numeric_limits<double>::min()});
        return eigenvalues_below(factor, a, hull, shift + direction * step);
    };
    Finding found;
    if (op.range == 'I') {
        if (count != op.iu - op.il + 1) {
            found.take(std::numeric_limits<double>::infinity(), "M as the range asks");
            return found;
        }
        const auto* w = static_cast<const Real<T>*>(op.w);
        const std::optional<int64_t> under_first = below(w[0], -1);
        const std::optional<int64_t> under_last = below(w[count - 1], +1);
        if (!under_first || !under_last) return std::nullopt;
        if (*under_first > op.il - 1 || *under_last < op.iu)
            found.take(std::numeric_limits<double>::infinity(),
                       "the eigenvalues il..iu at W(1) and W(M), counted by inertia");
        return found;
    }
    const std::optional<int64_t> inside_high = below(op.vu, -1);
    const std::optional<int64_t> inside_low = below(op.vl, +1);
    const std::optional<int64_t> around_high = below(op.vu, +1);
    const std::optional<int64_t> around_low = below(op.vl, -1);
    if (!inside_high || !inside_low || !around_high || !around_low) return std::nullopt;
    if (count < *inside_high - *inside_low || count > *around_high - *around_low)
        found.take(std::numeric_limits<double>::infinity(),
                   "M as the eigenvalues in (vl, vu], counted by inertia");
    return found;
}

// SYEVR with eigenvectors: the m pairs found, ||A V - V W|| / (n ||A|| eps) and
// ||I - V^H V|| / (n eps), and of part of the spectrum whether it is the part asked for.
template <class T>
std::optional<Finding> check_eigen_subset(const LapackOp& op, CpuPart blas,
                                          CpuSymmetricFactor factor, const Dense<T>& a) {
    const int64_t found_count = *op.found;
    const Dense<T> original = hermitian(a, op.uplo);
    const double scale = static_cast<double>(op.n) * norm_one(original) * epsilon<T>();
    std::optional<Finding> found = Finding{};
    if (found_count > 0) {
        const Dense<T> vectors = load<T>(op.u, op.ldu, op.n, found_count);
        Dense<T> residual = scaled_columns(vectors, op.w, found_count);
        if (!gemm(blas, 'N', 'N', 1.0, original, vectors, -1.0, residual)) return std::nullopt;
        found = residual_and_orthonormality(blas, ratio<T>(norm_one(residual), scale),
                                            "||A V - V W|| / (n ||A|| eps)", vectors,
                                            "||I - V^H V|| / (n eps)");
    }
    if (!found || op.range == 'A' || !(found->ratio <= LapackCheck::kRatioLimit)) return found;
    return worse(found, check_range(op, factor, original, gershgorin_hull(original), found_count,
                                    LapackCheck::kRatioLimit * scale));
}

// GESVD (m >= n) with U and V^T: ||A - U S V^T|| / (max(m, n) ||A|| eps) and the
// orthonormality of U's columns (all of a whole U) and V^T's rows.
template <class T>
std::optional<Finding> check_svd(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const int64_t m = op.m, n = op.n;
    const Dense<T> u = op.jobu == 'O' ? load<T>(op.a, op.lda, m, n)
                                      : load<T>(op.u, op.ldu, m, op.jobu == 'A' ? m : n);
    const Dense<T> vt =
        op.jobvt == 'O' ? load<T>(op.a, op.lda, n, n) : load<T>(op.vt, op.ldvt, n, n);
    const Dense<T> scaled = scaled_columns(u, op.w, n);
    Dense<T> residual = a;
    if (!gemm(blas, 'N', 'N', -1.0, scaled, vt, 1.0, residual)) return std::nullopt;
    const std::optional<double> u_orthonormal =
        u.cols > n ? orthonormal_to_first(blas, u, n) : orthonormality(blas, u, false);
    const std::optional<double> vt_orthonormal = orthonormality(blas, vt, true);
    if (!u_orthonormal || !vt_orthonormal) return std::nullopt;
    Finding found;
    found.take(ratio<T>(norm_one(residual),
                        static_cast<double>(std::max(m, n)) * norm_one(a) * epsilon<T>()),
               "||A - U S V^T|| / (max(m, n) ||A|| eps)");
    found.take(*u_orthonormal, "||I - U^H U|| / (m eps)");
    found.take(*vt_orthonormal, "||I - V^T V^T^H|| / (n eps)");
    return found;
}

// GEEV with right eigenvectors: ||A V - V W|| / (n ||A|| ||V|| eps) and each eigenvector's
// unit 2-norm, max | ||v|| - 1 | / (n eps). Real: W from WR and WI, a complex pair's vector
// v = V(:, j) + i V(:, j + 1) for WI(j) > 0 = -WI(j + 1) (LAPACK's convention; a device
// that breaks it fails the check).
template <class T>
std::optional<Finding> check_nonsymmetric_eigen(const LapackOp& op, CpuPart blas,
                                                const Dense<T>& a) {
    const int64_t n = op.n;
    const Dense<T> vectors = load<T>(op.u, op.ldu, n, n);
    Dense<T> residual(n, n);
    if (!gemm(blas, 'N', 'N', 1.0, a, vectors, 0.0, residual)) return std::nullopt;
    const auto column_norm = [&](int64_t j) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += std::norm(vectors(i, j));
        return sum;
    };
    Finding found;
    double worst_norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_floating_point_v<T>) {
            const T re = static_cast<const T*>(op.w)[j];
            const T im = static_cast<const T*>(op.wi)[j];
            if (im == 0) {
                for (int64_t i = 0; i < n; ++i) residual(i, j) -= re * vectors(i, j);
                worst_norm = larger(worst_norm, std::fabs(std::sqrt(column_norm(j)) - 1));
                continue;
            }
            if (im < 0 || j + 1 == n || static_cast<const T*>(op.wi)[j + 1] != -im) {
                found.take(std::numeric_limits<double>::infinity(),
                           "WI's complex conjugate pairs, as LAPACK orders them");
                return found;
            }
            for (int64_t i = 0; i < n; ++i) {
                const T real_part = vectors(i, j), imaginary_part = vectors(i, j + 1);
                residual(i, j) -= re * real_part - im * imaginary_part;
                residual(i, j + 1) -= im * real_part + re * imaginary_part;
            }
            worst_norm =
                larger(worst_norm, std::fabs(std::sqrt(column_norm(j) + column_norm(j + 1)) - 1));
            ++j;
        } else {
            const T value = static_cast<const T*>(op.w)[j];
            for (int64_t i = 0; i < n; ++i) residual(i, j) -= value * vectors(i, j);
            worst_norm = larger(worst_norm, std::fabs(std::sqrt(column_norm(j)) - 1));
        }
    }
    found.take(ratio<T>(norm_one(residual),
                        static_cast<double>(n) * norm_one(a) * norm_one(vectors) * epsilon<T>()),
               "||A V - V W|| / (n ||A|| ||V|| eps)");
    found.take(ratio<T>(worst_norm, static_cast<double>(n) * epsilon<T>()),
               "max | ||v|| - 1 | / (n eps)");
    return found;
}

// Q = H(1) H(2) ... H(k) of LAPACK's elementary reflectors H(i) = I - tau(i) v(i) v(i)^H,
// v(i) with zeros above row i, a 1 in it, and below it column i of `reflectors` (an order x k
// matrix, GEQRF's output below its diagonal): applied to c, blocks of reflectors at a time as
// I - V S V^H (S upper triangular, LAPACK's xLARFT), by the CPU library's GEMM.
template <class T>
class Reflectors {
  public:
    static constexpr int64_t kBlock = 64;

    Reflectors(const Dense<T>& reflectors, const void* tau, int64_t k)
        : v_(reflectors), tau_(static_cast<const T*>(tau)), k_(k) {}

    // c := op(Q) c ('L') or c op(Q) ('R'); op(Q) = Q^H for `adjoint`.
    bool apply(CpuPart blas, char side, bool adjoint, Dense<T>& c) const {
        const int64_t blocks = (k_ + kBlock - 1) / kBlock;
        // Q c and c Q^H take the blocks last to first; Q^H c and c Q first to last.
        const bool last_first = (side == 'L') != adjoint;
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t first = (last_first ? blocks - 1 - b : b) * kBlock;
            if (!apply_block(blas, first, std::min(kBlock, k_ - first), side, adjoint, c))
                return false;
        }
        return true;
    }

  private:
    bool apply_block(CpuPart blas, int64_t first, int64_t count, char side, bool adjoint,
                     Dense<T>& c) const {
        // The block's reflectors are zero above row `first`: only c's rows (columns, 'R')
        // from there on take part.
        const int64_t active = v_.rows - first;
        Dense<T> v(active, count);
        for (int64_t j = 0; j < count; ++j) {
            v(j, j) = T(1);
            for (int64_t i = j + 1; i < active; ++i) v(i, j) = v_(first + i, first + j);
        }
        // S(0:j, j) = -tau(j) S(0:j, 0:j) (V^H V)(0:j, j), S(j, j) = tau(j).
        Dense<T> gram(count, count);
        if (!gemm(blas, 'C', 'N', 1.0, v, v, 0.0, gram)) return false;
        Dense<T> s(count, count);
        for (int64_t j = 0; j < count; ++j) {
            const T tau = tau_[first + j];
            for (int64_t i = 0; i < j; ++i) {
                T sum = T(0);
                for (int64_t l = i; l < j; ++l) sum += s(i, l) * gram(l, j);
                s(i, j) = -tau * sum;
            }
            s(j, j) = tau;
        }
        const char s_op = adjoint ? 'C' : 'N';
        const bool left = side == 'L';
        Dense<T> part(left ? active : c.rows, left ? c.cols : active);
        const auto at = [&](int64_t i, int64_t j) -> T& {
            return left ? c(first + i, j) : c(i, first + j);
        };
        for (int64_t j = 0; j < part.cols; ++j)
            for (int64_t i = 0; i < part.rows; ++i) part(i, j) = at(i, j);
        bool done;
        if (left) {  // c -= V op(S) (V^H c)
            Dense<T> w(count, part.cols), sw(count, part.cols);
            done = gemm(blas, 'C', 'N', 1.0, v, part, 0.0, w) &&
                   gemm(blas, s_op, 'N', 1.0, s, w, 0.0, sw) &&
                   gemm(blas, 'N', 'N', -1.0, v, sw, 1.0, part);
        } else {  // c -= (c V) op(S) V^H
            Dense<T> w(part.rows, count), ws(part.rows, count);
            done = gemm(blas, 'N', 'N', 1.0, part, v, 0.0, w) &&
                   gemm(blas, 'N', s_op, 1.0, w, s, 0.0, ws) &&
                   gemm(blas, 'N', 'C', -1.0, ws, v, 1.0, part);
        }
        for (int64_t j = 0; j < part.cols; ++j)
            for (int64_t i = 0; i < part.rows; ++i) at(i, j) = part(i, j);
        return done;
    }

    const Dense<T>& v_;
    const T* tau_;
    int64_t k_;
};

// GEQRF: ||A - Q R|| / (max(m, n) ||A|| eps) and ||I - Q1^H Q1|| / (m eps) for Q's first
// min(m, n) columns Q1, Q from the reflectors and tau the device left.
template <class T>
std::optional<Finding> check_geqrf(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const int64_t m = op.m, n = op.n, k = std::min(m, n);
    const Dense<T> factors = load<T>(op.a, op.lda, m, n);
    const Reflectors<T> q(factors, op.tau, k);
    Dense<T> product(m, n);  // R, then Q R
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i) product(i, j) = factors(i, j);
    Dense<T> first_columns(m, k);
    for (int64_t i = 0; i < k; ++i) first_columns(i, i) = T(1);
    if (!q.apply(blas, 'L', false, product) || !q.apply(blas, 'L', false, first_columns))
        return std::nullopt;
    for (std::size_t e = 0; e < product.data.size(); ++e) product.data[e] -= a.data[e];
    return residual_and_orthonormality(
        blas,
        ratio<T>(norm_one(product),
                 static_cast<double>(std::max(m, n)) * norm_one(a) * epsilon<T>()),
        "||A - Q R|| / (max(m, n) ||A|| eps)", first_columns, "||I - Q1^H Q1|| / (m eps)");
}

// ORGQR: ||Q - Q_cpu|| / (m eps), Q_cpu the first n columns of the product of the k reflectors
// given (computed here), and ||I - Q^H Q|| / (m eps).
template <class T>
std::optional<Finding> check_orgqr(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const int64_t m = op.m, n = op.n;
    const Dense<T> computed = load<T>(op.a, op.lda, m, n);
    Dense<T> expected(m, n);
    for (int64_t i = 0; i < n; ++i) expected(i, i) = T(1);
    if (!Reflectors<T>(a, op.tau, op.k).apply(blas, 'L', false, expected)) return std::nullopt;
    for (std::size_t e = 0; e < expected.data.size(); ++e) expected.data[e] -= computed.data[e];
    return residual_and_orthonormality(
        blas, ratio<T>(norm_one(expected), static_cast<double>(m) * epsilon<T>()),
        "||Q - Q_cpu|| / (m eps)", computed, "||I - Q^H Q|| / (m eps)");
}

// ORMQR: ||C_device - C_cpu|| / (max(m, n) ||C|| eps), C_cpu = op(Q) C or C op(Q) computed
// here from the reflectors given.
template <class T>
std::optional<Finding> check_ormqr(const LapackOp& op, CpuPart blas, const Dense<T>& c) {
    const int64_t order = op.side == 'L' ? op.m : op.n;
    const Dense<T> reflectors = load<T>(op.a, op.lda, order, op.k);
    Dense<T> expected = c;
    if (!Reflectors<T>(reflectors, op.tau, op.k).apply(blas, op.side, op.trans != 'N', expected))
        return std::nullopt;
    const Dense<T> computed = load<T>(op.b, op.ldb, op.m, op.n);
    for (std::size_t e = 0; e < expected.data.size(); ++e) expected.data[e] -= computed.data[e];
    Finding found;
    found.take(ratio<T>(norm_one(expected),
                        static_cast<double>(std::max(op.m, op.n)) * norm_one(c) * epsilon<T>()),
               "||C - C_cpu|| / (max(m, n) ||C|| eps)");
    return found;
}

// ||F^-1||_1 ||F^-1||_inf, a bound of ||F^-1||_2^2 (||B^-1|| for B's Cholesky factor F), with
// F^-1 formed by the CPU library's TRSM.
template <class T>
std::optional<double> inverse_norms(CpuPart blas, char uplo, const Dense<T>& factor) {
    Dense<T> inverse = identity<T>(factor.rows);
    if (!triangular(blas, GPUSHIM_TRSM, uplo, 'N', 'N', factor, inverse)) return std::nullopt;
    return norm_one(inverse) * norm_infinity(inverse);
}

// SYGVD with eigenvectors Z, itype 1 (A Z = B Z W), 2 (A B Z = Z W) or 3 (B A Z = Z W): the
// residual over n eps ||Z|| (||A|| + ||B|| max |w|) for 1, n eps ||A|| ||B|| ||Z|| for 2 and 3
// (LAPACK's xSGT01, with B Z W's own size for 1, which may exceed A Z's), the normalization
// ||Z^H B Z - I|| / (n ||B|| ||Z||^2 eps) for 1 and 2, ||Z^H B^-1 Z - I|| / (n ||B^-1|| ||Z||^2
// eps) for 3 (with B's factor, ||B^-1|| bounded from its inverse), and B's Cholesky factor the
// device left, as POTRF's.
template <class T>
std::optional<Finding> check_generalized_eigen(const LapackOp& op, CpuPart blas,
                                               const Dense<T>& a_stored, const Dense<T>& b_stored) {
    const int64_t n = op.n;
    const Dense<T> a = hermitian(a_stored, op.uplo), b = hermitian(b_stored, op.uplo);
    const Dense<T> vectors = load<T>(op.a, op.lda, n, n);
    const Dense<T> scaled = scaled_columns(vectors, op.w, n);
    Dense<T> inner(n, n), residual(n, n);
    const bool first_type = op.itype == 1;
    // 1: A Z - B (Z W); 2: A (B Z) - Z W; 3: B (A Z) - Z W
    const Dense<T>& inner_matrix = op.itype == 3 ? a : b;
    if (!gemm(blas, 'N', 'N', 1.0, inner_matrix, first_type ? scaled : vectors, 0.0, inner) ||
        !gemm(blas, 'N', 'N', 1.0, op.itype == 3 ? b : a, first_type ? vectors : inner, 0.0,
              residual))
        return std::nullopt;
    const Dense<T>& subtracted = first_type ? inner : scaled;
    for (std::size_t e = 0; e < residual.data.size(); ++e) residual.data[e] -= subtracted.data[e];
    const auto* values = static_cast<const Real<T>*>(op.w);
    double largest_value = 0;
    for (int64_t j = 0; j < n; ++j)
        largest_value = larger(largest_value, std::fabs(static_cast<double>(values[j])));
    const double norm_a = norm_one(a), norm_b = norm_one(b), norm_z = norm_one(vectors);
    const double scale =
        first_type ? norm_z * (norm_a + norm_b * largest_value) : norm_a * norm_b * norm_z;
    std::optional<Finding> found =
        check_potrf(op, blas, b_stored, op.b, op.ldb);  // B's factor, in B's place
    if (!found) return std::nullopt;
    found->take(ratio<T>(norm_one(residual), static_cast<double>(n) * scale * epsilon<T>()),
                first_type      ? "||A Z - B Z W|| / (n ||Z|| (||A|| + ||B|| max|w|) eps)"
                : op.itype == 2 ? "||A B Z - Z W|| / (n ||A|| ||B|| ||Z|| eps)"
                                : "||B A Z - Z W|| / (n ||A|| ||B|| ||Z|| eps)");
    if (op.itype == 3) {
        // Z^H B^-1 Z = Y^H Y = I for Y = L^-1 Z (U^-H Z), over n ||B^-1|| ||Z||^2 eps
        const bool lower = op.uplo == 'L';
        const Dense<T> factor = triangle(load<T>(op.b, op.ldb, n, n), op.uplo);
        Dense<T> y = vectors, normal = identity<T>(n);
        const std::optional<double> inverse = inverse_norms(blas, op.uplo, factor);
        if (!inverse ||
            !triangular(blas, GPUSHIM_TRSM, op.uplo, lower ? 'N' : 'C', 'N', factor, y) ||
            !gemm(blas, 'C', 'N', 1.0, y, y, -1.0, normal))
            return std::nullopt;
        found->take(ratio<T>(norm_one(normal),
                             static_cast<double>(n) * *inverse * norm_z * norm_z * epsilon<T>()),
                    "||Z^H B^-1 Z - I|| / (n ||B^-1|| ||Z||^2 eps)");
        return found;
    }
    Dense<T> b_z(n, n), gram = identity<T>(n);
    if (!gemm(blas, 'N', 'N', 1.0, b, vectors, 0.0, b_z) ||
        !gemm(blas, 'C', 'N', 1.0, vectors, b_z, -1.0, gram))
        return std::nullopt;
    found->take(
        ratio<T>(norm_one(gram), static_cast<double>(n) * norm_b * norm_z * norm_z * epsilon<T>()),
        "||Z^H B Z - I|| / (n ||B|| ||Z||^2 eps)");
    return found;
}

// GELS and GELSD (m >= n): the least-squares solution X the device left in B's first n
// rows by the orthogonality of its residual R = B - A X to A's columns, ||A^H R|| /
// (max(m, n, nrhs) ||A|| (||B|| + ||A|| ||X||) eps') (a backward-stable solution's; eps'
// GELSD's rcond where larger than eps: the singular values it drops leave their part of R),
// and, where the rank is n (GELS always), rows n+1..m's 2-norm as R's, column by column,
// over the same scale.
// A and B are scaled by powers of two first (X and the residual's rows with them), which
// leaves the ratios as they are, so that the products neither overflow nor underflow.
template <class T>
std::optional<Finding> check_least_squares(const LapackOp& op, CpuPart blas,
                                           const Dense<T>& unscaled_a, const Dense<T>& unscaled_b) {
    const int64_t m = op.m, n = op.n, nrhs = op.nrhs;
    const int a_exponent = largest_exponent(unscaled_a), b_exponent = largest_exponent(unscaled_b);
    const Dense<T> a = times_power_of_two(unscaled_a, -a_exponent);
    const Dense<T> b = times_power_of_two(unscaled_b, -b_exponent);
    Dense<T> stored = load<T>(op.b, op.ldb, m, nrhs);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < m; ++i)
            stored(i, j) = times_power_of_two(
                stored(i, j), i < n ? a_exponent - b_exponent : -b_exponent);  // X, the residual's
    Dense<T> x(n, nrhs);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) x(i, j) = stored(i, j);
    Dense<T> residual = b;
    if (!gemm(blas, 'N', 'N', -1.0, a, x, 1.0, residual)) return std::nullopt;
    Dense<T> orthogonal(n, nrhs);
    if (!gemm(blas, 'C', 'N', 1.0, a, residual, 0.0, orthogonal)) return std::nullopt;
    double tolerance = epsilon<T>();
    if (op.kind == GPUSHIM_GELSD && op.rcond > 0 && op.rcond < 1)
        tolerance = std::max(tolerance, op.rcond);
    const double norm_a = norm_one(a);
    const double scale = static_cast<double>(std::max({m, n, nrhs})) *
                         (norm_one(b) + norm_a * norm_one(x)) * tolerance;
    Finding found;
    found.take(ratio<T>(norm_one(orthogonal), norm_a * scale),
               "||A^H (B - A X)|| / (max(m, n, nrhs) ||A|| (||B|| + ||A|| ||X||) eps)");
    if (op.kind == GPUSHIM_GELS || *op.found == n) {
        for (int64_t j = 0; j < nrhs; ++j) {
            double tail = 0, whole = 0;
            for (int64_t i = n; i < m; ++i) tail += std::norm(stored(i, j));
            for (int64_t i = 0; i < m; ++i) whole += std::norm(residual(i, j));
            found.take(ratio<T>(std::fabs(std::sqrt(tail) - std::sqrt(whole)), scale),
                       "| ||B(n+1:m)|| - ||B - A X|| | / (max(m, n, nrhs) (||B|| + ||A|| ||X||) "
                       "eps)");
        }
    }
    return found;
}

// Eigen- or singular values without vectors: the power sums of the values v of a square
// matrix M (A's eigenvalues; the squares of A's singular values, of M = A^H A) against the
// traces of M's powers, sum_i v_i^k = tr(M^k), k = 1..4: a backward-stable computation's
// values are exactly those of M + E, ||E|| <= c d eps ||M||, which moves tr(M^k) by at most
// k ||E|| ||M||^(k-1) in Frobenius norms, for the dimension d of its backward error (n; 2
// max(m, n) for A^H A), however ill-conditioned the single values. In units of `scale` >=
// ||M||_F (as M is normalized by it): |sum v^k - tr(M^k)| / (k d eps). Necessary conditions,
// not sufficient: they find wrong values, not wrong ones whose first four power sums agree.
template <class T>
std::optional<Finding> check_power_sums(CpuPart blas, Dense<T> m,
                                        std::vector<std::complex<double>> values, double scale,
                                        double dimension) {
    // A zero M's values must be zero; M beyond the precision's range is normalized as far as
    // it goes.
    scale =
        scale == 0 ? 1 : std::min(scale, static_cast<double>(std::numeric_limits<Real<T>>::max()));
    for (T& entry : m.data) entry /= static_cast<Real<T>>(scale);
    for (std::complex<double>& value : values) value /= scale;
    Dense<T> square(m.rows, m.cols);
    if (!gemm(blas, 'N', 'N', 1.0, m, m, 0.0, square)) return std::nullopt;
    // tr(X Y) = sum_ij X_ij Y_ji
    const auto trace_of_product = [](const Dense<T>& x, const Dense<T>& y) {
        std::complex<double> sum = 0;
        for (int64_t j = 0; j < x.cols; ++j)
            for (int64_t i = 0; i < x.rows; ++i)
                sum += std::complex<double>(x(i, j)) * std::complex<double>(y(j, i));
        return sum;
    };
    std::complex<double> trace = 0;
    for (int64_t i = 0; i < m.rows; ++i) trace += std::complex<double>(m(i, i));
    const std::complex<double> traces[] = {trace, trace_of_product(m, m),
                                           trace_of_product(square, m),
                                           trace_of_product(square, square)};
    Finding found;
    for (int k = 1; k <= 4; ++k) {
        std::complex<double> sum = 0;
        for (const std::complex<double>& value : values) sum += std::pow(value, k);
        found.take(ratio<T>(std::abs(sum - traces[k - 1]), k * dimension * epsilon<T>()),
                   "power sums |sum v^k - tr(M^k)| / (k d eps ||M||^k), k <= 4");
    }
    return found;
}

// The Frobenius norm.
template <class T>
double norm_frobenius(const Dense<T>& m) {
    long double sum = 0;
    for (const T& entry : m.data) sum += squared_magnitude(entry);
    return static_cast<double>(std::sqrt(sum));
}

// `count` values of a real array (w), and whether they are ordered as LAPACK orders them
// (`ascending`, else descending and not negative: singular values).
template <class T>
std::vector<std::complex<double>> real_values(const void* w, int64_t count) {
    const auto* values = static_cast<const Real<T>*>(w);
    return {values, values + count};
}
bool in_order(const std::vector<std::complex<double>>& values, bool ascending) {
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
        if (ascending ? values[i].real() > values[i + 1].real()
                      : values[i].real() < values[i + 1].real())
            return false;
    }
    return ascending || values.empty() || values.back().real() >= 0;
}

// SYEVD, SYEVR (all of them) without eigenvectors: ascending, and their power sums.
template <class T>
std::optional<Finding> check_eigenvalues(const LapackOp& op, CpuPart blas, const Dense<T>& a) {
    const std::vector<std::complex<double>> values = real_values<T>(op.w, op.n);
    if (!in_order(values, true)) {
        Finding found;
        found.take(std::numeric_limits<double>::infinity(), "W ascending");
        return found;
    }
    const Dense<T> original = hermitian(a, op.uplo);
    return check_power_sums(blas, original, values, norm_frobenius(original),
                            static_cast<double>(op.n));
}

// SYEVR of part of the spectrum without eigenvectors (no cheap residual or power sum exists
// without vectors or the whole spectrum): as many values as an index range asks for,
// ascending, each within the Gershgorin intervals' hull and a value range (vl, vu], both
// widened by the rounding of n eps ||A|| (the distance outside over n ||A|| eps), and the
// part its range asked for (check_range). The values between W(1) and W(M) are checked only
// by their order and number.
template <class T>
std::optional<Finding> check_eigenvalue_subset(const LapackOp& op, CpuSymmetricFactor factor,
                                               const Dense<T>& a_stored) {
    const int64_t count = *op.found;
    const std::vector<std::complex<double>> values = real_values<T>(op.w, count);
    Finding found;
    if ((op.range == 'I' && count != op.iu - op.il + 1) || count < 0 || count > op.n) {
        found.take(std::numeric_limits<double>::infinity(), "M as the range asks");
        return found;
    }
    if (!in_order(values, true)) {
        found.take(std::numeric_limits<double>::infinity(), "W ascending");
        return found;
    }
    const Dense<T> a = hermitian(a_stored, op.uplo);
    const std::pair<double, double> hull = gershgorin_hull(a);
    auto [low, high] = hull;
    if (op.range == 'V') {
        low = std::max(low, op.vl);
        high = std::min(high, op.vu);
    }
    const double scale = static_cast<double>(op.n) * norm_one(a) * epsilon<T>();
    for (const std::complex<double>& value : values) {
        const double outside = std::isnan(value.real())
                                   ? value.real()
                                   : std::max({0.0, low - value.real(), value.real() - high});
        found.take(ratio<T>(outside, scale),
                   "distance outside the Gershgorin hull and (vl, vu] / (n ||A|| eps)");
    }
    if (!(found.ratio <= LapackCheck::kRatioLimit)) return found;
    return worse(found, check_range(op, factor, a, hull, count, LapackCheck::kRatioLimit * scale));
}

// GESVD (m >= n) without both U and V^T: descending and not negative, and the power sums of
// their squares against A^H A's, A and S scaled by a power of two first so that A^H A
// neither overflows nor underflows.
template <class T>
std::optional<Finding> check_singular_values(const LapackOp& op, CpuPart blas,
                                             const Dense<T>& unscaled_a) {
    std::vector<std::complex<double>> values = real_values<T>(op.w, op.n);
    if (!in_order(values, false)) {
        Finding found;
        found.take(std::numeric_limits<double>::infinity(), "S descending and not negative");
        return found;
    }
    const int exponent = largest_exponent(unscaled_a);
    const Dense<T> a = times_power_of_two(unscaled_a, -exponent);
    for (std::complex<double>& value : values) {
        value = std::ldexp(value.real(), -exponent);
        value *= value;
    }
    Dense<T> gram(op.n, op.n);
    if (!gemm(blas, 'C', 'N', 1.0, a, a, 0.0, gram)) return std::nullopt;
    const double norm = norm_frobenius(a);
    return check_power_sums(blas, gram, values, norm * norm,
                            2.0 * static_cast<double>(std::max(op.m, op.n)));
}

// GELSD's singular values and effective rank, and a bound on its solution's length, beside
// the residual's orthogonality (check_least_squares):
//   - S as GESVD's without vectors (order, power sums);
//   - RANK, the number of S(i) above xLALSD's threshold rcond S(1) (eps for an rcond <= 0 or
//     >= 1), where no S(i) lies within rounding (kRatioLimit max(m, n) eps S(1)) of it;
//   - each column of X no longer than a minimum-norm solution of that rank can be:
//     X = V_r S_r^-1 U_r^H B gives ||X(:, j)|| <= ||B(:, j)|| / S(RANK), and a solution that
//     kept a singular value it should have dropped is longer by about 1 / S(i); the excess
//     over the bound is measured in max(m, n) eps S(1) / S(RANK), the relative rounding of
//     S(RANK) and of the solution.
template <class T>
std::optional<Finding> check_rank_and_length(const LapackOp& op, CpuPart blas, const Dense<T>& a,
                                             const Dense<T>& b) {
    std::optional<Finding> found = check_singular_values(op, blas, a);
    if (!found || !(found->ratio <= LapackCheck::kRatioLimit)) return found;
    const int64_t m = op.m, n = op.n, rank = *op.found;
    const std::vector<std::complex<double>> values = real_values<T>(op.w, n);
    const double largest = n > 0 ? values[0].real() : 0;
    const double eps = epsilon<T>();
    const double relative = op.rcond <= 0 || op.rcond >= 1 ? eps / 2 : op.rcond;
    const double threshold = relative * largest;
    const double slack =
        LapackCheck::kRatioLimit * static_cast<double>(std::max(m, n)) * eps * largest;
    int64_t surely_above = 0, perhaps_above = 0;
    for (const std::complex<double>& value : values) {
        surely_above += value.real() > threshold + slack ? 1 : 0;
        perhaps_above += value.real() > threshold - slack ? 1 : 0;
    }
    if (rank < surely_above || rank > perhaps_above) {
        found->take(std::numeric_limits<double>::infinity(),
                    "RANK, the number of S(i) above rcond S(1)");
        return found;
    }
    if (rank == 0) return found;
    const double smallest_kept = values[static_cast<std::size_t>(rank - 1)].real();
    const double rounding = static_cast<double>(std::max(m, n)) * eps * largest / smallest_kept;
    const Dense<T> stored = load<T>(op.b, op.ldb, m, op.nrhs);
    for (int64_t j = 0; j < op.nrhs; ++j) {
        long double x_squares = 0, b_squares = 0;
        for (int64_t i = 0; i < n; ++i) x_squares += squared_magnitude(stored(i, j));
        for (int64_t i = 0; i < m; ++i) b_squares += squared_magnitude(b(i, j));
        const long double x_norm = std::sqrt(x_squares), b_norm = std::sqrt(b_squares);
        double excess = 0;
        if (b_norm > 0) {
            excess = static_cast<double>(x_norm / b_norm * smallest_kept - 1);
        } else if (x_norm > 0) {
            excess = std::numeric_limits<double>::infinity();
        }
        found->take(excess <= 0 ? 0.0 : excess / rounding,
                    "(||X(:, j)|| S(RANK) / ||B(:, j)|| - 1) / (max(m, n) eps S(1) / S(RANK))");
    }
    return found;
}

// GEEV without eigenvectors: the power sums of WR + i WI (real), or of W (complex).
template <class T>
std::optional<Finding> check_nonsymmetric_eigenvalues(const LapackOp& op, CpuPart blas,
                                                      const Dense<T>& a) {
    std::vector<std::complex<double>> values(static_cast<std::size_t>(op.n));
    for (int64_t j = 0; j < op.n; ++j) {
        if constexpr (std::is_floating_point_v<T>) {
            values[static_cast<std::size_t>(j)] = {static_cast<const T*>(op.w)[j],
                                                   static_cast<const T*>(op.wi)[j]};
        } else {
            values[static_cast<std::size_t>(j)] =
                std::complex<double>(static_cast<const T*>(op.w)[j]);
        }
    }
    return check_power_sums(blas, a, values, norm_frobenius(a), static_cast<double>(op.n));
}

// SYTRF's factorization A = P L D L^T P^T ('L'; U D U^T for 'U', with L, U products of
// interchanges P(k) and unit triangles L(k), U(k) whose block columns of 1 or 2 multipliers
// sit beside D's 1 x 1 and 2 x 2 blocks, all as LAPACK's xSYTRF stores them in one triangle
// with its pivots), applied to columns: transposes, not conjugates (complex symmetric).
template <class T>
class SymmetricFactors {
  public:
    // The factor at `stored` (leading dimension ld) and the caller's pivots of `op`; false
    // from valid() for pivots out of range or not in LAPACK's pattern.
    SymmetricFactors(const LapackOp& op, const void* stored, int64_t ld)
        : n_(op.n), lower_(op.uplo == 'L'), a_(load<T>(stored, ld, op.n, op.n)) {
        int64_t k = lower_ ? 0 : n_ - 1;
        while (lower_ ? k < n_ : k >= 0) {
            const int64_t pivot = caller_pivot(op, k);
            const bool pair = pivot < 0;
            const int64_t first = lower_ ? k : k - (pair ? 1 : 0);
            if (pivot == 0 || std::abs(pivot) > n_ || (pair && (first < 0 || first + 1 >= n_)) ||
                (pair && caller_pivot(op, lower_ ? k + 1 : k - 1) != pivot)) {
                valid_ = false;
                return;
            }
            // the row interchanged with the block's (second row for 'L' pairs, first for 'U')
            const int64_t swapped = pair ? (lower_ ? k + 1 : k - 1) : k;
            // never interchanged with a row eliminated before it
            if (lower_ ? std::abs(pivot) - 1 < swapped : std::abs(pivot) - 1 > swapped) {
                valid_ = false;
                return;
            }
            blocks_.push_back({first, pair ? 2 : 1, swapped, std::abs(pivot) - 1});
            k += lower_ ? (pair ? 2 : 1) : -(pair ? 2 : 1);
        }
    }

    bool valid() const { return valid_; }

    // w := A w, or with `magnitudes` |P L| |D| |L^T P^T| |w| (w's magnitudes: a bound of the
    // rounding of a solve with these factors).
    void apply(Dense<T>& w, bool magnitudes) const {
        const auto entry = [&](int64_t i, int64_t j) {
            return magnitudes ? T(magnitude(a_(i, j))) : a_(i, j);
        };
        if (magnitudes)
            for (T& value : w.data) value = T(magnitude(value));
        // L^T (U^T): the blocks in the order they were eliminated, interchange first.
        for (const Block& b : blocks_) {
            swap_rows(w, b.swapped, b.with);
            const auto [begin, end] = multiplier_rows(b);
            for (int64_t c = 0; c < b.size; ++c) {
                const int64_t column = b.first + c;
                for (int64_t j = 0; j < w.cols; ++j) {
                    T sum = T(0);
                    for (int64_t i = begin; i < end; ++i) sum += entry(i, column) * w(i, j);
                    w(column, j) += sum;
                }
            }
        }
        // D
        for (const Block& b : blocks_) {
            const int64_t k = b.first;
            for (int64_t j = 0; j < w.cols; ++j) {
                if (b.size == 1) {
                    w(k, j) = entry(k, k) * w(k, j);
                    continue;
                }
                const T off = lower_ ? entry(k + 1, k) : entry(k, k + 1);
                const T top = entry(k, k) * w(k, j) + off * w(k + 1, j);
                w(k + 1, j) = off * w(k, j) + entry(k + 1, k + 1) * w(k + 1, j);
                w(k, j) = top;
            }
        }
        // L (U): the blocks in reverse, interchange last.
        for (auto b = blocks_.rbegin(); b != blocks_.rend(); ++b) {
            const auto [begin, end] = multiplier_rows(*b);
            for (int64_t j = 0; j < w.cols; ++j)
                for (int64_t c = 0; c < b->size; ++c)
                    for (int64_t i = begin; i < end; ++i)
                        w(i, j) += entry(i, b->first + c) * w(b->first + c, j);
            swap_rows(w, b->swapped, b->with);
        }
    }

  private:
    struct Block {
        int64_t first;  // its first row and column
        int64_t size;   // 1 or 2
        int64_t swapped, with;
    };

    // The rows [begin, end) of a block's multipliers: below it ('L') or above it ('U').
    std::pair<int64_t, int64_t> multiplier_rows(const Block& b) const {
        return lower_ ? std::pair{b.first + b.size, n_} : std::pair{int64_t{0}, b.first};
    }

    static void swap_rows(Dense<T>& w, int64_t i, int64_t p) {
        if (i == p) return;
        for (int64_t j = 0; j < w.cols; ++j) std::swap(w(i, j), w(p, j));
    }

    int64_t n_;
    bool lower_;
    Dense<T> a_;
    std::vector<Block> blocks_;
    bool valid_ = true;
};

// Columns of pseudo-random reals in [-1, 1], which a factorization is checked on (Freivalds):
// the errors whose products with all of them vanish are a set of measure zero.
template <class T>
Dense<T> probes(int64_t n) {
    constexpr int64_t kProbes = 4;
    Dense<T> r(n, kProbes);
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (T& value : r.data) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        value = T(static_cast<double>(state >> 11) * 0x1p-52 - 1.0);
    }
    return r;
}

// M's size as the probes R see it: the largest ||M r||_inf, a lower bound of ||M||_inf for
// probes of ||r||_inf <= 1 (of ||M||_1 too, for M symmetric).
template <class T>
double probed_norm(const Dense<T>& product) {
    double largest = 0;
    for (const T& value : product.data) largest = larger(largest, magnitude(value));
    return largest;
}

// The symmetric (complex symmetric for c, z: not Hermitian) matrix of A's `uplo` triangle.
template <class T>
Dense<T> symmetric_of(const Dense<T>& stored, char uplo) {
    Dense<T> a(stored.rows, stored.cols);
    for (int64_t j = 0; j < a.cols; ++j)
        for (int64_t i = 0; i < a.rows; ++i)
            a(i, j) = (uplo == 'U') == (i <= j) ? stored(i, j) : stored(j, i);
    return a;
}

// ||A||_1 = ||A||_inf of the factored A, estimated as LAPACK's xLACN2 does (Hager, Higham):
// a lower bound, within a small factor in practice, at a few products with A.
template <class T>
double estimated_norm(const SymmetricFactors<T>& factors, int64_t n) {
    Dense<T> x(n, 1);
    for (T& value : x.data) value = T(1.0 / static_cast<double>(n));
    double estimate = 0;
    for (int iteration = 0; iteration < 5; ++iteration) {
        Dense<T> y = x;
        factors.apply(y, false);
        const double norm = norm_one(y);
        if (iteration > 0 && norm <= estimate) break;
        estimate = norm;
        // z = A^H sign(y) (A^H = conj(A) for complex symmetric A)
        Dense<T> z(n, 1);
        for (int64_t i = 0; i < n; ++i) {
            const double size = magnitude(y(i, 0));
            z(i, 0) = size == 0 ? T(1) : conjugated(y(i, 0)) / static_cast<Real<T>>(size);
        }
        factors.apply(z, false);
        int64_t best = 0;
        for (int64_t i = 1; i < n; ++i)
            if (magnitude(z(i, 0)) > magnitude(z(best, 0))) best = i;
        x = Dense<T>(n, 1);
        x(best, 0) = T(1);
    }
    return estimate;
}

// SYTRF (and SYSV's factors): ||(P L D L^T P^T - A) r|| / (n ||A|| ||r|| eps) in
// infinity-norms for the probes r (LAPACK's xSYT01 ratio on r: Bunch-Kaufman's element growth
// is small in practice).
template <class T>
std::optional<Finding> check_symmetric_factors(const LapackOp& op, CpuPart blas,
                                               const Dense<T>& a_stored) {
    const SymmetricFactors<T> factors(op, op.a, op.lda);
    Finding found;
    if (!factors.valid()) {
        found.take(std::numeric_limits<double>::infinity(), "SYTRF's pivots as LAPACK's");
        return found;
    }
    const Dense<T> a = symmetric_of(a_stored, op.uplo);
    const Dense<T> r = probes<T>(op.n);
    Dense<T> product = r;
    factors.apply(product, false);
    if (!gemm(blas, 'N', 'N', -1.0, a, r, 1.0, product)) return std::nullopt;
    found.take(
        ratio<T>(probed_norm(product), static_cast<double>(op.n) * norm_one(a) * epsilon<T>()),
        "||(L D L^T - A) r|| / (n ||A|| ||r|| eps) for probes r");
    return found;
}

// SYTRS: |b - A x| / (n |L| |D| |L^T| |x| eps) element by element, A from the factors given.
template <class T>
std::optional<Finding> check_symmetric_solve_with_factors(const LapackOp& op, const Dense<T>& b) {
    const SymmetricFactors<T> factors(op, op.a, op.lda);
    if (!factors.valid()) return std::nullopt;  // the caller's pivots: LAPACK's answer stands
    const Dense<T> x = load<T>(op.b, op.ldb, op.n, op.nrhs);
    Dense<T> product = x, scale = x;
    factors.apply(product, false);
    factors.apply(scale, true);
    return componentwise_residual(b, product, scale, op.n,
                                  "max |b - A x| / (n |L| |D| |L^T| |x| eps), A from its factors");
}

// SYTRI: ||(A X - I) r|| / (n ||A|| ||X|| ||r|| eps) in infinity-norms for the probes r, A
// from the factors copied before the device ran (its norm estimated: A itself would cost
// O(n^3) scalar work here), X symmetric from its triangle.
template <class T>
std::optional<Finding> check_symmetric_inverse(const LapackOp& op, CpuPart blas,
                                               const Dense<T>& factors_stored) {
    const SymmetricFactors<T> factors(op, factors_stored.data.data(), op.n);
    if (!factors.valid()) return std::nullopt;
    const Dense<T> inverse = symmetric_of(load<T>(op.a, op.lda, op.n, op.n), op.uplo);
    const Dense<T> r = probes<T>(op.n);
    Dense<T> product(op.n, r.cols);
    if (!gemm(blas, 'N', 'N', 1.0, inverse, r, 0.0, product)) return std::nullopt;
    factors.apply(product, false);
    for (std::size_t e = 0; e < product.data.size(); ++e) product.data[e] -= r.data[e];
    Finding found;
    found.take(
        ratio<T>(probed_norm(product), static_cast<double>(op.n) * estimated_norm(factors, op.n) *
                                           norm_one(inverse) * epsilon<T>()),
        "||(A X - I) r|| / (n ||A|| ||X|| ||r|| eps) for probes r");
    return found;
}

// SYSV: ||B - A X|| / (n ||A|| ||X|| eps) (LAPACK's xSYT02) for A symmetric (complex symmetric
// for c, z: not Hermitian) from its `uplo` triangle: normwise, as the Bunch-Kaufman
// factorization's backward error is (with its element growth).
template <class T>
std::optional<Finding> check_symmetric_solve(const LapackOp& op, CpuPart blas,
                                             const Dense<T>& a_stored, const Dense<T>& b) {
    const Dense<T> a = symmetric_of(a_stored, op.uplo);
    const Dense<T> x = load<T>(op.b, op.ldb, op.n, op.nrhs);
    Dense<T> residual = b;
    if (!gemm(blas, 'N', 'N', -1.0, a, x, 1.0, residual)) return std::nullopt;
    Finding found;
    found.take(ratio<T>(norm_one(residual),
                        static_cast<double>(op.n) * norm_one(a) * norm_one(x) * epsilon<T>()),
               "||B - A X|| / (n ||A|| ||X|| eps)");
    return found;
}

// SYGVD without eigenvectors: B's Cholesky factor the device left, as POTRF's, and the
// values as those of the standard problem LAPACK reduces it to (xSYGST), C = L^-1 A L^-H
// (U^-H A U^-1 for 'U') for type 1, L^H A L (U A U^H) for types 2 and 3, formed here from
// that factor: ascending, and their power sums in units of ||A|| ||F||^2 (F the triangle or
// its inverse that forms C) where that exceeds ||C||.
template <class T>
std::optional<Finding> check_generalized_eigenvalues(const LapackOp& op, CpuPart blas,
                                                     const Dense<T>& a_stored,
                                                     const Dense<T>& b_stored) {
    std::optional<Finding> found = check_potrf(op, blas, b_stored, op.b, op.ldb);
    if (!found) return std::nullopt;
    const std::vector<std::complex<double>> values = real_values<T>(op.w, op.n);
    if (!in_order(values, true)) {
        found->take(std::numeric_limits<double>::infinity(), "W ascending");
        return found;
    }
    const Dense<T> factor = triangle(load<T>(op.b, op.ldb, op.n, op.n), op.uplo);
    const bool lower = op.uplo == 'L';
    // C = F (F A)^H for F = L^-1 (U^-H) or L^H (U), A Hermitian.
    const gpushim_blas3_kind kind = op.itype == 1 ? GPUSHIM_TRSM : GPUSHIM_TRMM;
    const char trans = (op.itype == 1) == lower ? 'N' : 'C';
    Dense<T> c = hermitian(a_stored, op.uplo);
    const double norm_a = norm_frobenius(c);
    if (!triangular(blas, kind, op.uplo, trans, 'N', factor, c)) return std::nullopt;
    Dense<T> adjoint(op.n, op.n);
    for (int64_t j = 0; j < op.n; ++j)
        for (int64_t i = 0; i < op.n; ++i) adjoint(i, j) = conjugated(c(j, i));
    if (!triangular(blas, kind, op.uplo, trans, 'N', factor, adjoint)) return std::nullopt;
    // C's rounding, here and in the device's reduction, is of ||A|| ||F||_2^2, which an
    // ill-conditioned B makes far larger than ||C|| (LAPACK's error bound for the problem
    // grows with B's condition too): the power sums in units of that.
    const std::optional<double> squared_norm = op.itype == 1
                                                   ? inverse_norms(blas, op.uplo, factor)
                                                   : norm_one(factor) * norm_infinity(factor);
    if (!squared_norm) return std::nullopt;
    const double scale = larger(norm_frobenius(adjoint),
                                norm_a * *squared_norm);
    return worse(found, check_power_sums(blas, adjoint, values, scale, static_cast<double>(op.n)));
}

// Whether the check reads A as the caller passed it, which the device overwrites (the solves
// with given factors only read theirs), and B.
bool reads_a(const LapackOp& op) {
    return op.kind != GPUSHIM_GETRS && op.kind != GPUSHIM_POTRS && op.kind != GPUSHIM_TRTRS &&
           op.kind != GPUSHIM_ORMQR && op.kind != GPUSHIM_SYTRS;
}
bool reads_b(const LapackOp& op) {
    return op.kind == GPUSHIM_GESV || op.kind == GPUSHIM_POSV || op.kind == GPUSHIM_GETRS ||
           op.kind == GPUSHIM_POTRS || op.kind == GPUSHIM_TRTRS || op.kind == GPUSHIM_ORMQR ||
           op.kind == GPUSHIM_SYGVD || op.kind == GPUSHIM_GELS || op.kind == GPUSHIM_GELSD ||
           op.kind == GPUSHIM_SYSV || op.kind == GPUSHIM_SYTRS;
}
int64_t a_rows(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_GETRF:
        case GPUSHIM_GESVD:
        case GPUSHIM_GEQRF:
        case GPUSHIM_ORGQR:
        case GPUSHIM_GELS:
        case GPUSHIM_GELSD:
            return op.m;
        default:
            return op.n;
    }
}
// B's shape: ORMQR's m x n C, SYGVD's n x n B, the least-squares drivers' m x nrhs, else
// n x nrhs right-hand sides.
int64_t b_rows(const LapackOp& op) {
    return op.kind == GPUSHIM_ORMQR || op.kind == GPUSHIM_GELS || op.kind == GPUSHIM_GELSD ? op.m
                                                                                           : op.n;
}
int64_t b_cols(const LapackOp& op) {
    return op.kind == GPUSHIM_ORMQR ? op.n : op.kind == GPUSHIM_SYGVD ? op.n : op.nrhs;
}

// Whether a packed copy holds an Inf or a NaN.
template <class T>
bool any_not_finite(const std::vector<std::byte>& bytes) {
    const auto* values = reinterpret_cast<const T*>(bytes.data());
    for (std::size_t e = 0; e < bytes.size() / sizeof(T); ++e) {
        if (!std::isfinite(std::real(values[e])) || !std::isfinite(std::imag(values[e])))
            return true;
    }
    return false;
}

// The ratios of the call's routine (lapack_checked holds), or nothing where a product failed.
template <class T>
std::optional<Finding> ratios_of(const LapackOp& op, CpuPart blas, CpuSymmetricFactor factor,
                                 const std::vector<std::byte>& a_bytes,
                                 const std::vector<std::byte>& b_bytes) {
    const auto packed = [](const std::vector<std::byte>& bytes, int64_t rows, int64_t cols) {
        return load<T>(bytes.data(), rows, rows, cols);
    };
    const int64_t rows = a_rows(op);
    switch (op.kind) {
        case GPUSHIM_GETRF:
            return check_getrf(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_POTRF:
            return check_potrf(op, blas, packed(a_bytes, rows, op.n), op.a, op.lda);
        case GPUSHIM_GESV:
        case GPUSHIM_POSV: {  // the factors they leave in A, and the solutions
            const Dense<T> a = packed(a_bytes, rows, op.n);
            return worse(op.kind == GPUSHIM_GESV ? check_getrf(op, blas, a)
                                                 : check_potrf(op, blas, a, op.a, op.lda),
                         check_solve_with_factors(op, blas, packed(b_bytes, op.n, op.nrhs)));
        }
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_TRTRS:
            return check_solve_with_factors(op, blas, packed(b_bytes, op.n, op.nrhs));
        case GPUSHIM_SYEVR:
            if (op.jobz == 'V')
                return check_eigen_subset(op, blas, factor, packed(a_bytes, rows, op.n));
            return op.range == 'A'
                       ? check_eigenvalues(op, blas, packed(a_bytes, rows, op.n))
                       : check_eigenvalue_subset(op, factor, packed(a_bytes, rows, op.n));
        case GPUSHIM_SYEVD:
            return op.jobz == 'V' ? check_eigen(op, blas, packed(a_bytes, rows, op.n))
                                  : check_eigenvalues(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_GESVD:
            return op.jobu != 'N' && op.jobvt != 'N'
                       ? check_svd(op, blas, packed(a_bytes, rows, op.n))
                       : check_singular_values(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_GETRI:
        case GPUSHIM_POTRI:
        case GPUSHIM_TRTRI:
            return check_inverse(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_GEEV:
            return op.jobz == 'V'
                       ? check_nonsymmetric_eigen(op, blas, packed(a_bytes, rows, op.n))
                       : check_nonsymmetric_eigenvalues(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_GEQRF:
            return check_geqrf(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_ORGQR:
            return check_orgqr(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_ORMQR:
            return check_ormqr(op, blas, packed(b_bytes, op.m, op.n));
        case GPUSHIM_SYGVD:
            return op.jobz == 'V'
                       ? check_generalized_eigen(op, blas, packed(a_bytes, rows, op.n),
                                                 packed(b_bytes, op.n, op.n))
                       : check_generalized_eigenvalues(op, blas, packed(a_bytes, rows, op.n),
                                                       packed(b_bytes, op.n, op.n));
        case GPUSHIM_SYSV: {  // the factors it leaves, and the solution
            const Dense<T> a = packed(a_bytes, rows, op.n);
            return worse(check_symmetric_factors(op, blas, a),
                         check_symmetric_solve(op, blas, a, packed(b_bytes, op.n, op.nrhs)));
        }
        case GPUSHIM_SYTRF:
            return check_symmetric_factors(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_SYTRS:
            return check_symmetric_solve_with_factors(op, packed(b_bytes, op.n, op.nrhs));
        case GPUSHIM_SYTRI:
            return check_symmetric_inverse(op, blas, packed(a_bytes, rows, op.n));
        case GPUSHIM_GELS:
            return check_least_squares(op, blas, packed(a_bytes, rows, op.n),
                                       packed(b_bytes, op.m, op.nrhs));
        case GPUSHIM_GELSD: {
            const Dense<T> a = packed(a_bytes, rows, op.n);
            const Dense<T> b = packed(b_bytes, op.m, op.nrhs);
            return worse(check_least_squares(op, blas, a, b),
                         check_rank_and_length(op, blas, a, b));
        }
        default:
            return std::nullopt;
    }
}

// The call's ratios; nothing where they cannot be had, or mean nothing: a ratio that is not
// finite, from inputs holding an Inf or a NaN (LAPACK's answer is no better known than the
// device's).
template <class T>
std::optional<Finding> check_call(const LapackOp& op, CpuPart blas, CpuSymmetricFactor factor,
                                  const std::vector<std::byte>& a_bytes,
                                  const std::vector<std::byte>& b_bytes) {
    const std::optional<Finding> found = ratios_of<T>(op, blas, factor, a_bytes, b_bytes);
    if (found && !std::isfinite(found->ratio) &&
        (any_not_finite<T>(a_bytes) || any_not_finite<T>(b_bytes)))
        return std::nullopt;
    return found;
}

// The caller's matrix at `where` (leading dimension ld), copied to `bytes`, or back.
// Only the `uplo` triangle ('U', 'L'; anything else: all of it) goes back to the caller.
void copy_packed(std::byte* packed, std::byte* caller, int64_t ld, int64_t rows, int64_t cols,
                 std::size_t element, bool to_caller, char uplo = 'A') {
    for (int64_t j = 0; j < cols; ++j) {
        const int64_t first = to_caller && uplo == 'L' ? std::min(j, rows) : 0;
        const int64_t end = to_caller && uplo == 'U' ? std::min(j + 1, rows) : rows;
        std::byte* theirs = caller + static_cast<std::size_t>(j * ld + first) * element;
        std::byte* ours = packed + static_cast<std::size_t>(j * rows + first) * element;
        const std::size_t bytes = static_cast<std::size_t>(end - first) * element;
        if (to_caller) {
            std::memcpy(theirs, ours, bytes);
        } else {
            std::memcpy(ours, theirs, bytes);
        }
    }
}

}  // namespace

bool lapack_checked(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_GETRF:
        case GPUSHIM_POTRF:
        case GPUSHIM_GESV:
        case GPUSHIM_POSV:
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_TRTRS:
        case GPUSHIM_GETRI:
        case GPUSHIM_POTRI:
        case GPUSHIM_TRTRI:
        case GPUSHIM_GEQRF:
        case GPUSHIM_ORGQR:
        case GPUSHIM_ORMQR:
        case GPUSHIM_GELS:
        case GPUSHIM_GELSD:
        case GPUSHIM_SYSV:
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYTRS:
        case GPUSHIM_SYTRI:
            return true;
        case GPUSHIM_SYEVD:
        case GPUSHIM_SYEVR:
        case GPUSHIM_GEEV:
            return true;

        case GPUSHIM_SYGVD:
            return true;
        case GPUSHIM_GESVD:
            return op.m >= op.n;
        default:
            return false;
    }
}

LapackCheck::LapackCheck(const LapackOp& op, CpuPart blas, CpuSymmetricFactor symmetric_factor)
    : op_(op), blas_(blas), symmetric_factor_(symmetric_factor) {
    if (!lapack_checked(op)) return;
    const std::size_t element = element_size(op.precision);
    try {
        if (reads_a(op)) a_.resize(static_cast<std::size_t>(a_rows(op) * op.n) * element);
        if (reads_b(op)) b_.resize(static_cast<std::size_t>(b_rows(op) * b_cols(op)) * element);
    } catch (const std::exception&) {
        return;
    }
    if (reads_a(op))
        copy_packed(a_.data(), static_cast<std::byte*>(op.a), op.lda, a_rows(op), op.n, element,
                    false);
    if (reads_b(op))
        copy_packed(b_.data(), static_cast<std::byte*>(op.b), op.ldb, b_rows(op), b_cols(op),
                    element, false);
    copied_ = true;
}

Verdict LapackCheck::finish() {
    if (!copied_) return Verdict::unchecked;
    std::optional<Finding> found;
    try {
        switch (op_.precision) {
            case GPUSHIM_PREC_S:
                found = check_call<float>(op_, blas_, symmetric_factor_, a_, b_);
                break;
            case GPUSHIM_PREC_D:
                found = check_call<double>(op_, blas_, symmetric_factor_, a_, b_);
                break;
            case GPUSHIM_PREC_C:
                found = check_call<std::complex<float>>(op_, blas_, symmetric_factor_, a_, b_);
                break;
            case GPUSHIM_PREC_Z:
                found = check_call<std::complex<double>>(op_, blas_, symmetric_factor_, a_, b_);
                break;
        }
    } catch (const std::exception&) {  // no memory for the check: the result stands
        return Verdict::unchecked;
    }
    if (!found) return Verdict::unchecked;
    if (found->ratio <= kRatioLimit) return Verdict::agreed;
    std::snprintf(difference_, sizeof difference_, "%s = %.3g (at most %g)", found->what,
                  found->ratio, kRatioLimit);
    const std::size_t element = element_size(op_.precision);
    // POTRF, POSV, POTRI, TRTRI, SYSV, SYTRF and SYTRI read and write one triangle: another
    // thread may own the other. SYGVD writes all of A (its eigenvectors), one triangle of B.
    const bool triangle = op_.kind == GPUSHIM_POTRF || op_.kind == GPUSHIM_POSV ||
                          op_.kind == GPUSHIM_POTRI || op_.kind == GPUSHIM_TRTRI ||
                          op_.kind == GPUSHIM_SYSV || op_.kind == GPUSHIM_SYTRF ||
                          op_.kind == GPUSHIM_SYTRI;
    if (reads_a(op_))
        copy_packed(a_.data(), static_cast<std::byte*>(op_.a), op_.lda, a_rows(op_), op_.n, element,
                    true, triangle ? op_.uplo : 'A');
    if (reads_b(op_))
        copy_packed(b_.data(), static_cast<std::byte*>(op_.b), op_.ldb, b_rows(op_), b_cols(op_),
                    element, true, op_.kind == GPUSHIM_SYGVD ? op_.uplo : 'A');
    return Verdict::differed;
}

}  // namespace gpushim
