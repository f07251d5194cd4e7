// A Level-3 call on a device without the room for panels of GPUSHIM_PANEL_BYTES: narrower
// panels, as long as A fits whole; else nothing is attempted and the caller's CPU path runs.
#include "gpu/blas3_executor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu/backend.h"
#include "gpu/residency_cache.h"
#include "tests/unit/gpushim_environment.h"

namespace gpushim::gpu {
namespace {

constexpr int64_t kOrder = 256;
constexpr std::size_t kMatrixBytes = kOrder * kOrder * sizeof(double);
constexpr std::size_t kKiB = 1024;
// Room for A and two panels of 32 columns of B and of C, not for two of 64 (A, B and C are
// 512 KiB each).
constexpr std::size_t kRoomForPanelsOf32 = kMatrixBytes + kMatrixBytes / 2 + 32 * kKiB;

bool no_cpu(const Blas3Op&) {
    ADD_FAILURE() << "the CPU was asked to compute part of the call";
    return false;
}

// C = alpha A op(B) + beta C of a real double GEMM with A untransposed (C not read when
// beta is 0): what is left of a call after a device failure.
bool naive_gemm(const Blas3Op& op) {
    const auto* a = static_cast<const double*>(op.a);
    const auto* b = static_cast<const double*>(op.b);
    auto* c = static_cast<double*>(op.c);
    const auto b_at = [&](int64_t l, int64_t j) {
        return op.transb == 'N' ? b[l + j * op.ldb] : b[j + l * op.ldb];
    };
    for (int64_t j = 0; j < op.n; ++j) {
        for (int64_t i = 0; i < op.m; ++i) {
            double sum = 0.0;
            for (int64_t l = 0; l < op.k; ++l) sum += a[i + l * op.lda] * b_at(l, j);
            double& out = c[i + j * op.ldc];
            out = op.alpha[0] * sum + (op.beta[0] == 0.0 ? 0.0 : op.beta[0] * out);
        }
    }
    return true;
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
        std::vector<double> want(kOrder * kOrder);
        Blas3Op into_want = op;
        into_want.c = want.data();
        naive_gemm(into_want);
        return want;
    }
    bool c_untouched() const { return c == std::vector<double>(kOrder * kOrder, -1.0); }
};

// On kRoomForPanelsOf32 the call runs on the device in eight panels.
TEST(Blas3ExecutorDeathTest, PanelsNarrowUntilTheCallFitsTheDevice) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kRoomForPanelsOf32,
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

// A device failure in the narrowed panels: what was not delivered is computed on the CPU
// (the rest of the call, at the narrowed width), or, if nothing was, none of C is written.
TEST(Blas3ExecutorDeathTest, AFailureAmongNarrowedPanelsLeavesTheRestToTheCpu) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kRoomForPanelsOf32,
                    [] {
                        int recovered = 0;
                        for (int call = 0; call < 12; ++call) {
                            Product product;
                            Transfers transfers;
                            const Outcome outcome =
                                execute_blas3(product.op, naive_gemm, transfers);
                            if (outcome == Outcome::failed) {
                                EXPECT_TRUE(product.c_untouched());
                                continue;
                            }
                            recovered += outcome == Outcome::recovered ? 1 : 0;
                            EXPECT_EQ(product.c, product.expected()) << "call " << call;
                        }
                        EXPECT_GT(recovered, 0);
                    },
                    {{"GPUSHIM_HOSTSIM_FAIL_EVERY", "13"}}),
                testing::ExitedWithCode(0), "");
}

// The narrowed attempts do not ask the residency cache again: a call seen once leaves no
// copy of A behind (an operand is kept from its second sighting). Room for A and panels of
// 64 columns: the second attempt runs the call.
TEST(Blas3ExecutorDeathTest, NarrowedPanelsAskTheResidencyCacheOnce) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    2 * kMatrixBytes + 32 * kKiB,
                    [] {
                        Product product;
                        Transfers transfers;
                        EXPECT_EQ(execute_blas3(product.op, no_cpu, transfers), Outcome::completed);
                        EXPECT_EQ(product.c, product.expected());
                        const ResidencyCache* cache = residency_cache(*backend());
                        ASSERT_NE(cache, nullptr);
                        EXPECT_EQ(cache->entry_count(), 0u);
                    },
                    {{"GPUSHIM_CACHE_BYTES", "1048576"}}),
                testing::ExitedWithCode(0), "");
}

