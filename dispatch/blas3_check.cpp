#include "dispatch/blas3_check.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <utility>

#include "dispatch/norm_sum.h"
#include "fallback/fortran_blas3.h"

namespace gpushim {
namespace {

// Twice the worst case of two computations, doubled again for complex arithmetic (a complex
// multiplication rounds more than once).
constexpr double kRealSafety = 2.0;
constexpr double kComplexSafety = 4.0;

template <class T>
std::complex<double> widened(const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
        return {static_cast<double>(value), 0.0};
    } else {
        return {static_cast<double>(value.real()), static_cast<double>(value.imag())};
    }
}

bool finite(std::complex<double> value) {
    return std::isfinite(value.real()) && std::isfinite(value.imag());
}

// How a routine reads a column-major matrix: all of it, or one triangle of a symmetric,
// Hermitian (real diagonal) or triangular (a unit diagonal not read) one.
enum class Structure { general, symmetric, hermitian, triangular, unit_triangular };

template <class T>
struct Stored {
    const T* data;
    int64_t ld;
    int64_t rows;
    int64_t cols;
    Structure structure = Structure::general;
    char uplo = 'U';
};

// The 2-norms of the rows of op(M): M's rows, or its columns when `transposed`. A symmetric
// or Hermitian matrix is its own transpose.
template <class T>
std::vector<double> row_norms(const Stored<T>& m, bool transposed) {
    const bool mirrored =
        m.structure == Structure::symmetric || m.structure == Structure::hermitian;
    std::vector<NormSum> sums(static_cast<std::size_t>(transposed ? m.cols : m.rows));
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) {
            const T& value = m.data[i + j * m.ld];
            const std::size_t row = static_cast<std::size_t>(transposed ? j : i);
            if (m.structure == Structure::general) {
                sums[row].add_element(value);
            } else if (m.uplo == 'U' ? i > j : i < j) {
                continue;
            } else if (i == j && m.structure == Structure::unit_triangular) {
                sums[row].add(1.0);
            } else if (i == j && m.structure == Structure::hermitian) {
                sums[row].add(widened(value).real());
            } else if (mirrored) {
                sums[static_cast<std::size_t>(i)].add_element(value);
                if (i != j) sums[static_cast<std::size_t>(j)].add_element(value);
            } else {
                sums[row].add_element(value);
            }
        }
    }
    std::vector<double> norms;
    norms.reserve(sums.size());
    for (const NormSum& sum : sums) norms.push_back(sum.norm());
    return norms;
}

template <class T>
std::vector<double> column_norms(const Stored<T>& m, bool transposed) {
    return row_norms(m, !transposed);
}

// What rounding may make of element (i, j): |alpha| sum of left[i] right[j] over the products
// that meet there, plus the element's own term (|beta| |C_ij| for a product).
struct Bound {
    std::vector<std::pair<std::vector<double>, std::vector<double>>> products;
    double alpha = 0;
    int64_t inner = 0;
};

// The elements that differ (of those compared), and the first.
struct Differences {
    int64_t count = 0;
    int64_t compared = 0;
    int64_t row = 0;
    int64_t col = 0;
    double by = 0;
    double allowed = 0;
};

