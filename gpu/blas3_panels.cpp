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
            return PanelAxis::triangle;
    }
}

int64_t panel_span(const Blas3Op& op, PanelAxis axis) {
    switch (axis) {
        case PanelAxis::columns:
            return op.n;
        case PanelAxis::rows:
            return op.m;
        case PanelAxis::triangle:
            return op.n;
    }
    return 0;
}

int64_t panel_width(const Blas3Op& op, PanelAxis axis, std::size_t panel_bytes) {
    const int64_t span = panel_span(op, axis);
    // The bytes of one output column (or row) of the panel: a triangle's panel lies in a
    // rectangle of at most n rows.
    const int64_t line = (axis == PanelAxis::columns ? op.m : op.n) *
                         static_cast<int64_t>(element_size(op.precision));
    const int64_t width = line > 0 ? static_cast<int64_t>(panel_bytes) / line : span;
    return std::clamp<int64_t>(width, 1, std::max<int64_t>(span, 1));
}

Blas3Op panel_op(const Blas3Op& op, PanelAxis axis, int64_t first, int64_t count) {
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

TrianglePanel triangle_panel(const Blas3Op& op, int64_t first, int64_t count) {
    const int64_t last = first + count;
    const bool lower = op.uplo == 'L';
    const bool two = op.kind == GPUSHIM_SYR2K || op.kind == GPUSHIM_HER2K;
    const bool hermitian = op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K;
    const bool transposed = op.transa != 'N';
    // Rows [r, ...) of the n-sized side of A or B: rows of the matrix, or its columns when
    // the update is transposed (C = A^T A).
    const auto along_n = [&](const void* base, int64_t ld, int64_t r) {
        return offset(base, transposed ? r * ld : r, op.precision);
    };
    const auto at_c = [&](int64_t i, int64_t j) {
        return const_cast<void*>(offset(op.c, i + j * op.ldc, op.precision));
    };

    TrianglePanel panel;
    panel.first_row = lower ? first : 0;
    panel.rows = lower ? op.n - first : last;
    panel.diagonal = lower ? 0 : first;

    Blas3Op& diagonal_block = panel.calls[panel.call_count++];
    diagonal_block = op;
    diagonal_block.n = count;
    diagonal_block.a = along_n(op.a, op.lda, first);
    if (two) diagonal_block.b = along_n(op.b, op.ldb, first);
    diagonal_block.c = at_c(first, first);

    // Beside the diagonal block: rows [beside, beside + beside_rows) of the same columns.
    const int64_t beside = lower ? last : 0;
    const int64_t beside_rows = lower ? op.n - last : first;
    if (beside_rows == 0) return panel;
    // The conjugate transpose for the Hermitian updates; a real one ignores the difference.
    const char flip = hermitian ? 'C' : 'T';
    const auto product = [&](const void* left, int64_t left_ld, const void* right, int64_t right_ld,
                             const double(&alpha)[2], const double(&beta)[2]) {
        Blas3Op& gemm = panel.calls[panel.call_count++];
        gemm = Blas3Op{};
        gemm.kind = GPUSHIM_GEMM;
        gemm.precision = op.precision;
        gemm.transa = transposed ? flip : 'N';
        gemm.transb = transposed ? 'N' : flip;
        gemm.m = beside_rows;
        gemm.n = count;
        gemm.k = op.k;
        gemm.alpha[0] = alpha[0];
        gemm.alpha[1] = alpha[1];
        gemm.beta[0] = beta[0];
        gemm.beta[1] = beta[1];
        gemm.a = along_n(left, left_ld, beside);
        gemm.lda = left_ld;
        gemm.b = along_n(right, right_ld, first);
        gemm.ldb = right_ld;
        gemm.c = at_c(beside, first);
        gemm.ldc = op.ldc;
    };
    // HERK's and HER2K's beta, and HERK's alpha, are real: their imaginary parts count as 0.
    const double alpha[2] = {op.alpha[0], op.kind == GPUSHIM_HERK ? 0.0 : op.alpha[1]};
    const double beta[2] = {op.beta[0], hermitian ? 0.0 : op.beta[1]};
    product(op.a, op.lda, two ? op.b : op.a, two ? op.ldb : op.lda, alpha, beta);
    if (two) {
        // SYR2K adds alpha B A^T; HER2K adds conj(alpha) B A^H.
        const double second_alpha[2] = {alpha[0], hermitian ? -alpha[1] : alpha[1]};
        const double one[2] = {1.0, 0.0};
        product(op.b, op.ldb, op.a, op.lda, second_alpha, one);
    }
    return panel;
}

PanelRange panel_range(const Blas3Op& op, PanelAxis axis, int64_t width, int64_t p) {
    const int64_t span = panel_span(op, axis);
    if (axis == PanelAxis::triangle && op.uplo == 'U') {
        const int64_t last = span - p * width;
        const int64_t first = std::max<int64_t>(last - width, 0);
        return {first, last - first};
    }
    const int64_t first = p * width;
    return {first, std::min(width, span - first)};
}

Blas3Op rest_of_call(const Blas3Op& op, PanelAxis axis, int64_t width, int64_t delivered) {
    const int64_t span = panel_span(op, axis);
    const int64_t done = std::min(delivered * width, span);
    if (axis != PanelAxis::triangle) return panel_op(op, axis, done, span - done);
    Blas3Op rest = op;
    rest.n = span - done;
    if (op.uplo == 'U') return rest;  // the leading columns: the same corner
    const TrianglePanel trailing = triangle_panel(op, done, span - done);
    return trailing.calls[0];
}

}  // namespace gpushim::gpu
