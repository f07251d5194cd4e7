// Runs a canonical Level-3 BLAS call through a Fortran BLAS function of that routine, with
// 32- or 64-bit integers: how the shim computes part of a call on the CPU, and how the
// host-simulated device computes. Header-only so that a plugin can use it too.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "gpu/device_interface.h"

namespace gpushim::fallback {

template <class T>
struct RealOf {
    using type = T;
};
template <class R>
struct RealOf<std::complex<R>> {
    using type = R;
};

template <class S>
S scalar_as(const double (&value)[2]) {
    if constexpr (std::is_floating_point_v<S>) {
        return static_cast<S>(value[0]);
    } else {
        using R = typename S::value_type;
        return S(static_cast<R>(value[0]), static_cast<R>(value[1]));
    }
}

// False, without calling, when a size does not fit in Int.
template <class T, class Int>
bool call_fortran_blas3(void* function, const gpushim_blas3_op& op) {
    using R = typename RealOf<T>::type;
    for (int64_t value : {op.m, op.n, op.k, op.lda, op.ldb, op.ldc}) {
        if (value > std::numeric_limits<Int>::max()) return false;
    }
    const Int m = static_cast<Int>(op.m), n = static_cast<Int>(op.n), k = static_cast<Int>(op.k);
    const Int lda = static_cast<Int>(op.lda), ldb = static_cast<Int>(op.ldb),
              ldc = static_cast<Int>(op.ldc);
    const auto* a = static_cast<const T*>(op.a);
    auto* b = static_cast<T*>(const_cast<void*>(op.b));
    auto* c = static_cast<T*>(op.c);
    const char ta = op.transa, tb = op.transb, side = op.side, uplo = op.uplo, diag = op.diag;
    const std::size_t one = 1;  // hidden lengths of the character arguments
    const T alpha = scalar_as<T>(op.alpha), beta = scalar_as<T>(op.beta);
    const R real_alpha = scalar_as<R>(op.alpha), real_beta = scalar_as<R>(op.beta);
    using Flag = const char*;
    using Size = const Int*;
    using Len = std::size_t;
    switch (op.kind) {
        case GPUSHIM_GEMM:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, Size, const T*, const T*, Size,
                                      const T*, Size, const T*, T*, Size, Len, Len)>(function)(
                &ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, const T*, const T*, Size, const T*,
                                      Size, const T*, T*, Size, Len, Len)>(function)(
                &side, &uplo, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_SYRK:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, const T*, const T*, Size, const T*,
                                      T*, Size, Len, Len)>(function)(
                &uplo, &ta, &n, &k, &alpha, a, &lda, &beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_HERK:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, const R*, const T*, Size, const R*,
                                      T*, Size, Len, Len)>(function)(
                &uplo, &ta, &n, &k, &real_alpha, a, &lda, &real_beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_SYR2K:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, const T*, const T*, Size, const T*,
                                      Size, const T*, T*, Size, Len, Len)>(function)(
                &uplo, &ta, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_HER2K:
            reinterpret_cast<void (*)(Flag, Flag, Size, Size, const T*, const T*, Size, const T*,
                                      Size, const R*, T*, Size, Len, Len)>(function)(
                &uplo, &ta, &n, &k, &alpha, a, &lda, b, &ldb, &real_beta, c, &ldc, one, one);
            return true;
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            reinterpret_cast<void (*)(Flag, Flag, Flag, Flag, Size, Size, const T*, const T*, Size,
                                      T*, Size, Len, Len, Len, Len)>(function)(
                &side, &uplo, &ta, &diag, &m, &n, &alpha, a, &lda, b, &ldb, one, one, one, one);
            return true;
    }
    return false;
}

}  // namespace gpushim::fallback
