// GPUSHIM_VERIFY's check of a Level-3 BLAS call (dispatch/blas3_check.h), against a "device"
// that computes the exact result in long double by its definition on whole matrices, rounded
// to the precision (as accurate as a device can be, and summed otherwise than the CPU library
// does): every routine, precision and flag agrees, with operands whose rows and columns span
// many orders of magnitude (a bound built from the wrong rows or columns would be too small
// somewhere); one element changed beyond rounding is found, and the CPU library's result
// replaces the device's, in the part of the output the routine writes only.
#include "dispatch/blas3_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "fallback/fortran_blas3.h"
#include "tests/unit/cpu_library_calls.h"
#include "tests/unit/exact_matrices.h"

namespace gpushim {
namespace {

using test::kComplex;
using test::Real;
using test::Wide;

using test::cpu_part;
using test::precision_of;

// Equal bit for bit, NaNs (the padding beyond each column) included.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// A dense matrix of wide elements, column-major.
template <class W>
struct Dense {
    int64_t rows = 0, cols = 0;
    std::vector<W> data;
    Dense(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<std::size_t>(r * c)) {}
    W& operator()(int64_t i, int64_t j) { return data[static_cast<std::size_t>(i + j * rows)]; }
    W operator()(int64_t i, int64_t j) const {
        return data[static_cast<std::size_t>(i + j * rows)];
    }
};

template <class W>
Dense<W> product(const Dense<W>& left, const Dense<W>& right) {
    Dense<W> result(left.rows, right.cols);
    for (int64_t j = 0; j < right.cols; ++j)
        for (int64_t i = 0; i < left.rows; ++i) {
            W sum{};
            for (int64_t l = left.cols - 1; l >= 0; --l) sum += left(i, l) * right(l, j);
            result(i, j) = sum;
        }
    return result;
}

// The stored matrix `m` (rows x cols, leading dimension ld) as the routine reads it: op()
// applied ('N', 'T', 'C'), one triangle of a symmetric ('S') or Hermitian ('H') matrix
// mirrored, or a triangular one ('U' unit diagonal, 'D' not) with the rest zero.
template <class T>
Dense<Wide<T>> as_read(const std::vector<T>& m, int64_t ld, int64_t rows, int64_t cols, char trans,
                       char structure = 'G', char uplo = 'U') {
    using W = Wide<T>;
    Dense<W> full(rows, cols);
    // m(j, i) exists only where the matrix is square (symmetric, Hermitian): read it only then
    const auto element = [&](int64_t r, int64_t c) {
        return static_cast<W>(m[static_cast<std::size_t>(r + c * ld)]);
    };
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            const bool stored = uplo == 'U' ? i <= j : i >= j;
            const W value = element(i, j);
            switch (structure) {
                case 'S':
                    full(i, j) = stored ? value : element(j, i);
                    break;
                case 'H':
                    full(i, j) = i == j   ? W(std::real(value))
                                 : stored ? value
                                          : test::conjugate(element(j, i));
                    break;
                case 'U':
                case 'D':
                    full(i, j) = i == j && structure == 'U' ? W(1) : stored ? value : W{};
                    break;
                default:
                    full(i, j) = value;
            }
        }
    if (trans == 'N') return full;
    Dense<W> transposed(cols, rows);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i)
            transposed(j, i) = trans == 'C' ? test::conjugate(full(i, j)) : full(i, j);
    return transposed;
}

// Solves op(T) X = B (left) or X op(T) = B (right) by substitution on the dense op(T).
template <class W>
Dense<W> solve(const Dense<W>& t, Dense<W> b, bool left) {
    const int64_t order = t.rows;
    bool lower = true;
    for (int64_t j = 1; j < order && lower; ++j)
        for (int64_t i = 0; i < j; ++i) lower = lower && t(i, j) == W{};
    const int64_t count = left ? b.cols : b.rows;
    for (int64_t v = 0; v < count; ++v) {
        // Left: column v of B against T; right: row v of B against T^T.
        auto entry = [&](int64_t i) -> W& { return left ? b(i, v) : b(v, i); };
        auto coefficient = [&](int64_t i, int64_t j) { return left ? t(i, j) : t(j, i); };
        const bool forward = left ? lower : !lower;
        for (int64_t step = 0; step < order; ++step) {
            const int64_t i = forward ? step : order - 1 - step;
            W sum = entry(i);
            for (int64_t s = 0; s < step; ++s) {
                const int64_t j = forward ? s : order - 1 - s;
                sum -= coefficient(i, j) * entry(j);
            }
            entry(i) = sum / coefficient(i, i);
        }
    }
    return b;
}

