#include "gpu/blas3_panels.h"

#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

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
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_HER2K, 0)), PanelAxis::triangle);
    EXPECT_EQ(panel_axis(op_of(GPUSHIM_SYRK, 0)), PanelAxis::triangle);
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

TEST(Blas3Panels, PanelsOfAGemmFollowOneAnother) {
    const Blas3Op gemm = op_of(GPUSHIM_GEMM, 0);  // n = 7
    EXPECT_EQ(panel_range(gemm, PanelAxis::columns, 3, 2).first, 6);
    EXPECT_EQ(panel_range(gemm, PanelAxis::columns, 3, 2).count, 1);
    const Blas3Op rest = rest_of_call(gemm, PanelAxis::columns, 3, 1);
    EXPECT_EQ(rest.n, 4);
    EXPECT_EQ(elements_between(gemm.c, rest.c), 3 * 12);
}

// A reference evaluation of the canonical calls a triangle's panels are made of, in
// complex double, straight from the definitions (BLAS-free), to check that the panels and
// the rest of a call compute what the whole call computes.
using Z = std::complex<double>;

Z element(const void* base, int64_t ld, int64_t i, int64_t j) {
    return static_cast<const Z*>(base)[i + j * ld];
}
Z& element(void* base, int64_t ld, int64_t i, int64_t j) {
    return static_cast<Z*>(base)[i + j * ld];
}
// op(X)(i, j) for a GEMM operand stored as X with flag t.
Z operand_value(const void* x, int64_t ld, char t, int64_t i, int64_t j) {
    if (t == 'N') return element(x, ld, i, j);
    const Z v = element(x, ld, j, i);
    return t == 'C' ? std::conj(v) : v;
}

void evaluate(const Blas3Op& call) {
    const Z alpha(call.alpha[0], call.alpha[1]);
    const Z beta(call.beta[0], call.beta[1]);
    if (call.kind == GPUSHIM_GEMM) {
        for (int64_t j = 0; j < call.n; ++j) {
            for (int64_t i = 0; i < call.m; ++i) {
                Z sum = 0;
                for (int64_t l = 0; l < call.k; ++l) {
                    sum += operand_value(call.a, call.lda, call.transa, i, l) *
                           operand_value(call.b, call.ldb, call.transb, l, j);
                }
                Z& c = element(call.c, call.ldc, i, j);
                c = alpha * sum + (beta == Z(0) ? Z(0) : beta * c);
            }
        }
        return;
    }
    const bool hermitian = call.kind == GPUSHIM_HERK || call.kind == GPUSHIM_HER2K;
    const bool two = call.kind == GPUSHIM_SYR2K || call.kind == GPUSHIM_HER2K;
    const char t = call.transa;
    // Row i of the n-sized side of X (A or B), element l: X(i, l) or X(l, i).
    const auto side = [&](const void* x, int64_t ld, int64_t i, int64_t l) {
        return t == 'N' ? element(x, ld, i, l) : element(x, ld, l, i);
    };
    const auto other = [&](Z v) { return hermitian ? std::conj(v) : v; };
    const Z a_scale = call.kind == GPUSHIM_HERK ? Z(call.alpha[0]) : alpha;
    const Z b_scale = hermitian ? Z(call.beta[0]) : beta;
    for (int64_t j = 0; j < call.n; ++j) {
        for (int64_t i = 0; i < call.n; ++i) {
            if (call.uplo == 'U' ? i > j : i < j) continue;
            Z sum = 0;
            for (int64_t l = 0; l < call.k; ++l) {
                // (op A op(B)^T)(i, j) summed over the k side, for A A^T / A^T A forms:
                // with trans 'N' the rows of A pair up; with 'T'/'C' its columns, and the
                // conjugate falls on the left factor.
                const Z ai = side(call.a, call.lda, i, l);
                const Z aj = side(call.a, call.lda, j, l);
                if (!two) {
                    sum += t == 'N' ? a_scale * ai * other(aj) : a_scale * other(ai) * aj;
                    continue;
                }
                const Z bi = side(call.b, call.ldb, i, l);
                const Z bj = side(call.b, call.ldb, j, l);
                const Z second = hermitian ? std::conj(alpha) : alpha;
                sum += t == 'N' ? alpha * ai * other(bj) + second * bi * other(aj)
                                : alpha * other(ai) * bj + second * other(bi) * aj;
            }
            Z& c = element(call.c, call.ldc, i, j);
            c = sum + (b_scale == Z(0) ? Z(0) : b_scale * c);
            if (hermitian && i == j) c = Z(c.real(), 0.0);
        }
    }
}

struct TriangleCase {
    gpushim_blas3_kind kind;
    char uplo;
    char trans;
};

std::string triangle_case_name(const testing::TestParamInfo<TriangleCase>& info) {
    static const char* const kNames[] = {"syrk", "herk", "syr2k", "her2k"};
    return std::string(kNames[info.param.kind - GPUSHIM_SYRK]) + "_" + info.param.uplo +
           info.param.trans;
}

class TrianglePanels : public testing::TestWithParam<TriangleCase> {};

