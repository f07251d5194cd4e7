// Facts about a canonical (column-major) Level-3 BLAS call: validity, degenerate cases,
// operand shapes and arithmetic cost. The shim builds the call, the router decides on it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/device_interface.h"

namespace gpushim {

using Blas3Op = gpushim_blas3_op;

// Computes a canonical call, or a panel of one, on the CPU library, through its Fortran
// function of the call's routine in the name scheme of the entry point called (any routine:
// a check of a TRSM multiplies with TRMM); false when it cannot.
using CpuPart = bool (*)(const Blas3Op&);

constexpr bool is_complex(gpushim_precision p) {
    return p == GPUSHIM_PREC_C || p == GPUSHIM_PREC_Z;
}
constexpr std::size_t element_size(gpushim_precision p) {
    switch (p) {
        case GPUSHIM_PREC_S:
            return 4;
        case GPUSHIM_PREC_D:
            return 8;
        case GPUSHIM_PREC_C:
            return 8;
        case GPUSHIM_PREC_Z:
            return 16;
    }
    return 0;
}

// Reference BLAS argument checks: false exactly when the CPU library would call xerbla.
bool arguments_valid(const Blas3Op& op);

// True when the call does no multiplication (an empty result, alpha == 0, k == 0):
// the CPU library's quick return or scaling is the whole job.
bool is_degenerate(const Blas3Op& op);

// The size of a call as an entry point can compute it from its raw arguments, cheaply and
// whatever the layout: the product of three of its sizes (m n k for GEMM; for the others
// m n s or n k s with s = m or n by side, or s = n + 1), which multiply_add_scale turns into
// multiply-adds. `side` matters to SYMM/HEMM/TRMM/TRSM only. The x86-64 entry points
// compute the same product in the same order (shim/blas3_entry_asm.h), so that their test
// against offload_size / multiply_add_scale decides exactly as cpu_reason does.
[[gnu::always_inline]] inline double size_product(gpushim_blas3_kind kind, char side, int64_t m_,
                                                  int64_t n_, int64_t k_) {
    const double m = static_cast<double>(m_);
    const double n = static_cast<double>(n_);
    const double k = static_cast<double>(k_);
    const double by_side = side == 'L' ? m : n;
    switch (kind) {
        case GPUSHIM_GEMM:
            return m * n * k;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
            return m * n * by_side;
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            return n * k * (n + 1);
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return m * n * (by_side + 1);
    }
    return 0.0;
}

// Multiply-adds per unit of size_product: one half where one triangle is computed.
constexpr double multiply_add_scale(gpushim_blas3_kind kind) {
    switch (kind) {
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return 0.5;
        default:
            return 1.0;
    }
}

// Multiply-adds of a call (complex ones counted once): the size measure of thresholds.
[[gnu::always_inline]] inline double multiply_adds(gpushim_blas3_kind kind, char side, int64_t m,
                                                   int64_t n, int64_t k) {
    return multiply_add_scale(kind) * size_product(kind, side, m, n, k);
}

inline double multiply_adds(const Blas3Op& op) {
    return multiply_adds(op.kind, op.side, op.m, op.n, op.k);
}

// Real floating-point operations, for the report's GFLOP/s.
double flop_count(const Blas3Op& op);

// A column-major operand: `rows` x `cols` elements with leading dimension `ld`.
struct MatrixExtent {
    int64_t rows = 0;
    int64_t cols = 0;
};

enum class Operand { a, b, c };

// The extent of an operand the routine reads or writes (zero extent when unused).
MatrixExtent operand_extent(const Blas3Op& op, Operand which);

// The operand the routine writes: c, or b for TRMM/TRSM.
Operand output_operand(const Blas3Op& op);

// Whether the routine reads its output operand's prior contents.
bool reads_output(const Blas3Op& op);

// Whether only one triangle of the output is written (SYRK, HERK, SYR2K, HER2K).
bool writes_triangle_only(const Blas3Op& op);

}  // namespace gpushim
