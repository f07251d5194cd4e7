// Runs a canonical Level-3 BLAS call on the device. The operands all panels share (A, and
// B of a rank-2k update) are staged once, or found in the residency cache; the output is
// computed in panels (blas3_panels.h) on two queues, so that one panel's transfers overlap
// another's computation, narrower panels where the device has no room for them. A panel's
// result reaches the caller's memory only once it is completely on the host; when the
// device fails, what was not delivered is computed on the CPU, or, if nothing was
// delivered, the whole call is left to the caller's CPU path with its buffers untouched.
#pragma once

#include <cstdint>

#include "dispatch/blas3_call.h"
#include "gpu/staging.h"

namespace gpushim::gpu {

enum class Outcome {
    completed,    // the result is in the caller's buffers, all computed on the device
    recovered,    // the result is in the caller's buffers, part of it computed on the CPU
    unavailable,  // not attempted: no usable backend, or the call is too large for it
    failed,       // a device error before any result was delivered; buffers untouched
};

Outcome execute_blas3(const Blas3Op& op, CpuPart cpu, Transfers& transfers);

}  // namespace gpushim::gpu