template <class W>
W scalar(const double (&value)[2]) {
    if constexpr (std::is_floating_point_v<W>) {
        return static_cast<W>(value[0]);
    } else {
        return W(value[0], value[1]);
    }
}

// The exact result of the call, from its operands as they are now.
template <class T>
Dense<Wide<T>> exact_result(const Blas3Op& op, const std::vector<T>& a, const std::vector<T>& b,
                            const std::vector<T>& c) {
    using W = Wide<T>;
    const W alpha = scalar<W>(op.alpha), beta = scalar<W>(op.beta);
    const MatrixExtent ea = operand_extent(op, Operand::a), eb = operand_extent(op, Operand::b);
    const auto read_a = [&](char trans, char structure = 'G') {
        return as_read(a, op.lda, ea.rows, ea.cols, trans, structure, op.uplo);
    };
    const auto read_b = [&](char trans) { return as_read(b, op.ldb, eb.rows, eb.cols, trans); };
    const bool left = op.side == 'L';
    const char other = op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K ? 'C' : 'T';
    Dense<W> sum(0, 0);
    switch (op.kind) {
        case GPUSHIM_GEMM:
            sum = product(read_a(op.transa), read_b(op.transb));
            break;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM: {
            const Dense<W> s = read_a('N', op.kind == GPUSHIM_HEMM ? 'H' : 'S');
            sum = left ? product(s, read_b('N')) : product(read_b('N'), s);
            break;
        }
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK: {
            const char inverse = op.transa == 'N' ? other : 'N';
            sum = product(read_a(op.transa == 'N' ? 'N' : op.transa), read_a(inverse));
            break;
        }
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K: {
            const char inverse = op.transa == 'N' ? other : 'N';
            const Dense<W> ab = product(read_a(op.transa), read_b(inverse));
            const Dense<W> ba = product(read_b(op.transa), read_a(inverse));
            sum = ab;
            for (std::size_t e = 0; e < sum.data.size(); ++e)
                sum.data[e] =
                    alpha * ab.data[e] +
                    (op.kind == GPUSHIM_HER2K ? test::conjugate(alpha) : alpha) * ba.data[e];
            break;
        }
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM: {
            const Dense<W> t = read_a(op.transa, op.diag == 'U' ? 'U' : 'D');
            const Dense<W> bb = as_read(b, op.ldb, op.m, op.n, 'N');
            if (op.kind == GPUSHIM_TRMM) {
                sum = left ? product(t, bb) : product(bb, t);
            } else {
                Dense<W> scaled = bb;
                for (W& value : scaled.data) value *= alpha;
                return solve(t, scaled, left);
            }
            break;
        }
    }
    const bool has_c = op.kind != GPUSHIM_TRMM;
    const bool rank_2k = op.kind == GPUSHIM_SYR2K || op.kind == GPUSHIM_HER2K;
    const bool hermitian = op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K;
    for (int64_t j = 0; j < sum.cols; ++j)
        for (int64_t i = 0; i < sum.rows; ++i) {
            W value = rank_2k ? sum(i, j) : alpha * sum(i, j);
            if (has_c && !(op.beta[0] == 0 && op.beta[1] == 0))
                value += beta * static_cast<W>(c[static_cast<std::size_t>(i + j * op.ldc)]);
            // A Hermitian update's diagonal is real: BLAS sets its imaginary parts to zero.
            sum(i, j) = hermitian && i == j ? W(std::real(value)) : value;
        }
    return sum;
}

struct Case {
    gpushim_blas3_kind kind;
    char transa = 'N', transb = 'N', side = 'L', uplo = 'U', diag = 'N';
};

