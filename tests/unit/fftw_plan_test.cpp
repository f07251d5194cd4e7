// The FFTW planners' translation into canonical problems (FFTW's implicit layouts), the
// device's share of them, and the planning rules of shim plans.
#include "shim/fftw_plan.h"

#include <gtest/gtest.h>

#include <vector>

#include "dispatch/fft_call.h"
#include "gpu/backend.h"
#include "gpu/retired_fft_plans.h"
#include "shim/fftw_descriptions.h"
#include "shim/fftw_skipped_searches.h"
#include "tests/unit/gpushim_environment.h"

namespace gpushim::shim {
namespace {

using Dims = std::vector<FftDimension>;

// Distinct array addresses: the planners compare them (in place or not), never read them.
double input_array[1];
double output_array[1];
void* const in = input_array;
void* const out = output_array;

TEST(FftwDescriptions, BasicComplexIsRowMajorAndContiguous) {
    const PlannedTransform t = describe_sizes(FftKind::c2c, {4, 6, 10}, in, out, 1);
    EXPECT_TRUE(t.problem.described);
    EXPECT_EQ(t.problem.dims, (Dims{{4, 60, 60}, {6, 10, 10}, {10, 1, 1}}));
    EXPECT_EQ(t.problem.howmany, (Dims{{1, 1, 1}}));
    EXPECT_EQ(t.problem.sign, 1);
    EXPECT_EQ(t.in, in);
    EXPECT_EQ(t.out, out);
}

TEST(FftwDescriptions, RealTransformsUseTheHalfSpectrumAndFftwsInPlacePadding) {
    // Out of place: n reals in, n/2 + 1 complex out along the last dimension.
    EXPECT_EQ(describe_sizes(FftKind::r2c, {4, 6}, in, out, -1).problem.dims,
              (Dims{{4, 6, 4}, {6, 1, 1}}));
    // In place: each real row is padded to 2 (n/2 + 1) numbers.
    EXPECT_EQ(describe_sizes(FftKind::r2c, {4, 6}, in, in, -1).problem.dims,
              (Dims{{4, 8, 4}, {6, 1, 1}}));
    EXPECT_EQ(describe_sizes(FftKind::c2r, {5, 7}, in, out, 1).problem.dims,
              (Dims{{5, 4, 7}, {7, 1, 1}}));
    EXPECT_EQ(describe_sizes(FftKind::c2r, {5, 7}, in, in, 1).problem.dims,
              (Dims{{5, 4, 8}, {7, 1, 1}}));
}

TEST(FftwDescriptions, AdvancedLayoutsTakeEmbedsStridesAndDistances) {
    // Three interleaved transforms of 8 points: element stride 3, transform distance 1.
    const int n[] = {8};
    EXPECT_EQ(describe_many(FftKind::c2c, 1, n, 3, in, nullptr, 3, 1, out, nullptr, 1, 8, -1)
                  .problem.howmany,
              (Dims{{3, 1, 8}}));
    const int sizes[] = {4, 5};
    const int inembed[] = {100, 9};
    const int onembed[] = {7, 6};
    const PlannedTransform t =
        describe_many(FftKind::c2c, 2, sizes, 2, in, inembed, 2, 1000, out, onembed, 1, 50, -1);
    EXPECT_EQ(t.problem.dims, (Dims{{4, 18, 6}, {5, 2, 1}}));
    EXPECT_EQ(t.problem.howmany, (Dims{{2, 1000, 50}}));
}

TEST(FftwDescriptions, ArgumentsFftwRejectsAreLeftToFftw) {
    const int zero[] = {4, 0};
    EXPECT_FALSE(describe_many(FftKind::c2c, 2, zero, 1, in, nullptr, 1, 1, out, nullptr, 1, 1, -1)
                     .problem.described);
    const int n[] = {4};
    EXPECT_FALSE(describe_many(FftKind::c2c, 1, n, -1, in, nullptr, 1, 1, out, nullptr, 1, 1, -1)
                     .problem.described);
    EXPECT_FALSE(describe_many(FftKind::c2c, 0, n, 1, in, nullptr, 1, 1, out, nullptr, 1, 1, -1)
                     .problem.described);
    const fftw::IoDim dims[] = {{8, 1, 1}};
    EXPECT_FALSE(describe_guru(FftKind::c2c, 1, dims, -1, dims, in, out, -1).problem.described);
    EXPECT_FALSE(describe_on_cpu(FftKind::r2r).problem.described);
}

TEST(FftwDescriptions, GuruDimensionsAreTakenAsGiven) {
    const fftw::IoDim64 dims[] = {{16, 3, 5}, {9, 48, 80}};
    const fftw::IoDim64 batch[] = {{2, 1, 2}, {7, 2000, 3000}};
    const PlannedTransform t = describe_guru(FftKind::c2c, 2, dims, 2, batch, in, out, 1);
    EXPECT_EQ(t.problem.dims, (Dims{{16, 3, 5}, {9, 48, 80}}));
    EXPECT_EQ(t.problem.howmany, (Dims{{2, 1, 2}, {7, 2000, 3000}}));
}

TEST(FftCall, TheDeviceTakesRanksOneToThreeWithABatch) {
    FftProblem p = describe_sizes(FftKind::c2c, {8, 8, 8}, in, out, -1).problem;
    EXPECT_TRUE(suits_device(p));
    const gpushim_fft_desc desc = device_description(p);
    EXPECT_EQ(desc.rank, 3);
    EXPECT_EQ(desc.howmany, 1);
    EXPECT_EQ(desc.kind, GPUSHIM_FFT_C2C);
    p.howmany = {{3, 1, 1}, {5, 1, 1}};
    EXPECT_EQ(device_description(p).howmany, 15);
    EXPECT_DOUBLE_EQ(fft_points(p), 512.0 * 15);
    p.howmany = {{0, 1, 1}};
    EXPECT_FALSE(suits_device(p));  // an empty batch: FFTW's no-op
    EXPECT_FALSE(suits_device(describe_sizes(FftKind::c2c, {2, 2, 2, 2}, in, out, -1).problem));
    EXPECT_FALSE(suits_device(describe_sizes(FftKind::c2c, {8}, in, out, 0).problem));
    EXPECT_FALSE(suits_device(describe_on_cpu(FftKind::split_c2c).problem));
    FftProblem single = describe_sizes(FftKind::r2c, {64}, in, out, -1).problem;
    single.single = true;
    EXPECT_EQ(device_description(single).precision, GPUSHIM_PREC_S);
    EXPECT_EQ(device_description(single).kind, GPUSHIM_FFT_R2C);
}

TEST(FftCall, ByteReachFollowsStridesAndTheHalfSpectrum) {
    FftProblem reversed = describe_sizes(FftKind::c2c, {8}, in, out, -1).problem;
    reversed.dims = {{8, -1, 2}};
    EXPECT_EQ(byte_reach(reversed, true).low, -7 * 16);
    EXPECT_EQ(byte_reach(reversed, true).high, 16);
    EXPECT_EQ(byte_reach(reversed, false).low, 0);
    EXPECT_EQ(byte_reach(reversed, false).high, (7 * 2 + 1) * 16);
    FftProblem real = describe_sizes(FftKind::r2c, {3, 10}, in, out, -1).problem;
    real.single = true;
    EXPECT_EQ(byte_reach(real, true).high, 30 * 4);      // 3 rows of 10 floats
    EXPECT_EQ(byte_reach(real, false).high, 3 * 6 * 8);  // 3 rows of 6 complex floats
}

TEST(FftCall, FlopsFollowFftwsConvention) {
    FftProblem p = describe_sizes(FftKind::c2c, {1024}, in, out, -1).problem;
    p.howmany = {{2, 1, 1}};
    EXPECT_DOUBLE_EQ(flop_count(FftOp{&p, nullptr, nullptr}), 2 * 5 * 1024 * 10.0);
    p.kind = FftKind::r2c;
    EXPECT_DOUBLE_EQ(flop_count(FftOp{&p, nullptr, nullptr}), 5 * 1024 * 10.0);
}

// A stand-in for FFTW's planner: records the flags it gets, returns a fake plan that
// starts, like FFTW's, with a pointer.
struct FakePlanner {
    std::vector<unsigned> flags;
    void* result;
    void* operator()(unsigned planner_flags) {
        flags.push_back(planner_flags);
        return result;
    }
};

struct FakeFftwPlan {
    void* first = &input_array;
} fake_fftw_plan;

// Each case that needs a particular device runs in a child with only that backend.
template <class Checks>
void with_backend(const char* backend, Checks&& checks) {
    testing_support::with_settings({{"GPUSHIM_BACKEND", backend}}, checks);
}

TEST(FftwPlanDeathTest, ADevicePlanGetsAnEstimatePlanKeepingTheOtherFlags) {
    EXPECT_EXIT(
        with_backend(GPUSHIM_HOSTSIM_PATH,
                     [] {
                         // 2^20 points: above the default threshold.
                         FakePlanner planner{{}, &fake_fftw_plan};
                         constexpr unsigned kNoSimd = 1U << 17;  // one of FFTW's advanced flags
                         const unsigned caller =
                             fftw::kPatient | fftw::kPreserveInput | fftw::kUnaligned | kNoSimd;
                         auto* p =
                             plan<double>(describe_sizes(FftKind::c2c, {1024, 1024}, in, out, -1),
                                          caller, planner);
                         FftwPlan* shim = shim_plan(p);
                         ASSERT_NE(shim, nullptr);
                         EXPECT_EQ(planner.flags,
                                   (std::vector<unsigned>{fftw::kEstimate | fftw::kPreserveInput |
                                                          fftw::kUnaligned | kNoSimd}));
                         EXPECT_NE(shim->device, nullptr);
                         EXPECT_EQ(shim->cpu_plan, &fake_fftw_plan);
                         EXPECT_EQ(shim->routine, Routine::fftw_dft);
                         EXPECT_EQ(shim->in, in);
                         delete shim;
                     }),
        testing::ExitedWithCode(0), "");
}

// pyFFTW's numpy_fft interface plans, executes and destroys a plan per call: the device plan
// of a destroyed plan serves the next plan of the same transform, and no other.
TEST(FftwPlanDeathTest, ADestroyedPlansDevicePlanServesTheNextPlanOfTheSameTransform) {
    EXPECT_EXIT(with_backend(
                    GPUSHIM_HOSTSIM_PATH,
                    [] {
                        FakePlanner planner{{}, &fake_fftw_plan};
                        const PlannedTransform square =
                            describe_sizes(FftKind::c2c, {1024, 1024}, in, out, -1);
                        const PlannedTransform wide =
                            describe_sizes(FftKind::c2c, {1024, 2048}, in, out, -1);
                        FftwPlan* first = shim_plan(plan<double>(square, fftw::kEstimate, planner));
                        ASSERT_NE(first, nullptr);
                        ASSERT_NE(first->device, nullptr);
                        const gpushim_device_plugin* plugin = gpu::backend();
                        ASSERT_NE(plugin, nullptr);
                        const gpu::RetiredFftPlans& retired = gpu::retired_fft_plans(*plugin);
                        EXPECT_EQ(retired.size(), 0u);
                        delete first;
                        EXPECT_EQ(retired.size(), 1u);
                        FftwPlan* other = shim_plan(plan<double>(wide, fftw::kEstimate, planner));
                        ASSERT_NE(other->device, nullptr);
                        EXPECT_EQ(retired.size(), 1u);
                        FftwPlan* again = shim_plan(plan<double>(square, fftw::kEstimate, planner));
                        ASSERT_NE(again->device, nullptr);
                        EXPECT_EQ(retired.size(), 0u);
                        delete other;
                        delete again;
                        EXPECT_EQ(retired.size(), 2u);
                    }),
                testing::ExitedWithCode(0), "");
}

// FFTW's answer to FFTW_WISDOM_ONLY: a plan only with wisdom, here never.
struct PlannerWithoutWisdom {
    std::vector<unsigned> flags;
    void* operator()(unsigned planner_flags) {
        flags.push_back(planner_flags);
        return (planner_flags & fftw::kWisdomOnly) != 0 ? nullptr : &fake_fftw_plan;
    }
};

// FFTW's searches the shim skipped, and their making when FFTW_WISDOM_ONLY asks, are
// checked with FFTW itself: integration test fftw_wisdom_relinked.
TEST(FftwPlanDeathTest, WisdomOnlyIsFftwsAnswerOnceFftwForgotItsWisdom) {
    EXPECT_EXIT(
        with_backend(
            GPUSHIM_HOSTSIM_PATH,
            [] {
                PlannerWithoutWisdom planner;
                const PlannedTransform transform =
                    describe_sizes(FftKind::r2c, {1 << 22}, in, out, -1);
                EXPECT_EQ(plan<float>(transform, fftw::kWisdomOnly | fftw::kMeasure, planner),
                          nullptr);
                EXPECT_EQ(planner.flags, (std::vector<unsigned>{fftw::kWisdomOnly}));
                // FFTW would have made wisdom with this MEASURE plan; the shim made an ESTIMATE
                // plan and recorded the search, which fftwf_forget_wisdom forgets.
                delete shim_plan(plan<float>(transform, fftw::kMeasure, planner));
                forget_skipped_searches(true);
                planner.flags.clear();
                EXPECT_EQ(plan<float>(transform, fftw::kWisdomOnly | fftw::kMeasure, planner),
                          nullptr);
                EXPECT_EQ(planner.flags, (std::vector<unsigned>{fftw::kWisdomOnly}));
            }),
        testing::ExitedWithCode(0), "");
}

TEST(FftwPlanDeathTest, WithoutAUsableDeviceFftwPlansAsTheCallerAsks) {
    EXPECT_EXIT(with_backend("/nonexistent/libgpushim_nothing.so",
                             [] {
                                 FakePlanner planner{{}, &fake_fftw_plan};
                                 auto* p = plan<double>(
                                     describe_sizes(FftKind::c2c, {1 << 22}, in, out, -1),
                                     fftw::kMeasure, planner);
                                 ASSERT_NE(shim_plan(p), nullptr);
                                 EXPECT_EQ(shim_plan(p)->device, nullptr);
                                 EXPECT_EQ(planner.flags, (std::vector<unsigned>{fftw::kMeasure}));
                                 delete shim_plan(p);
                             }),
                testing::ExitedWithCode(0), "");
}

TEST(FftwPlan, SmallAndCpuOnlyTransformsKeepTheCallersFlags) {
    FakePlanner planner{{}, &fake_fftw_plan};
    auto* small =
        plan<double>(describe_sizes(FftKind::c2c, {64}, in, out, -1), fftw::kMeasure, planner);
    auto* r2r = plan<float>(describe_on_cpu(FftKind::r2r), fftw::kPatient, planner);
    EXPECT_EQ(planner.flags, (std::vector<unsigned>{fftw::kMeasure, fftw::kPatient}));
    ASSERT_NE(shim_plan(small), nullptr);
    ASSERT_NE(shim_plan(r2r), nullptr);
    EXPECT_EQ(shim_plan(small)->device, nullptr);
    EXPECT_EQ(shim_plan(r2r)->routine, Routine::fftwf_r2r);
    delete shim_plan(small);
    delete shim_plan(r2r);
}

TEST(FftwPlan, PlannersFftwCallsFromItsOwnPlannersGoStraightToFftw) {
    FakePlanner inner{{}, &fake_fftw_plan};
    void* nested = nullptr;
    auto outer = [&](unsigned planner_flags) -> void* {
        nested = plan<double>(describe_sizes(FftKind::c2c, {8}, in, out, -1), planner_flags, inner);
        return nested;
    };
    auto* p = plan<double>(describe_sizes(FftKind::c2c, {8}, in, out, -1), fftw::kEstimate, outer);
    EXPECT_EQ(nested, &fake_fftw_plan);  // FFTW's plan, not wrapped twice
    ASSERT_NE(shim_plan(p), nullptr);
    EXPECT_EQ(shim_plan(p)->cpu_plan, &fake_fftw_plan);
    delete shim_plan(p);
}

TEST(FftwPlan, FftwsOwnPlansAreRecognisedAsSuch) {
    EXPECT_EQ(shim_plan(&fake_fftw_plan), nullptr);
    EXPECT_EQ(shim_plan(nullptr), nullptr);
}

}  // namespace
}  // namespace gpushim::shim
