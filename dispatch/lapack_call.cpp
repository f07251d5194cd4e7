#include "dispatch/lapack_call.h"

#include <algorithm>
#include <cmath>

namespace gpushim {

bool arguments_valid(const LapackOp& op) {
    switch (op.kind) {
        case GPUSHIM_POTRF:
            return (op.uplo == 'U' || op.uplo == 'L') && op.n >= 0 && op.lda >= std::max<int64_t>(1, op.n);
        case GPUSHIM_GETRF: return op.m >= 0 && op.n >= 0 && op.lda >= std::max<int64_t>(1, op.m);
    }
    return false;
}

bool is_degenerate(const LapackOp& op) {
    return op.kind == GPUSHIM_POTRF ? op.n == 0 : (op.m == 0 || op.n == 0);
}

double effective_order(const LapackOp& op) {
    if (op.kind == GPUSHIM_POTRF) return static_cast<double>(op.n);
    const double m = static_cast<double>(op.m), n = static_cast<double>(op.n);
    return std::cbrt(m * n * std::min(m, n));
}

double flop_count(const LapackOp& op) {
    const double n = static_cast<double>(op.n);
    // Multiplications plus additions (2n^3/3 for a square GETRF, n^3/3 for POTRF); a
    // complex operation is about four real ones.
    double real_operations = 0.0;
    if (op.kind == GPUSHIM_POTRF) {
        real_operations = n * n * n / 3.0;
    } else {
        const double m = static_cast<double>(op.m), k = std::min(m, n);
        real_operations = 2.0 * m * n * k - (m + n) * k * k + 2.0 * k * k * k / 3.0;
    }
    return real_operations * (is_complex(op.precision) ? 4.0 : 1.0);
}

}  // namespace gpushim
