// Every exported Level-3 BLAS entry point: the routine table expanded under every name
// scheme, for the Fortran and the CBLAS interface. An entry describes its call, lets the
// router run it on the device, and otherwise forwards its own arguments, unchanged, to the
// CPU library's function of the same name. When the device fails half-way through a call,
// the rest is computed through the CPU library's Fortran function of the same scheme
// (its own name for a Fortran entry, the Fortran twin for a CBLAS one).
#include "dispatch/router.h"
#include "fallback/fortran_blas3.h"
#include "shim/blas3_op_builders.h"
#include "shim/blas3_routines.h"
#include "shim/cpu_function.h"
#include "shim/export.h"
#include "shim/name_schemes.h"


// The Fortran function of one routine and scheme, for computing parts of calls.
#define GPUSHIM_FORTRAN_FUNCTION(fortran_symbol, name, T, Int)                                  \
    namespace {                                                                                 \
    gpushim::shim::CpuFunction<void> cpu_part_of_##fortran_symbol(GPUSHIM_STRING(fortran_symbol)); \
    bool run_part_of_##fortran_symbol(const gpushim::Blas3Op& part) {                           \
        return gpushim::fallback::call_fortran_blas3<T, Int>(cpu_part_of_##fortran_symbol.get(), part); \
    }                                                                                           \
    }

// An entry point is a size test and two tail calls: a small call with no report to
// collect is forwarded to the CPU library at once, before it is described (its arguments
// stay where the caller put them); any other goes to the routing path of the same
// signature, which also does everything that happens once (reading the settings,
// resolving the CPU function), so that the entry point itself calls nothing.
#define GPUSHIM_FORTRAN_ENTRY(symbol, name, KIND, family, T, A, B, Int)                         \
    namespace {                                                                                 \
    using Function_##symbol = void(GPUSHIM_FORTRAN_##family##_PARAMS(T, A, B, Int));           \
    gpushim::shim::CpuFunction<Function_##symbol> cpu_##symbol(GPUSHIM_STRING(symbol));        \
    [[gnu::noinline]] void route_##symbol(GPUSHIM_FORTRAN_##family##_PARAMS(T, A, B, Int)) {   \
        gpushim::route(                                                                         \
            gpushim::shim::fortran_##family##_op(GPUSHIM_##KIND, GPUSHIM_FORTRAN_##family##_OP_ARGS), \
            gpushim::Routine::name, [&] { cpu_##symbol.get()(GPUSHIM_FORTRAN_##family##_ARGS); }, \
            run_part_of_##symbol);                                                              \
    }                                                                                           \
    }                                                                                           \
    extern "C" GPUSHIM_EXPORT void symbol(GPUSHIM_FORTRAN_##family##_PARAMS(T, A, B, Int)) {   \
        Function_##symbol* const resolved = cpu_##symbol.resolved();                            \
        if (resolved != nullptr && gpushim::forward_at_once(gpushim::Routine::name, GPUSHIM_##KIND, \
                                                            GPUSHIM_FORTRAN_##family##_SHAPE)) { \
            return resolved(GPUSHIM_FORTRAN_##family##_ARGS);                                   \
        }                                                                                       \
        return route_##symbol(GPUSHIM_FORTRAN_##family##_ARGS);                                 \
    }

#define GPUSHIM_CBLAS_ENTRY(symbol, fortran_symbol, name, KIND, family, T, A, B, Int)           \
    namespace {                                                                                 \
    using Function_##symbol = void(GPUSHIM_CBLAS_##family##_PARAMS(T, A, B, Int));             \
    gpushim::shim::CpuFunction<Function_##symbol> cpu_##symbol(GPUSHIM_STRING(symbol));        \
    [[gnu::noinline]] void route_##symbol(GPUSHIM_CBLAS_##family##_PARAMS(T, A, B, Int)) {     \
        gpushim::route(gpushim::shim::cblas_##family##_op<T, A, B, Int>(                        \
                           GPUSHIM_##KIND, GPUSHIM_CBLAS_##family##_ARGS),                      \
                       gpushim::Routine::name,                                                  \
                       [&] { cpu_##symbol.get()(GPUSHIM_CBLAS_##family##_ARGS); },              \
                       run_part_of_##fortran_symbol);                                           \
    }                                                                                           \
    }                                                                                           \
    extern "C" GPUSHIM_EXPORT void symbol(GPUSHIM_CBLAS_##family##_PARAMS(T, A, B, Int)) {     \
        Function_##symbol* const resolved = cpu_##symbol.resolved();                            \
        if (resolved != nullptr && gpushim::forward_at_once(gpushim::Routine::name, GPUSHIM_##KIND, \
                                                            GPUSHIM_CBLAS_##family##_SHAPE)) {   \
            return resolved(GPUSHIM_CBLAS_##family##_ARGS);                                     \
        }                                                                                       \
        return route_##symbol(GPUSHIM_CBLAS_##family##_ARGS);                                   \
    }

#define GPUSHIM_ENTRIES_OF_ROUTINE(name, KIND, family, T, A, B, fp, fs, cp, cs, Int)            \
    GPUSHIM_FORTRAN_FUNCTION(fp##name##fs, name, T, Int)                                        \
    GPUSHIM_FORTRAN_ENTRY(fp##name##fs, name, KIND, family, T, A, B, Int)                       \
    GPUSHIM_CBLAS_ENTRY(cp##name##cs, fp##name##fs, name, KIND, family, T, A, B, Int)

#define GPUSHIM_ENTRIES_OF_SCHEME(fp, fs, cp, cs, Int) \
    GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_ENTRIES_OF_ROUTINE, fp, fs, cp, cs, Int)

using gpushim::ccomplex;
using gpushim::zcomplex;

GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_ENTRIES_OF_SCHEME)
