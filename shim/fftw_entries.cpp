// Every exported FFTW3 entry point: the planners, the plan consumers and the wisdom
// functions of fftw_functions.h for fftw_ and fftwf_. A planner describes its transform and
// makes the shim's plan around FFTW's (fftw_plan.h); a consumer does its ROLE with the plan,
// and hands a plan the shim did not make to FFTW's function of the same name unchanged; a
// wisdom function makes or forgets the searches the shim skipped (fftw_skipped_searches.h)
// and then calls FFTW's.
#include "shim/export.h"
#include "shim/fftw_api.h"
#include "shim/fftw_descriptions.h"
#include "shim/fftw_plan.h"
#include "shim/fftw_skipped_searches.h"

#define GPUSHIM_FFTW_AFTER_PLAN(...) __VA_OPT__(, ) __VA_ARGS__

#define GPUSHIM_FFTW_PLANNER_ENTRY(P, name, KIND, PARAMS, ARGS, DESCRIPTION)                       \
    namespace {                                                                                    \
    CpuFunction<Plan PARAMS> cpu_##P##name(GPUSHIM_STRING(P##name));                               \
    }                                                                                              \
    extern "C" GPUSHIM_EXPORT Plan P##name PARAMS {                                                \
        return plan<R>(DESCRIPTION, flags,                                                         \
                       [&](unsigned planner_flags) -> void* { return cpu_##P##name.get() ARGS; }); \
    }

#define GPUSHIM_FFTW_CONSUMER_ENTRY(P, name, Return, ROLE, PARAMS, ARGS)                      \
    namespace {                                                                               \
    CpuFunction<Return GPUSHIM_FFTW_WITH_PLAN PARAMS> cpu_##P##name(GPUSHIM_STRING(P##name)); \
    }                                                                                         \
    extern "C" GPUSHIM_EXPORT Return P##name GPUSHIM_FFTW_WITH_PLAN PARAMS {                  \
        return ROLE<R>(cpu_##P##name, p GPUSHIM_FFTW_AFTER_PLAN ARGS);                        \
    }

#define GPUSHIM_FFTW_WISDOM_ENTRY(P, name, Return, BEFORE, PARAMS, ARGS) \
    namespace {                                                          \
    CpuFunction<Return PARAMS> cpu_##P##name(GPUSHIM_STRING(P##name));   \
    }                                                                    \
    extern "C" GPUSHIM_EXPORT Return P##name PARAMS {                    \
        BEFORE(std::is_same_v<R, float>);                                \
        return cpu_##P##name.get() ARGS;                                 \
    }

#define GPUSHIM_FFTW_ENTRIES_OF_PRECISION(P, Real)                           \
    namespace gpushim::fftw::P##api {                                        \
        using namespace gpushim::shim;                                       \
        GPUSHIM_FOR_EACH_FFTW_PLANNER(GPUSHIM_FFTW_PLANNER_ENTRY, P, R, C)   \
        GPUSHIM_FOR_EACH_FFTW_CONSUMER(GPUSHIM_FFTW_CONSUMER_ENTRY, P, R, C) \
        GPUSHIM_FOR_EACH_FFTW_WISDOM_FUNCTION(GPUSHIM_FFTW_WISDOM_ENTRY, P)  \
    }

GPUSHIM_FOR_EACH_FFTW_PRECISION(GPUSHIM_FFTW_ENTRIES_OF_PRECISION)
