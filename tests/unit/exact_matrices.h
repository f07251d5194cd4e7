// For the tests of GPUSHIM_VERIFY's checks: element-type traits, and matrices whose
// properties are known exactly, computed in long double (complex long double) and rounded
// once to the precision under test.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "fallback/fortran_blas3.h"

namespace gpushim::test {

template <class T>
constexpr bool kComplex = !std::is_floating_point_v<T>;
template <class T>
using Real = typename fallback::RealOf<T>::type;
template <class T>
using Wide = std::conditional_t<kComplex<T>, std::complex<long double>, long double>;

template <class W>
W conjugate(const W& value) {
    if constexpr (std::is_floating_point_v<W>) {
        return value;
    } else {
        return std::conj(value);
    }
}

// The Householder reflector I - 2 v v^H / (v^H v) (Hermitian and unitary), column-major, of
// a fixed v that `seed` varies, with complex entries for a complex T.
template <class T>
std::vector<Wide<T>> householder(int64_t order, int seed) {
    std::vector<Wide<T>> v(static_cast<std::size_t>(order));
    long double norm = 0;
    for (int64_t i = 0; i < order; ++i) {
        v[i] = Wide<T>(static_cast<long double>((i * seed) % 11) - 4.5L);
        if constexpr (kComplex<T>)
            v[i] += Wide<T>(0, static_cast<long double>((i * (seed + 2)) % 7) - 3);
        norm += std::norm(v[i]);
    }
    std::vector<Wide<T>> h(static_cast<std::size_t>(order * order));
    for (int64_t j = 0; j < order; ++j)
        for (int64_t i = 0; i < order; ++i)
            h[i + j * order] =
                Wide<T>(i == j ? 1 : 0) - Wide<T>(2) * v[i] * conjugate(v[j]) / Wide<T>(norm);
    return h;
}

}  // namespace gpushim::test
