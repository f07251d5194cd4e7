// Declarations of the shim's FFTW3 entry points (shim/fftw_functions.h), for the code that
// calls them from inside the shim (the legacy Fortran interface) and for their definitions.
#pragma once

#include <cstdio>

#include "shim/fftw_abi.h"
#include "shim/fftw_functions.h"

// A consumer's parameters and arguments follow its plan.
#define GPUSHIM_FFTW_WITH_PLAN(...) (Plan p __VA_OPT__(, ) __VA_ARGS__)

// Declared in gpushim::fftw::<prefix>api (fftw_api, fftwf_api), where R, C and Plan are
// the precision's types; the functions themselves have C linkage.
#define GPUSHIM_FFTW_DECLARE_PLANNER(P, name, KIND, PARAMS, ARGS, DESCRIPTION) Plan P##name PARAMS;
#define GPUSHIM_FFTW_DECLARE_CONSUMER(P, name, Return, ROLE, PARAMS, ARGS) \
    Return P##name GPUSHIM_FFTW_WITH_PLAN PARAMS;
#define GPUSHIM_FFTW_DECLARE_WISDOM_FUNCTION(P, name, Return, BEFORE, PARAMS, ARGS) \
    Return P##name PARAMS;
#define GPUSHIM_FFTW_DECLARE_PRECISION(P, Real)                                        \
    namespace gpushim::fftw::P##api {                                                  \
        using R = Real;                                                                \
        using C = Types<Real>::C;                                                      \
        using Plan = Types<Real>::Plan;                                                \
        extern "C" {                                                                   \
        GPUSHIM_FOR_EACH_FFTW_PLANNER(GPUSHIM_FFTW_DECLARE_PLANNER, P, R, C)           \
        GPUSHIM_FOR_EACH_FFTW_CONSUMER(GPUSHIM_FFTW_DECLARE_CONSUMER, P, R, C)         \
        GPUSHIM_FOR_EACH_FFTW_WISDOM_FUNCTION(GPUSHIM_FFTW_DECLARE_WISDOM_FUNCTION, P) \
        }                                                                              \
    }

GPUSHIM_FOR_EACH_FFTW_PRECISION(GPUSHIM_FFTW_DECLARE_PRECISION)

#undef GPUSHIM_FFTW_DECLARE_PRECISION
#undef GPUSHIM_FFTW_DECLARE_WISDOM_FUNCTION
#undef GPUSHIM_FFTW_DECLARE_CONSUMER
#undef GPUSHIM_FFTW_DECLARE_PLANNER
