// The legacy Fortran interface (dfftw_*, sfftw_*): shim/fftw_legacy_functions.h expanded
// for both precisions. Each entry turns its by-reference Fortran arguments into the C
// call FFTW 3.3's own f77 interface makes, on the shim's C function, so that the plan the
// caller keeps in its integer*8 is a shim plan and every later call on it reaches the shim.
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <utility>
#include <vector>

#include "shim/export.h"
#include "shim/fftw_api.h"
#include "shim/fftw_legacy_functions.h"

namespace gpushim::fftw {
namespace {

// An array argument of one C call, built for it or passed on as the caller gave it: a
// temporary, which lives until the call returns.
template <class T>
class ArrayArgument {
  public:
    explicit ArrayArgument(const T* as_given) : pointer_(as_given) {}
    explicit ArrayArgument(std::vector<T> built)
        : built_(std::move(built)), pointer_(built_.data()) {}
    ArrayArgument(const ArrayArgument&) = delete;
    ArrayArgument& operator=(const ArrayArgument&) = delete;
    operator const T*() const { return pointer_; }

  private:
    std::vector<T> built_;
    const T* pointer_;
};

// Fortran's (column-major) per-dimension values in FFTW's row-major order. Where no
// element is read (rank <= 0, or no array) the caller's pointer goes on as it is, so that
// FFTW's planner answers an invalid rank itself (a NULL plan); FFTW's own f77 interface
// would abort on the allocation for a negative rank, or read through a null pointer.
ArrayArgument<int> reversed(int rank, const int* values) {
    if (rank <= 0 || values == nullptr) {
        return ArrayArgument<int>(values);
    }
    return ArrayArgument<int>(
        std::vector<int>(std::reverse_iterator(values + rank), std::reverse_iterator(values)));
}

// The r2r kinds, reversed like the dimensions they belong to; none for rank 0, as FFTW's
// f77 interface passes.
ArrayArgument<int> kinds(int rank, const int* kind) {
    return rank == 0 ? ArrayArgument<int>(nullptr) : reversed(rank, kind);
}

// The guru forms' parallel arrays as FFTW's iodims, in the order given: FFTW 3.3 does not
// reverse them (a guru dimension carries its own strides).
ArrayArgument<IoDim> iodims(int rank, const int* n, const int* is, const int* os) {
    if (rank <= 0 || n == nullptr || is == nullptr || os == nullptr) {
        return ArrayArgument<IoDim>(nullptr);
    }
    std::vector<IoDim> dims;
    dims.reserve(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) {
        dims.push_back({n[i], is[i], os[i]});
    }
    return ArrayArgument<IoDim>(std::move(dims));
}

}  // namespace
}  // namespace gpushim::fftw

#define GPUSHIM_FFTW_LEGACY_RESULT_plan(call) *p = call;
#define GPUSHIM_FFTW_LEGACY_RESULT_cost(call) *cost = call;
#define GPUSHIM_FFTW_LEGACY_RESULT_none(call) call;
#define GPUSHIM_FFTW_LEGACY_RESULT_flush(call) \
    call;                                      \
    std::fflush(stdout);

// The `_` name is defined; the `__` name is the same function under g77's mangling.
#define GPUSHIM_FFTW_LEGACY_ENTRY(LP, P, name, RESULT, PARAMS, ARGS) \
    extern "C" GPUSHIM_EXPORT void LP##name##_ PARAMS {              \
        GPUSHIM_FFTW_LEGACY_RESULT_##RESULT(P##name ARGS)            \
    }                                                                \
    extern "C" GPUSHIM_EXPORT void LP##name##__ PARAMS               \
        __attribute__((alias(GPUSHIM_STRING(LP##name##_))));

#define GPUSHIM_FFTW_LEGACY_PRECISION(LP, P, ...)                               \
    namespace gpushim::fftw::P##api {                                           \
        GPUSHIM_FOR_EACH_FFTW_LEGACY_FUNCTION(GPUSHIM_FFTW_LEGACY_ENTRY, LP, P) \
    }

GPUSHIM_FOR_EACH_FFTW_LEGACY_PRECISION(GPUSHIM_FFTW_LEGACY_PRECISION, )
