#include "dispatch/lapack_call.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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

// POTRF, SYTRF and SYTRI take the same checked arguments (SYTRF's LWORK is the workspace
// check's).
TEST(LapackCall, PotrfAndSytrfArgumentsFollowLapack) {
    for (gpushim_lapack_kind kind : {GPUSHIM_POTRF, GPUSHIM_SYTRF, GPUSHIM_SYTRI}) {
        EXPECT_TRUE(arguments_valid(factorization(kind, 0, 5, 5)));
        EXPECT_FALSE(arguments_valid(factorization(kind, 0, 5, 4)));
        EXPECT_FALSE(arguments_valid(factorization(kind, 0, -1, 1)));
        EXPECT_TRUE(arguments_valid(factorization(kind, 0, 0, 1)));
        EXPECT_FALSE(arguments_valid(factorization(kind, 0, 0, 0)));
        LapackOp bad_uplo = factorization(kind, 0, 5, 5);
        bad_uplo.uplo = 'X';
        EXPECT_FALSE(arguments_valid(bad_uplo));
    }
}

// A diagonal entry that is not positive among the first n/8 (at least the first) makes a
// Cholesky factorization fail there at the latest: the CPU answers it.
TEST(LapackCall, CholeskyBoundToFailEarlyStaysOnTheCpu) {
    for (gpushim_lapack_kind kind : {GPUSHIM_POTRF, GPUSHIM_POSV}) {
        std::vector<double> a(16 * 16, 0.0);
        for (int i = 0; i < 16; ++i) a[static_cast<size_t>(i * 17)] = 2.0;
        LapackOp op = factorization(kind, 0, 16, 16);
        op.a = a.data();
        EXPECT_TRUE(suits_device(op));
        a[17] = -1.0;  // A(2,2), within the first 16 / 8 columns
        EXPECT_FALSE(suits_device(op));
        a[17] = 0.0;
        EXPECT_FALSE(suits_device(op));
        a[17] = 2.0;
        a[15 * 17] = -1.0;  // A(16,16): LAPACK may find out only at the last column
        EXPECT_TRUE(suits_device(op));
        LapackOp single = factorization(kind, 0, 1, 1);
        float one_by_one = -0.0F;
        single.a = &one_by_one;
        single.precision = GPUSHIM_PREC_S;
        EXPECT_FALSE(suits_device(single));
    }
}

// LAPACK's GELSD keeps every singular value for a NaN rcond (no comparison with a NaN
// threshold drops one): the CPU answers it.
TEST(LapackCall, GelsdWithANanRcondStaysOnTheCpu) {
    std::vector<double> a(4 * 3, 0.0), b(4, 1.0);
    for (int i = 0; i < 3; ++i) a[static_cast<size_t>(i * 5)] = 1.0 + i;
    LapackOp op = factorization(GPUSHIM_GELSD, 4, 3, 4);
    op.a = a.data();
    op.b = b.data();
    op.ldb = 4;
    op.nrhs = 1;
    for (const double rcond : {-1.0, 0.0, 1e-3, 2.0}) {
        op.rcond = rcond;
        EXPECT_TRUE(suits_device(op)) << rcond;
    }
    op.rcond = std::nan("");
    EXPECT_FALSE(suits_device(op));
}

