#include "shim/fftw_plan.h"

#include <type_traits>

#include "shim/fftw_routines.h"

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

// The flags of the CPU plan of a transform bound for the device: FFTW_ESTIMATE, keeping
// what the caller allows or forbids of the arrays; with FFTW_WISDOM_ONLY the caller's, so
// that the plan exists exactly when FFTW has wisdom for it.
unsigned cpu_flags_for_device_plan(unsigned flags) {
    if ((flags & fftw::kWisdomOnly) != 0) return flags;
    constexpr unsigned kKept =
        fftw::kDestroyInput | fftw::kPreserveInput | fftw::kUnaligned | fftw::kConserveMemory;
    return (flags & kKept) | fftw::kEstimate;
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
    const bool to_device = worth_offloading(planned.problem, routine);
    void* cpu_plan = plan_on_cpu(context, to_device ? cpu_flags_for_device_plan(flags) : flags);
    if (cpu_plan == nullptr) return nullptr;
    auto* plan = new FftwPlan{
        FftwPlan::kMagic, std::move(planned.problem), routine, cpu_plan, planned.in, planned.out,
        nullptr};
    if (to_device) plan->device = std::make_unique<gpu::FftDeviceState>();
    return plan;
}

}  // namespace gpushim::shim