std::string describe(const Case& c, gpushim_precision precision) {
    static constexpr const char* kNames[] = {"GEMM",  "SYMM",  "HEMM", "SYRK", "HERK",
                                             "SYR2K", "HER2K", "TRMM", "TRSM"};
    return std::string("SDCZ").substr(precision, 1) + kNames[c.kind] + " transa=" + c.transa +
           " transb=" + c.transb + " side=" + c.side + " uplo=" + c.uplo + " diag=" + c.diag;
}

// Every routine of the precision with each of its flags.
std::vector<Case> cases(bool complex) {
    std::vector<Case> all;
    const std::string transpositions = complex ? "NTC" : "NT";
    for (char ta : transpositions)
        for (char tb : transpositions) all.push_back({GPUSHIM_GEMM, ta, tb});
    for (char side : {'L', 'R'})
        for (char uplo : {'U', 'L'}) {
            all.push_back({GPUSHIM_SYMM, 'N', 'N', side, uplo});
            if (complex) all.push_back({GPUSHIM_HEMM, 'N', 'N', side, uplo});
            for (char ta : transpositions)
                for (char diag : {'N', 'U'}) {
                    all.push_back({GPUSHIM_TRMM, ta, 'N', side, uplo, diag});
                    all.push_back({GPUSHIM_TRSM, ta, 'N', side, uplo, diag});
                }
        }
    for (char uplo : {'U', 'L'})
        for (char trans : {'N', complex ? 'C' : 'T'}) {
            if (trans == 'N' || !complex) {
                all.push_back({GPUSHIM_SYRK, trans, 'N', 'L', uplo});
                all.push_back({GPUSHIM_SYR2K, trans, 'N', 'L', uplo});
            }
            if (complex) {
                all.push_back({GPUSHIM_HERK, trans, 'N', 'L', uplo});
                all.push_back({GPUSHIM_HER2K, trans, 'N', 'L', uplo});
            }
        }
    if (complex) {
        all.push_back({GPUSHIM_SYRK, 'T', 'N', 'L', 'L'});
        all.push_back({GPUSHIM_SYR2K, 'T', 'N', 'L', 'U'});
    }
    return all;
}

// Operands of a call: entries in [-1, 1] scaled by 10^(i mod 7) along rows and 10^-(j mod 5)
// along columns, so that rows and columns differ by orders of magnitude. A triangular
// matrix gets a diagonal at least as large as its rows, so that solves stay finite.
template <class T>
struct Operands {
    static constexpr int64_t kM = 37, kN = 29, kK = 23, kPad = 3;
    Blas3Op op{};
    std::vector<T> a, b, c;

