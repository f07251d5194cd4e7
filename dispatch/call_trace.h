// The call trace (GPUSHIM_LOG=trace): one line per intercepted call, saying what it was, where
// it ran, why there, and what it cost.
#pragma once

#include <cstdint>
#include <string>

#include "dispatch/blas3_call.h"
#include "dispatch/fft_call.h"
#include "dispatch/lapack_call.h"

namespace gpushim {

// Why a call ran on the CPU.
enum class CpuReason : uint8_t {
    none,                     // it ran on the device
    disabled,                 // GPUSHIM_DISABLE
    nothing_to_offload,       // invalid arguments or nothing to compute: the CPU library's answer
    below_threshold,          // its routine's GPUSHIM_THRESHOLD
    inside_device_operation,  // made by the CPU library the device plugin computes with
    workspace_query,          // a LAPACK workspace query: the CPU library's answer
    small_workspace,          // a LAPACK workspace smaller than the CPU library would want
    not_for_device,           // what the device interface does not take (FFTW's r2r, a mode)
    device_unavailable,       // no usable device, or no room on it
    device_lost,              // the device was lost earlier in the process (gpu/backend.h)
    device_failed,            // the device failed: recomputed on the CPU
    device_failed_part_way,   // the device failed part-way: the CPU computed the rest
    device_differed,          // GPUSHIM_VERIFY's check failed the device's result: recomputed
};

const char* describe(CpuReason reason);

// What GPUSHIM_VERIFY found of a call the device computed (dispatch/blas3_check.h).
enum class Verdict : uint8_t {
    unchecked,  // not checked: GPUSHIM_VERIFY is off, the routine is not checked, or the
                // copies found no host memory
    agreed,
    differed,  // the device's result was replaced by the CPU's
};

// The call's sizes, as the trace names them ("m=1200 n=1200 k=600").
std::string call_shape(const Blas3Op& op);
std::string call_shape(const LapackOp& op);
std::string call_shape(const FftOp& op);

}  // namespace gpushim