TEST_P(TrianglePanels, PanelsAndTheRestComputeTheWholeCall) {
    const TriangleCase param = GetParam();
    const int64_t n = 13, k = 5, ld = 16, width = 4;
    const bool transposed = param.trans != 'N';
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const auto random_matrix = [&](int64_t columns) {
        std::vector<Z> m(static_cast<std::size_t>(ld * columns));
        for (Z& v : m) v = Z(u(rng), u(rng));
        return m;
    };
    const std::vector<Z> a = random_matrix(transposed ? n : k);
    const std::vector<Z> b = random_matrix(transposed ? n : k);
    const std::vector<Z> c0 = random_matrix(n);

    Blas3Op op{};
    op.kind = param.kind;
    op.precision = GPUSHIM_PREC_Z;
    op.uplo = param.uplo;
    op.transa = param.trans;
    op.n = n;
    op.k = k;
    op.alpha[0] = 0.75;
    op.alpha[1] = -0.5;
    op.beta[0] = 1.25;
    op.beta[1] = 0.25;
    op.a = a.data();
    op.lda = ld;
    if (param.kind == GPUSHIM_SYR2K || param.kind == GPUSHIM_HER2K) {
        op.b = b.data();
        op.ldb = ld;
    }
    op.ldc = ld;
    ASSERT_TRUE(arguments_valid(op));
    ASSERT_EQ(panel_axis(op), PanelAxis::triangle);

    std::vector<Z> whole = c0;
    op.c = whole.data();
    evaluate(op);

    const int64_t panels = (n + width - 1) / width;
    for (int64_t delivered = 0; delivered <= panels; ++delivered) {
        std::vector<Z> by_panels = c0;
        Blas3Op call = op;
        call.c = by_panels.data();
        for (int64_t p = 0; p < delivered; ++p) {
            const PanelRange range = panel_range(call, PanelAxis::triangle, width, p);
            const TrianglePanel panel = triangle_panel(call, range.first, range.count);
            for (int i = 0; i < panel.call_count; ++i) {
                const Blas3Op& part = panel.calls[i];
                ASSERT_TRUE(arguments_valid(part));
                // Within the panel's rectangle of C.
                const auto at = elements_between(by_panels.data(), part.c) / 2;
                const int64_t rows = part.kind == GPUSHIM_GEMM ? part.m : part.n;
                EXPECT_GE(at % ld, panel.first_row);
                EXPECT_LE(at % ld + rows, panel.first_row + panel.rows);
                EXPECT_GE(at / ld, range.first);
                EXPECT_LE(at / ld + part.n, range.first + range.count);
                evaluate(part);
            }
            EXPECT_EQ(panel.diagonal + panel.first_row, range.first);
        }
        if (delivered < panels) evaluate(rest_of_call(call, PanelAxis::triangle, width, delivered));
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < ld; ++i) {
                const std::size_t at = static_cast<std::size_t>(i + j * ld);
                const bool written = i < n && (param.uplo == 'U' ? i <= j : i >= j);
                if (written) {
                    EXPECT_LT(std::abs(by_panels[at] - whole[at]), 1e-12)
                        << "delivered " << delivered << " i " << i << " j " << j;
                } else {
                    EXPECT_EQ(by_panels[at], c0[at]) << "untouched: i " << i << " j " << j;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    RankUpdates, TrianglePanels,
    testing::Values(TriangleCase{GPUSHIM_SYRK, 'L', 'N'}, TriangleCase{GPUSHIM_SYRK, 'U', 'N'},
                    TriangleCase{GPUSHIM_SYRK, 'L', 'T'}, TriangleCase{GPUSHIM_SYRK, 'U', 'T'},
                    TriangleCase{GPUSHIM_HERK, 'L', 'N'}, TriangleCase{GPUSHIM_HERK, 'U', 'N'},
                    TriangleCase{GPUSHIM_HERK, 'L', 'C'}, TriangleCase{GPUSHIM_HERK, 'U', 'C'},
                    TriangleCase{GPUSHIM_SYR2K, 'L', 'N'}, TriangleCase{GPUSHIM_SYR2K, 'U', 'N'},
                    TriangleCase{GPUSHIM_SYR2K, 'L', 'T'}, TriangleCase{GPUSHIM_SYR2K, 'U', 'T'},
                    TriangleCase{GPUSHIM_HER2K, 'L', 'N'}, TriangleCase{GPUSHIM_HER2K, 'U', 'N'},
                    TriangleCase{GPUSHIM_HER2K, 'L', 'C'}, TriangleCase{GPUSHIM_HER2K, 'U', 'C'}),
    triangle_case_name);

TEST(Blas3Panels, TrianglePanelsRunTowardsTheCorner) {
    Blas3Op herk = op_of(GPUSHIM_HERK, 0);  // n = 7
    herk.uplo = 'L';
    EXPECT_EQ(panel_range(herk, PanelAxis::triangle, 3, 0).first, 0);
    EXPECT_EQ(panel_range(herk, PanelAxis::triangle, 3, 2).count, 1);
    herk.uplo = 'U';
    EXPECT_EQ(panel_range(herk, PanelAxis::triangle, 3, 0).first, 4);
    EXPECT_EQ(panel_range(herk, PanelAxis::triangle, 3, 2).first, 0);
    EXPECT_EQ(panel_range(herk, PanelAxis::triangle, 3, 2).count, 1);
    EXPECT_EQ(panel_width(herk, PanelAxis::triangle, 7 * 8 * 2), 2);  // columns of n doubles
}

}  // namespace
}  // namespace gpushim::gpu
