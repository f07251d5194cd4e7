// What a LAPACK call on the device asks of the host, and what it leaves when it fails: its
// arrays come back through the chunk buffers, so a thread with no pinned memory but those
// computes a call whose arrays are larger than all it may pin; and a device step that fails
// at any point of the call, the copies back included, or factors LAPACK would reject, leave
// the caller's arrays as they were, for the CPU to compute the call from.
#include "gpu/lapack_executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu/queue_context.h"
#include "tests/unit/gpushim_environment.h"
#include "tests/unit/under_emulator.h"

namespace gpushim::gpu {
namespace {

constexpr std::size_t kDeviceBytes = std::size_t{1} << 30;

// POSV with uplo 'L' of order n (double), its A over one chunk buffer when n > 2048: the
// lower triangle of a symmetric matrix with a diagonal of 2n that dominates its rows
// (positive definite), the strict upper triangle NaN, two right-hand sides.
struct Posv {
    int64_t n, lda;
    std::vector<double> a, b;

    explicit Posv(int64_t order) : n(order), lda(order + 3) {
        std::mt19937_64 rng(static_cast<uint64_t>(order));
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        a.assign(static_cast<std::size_t>(lda * n), std::numeric_limits<double>::quiet_NaN());
        for (int64_t j = 0; j < n; ++j) {
            at(j, j) = 2.0 * static_cast<double>(n);
            for (int64_t i = j + 1; i < n; ++i) at(i, j) = u(rng);
        }
        b.resize(static_cast<std::size_t>(2 * n));
        for (double& x : b) x = u(rng);
    }
    double& at(int64_t i, int64_t j) { return a[static_cast<std::size_t>(i + j * lda)]; }
    double symmetric(int64_t i, int64_t j) const {
        return i >= j ? a[static_cast<std::size_t>(i + j * lda)]
                      : a[static_cast<std::size_t>(j + i * lda)];
    }

    LapackOp op() {
        LapackOp op{};
        op.kind = GPUSHIM_POSV;
        op.precision = GPUSHIM_PREC_D;
        op.uplo = 'L';
        op.n = n;
        op.nrhs = 2;
        op.a = a.data();
        op.lda = lda;
        op.b = b.data();
        op.ldb = n;
        return op;
    }

    // max |A x - b| / (n eps (max |A| max |x| + max |b|)), x the solution now in `solved`.
    double scaled_residual(const std::vector<double>& solved) const {
        double worst = 0, largest_x = 0;
        for (double x : solved) largest_x = std::max(largest_x, std::abs(x));
        for (int64_t r = 0; r < 2; ++r) {
            for (int64_t i = 0; i < n; ++i) {
                double sum = -b[static_cast<std::size_t>(i + r * n)];
                for (int64_t j = 0; j < n; ++j)
                    sum += symmetric(i, j) * solved[static_cast<std::size_t>(j + r * n)];
                worst = std::max(worst, std::abs(sum));
            }
        }
        const double scale = 2.0 * static_cast<double>(n) * largest_x + 1.0;
        return worst / (static_cast<double>(n) * std::numeric_limits<double>::epsilon() * scale);
    }
};

// GETRF of the n x n matrix in `a` (leading dimension lda), 32-bit pivots into `pivots`.
LapackOp getrf_op(std::vector<double>& a, int64_t n, int64_t lda, std::vector<int32_t>& pivots) {
    LapackOp op{};
    op.kind = GPUSHIM_GETRF;
    op.precision = GPUSHIM_PREC_D;
    op.m = op.n = n;
    op.a = a.data();
    op.lda = lda;
    op.host_pivots = pivots.data();
    op.pivot_bytes = sizeof(int32_t);
    return op;
}

// `count` values uniform in [-1, 1), the same for the same seed.
std::vector<double> uniform_values(int64_t count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double& x : values) x = u(rng);
    return values;
}

bool same_bytes(const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

TEST(LapackExecutorDeathTest, ArraysLargerThanThePinnedMemoryComeBackThroughTheChunkBuffers) {
    const std::string pinned = std::to_string(2 * QueueContext::kChunkBytes + (64 << 10));
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kDeviceBytes,
                    [] {
                        Posv call(2100);  // A: 35 MB
                        const Posv input = call;
                        Transfers transfers;
                        ASSERT_EQ(execute_lapack(call.op(), transfers), Outcome::completed);
                        EXPECT_LT(input.scaled_residual(call.b), 16.0);
                        for (int64_t j = 1; j < call.n; ++j)
                            EXPECT_TRUE(std::isnan(call.at(0, j))) << "column " << j;
                    },
                    {{"GPUSHIM_HOSTSIM_PINNED_MEMORY", pinned}}),
                testing::ExitedWithCode(0), "");
}

