#include "dispatch/blas3_call.h"

#include <algorithm>

namespace gpushim {
namespace {

bool one_of(char flag, const char* accepted) {
    for (; *accepted != '\0'; ++accepted) {
        if (flag == *accepted) return true;
    }
    return false;
}

// The transpositions a rank-k/2k update accepts: real routines take N, T and C;
// complex symmetric ones N and T; Hermitian ones N and C.
const char* rank_update_transpositions(const Blas3Op& op) {
    if (op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K) return "NC";
    return is_complex(op.precision) ? "NT" : "NTC";
}

bool leading_dimension_ok(int64_t ld, int64_t rows) {
    return ld >= std::max<int64_t>(1, rows);
}

bool scalar_is_zero(const double (&s)[2]) {
    return s[0] == 0.0 && s[1] == 0.0;
}

}  // namespace

MatrixExtent operand_extent(const Blas3Op& op, Operand which) {
    const bool left = op.side == 'L';
    switch (op.kind) {
        case GPUSHIM_GEMM:
            if (which == Operand::a) {
                return op.transa == 'N' ? MatrixExtent{op.m, op.k} : MatrixExtent{op.k, op.m};
            }
            if (which == Operand::b) {
                return op.transb == 'N' ? MatrixExtent{op.k, op.n} : MatrixExtent{op.n, op.k};
            }
            return {op.m, op.n};
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
            if (which == Operand::a)
                return left ? MatrixExtent{op.m, op.m} : MatrixExtent{op.n, op.n};
            return {op.m, op.n};
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K: {
            const bool uses_b = op.kind == GPUSHIM_SYR2K || op.kind == GPUSHIM_HER2K;
            if (which == Operand::c) return {op.n, op.n};
            if (which == Operand::b && !uses_b) return {};
            return op.transa == 'N' ? MatrixExtent{op.n, op.k} : MatrixExtent{op.k, op.n};
        }
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            if (which == Operand::a)
                return left ? MatrixExtent{op.m, op.m} : MatrixExtent{op.n, op.n};
            if (which == Operand::b) return {op.m, op.n};
            return {};
    }
    return {};
}

Operand output_operand(const Blas3Op& op) {
    return (op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM) ? Operand::b : Operand::c;
}

bool reads_output(const Blas3Op& op) {
    if (op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM) return true;
    return !scalar_is_zero(op.beta);
}

bool writes_triangle_only(const Blas3Op& op) {
    return op.kind == GPUSHIM_SYRK || op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_SYR2K ||
           op.kind == GPUSHIM_HER2K;
}

bool arguments_valid(const Blas3Op& op) {
    const auto lda_ok = [&] {
        return leading_dimension_ok(op.lda, operand_extent(op, Operand::a).rows);
    };
    switch (op.kind) {
        case GPUSHIM_GEMM:
            return one_of(op.transa, "NTC") && one_of(op.transb, "NTC") && op.m >= 0 && op.n >= 0 &&
                   op.k >= 0 && lda_ok() &&
                   leading_dimension_ok(op.ldb, operand_extent(op, Operand::b).rows) &&
                   leading_dimension_ok(op.ldc, op.m);
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
            return one_of(op.side, "LR") && one_of(op.uplo, "UL") && op.m >= 0 && op.n >= 0 &&
                   lda_ok() && leading_dimension_ok(op.ldb, op.m) &&
                   leading_dimension_ok(op.ldc, op.m);
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
            return one_of(op.uplo, "UL") && one_of(op.transa, rank_update_transpositions(op)) &&
                   op.n >= 0 && op.k >= 0 && lda_ok() && leading_dimension_ok(op.ldc, op.n);
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            return one_of(op.uplo, "UL") && one_of(op.transa, rank_update_transpositions(op)) &&
                   op.n >= 0 && op.k >= 0 && lda_ok() &&
                   leading_dimension_ok(op.ldb, operand_extent(op, Operand::b).rows) &&
                   leading_dimension_ok(op.ldc, op.n);
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return one_of(op.side, "LR") && one_of(op.uplo, "UL") && one_of(op.transa, "NTC") &&
                   one_of(op.diag, "NU") && op.m >= 0 && op.n >= 0 && lda_ok() &&
                   leading_dimension_ok(op.ldb, op.m);
    }
    return false;
}

bool is_degenerate(const Blas3Op& op) {
    switch (op.kind) {
        case GPUSHIM_GEMM:
            return op.m == 0 || op.n == 0 || op.k == 0 || scalar_is_zero(op.alpha);
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return op.m == 0 || op.n == 0 || scalar_is_zero(op.alpha);
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            return op.n == 0 || op.k == 0 || scalar_is_zero(op.alpha);
    }
    return true;
}

double flop_count(const Blas3Op& op) {
    // A complex multiply-add is four real multiplications and four additions.
    return multiply_adds(op) * (is_complex(op.precision) ? 8.0 : 2.0);
}

}  // namespace gpushim
