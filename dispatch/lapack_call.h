// Facts about a LAPACK factorization call (gpushim_lapack_op with host pointers; ipiv and
// info unused): validity, degenerate cases, size and arithmetic cost.
#pragma once

#include <cstdint>

#include "dispatch/blas3_call.h"

namespace gpushim {

using LapackOp = gpushim_lapack_op;

// LAPACK's argument checks: false exactly when the CPU library would report INFO < 0.
bool arguments_valid(const LapackOp& op);

// True when there is nothing to factor (an empty matrix).
bool is_degenerate(const LapackOp& op);

// The order of the call for thresholds: n, or cbrt(m n min(m, n)) for a rectangular GETRF.
double effective_order(const LapackOp& op);

// Real floating-point operations, for the report's GFLOP/s.
double flop_count(const LapackOp& op);

}  // namespace gpushim
