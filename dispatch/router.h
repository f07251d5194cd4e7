// Where a call runs: the GPU when it is valid, large enough and a device is usable;
// otherwise, or when the device fails, the CPU library with the caller's arguments.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>

#include "dispatch/blas3_call.h"
#include "dispatch/call_trace.h"
#include "dispatch/config.h"
#include "dispatch/fft_call.h"
#include "dispatch/lapack_call.h"
#include "dispatch/routines.h"
#include "dispatch/statistics.h"

namespace gpushim {
namespace gpu {
class FftDeviceState;
}

// What trying the device for a call came to: CpuReason::none when its result is complete (and
// recorded), else why the CPU must compute it, with the bytes the attempt moved, which the
// CPU's record of the call counts.
struct DeviceAttempt {
    CpuReason reason = CpuReason::none;
    uint64_t bytes_to_device = 0;
    uint64_t bytes_to_host = 0;
    uint64_t bytes_reused = 0;
};

// Tries the device, which may compute part of the call through `cpu_part`: the device failed,
// or was unavailable (no device, or no room on it), or the call is done.
DeviceAttempt run_on_gpu(const Blas3Op& op, Routine routine, CpuPart cpu_part);

// Small calls, the common case, leave at the door: an entry point forwards a call to the
// CPU library at once, before describing it, when its size (a BLAS call's size_product, a
// LAPACK call's cubed_order; neither depends on the layout, so the raw sizes suffice) is
// below what this returns. -infinity while a report or the call trace is collected (every
// call is routed, to be recorded), +infinity when the library is disabled; else offload_size
// / `scale`, the size's multiply-adds per unit, which makes the test exactly cpu_reason's.
[[gnu::always_inline]] inline double forward_at_once_below(Routine routine, double scale = 1.0) {
    const Config& settings = config();
    if (settings.collect_statistics) return -std::numeric_limits<double>::infinity();
    if (settings.disabled) return std::numeric_limits<double>::infinity();
    return settings.offload_size[static_cast<std::size_t>(routine)] / scale;
}

// Forwards the call through `cpu_call`, timed and recorded when a report or the call trace
// is collected (`reason`: why it runs there). Calls the CPU library makes back into the shim
// meanwhile are part of this one.
// `tried` is when the device was tried for the call, whose time counts too, and `attempt`
// what that attempt moved.
template <class Op, class CpuCall>
void forward_to_cpu(const Op& op, Routine routine, CpuReason reason, CpuCall&& cpu_call,
                    std::chrono::steady_clock::time_point tried = {},
                    const DeviceAttempt& attempt = {}) {
    if (!statistics_enabled()) {
        cpu_call();
        return;
    }
    const auto start =
        tried != std::chrono::steady_clock::time_point{} ? tried : std::chrono::steady_clock::now();
    {
        const NestedCallScope nested;
        cpu_call();
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const bool recomputed =
        reason == CpuReason::device_failed || reason == CpuReason::device_differed;
    CallRecord record{
        .routine = routine,
        .placement = recomputed ? Placement::fallback : Placement::cpu,
        .seconds = elapsed.count(),
        .flops = reason != CpuReason::workspace_query && arguments_valid(op) ? flop_count(op) : 0.0,
        .bytes_to_device = attempt.bytes_to_device,
        .bytes_to_host = attempt.bytes_to_host,
        .bytes_reused = attempt.bytes_reused,
        .reason = reason,
        .verdict = reason == CpuReason::device_differed ? Verdict::differed : Verdict::unchecked,
        .shape = tracing_calls() ? call_shape(op) : std::string()};
    record_call(record);
}

// Why a call the device has not been tried for stays on the CPU: disabled, invalid,
// degenerate and below-threshold calls, and those the device plugin's CPU library makes;
// CpuReason::none for a call worth offloading.
CpuReason cpu_reason(const Blas3Op& op, Routine routine);

// When the device is tried for a call, for its record (a time of zero when none is kept).
inline std::chrono::steady_clock::time_point trying_device() {
    return statistics_enabled() ? std::chrono::steady_clock::now()
                                : std::chrono::steady_clock::time_point{};
}

// `cpu_call` forwards the caller's own arguments to the CPU library; `cpu_part` computes a
// canonical sub-call there, for the part of a call the device could not finish.
template <class CpuCall>
void route(const Blas3Op& op, Routine routine, CpuCall&& cpu_call, CpuPart cpu_part) {
    DeviceAttempt attempt{cpu_reason(op, routine)};
    std::chrono::steady_clock::time_point tried{};
    if (attempt.reason == CpuReason::none) {
        tried = trying_device();
        attempt = run_on_gpu(op, routine, cpu_part);
        if (attempt.reason == CpuReason::none) return;
    }
    forward_to_cpu(op, routine, attempt.reason, cpu_call, tried, attempt);
}

// LAPACK calls: as the Level-3 BLAS calls.
CpuReason cpu_reason(const LapackOp& op, Routine routine);

// A LAPACK entry's routine, and the CPU library's Level-3 BLAS and DSYTRF of its name scheme,
// with which GPUSHIM_VERIFY checks the device's results.
struct LapackRoutine {
    Routine name;
    CpuPart blas;
    CpuSymmetricFactor symmetric_factor;
};

// Runs the call on the device; CpuReason::none when its results are in the caller's arrays
// (and, under GPUSHIM_VERIFY, passed their check: else the inputs are put back and the reason
// is device_differed).
DeviceAttempt run_on_gpu(const LapackOp& op, const LapackRoutine& routine);

// `cpu_call` forwards the caller's own arguments to the CPU library. `workspace_suffices`
// asks, for a call worth offloading, whether the caller's workspace is at least what the
// CPU library would want (a smaller one, though valid, leaves the call to the CPU, which
// then has what it needs). A call the device interface does not take (suits_device) stays on
// the CPU too. `finish` sets INFO and the workspace answers after the device
// computed the call.
template <class CpuCall, class WorkspaceSuffices, class Finish>
void route(const LapackOp& op, const LapackRoutine& routine, CpuCall&& cpu_call,
           WorkspaceSuffices&& workspace_suffices, Finish&& finish) {
    DeviceAttempt attempt{cpu_reason(op, routine.name)};
    std::chrono::steady_clock::time_point tried{};
    if (attempt.reason == CpuReason::none) {
        bool workspace_ok = false;
        {
            // The CPU library's query makes queries of its own through the shim's entries.
            const NestedCallScope query;
            workspace_ok = workspace_suffices();
        }
        // Only then are the caller's arrays read: a workspace query may pass none.
        if (!workspace_ok) {
            attempt.reason = CpuReason::small_workspace;
        } else if (!suits_device(op)) {
            attempt.reason = CpuReason::not_for_device;
        } else {
            tried = trying_device();
            attempt = run_on_gpu(op, routine);
            if (attempt.reason == CpuReason::none) {
                finish();
                return;
            }
        }
    }
    forward_to_cpu(op, routine.name, attempt.reason, cpu_call, tried, attempt);
}

// FFTs are routed when planned: a transform the device can compute, of at least its
// routine's threshold, is bound for the device when the library is not disabled, a device
// is usable and it can plan the transform. The device state of the bound plan, or nullptr
// and why not in `reason`.
std::unique_ptr<gpu::FftDeviceState> bind_to_device(const FftProblem& problem, Routine routine,
                                                    CpuReason& reason);

// Runs one execution of a plan bound for the device; CpuReason::none when its result is in
// op.out. GPUSHIM_VERIFY checks it with `cpu`.
DeviceAttempt run_on_gpu(const FftOp& op, Routine routine, gpu::FftDeviceState& device,
                         FftOnCpu cpu);

// `device` is the plan's device state when it is bound for the device, else nullptr and
// `unbound` why; `cpu_call` executes FFTW's plan on the caller's arrays, `cpu` on others.
template <class CpuCall>
void route(const FftOp& op, Routine routine, gpu::FftDeviceState* device, CpuReason unbound,
           CpuCall&& cpu_call, FftOnCpu cpu) {
    DeviceAttempt attempt{unbound};
    std::chrono::steady_clock::time_point tried{};
    if (device != nullptr) {
        tried = trying_device();
        attempt = run_on_gpu(op, routine, *device, cpu);
        if (attempt.reason == CpuReason::none) return;
    }
    forward_to_cpu(op, routine, attempt.reason, cpu_call, tried, attempt);
}

}  // namespace gpushim
