#include "shim/blas3_op_builders.h"

namespace gpushim::shim {

void fold_row_major(Blas3Op& op) {
    switch (op.kind) {
        case GPUSHIM_GEMM:
            std::swap(op.transa, op.transb);
            std::swap(op.m, op.n);
            std::swap(op.a, op.b);
            std::swap(op.lda, op.ldb);
            return;
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            op.side = flip_side(op.side);
            op.uplo = flip_uplo(op.uplo);
            std::swap(op.m, op.n);
            return;
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            op.uplo = flip_uplo(op.uplo);
            op.transa = flip_rank_update_trans(op);
            // (alpha A B^H + conj(alpha) B A^H)^T = conj(alpha) conj(A) B^T + alpha conj(B) A^T:
            // the transposed update is a HER2K with the conjugate alpha.
            if (op.kind == GPUSHIM_HER2K) op.alpha[1] = -op.alpha[1];
            return;
    }
}

}  // namespace gpushim::shim
