// The shim's FFTW plan, and what the entry points (fftw_entries.cpp) do with plans.
//
// Every planner returns a plan of the shim's, which holds FFTW's own plan for the CPU
// path. A transform bound for the device gets an FFTW_ESTIMATE plan (no MEASURE search
// for a transform the device computes; ESTIMATE never touches the arrays; the search is
// made only if the program looks at wisdom: fftw_skipped_searches.h), or, with
// FFTW_WISDOM_ONLY, the plan the caller's flags give, so that planning fails exactly
// when FFTW's would. Any other transform gets FFTW's plan for the caller's own flags.
// A plan pointer that is not the shim's is handed to FFTW unchanged.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "dispatch/fft_call.h"
#include "dispatch/router.h"
#include "dispatch/routines.h"
#include "gpu/fft_executor.h"
#include "shim/cpu_function.h"
#include "shim/fftw_abi.h"
#include "shim/fftw_descriptions.h"

namespace gpushim::shim {

struct FftwPlan {
    // First, where FFTW's own plans hold a pointer: a value no user-space pointer has (bit
    // 63 set, not sign-extended), so that an FFTW plan is never taken for the shim's.
    static constexpr uint64_t kMagic = 0xC0FF'EE67'7075'7368;
    uint64_t magic = kMagic;
    FftProblem problem;
    Routine routine;
    void* cpu_plan;  // FFTW's: the CPU path, and what print/flops/cost describe
    const void* in;  // the planned arrays, for fftw_execute
    void* out;
    std::unique_ptr<gpu::FftDeviceState> device;  // when bound for the device
    CpuReason unbound = CpuReason::none;          // else why not (for the call trace)
};

// The shim's plan behind `plan`, or nullptr when FFTW made it.
inline FftwPlan* shim_plan(const void* plan) {
    if (plan == nullptr) return nullptr;
    uint64_t first;
    std::memcpy(&first, plan, sizeof first);
    return first == FftwPlan::kMagic ? static_cast<FftwPlan*>(const_cast<void*>(plan)) : nullptr;
}

Routine fft_routine(FftKind kind, bool single);

// Makes the plan: `plan_on_cpu(flags)` calls FFTW's planner of the entry point with the
// caller's arguments and the given flags. FFTW's public planners call one another (through
// the PLT, so through the shim's entries): those nested calls go straight to FFTW.
void* plan_transform(PlannedTransform planned, bool single, unsigned flags,
                     void* (*plan_on_cpu)(void* context, unsigned flags), void* context);

template <class Real, class PlanOnCpu>
typename fftw::Types<Real>::Plan plan(PlannedTransform planned, unsigned flags,
                                      PlanOnCpu&& plan_on_cpu) {
    using Plan = typename fftw::Types<Real>::Plan;
    auto call = [](void* context, unsigned planner_flags) -> void* {
        return (*static_cast<std::remove_reference_t<PlanOnCpu>*>(context))(planner_flags);
    };
    return static_cast<Plan>(
        plan_transform(std::move(planned), std::is_same_v<Real, float>, flags, call, &plan_on_cpu));
}

// ---- what the consumers of fftw_functions.h do with a plan (their ROLE) ----

// FFTW's plan of the shim's plan: what computes it on the CPU.
template <class Real>
typename fftw::Types<Real>::Plan fftw_plan_of(const FftwPlan& plan) {
    return static_cast<typename fftw::Types<Real>::Plan>(plan.cpu_plan);
}

// FFTW's plan of the CPU path executed on arrays other than the caller's (GPUSHIM_VERIFY's
// check), by the new-array execute function of its transform.
template <class Real>
void execute_on_other_arrays(const void* p, const void* in, void* out) {
    using Plan = typename fftw::Types<Real>::Plan;
    using Complex = typename fftw::Types<Real>::C;
    constexpr bool kSingle = std::is_same_v<Real, float>;
    static CpuFunction<void(Plan, Complex*, Complex*)> c2c(kSingle ? "fftwf_execute_dft"
                                                                   : "fftw_execute_dft");
    static CpuFunction<void(Plan, Real*, Complex*)> r2c(kSingle ? "fftwf_execute_dft_r2c"
                                                                : "fftw_execute_dft_r2c");
    static CpuFunction<void(Plan, Complex*, Real*)> c2r(kSingle ? "fftwf_execute_dft_c2r"
                                                                : "fftw_execute_dft_c2r");
    const FftwPlan& plan = *static_cast<const FftwPlan*>(p);
    void* input = const_cast<void*>(in);
    switch (plan.problem.kind) {
        case FftKind::c2c:
            return c2c.get()(fftw_plan_of<Real>(plan), static_cast<Complex*>(input),
                             static_cast<Complex*>(out));
        case FftKind::r2c:
            return r2c.get()(fftw_plan_of<Real>(plan), static_cast<Real*>(input),
                             static_cast<Complex*>(out));
        case FftKind::c2r:
            return c2r.get()(fftw_plan_of<Real>(plan), static_cast<Complex*>(input),
                             static_cast<Real*>(out));
        default:  // split arrays and r2r never reach the device
            return;
    }
}

template <class Real>
FftOnCpu fftw_on_other_arrays(const FftwPlan& plan) {
    return {&execute_on_other_arrays<Real>, &plan};
}

template <class Real, class Function>
void execute_planned(CpuFunction<Function>& cpu, typename fftw::Types<Real>::Plan p) {
    FftwPlan* plan = shim_plan(p);
    if (plan == nullptr) return cpu.get()(p);
    route(
        FftOp{&plan->problem, plan->in, plan->out}, plan->routine, plan->device.get(),
        plan->unbound, [&] { cpu.get()(fftw_plan_of<Real>(*plan)); },
        fftw_on_other_arrays<Real>(*plan));
}

template <class Real, class Function, class In, class Out>
void execute_new(CpuFunction<Function>& cpu, typename fftw::Types<Real>::Plan p, In* in, Out* out) {
    FftwPlan* plan = shim_plan(p);
    if (plan == nullptr) return cpu.get()(p, in, out);
    route(
        FftOp{&plan->problem, in, out}, plan->routine, plan->device.get(), plan->unbound,
        [&] { cpu.get()(fftw_plan_of<Real>(*plan), in, out); }, fftw_on_other_arrays<Real>(*plan));
}

template <class Real, class Function, class... Args>
void execute_on_cpu(CpuFunction<Function>& cpu, typename fftw::Types<Real>::Plan p, Args... args) {
    FftwPlan* plan = shim_plan(p);
    if (plan == nullptr) return cpu.get()(p, args...);
    forward_to_cpu(FftOp{&plan->problem, nullptr, nullptr}, plan->routine,
                   CpuReason::not_for_device,
                   [&] { cpu.get()(fftw_plan_of<Real>(*plan), args...); });
}

template <class Real, class Function, class... Args>
auto inspect(CpuFunction<Function>& cpu, typename fftw::Types<Real>::Plan p, Args... args) {
    const FftwPlan* plan = shim_plan(p);
    return cpu.get()(plan == nullptr ? p : fftw_plan_of<Real>(*plan), args...);
}

template <class Real, class Function>
void destroy(CpuFunction<Function>& cpu, typename fftw::Types<Real>::Plan p) {
    FftwPlan* plan = shim_plan(p);
    if (plan == nullptr) return cpu.get()(p);
    cpu.get()(fftw_plan_of<Real>(*plan));
    plan->magic = 0;
    delete plan;
}

}  // namespace gpushim::shim
