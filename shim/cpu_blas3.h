// The CPU library's Level-3 BLAS of each name scheme: one function per scheme computes any
// canonical call through the scheme's Fortran function of the call's routine (defined in
// blas3_entries.cpp). It computes the parts of calls the device did not finish, and the
// products with which GPUSHIM_VERIFY checks Level-3 BLAS and LAPACK results.
#pragma once

#include "dispatch/blas3_call.h"
#include "shim/name_schemes.h"

#define GPUSHIM_DECLARE_CPU_BLAS3(fp, fs, cp, cs, Int) \
    bool cpu_blas3_of_scheme_##fp##fs(const gpushim::Blas3Op& part);

namespace gpushim::shim {
GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_DECLARE_CPU_BLAS3)
}  // namespace gpushim::shim
