// The CPU library's DSYTRF of each name scheme (defined in lapack_entries.cpp, through the
// scheme's Fortran function): GPUSHIM_VERIFY counts eigenvalues with it by inertia.
#pragma once

#include <cstdint>
#include <vector>

#include "shim/name_schemes.h"

#define GPUSHIM_DECLARE_CPU_SYMMETRIC_FACTOR(fp, fs, cp, cs, Int)      \
    bool cpu_symmetric_factor_of_scheme_##fp##fs(int64_t n, double* a, \
                                                 std::vector<int64_t>& pivots);

namespace gpushim::shim {
GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_DECLARE_CPU_SYMMETRIC_FACTOR)
}  // namespace gpushim::shim
