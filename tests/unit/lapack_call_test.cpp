#include "dispatch/lapack_call.h"

#include <gtest/gtest.h>

namespace gpushim {
namespace {

LapackOp factorization(gpushim_lapack_kind kind, int64_t m, int64_t n, int64_t lda) {
    LapackOp op{};
    op.kind = kind;
    op.precision = GPUSHIM_PREC_D;
    op.uplo = 'L';
    op.m = m;
    op.n = n;
    op.lda = lda;
    return op;
}

TEST(LapackCall, PotrfArgumentsFollowLapack) {
    EXPECT_TRUE(arguments_valid(factorization(GPUSHIM_POTRF, 0, 5, 5)));
    EXPECT_FALSE(arguments_valid(factorization(GPUSHIM_POTRF, 0, 5, 4)));
    EXPECT_FALSE(arguments_valid(factorization(GPUSHIM_POTRF, 0, -1, 1)));
    EXPECT_TRUE(arguments_valid(factorization(GPUSHIM_POTRF, 0, 0, 1)));
    EXPECT_FALSE(arguments_valid(factorization(GPUSHIM_POTRF, 0, 0, 0)));
    LapackOp bad_uplo = factorization(GPUSHIM_POTRF, 0, 5, 5);
    bad_uplo.uplo = 'X';
    EXPECT_FALSE(arguments_valid(bad_uplo));
}

TEST(LapackCall, GetrfLeadingDimensionFollowsRows) {
    EXPECT_TRUE(arguments_valid(factorization(GPUSHIM_GETRF, 7, 3, 7)));
    EXPECT_FALSE(arguments_valid(factorization(GPUSHIM_GETRF, 7, 3, 6)));
    EXPECT_TRUE(arguments_valid(factorization(GPUSHIM_GETRF, 3, 7, 3)));
    EXPECT_FALSE(arguments_valid(factorization(GPUSHIM_GETRF, 3, -7, 3)));
}

TEST(LapackCall, SizeAndCost) {
    EXPECT_TRUE(is_degenerate(factorization(GPUSHIM_GETRF, 0, 4, 1)));
    EXPECT_TRUE(is_degenerate(factorization(GPUSHIM_POTRF, 0, 0, 1)));
    EXPECT_FALSE(is_degenerate(factorization(GPUSHIM_POTRF, 0, 1, 1)));
    EXPECT_DOUBLE_EQ(effective_order(factorization(GPUSHIM_POTRF, 0, 100, 100)), 100.0);
    EXPECT_NEAR(effective_order(factorization(GPUSHIM_GETRF, 100, 100, 100)), 100.0, 1e-9);
    EXPECT_NEAR(effective_order(factorization(GPUSHIM_GETRF, 800, 100, 800)), 200.0, 1e-9);
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_POTRF, 0, 300, 300)), 300.0 * 300 * 300 / 3, 1e-3);
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_GETRF, 300, 300, 300)), 2.0 * 300 * 300 * 300 / 3, 1e-3);
    // m >= n: m n^2 - n^3 / 3.
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_GETRF, 500, 200, 500)), 500.0 * 200 * 200 - 200.0 * 200 * 200 / 3,
                1e-3);
    LapackOp complex = factorization(GPUSHIM_POTRF, 0, 30, 30);
    complex.precision = GPUSHIM_PREC_Z;
    EXPECT_NEAR(flop_count(complex), 4.0 * 30 * 30 * 30 / 3, 1e-6);
}

}  // namespace
}  // namespace gpushim
