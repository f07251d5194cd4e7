// Every exported Level-3 BLAS entry point: the routine table expanded under every name
// scheme, for the Fortran and the CBLAS interface. An entry describes its call, lets the
// router run it on the device, and otherwise forwards its own arguments, unchanged, to the
// CPU library's function of the same name. When the device fails half-way through a call,
// the rest is computed through the CPU library's Fortran function of the same scheme
// (its own name for a Fortran entry, the Fortran twin for a CBLAS one); GPUSHIM_VERIFY checks
// a call through the Fortran functions of that scheme too.
#include "dispatch/router.h"
#include "fallback/fortran_blas3.h"
#include "shim/blas3_entry_asm.h"
#include "shim/blas3_entry_gate.h"
#include "shim/blas3_op_builders.h"
#include "shim/blas3_routines.h"
#include "shim/cpu_blas3.h"
#include "shim/cpu_function.h"
#include "shim/export.h"
#include "shim/name_schemes.h"

// The Fortran function of one routine and scheme, for computing parts of calls.
#define GPUSHIM_FORTRAN_FUNCTION(fortran_symbol, name, T, Int)                                     \
    namespace {                                                                                    \
    gpushim::shim::CpuFunction<void> cpu_part_of_##fortran_symbol(GPUSHIM_STRING(fortran_symbol)); \
    bool run_part_of_##fortran_symbol(const gpushim::Blas3Op& part) {                              \
        return gpushim::fallback::call_fortran_blas3<T, Int>(cpu_part_of_##fortran_symbol.get(),   \
                                                             part);                                \
    }                                                                                              \
    }

// An entry point is a size test and two tail calls: a small call with no report to
// collect is forwarded to the CPU library at once, before it is described (its arguments
// stay where the caller put them); any other goes to gpushim_route_<symbol>, of the same
// signature, which also does everything that happens once (reading the settings,
// resolving the CPU function) and then sets the gate the entry point tests, so that the
// entry point itself calls nothing. On x86-64 the entry points are written in assembly
// (blas3_entry_asm.h); elsewhere, or with GPUSHIM_PORTABLE_ENTRY_POINTS (a build the tests
// make, so that this path is tested too), in C++. The gates and routing paths are `used`:
// the assembly refers to them by name, which link-time optimisation would not see.
#define GPUSHIM_PARAMS(interface, family, T, A, B, Int) \
    GPUSHIM_##interface##_##family##_PARAMS(T, A, B, Int)

#define GPUSHIM_ENTRY_GATE(symbol, interface, family, T, A, B, Int)                  \
    using Function_##symbol = void(GPUSHIM_PARAMS(interface, family, T, A, B, Int)); \
    extern "C" {                                                                     \
    [[gnu::visibility("hidden"),                                                     \
      gnu::used]] constinit gpushim::shim::Blas3EntryGate<Function_##symbol>         \
        gpushim_gate_##symbol(GPUSHIM_STRING(symbol));                               \
    }

#if defined(__x86_64__) && defined(__LP64__) && !defined(GPUSHIM_PORTABLE_ENTRY_POINTS)
#define GPUSHIM_ASSEMBLY_ENTRY_POINTS
#define GPUSHIM_ENTRY_POINT(symbol, KIND, interface, family, T, A, B, Int) \
    GPUSHIM_ASM_BLAS3_ENTRY(symbol, interface, family, Int)
