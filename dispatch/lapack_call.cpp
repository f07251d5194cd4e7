#include "dispatch/lapack_call.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

namespace gpushim {
namespace {

bool is_one_of(char flag, const char* accepted) {
    return flag != '\0' && std::strchr(accepted, flag) != nullptr;
}

bool leading(int64_t ld, int64_t rows) {
    return ld >= std::max<int64_t>(1, rows);
}

bool solve_valid(const LapackOp& op) {
    return op.n >= 0 && op.nrhs >= 0 && leading(op.lda, op.n) && leading(op.ldb, op.n);
}

bool square_valid(const LapackOp& op) {
    return op.n >= 0 && leading(op.lda, op.n);
}

bool rectangular_valid(const LapackOp& op) {
    return op.m >= 0 && op.n >= 0 && leading(op.lda, op.m);
}

bool ormqr_valid(const LapackOp& op) {
    const int64_t reflector_rows = op.side == 'L' ? op.m : op.n;
    const char* transposes = is_complex(op.precision) ? "NC" : "NT";
    return is_one_of(op.side, "LR") && is_one_of(op.trans, transposes) && op.m >= 0 && op.n >= 0 &&
           op.k >= 0 && op.k <= reflector_rows && leading(op.lda, reflector_rows) &&
           leading(op.ldb, op.m);
}

bool gesvd_valid(const LapackOp& op) {
    if (!is_one_of(op.jobu, "ASON") || !is_one_of(op.jobvt, "ASON") ||
        (op.jobu == 'O' && op.jobvt == 'O'))
        return false;
    const int64_t smaller = std::min(op.m, op.n);
    const bool u_valid = op.ldu >= 1 && (!is_one_of(op.jobu, "AS") || op.ldu >= op.m);
    const int64_t vt_rows = op.jobvt == 'A' ? op.n : op.jobvt == 'S' ? smaller : 1;
    return rectangular_valid(op) && u_valid && op.ldvt >= std::max<int64_t>(1, vt_rows);
}

// The caller's A(j, j), in double precision (imaginary part 0 for the real precisions).
std::complex<double> diagonal_entry(const LapackOp& op, int64_t j) {
    const std::byte* entry = static_cast<const std::byte*>(op.a) +
                             static_cast<std::size_t>(j * op.lda + j) * element_size(op.precision);
    const bool complex = is_complex(op.precision);
    if (op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_C) {
        float parts[2] = {};
        std::memcpy(parts, entry, (complex ? 2 : 1) * sizeof(float));
        return {parts[0], parts[1]};
    }
    double parts[2] = {};
    std::memcpy(parts, entry, (complex ? 2 : 1) * sizeof(double));
    return {parts[0], parts[1]};
}

// Whether the caller's A(j, j) is exactly zero (both parts for complex), the condition on
// which LAPACK's triangular routines report INFO = j + 1.
bool diagonal_zero_at(const LapackOp& op, int64_t j) {
    return diagonal_entry(op, j) == 0.0;
}

bool diagonal_has_zero(const LapackOp& op) {
    for (int64_t j = 0; j < op.n; ++j) {
        if (diagonal_zero_at(op, j)) return true;
    }
    return false;
}

// Whether a Cholesky factorization (POTRF, POSV) certainly stops within its first n/8 columns:
// a diagonal entry there is not positive (or NaN), so the matrix is not positive definite and
// LAPACK reports INFO <= that column. Such a call (SciPy's solve tries one on every symmetric
// matrix) costs the CPU at most a factorization of order n/8, less than its upload would.
bool cholesky_fails_early(const LapackOp& op) {
    const int64_t columns = std::max<int64_t>(1, op.n / 8);
    for (int64_t j = 0; j < std::min(columns, op.n); ++j) {
        if (!(diagonal_entry(op, j).real() > 0.0)) return true;
    }
    return false;
}

// Whether SYTRF's factor and pivots may go to the device for SYTRI or SYTRS: every pivot a
// row of A (|ipiv(k)| in 1..n: a device must not index past A), and no 1 x 1 block of D
// exactly zero (SYTRI reports INFO = k; SYTRS divides by it, and the CPU's infinities are
// the ones to give).
bool bunch_kaufman_factor_usable(const LapackOp& op) {
    for (int64_t j = 0; j < op.n; ++j) {
        const int64_t pivot = caller_pivot(op, j);
        if (pivot == 0 || pivot < -op.n || pivot > op.n) return false;
        if (pivot > 0 && diagonal_zero_at(op, j)) return false;
    }
    return true;
}

bool syevr_valid(const LapackOp& op) {
    const bool range_valid =
        (op.range == 'A') || (op.range == 'V' && (op.n == 0 || op.vl < op.vu)) ||
        (op.range == 'I' && op.il >= 1 && op.il <= std::max<int64_t>(1, op.n) &&
         op.iu >= std::min(op.n, op.il) && op.iu <= op.n);
    return is_one_of(op.jobz, "NV") && is_one_of(op.uplo, "UL") && square_valid(op) &&
           range_valid && op.ldu >= 1 && (op.jobz == 'N' || op.ldu >= op.n);
}

bool geev_valid(const LapackOp& op) {
    return is_one_of(op.jobvl, "NV") && is_one_of(op.jobz, "NV") && square_valid(op) &&
           op.ldvl >= 1 && (op.jobvl == 'N' || op.ldvl >= op.n) && op.ldu >= 1 &&
           (op.jobz == 'N' || op.ldu >= op.n);
}

bool gels_valid(const LapackOp& op) {
    return is_one_of(op.trans, is_complex(op.precision) ? "NC" : "NT") && op.m >= 0 && op.n >= 0 &&
           op.nrhs >= 0 && leading(op.lda, op.m) && leading(op.ldb, std::max(op.m, op.n));
}

// The largest magnitude in an m x n matrix (LAPACK's xLANGE('M')): NaN when one is NaN.
template <class Real>
double largest_magnitude(const std::byte* base, int64_t m, int64_t n, int64_t ld, bool complex) {
    const std::size_t element = sizeof(Real) * (complex ? 2 : 1);
    double largest = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            Real parts[2] = {};
            std::memcpy(parts, base + static_cast<std::size_t>(j * ld + i) * element, element);
            const double magnitude =
                std::hypot(static_cast<double>(parts[0]), static_cast<double>(parts[1]));
            if (std::isnan(magnitude)) return magnitude;
            largest = std::max(largest, magnitude);
        }
    }
    return largest;
}