// GETRF's factors stay on the device for the solves that read them (GETRS, GETRI): the
// factors of a matrix factored for the first time are kept at once (a solver factors a
// new copy of the program's matrix at every call), and a factor the program changed is
// copied again.
TEST(LapackExecutorDeathTest, AFactorizationsFactorsStayOnTheDeviceForItsSolves) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kDeviceBytes,
                    [] {
                        constexpr int64_t n = 300, lda = n + 3, nrhs = 2;
                        constexpr uint64_t factor_bytes = n * n * sizeof(double);
                        const std::vector<double> matrix = uniform_values(lda * n, 7);
                        std::vector<double> b = uniform_values(n * nrhs, 8);
                        const std::vector<double> rhs = b;
                        std::vector<double> a = matrix;
                        std::vector<int32_t> pivots(static_cast<std::size_t>(n));

                        const LapackOp factor = getrf_op(a, n, lda, pivots);
                        Transfers transfers;
                        ASSERT_EQ(execute_lapack(factor, transfers), Outcome::completed);
                        EXPECT_EQ(transfers.bytes_reused, 0u);

                        LapackOp solve = factor;
                        solve.kind = GPUSHIM_GETRS;
                        solve.trans = 'N';
                        solve.nrhs = nrhs;
                        solve.b = b.data();
                        solve.ldb = n;
                        transfers = {};
                        ASSERT_EQ(execute_lapack(solve, transfers), Outcome::completed);
                        EXPECT_EQ(transfers.bytes_reused, factor_bytes);
                        // max |A x - b| / (n eps (max |A| max |x| n + max |b|)), A the matrix
                        // factored
                        double worst = 0, largest_x = 0;
                        for (double x : b) largest_x = std::max(largest_x, std::abs(x));
                        for (int64_t r = 0; r < nrhs; ++r) {
                            for (int64_t i = 0; i < n; ++i) {
                                double sum = -rhs[static_cast<std::size_t>(i + r * n)];
                                for (int64_t j = 0; j < n; ++j)
                                    sum += matrix[static_cast<std::size_t>(i + j * lda)] *
                                           b[static_cast<std::size_t>(j + r * n)];
                                worst = std::max(worst, std::abs(sum));
                            }
                        }
                        EXPECT_LT(worst / (n * std::numeric_limits<double>::epsilon() *
                                           (static_cast<double>(n) * largest_x + 1.0)),
                                  16.0);

                        a[5 + 7 * lda] += 1.0;  // the program changes the factors
                        transfers = {};
                        ASSERT_EQ(execute_lapack(solve, transfers), Outcome::completed);
                        EXPECT_EQ(transfers.bytes_reused, 0u);

                        a = matrix;  // a new factorization, then the inverse from its factors
                        transfers = {};
                        ASSERT_EQ(execute_lapack(factor, transfers), Outcome::completed);
                        EXPECT_EQ(transfers.bytes_reused, 0u);  // a matrix to factor: copied
                        EXPECT_GE(transfers.bytes_to_device, factor_bytes);
                        LapackOp invert = factor;
                        invert.kind = GPUSHIM_GETRI;
                        transfers = {};
                        ASSERT_EQ(execute_lapack(invert, transfers), Outcome::completed);
                        EXPECT_EQ(transfers.bytes_reused, factor_bytes);
                        double off_identity = 0;  // max |A A^-1 - I|
                        for (int64_t j = 0; j < n; ++j) {
                            for (int64_t i = 0; i < n; ++i) {
                                double sum = i == j ? -1.0 : 0.0;
                                for (int64_t l = 0; l < n; ++l)
                                    sum += matrix[static_cast<std::size_t>(i + l * lda)] *
                                           a[static_cast<std::size_t>(l + j * lda)];
                                off_identity = std::max(off_identity, std::abs(sum));
                            }
                        }
                        EXPECT_LT(off_identity, 1e-8);
                    }),
                testing::ExitedWithCode(0), "");
}

