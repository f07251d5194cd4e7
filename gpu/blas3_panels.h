// Splitting a Level-3 call into panels of its output: independent sub-calls over column
// (or row) ranges that share the operand A. The executor pipelines them so that the
// transfers of one panel overlap the computation of another, and when the device fails
// half-way, the panels not yet delivered are computed on the CPU, as one call of the same
// routine (rest_of_call).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/blas3_call.h"

namespace gpushim::gpu {

enum class PanelAxis {
    columns,   // GEMM, and SYMM/HEMM/TRMM/TRSM with A on the left
    rows,      // SYMM/HEMM/TRMM/TRSM with A on the right
    triangle,  // the rank-k/2k updates: column ranges of the triangle they write
};

PanelAxis panel_axis(const Blas3Op& op);

// The number of output columns (or rows) the panels divide.
int64_t panel_span(const Blas3Op& op, PanelAxis axis);

// Columns (or rows) per panel, so that an output panel holds about `panel_bytes`.
int64_t panel_width(const Blas3Op& op, PanelAxis axis, std::size_t panel_bytes);

// The sub-call computing output columns (or rows) [first, first + count) of a call on the
// columns or rows axis: pointers of the operands that follow the panel are offset, A is
// shared.
Blas3Op panel_op(const Blas3Op& op, PanelAxis axis, int64_t first, int64_t count);

// The columns [first, first + count) of a rank-k/2k update's triangle: the rectangle of C
// they lie in (rows [first_row, first_row + rows) of those columns), where the triangle's
// diagonal meets its first column (row `diagonal` of the rectangle), and the calls that
// compute it, in order, on the caller's pointers: the diagonal block's own update (SYRK,
// HERK, SYR2K, HER2K) and the GEMMs of the block beside it (one, or two for a rank-2k
// update), which read A and B whole.
struct TrianglePanel {
    int64_t first_row = 0;
    int64_t rows = 0;
    int64_t diagonal = 0;
    Blas3Op calls[3] = {};
    int call_count = 0;
};
TrianglePanel triangle_panel(const Blas3Op& op, int64_t first, int64_t count);

// The columns (or rows) of the p-th panel of width `width`: the triangle's panels run
// towards its corner (left to right for a lower triangle, right to left for an upper), so
// that the columns not yet delivered always form one smaller update of the same kind.
struct PanelRange {
    int64_t first = 0;
    int64_t count = 0;
};
PanelRange panel_range(const Blas3Op& op, PanelAxis axis, int64_t width, int64_t p);

// What is left to compute once panels [0, delivered) are in the caller's memory: one call
// of the same routine.
Blas3Op rest_of_call(const Blas3Op& op, PanelAxis axis, int64_t width, int64_t delivered);

}  // namespace gpushim::gpu