// C += A B, again and again on the same arrays (as a code accumulating into C does): from
// the second call, C is kept on the device with the prints of what was delivered, so the
// third call copies none of A, B and C; a C the program changed is copied again.
TEST(Blas3ExecutorDeathTest, AResultKeptOnTheDeviceIsNotCopiedUpAgain) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    16 * kMatrixBytes,
                    [] {
                        Product product;
                        product.op.beta[0] = 1.0;
                        std::vector<double> want = product.c;
                        const auto call = [&](uint64_t copied, uint64_t reused) {
                            Blas3Op on_want = product.op;
                            on_want.c = want.data();
                            naive_gemm(on_want);
                            Transfers transfers;
                            EXPECT_EQ(execute_blas3(product.op, no_cpu, transfers),
                                      Outcome::completed);
                            EXPECT_EQ(product.c, want);
                            EXPECT_EQ(transfers.bytes_to_device, copied);
                            EXPECT_EQ(transfers.bytes_reused, reused);
                        };
                        call(3 * kMatrixBytes, 0);  // each operand seen once
                        call(3 * kMatrixBytes, 0);  // seen again: kept
                        call(0, 3 * kMatrixBytes);
                        product.c[kOrder * kOrder - 1] += 1.0;
                        want[kOrder * kOrder - 1] += 1.0;
                        call(kMatrixBytes, 2 * kMatrixBytes);
                        call(0, 3 * kMatrixBytes);
                    },
                    {{"GPUSHIM_CACHE_BYTES", std::to_string(4 * kMatrixBytes)}}),
                testing::ExitedWithCode(0), "");
}

// C = A B into the same C again and again, which no call reads: A and B are kept, C is not
// (its prints would cost a pass over it at every call for nothing).
TEST(Blas3ExecutorDeathTest, AResultNoCallReadsIsNotKept) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    16 * kMatrixBytes,
                    [] {
                        Product product;
                        for (int call = 0; call < 3; ++call) {
                            Transfers transfers;
                            EXPECT_EQ(execute_blas3(product.op, no_cpu, transfers),
                                      Outcome::completed);
                            EXPECT_EQ(product.c, product.expected());
                            EXPECT_EQ(transfers.bytes_to_device, call < 2 ? 2 * kMatrixBytes : 0);
                        }
                        const ResidencyCache* cache = residency_cache(*backend());
                        ASSERT_NE(cache, nullptr);
                        EXPECT_EQ(cache->entry_count(), 2u);
                    },
                    {{"GPUSHIM_CACHE_BYTES", std::to_string(4 * kMatrixBytes)}}),
                testing::ExitedWithCode(0), "");
}

// The same accumulation in panels of 32 columns with device operations failing. After a
// call the device did not finish (the CPU computed all of it, or the panels not delivered),
// the program puts back the C it had before the call: the caller's bytes are then those of
// the last result kept on the device, whose copy there the failed call may have changed
// half-way; it must not be taken for them.
TEST(Blas3ExecutorDeathTest, AResultKeptOnTheDeviceIsForgottenWhenACallFails) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    16 * kMatrixBytes,
                    [] {
                        Product product;
                        product.op.beta[0] = 1.0;
                        std::vector<double> want = product.c;
                        int completed = 0, recovered = 0, failed = 0;
                        for (int call = 0; call < 24; ++call) {
                            const std::vector<double> before = product.c;
                            Blas3Op on_want = product.op;
                            on_want.c = want.data();
                            naive_gemm(on_want);
                            Transfers transfers;
                            const Outcome outcome =
                                execute_blas3(product.op, naive_gemm, transfers);
                            ASSERT_TRUE(outcome == Outcome::failed ? product.c == before
                                                                   : product.c == want)
                                << "call " << call;
                            if (outcome == Outcome::completed) {
                                ++completed;
                                continue;
                            }
                            ++(outcome == Outcome::recovered ? recovered : failed);
                            product.c = before;
                            want = before;
                        }
                        EXPECT_GT(completed, 0);
                        EXPECT_GT(recovered, 0);
                        EXPECT_GT(failed, 0);
                    },
                    {{"GPUSHIM_HOSTSIM_FAIL_EVERY", "37"},
                     {"GPUSHIM_PANEL_BYTES", std::to_string(32 * kOrder * sizeof(double))}}),
                testing::ExitedWithCode(0), "");
}

// Small integers in an array of leading dimension ld: products and sums stay exact.
std::vector<double> integer_array(int64_t ld, int64_t cols, int seed) {
    std::vector<double> m(static_cast<std::size_t>(ld * cols));
    for (std::size_t i = 0; i < m.size(); ++i)
        m[i] =
            static_cast<double>(static_cast<int>((i * 5 + static_cast<std::size_t>(seed)) % 7) - 3);
    return m;
}

// A GEMM C = A op(B) of the given shape, its arrays' leading dimensions padded.
Blas3Op gemm_op(int64_t m, int64_t n, int64_t k, char transb, const std::vector<double>& a,
                int64_t lda, const std::vector<double>& b, int64_t ldb, std::vector<double>& c,
                int64_t ldc) {
    Blas3Op op{};
    op.kind = GPUSHIM_GEMM;
    op.precision = GPUSHIM_PREC_D;
    op.transa = 'N';
    op.transb = transb;
    op.m = m;
    op.n = n;
    op.k = k;
    op.alpha[0] = 1.0;
    op.a = a.data();
    op.lda = lda;
    op.b = b.data();
    op.ldb = ldb;
    op.c = c.data();
    op.ldc = ldc;
    return op;
}