// Compares the elements the routine writes; `at(i, j)` gives the difference at (i, j) (+inf
// where one side is finite and the other not, nullopt where neither is) and the element's own
// term of the bound.
template <class T, class At>
Differences compare(const Blas3Op& op, const Bound& bound, int64_t rows, int64_t cols, At&& at) {
    using Real = typename fallback::RealOf<T>::type;
    const double safety = is_complex(op.precision) ? kComplexSafety : kRealSafety;
    const double scale =
        safety * std::numeric_limits<Real>::epsilon() * static_cast<double>(bound.inner + 2);
    // Underflow: each product may lose half the smallest subnormal (and alpha scales that),
    // and alpha times an element may lose as much before the product.
    const double tiny = safety * static_cast<double>(bound.inner + 2) *
                        std::numeric_limits<Real>::min() * (1 + bound.alpha);
    const bool triangle = writes_triangle_only(op);
    Differences found;
    for (int64_t j = 0; j < cols; ++j) {
        for (int64_t i = triangle && op.uplo == 'L' ? j : 0;
             i < (triangle && op.uplo == 'U' ? j + 1 : rows); ++i) {
            ++found.compared;
            const auto [difference, own] = at(i, j);
            if (!difference) continue;
            double magnitude = 0, left_sum = 0, right_sum = 0;
            for (const auto& [left, right] : bound.products) {
                magnitude += left[static_cast<std::size_t>(i)] * right[static_cast<std::size_t>(j)];
                left_sum += left[static_cast<std::size_t>(i)];
                right_sum += right[static_cast<std::size_t>(j)];
            }
            const double allowed =
                scale * (bound.alpha * magnitude + own) + tiny * (1 + left_sum) * (1 + right_sum);
            if (!std::isfinite(allowed) || *difference <= allowed) continue;
            if (found.count++ == 0) {
                found.row = i;
                found.col = j;
                found.by = *difference;
                found.allowed = allowed;
            }
        }
    }
    return found;
}

std::optional<double> difference_of(std::complex<double> a, std::complex<double> b) {
    if (!finite(a) && !finite(b)) return std::nullopt;
    if (!finite(a) || !finite(b)) return std::numeric_limits<double>::infinity();
    return std::abs(a - b);
}

double scalar_magnitude(const double (&value)[2], bool real_only) {
    return real_only ? std::fabs(value[0]) : std::hypot(value[0], value[1]);
}

template <class T>
void copy_matrix(const T* from, int64_t from_ld, T* to, int64_t to_ld, int64_t rows, int64_t cols) {
    for (int64_t j = 0; j < cols; ++j) {
        std::memcpy(to + j * to_ld, from + j * from_ld, static_cast<std::size_t>(rows) * sizeof(T));
    }
}

// The output operand: where it is, its leading dimension and its extent.
struct Output {
    void* data;
    int64_t ld;
    MatrixExtent extent;
};

Output output_of(const Blas3Op& op) {
    const MatrixExtent extent = operand_extent(op, output_operand(op));
    if (output_operand(op) == Operand::b) return {const_cast<void*>(op.b), op.ldb, extent};
    return {op.c, op.ldc, extent};
}

template <class T>
Stored<T> stored(const void* data, int64_t ld, MatrixExtent extent) {
    return {static_cast<const T*>(data), ld, extent.rows, extent.cols};
}

// The bound of a product's elements, from the operands as the routine reads them (`b_read`:
// B, or TRMM's B before the call).
template <class T>
Bound product_bound(const Blas3Op& op, const Stored<T>& b_read) {
    const Stored<T> a = stored<T>(op.a, op.lda, operand_extent(op, Operand::a));
    Bound bound;
    bound.alpha = scalar_magnitude(op.alpha, op.kind == GPUSHIM_HERK);
    switch (op.kind) {
        case GPUSHIM_GEMM:
            bound.inner = op.k;
            bound.products.emplace_back(row_norms(a, op.transa != 'N'),
                                        column_norms(b_read, op.transb != 'N'));
            break;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM: {
            Stored<T> symmetric = a;
            symmetric.structure =
                op.kind == GPUSHIM_HEMM ? Structure::hermitian : Structure::symmetric;
            symmetric.uplo = op.uplo;
            const bool left = op.side == 'L';
            bound.inner = left ? op.m : op.n;
            bound.products.emplace_back(
                left ? row_norms(symmetric, false) : row_norms(b_read, false),
                left ? column_norms(b_read, false) : row_norms(symmetric, false));
            break;
        }
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK: {
            bound.inner = op.k;
            std::vector<double> rows = row_norms(a, op.transa != 'N');
            bound.products.emplace_back(rows, std::move(rows));
            break;
        }
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K: {
            bound.inner = 2 * op.k;  // each element sums 2k products
            std::vector<double> a_rows = row_norms(a, op.transa != 'N');
            std::vector<double> b_rows = row_norms(b_read, op.transa != 'N');
            bound.products.emplace_back(a_rows, b_rows);
            bound.products.emplace_back(std::move(b_rows), std::move(a_rows));
            break;
        }
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM: {
            Stored<T> triangle = a;
            triangle.structure =
                op.diag == 'U' ? Structure::unit_triangular : Structure::triangular;
            triangle.uplo = op.uplo;
            const bool left = op.side == 'L';
            const bool transposed = op.transa != 'N';
            bound.inner = left ? op.m : op.n;
            bound.products.emplace_back(
                left ? row_norms(triangle, transposed) : row_norms(b_read, false),
                left ? column_norms(b_read, false) : column_norms(triangle, transposed));
            break;
        }
    }
    return bound;
}

}  // namespace

