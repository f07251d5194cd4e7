// Facts about a LAPACK call (gpushim_lapack_op with host pointers, plus where the caller's
// pivots are): validity, degenerate cases, what the device may be given, size and cost.
#pragma once

#include <cstdint>
#include <vector>

#include "dispatch/blas3_call.h"

namespace gpushim {

// The caller's pivots are Fortran integers of the entry point's width (4 or 8 bytes); the
// device's are int64_t, so the executor converts them. op.ipiv is unused on the host.
struct LapackOp : gpushim_lapack_op {
    void* host_pivots;
    int pivot_bytes;
    // GEEV's left eigenvectors, which the device interface does not compute.
    char jobvl;
    int64_t ldvl;
};

// The CPU library's DSYTRF of the caller's name scheme, with which GPUSHIM_VERIFY counts
// eigenvalues by inertia: factors the lower triangle of the n x n matrix `a` (leading
// dimension n) in place and widens LAPACK's pivots into `pivots`. False when it did not
// run (an order beyond the scheme's integers) or refused its arguments.
using CpuSymmetricFactor = bool (*)(int64_t n, double* a, std::vector<int64_t>& pivots);

// The caller's pivot j (0-based index; the value 1-based as LAPACK's), read at the entry
// point's integer width.
int64_t caller_pivot(const LapackOp& op, int64_t j);

// LAPACK's argument checks, workspace sizes aside: false exactly when the CPU library would
// report INFO < 0 for a call with enough workspace.
bool arguments_valid(const LapackOp& op);

// True when there is nothing to compute (an empty matrix, no right-hand sides, no
// reflectors).
bool is_degenerate(const LapackOp& op);

// Whether the device interface accepts the call: GESVD and GELS need m >= n, GELS no
// transpose and matrices LAPACK does not rescale, GEEV no left eigenvectors; the triangular
// operations get no exact zero on the diagonal, SYTRI and SYTRS no exactly zero 1 x 1 block
// of D nor a pivot out of range (LAPACK answers INFO = k, or infinities, and the CPU does);
// the eigen- and SVD drivers, SYTRF and SYSV no NaN; POTRF and POSV no diagonal entry that is
// not positive among the first n/8 (the CPU fails sooner than an upload would end). Reads the
// caller's matrices (and SYTRI's and SYTRS's pivots).
bool suits_device(const LapackOp& op);

// Whether pivots a device returned (count of them, 1-based) are LAPACK's for the call: GETRF's
// and GESV's row i interchanged with a row i..m; SYTRF's and SYSV's 1 x 1 blocks interchanged
// with a row not yet eliminated (below for 'L', above for 'U'), 2 x 2 blocks two equal
// negative entries. What breaks the convention goes to the CPU, never to the caller.
bool pivots_plausible(const LapackOp& op, const int64_t* pivots, int64_t count);

// The cube of the call's order, which thresholds compare: n^3 for a square operation,
// m n min(m, n) for a rectangular one, n^2 nrhs for a solve with given factors, m n k for
// ORGQR/ORMQR. Inline: entry points compute it from their raw sizes for every call.
[[gnu::always_inline]] inline double cubed_order(gpushim_lapack_kind kind, int64_t m_, int64_t n_,
                                                 int64_t k_, int64_t nrhs_) {
    const double m = static_cast<double>(m_), n = static_cast<double>(n_);
    const double k = static_cast<double>(k_), nrhs = static_cast<double>(nrhs_);
    switch (kind) {
        case GPUSHIM_GETRF:
        case GPUSHIM_GEQRF:
        case GPUSHIM_GESVD:
        case GPUSHIM_GELS:
        case GPUSHIM_GELSD:
            return m * n * (m < n ? m : n);
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_SYTRS:
        case GPUSHIM_TRTRS:
            return n * n * nrhs;
        case GPUSHIM_ORGQR:
        case GPUSHIM_ORMQR:
            return m * n * k;
        default:
            return n * n * n;
    }
}

inline double cubed_order(const LapackOp& op) {
    return cubed_order(op.kind, op.m, op.n, op.k, op.nrhs);
}

// Real floating-point operations (approximate for the eigen- and singular value
// decompositions, whose cost depends on the data), for the report's GFLOP/s.
double flop_count(const LapackOp& op);

}  // namespace gpushim
