#include "dispatch/blas3_call.h"

#include <gtest/gtest.h>

namespace gpushim {
namespace {

Blas3Op gemm(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
             int64_t ldc) {
    Blas3Op op{};
    op.kind = GPUSHIM_GEMM;
    op.precision = GPUSHIM_PREC_D;
    op.transa = ta;
    op.transb = tb;
    op.m = m;
    op.n = n;
    op.k = k;
    op.lda = lda;
    op.ldb = ldb;
    op.ldc = ldc;
    op.alpha[0] = 1.0;
    return op;
}

Blas3Op rank_k(gpushim_blas3_kind kind, gpushim_precision precision, char trans) {
    Blas3Op op{};
    op.kind = kind;
    op.precision = precision;
    op.uplo = 'U';
    op.transa = trans;
    op.n = 4;
    op.k = 3;
    op.lda = 4;
    op.ldb = 4;
    op.ldc = 4;
    op.alpha[0] = 1.0;
    return op;
}

TEST(Blas3Call, GemmLeadingDimensionsFollowTransposition) {
    EXPECT_TRUE(arguments_valid(gemm('N', 'N', 5, 4, 3, 5, 3, 5)));
    EXPECT_FALSE(arguments_valid(gemm('N', 'N', 5, 4, 3, 4, 3, 5)));  // lda < m
    EXPECT_TRUE(arguments_valid(gemm('T', 'T', 5, 4, 3, 3, 4, 5)));   // lda >= k, ldb >= n
    EXPECT_FALSE(arguments_valid(gemm('T', 'T', 5, 4, 3, 3, 3, 5)));  // ldb < n
    EXPECT_FALSE(arguments_valid(gemm('N', 'N', 5, 4, 3, 5, 3, 4)));  // ldc < m
    EXPECT_FALSE(arguments_valid(gemm('X', 'N', 5, 4, 3, 5, 3, 5)));
    EXPECT_FALSE(arguments_valid(gemm('N', 'N', -1, 4, 3, 5, 3, 5)));
    // Leading dimensions are at least 1 even for empty matrices, as in reference BLAS.
    EXPECT_FALSE(arguments_valid(gemm('N', 'N', 0, 0, 0, 0, 1, 1)));
    EXPECT_TRUE(arguments_valid(gemm('N', 'N', 0, 0, 0, 1, 1, 1)));
}

TEST(Blas3Call, RankUpdateTranspositionsDependOnPrecisionAndSymmetry) {
    EXPECT_TRUE(arguments_valid(rank_k(GPUSHIM_SYRK, GPUSHIM_PREC_D, 'C')));
    EXPECT_FALSE(arguments_valid(rank_k(GPUSHIM_SYRK, GPUSHIM_PREC_Z, 'C')));
    EXPECT_TRUE(arguments_valid(rank_k(GPUSHIM_SYRK, GPUSHIM_PREC_Z, 'T')));
    EXPECT_TRUE(arguments_valid(rank_k(GPUSHIM_HERK, GPUSHIM_PREC_Z, 'C')));
    EXPECT_FALSE(arguments_valid(rank_k(GPUSHIM_HERK, GPUSHIM_PREC_Z, 'T')));
    EXPECT_FALSE(arguments_valid(rank_k(GPUSHIM_HER2K, GPUSHIM_PREC_C, 'T')));
    EXPECT_TRUE(arguments_valid(rank_k(GPUSHIM_SYR2K, GPUSHIM_PREC_S, 'T')));
}

TEST(Blas3Call, DegenerateCallsAreRecognised) {
    EXPECT_FALSE(is_degenerate(gemm('N', 'N', 5, 4, 3, 5, 3, 5)));
    EXPECT_TRUE(is_degenerate(gemm('N', 'N', 5, 4, 0, 5, 1, 5)));
    EXPECT_TRUE(is_degenerate(gemm('N', 'N', 0, 4, 3, 1, 3, 1)));
    Blas3Op zero_alpha = gemm('N', 'N', 5, 4, 3, 5, 3, 5);
    zero_alpha.alpha[0] = 0.0;
    EXPECT_TRUE(is_degenerate(zero_alpha));
    zero_alpha.alpha[1] = 1.0;  // purely imaginary alpha is not zero
    EXPECT_FALSE(is_degenerate(zero_alpha));
}

TEST(Blas3Call, ShapesAndCost) {
    Blas3Op op = gemm('T', 'N', 6, 5, 4, 4, 4, 6);
    EXPECT_EQ(operand_extent(op, Operand::a).rows, 4);
    EXPECT_EQ(operand_extent(op, Operand::a).cols, 6);
    EXPECT_EQ(operand_extent(op, Operand::c).cols, 5);
    EXPECT_DOUBLE_EQ(multiply_adds(op), 120.0);
    EXPECT_DOUBLE_EQ(flop_count(op), 240.0);
    op.precision = GPUSHIM_PREC_Z;
    EXPECT_DOUBLE_EQ(flop_count(op), 960.0);

    Blas3Op trsm{};
    trsm.kind = GPUSHIM_TRSM;
    trsm.side = 'R';
    trsm.m = 3;
    trsm.n = 5;
    EXPECT_EQ(operand_extent(trsm, Operand::a).rows, 5);
    EXPECT_EQ(output_operand(trsm), Operand::b);
    EXPECT_TRUE(reads_output(trsm));
    EXPECT_DOUBLE_EQ(multiply_adds(trsm), 3.0 * 5 * 6 / 2);

    const Blas3Op herk = rank_k(GPUSHIM_HERK, GPUSHIM_PREC_Z, 'N');
    EXPECT_TRUE(writes_triangle_only(herk));
    EXPECT_FALSE(reads_output(herk));  // beta == 0
    EXPECT_EQ(operand_extent(herk, Operand::b).cols, 0);
}

}  // namespace
}  // namespace gpushim
