#include <gtest/gtest.h>

#include "shim/blas3_op_builders.h"

namespace gpushim::shim {
namespace {

constexpr int kRow = 101, kCol = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113;
constexpr int kUpper = 121, kLower = 122, kLeft = 141, kRight = 142, kUnit = 132;

TEST(RowMajorFold, GemmSwapsOperandsAndSizes) {
    double a = 0, b = 0, c = 0;
    const Blas3Op op = cblas_gemm_op<double, double, double, int>(
        GPUSHIM_GEMM, kRow, kTrans, kNoTrans, 5, 4, 3, 1.0, &a, 5, &b, 4, 0.0, &c, 4);
    EXPECT_EQ(op.transa, 'N');
    EXPECT_EQ(op.transb, 'T');
    EXPECT_EQ(op.m, 4);
    EXPECT_EQ(op.n, 5);
    EXPECT_EQ(op.k, 3);
    EXPECT_EQ(op.a, &b);
    EXPECT_EQ(op.lda, 4);
    EXPECT_EQ(op.b, &a);
    EXPECT_EQ(op.ldb, 5);
    EXPECT_EQ(op.c, &c);
    EXPECT_TRUE(arguments_valid(op));
}

TEST(RowMajorFold, ColumnMajorIsUnchanged) {
    double a = 0, b = 0, c = 0;
    const Blas3Op op = cblas_gemm_op<double, double, double, int>(
        GPUSHIM_GEMM, kCol, kConjTrans, kNoTrans, 5, 4, 3, 2.0, &a, 3, &b, 3, 1.0, &c, 5);
    EXPECT_EQ(op.transa, 'C');
    EXPECT_EQ(op.m, 5);
    EXPECT_EQ(op.a, &a);
    EXPECT_DOUBLE_EQ(op.alpha[0], 2.0);
    EXPECT_DOUBLE_EQ(op.beta[0], 1.0);
}

TEST(RowMajorFold, InvalidLayoutMakesTheCallInvalid) {
    double a = 0, b = 0, c = 0;
    const Blas3Op op = cblas_gemm_op<double, double, double, int>(
        GPUSHIM_GEMM, 99, kNoTrans, kNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
    EXPECT_FALSE(arguments_valid(op));
}

TEST(RowMajorFold, SideAndTriangleFlipForSymmAndTriangular) {
    double a = 0, b = 0, c = 0;
    const Blas3Op symm = cblas_symm_op<double, double, double, int>(
        GPUSHIM_SYMM, kRow, kLeft, kUpper, 3, 7, 1.0, &a, 3, &b, 7, 0.0, &c, 7);
    EXPECT_EQ(symm.side, 'R');
    EXPECT_EQ(symm.uplo, 'L');
    EXPECT_EQ(symm.m, 7);
    EXPECT_EQ(symm.n, 3);
    EXPECT_TRUE(arguments_valid(symm));

    const Blas3Op trsm = cblas_triangular_op<double, double, double, int>(
        GPUSHIM_TRSM, kRow, kRight, kLower, kConjTrans, kUnit, 3, 7, 1.0, &a, 7, &b, 7);
    EXPECT_EQ(trsm.side, 'L');
    EXPECT_EQ(trsm.uplo, 'U');
    EXPECT_EQ(trsm.transa, 'C');
    EXPECT_EQ(trsm.diag, 'U');
    EXPECT_EQ(trsm.m, 7);
    EXPECT_EQ(trsm.n, 3);
    EXPECT_TRUE(arguments_valid(trsm));
}

TEST(RowMajorFold, RankUpdatesTradeTranspositions) {
    double a = 0, c = 0;
    const Blas3Op dsyrk = cblas_rank_k_op<double, double, double, int>(
        GPUSHIM_SYRK, kRow, kUpper, kConjTrans, 4, 3, 1.0, &a, 4, 0.0, &c, 4);
    EXPECT_EQ(dsyrk.uplo, 'L');
    EXPECT_EQ(dsyrk.transa, 'N');  // real: ConjTrans means Trans

    zcomplex za{}, zc{};
    const Blas3Op zherk = cblas_rank_k_op<zcomplex, double, double, int>(
        GPUSHIM_HERK, kRow, kLower, kNoTrans, 4, 3, 1.0, &za, 3, 0.0, &zc, 4);
    EXPECT_EQ(zherk.uplo, 'U');
    EXPECT_EQ(zherk.transa, 'C');
    EXPECT_TRUE(arguments_valid(zherk));

    const Blas3Op zsyrk_conj = cblas_rank_k_op<zcomplex, zcomplex, zcomplex, int>(
        GPUSHIM_SYRK, kRow, kLower, kConjTrans, 4, 3, &za, &za, 3, &za, &zc, 4);
    EXPECT_FALSE(arguments_valid(zsyrk_conj));  // complex SYRK has no conjugate form
}

TEST(RowMajorFold, Her2kConjugatesAlpha) {
    const zcomplex alpha{2.0, 3.0};
    zcomplex a{}, b{}, c{};
    const Blas3Op op = cblas_rank_2k_op<zcomplex, zcomplex, double, int>(
        GPUSHIM_HER2K, kRow, kUpper, kNoTrans, 4, 3, &alpha, &a, 3, &b, 3, 0.5, &c, 4);
    EXPECT_DOUBLE_EQ(op.alpha[0], 2.0);
    EXPECT_DOUBLE_EQ(op.alpha[1], -3.0);
    EXPECT_DOUBLE_EQ(op.beta[0], 0.5);
    EXPECT_EQ(op.transa, 'C');
}

TEST(FortranOps, FlagsAreUpperCasedAndSizesRead) {
    const char n = 'n', t = 't';
    const int64_t m = 3, nn = 4, k = 5, lda = 5, ldb = 5, ldc = 3;
    const float alpha = 1.5f, beta = 0.0f;
    float a = 0, b = 0, c = 0;
    const Blas3Op op = fortran_gemm_op(GPUSHIM_GEMM, &t, &n, &m, &nn, &k, &alpha, &a, &lda, &b,
                                       &ldb, &beta, &c, &ldc);
    EXPECT_EQ(op.transa, 'T');
    EXPECT_EQ(op.transb, 'N');
    EXPECT_EQ(op.precision, GPUSHIM_PREC_S);
    EXPECT_EQ(op.k, 5);
    EXPECT_DOUBLE_EQ(op.alpha[0], 1.5);
    EXPECT_TRUE(arguments_valid(op));
}

}  // namespace
}  // namespace gpushim::shim
