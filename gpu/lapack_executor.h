// Runs a LAPACK operation on the device: its inputs staged in, the plugin's operation, its
// pivots and INFO staged back, then its outputs, chunk by chunk, into the caller's arrays.
// Those arrays keep the device's results only when the operation succeeded (INFO = 0) and
// all of them arrived: otherwise the ones it overwrites are put back as they were (a copy
// taken while the device computed), and the CPU library recomputes the call from them, so
// that a failed call leaves exactly what LAPACK leaves.
#pragma once

#include "dispatch/lapack_call.h"
#include "gpu/blas3_executor.h"

namespace gpushim::gpu {

// On Outcome::completed the caller's arrays and pivots hold the results (INFO and the
// workspace answers are the entry point's). Outcome::unavailable also covers INFO > 0.
Outcome execute_lapack(const LapackOp& op, Transfers& transfers);

}  // namespace gpushim::gpu
