// Runs a LAPACK factorization on the device: the matrix staged in, factored in place by
// the plugin, staged back with the pivots and INFO. The caller's matrix is written only
// when the factorization succeeded (INFO = 0): otherwise the CPU library recomputes it,
// so that a failed factorization leaves exactly what LAPACK leaves.
#pragma once

#include <cstdint>

#include "dispatch/lapack_call.h"
#include "gpu/blas3_executor.h"

namespace gpushim::gpu {

// `pivots` receives min(m, n) 1-based row interchanges for GETRF. Outcome::unavailable
// also covers INFO > 0 (nothing delivered; the CPU computes the call).
Outcome execute_lapack(const LapackOp& op, int64_t* pivots, Transfers& transfers);

}  // namespace gpushim::gpu