Blas3Check::Blas3Check(const Blas3Op& op, CpuPart cpu) : op_(op), cpu_(cpu) {
    if (!reads_output(op)) {
        copied_ = true;
        return;
    }
    const Output output = output_of(op);
    const std::size_t element = element_size(op.precision);
    try {
        prior_.resize(static_cast<std::size_t>(output.extent.rows * output.extent.cols) * element);
    } catch (const std::exception&) {
        return;
    }
    for (int64_t j = 0; j < output.extent.cols; ++j) {
        std::memcpy(prior_.data() + static_cast<std::size_t>(j * output.extent.rows) * element,
                    static_cast<const std::byte*>(output.data) +
                        static_cast<std::size_t>(j * output.ld) * element,
                    static_cast<std::size_t>(output.extent.rows) * element);
    }
    copied_ = true;
}

namespace {

// The check of one precision; returns the differences found, or nullopt when it could not
// be made.
template <class T>
std::optional<Differences> check_call(const Blas3Op& op, CpuPart cpu,
                                      const std::vector<std::byte>& prior_bytes) {
    const Output output = output_of(op);
    const int64_t rows = output.extent.rows;
    const int64_t cols = output.extent.cols;
    auto* result = static_cast<T*>(output.data);
    const T* prior = prior_bytes.empty() ? nullptr : reinterpret_cast<const T*>(prior_bytes.data());
    std::vector<T> computed;  // the CPU's result, once computed
    const auto at_result = [&](int64_t i, int64_t j) -> const T& {
        return result[i + j * output.ld];
    };
    // The CPU's result of the call, into `computed`.
    const auto compute_on_cpu = [&] {
        Blas3Op again = op;
        const auto size = static_cast<std::size_t>(rows * cols);
        if (prior != nullptr) {
            computed.assign(prior, prior + size);
        } else {
            computed.assign(size, T{});
        }
        if (output_operand(op) == Operand::b) {
            again.b = computed.data();
            again.ldb = rows;
        } else {
            again.c = computed.data();
            again.ldc = rows;
        }
        return cpu(again);
    };
    // The CPU's result where the device's differs: only the part the routine writes.
    const auto keep_computed = [&](const Differences& found, bool always = false) {
        if (found.count == 0 && !always) return;
        const bool triangle = writes_triangle_only(op);
        for (int64_t j = 0; j < cols; ++j) {
            const int64_t first = triangle && op.uplo == 'L' ? j : 0;
            const int64_t end = triangle && op.uplo == 'U' ? j + 1 : rows;
            copy_matrix(computed.data() + first + j * rows, rows, result + first + j * output.ld,
                        output.ld, end - first, 1);
        }
    };

    const Stored<T> prior_b{prior, rows, rows, cols};
    if (op.kind != GPUSHIM_TRSM) {
        if (!compute_on_cpu()) return std::nullopt;
        const bool trmm = op.kind == GPUSHIM_TRMM;
        const Bound bound = product_bound<T>(
            op, trmm ? prior_b : stored<T>(op.b, op.ldb, operand_extent(op, Operand::b)));
        const bool hermitian = op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K;
        const double beta = trmm ? 0.0 : scalar_magnitude(op.beta, hermitian);
        const Differences found = compare<T>(op, bound, rows, cols, [&](int64_t i, int64_t j) {
            // A Hermitian update reads only the real part of C's diagonal.
            double own = 0;
            if (beta != 0) {
                const std::complex<double> before = widened(prior[i + j * rows]);
                own = beta * (hermitian && i == j ? std::fabs(before.real()) : std::abs(before));
            }
            return std::pair{
                difference_of(widened(at_result(i, j)),
                              widened(computed[static_cast<std::size_t>(i + j * rows)])),
                own};
        });
        keep_computed(found);
        return found;
    }

    // TRSM: the residual op(T) X - alpha B of the device's X, with the CPU library's TRMM.
    const std::complex<double> alpha(op.alpha[0], op.alpha[1]);
    std::vector<T> residual(static_cast<std::size_t>(rows * cols));
    copy_matrix(result, output.ld, residual.data(), rows, rows, cols);
    Blas3Op multiply = op;
    multiply.kind = GPUSHIM_TRMM;
    multiply.alpha[0] = 1.0;
    multiply.alpha[1] = 0.0;
    multiply.b = residual.data();
    multiply.ldb = rows;
    if (!cpu(multiply)) return std::nullopt;
    const Stored<T> solution{result, output.ld, rows, cols};
    Bound bound = product_bound<T>(op, solution);
    bound.alpha = 1.0;
    const double alpha_magnitude = std::abs(alpha);
    Differences found = compare<T>(op, bound, rows, cols, [&](int64_t i, int64_t j) {
        const std::complex<double> right_side = alpha * widened(prior[i + j * rows]);
        return std::pair{
            difference_of(widened(residual[static_cast<std::size_t>(i + j * rows)]), right_side),
            alpha_magnitude * std::abs(widened(prior[i + j * rows]))};
    });
    // A solution with an Inf or a NaN makes its own bound not finite (in its whole column, or
    // row, of the residual): there, the CPU's solution judges it (both not finite, as from an
    // overflow of an ill-conditioned triangle, agree), and stands in for all of it, as the
    // device's finite elements beside those cannot be judged.
    bool solution_finite = true;
    for (int64_t j = 0; j < cols && solution_finite; ++j)
        for (int64_t i = 0; i < rows && solution_finite; ++i)
            solution_finite = finite(widened(at_result(i, j)));
    if (found.count == 0 && solution_finite) return found;
    if (!compute_on_cpu()) return std::nullopt;
    if (!solution_finite) {
        const Differences unlike = compare<T>(op, Bound{}, rows, cols, [&](int64_t i, int64_t j) {
            const std::optional<double> difference =
                difference_of(widened(at_result(i, j)),
                              widened(computed[static_cast<std::size_t>(i + j * rows)]));
            return std::pair{
                difference && std::isinf(*difference) ? difference : std::optional<double>{}, 0.0};
        });
        if (found.count == 0) {
            found = unlike;
        } else {
            found.count += unlike.count;
        }
    }
    keep_computed(found, !solution_finite);
    return found;
}

}  // namespace