// GELS and GELSD scale A (and B) whose largest magnitude lies outside [smlnum, 1 / smlnum] (and
// sets X = 0 for A = 0); only matrices it leaves as they are go to the device.
bool gels_leaves_unscaled(const LapackOp& op) {
    const bool single = op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_C;
    const bool complex = is_complex(op.precision);
    const double smallest =
        single ? static_cast<double>(std::numeric_limits<float>::min() /
                                     std::numeric_limits<float>::epsilon())
               : std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
    const double largest = 1.0 / smallest;
    const auto magnitude = [&](const void* matrix, int64_t rows, int64_t cols, int64_t ld) {
        const auto* base = static_cast<const std::byte*>(matrix);
        return single ? largest_magnitude<float>(base, rows, cols, ld, complex)
                      : largest_magnitude<double>(base, rows, cols, ld, complex);
    };
    const double a = magnitude(op.a, op.m, op.n, op.lda);
    const double b = magnitude(op.b, op.m, op.nrhs, op.ldb);
    return a >= smallest && a <= largest && (b == 0.0 || (b >= smallest && b <= largest));
}

// Whether an m x n matrix holds a NaN; with uplo 'U' or 'L', only in that triangle (all a
// symmetric or Hermitian routine reads).
bool has_nan(const LapackOp& op, const void* matrix, int64_t m, int64_t n, int64_t ld,
             char uplo = 'A') {
    const std::size_t element = element_size(op.precision);
    const bool single = op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_C;
    const std::size_t parts = is_complex(op.precision) ? 2 : 1;
    const auto* base = static_cast<const std::byte*>(matrix);
    for (int64_t j = 0; j < n; ++j) {
        const int64_t first = uplo == 'L' ? std::min(j, m) : 0;
        const int64_t last = uplo == 'U' ? std::min(j + 1, m) : m;
        const std::byte* column = base + static_cast<std::size_t>(j * ld + first) * element;
        const std::size_t values = static_cast<std::size_t>(last - first) * parts;
        for (std::size_t i = 0; i < values; ++i) {
            if (single) {
                float value;
                std::memcpy(&value, column + i * sizeof value, sizeof value);
                if (std::isnan(value)) return true;
            } else {
                double value;
                std::memcpy(&value, column + i * sizeof value, sizeof value);
                if (std::isnan(value)) return true;
            }
        }
    }
    return false;
}

}  // namespace

