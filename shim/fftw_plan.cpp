#include "shim/fftw_plan.h"

#include <new>
#include <type_traits>

#include "shim/fftw_routines.h"
#include "shim/fftw_skipped_searches.h"

namespace gpushim::shim {
namespace {

// How deep this thread is in planners of the shim's: FFTW's basic planners call its
// advanced ones, which are the shim's entries too.
thread_local int planning_depth = 0;

class PlanningScope {
  public:
    PlanningScope() { ++planning_depth; }
    ~PlanningScope() { --planning_depth; }
    PlanningScope(const PlanningScope&) = delete;
    PlanningScope& operator=(const PlanningScope&) = delete;
};

// FFTW's plan for the CPU path. With FFTW_WISDOM_ONLY, the caller's flags: FFTW's answer,
// once the searches the shim skipped are made (fftw_skipped_searches.h; also where the
// device is no longer usable, as in a forked child). Otherwise, for a transform
// bound for the device, FFTW_ESTIMATE in place of the caller's search (MEASURE, PATIENT,
// EXHAUSTIVE), every other flag kept, and the search recorded; for any other, the caller's
// flags.
void* plan_cpu_path(const PlannedTransform& planned, unsigned flags, bool bound_for_device,
                    void* (*plan_on_cpu)(void* context, unsigned flags), void* context) {
    if ((flags & fftw::kWisdomOnly) != 0) {
        void* with_wisdom = plan_on_cpu(context, flags);
        if (with_wisdom != nullptr || !make_skipped_searches(planned.problem.single))
            return with_wisdom;
        return plan_on_cpu(context, flags);
    }
    if (!bound_for_device) return plan_on_cpu(context, flags);
    if ((flags & fftw::kEstimate) == 0) skip_search(planned, flags);
    return plan_on_cpu(context, (flags & ~(fftw::kPatient | fftw::kExhaustive)) | fftw::kEstimate);
}

}  // namespace

Routine fft_routine(FftKind kind, bool single) {
#define GPUSHIM_FFT_ROUTINE_OF(name, KIND, Real, ...) \
    if (kind == FftKind::KIND && single == std::is_same_v<Real, float>) return Routine::name;
    GPUSHIM_FOR_EACH_FFT_ROUTINE(GPUSHIM_FFT_ROUTINE_OF)
#undef GPUSHIM_FFT_ROUTINE_OF
    return single ? Routine::fftwf_dft : Routine::fftw_dft;
}

void* plan_transform(PlannedTransform planned, bool single, unsigned flags,
                     void* (*plan_on_cpu)(void* context, unsigned flags), void* context) {
    if (planning_depth > 0) return plan_on_cpu(context, flags);
    const PlanningScope planning;
    planned.problem.single = single;
    const Routine routine = fft_routine(planned.problem.kind, single);
    CpuReason unbound = CpuReason::none;
    std::unique_ptr<gpu::FftDeviceState> device = bind_to_device(planned.problem, routine, unbound);
    void* cpu_plan = plan_cpu_path(planned, flags, device != nullptr, plan_on_cpu, context);
    if (cpu_plan == nullptr) return nullptr;
    auto* plan = new (std::nothrow)
        FftwPlan{FftwPlan::kMagic, std::move(planned.problem), routine, cpu_plan, planned.in,
                 planned.out,      std::move(device),          unbound};
    // Without memory for the shim's plan, FFTW's own is the answer: the consumers hand it
    // to FFTW.
    return plan != nullptr ? static_cast<void*>(plan) : cpu_plan;
}

}  // namespace gpushim::shim