    Operands(const Case& shape, std::mt19937_64& rng) {
        op.kind = shape.kind;
        op.precision = precision_of<T>();
        op.transa = shape.transa;
        op.transb = shape.transb;
        op.side = shape.side;
        op.uplo = shape.uplo;
        op.diag = shape.diag;
        const bool rank_update = shape.kind == GPUSHIM_SYRK || shape.kind == GPUSHIM_HERK ||
                                 shape.kind == GPUSHIM_SYR2K || shape.kind == GPUSHIM_HER2K;
        op.m = rank_update ? 0 : kM;
        op.n = kN;
        op.k = shape.kind == GPUSHIM_GEMM || rank_update ? kK : 0;
        op.alpha[0] = 0.75;
        op.alpha[1] = kComplex<T> && shape.kind != GPUSHIM_HERK ? -0.5 : 0.0;
        op.beta[0] = 1.25;
        op.beta[1] =
            kComplex<T> && shape.kind != GPUSHIM_HERK && shape.kind != GPUSHIM_HER2K ? 0.25 : 0.0;
        const MatrixExtent ea = operand_extent(op, Operand::a);
        const MatrixExtent eb = operand_extent(op, Operand::b);
        const MatrixExtent ec = operand_extent(op, Operand::c);
        op.lda = ea.rows + kPad;
        op.ldb = std::max<int64_t>(eb.rows, 1) + kPad;
        op.ldc = std::max<int64_t>(ec.rows, 1) + kPad;
        a = filled(ea, op.lda, rng);
        b = filled(eb, op.ldb, rng);
        c = filled(ec, op.ldc, rng);
        if (shape.kind == GPUSHIM_TRMM || shape.kind == GPUSHIM_TRSM) {
            // Diagonally dominant rows and columns, so that solutions of op(T) stay within
            // range: a diagonal of twice the largest entry of its row and column, or with a
            // unit diagonal, entries of at most 1 / (2 order).
            const int64_t order = ea.rows;
            const auto at = [&](int64_t i, int64_t j) -> T& {
                return a[static_cast<std::size_t>(i + j * op.lda)];
            };
            const auto stored = [&](int64_t i, int64_t j) {
                return i != j && (shape.uplo == 'U' ? i < j : i > j);
            };
            std::vector<Real<T>> largest(static_cast<std::size_t>(order), 0);
            Real<T> overall = 0;
            for (int64_t j = 0; j < order; ++j)
                for (int64_t i = 0; i < order; ++i)
                    if (stored(i, j)) {
                        const Real<T> magnitude = std::abs(at(i, j));
                        largest[static_cast<std::size_t>(i)] =
                            std::max(largest[static_cast<std::size_t>(i)], magnitude);
                        largest[static_cast<std::size_t>(j)] =
                            std::max(largest[static_cast<std::size_t>(j)], magnitude);
                        overall = std::max(overall, magnitude);
                    }
            for (int64_t j = 0; j < order; ++j)
                for (int64_t i = 0; i < order; ++i)
                    if (shape.diag == 'U' && stored(i, j)) {
                        at(i, j) /= T(2 * overall * static_cast<Real<T>>(order));
                    } else if (shape.diag != 'U' && i == j) {
                        at(i, i) = T(2 * largest[static_cast<std::size_t>(i)] + 1);
                    }
        }
        op.a = a.data();
        op.b = b.data();
        op.c = c.data();
    }

    static std::vector<T> filled(MatrixExtent extent, int64_t ld, std::mt19937_64& rng) {
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        std::vector<T> m(static_cast<std::size_t>(ld * std::max<int64_t>(extent.cols, 1)),
                         T(std::numeric_limits<Real<T>>::quiet_NaN()));
        for (int64_t j = 0; j < extent.cols; ++j)
            for (int64_t i = 0; i < extent.rows; ++i) {
                const double scale = std::pow(10.0, static_cast<double>(i % 7 - j % 5));
                T value;
                if constexpr (kComplex<T>) {
                    value = T(static_cast<Real<T>>(uniform(rng) * scale),
                              static_cast<Real<T>>(uniform(rng) * scale));
                } else {
                    value = static_cast<T>(uniform(rng) * scale);
                }
                m[static_cast<std::size_t>(i + j * ld)] = value;
            }
        return m;
    }

    std::vector<T>& output() { return op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM ? b : c; }
    int64_t output_ld() const {
        return op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM ? op.ldb : op.ldc;
    }
    bool written(int64_t i, int64_t j) const {
        if (!writes_triangle_only(op)) return true;
        return op.uplo == 'U' ? i <= j : i >= j;
    }
};

