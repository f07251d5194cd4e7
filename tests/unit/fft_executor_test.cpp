// The device arrays of an FFT execution: a complex transform runs in place on the device, in
// one array of its data; a real one needs one for its input and one for its output; a plan
// holds none between its executions.
#include "gpu/fft_executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "gpu/device_memory_pool.h"
#include "gpu/staging.h"
#include "shim/fftw_descriptions.h"
#include "tests/unit/gpushim_environment.h"

namespace gpushim::gpu {
namespace {

constexpr int64_t kPoints = int64_t{1} << 16;

// Room for one complex array of kPoints, and half another.
std::size_t one_and_a_half_arrays() {
    const std::size_t array =
        DeviceMemoryPool::rounded_size(static_cast<std::size_t>(kPoints) * 16);
    return array + array / 2;
}

TEST(FftExecutorDeathTest, AComplexTransformRunsInPlaceInOneDeviceArray) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            one_and_a_half_arrays(),
            [] {
                // A wave of frequency 3: its forward transform is kPoints at 3, zero elsewhere.
                std::vector<std::complex<double>> in(kPoints), out(kPoints);
                for (int64_t j = 0; j < kPoints; ++j)
                    in[j] = std::polar(1.0, 2 * std::numbers::pi * 3 * static_cast<double>(j) /
                                                static_cast<double>(kPoints));
                const std::vector<std::complex<double>> input = in;
                const FftProblem problem =
                    shim::describe_sizes(FftKind::c2c, {kPoints}, in.data(), out.data(), -1)
                        .problem;
                std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
                ASSERT_NE(state, nullptr);
                Transfers transfers;
                ASSERT_EQ(execute_fft(FftOp{&problem, in.data(), out.data()}, *state, transfers),
                          Outcome::completed);
                const double bound = 16 * std::log2(static_cast<double>(kPoints)) *
                                     std::numeric_limits<double>::epsilon() *
                                     static_cast<double>(kPoints);
                for (int64_t k = 0; k < kPoints; ++k) {
                    const double want = k == 3 ? static_cast<double>(kPoints) : 0.0;
                    ASSERT_LE(std::abs(out[k] - want), bound) << "k = " << k;
                }
                EXPECT_EQ(in, input);  // out of place on the host: the input stays
                EXPECT_EQ(transfers.bytes_to_device, static_cast<uint64_t>(kPoints) * 16);
                EXPECT_EQ(transfers.bytes_to_host, static_cast<uint64_t>(kPoints) * 16);
            }),
        testing::ExitedWithCode(0), "");
}

// Device memory for one execution at a time: plans alive together take turns in it.
TEST(FftExecutorDeathTest, APlanHoldsNoDeviceArrayBetweenItsExecutions) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            one_and_a_half_arrays(),
            [] {
                std::vector<std::complex<double>> in(kPoints, 1.0), out(kPoints);
                const FftProblem forward =
                    shim::describe_sizes(FftKind::c2c, {kPoints}, in.data(), out.data(), -1)
                        .problem;
                const FftProblem backward =
                    shim::describe_sizes(FftKind::c2c, {kPoints}, in.data(), out.data(), 1).problem;
                std::unique_ptr<FftDeviceState> first = plan_fft_on_device(forward);
                std::unique_ptr<FftDeviceState> second = plan_fft_on_device(backward);
                ASSERT_NE(first, nullptr);
                ASSERT_NE(second, nullptr);
                Transfers transfers;
                for (int round = 0; round < 2; ++round) {
                    EXPECT_EQ(
                        execute_fft(FftOp{&forward, in.data(), out.data()}, *first, transfers),
                        Outcome::completed);
                    EXPECT_EQ(out[0], std::complex<double>(kPoints));  // the sum of the ones
                    EXPECT_EQ(
                        execute_fft(FftOp{&backward, in.data(), out.data()}, *second, transfers),
                        Outcome::completed);
                    EXPECT_EQ(out[0], std::complex<double>(kPoints));
                }
            }),
        testing::ExitedWithCode(0), "");
}

TEST(FftExecutorDeathTest, ARealTransformNeedsItsInputAndOutputOnTheDevice) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            one_and_a_half_arrays(),
            [] {
                // 2 kPoints reals in, kPoints + 1 complex numbers out: each
                // about one complex array of kPoints.
                std::vector<double> in(2 * kPoints, 1.0);
                std::vector<std::complex<double>> out(kPoints + 1);
                const FftProblem problem =
                    shim::describe_sizes(FftKind::r2c, {2 * kPoints}, in.data(), out.data(), -1)
                        .problem;
                std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
                ASSERT_NE(state, nullptr);
                Transfers transfers;
                EXPECT_EQ(execute_fft(FftOp{&problem, in.data(), out.data()}, *state, transfers),
                          Outcome::unavailable);
                EXPECT_EQ(transfers.bytes_to_device, 0u);
            }),
        testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gpushim::gpu
