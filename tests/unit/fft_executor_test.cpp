// The device arrays of an FFT execution: a complex transform runs in place on the device, in
// one array of its data; a real one needs one for its input and one for its output; a plan
// holds none between its executions; a batch larger than GPUSHIM_PANEL_BYTES runs in
// sub-batches, in two device slots or, where only one fits, in one.
#include "gpu/fft_executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "gpu/backend.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"
#include "gpu/retired_fft_plans.h"
#include "gpu/staging.h"
#include "shim/fftw_descriptions.h"
#include "tests/unit/gpushim_environment.h"

namespace gpushim::gpu {
namespace {

constexpr int64_t kPoints = int64_t{1} << 16;

// The largest error allowed in a spectral value of a transform of `points` inputs of
// magnitude at most one.
double error_bound(int64_t points) {
    const auto n = static_cast<double>(points);
    return 16 * std::log2(n) * std::numeric_limits<double>::epsilon() * n;
}

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
                const double bound = error_bound(kPoints);
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

// ---- batches in sub-batches ------------------------------------------------------------

constexpr int64_t kBatchPoints = 4096;  // 64 KiB of complex doubles: the pool's small granule
constexpr int64_t kTransforms = 7;      // sub-batches of two: 2 + 2 + 2 + 1
constexpr std::size_t kTransformBytes = kBatchPoints * sizeof(std::complex<double>);
const testing_support::Settings kSubBatchesOfTwo{
    {"GPUSHIM_PANEL_BYTES", std::to_string(2 * kTransformBytes)}};
// No pinned memory but the chunk buffers of the calling thread's context: no result buffer.
const testing_support::Settings kSubBatchesOfTwoAndNoResultBuffers{
    {"GPUSHIM_PANEL_BYTES", std::to_string(2 * kTransformBytes)},
    {"GPUSHIM_HOSTSIM_PINNED_MEMORY", std::to_string(2 * QueueContext::kChunkBytes)}};

// The bytes the device memory pool keeps after an execution: the execution's block.
std::size_t pool_block() {
    return device_pool(*backend()).cached_bytes();
}

// A batch of kTransforms complex transforms of kBatchPoints: transform t at element
// t * distance, its points `stride` apart.
FftProblem complex_batch(int64_t stride, int64_t distance) {
    FftProblem problem;
    problem.kind = FftKind::c2c;
    problem.sign = -1;
    problem.described = true;
    problem.dims = {{kBatchPoints, stride, stride}};
    problem.howmany = {{kTransforms, distance, distance}};
    return problem;
}

// Transform t is a wave of frequency t + 1: its forward transform is kBatchPoints there, zero
// elsewhere.
std::vector<std::complex<double>> waves(int64_t stride, int64_t distance) {
    std::vector<std::complex<double>> data(kBatchPoints * kTransforms);
    for (int64_t t = 0; t < kTransforms; ++t) {
        for (int64_t j = 0; j < kBatchPoints; ++j)
            data[t * distance + j * stride] =
                std::polar(1.0, 2 * std::numbers::pi * static_cast<double>((t + 1) * j) /
                                    static_cast<double>(kBatchPoints));
    }
    return data;
}

void expect_wave_spectra(const std::vector<std::complex<double>>& out, int64_t stride,
                         int64_t distance) {
    const double bound = error_bound(kBatchPoints);
    for (int64_t t = 0; t < kTransforms; ++t) {
        for (int64_t k = 0; k < kBatchPoints; ++k) {
            const double want = k == t + 1 ? static_cast<double>(kBatchPoints) : 0.0;
            ASSERT_LE(std::abs(out[t * distance + k * stride] - want), bound)
                << "transform " << t << ", k = " << k;
        }
    }
}

// Executes the packed batch out of place; the outcome, with the result checked when the
// device completed it and each byte counted once each way.
Outcome transform_packed_waves() {
    std::vector<std::complex<double>> in = waves(1, kBatchPoints);
    std::vector<std::complex<double>> out(in.size());
    const FftProblem problem = complex_batch(1, kBatchPoints);
    std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
    EXPECT_NE(state, nullptr);
    if (state == nullptr) return Outcome::unavailable;
    Transfers transfers;
    const Outcome outcome = execute_fft(FftOp{&problem, in.data(), out.data()}, *state, transfers);
    if (outcome == Outcome::completed) {
        expect_wave_spectra(out, 1, kBatchPoints);
        EXPECT_EQ(transfers.bytes_to_device, kTransforms * kTransformBytes);
        EXPECT_EQ(transfers.bytes_to_host, kTransforms * kTransformBytes);
    }
    return outcome;
}

// Room for two sub-batches of two transforms, not for the seven at once.
constexpr std::size_t kRoomForTwoSubBatches = 5 * kTransformBytes;

TEST(FftExecutorDeathTest, ABatchTheDeviceCannotHoldRunsInSubBatches) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kRoomForTwoSubBatches,
                    [] {
                        EXPECT_EQ(transform_packed_waves(), Outcome::completed);
                        EXPECT_EQ(pool_block(), 4 * kTransformBytes);  // two slots
                    },
                    kSubBatchesOfTwo),
                testing::ExitedWithCode(0), "");
    // Whole (GPUSHIM_PANEL_BYTES's default, 64 MiB, holds the batch), it does not fit.
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kRoomForTwoSubBatches,
                    [] { EXPECT_EQ(transform_packed_waves(), Outcome::unavailable); }),
                testing::ExitedWithCode(0), "");
}