template <class T>
void check_every_routine() {
    std::mt19937_64 rng(11);
    for (const Case& shape : cases(kComplex<T>)) {
        SCOPED_TRACE(describe(shape, precision_of<T>()));
        for (bool beta_zero : {false, true}) {
            Operands<T> call(shape, rng);
            if (beta_zero) {
                call.op.beta[0] = call.op.beta[1] = 0;
                // BLAS does not read C when beta is 0: a NaN there must not matter.
                std::fill(call.c.begin(), call.c.end(),
                          T(std::numeric_limits<Real<T>>::quiet_NaN()));
            }
            const auto exact = exact_result(call.op, call.a, call.b, call.c);
            const MatrixExtent out = operand_extent(call.op, output_operand(call.op));
            const std::vector<T> before = call.output();
            Blas3Check check(call.op, cpu_part);
            // The device's result: exact, rounded, where the routine writes.
            const int64_t ld = call.output_ld();
            for (int64_t j = 0; j < out.cols; ++j)
                for (int64_t i = 0; i < out.rows; ++i)
                    if (call.written(i, j))
                        call.output()[static_cast<std::size_t>(i + j * ld)] =
                            static_cast<T>(exact(i, j));
            const std::vector<T> device = call.output();
            ASSERT_EQ(check.finish(), Verdict::agreed) << check.difference();
            EXPECT_TRUE(same_bits(call.output(), device)) << "an agreeing result was changed";

            // The largest element, doubled: far beyond rounding (a small one may not be, next
            // to the norms of its row and column). A product's check names it; a solve's
            // residual spreads it along its column or row.
            int64_t wrong_i = 0, wrong_j = 0;
            for (int64_t j = 0; j < out.cols; ++j)
                for (int64_t i = 0; i < out.rows; ++i)
                    if (call.written(i, j) &&
                        std::abs(device[static_cast<std::size_t>(i + j * ld)]) >
                            std::abs(device[static_cast<std::size_t>(wrong_i + wrong_j * ld)])) {
                        wrong_i = i;
                        wrong_j = j;
                    }
            std::copy(before.begin(), before.end(), call.output().begin());
            Blas3Check again(call.op, cpu_part);
            std::copy(device.begin(), device.end(), call.output().begin());
            T& wrong = call.output()[static_cast<std::size_t>(wrong_i + wrong_j * ld)];
            wrong += T(std::abs(wrong));
            ASSERT_EQ(again.finish(), Verdict::differed);
            if (shape.kind != GPUSHIM_TRSM) {
                EXPECT_NE(std::string(again.difference())
                              .find("row " + std::to_string(wrong_i + 1) + ", column " +
                                    std::to_string(wrong_j + 1)),
                          std::string::npos)
                    << again.difference();
            }
            // Now the CPU library's result, where the routine writes; the rest untouched.
            std::vector<T> cpu_result = before;
            Blas3Op cpu_op = call.op;
            if (output_operand(cpu_op) == Operand::b) {
                cpu_op.b = cpu_result.data();
            } else {
                cpu_op.c = cpu_result.data();
            }
            ASSERT_TRUE(cpu_part(cpu_op));
            EXPECT_TRUE(same_bits(call.output(), cpu_result));
        }
    }
}

TEST(Blas3Check, RealSingle) {
    check_every_routine<float>();
}
TEST(Blas3Check, RealDouble) {
    check_every_routine<double>();
}
TEST(Blas3Check, ComplexSingle) {
    check_every_routine<std::complex<float>>();
}
TEST(Blas3Check, ComplexDouble) {
    check_every_routine<std::complex<double>>();
}

