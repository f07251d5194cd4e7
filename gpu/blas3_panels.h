// Splitting a Level-3 call into panels of its output: independent sub-calls over column
// (or row) ranges that share the operand A. The executor pipelines them so that the
// transfers of one panel overlap the computation of another, and when the device fails
// half-way, the panels not yet delivered are computed on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/blas3_call.h"

namespace gpushim::gpu {

enum class PanelAxis {
    whole,    // one panel: the rank-k/2k updates, whose column ranges are not one sub-call
    columns,  // GEMM, and SYMM/HEMM/TRMM/TRSM with A on the left
    rows,     // SYMM/HEMM/TRMM/TRSM with A on the right
};

PanelAxis panel_axis(const Blas3Op& op);

// The number of output columns (or rows) the panels divide.
int64_t panel_span(const Blas3Op& op, PanelAxis axis);

// Columns (or rows) per panel, so that an output panel holds about `panel_bytes`.
int64_t panel_width(const Blas3Op& op, PanelAxis axis, std::size_t panel_bytes);

// The sub-call computing output columns (or rows) [first, first + count): pointers of the
// operands that follow the panel are offset, A is shared.
Blas3Op panel_op(const Blas3Op& op, PanelAxis axis, int64_t first, int64_t count);

}  // namespace gpushim::gpu
