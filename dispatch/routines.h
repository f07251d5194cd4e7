// The routine identifiers of the routine table, for statistics and per-routine settings.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "gpu/device_interface.h"
#include "shim/blas3_routines.h"
#include "shim/fftw_routines.h"
#include "shim/lapack_routines.h"

namespace gpushim {

// The Level-3 BLAS routines first, then the LAPACK ones, then the FFTs.
#define GPUSHIM_ROUTINE_ENUMERATOR(name, ...) name,
enum class Routine : unsigned char {
    GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_ROUTINE_ENUMERATOR)
        GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_ROUTINE_ENUMERATOR)
            GPUSHIM_FOR_EACH_FFT_ROUTINE(GPUSHIM_ROUTINE_ENUMERATOR)
};
#undef GPUSHIM_ROUTINE_ENUMERATOR

#define GPUSHIM_ROUTINE_NAME(name, ...) #name,
inline constexpr std::array kRoutineNames{GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_ROUTINE_NAME)
                                              GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_ROUTINE_NAME)
                                                  GPUSHIM_FOR_EACH_FFT_ROUTINE(GPUSHIM_ROUTINE_NAME)};
inline constexpr std::array kBlas3RoutineNames{GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_ROUTINE_NAME)};
inline constexpr std::array kLapackRoutineNames{GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_ROUTINE_NAME)};
#undef GPUSHIM_ROUTINE_NAME

inline constexpr std::size_t kRoutineCount = kRoutineNames.size();

constexpr bool is_lapack(Routine routine) {
    const auto index = static_cast<std::size_t>(routine);
    return index >= kBlas3RoutineNames.size() &&
           index < kBlas3RoutineNames.size() + kLapackRoutineNames.size();
}

constexpr bool is_fft(Routine routine) {
    return static_cast<std::size_t>(routine) >= kBlas3RoutineNames.size() + kLapackRoutineNames.size();
}

#define GPUSHIM_ROUTINE_LAPACK_KIND(name, KIND, ...) GPUSHIM_##KIND,
inline constexpr std::array kLapackKinds{GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_ROUTINE_LAPACK_KIND)};
#undef GPUSHIM_ROUTINE_LAPACK_KIND

// What the device computes for a LAPACK routine.
constexpr gpushim_lapack_kind lapack_kind(Routine routine) {
    return kLapackKinds[static_cast<std::size_t>(routine) - kBlas3RoutineNames.size()];
}

constexpr std::string_view routine_name(Routine routine) {
    return kRoutineNames[static_cast<std::size_t>(routine)];
}

}  // namespace gpushim