int64_t caller_pivot(const LapackOp& op, int64_t j) {
    if (op.pivot_bytes == 8) return static_cast<const int64_t*>(op.host_pivots)[j];
    return static_cast<const int32_t*>(op.host_pivots)[j];
}

bool arguments_valid(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POTRI:
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYTRI:
            return is_one_of(op.uplo, "UL") && square_valid(op);
        case GPUSHIM_GETRF:
        case GPUSHIM_GEQRF:
            return rectangular_valid(op);
        case GPUSHIM_GETRS:
            return is_one_of(op.trans, "NTC") && solve_valid(op);
        case GPUSHIM_GESV:
            return solve_valid(op);
        case GPUSHIM_GETRI:
            return square_valid(op);
        case GPUSHIM_POTRS:
        case GPUSHIM_POSV:
        case GPUSHIM_SYTRS:
        case GPUSHIM_SYSV:
            return is_one_of(op.uplo, "UL") && solve_valid(op);
        case GPUSHIM_TRTRS:
            return is_one_of(op.uplo, "UL") && is_one_of(op.trans, "NTC") &&
                   is_one_of(op.diag, "NU") && solve_valid(op);
        case GPUSHIM_TRTRI:
            return is_one_of(op.uplo, "UL") && is_one_of(op.diag, "NU") && square_valid(op);
        case GPUSHIM_ORGQR:
            return op.m >= 0 && op.n >= 0 && op.n <= op.m && op.k >= 0 && op.k <= op.n &&
                   leading(op.lda, op.m);
        case GPUSHIM_ORMQR:
            return ormqr_valid(op);
        case GPUSHIM_SYEVD:
            return is_one_of(op.jobz, "NV") && is_one_of(op.uplo, "UL") && square_valid(op);
        case GPUSHIM_GESVD:
            return gesvd_valid(op);
        case GPUSHIM_SYEVR:
            return syevr_valid(op);
        case GPUSHIM_SYGVD:
            return op.itype >= 1 && op.itype <= 3 && is_one_of(op.jobz, "NV") &&
                   is_one_of(op.uplo, "UL") && square_valid(op) && leading(op.ldb, op.n);
        case GPUSHIM_GEEV:
            return geev_valid(op);
        case GPUSHIM_GELS:
            return gels_valid(op);
        case GPUSHIM_GELSD:
            return op.m >= 0 && op.n >= 0 && op.nrhs >= 0 && leading(op.lda, op.m) &&
                   leading(op.ldb, std::max(op.m, op.n));
    }
    return false;
}

bool is_degenerate(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_GETRF:
        case GPUSHIM_GEQRF:
        case GPUSHIM_GESVD:
            return op.m == 0 || op.n == 0;
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_TRTRS:
        // Reference LAPACK factors A when nrhs = 0; OpenBLAS's own GESV returns at once.
        // Either way, the CPU library's answer is the one to give.
        case GPUSHIM_GESV:
        case GPUSHIM_POSV:
        case GPUSHIM_SYTRS:
        case GPUSHIM_SYSV:
            return op.n == 0 || op.nrhs == 0;
        // No reflectors: ORMQR leaves C as it is and ORGQR writes columns of the identity,
        // work that is not worth a device (whose tau would be an array of no elements).
        case GPUSHIM_ORMQR:
            return op.m == 0 || op.n == 0 || op.k == 0;
        case GPUSHIM_ORGQR:
            return op.n == 0 || op.k == 0;
        case GPUSHIM_GELS:
        case GPUSHIM_GELSD:
            return op.m == 0 || op.n == 0 || op.nrhs == 0;
        // At N = 1 SYEV and SYEVR return early and leave their own WORK(1) (SYEV 2, SYEVR
        // 26, 7 or 2 by precision), not what their query answers.
        case GPUSHIM_SYEVD:
        case GPUSHIM_SYEVR:
            return op.n <= 1;
        default:
            return op.n == 0;
    }
}

