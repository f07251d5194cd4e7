// Every exported LAPACK entry point: the LAPACK routine table under the Fortran name of
// every scheme. An entry forwards a call below its threshold (with no report to collect)
// to the CPU library's function of the same name at once; any other it hands its family's
// routing (lapack_families.h) with that function, to which the routing forwards the
// arguments unchanged whenever the device does not compute the call, and the CPU library's
// Level-3 BLAS and DSYTRF of the scheme, with which GPUSHIM_VERIFY checks the device's
// results.
#include <algorithm>
#include <limits>

#include "dispatch/router.h"
#include "shim/cpu_blas3.h"
#include "shim/cpu_function.h"
#include "shim/cpu_symmetric_factor.h"
#include "shim/export.h"
#include "shim/lapack_families.h"
#include "shim/lapack_routines.h"
#include "shim/name_schemes.h"

#define GPUSHIM_LAPACK_ENTRY(name, KIND, family, T, fp, fs, cp, cs, Int)                    \
    namespace {                                                                             \
    using Function_##fp##name##fs = void(GPUSHIM_LAPACK_##family##_PARAMS(T, Int));         \
    gpushim::shim::CpuFunction<Function_##fp##name##fs> cpu_##fp##name##fs(                 \
        GPUSHIM_STRING(fp##name##fs));                                                      \
    }                                                                                       \
    extern "C" GPUSHIM_EXPORT void fp##name##fs(GPUSHIM_LAPACK_##family##_PARAMS(T, Int)) { \
        Function_##fp##name##fs* const cpu = cpu_##fp##name##fs.resolved();                 \
        if (cpu != nullptr &&                                                               \
            gpushim::cubed_order(GPUSHIM_##KIND, GPUSHIM_LAPACK_##family##_SHAPE) <         \
                gpushim::forward_at_once_below(gpushim::Routine::name)) {                   \
            return cpu(GPUSHIM_LAPACK_##family##_ARGS);                                     \
        }                                                                                   \
        gpushim::shim::lapack_##family<T, Int>(                                             \
            GPUSHIM_##KIND,                                                                 \
            {gpushim::Routine::name, gpushim::shim::cpu_blas3_of_scheme_##fp##fs,           \
             gpushim::shim::cpu_symmetric_factor_of_scheme_##fp##fs},                       \
            cpu_##fp##name##fs, GPUSHIM_LAPACK_##family##_ARGS);                            \
    }

namespace {

// DSYTRF on the lower triangle of `a` (leading dimension n), with the workspace it asks for.
template <class Int, class Function>
bool symmetric_factor(gpushim::shim::CpuFunction<Function>& dsytrf, int64_t n, double* a,
                      std::vector<int64_t>& pivots) {
    if (n < 1 || n > std::numeric_limits<Int>::max()) return false;
    const Int order = static_cast<Int>(n), query = -1;
    Int info = 0;
    double wanted = 0;
    std::vector<Int> ipiv(static_cast<std::size_t>(n));
    dsytrf.get()("L", &order, a, &order, ipiv.data(), &wanted, &query, &info, 1);
    if (info < 0) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(wanted));
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dsytrf.get()("L", &order, a, &order, ipiv.data(), work.data(), &lwork, &info, 1);
    if (info < 0) return false;
    pivots.assign(ipiv.begin(), ipiv.end());
    return true;
}

}  // namespace

#define GPUSHIM_LAPACK_ENTRIES_OF_SCHEME(fp, fs, cp, cs, Int)                                   \
    GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_LAPACK_ENTRY, fp, fs, cp, cs, Int)                  \
    bool gpushim::shim::cpu_symmetric_factor_of_scheme_##fp##fs(int64_t n, double* a,           \
                                                                std::vector<int64_t>& pivots) { \
        return symmetric_factor<Int>(cpu_##fp##dsytrf##fs, n, a, pivots);                       \
    }

using gpushim::ccomplex;
using gpushim::zcomplex;

GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_LAPACK_ENTRIES_OF_SCHEME)