// A device's pivots in another convention (0-based, a 2 x 2 block marked once) never reach the
// caller.
TEST(LapackCall, DevicePivotsMustBeLapacks) {
    const LapackOp getrf = factorization(GPUSHIM_GETRF, 4, 3, 4);
    const int64_t lapack_lu[3] = {3, 2, 4};
    EXPECT_TRUE(pivots_plausible(getrf, lapack_lu, 3));
    const int64_t zero_based[3] = {2, 1, 3};  // row 2 "interchanged with" row 1
    EXPECT_FALSE(pivots_plausible(getrf, zero_based, 3));
    const int64_t past_m[3] = {5, 2, 3};
    EXPECT_FALSE(pivots_plausible(getrf, past_m, 3));

    LapackOp sytrf = factorization(GPUSHIM_SYTRF, 0, 5, 5);
    sytrf.uplo = 'L';
    const int64_t lower[5] = {3, -5, -5, 4, 5};  // 1 x 1, a 2 x 2 (rows 2, 3; 3 with 5), 1 x 1s
    EXPECT_TRUE(pivots_plausible(sytrf, lower, 5));
    const int64_t marked_once[5] = {3, 2, -5, 4, 5};
    EXPECT_FALSE(pivots_plausible(sytrf, marked_once, 5));
    const int64_t upward[5] = {1, 1, 3, 4, 5};  // 'L' interchanges row 2 with a row above
    EXPECT_FALSE(pivots_plausible(sytrf, upward, 5));
    const int64_t zero[5] = {0, 2, 3, 4, 5};
    EXPECT_FALSE(pivots_plausible(sytrf, zero, 5));
    sytrf.uplo = 'U';
    const int64_t upper[5] = {1, -1, -1, 2, 5};  // 1 x 1s, a 2 x 2 (rows 2, 3; 2 with 1)
    EXPECT_TRUE(pivots_plausible(sytrf, upper, 5));
    EXPECT_FALSE(pivots_plausible(sytrf, lower, 5));
    sytrf.kind = GPUSHIM_SYSV;
    EXPECT_TRUE(pivots_plausible(sytrf, upper, 5));
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
    // SYEV's and SYEVR's quick return at order 1 leaves a WORK(1) of its own.
    EXPECT_TRUE(is_degenerate(factorization(GPUSHIM_SYEVD, 0, 1, 1)));
    EXPECT_TRUE(is_degenerate(factorization(GPUSHIM_SYEVR, 0, 1, 1)));
    EXPECT_FALSE(is_degenerate(factorization(GPUSHIM_SYEVD, 0, 2, 2)));
    EXPECT_FALSE(is_degenerate(factorization(GPUSHIM_SYGVD, 0, 1, 1)));
    EXPECT_DOUBLE_EQ(cubed_order(factorization(GPUSHIM_POTRF, 0, 100, 100)), 1e6);
    EXPECT_DOUBLE_EQ(cubed_order(factorization(GPUSHIM_GETRF, 100, 100, 100)), 1e6);
    EXPECT_DOUBLE_EQ(cubed_order(factorization(GPUSHIM_GETRF, 800, 100, 800)), 800.0 * 100 * 100);
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_POTRF, 0, 300, 300)), 300.0 * 300 * 300 / 3, 1e-3);
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_SYTRF, 0, 300, 300)), 300.0 * 300 * 300 / 3, 1e-3);
    EXPECT_DOUBLE_EQ(cubed_order(factorization(GPUSHIM_SYTRF, 0, 100, 100)), 1e6);
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_GETRF, 300, 300, 300)), 2.0 * 300 * 300 * 300 / 3,
                1e-3);
    // m >= n: m n^2 - n^3 / 3.
    EXPECT_NEAR(flop_count(factorization(GPUSHIM_GETRF, 500, 200, 500)),
                500.0 * 200 * 200 - 200.0 * 200 * 200 / 3, 1e-3);
    LapackOp complex = factorization(GPUSHIM_POTRF, 0, 30, 30);
    complex.precision = GPUSHIM_PREC_Z;
    EXPECT_NEAR(flop_count(complex), 4.0 * 30 * 30 * 30 / 3, 1e-6);
}

LapackOp solve(gpushim_lapack_kind kind, int64_t n, int64_t nrhs, int64_t lda, int64_t ldb) {
    LapackOp op = factorization(kind, 0, n, lda);
    op.uplo = 'U';
    op.trans = 'N';
    op.diag = 'N';
    op.nrhs = nrhs;
    op.ldb = ldb;
    return op;
}

TEST(LapackCall, SolvesCheckBothLeadingDimensionsAndTheirFlags) {
    for (gpushim_lapack_kind kind :
         {GPUSHIM_GETRS, GPUSHIM_GESV, GPUSHIM_POTRS, GPUSHIM_POSV, GPUSHIM_TRTRS}) {
        EXPECT_TRUE(arguments_valid(solve(kind, 5, 2, 5, 5))) << kind;
        EXPECT_FALSE(arguments_valid(solve(kind, 5, 2, 4, 5))) << kind;
        EXPECT_FALSE(arguments_valid(solve(kind, 5, 2, 5, 4))) << kind;
        EXPECT_FALSE(arguments_valid(solve(kind, 5, -1, 5, 5))) << kind;
        EXPECT_TRUE(arguments_valid(solve(kind, 0, 0, 1, 1))) << kind;
    }
    LapackOp bad = solve(GPUSHIM_GETRS, 5, 2, 5, 5);
    bad.trans = 'X';
    EXPECT_FALSE(arguments_valid(bad));
    bad = solve(GPUSHIM_TRTRS, 5, 2, 5, 5);
    bad.diag = 'X';
    EXPECT_FALSE(arguments_valid(bad));
    bad = solve(GPUSHIM_POSV, 5, 2, 5, 5);
    bad.uplo = 'X';
    EXPECT_FALSE(arguments_valid(bad));
}

