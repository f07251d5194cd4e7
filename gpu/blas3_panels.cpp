#include "gpu/blas3_panels.h"

#include <algorithm>

namespace gpushim::gpu {
namespace {

const void* offset(const void* base, int64_t elements, gpushim_precision precision) {
    return static_cast<const std::byte*>(base) +
           elements * static_cast<int64_t>(element_size(precision));
}

}  // namespace

PanelAxis panel_axis(const Blas3Op& op) {
    switch (op.kind) {
        case GPUSHIM_GEMM:
            return PanelAxis::columns;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return op.side == 'L' ? PanelAxis::columns : PanelAxis::rows;
        default:
            return PanelAxis::whole;
    }
}

int64_t panel_span(const Blas3Op& op, PanelAxis axis) {
    switch (axis) {
        case PanelAxis::columns:
            return op.n;
        case PanelAxis::rows:
            return op.m;
        case PanelAxis::whole:
            break;
    }
    return 1;
}

int64_t panel_width(const Blas3Op& op, PanelAxis axis, std::size_t panel_bytes) {
    const int64_t span = panel_span(op, axis);
    if (axis == PanelAxis::whole) return span;
    // The bytes of one output column (or row) of the panel.
    const int64_t line = (axis == PanelAxis::columns ? op.m : op.n) *
                         static_cast<int64_t>(element_size(op.precision));
    const int64_t width = line > 0 ? static_cast<int64_t>(panel_bytes) / line : span;
    return std::clamp<int64_t>(width, 1, std::max<int64_t>(span, 1));
}

Blas3Op panel_op(const Blas3Op& op, PanelAxis axis, int64_t first, int64_t count) {
    if (axis == PanelAxis::whole) return op;
    Blas3Op panel = op;
    const bool on_columns = axis == PanelAxis::columns;
    const bool triangular = op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM;
    // Element offset of the panel in a column-major operand of leading dimension ld.
    const auto start = [&](int64_t ld) { return on_columns ? first * ld : first; };
    if (on_columns) {
        panel.n = count;
    } else {
        panel.m = count;
    }
    if (op.kind == GPUSHIM_GEMM) {
        // Columns of op(B): columns of B, or rows of B when it is transposed.
        panel.b = offset(op.b, op.transb == 'N' ? first * op.ldb : first, op.precision);
    } else {
        panel.b = offset(op.b, start(op.ldb), op.precision);
    }
    if (!triangular) panel.c = const_cast<void*>(offset(op.c, start(op.ldc), op.precision));
    return panel;
}

}  // namespace gpushim::gpu
