#include "dispatch/router.h"

#include <atomic>
#include <optional>

#include "dispatch/blas3_check.h"
#include "dispatch/fft_check.h"
#include "dispatch/lapack_check.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/blas3_executor.h"
#include "gpu/fft_executor.h"
#include "gpu/lapack_executor.h"
#include "gpu/staging.h"

namespace gpushim {
namespace {

// A plugin may compute with a CPU library that calls back into the shim's entry points
// (the hostsim plugin's LAPACK calls dgemm_). Those calls are part of the device operation
// in progress, which holds the thread's queue context: they run on the CPU, unrecorded. So
// do those of the CPU library GPUSHIM_VERIFY's check calls (DSYTRF's products), which must
// not depend on the device they check.
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

// What becomes of a result GPUSHIM_VERIFY's check found wrong.
enum class OnDifference {
    corrected,  // the check wrote the CPU's result (Level-3 BLAS): the call is done
    recompute,  // the check put the inputs back (LAPACK): the CPU computes the call
};

// Why the device took no part in a call it was offered.
CpuReason unavailable_reason() {
    return gpu::device_lost() ? CpuReason::device_lost : CpuReason::device_unavailable;
}

// Runs `execute` (an executor call) and records the call when its result is complete
// (CpuReason::none), with what `check` finds of it; else why the CPU must compute it, and what
// the attempt moved.
template <class Op, class Execute, class Check>
DeviceAttempt run_and_record(const Op& op, Routine routine, Execute&& execute, Check&& check,
                             OnDifference on_difference) {
    const auto start = std::chrono::steady_clock::now();
    gpu::Transfers transfers;
    gpu::Outcome outcome;
    {
        const DeviceOperationScope device_operation;
        outcome = execute(transfers);
        gpu::leave_room_for_others();
    }
    const auto not_done = [&](CpuReason reason) {
        return DeviceAttempt{reason, transfers.bytes_to_device, transfers.bytes_to_host,
                             transfers.bytes_reused};
    };
    if (outcome == gpu::Outcome::failed) return not_done(CpuReason::device_failed);
    if (outcome == gpu::Outcome::unavailable) return not_done(unavailable_reason());
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    Verdict verdict;
    {
        const DeviceOperationScope checking;
        verdict = check();
    }
    if (verdict == Verdict::differed && on_difference == OnDifference::recompute)
        return not_done(CpuReason::device_differed);
    if (statistics_enabled()) {
        const bool completed = outcome == gpu::Outcome::completed;
        CallRecord record{.routine = routine,
                          .placement = completed ? Placement::gpu : Placement::fallback,
                          .seconds = elapsed.count(),
                          .flops = flop_count(op),
                          .bytes_to_device = transfers.bytes_to_device,
                          .bytes_to_host = transfers.bytes_to_host,
                          .bytes_reused = transfers.bytes_reused,
                          .reason = completed ? CpuReason::none : CpuReason::device_failed_part_way,
                          .verdict = verdict,
                          .shape = tracing_calls() ? call_shape(op) : std::string()};
        record_call(record);
    }
    return {};
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

// Differences GPUSHIM_VERIFY found and logged: the first kLoggedDifferences of them.
constexpr int kLoggedDifferences = 20;
std::atomic<int> logged_differences{0};

template <class Op>
void log_difference(const Op& op, Routine routine, const char* difference, const char* outcome) {
    const int number = logged_differences.fetch_add(1, std::memory_order_relaxed);
    if (number >= kLoggedDifferences) return;
    try {
        log::write(
            log::Level::warn,
            "GPUSHIM_VERIFY: %s %s: the device's result fails its check: %s; %s%s",
            std::string(routine_name(routine)).c_str(), call_shape(op).c_str(), difference, outcome,
            number + 1 == kLoggedDifferences ? " (further differences: in the report only)" : "");
    } catch (const std::exception&) {  // no memory for the message: the result is right
    }
}

// What `check` (a Blas3Check, LapackCheck or FftCheck, when GPUSHIM_VERIFY made one) finds of
// the device's result; a difference is logged, with what becomes of the call (`outcome`).
template <class Op, class Check>
Verdict verdict_of(const Op& op, Routine routine, std::optional<Check>& check,
                   const char* outcome) {
    if (!check) return Verdict::unchecked;
    const Verdict verdict = check->finish();
    if (verdict == Verdict::differed) log_difference(op, routine, check->difference(), outcome);
    return verdict;
}

}  // namespace

CpuReason cpu_reason(const Blas3Op& op, Routine routine) {
    return reason_for(op, routine, [&] { return multiply_adds(op); });
}

DeviceAttempt run_on_gpu(const Blas3Op& op, Routine routine, CpuPart cpu_part) {
    std::optional<Blas3Check> check;
    if (config().verify) check.emplace(op, cpu_part);
    return run_and_record(
        op, routine,
        [&](gpu::Transfers& transfers) { return gpu::execute_blas3(op, cpu_part, transfers); },
        [&] { return verdict_of(op, routine, check, "the CPU's result is used"); },
        OnDifference::corrected);
}

CpuReason cpu_reason(const LapackOp& op, Routine routine) {
    return reason_for(op, routine, [&] { return cubed_order(op); });
}

DeviceAttempt run_on_gpu(const LapackOp& op, const LapackRoutine& routine) {
    std::optional<LapackCheck> check;
    if (config().verify && lapack_checked(op))
        check.emplace(op, routine.blas, routine.symmetric_factor);
    return run_and_record(
        op, routine.name,
        [&](gpu::Transfers& transfers) { return gpu::execute_lapack(op, transfers); },
        [&] { return verdict_of(op, routine.name, check, "the CPU computes the call"); },
        OnDifference::recompute);
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
        reason = device != nullptr ? CpuReason::none : unavailable_reason();
        return device;
    }
    return nullptr;
}

DeviceAttempt run_on_gpu(const FftOp& op, Routine routine, gpu::FftDeviceState& device,
                         FftOnCpu cpu) {
    if (inside_device_operation) return {CpuReason::inside_device_operation};
    std::optional<FftCheck> check;
    if (config().verify) check.emplace(op, cpu);
    return run_and_record(
        op, routine,
        [&](gpu::Transfers& transfers) { return gpu::execute_fft(op, device, transfers); },
        [&] { return verdict_of(op, routine, check, "FFTW's result is used"); },
        OnDifference::corrected);
}

}  // namespace gpushim
