// A Level-3 call on a device without the room for panels of GPUSHIM_PANEL_BYTES: narrower
// panels, as long as A fits whole; else nothing is attempted and the caller's CPU path runs.
#include "gpu/blas3_executor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/gpushim_environment.h"

namespace gpushim::gpu {
namespace {

constexpr int64_t kOrder = 256;
constexpr std::size_t kMatrixBytes = kOrder * kOrder * sizeof(double);
constexpr std::size_t kKiB = 1024;

bool no_cpu(const Blas3Op&) {
    ADD_FAILURE() << "the CPU was asked to compute part of the call";
    return false;
}

// Small integers: every product and sum is exact, so the device's result must equal the
// naive loop's.
std::vector<double> integer_matrix(int seed) {
    std::vector<double> m(kOrder * kOrder);
    for (std::size_t i = 0; i < m.size(); ++i)
        m[i] = static_cast<double>(
            static_cast<int>((i * 7 + static_cast<std::size_t>(seed) * 13) % 5) - 2);
    return m;
}

struct Product {
    std::vector<double> a = integer_matrix(1), b = integer_matrix(2);
    std::vector<double> c = std::vector<double>(kOrder * kOrder, -1.0);
    Blas3Op op{};

    Product() {
        op.kind = GPUSHIM_GEMM;
        op.precision = GPUSHIM_PREC_D;
        op.transa = op.transb = 'N';
        op.m = op.n = op.k = kOrder;
        op.lda = op.ldb = op.ldc = kOrder;
        op.alpha[0] = 1.0;
        op.beta[0] = 0.0;
        op.a = a.data();
        op.b = b.data();
        op.c = c.data();
    }

    std::vector<double> expected() const {
        std::vector<double> want(kOrder * kOrder, 0.0);
        for (int64_t j = 0; j < kOrder; ++j)
            for (int64_t l = 0; l < kOrder; ++l)
                for (int64_t i = 0; i < kOrder; ++i)
                    want[i + j * kOrder] += a[i + l * kOrder] * b[l + j * kOrder];
        return want;
    }
};

// Room for A and two panels of 32 columns of B and of C, not for two of 64: the call runs
// on the device in eight panels (A, B and C are 512 KiB each).
TEST(Blas3ExecutorDeathTest, PanelsNarrowUntilTheCallFitsTheDevice) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kMatrixBytes + kMatrixBytes / 2 + 32 * kKiB,
                    [] {
                        Product product;
                        Transfers transfers;
                        EXPECT_EQ(execute_blas3(product.op, no_cpu, transfers), Outcome::completed);
                        EXPECT_EQ(product.c, product.expected());
                        EXPECT_EQ(transfers.bytes_to_device, 2 * kMatrixBytes);  // A and B
                        EXPECT_EQ(transfers.bytes_to_host, kMatrixBytes);
                    }),
                testing::ExitedWithCode(0), "");
}

// No room for A: not attempted, C untouched.
TEST(Blas3ExecutorDeathTest, ACallWhoseAOutgrowsTheDeviceIsLeftToTheCpu) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kMatrixBytes / 2,
                    [] {
                        Product product;
                        Transfers transfers;
                        EXPECT_EQ(execute_blas3(product.op, no_cpu, transfers),
                                  Outcome::unavailable);
                        EXPECT_EQ(product.c, std::vector<double>(kOrder * kOrder, -1.0));
                        EXPECT_EQ(transfers.bytes_to_device, 0u);
                    }),
                testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gpushim::gpu