// GEQRF's factors stay on the device for the products with Q that read them (ORMQR, which
// the device only reads): Q^T A gives R, and Q R gives A back, without A copied again.
TEST(LapackExecutorDeathTest, QrFactorsStayOnTheDeviceForTheProductsWithQ) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            kDeviceBytes,
            [] {
                constexpr int64_t m = 320, n = 200, lda = m + 3, ldc = m + 1;
                constexpr uint64_t reflector_bytes = m * n * sizeof(double);
                const std::vector<double> matrix = uniform_values(lda * n, 11);
                std::vector<double> a = matrix;
                std::vector<double> tau(static_cast<std::size_t>(n));

                LapackOp factor{};
                factor.kind = GPUSHIM_GEQRF;
                factor.precision = GPUSHIM_PREC_D;
                factor.m = m;
                factor.n = n;
                factor.a = a.data();
                factor.lda = lda;
                factor.tau = tau.data();
                Transfers transfers;
                ASSERT_EQ(execute_lapack(factor, transfers), Outcome::completed);

                std::vector<double> c(static_cast<std::size_t>(ldc * n));
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < m; ++i)
                        c[static_cast<std::size_t>(i + j * ldc)] =
                            matrix[static_cast<std::size_t>(i + j * lda)];
                LapackOp product = factor;
                product.kind = GPUSHIM_ORMQR;
                product.side = 'L';
                product.trans = 'T';
                product.k = n;
                product.b = c.data();
                product.ldb = ldc;
                transfers = {};
                ASSERT_EQ(execute_lapack(product, transfers), Outcome::completed);
                EXPECT_EQ(transfers.bytes_reused, reflector_bytes);

                // Every column of A has norm at most sqrt(m); Q^T A and Q R round on that scale.
                const double bound =
                    16.0 * m * std::numeric_limits<double>::epsilon() * std::sqrt(double{m});
                double off_r = 0;  // max |Q^T A - R|
                for (int64_t j = 0; j < n; ++j) {
                    for (int64_t i = 0; i < m; ++i) {
                        const double r = i <= j ? a[static_cast<std::size_t>(i + j * lda)] : 0.0;
                        off_r =
                            std::max(off_r, std::abs(c[static_cast<std::size_t>(i + j * ldc)] - r));
                    }
                }
                EXPECT_LT(off_r, bound);

                product.trans = 'N';
                transfers = {};
                ASSERT_EQ(execute_lapack(product, transfers), Outcome::completed);
                EXPECT_EQ(transfers.bytes_reused, reflector_bytes);
                double off_a = 0;  // max |Q (Q^T A) - A|
                for (int64_t j = 0; j < n; ++j) {
                    for (int64_t i = 0; i < m; ++i) {
                        off_a = std::max(off_a,
                                         std::abs(c[static_cast<std::size_t>(i + j * ldc)] -
                                                  matrix[static_cast<std::size_t>(i + j * lda)]));
                    }
                }
                EXPECT_LT(off_a, 2 * bound);
            }),
        testing::ExitedWithCode(0), "");
}

