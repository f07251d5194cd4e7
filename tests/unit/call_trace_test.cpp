#include "dispatch/call_trace.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dispatch/config.h"
#include "dispatch/router.h"

namespace gpushim {
namespace {

Blas3Op gemm(int64_t m, int64_t n, int64_t k) {
    Blas3Op op{};
    op.kind = GPUSHIM_GEMM;
    op.precision = GPUSHIM_PREC_D;
    op.transa = 'N';
    op.transb = 'N';
    op.m = m;
    op.n = n;
    op.k = k;
    op.lda = std::max<int64_t>(1, m);
    op.ldb = std::max<int64_t>(1, k);
    op.ldc = std::max<int64_t>(1, m);
    op.alpha[0] = 1.0;
    return op;
}

TEST(CallTrace, ShapesNameTheSizesOfTheKind) {
    EXPECT_EQ(call_shape(gemm(1200, 800, 600)), "m=1200 n=800 k=600");
    Blas3Op syrk = gemm(0, 300, 40);
    syrk.kind = GPUSHIM_SYRK;
    EXPECT_EQ(call_shape(syrk), "n=300 k=40");
    Blas3Op trsm = gemm(50, 70, 0);
    trsm.kind = GPUSHIM_TRSM;
    trsm.side = 'R';
    EXPECT_EQ(call_shape(trsm), "m=50 n=70 side=R");

    LapackOp gesv{};
    gesv.kind = GPUSHIM_GESV;
    gesv.n = 1000;
    gesv.nrhs = 3;
    EXPECT_EQ(call_shape(gesv), "n=1000 nrhs=3");
    LapackOp ormqr{};
    ormqr.kind = GPUSHIM_ORMQR;
    ormqr.m = 90;
    ormqr.n = 30;
    ormqr.k = 20;
    EXPECT_EQ(call_shape(ormqr), "m=90 n=30 k=20");

    FftProblem problem;
    problem.kind = FftKind::r2c;
    problem.dims = {{512, 1, 1}, {256, 1, 1}};
    problem.howmany = {{8, 1, 1}, {2, 1, 1}};
    EXPECT_EQ(call_shape(FftOp{&problem, nullptr, nullptr}), "r2c 512x256, 16 transforms");
    problem.kind = FftKind::c2c;
    problem.howmany = {{1, 1, 1}};
    EXPECT_EQ(call_shape(FftOp{&problem, nullptr, nullptr}), "c2c 512x256");
    FftProblem r2r;
    r2r.kind = FftKind::r2r;
    EXPECT_EQ(call_shape(FftOp{&r2r, nullptr, nullptr}), "r2r");
}

TEST(CallTrace, EveryReasonIsSaid) {
    for (CpuReason reason :
         {CpuReason::disabled, CpuReason::nothing_to_offload, CpuReason::below_threshold,
          CpuReason::inside_device_operation, CpuReason::small_workspace, CpuReason::not_for_device,
          CpuReason::device_unavailable, CpuReason::device_lost, CpuReason::device_failed}) {
        EXPECT_STRNE(describe(reason), "") << static_cast<int>(reason);
    }
    EXPECT_STREQ(describe(CpuReason::none), "");
}

// Against the process's own threshold for DGEMM (the default, unless the environment sets
// one), so that the reasons are those the router gives.
TEST(CallTrace, TheRoutersReasonForAGemm) {
    if (config().disabled) GTEST_SKIP() << "GPUSHIM_DISABLE is set: every reason is that";
    EXPECT_EQ(cpu_reason(gemm(-1, 4, 4), Routine::dgemm), CpuReason::nothing_to_offload);
    EXPECT_EQ(cpu_reason(gemm(4000, 4000, 0), Routine::dgemm), CpuReason::nothing_to_offload);
    const double threshold =
        std::cbrt(config().offload_size[static_cast<std::size_t>(Routine::dgemm)]);
    const auto order = static_cast<int64_t>(std::ceil(threshold));
    EXPECT_EQ(cpu_reason(gemm(order, order, order), Routine::dgemm), CpuReason::none);
    if (threshold > 1.0) {
        EXPECT_EQ(cpu_reason(gemm(1, 1, 1), Routine::dgemm), CpuReason::below_threshold);
    }
}

}  // namespace
}  // namespace gpushim