TEST(FftExecutorDeathTest, WhereOneSubBatchFitsTheyTakeTurnsInIt) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    3 * kTransformBytes,
                    [] {
                        for (int execution = 0; execution < 2; ++execution) {
                            EXPECT_EQ(transform_packed_waves(), Outcome::completed);
                            EXPECT_EQ(pool_block(), 2 * kTransformBytes);  // one slot
                        }
                    },
                    kSubBatchesOfTwo),
                testing::ExitedWithCode(0), "");
}

// Where the result buffers cannot be pinned, the sub-batches come back through the chunk
// buffers.
TEST(FftExecutorDeathTest, WithoutResultBuffersSubBatchesComeBackThroughTheChunks) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            kRoomForTwoSubBatches, [] { EXPECT_EQ(transform_packed_waves(), Outcome::completed); },
            kSubBatchesOfTwoAndNoResultBuffers),
        testing::ExitedWithCode(0), "");
}

TEST(FftExecutorDeathTest, ASplitPlanRetiresBothItsDevicePlans) {
    EXPECT_EXIT(testing_support::on_host_simulated_device(
                    kRoomForTwoSubBatches,
                    [] {
                        const FftProblem problem = complex_batch(1, kBatchPoints);
                        std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
                        ASSERT_NE(state, nullptr);
                        RetiredFftPlans& retired = retired_fft_plans(*backend());
                        EXPECT_EQ(retired.size(), 0u);
                        state.reset();
                        EXPECT_EQ(retired.size(), 2u);  // the sub-batch's and the tail's
                        state = plan_fft_on_device(problem);
                        EXPECT_EQ(retired.size(), 0u);  // both taken over
                    },
                    kSubBatchesOfTwo),
                testing::ExitedWithCode(0), "");
}