// P = X Y (200 x 170), then Q = Z P^T in panels of 32 columns (P, read transposed, is the
// device's B; every leading dimension padded): once Q's call has sighted P, P's next result
// is kept on the device, and Q's calls read it whole, each panel its rows of it, instead of
// copying it in panels.
TEST(Blas3ExecutorDeathTest, AResultReadAsBInPanelsIsReadWholeFromTheDevice) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            16 * kMatrixBytes,
            [] {
                constexpr int64_t m = 200, k = 150, n = 170, rows = 120;
                const std::vector<double> x = integer_array(m + 3, k, 1);
                const std::vector<double> y = integer_array(k + 1, n, 2);
                const std::vector<double> z = integer_array(rows + 2, n, 3);
                std::vector<double> p(static_cast<std::size_t>((m + 5) * n), -1.0);
                std::vector<double> q(static_cast<std::size_t>((rows + 4) * m), -1.0);
                const Blas3Op first = gemm_op(m, n, k, 'N', x, m + 3, y, k + 1, p, m + 5);
                const Blas3Op second = gemm_op(rows, m, n, 'T', z, rows + 2, p, m + 5, q, rows + 4);
                const auto expected = [](Blas3Op op) {
                    std::vector<double> want(static_cast<const double*>(op.c),
                                             static_cast<const double*>(op.c) + op.ldc * op.n);
                    op.c = want.data();
                    naive_gemm(op);
                    return want;
                };
                const uint64_t z_bytes = rows * n * sizeof(double);
                const uint64_t p_bytes = m * n * sizeof(double);
                for (int round = 0; round < 3; ++round) {
                    Transfers transfers;
                    const std::vector<double> want_p = expected(first);
                    EXPECT_EQ(execute_blas3(first, no_cpu, transfers), Outcome::completed);
                    EXPECT_EQ(p, want_p);
                    transfers = {};
                    const std::vector<double> want_q = expected(second);
                    EXPECT_EQ(execute_blas3(second, no_cpu, transfers), Outcome::completed);
                    EXPECT_EQ(q, want_q) << "round " << round;
                    const uint64_t copied[3] = {z_bytes + p_bytes, z_bytes, 0};
                    const uint64_t reused[3] = {0, p_bytes, z_bytes + p_bytes};
                    EXPECT_EQ(transfers.bytes_to_device, copied[round]) << "round " << round;
                    EXPECT_EQ(transfers.bytes_reused, reused[round]) << "round " << round;
                }
            },
            {{"GPUSHIM_CACHE_BYTES", std::to_string(8 * kMatrixBytes)},
             {"GPUSHIM_PANEL_BYTES", std::to_string(32 * 120 * sizeof(double))}}),
        testing::ExitedWithCode(0), "");
}

// B = A B with A upper triangular, on the left, again and again on the same arrays, in
// panels of 32 columns: the output is B, kept from the second call in one device array
// whose panels the calls compute in place; the third call copies neither A nor B.
TEST(Blas3ExecutorDeathTest, ATriangularProductsResultIsKeptInPlaceOfItsB) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    16 * kMatrixBytes,
                    [] {
                        Product product;
                        Blas3Op& op = product.op;
                        op.kind = GPUSHIM_TRMM;
                        op.side = 'L';
                        op.uplo = 'U';
                        op.diag = 'N';
                        op.c = nullptr;
                        op.ldc = 0;
                        std::vector<double>& b = product.b;
                        std::vector<double> want = b;
                        for (int call = 0; call < 3; ++call) {
                            // A's upper triangle times B, column by column, top row first (each
                            // entry needs the rows below it only).
                            for (int64_t j = 0; j < kOrder; ++j) {
                                for (int64_t i = 0; i < kOrder; ++i) {
                                    double sum = 0.0;
                                    for (int64_t l = i; l < kOrder; ++l)
                                        sum += product.a[static_cast<std::size_t>(i + l * kOrder)] *
                                               want[static_cast<std::size_t>(l + j * kOrder)];
                                    want[static_cast<std::size_t>(i + j * kOrder)] = sum;
                                }
                            }
                            Transfers transfers;
                            EXPECT_EQ(execute_blas3(op, no_cpu, transfers), Outcome::completed);
                            EXPECT_EQ(b, want) << "call " << call;
                            EXPECT_EQ(transfers.bytes_to_device, call < 2 ? 2 * kMatrixBytes : 0);
                            EXPECT_EQ(transfers.bytes_reused, call < 2 ? 0 : 2 * kMatrixBytes);
                        }
                    },
                    {{"GPUSHIM_CACHE_BYTES", std::to_string(4 * kMatrixBytes)},
                     {"GPUSHIM_PANEL_BYTES", std::to_string(32 * kOrder * sizeof(double))}}),
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
                        EXPECT_TRUE(product.c_untouched());
                        EXPECT_EQ(transfers.bytes_to_device, 0u);
                    }),
                testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gpushim::gpu