TEST(LapackCall, NoRightHandSidesLeaveEveryCallToTheCpu) {
    // OpenBLAS's GESV returns at once for nrhs = 0 where LAPACK would factor A.
    for (gpushim_lapack_kind kind : {GPUSHIM_GETRS, GPUSHIM_GESV, GPUSHIM_POTRS, GPUSHIM_POSV,
                                     GPUSHIM_SYTRS, GPUSHIM_SYSV, GPUSHIM_TRTRS})
        EXPECT_TRUE(is_degenerate(solve(kind, 5, 0, 5, 5))) << kind;
    EXPECT_FALSE(is_degenerate(solve(GPUSHIM_GESV, 5, 1, 5, 5)));
    EXPECT_FALSE(is_degenerate(solve(GPUSHIM_SYSV, 5, 1, 5, 5)));
}

LapackOp qr(gpushim_lapack_kind kind, int64_t m, int64_t n, int64_t k) {
    LapackOp op = factorization(kind, m, n, m);
    op.k = k;
    op.side = 'L';
    op.trans = 'T';
    op.ldb = m;
    return op;
}

TEST(LapackCall, QrFamilyFollowsLapack) {
    EXPECT_TRUE(arguments_valid(qr(GPUSHIM_ORGQR, 8, 5, 5)));
    EXPECT_FALSE(arguments_valid(qr(GPUSHIM_ORGQR, 4, 5, 4)));  // n > m
    EXPECT_FALSE(arguments_valid(qr(GPUSHIM_ORGQR, 8, 5, 6)));  // k > n
    EXPECT_TRUE(arguments_valid(qr(GPUSHIM_ORMQR, 8, 5, 8)));   // side L: k <= m
    LapackOp right = qr(GPUSHIM_ORMQR, 8, 5, 6);
    right.side = 'R';
    right.lda = 5;
    EXPECT_FALSE(arguments_valid(right));  // side R: k <= n
    right.k = 5;
    EXPECT_TRUE(arguments_valid(right));
    // A real Q is transposed with 'T', a complex one with 'C'.
    LapackOp complex = qr(GPUSHIM_ORMQR, 8, 5, 5);
    complex.precision = GPUSHIM_PREC_Z;
    EXPECT_FALSE(arguments_valid(complex));
    complex.trans = 'C';
    EXPECT_TRUE(arguments_valid(complex));
    EXPECT_TRUE(is_degenerate(qr(GPUSHIM_ORMQR, 8, 5, 0)));
    EXPECT_TRUE(is_degenerate(qr(GPUSHIM_ORGQR, 8, 5, 0)));
    EXPECT_FALSE(is_degenerate(qr(GPUSHIM_ORGQR, 8, 5, 1)));
    EXPECT_DOUBLE_EQ(cubed_order(qr(GPUSHIM_ORMQR, 100, 10, 10)), 100.0 * 10 * 10);
}

LapackOp svd(char jobu, char jobvt, int64_t m, int64_t n, int64_t ldu, int64_t ldvt) {
    LapackOp op = factorization(GPUSHIM_GESVD, m, n, m);
    op.jobu = jobu;
    op.jobvt = jobvt;
    op.ldu = ldu;
    op.ldvt = ldvt;
    return op;
}

TEST(LapackCall, SvdJobsAndLeadingDimensionsFollowGesvd) {
    EXPECT_TRUE(arguments_valid(svd('A', 'A', 6, 4, 6, 4)));
    EXPECT_FALSE(arguments_valid(svd('A', 'A', 6, 4, 5, 4)));  // ldu < m
    EXPECT_FALSE(arguments_valid(svd('S', 'A', 6, 4, 6, 3)));  // ldvt < n
    EXPECT_TRUE(arguments_valid(svd('S', 'S', 6, 4, 6, 4)));
    EXPECT_TRUE(arguments_valid(svd('N', 'S', 4, 6, 1, 4)));  // ldvt >= min(m, n)
    EXPECT_TRUE(arguments_valid(svd('N', 'N', 6, 4, 1, 1)));
    EXPECT_FALSE(arguments_valid(svd('N', 'N', 6, 4, 0, 1)));  // ldu >= 1 always
    EXPECT_FALSE(arguments_valid(svd('O', 'O', 6, 4, 6, 4)));
    EXPECT_FALSE(arguments_valid(svd('X', 'N', 6, 4, 6, 4)));
    // The device interface takes m >= n only.
    double a[24] = {};
    LapackOp tall = svd('S', 'S', 6, 4, 6, 4);
    tall.a = a;
    EXPECT_TRUE(suits_device(tall));
    LapackOp wide = svd('S', 'S', 4, 6, 4, 4);
    wide.a = a;
    EXPECT_FALSE(suits_device(wide));
}