Verdict Blas3Check::finish() {
    if (!copied_) return Verdict::unchecked;
    std::optional<Differences> found;
    try {
        switch (op_.precision) {
            case GPUSHIM_PREC_S:
                found = check_call<float>(op_, cpu_, prior_);
                break;
            case GPUSHIM_PREC_D:
                found = check_call<double>(op_, cpu_, prior_);
                break;
            case GPUSHIM_PREC_C:
                found = check_call<std::complex<float>>(op_, cpu_, prior_);
                break;
            case GPUSHIM_PREC_Z:
                found = check_call<std::complex<double>>(op_, cpu_, prior_);
                break;
        }
    } catch (const std::exception&) {  // no memory for the copies: nothing may reach the caller
        return Verdict::unchecked;
    }
    if (!found) return Verdict::unchecked;
    if (found->count == 0) return Verdict::agreed;
    std::snprintf(difference_, sizeof difference_,
                  "at row %lld, column %lld they differ by %.3g (rounding allows %.3g); %lld of "
                  "%lld elements",
                  static_cast<long long>(found->row + 1), static_cast<long long>(found->col + 1),
                  found->by, found->allowed, static_cast<long long>(found->count),
                  static_cast<long long>(found->compared));
    return Verdict::differed;
}

}  // namespace gpushim
