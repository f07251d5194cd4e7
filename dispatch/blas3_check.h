// GPUSHIM_VERIFY: a Level-3 BLAS call the device computed, checked on the CPU.
//
// A product (GEMM, SYMM, HEMM, the rank-k and rank-2k updates, TRMM) is computed again by the
// CPU library and compared with the device's result element by element. A triangular solve
// (TRSM) is checked by its residual op(T) X - alpha B, computed with the CPU library's TRMM:
// two correct solutions of an ill-conditioned system may differ far more than rounding, but
// substitution, blocked or not, leaves a residual within (K + 2) eps |T||X| (a solver that
// multiplies by inverted diagonal blocks may not, on an ill-conditioned triangle: that
// counts as a difference).
//
// The allowed difference is the worst-case rounding error of the two computations, whatever
// their order of summation: (K + 2) eps (|alpha| (|A||B|)_ij + |beta| |C_ij|) for an inner
// dimension K, with (|A||B|)_ij bounded by the 2-norms of the row and the column that meet
// there (Cauchy-Schwarz), doubled for complex arithmetic and again for safety. A correct
// device never exceeds it; a device that computes the wrong thing (a transposition, a
// triangle, a leading dimension, reduced precision) does by orders of magnitude. Elements
// whose bound is not finite (an Inf or NaN among the operands) are not compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dispatch/blas3_call.h"
#include "dispatch/call_trace.h"

namespace gpushim {

class Blas3Check {
  public:
    // Keeps a copy of what the device will overwrite and the check needs: the output's prior
    // contents, where the call reads them. `cpu` computes canonical calls of the caller's
    // name scheme.
    Blas3Check(const Blas3Op& op, CpuPart cpu);

    // Checks the caller's output, which now holds the device's result; where it differs,
    // writes the CPU's result there instead (the part of the output the routine writes).
    Verdict finish();

    // After a difference: where the first one is, how large, what was allowed, and how many
    // elements differ.
    const char* difference() const { return difference_; }

  private:
    Blas3Op op_;
    CpuPart cpu_;
    std::vector<std::byte> prior_;  // the output's prior contents, packed; empty if unread
    bool copied_ = false;
    char difference_[256] = "";  // no allocation once the device has computed
};

}  // namespace gpushim