// LAPACK's eigen- and singular value drivers answer a NaN in their input in their own ways
// (GESDD and GEEV: INFO < 0, from their balancing or norm checks; SYEV, SYEVD, GESVD:
// INFO > 0; SYEVR: M = 0), and so does SYTRF (INFO > 0); a device library need not do the
// same, so the CPU does.
bool input_has_nan(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_GESVD:
            return has_nan(op, op.a, op.m, op.n, op.lda);
        case GPUSHIM_GEEV:
            return has_nan(op, op.a, op.n, op.n, op.lda);
        case GPUSHIM_SYEVD:
        case GPUSHIM_SYEVR:
            return has_nan(op, op.a, op.n, op.n, op.lda, op.uplo);
        case GPUSHIM_SYGVD:
            return has_nan(op, op.a, op.n, op.n, op.lda, op.uplo) ||
                   has_nan(op, op.b, op.n, op.n, op.ldb, op.uplo);
        // SYTRF (and SYSV's) reports INFO = k at a column holding a NaN and goes on.
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYSV:
            return has_nan(op, op.a, op.n, op.n, op.lda, op.uplo);
        default:
            return false;
    }
}

bool suits_device(const LapackOp& op) {
    if (input_has_nan(op)) return false;
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POSV:
            return !cholesky_fails_early(op);
        case GPUSHIM_GESVD:
            return op.m >= op.n;
        case GPUSHIM_GELS:
            return op.trans == 'N' && op.m >= op.n && gels_leaves_unscaled(op);
        case GPUSHIM_GELSD:  // a NaN rcond keeps every singular value in LAPACK's comparisons
            return op.m >= op.n && gels_leaves_unscaled(op) && !std::isnan(op.rcond);
        case GPUSHIM_GEEV:
            return op.jobvl == 'N';
        case GPUSHIM_GETRI:
        case GPUSHIM_POTRI:
            return !diagonal_has_zero(op);
        case GPUSHIM_TRTRS:
        case GPUSHIM_TRTRI:
            return op.diag == 'U' || !diagonal_has_zero(op);
        case GPUSHIM_SYTRI:
        case GPUSHIM_SYTRS:
            return bunch_kaufman_factor_usable(op);
        default:
            return true;
    }
}

namespace {

bool bunch_kaufman_pivots_plausible(char uplo, const int64_t* pivots, int64_t n) {
    const bool lower = uplo == 'L';
    for (int64_t step = 0; step < n;) {
        const int64_t k = lower ? step : n - 1 - step;
        const int64_t pivot = pivots[k];
        if (pivot > 0) {
            if (lower ? pivot - 1 < k || pivot > n : pivot - 1 > k) return false;
            ++step;
            continue;
        }
        const int64_t partner = lower ? k + 1 : k - 1;
        const int64_t row = -pivot - 1;
        if (pivot == 0 || partner < 0 || partner >= n || pivots[partner] != pivot ||
            (lower ? row < partner || row >= n : row > partner || row < 0))
            return false;
        step += 2;
    }
    return true;
}

}  // namespace

bool pivots_plausible(const LapackOp& op, const int64_t* pivots, int64_t count) {
    switch (op.kind) {
        case GPUSHIM_GETRF:
        case GPUSHIM_GESV: {
            const int64_t rows = op.kind == GPUSHIM_GETRF ? op.m : op.n;
            for (int64_t i = 0; i < count; ++i) {
                if (pivots[i] < i + 1 || pivots[i] > rows) return false;
            }
            return true;
        }
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYSV:
            return count == op.n && bunch_kaufman_pivots_plausible(op.uplo, pivots, count);
        default:
            return true;
    }
}