TEST(LapackCall, TriangularOperationsWithAZeroOnTheDiagonalStayOnTheCpu) {
    double a[9] = {2, 1, 1, 0, 3, 1, 0, 0, 4};
    LapackOp op = factorization(GPUSHIM_TRTRI, 0, 3, 3);
    op.a = a;
    op.diag = 'N';
    EXPECT_TRUE(suits_device(op));
    a[4] = 0.0;  // A(2,2)
    EXPECT_FALSE(suits_device(op));
    op.diag = 'U';  // a unit diagonal is not read
    EXPECT_TRUE(suits_device(op));
    op.kind = GPUSHIM_GETRI;
    EXPECT_FALSE(suits_device(op));
    a[4] = -0.0;
    EXPECT_FALSE(suits_device(op));
}

// SYTRI reports INFO = k for an exactly zero 1 x 1 block of D (a positive pivot), not for a
// zero diagonal entry inside a 2 x 2 block (negative pivots); SYTRS divides by it. Pivots out
// of range are the CPU library's to answer too.
TEST(LapackCall, SytriAndSytrsWithAZeroOneByOneBlockOrABadPivotStayOnTheCpu) {
    for (gpushim_lapack_kind kind : {GPUSHIM_SYTRI, GPUSHIM_SYTRS}) {
        for (int pivot_bytes : {4, 8}) {
            double a[9] = {2, 1, 1, 0, 3, 1, 0, 0, 4};
            int32_t narrow[3] = {1, 2, 3};
            int64_t wide[3] = {1, 2, 3};
            const auto set_pivots = [&](int64_t first, int64_t second, int64_t third) {
                narrow[0] = static_cast<int32_t>(first);
                narrow[1] = static_cast<int32_t>(second);
                narrow[2] = static_cast<int32_t>(third);
                wide[0] = first;
                wide[1] = second;
                wide[2] = third;
            };
            LapackOp op = factorization(kind, 0, 3, 3);
            op.a = a;
            op.host_pivots =
                pivot_bytes == 4 ? static_cast<void*>(narrow) : static_cast<void*>(wide);
            op.pivot_bytes = pivot_bytes;
            EXPECT_TRUE(suits_device(op));
            a[4] = 0.0;  // D(2,2), a 1 x 1 block
            EXPECT_FALSE(suits_device(op));
            set_pivots(1, -3, -3);  // D(2:3, 2:3) a 2 x 2 block
            EXPECT_TRUE(suits_device(op));
            for (int64_t bad : {0, 4, -4}) {
                set_pivots(bad, -3, -3);
                EXPECT_FALSE(suits_device(op)) << bad;
            }
        }
    }
}

TEST(LapackCall, EigenAndSvdDriversLeaveNanToTheCpu) {
    double a[6] = {1, 2, 3, 4, 5, 6};
    LapackOp svd_op = svd('N', 'N', 3, 2, 1, 1);
    svd_op.a = a;
    EXPECT_TRUE(suits_device(svd_op));
    a[5] = std::nan("");  // the last row of the last column: all m rows are read
    EXPECT_FALSE(suits_device(svd_op));

    double s[4] = {2, 1, 1, 3};
    double b[4] = {1, 0, 0, 1};
    LapackOp eigen = factorization(GPUSHIM_SYGVD, 0, 2, 2);
    eigen.itype = 1;
    eigen.jobz = 'V';
    eigen.a = s;
    eigen.b = b;
    eigen.ldb = 2;
    EXPECT_TRUE(suits_device(eigen));
    b[3] = std::nan("");
    EXPECT_FALSE(suits_device(eigen));
    b[3] = 1.0;
    eigen.jobz = 'N';
    EXPECT_TRUE(suits_device(eigen));
    eigen.kind = GPUSHIM_GEEV;
    eigen.jobvl = 'N';
    EXPECT_TRUE(suits_device(eigen));
    s[1] = std::nan("");
    EXPECT_FALSE(suits_device(eigen));
}

// SYTRF (and SYSV's) reports INFO > 0 at a NaN in the triangle it reads (uplo 'L': A(2,1) =
// s[1]; 'U' does not read it).
TEST(LapackCall, SytrfAndSysvLeaveNanToTheCpu) {
    double s[4] = {2, std::nan(""), 1, 3};
    for (gpushim_lapack_kind kind : {GPUSHIM_SYTRF, GPUSHIM_SYSV}) {
        LapackOp op = factorization(kind, 0, 2, 2);
        op.a = s;
        EXPECT_FALSE(suits_device(op));
        op.uplo = 'U';
        EXPECT_TRUE(suits_device(op));
    }
}