// In place: the transforms interleaved (point j of transform t at j * kTransforms + t) on
// both sides, each sub-batch's points spread over the whole array; or read interleaved and
// written packed (point k of transform t at t * kBatchPoints + k), each sub-batch's output
// over the input of later ones, which must transform what the array held before (the uploads
// read a copy of it). When the n-th device operation fails, for n = 1, 2, ... until the
// execution completes, the array is put back as it was, for FFTW to transform, also after
// sub-batches were written. The sub-batches come back through their slots' pinned result
// buffers, or, where those cannot be pinned, through the chunk buffers.
TEST(FftExecutorDeathTest, ABatchInPlaceIsReadFromACopyAndPutBackWhenAStepFails) {
    for (const bool packed_output : {false, true}) {
        const auto transform_in_place = [packed_output] {
            std::vector<std::complex<double>> data = waves(kTransforms, 1);
            const std::vector<std::complex<double>> input = data;
            FftProblem problem = complex_batch(kTransforms, 1);
            if (packed_output) {
                problem.dims[0].os = 1;
                problem.howmany[0].os = kBatchPoints;
            }
            std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
            if (state == nullptr) return;  // planning failed: FFTW alone transforms the array
            Transfers transfers;
            const Outcome outcome =
                execute_fft(FftOp{&problem, data.data(), data.data()}, *state, transfers);
            if (outcome == Outcome::completed) {
                if (packed_output) {
                    expect_wave_spectra(data, 1, kBatchPoints);
                } else {
                    expect_wave_spectra(data, kTransforms, 1);
                }
                std::exit(testing::Test::HasFailure() ? 1 : testing_support::kCallCompleted);
            }
            EXPECT_EQ(data, input);  // failed, or no room on the device
        };
        for (const testing_support::Settings& settings :
             {kSubBatchesOfTwo, kSubBatchesOfTwoAndNoResultBuffers}) {
            // At least an upload, a transform and a download for each of the four sub-batches.
            EXPECT_GE(testing_support::fail_each_step_in_turn(kRoomForTwoSubBatches,
                                                              transform_in_place, settings),
                      12)
                << (packed_output ? "packed output" : "interleaved output");
        }
    }
}

// Real transforms interleaved, out of place: two arrays per slot, each side's own layout.
TEST(FftExecutorDeathTest, RealTransformsRunInSubBatchesInTheirOwnLayouts) {
    EXPECT_EXIT(
        testing_support::on_host_simulated_device(
            std::size_t{16} << 20,
            [] {
                constexpr int64_t n = 2 * kBatchPoints;  // reals per transform
                constexpr int64_t half = n / 2 + 1;
                // Transform t: cos(2 pi (t + 1) j / n), whose half spectrum is n / 2 at t + 1.
                std::vector<double> in(n * kTransforms);
                for (int64_t t = 0; t < kTransforms; ++t)
                    for (int64_t j = 0; j < n; ++j)
                        in[j * kTransforms + t] =
                            std::cos(2 * std::numbers::pi * static_cast<double>((t + 1) * j) /
                                     static_cast<double>(n));
                std::vector<std::complex<double>> out(half * kTransforms);
                FftProblem problem;
                problem.kind = FftKind::r2c;
                problem.described = true;
                problem.dims = {{n, kTransforms, kTransforms}};
                problem.howmany = {{kTransforms, 1, 1}};
                std::unique_ptr<FftDeviceState> state = plan_fft_on_device(problem);
                ASSERT_NE(state, nullptr);
                Transfers transfers;
                ASSERT_EQ(execute_fft(FftOp{&problem, in.data(), out.data()}, *state, transfers),
                          Outcome::completed);
                const double bound = error_bound(n);
                for (int64_t t = 0; t < kTransforms; ++t) {
                    for (int64_t k = 0; k < half; ++k) {
                        const double want = k == t + 1 ? static_cast<double>(n) / 2 : 0.0;
                        ASSERT_LE(std::abs(out[k * kTransforms + t] - want), bound)
                            << "transform " << t << ", k = " << k;
                    }
                }
                EXPECT_EQ(transfers.bytes_to_device, in.size() * sizeof(double));
                EXPECT_EQ(transfers.bytes_to_host, out.size() * sizeof(std::complex<double>));
            },
            // The half spectrum's 4097 complex numbers are the larger side: two per sub-batch.
            {{"GPUSHIM_PANEL_BYTES", std::to_string(2 * (kBatchPoints + 1) * 16)}}),
        testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gpushim::gpu
