// Runs a canonical Level-3 BLAS call on the device: operands staged to device memory,
// the operation, the result staged back. The caller's output is written only once the
// whole device result is on the host, so a failure at any step leaves it untouched.
#pragma once

#include <cstdint>

#include "dispatch/blas3_call.h"

namespace gpushim::gpu {

enum class Outcome {
    completed,    // the result is in the caller's buffers
    unavailable,  // not attempted: no usable backend, or the call is too large for it
    failed,       // a device error; the caller's buffers are untouched
};

struct Transfers {
    uint64_t bytes_to_device = 0;
    uint64_t bytes_to_host = 0;
};

Outcome execute_blas3(const Blas3Op& op, Transfers& transfers);

}  // namespace gpushim::gpu
