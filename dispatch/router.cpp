#include "dispatch/router.h"

#include "gpu/blas3_executor.h"
#include "gpu/fft_executor.h"
#include "gpu/lapack_executor.h"
#include "gpu/staging.h"

namespace gpushim {
namespace {

// A plugin may compute with a CPU library that calls back into the shim's entry points
// (the hostsim plugin's LAPACK calls dgemm_). Those calls are part of the device operation
// in progress, which holds the thread's queue context: they run on the CPU, unrecorded.
thread_local bool inside_device_operation = false;

class DeviceOperationScope {
  public:
    DeviceOperationScope() { inside_device_operation = true; }
    ~DeviceOperationScope() { inside_device_operation = false; }
    DeviceOperationScope(const DeviceOperationScope&) = delete;
    DeviceOperationScope& operator=(const DeviceOperationScope&) = delete;

  private:
    const NestedCallScope nested_;
};

// Runs `execute` (an executor call) and records the call when its result is complete
// (CpuReason::none); else why the CPU must compute it.
template <class Op, class Execute>
CpuReason run_and_record(const Op& op, Routine routine, Execute&& execute) {
    const auto start = std::chrono::steady_clock::now();
    gpu::Transfers transfers;
    gpu::Outcome outcome;
    {
        const DeviceOperationScope device_operation;
        outcome = execute(transfers);
        gpu::leave_room_for_others();
    }
    if (outcome == gpu::Outcome::failed) return CpuReason::device_failed;
    if (outcome == gpu::Outcome::unavailable) return CpuReason::device_unavailable;
    if (statistics_enabled()) {
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        const bool completed = outcome == gpu::Outcome::completed;
        CallRecord record{.routine = routine,
                          .placement = completed ? Placement::gpu : Placement::fallback,
                          .seconds = elapsed.count(),
                          .flops = flop_count(op),
                          .bytes_to_device = transfers.bytes_to_device,
                          .bytes_to_host = transfers.bytes_to_host,
                          .bytes_reused = transfers.bytes_reused,
                          .reason = completed ? CpuReason::none : CpuReason::device_failed_part_way,
                          .shape = tracing_calls() ? call_shape(op) : std::string()};
        record_call(record);
    }
    return CpuReason::none;
}

// Why a BLAS or LAPACK call stays on the CPU, in the order the router weighs the reasons;
// `size` gives the call's measure for its threshold, once it is known to be valid.
template <class Op, class Size>
CpuReason reason_for(const Op& op, Routine routine, Size&& size) {
    const Config& settings = config();
    if (settings.disabled) return CpuReason::disabled;
    if (inside_device_operation) return CpuReason::inside_device_operation;
    if (!arguments_valid(op) || is_degenerate(op)) return CpuReason::nothing_to_offload;
    return size() >= settings.offload_size[static_cast<std::size_t>(routine)]
               ? CpuReason::none
               : CpuReason::below_threshold;
}

}  // namespace

CpuReason cpu_reason(const Blas3Op& op, Routine routine) {
    return reason_for(op, routine, [&] { return multiply_adds(op); });
}

CpuReason run_on_gpu(const Blas3Op& op, Routine routine, CpuPart cpu_part) {
    return run_and_record(op, routine, [&](gpu::Transfers& transfers) {
        return gpu::execute_blas3(op, cpu_part, transfers);
    });
}

CpuReason cpu_reason(const LapackOp& op, Routine routine) {
    return reason_for(op, routine, [&] { return cubed_order(op); });
}

CpuReason run_on_gpu(const LapackOp& op, Routine routine) {
    return run_and_record(
        op, routine, [&](gpu::Transfers& transfers) { return gpu::execute_lapack(op, transfers); });
}

std::unique_ptr<gpu::FftDeviceState> bind_to_device(const FftProblem& problem, Routine routine,
                                                    CpuReason& reason) {
    const Config& settings = config();
    if (settings.disabled) {
        reason = CpuReason::disabled;
    } else if (!suits_device(problem)) {
        reason = CpuReason::not_for_device;
    } else if (fft_points(problem) < settings.offload_size[static_cast<std::size_t>(routine)]) {
        reason = CpuReason::below_threshold;
    } else {
        // Where no device is usable (no GPU, a forked child), or it cannot plan the
        // transform, FFTW plans it as the caller asked, MEASURE included.
        std::unique_ptr<gpu::FftDeviceState> device = gpu::plan_fft_on_device(problem);
        reason = device != nullptr ? CpuReason::none : CpuReason::device_unavailable;
        return device;
    }
    return nullptr;
}

CpuReason run_on_gpu(const FftOp& op, Routine routine, gpu::FftDeviceState& device) {
    if (inside_device_operation) return CpuReason::inside_device_operation;
    return run_and_record(op, routine, [&](gpu::Transfers& transfers) {
        return gpu::execute_fft(op, device, transfers);
    });
}

}  // namespace gpushim