// A NaN the device makes where the CPU computes a finite value differs (a solve's too); NaNs
// among the operands leave their elements unchecked.
TEST(Blas3Check, NonFiniteValues) {
    std::mt19937_64 rng(5);
    Operands<double> call({GPUSHIM_GEMM}, rng);
    std::vector<double> cpu_result = call.c;
    Blas3Op cpu_op = call.op;
    cpu_op.c = cpu_result.data();
    ASSERT_TRUE(cpu_part(cpu_op));

    Blas3Check device_nan(call.op, cpu_part);
    std::copy(cpu_result.begin(), cpu_result.end(), call.c.begin());
    call.c[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(device_nan.finish(), Verdict::differed);
    EXPECT_EQ(call.c[0], cpu_result[0]);

    Operands<double> with_nan({GPUSHIM_GEMM}, rng);
    with_nan.a[0] = std::numeric_limits<double>::quiet_NaN();
    Blas3Check operand_nan(with_nan.op, cpu_part);
    Blas3Op compute = with_nan.op;
    ASSERT_TRUE(cpu_part(compute));  // the "device" is the CPU: NaNs in row 1 of C
    EXPECT_TRUE(std::isnan(with_nan.c[0]));
    EXPECT_EQ(operand_nan.finish(), Verdict::agreed);

    // A solve's bound comes from its solution: a NaN there must not widen it to nothing.
    Operands<double> solve({GPUSHIM_TRSM, 'N', 'N', 'L', 'U', 'N'}, rng);
    std::vector<double> cpu_solution = solve.b;
    Blas3Op cpu_solve = solve.op;
    cpu_solve.b = cpu_solution.data();
    ASSERT_TRUE(cpu_part(cpu_solve));
    Blas3Check solve_nan(solve.op, cpu_part);
    std::copy(cpu_solution.begin(), cpu_solution.end(), solve.b.begin());
    solve.b[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(solve_nan.finish(), Verdict::differed);
    EXPECT_TRUE(same_bits(solve.b, cpu_solution));
}

// A Hermitian update reads only the real part of C's diagonal, so a huge imaginary part
// there widens no bound.
TEST(Blas3Check, HermitianDiagonal) {
    std::mt19937_64 rng(3);
    Operands<std::complex<double>> call({GPUSHIM_HERK, 'N', 'N', 'L', 'L'}, rng);
    for (int64_t i = 0; i < call.op.n; ++i)
        call.c[static_cast<std::size_t>(i + i * call.op.ldc)].imag(1e30);
    std::vector<std::complex<double>> cpu_result = call.c;
    Blas3Op cpu_op = call.op;
    cpu_op.c = cpu_result.data();
    ASSERT_TRUE(cpu_part(cpu_op));

    Blas3Check diagonal(call.op, cpu_part);
    std::copy(cpu_result.begin(), cpu_result.end(), call.c.begin());
    call.c[static_cast<std::size_t>(1 + call.op.ldc)] += 1e-6 * std::abs(cpu_result[1]);
    ASSERT_EQ(diagonal.finish(), Verdict::differed);
    EXPECT_TRUE(same_bits(call.c, cpu_result));
}

// Products that underflow lose up to half the smallest subnormal each, and alpha scales the
// loss: a device that multiplies by alpha last agrees with one that scales first (which the
// CPU library does, the check cannot know; one of the two differs from it by far more than
// eps times the result).
TEST(Blas3Check, Underflow) {
    constexpr int64_t kInner = 64;
    const float tiny = std::ldexp(1.0f, -75), alpha = std::ldexp(1.0f, 100);
    std::vector<float> a(kInner, tiny), b(kInner, tiny), c(1, 0.0f);
    for (int64_t l = 0; l < kInner; ++l) a[static_cast<std::size_t>(l)] *= 1.0f + 0.01f * l;
    Blas3Op op{};
    op.kind = GPUSHIM_GEMM;
    op.precision = GPUSHIM_PREC_S;
    op.transa = op.transb = 'N';
    op.m = op.n = 1;
    op.k = kInner;
    op.alpha[0] = alpha;
    op.a = a.data();
    op.b = b.data();
    op.c = c.data();
    op.lda = 1;
    op.ldb = kInner;
    op.ldc = 1;
    float unscaled = 0, scaled_first = 0;
    for (int64_t l = 0; l < kInner; ++l) {
        unscaled += a[static_cast<std::size_t>(l)] * tiny;
        scaled_first += (alpha * a[static_cast<std::size_t>(l)]) * tiny;
    }
    ASSERT_GT(std::abs(alpha * unscaled - scaled_first), 1e-3f * scaled_first);
    for (const float device : {alpha * unscaled, scaled_first}) {
        c[0] = 0;
        Blas3Check check(op, cpu_part);
        c[0] = device;
        EXPECT_EQ(check.finish(), Verdict::agreed) << device << ": " << check.difference();
    }
}

// A solve with a triangle far from well-conditioned (a unit diagonal, entries up to 1): the
// CPU's and the device's solutions may differ by much more than rounding, their residuals
// may not.
TEST(Blas3Check, IllConditionedSolve) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Operands<double> call({GPUSHIM_TRSM, 'N', 'N', 'L', 'L', 'U'}, rng);
    for (int64_t j = 0; j < call.op.m; ++j)
        for (int64_t i = j + 1; i < call.op.m; ++i)
            call.a[static_cast<std::size_t>(i + j * call.op.lda)] = uniform(rng);
    const auto exact = exact_result(call.op, call.a, call.b, call.c);
    Blas3Check check(call.op, cpu_part);
    for (int64_t j = 0; j < call.op.n; ++j)
        for (int64_t i = 0; i < call.op.m; ++i)
            call.b[static_cast<std::size_t>(i + j * call.op.ldb)] =
                static_cast<double>(exact(i, j));
    EXPECT_EQ(check.finish(), Verdict::agreed) << check.difference();
}

}  // namespace
}  // namespace gpushim
