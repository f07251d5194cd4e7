// Every exported LAPACK entry point: the LAPACK routine table under the Fortran name of
// every scheme. An entry describes its call, lets the router factor it on the device (and
// then stores the pivots and INFO = 0 itself), and otherwise forwards its own arguments,
// unchanged, to the CPU library's function of the same name.
#include <algorithm>
#include <cstdint>

#include "dispatch/router.h"
#include "shim/blas3_op_builders.h"
#include "shim/blas3_signatures.h"
#include "shim/cpu_function.h"
#include "shim/export.h"
#include "shim/lapack_routines.h"
#include "shim/lapack_signatures.h"
#include "shim/name_schemes.h"

namespace gpushim::shim {
namespace {

template <class T, class I>
LapackOp potrf_op(const char* uplo, const I* n, T* a, const I* lda) {
    LapackOp op{};
    op.kind = GPUSHIM_POTRF;
    op.precision = precision_of<T>();
    op.uplo = fortran_flag(uplo);
    op.n = *n;
    op.a = a;
    op.lda = *lda;
    return op;
}

template <class T, class I>
LapackOp getrf_op(const I* m, const I* n, T* a, const I* lda) {
    LapackOp op{};
    op.kind = GPUSHIM_GETRF;
    op.precision = precision_of<T>();
    op.m = *m;
    op.n = *n;
    op.a = a;
    op.lda = *lda;
    return op;
}

template <class I>
void store_pivots(const int64_t* pivots, const LapackOp& op, I* ipiv) {
    const int64_t count = std::min(op.m, op.n);
    for (int64_t i = 0; i < count; ++i) ipiv[i] = static_cast<I>(pivots[i]);
}

}  // namespace
}  // namespace gpushim::shim


// What a device factorization leaves for the entry to store: pivots (GETRF) and INFO.
#define GPUSHIM_LAPACK_potrf_FINISH(op, pivots) static_cast<void>(pivots), *info = 0
#define GPUSHIM_LAPACK_getrf_FINISH(op, pivots) \
    gpushim::shim::store_pivots(pivots, op, ipiv), *info = 0

#define GPUSHIM_LAPACK_ENTRY(name, KIND, family, T, fp, fs, cp, cs, Int)                         \
    namespace {                                                                                 \
    using Function_##fp##name##fs = void(GPUSHIM_LAPACK_##family##_PARAMS(T, Int));              \
    gpushim::shim::CpuFunction<Function_##fp##name##fs> cpu_##fp##name##fs(                      \
        GPUSHIM_STRING(fp##name##fs));                                                           \
    }                                                                                           \
    extern "C" GPUSHIM_EXPORT void fp##name##fs(GPUSHIM_LAPACK_##family##_PARAMS(T, Int)) {      \
        const gpushim::LapackOp op = gpushim::shim::family##_op(GPUSHIM_LAPACK_##family##_OP_ARGS); \
        gpushim::route(                                                                         \
            op, gpushim::Routine::name,                                                         \
            [&] { cpu_##fp##name##fs.get()(GPUSHIM_LAPACK_##family##_ARGS); },                  \
            [&](const int64_t* pivots) { GPUSHIM_LAPACK_##family##_FINISH(op, pivots); });      \
    }

#define GPUSHIM_LAPACK_ENTRIES_OF_SCHEME(fp, fs, cp, cs, Int) \
    GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_LAPACK_ENTRY, fp, fs, cp, cs, Int)

using gpushim::ccomplex;
using gpushim::zcomplex;

GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_LAPACK_ENTRIES_OF_SCHEME)