#else
#define GPUSHIM_ENTRY_POINT(symbol, KIND, interface, family, T, A, B, Int)                   \
    extern "C" GPUSHIM_EXPORT void symbol(GPUSHIM_PARAMS(interface, family, T, A, B, Int)) { \
        auto& gate = gpushim_gate_##symbol;                                                  \
        Function_##symbol* const cpu = gate.cpu.resolved();                                  \
        if (cpu != nullptr &&                                                                \
            gpushim::size_product(GPUSHIM_##KIND, GPUSHIM_##interface##_##family##_SHAPE) <  \
                gate.forward_below.load(std::memory_order_relaxed)) {                        \
            return cpu(GPUSHIM_##interface##_##family##_ARGS);                               \
        }                                                                                    \
        return gpushim_route_##symbol(GPUSHIM_##interface##_##family##_ARGS);                \
    }
#endif

// The canonical call of each interface.
#define GPUSHIM_FORTRAN_OP(KIND, family, T, A, B, Int) \
    gpushim::shim::fortran_##family##_op(GPUSHIM_##KIND, GPUSHIM_FORTRAN_##family##_OP_ARGS)
#define GPUSHIM_CBLAS_OP(KIND, family, T, A, B, Int) \
    gpushim::shim::cblas_##family##_op<T, A, B, Int>(GPUSHIM_##KIND, GPUSHIM_CBLAS_##family##_ARGS)

// An entry point, its gate and its routing path; the Fortran functions of `scheme` compute
// parts of calls.
#define GPUSHIM_ENTRY(symbol, scheme, name, KIND, interface, family, T, A, B, Int)           \
    GPUSHIM_ENTRY_GATE(symbol, interface, family, T, A, B, Int)                              \
    extern "C"                                                                               \
        [[gnu::visibility("hidden"), gnu::used, gnu::noinline]] void gpushim_route_##symbol( \
            GPUSHIM_PARAMS(interface, family, T, A, B, Int)) {                               \
        gpushim::route(                                                                      \
            GPUSHIM_##interface##_OP(KIND, family, T, A, B, Int), gpushim::Routine::name,    \
            [&] { gpushim_gate_##symbol.cpu.get()(GPUSHIM_##interface##_##family##_ARGS); }, \
            gpushim::shim::cpu_blas3_of_scheme_##scheme);                                    \
        /* the settings are read now: the entry point may forward small calls at once */     \
        gpushim_gate_##symbol.forward_below.store(                                           \
            gpushim::forward_at_once_below(gpushim::Routine::name,                           \
                                           gpushim::multiply_add_scale(GPUSHIM_##KIND)),     \
            std::memory_order_relaxed);                                                      \
    }                                                                                        \
    GPUSHIM_ENTRY_POINT(symbol, KIND, interface, family, T, A, B, Int)

#define GPUSHIM_FORTRAN_FUNCTION_OF_ROUTINE(name, KIND, family, T, A, B, fp, fs, cp, cs, Int) \
    GPUSHIM_FORTRAN_FUNCTION(fp##name##fs, name, T, Int)

// A scheme's Fortran function of the canonical call's routine (its kind and precision).
#define GPUSHIM_PART_OF_ROUTINE(name, KIND, family, T, A, B, fp, fs, cp, cs, Int)          \
    if (part.kind == GPUSHIM_##KIND && part.precision == gpushim::shim::precision_of<T>()) \
        return run_part_of_##fp##name##fs(part);

#define GPUSHIM_ENTRIES_OF_ROUTINE(name, KIND, family, T, A, B, fp, fs, cp, cs, Int) \
    GPUSHIM_ENTRY(fp##name##fs, fp##fs, name, KIND, FORTRAN, family, T, A, B, Int)   \
    GPUSHIM_ENTRY(cp##name##cs, fp##fs, name, KIND, CBLAS, family, T, A, B, Int)

#define GPUSHIM_ENTRIES_OF_SCHEME(fp, fs, cp, cs, Int)                                       \
    GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_FORTRAN_FUNCTION_OF_ROUTINE, fp, fs, cp, cs, Int) \
    bool gpushim::shim::cpu_blas3_of_scheme_##fp##fs(const gpushim::Blas3Op& part) {         \
        GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_PART_OF_ROUTINE, fp, fs, cp, cs, Int)         \
        return false;                                                                        \
    }                                                                                        \
    GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_ENTRIES_OF_ROUTINE, fp, fs, cp, cs, Int)

using gpushim::ccomplex;
using gpushim::zcomplex;

#if defined(GPUSHIM_ASSEMBLY_ENTRY_POINTS)
GPUSHIM_ASM_BLAS3_CONSTANTS
#endif

GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_ENTRIES_OF_SCHEME)
