#include "gpu/blas3_panels.h"

#include <gtest/gtest.h>

namespace gpushim::gpu {
namespace {

Blas3Op op_of(gpushim_blas3_kind kind, char side) {
    Blas3Op op{};
    op.kind = kind;
    op.precision = GPUSHIM_PREC_D;
    op.side = side;
    op.transa = op.transb = 'N';
    op.uplo = 'U';
    op.m = 10;
    op.n = 7;
    op.k = 5;
    op.lda = op.ldb = op.ldc = 12;
    op.a = reinterpret_cast<const void*>(0x10000);
    op.b = reinterpret_cast<const void*>(0x20000);
    op.c = reinterpret_cast<void*>(0x30000);
    return op;
}

std::ptrdiff_t elements_between(const void* from, const void* to) {
    return (static_cast<const std::byte*>(to) - static_cast<const std::byte*>(from)) / 8;
}

TEST(Blas3Panels, AxisFollowsTheRoutineAndSide) {
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_GEMM, 0)), PanelAxis::columns);
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_SYMM, 'L')), PanelAxis::columns);
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_TRSM, 'R')), PanelAxis::rows);
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_HER2K, 0)), PanelAxis::whole);
}

TEST(Blas3Panels, WidthHoldsAboutThePanelBytes) {
    const Blas3Op gemm = op_of(GPUSHIM_GEMM, 0);  // an output column is 10 doubles
    EXPECT_EQ(panel_width(gemm, PanelAxis::columns, 160), 2);
    EXPECT_EQ(panel_width(gemm, PanelAxis::columns, 1), 1);
    EXPECT_EQ(panel_width(gemm, PanelAxis::columns, 1 << 20), 7);
    const Blas3Op trsm = op_of(GPUSHIM_TRSM, 'R');  // an output row is 7 doubles
    EXPECT_EQ(panel_width(trsm, PanelAxis::rows, 120), 2);
    EXPECT_EQ(panel_span(trsm, PanelAxis::rows), 10);
}

TEST(Blas3Panels, GemmPanelsFollowTheTranspositionOfB) {
    Blas3Op gemm = op_of(GPUSHIM_GEMM, 0);
    Blas3Op panel = panel_op(gemm, PanelAxis::columns, 3, 2);
    EXPECT_EQ(panel.n, 2);
    EXPECT_EQ(panel.a, gemm.a);
    EXPECT_EQ(elements_between(gemm.b, panel.b), 3 * 12);
    EXPECT_EQ(elements_between(gemm.c, panel.c), 3 * 12);
    gemm.transb = 'T';
    panel = panel_op(gemm, PanelAxis::columns, 3, 2);
    EXPECT_EQ(elements_between(gemm.b, panel.b), 3);  // rows of B
}

TEST(Blas3Panels, RowPanelsOffsetRows) {
    const Blas3Op symm = op_of(GPUSHIM_SYMM, 'R');
    const Blas3Op panel = panel_op(symm, PanelAxis::rows, 4, 3);
    EXPECT_EQ(panel.m, 3);
    EXPECT_EQ(panel.n, 7);
    EXPECT_EQ(elements_between(symm.b, panel.b), 4);
    EXPECT_EQ(elements_between(symm.c, panel.c), 4);
    EXPECT_TRUE(arguments_valid(panel));

    const Blas3Op trmm = op_of(GPUSHIM_TRMM, 'L');
    const Blas3Op column_panel = panel_op(trmm, PanelAxis::columns, 5, 2);
    EXPECT_EQ(elements_between(trmm.b, column_panel.b), 5 * 12);
    EXPECT_EQ(column_panel.c, trmm.c);  // TRMM has no C
}

TEST(Blas3Panels, WholeIsTheCallItself) {
    const Blas3Op herk = op_of(GPUSHIM_HERK, 0);
    const Blas3Op panel = panel_op(herk, PanelAxis::whole, 0, 1);
    EXPECT_EQ(panel.n, herk.n);
    EXPECT_EQ(panel.c, herk.c);
    EXPECT_EQ(panel_width(herk, PanelAxis::whole, 1), 1);
}

}  // namespace
}  // namespace gpushim::gpu
