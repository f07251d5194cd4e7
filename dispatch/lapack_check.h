// GPUSHIM_VERIFY for LAPACK: a call the device computed, checked on the CPU by LAPACK's own
// test ratios, computed with the CPU library's Level-3 BLAS of the caller's name scheme:
//   GETRF          ||P L U - A|| / (max(m, n) ||A|| eps)
//   POTRF          ||L L^H - A|| / (n ||A|| eps)       (U^H U for 'U')
//   GETRS, POTRS   max |b - A x| / (n |L| |U| |x| eps) element by element, with A = P L U
//                  (L L^H, U^H U) from the factors given; TRTRS the same with op(T)
//   GESV, POSV     as GETRF (POTRF) for the factors they leave, and as GETRS (POTRS) for
//                  the solutions with those factors
//   SYEVD, SYEV (eigenvectors)     ||A - V W V^H|| / (n ||A|| eps), ||I - V^H V|| / (n eps)
//   SYEVR (eigenvectors)           ||A V - V W|| / (n ||A|| eps), ||I - V^H V|| / (n eps) for
//                                  the pairs found, and their range as below
//   GESVD, GESDD (both U and V^T)  ||A - U S V^T|| / (max(m, n) ||A|| eps), and U's and V^T's
//                                  orthonormality (every column of a whole U)
//   GETRI, POTRI, TRTRI            ||A X - I|| / (n ||A|| ||X|| eps), A from the factors given
//   GEEV (right eigenvectors)      ||A V - V W|| / (n ||A|| ||V|| eps), max | ||v|| - 1 | / (n eps)
//   GEQRF                          ||A - Q R|| / (max(m, n) ||A|| eps), Q's first min(m, n)
//                                  columns' orthonormality
//   ORGQR                          ||Q - Q_cpu|| / (m eps), Q's orthonormality
//   ORMQR                          ||C - C_cpu|| / (max(m, n) ||C|| eps)
// (Q_cpu, C_cpu: the reflectors given, applied here with the CPU library's GEMM)
//   SYGVD (eigenvectors Z)         the residual over n eps ||Z|| (||A|| + ||B|| max|w|)
//                                  (type 1) or n eps ||A|| ||B|| ||Z|| (2, 3), ||Z^H B Z - I|| /
//                                  (n ||B|| ||Z||^2 eps) (1, 2) or ||Z^H B^-1 Z - I|| (3), and
//                                  B's factor as POTRF's
//   GELS, GELSD                    ||A^H (B - A X)|| / (max(m, n, nrhs) ||A|| (||B|| +
//                                  ||A|| ||X||) eps) (GELSD's rcond for eps where larger), and
//                                  at full rank rows n+1..m's norm as the residual's; GELSD's
//                                  S as GESVD's values, RANK the count of S(i) > rcond S(1)
//                                  (but within rounding of it), and (||X(:, j)|| S(RANK) -
//                                  ||B(:, j)||) / (||B(:, j)|| max(m, n) eps S(1) / S(RANK))
//   SYTRF (and SYSV's factors)     ||(L D L^T - A) r|| / (n ||A|| ||r|| eps) for four probes r
//   SYSV                           ||B - A X|| / (n ||A|| ||X|| eps)
//   SYTRS                          |b - A x| / (n |L||D||L^T| |x| eps) element by element
//   SYTRI                          ||(A X - I) r|| / (n ||A|| ||X|| ||r|| eps), ||A|| estimated
// in 1-norms (the probed ones in infinity-norms). A correct result gives ratios of order 1
// (LAPACK's testers fail a ratio of 30); a ratio beyond kRatioLimit fails the check: the
// inputs the device overwrote are put back from copies and the CPU library computes the call.
// Eigen- and singular values without vectors (SYEVD, SYEVR of the whole spectrum, GESVD,
// GEEV) are checked by their order and their power sums, sum w^k = tr(A^k) for k = 1..4
// (squared singular values: A^H A's; SYGVD's: those of the standard problem it reduces to).
// SYEVR's values of part of the spectrum, without vectors: their number, order, and the
// Gershgorin hull and (vl, vu] they must lie in. With or without vectors, whether a part is
// the one its range asked for: A's eigenvalues below a shift are counted by Sylvester's law
// of inertia from the CPU library's DSYTRF of A - shift I (rounding allowed: kRatioLimit
// n ||A|| eps); 'I' il..iu: fewer than il below w(1), at least iu below w(m); 'V' (vl, vu]:
// no fewer values than the eigenvalues inside, no more than those inside or on its ends.
// Values between w(1) and w(m) are checked only by their order and count without vectors.
#pragma once

#include <cstddef>
#include <vector>

#include "dispatch/blas3_call.h"
#include "dispatch/call_trace.h"
#include "dispatch/lapack_call.h"

namespace gpushim {

// Whether GPUSHIM_VERIFY checks the call.
bool lapack_checked(const LapackOp& op);

class LapackCheck {
  public:
    static constexpr double kRatioLimit = 100.0;

    // Keeps copies of the inputs the check reads and the device overwrites (A, B).
    LapackCheck(const LapackOp& op, CpuPart blas, CpuSymmetricFactor symmetric_factor);

    // Checks the device's results, now in the caller's arrays; when the check fails, puts
    // the copied inputs back (Verdict::differed: the CPU must compute the call).
    Verdict finish();

    // After a failed check: which ratio, its value and the limit.
    const char* difference() const { return difference_; }

  private:
    LapackOp op_;
    CpuPart blas_;
    CpuSymmetricFactor symmetric_factor_;
    std::vector<std::byte> a_, b_;  // A and B as the caller passed them, packed
    bool copied_ = false;
    char difference_[256] = "";
};

}  // namespace gpushim
