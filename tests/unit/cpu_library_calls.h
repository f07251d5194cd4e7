// The CPU library's functions that GPUSHIM_VERIFY's checks call, as the shim's entries pass
// them (one per name scheme there), found here by their plain 32-bit Fortran names; and the
// precision of an element type.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "dispatch/blas3_call.h"
#include "fallback/fortran_blas3.h"
#include "fallback/symbol_resolver.h"

namespace gpushim::test {

template <class T>
constexpr gpushim_precision precision_of() {
    if constexpr (std::is_same_v<T, float>) return GPUSHIM_PREC_S;
    if constexpr (std::is_same_v<T, double>) return GPUSHIM_PREC_D;
    if constexpr (std::is_same_v<T, std::complex<float>>) return GPUSHIM_PREC_C;
    return GPUSHIM_PREC_Z;
}

template <class T>
bool cpu_blas3(const Blas3Op& op) {
    static constexpr const char* kNames[] = {"gemm",  "symm",  "hemm", "syrk", "herk",
                                             "syr2k", "her2k", "trmm", "trsm"};
    static constexpr char kPrefix[] = {'s', 'd', 'c', 'z'};
    const std::string symbol = std::string(1, kPrefix[op.precision]) + kNames[op.kind] + "_";
    void* function = fallback::find_cpu_symbol(symbol.c_str(), "");
    return function != nullptr && fallback::call_fortran_blas3<T, int32_t>(function, op);
}

// A CpuPart.
inline bool cpu_part(const Blas3Op& op) {
    switch (op.precision) {
        case GPUSHIM_PREC_S:
            return cpu_blas3<float>(op);
        case GPUSHIM_PREC_D:
            return cpu_blas3<double>(op);
        case GPUSHIM_PREC_C:
            return cpu_blas3<std::complex<float>>(op);
        case GPUSHIM_PREC_Z:
            return cpu_blas3<std::complex<double>>(op);
    }
    return false;
}

// A CpuSymmetricFactor: DSYTRF with a workspace of 64 columns.
inline bool cpu_symmetric_factor(int64_t n, double* a, std::vector<int64_t>& pivots) {
    using Dsytrf = void(const char*, const int32_t*, double*, const int32_t*, int32_t*, double*,
                        const int32_t*, int32_t*, std::size_t);
    auto* dsytrf = reinterpret_cast<Dsytrf*>(fallback::find_cpu_symbol("dsytrf_", ""));
    if (dsytrf == nullptr) return false;
    const int32_t order = static_cast<int32_t>(n), lwork = 64 * order;
    std::vector<int32_t> ipiv(static_cast<std::size_t>(n));
    std::vector<double> work(static_cast<std::size_t>(lwork));
    int32_t info = 0;
    dsytrf("L", &order, a, &order, ipiv.data(), work.data(), &lwork, &info, 1);
    pivots.assign(ipiv.begin(), ipiv.end());
    return info >= 0;
}

}  // namespace gpushim::test
