#include "shim/fftw_plan.h"

#include <mutex>
#include <new>
#include <set>
#include <tuple>
#include <type_traits>
#include <vector>

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

// Problems bound for the device whose FFTW_MEASURE (or PATIENT, EXHAUSTIVE) search was
// not made: FFTW would have wisdom for them, so a later FFTW_WISDOM_ONLY request for one
// gets a plan, as it would from FFTW, though no wisdom exists.
class SkippedSearches {
  public:
    void add(const PlannedTransform& planned) {
        const std::lock_guard lock(mutex_);
        keys_.insert(key(planned));
    }
    bool contains(const PlannedTransform& planned) const {
        const std::lock_guard lock(mutex_);
        return keys_.count(key(planned)) > 0;
    }

  private:
    // What FFTW's wisdom tells problems by: kind, precision, direction, whether the
    // transform is in place, and its sizes and strides.
    using Key =
        std::tuple<FftKind, bool, int, bool, std::vector<FftDimension>, std::vector<FftDimension>>;
    static Key key(const PlannedTransform& planned) {
        const FftProblem& p = planned.problem;
        return {p.kind, p.single, p.sign, planned.in == planned.out, p.dims, p.howmany};
    }

    mutable std::mutex mutex_;
    std::set<Key> keys_;
};

SkippedSearches& skipped_searches() {
    static auto* instance = new SkippedSearches;  // never destroyed: plans outlive statics
    return *instance;
}

// FFTW's plan for the CPU path of a transform bound for the device: FFTW_ESTIMATE in place
// of the caller's search (MEASURE, PATIENT, EXHAUSTIVE), every other flag kept. With
// FFTW_WISDOM_ONLY, the caller's flags: NULL exactly when FFTW has no wisdom, unless the
// shim skipped the search that would have made it.
void* plan_cpu_path(const PlannedTransform& planned, unsigned flags,
                    void* (*plan_on_cpu)(void* context, unsigned flags), void* context) {
    const unsigned estimate = (flags & ~(fftw::kPatient | fftw::kExhaustive)) | fftw::kEstimate;
    if ((flags & fftw::kWisdomOnly) != 0) {
        void* with_wisdom = plan_on_cpu(context, flags);
        if (with_wisdom != nullptr || !skipped_searches().contains(planned)) return with_wisdom;
        return plan_on_cpu(context, estimate & ~fftw::kWisdomOnly);
    }
    if ((flags & fftw::kEstimate) == 0) skipped_searches().add(planned);
    return plan_on_cpu(context, estimate);
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
    std::unique_ptr<gpu::FftDeviceState> device = bind_to_device(planned.problem, routine);
    void* cpu_plan = device != nullptr ? plan_cpu_path(planned, flags, plan_on_cpu, context)
                                       : plan_on_cpu(context, flags);
    if (cpu_plan == nullptr) return nullptr;
    auto* plan = new (std::nothrow)
        FftwPlan{FftwPlan::kMagic, std::move(planned.problem), routine, cpu_plan, planned.in,
                 planned.out,      std::move(device)};
    // Without memory for the shim's plan, FFTW's own is the answer: the consumers hand it
    // to FFTW.
    return plan != nullptr ? static_cast<void*>(plan) : cpu_plan;
}

}  // namespace gpushim::shim