// A device that leaves a NaN as the last pivot of a Cholesky factor with INFO = 0: the
// factor and the solution it gave, once delivered, are taken back, A and B are as they were,
// and the CPU computes the call (where LAPACK stops at that pivot with INFO = n).
TEST(LapackExecutorDeathTest, FactorsLapackRejectsArePutBack) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kDeviceBytes,
                    [] {
                        Posv call(3000);  // A in three chunks
                        const Posv input = call;
                        Transfers transfers;
                        EXPECT_EQ(execute_lapack(call.op(), transfers), Outcome::unavailable);
                        // A came back, and was written, before it was checked.
                        EXPECT_GE(transfers.bytes_to_host,
                                  static_cast<uint64_t>(call.n * call.n) * sizeof(double));
                        EXPECT_TRUE(same_bytes(call.a, input.a));
                        EXPECT_TRUE(same_bytes(call.b, input.b));
                    },
                    {{"GPUSHIM_HOSTSIM_NAN_PIVOT", "1"}}),
                testing::ExitedWithCode(0), "");
}

// A device library that leaves INFO unwritten when it fails (as CUDA 12.0's cuSOLVER potrf
// did): an exactly singular GETRF (LAPACK: INFO = k, which the caller must see), after a
// regular one in the same device memory (whose INFO that call set to 0), is never taken for a
// success; A is as it was.
TEST(LapackExecutorDeathTest, AnUnwrittenInfoIsNoSuccess) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kDeviceBytes,
                    [] {
                        constexpr int64_t n = 300;
                        const auto getrf = [](std::vector<double>& a,
                                              std::vector<int32_t>& pivots) {
                            Transfers transfers;
                            return execute_lapack(getrf_op(a, n, n, pivots), transfers);
                        };
                        std::mt19937_64 rng(3);
                        std::uniform_real_distribution<double> u(-1.0, 1.0);
                        std::vector<double> regular(n * n);
                        for (double& x : regular) x = u(rng);
                        std::vector<int32_t> pivots(n);
                        ASSERT_EQ(getrf(regular, pivots), Outcome::completed);
                        std::vector<double> singular(n * n);
                        for (double& x : singular) x = u(rng);
                        std::fill_n(singular.begin() + 150 * n, n, 0.0);  // column 151
                        const std::vector<double> input = singular;
                        EXPECT_EQ(getrf(singular, pivots), Outcome::unavailable);
                        EXPECT_TRUE(same_bytes(singular, input));
                    },
                    {{"GPUSHIM_HOSTSIM_UNWRITTEN_INFO", "1"}}),
                testing::ExitedWithCode(0), "");
}

// The n-th device operation of the call fails, for n = 1, 2, ... until the call completes
// with the solution: until then each call leaves A and B exactly as they were, also when the
// copy that fails is A's third chunk, after its first was written, or B's, after all of A.
TEST(LapackExecutorDeathTest, AFailedStepLeavesTheArraysAsTheyWere) {
    if (testing_support::kUnderEmulator)
        GTEST_SKIP() << "a 72 MB factorization a dozen times: minutes under the emulator";
    const int failed = testing_support::fail_each_step_in_turn(
        kDeviceBytes,
        [] {
            Posv call(3000);  // A: 72 MB, three chunks
            const Posv input = call;
            Transfers transfers;
            if (execute_lapack(call.op(), transfers) == Outcome::completed) {
                EXPECT_LT(input.scaled_residual(call.b), 16.0);
                std::exit(testing::Test::HasFailure() ? 1 : testing_support::kCallCompleted);
            }
            EXPECT_TRUE(same_bytes(call.a, input.a));
            EXPECT_TRUE(same_bytes(call.b, input.b));
        },
        {});
    // At least the uploads of A (three chunks), B and INFO's -1, the operation, INFO, A (three
    // chunks) and B back.
    EXPECT_GE(failed, 11);
}

}  // namespace
}  // namespace gpushim::gpu