double flop_count(const LapackOp& op) {
    const double m = static_cast<double>(op.m), n = static_cast<double>(op.n);
    const double k = static_cast<double>(op.k), nrhs = static_cast<double>(op.nrhs);
    const double n3 = n * n * n;
    const double rhs_solve = 2.0 * n * n * nrhs;  // two triangular solves per right-hand side
    // Multiplications plus additions, after LAPACK Working Note 41; a complex operation is
    // about four real ones.
    double real_operations = 0.0;
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_SYTRF:
            real_operations = n3 / 3.0;
            break;
        case GPUSHIM_GETRF: {
            const double small = std::min(m, n);
            real_operations =
                2.0 * m * n * small - (m + n) * small * small + 2.0 * small * small * small / 3.0;
            break;
        }
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_SYTRS:
            real_operations = rhs_solve;
            break;
        case GPUSHIM_GESV:
            real_operations = 2.0 * n3 / 3.0 + rhs_solve;
            break;
        case GPUSHIM_POSV:
        case GPUSHIM_SYSV:
            real_operations = n3 / 3.0 + rhs_solve;
            break;
        case GPUSHIM_GETRI:
            real_operations = 4.0 * n3 / 3.0;
            break;
        case GPUSHIM_POTRI:
        case GPUSHIM_SYTRI:
            real_operations = 2.0 * n3 / 3.0;
            break;
        case GPUSHIM_TRTRS:
            real_operations = n * n * nrhs;
            break;
        case GPUSHIM_TRTRI:
            real_operations = n3 / 3.0;
            break;
        case GPUSHIM_GEQRF: {
            const double large = std::max(m, n), small = std::min(m, n);
            real_operations = 2.0 * large * small * small - 2.0 * small * small * small / 3.0;
            break;
        }
        case GPUSHIM_ORGQR:
            real_operations = 4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 * k * k * k / 3.0;
            break;
        case GPUSHIM_ORMQR:
            real_operations = 4.0 * m * n * k - 2.0 * (op.side == 'L' ? n : m) * k * k;
            break;
        case GPUSHIM_SYEVD:
            // Tridiagonal reduction 4n^3/3; with vectors, the back-transformation and the
            // divide and conquer add about 8n^3 (Golub and Van Loan's 9n^3 in all).
            real_operations = op.jobz == 'V' ? 9.0 * n3 : 4.0 * n3 / 3.0;
            break;
        case GPUSHIM_SYEVR:
            real_operations = op.jobz == 'V' ? 9.0 * n3 : 4.0 * n3 / 3.0;
            break;
        case GPUSHIM_SYGVD:
            // Cholesky of B (n^3/3), reduction to standard form (n^3), the eigenproblem,
            // and with vectors a triangular solve (n^3).
            real_operations = 4.0 * n3 / 3.0 + (op.jobz == 'V' ? 10.0 * n3 : 4.0 * n3 / 3.0);
            break;
        case GPUSHIM_GEEV:
            // Golub and Van Loan: about 10n^3 for the eigenvalues, 25n^3 with eigenvectors.
            real_operations = op.jobz == 'V' ? 25.0 * n3 : 10.0 * n3;
            break;
        case GPUSHIM_GELS:
            real_operations = 2.0 * m * n * n - 2.0 * n3 / 3.0 + nrhs * (4.0 * m * n - n * n);
            break;
        case GPUSHIM_GELSD:
            // QR of A, an SVD of R with its vectors (about 8n^3), products with B.
            real_operations = 2.0 * m * n * n + 8.0 * n3 + nrhs * (4.0 * m * n + 4.0 * n * n);
            break;
        case GPUSHIM_GESVD: {
            // Bidiagonal reduction 4mn^2 - 4n^3/3 (m >= n); vectors roughly triple it.
            const double large = std::max(m, n), small = std::min(m, n);
            const double reduction =
                4.0 * large * small * small - 4.0 * small * small * small / 3.0;
            real_operations = op.jobu == 'N' && op.jobvt == 'N' ? reduction : 3.0 * reduction;
            break;
        }
    }
    return real_operations * (is_complex(op.precision) ? 4.0 : 1.0);
}

}  // namespace gpushim