TEST(LapackCall, EigenAndSvdCostsAreCounted) {
    LapackOp eigen = factorization(GPUSHIM_SYEVD, 0, 100, 100);
    eigen.jobz = 'N';
    const double values_only = flop_count(eigen);
    eigen.jobz = 'V';
    EXPECT_GT(flop_count(eigen), values_only);
    EXPECT_DOUBLE_EQ(cubed_order(eigen), 1e6);
    EXPECT_GT(flop_count(svd('A', 'A', 200, 100, 200, 100)),
              flop_count(svd('N', 'N', 200, 100, 1, 1)));
}

LapackOp syevr(char range, int64_t n, int64_t il, int64_t iu, double vl, double vu) {
    LapackOp op = factorization(GPUSHIM_SYEVR, 0, n, n);
    op.jobz = 'V';
    op.range = range;
    op.il = il;
    op.iu = iu;
    op.vl = vl;
    op.vu = vu;
    op.ldu = n;
    return op;
}

TEST(LapackCall, SyevrRangesFollowLapack) {
    EXPECT_TRUE(arguments_valid(syevr('A', 5, 0, 0, 0, 0)));
    EXPECT_TRUE(arguments_valid(syevr('V', 5, 0, 0, -1.0, 1.0)));
    EXPECT_FALSE(arguments_valid(syevr('V', 5, 0, 0, 1.0, 1.0)));  // needs VL < VU
    LapackOp empty = syevr('V', 0, 0, 0, 1.0, 1.0);
    empty.lda = empty.ldu = 1;
    EXPECT_TRUE(arguments_valid(empty));  // unless n = 0
    EXPECT_TRUE(arguments_valid(syevr('I', 5, 2, 4, 0, 0)));
    EXPECT_FALSE(arguments_valid(syevr('I', 5, 0, 4, 0, 0)));
    EXPECT_FALSE(arguments_valid(syevr('I', 5, 3, 2, 0, 0)));
    EXPECT_FALSE(arguments_valid(syevr('I', 5, 2, 6, 0, 0)));
    EXPECT_FALSE(arguments_valid(syevr('X', 5, 0, 0, 0, 0)));
    LapackOp short_z = syevr('A', 5, 0, 0, 0, 0);
    short_z.ldu = 4;
    EXPECT_FALSE(arguments_valid(short_z));
    short_z.jobz = 'N';  // Z is not referenced
    EXPECT_TRUE(arguments_valid(short_z));
}

TEST(LapackCall, GeevLeftEigenvectorsStayOnTheCpu) {
    double a[25] = {};
    LapackOp op = factorization(GPUSHIM_GEEV, 0, 5, 5);
    op.a = a;
    op.jobvl = 'N';
    op.jobz = 'V';
    op.ldvl = 1;
    op.ldu = 5;
    EXPECT_TRUE(arguments_valid(op));
    EXPECT_TRUE(suits_device(op));
    op.jobvl = 'V';
    EXPECT_FALSE(arguments_valid(op));  // LDVL < n
    op.ldvl = 5;
    EXPECT_TRUE(arguments_valid(op));
    EXPECT_FALSE(suits_device(op));
}

TEST(LapackCall, GelsGoesToTheDeviceOnlyWithoutRescaling) {
    double a[6] = {1, 2, 3, 4, 5, 7};
    double b[3] = {1, 0, 1};
    LapackOp op = factorization(GPUSHIM_GELS, 3, 2, 3);
    op.trans = 'N';
    op.nrhs = 1;
    op.a = a;
    op.b = b;
    op.ldb = 3;
    EXPECT_TRUE(arguments_valid(op));
    EXPECT_TRUE(suits_device(op));
    op.ldb = 2;
    EXPECT_FALSE(arguments_valid(op));  // LDB >= max(m, n)
    op.ldb = 3;
    a[0] = 1e300;  // LAPACK scales A down first
    EXPECT_FALSE(suits_device(op));
    a[0] = 1.0;
    b[0] = b[2] = 0.0;
    EXPECT_TRUE(suits_device(op));  // B = 0 is not rescaled
    b[1] = 1e-300;                  // a tiny B is
    EXPECT_FALSE(suits_device(op));
    b[1] = 1.0;
    op.trans = 'T';
    EXPECT_FALSE(suits_device(op));
    op.trans = 'C';  // a real matrix is transposed with 'T'
    EXPECT_FALSE(arguments_valid(op));
    EXPECT_TRUE(is_degenerate(solve(GPUSHIM_GELS, 5, 0, 5, 5)));
}

}  // namespace
}  // namespace gpushim
