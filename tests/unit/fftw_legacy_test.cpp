// The legacy Fortran interface (shim/fftw_legacy_entries.cpp) alone, on test doubles of
// the shim's C functions: each double hands its arguments to the check a test installs,
// while the entry's translated arrays still exist. The expected calls are those FFTW
// 3.3's own f77 interface (api/f77funcs.h) makes for the same Fortran arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "shim/fftw_api.h"

namespace gpushim::fftw {
namespace {

// What a C function of the shim does in a test: the check installed for it, and how
// often it was called. A call with no check installed fails the test.
template <auto Function>
struct Double;
template <class Return, class... Args, Return (*Function)(Args...)>
struct Double<Function> {
    using Check = std::function<Return(Args...)>;
    static inline Check check;
    static inline int calls = 0;

    static Return call(const char* name, Args... args) {
        ++calls;
        if (!check) {
            ADD_FAILURE() << "unexpected call of " << name;
            return Return();
        }
        return check(args...);
    }
};

// Installs the check of one C function for the scope of a test.
template <auto Function>
class Expect {
  public:
    explicit Expect(typename Double<Function>::Check check) {
        Double<Function>::check = std::move(check);
        Double<Function>::calls = 0;
    }
    Expect(const Expect&) = delete;
    Expect& operator=(const Expect&) = delete;
    ~Expect() { Double<Function>::check = nullptr; }
    int calls() const { return Double<Function>::calls; }
};

}  // namespace
}  // namespace gpushim::fftw

// The doubles: every C function of the shim, from the shim's own table, so that the
// entries link against exactly the signatures they will call in libgpushim.so.
#define GPUSHIM_TEST_UNPARENTHESIZED(...) __VA_ARGS__
#define GPUSHIM_TEST_PLANNER_DOUBLE(P, name, KIND, PARAMS, ARGS, DESCRIPTION)       \
    Plan P##name PARAMS {                                                           \
        const unsigned planner_flags = flags;                                       \
        return Double<&P##name>::call(#P #name, GPUSHIM_TEST_UNPARENTHESIZED ARGS); \
    }
#define GPUSHIM_TEST_ARGS_AFTER_PLAN(...) __VA_OPT__(, ) __VA_ARGS__
#define GPUSHIM_TEST_CONSUMER_DOUBLE(P, name, Return, ROLE, PARAMS, ARGS)             \
    Return P##name GPUSHIM_FFTW_WITH_PLAN PARAMS {                                    \
        return Double<&P##name>::call(#P #name, p GPUSHIM_TEST_ARGS_AFTER_PLAN ARGS); \
    }
#define GPUSHIM_TEST_DOUBLES(P, Real)                                         \
    namespace gpushim::fftw::P##api {                                         \
        extern "C" {                                                          \
        GPUSHIM_FOR_EACH_FFTW_PLANNER(GPUSHIM_TEST_PLANNER_DOUBLE, P, R, C)   \
        GPUSHIM_FOR_EACH_FFTW_CONSUMER(GPUSHIM_TEST_CONSUMER_DOUBLE, P, R, C) \
        }                                                                     \
    }
GPUSHIM_FOR_EACH_FFTW_PRECISION(GPUSHIM_TEST_DOUBLES)

// The entry points as a Fortran program calls them: every argument by reference, the plan
// an integer*8 (the type FFTW's manual prescribes for it), complex arrays as addresses.
using FortranPlan = std::int64_t;
extern "C" {
void dfftw_plan_dft_(FortranPlan* plan, const int* rank, const int* n, void* in, void* out,
                     const int* sign, const int* flags);
void dfftw_plan_dft_1d_(FortranPlan* plan, const int* n, void* in, void* out, const int* sign,
                        const int* flags);
void dfftw_plan_dft_1d__(FortranPlan* plan, const int* n, void* in, void* out, const int* sign,
                         const int* flags);
void dfftw_plan_dft_3d_(FortranPlan* plan, const int* nx, const int* ny, const int* nz, void* in,
                        void* out, const int* sign, const int* flags);
void dfftw_plan_many_dft_(FortranPlan* plan, const int* rank, const int* n, const int* howmany,
                          void* in, const int* inembed, const int* istride, const int* idist,
                          void* out, const int* onembed, const int* ostride, const int* odist,
                          const int* sign, const int* flags);
void dfftw_plan_guru_dft_(FortranPlan* plan, const int* rank, const int* n, const int* is,
                          const int* os, const int* howmany_rank, const int* h_n, const int* h_is,
                          const int* h_os, void* in, void* out, const int* sign, const int* flags);
void dfftw_plan_guru_split_dft_(FortranPlan* plan, const int* rank, const int* n, const int* is,
                                const int* os, const int* howmany_rank, const int* h_n,
                                const int* h_is, const int* h_os, double* ri, double* ii,
                                double* ro, double* io, const int* flags);
void dfftw_plan_r2r_2d_(FortranPlan* plan, const int* nx, const int* ny, double* in, double* out,
                        const int* kindx, const int* kindy, const int* flags);
void dfftw_plan_many_r2r_(FortranPlan* plan, const int* rank, const int* n, const int* howmany,
                          double* in, const int* inembed, const int* istride, const int* idist,
                          double* out, const int* onembed, const int* ostride, const int* odist,
                          const int* kind, const int* flags);
void dfftw_plan_guru_r2r_(FortranPlan* plan, const int* rank, const int* n, const int* is,
                          const int* os, const int* howmany_rank, const int* h_n, const int* h_is,
                          const int* h_os, double* in, double* out, const int* kind,
                          const int* flags);
void sfftw_plan_many_dft_r2c_(FortranPlan* plan, const int* rank, const int* n, const int* howmany,
                              float* in, const int* inembed, const int* istride, const int* idist,
                              void* out, const int* onembed, const int* ostride, const int* odist,
                              const int* flags);
void sfftw_plan_dft_c2r_2d__(FortranPlan* plan, const int* nx, const int* ny, void* in, float* out,
                             const int* flags);
void dfftw_execute_(const FortranPlan* plan);
void dfftw_execute_dft_(const FortranPlan* plan, void* in, void* out);
void sfftw_execute_split_dft_c2r__(const FortranPlan* plan, float* ri, float* ii, float* out);
void dfftw_destroy_plan_(const FortranPlan* plan);
void sfftw_print_plan_(const FortranPlan* plan);
void dfftw_flops_(const FortranPlan* plan, double* add, double* mul, double* fmas);
void dfftw_estimate_cost_(double* cost, const FortranPlan* plan);
void sfftw_cost__(double* cost, const FortranPlan* plan);
}

namespace gpushim::fftw {
namespace {

using fftw_api::fftw_execute;
using fftw_api::fftw_execute_dft;
using fftw_api::fftw_plan_dft;
using fftw_api::fftw_plan_dft_1d;
using fftw_api::fftw_plan_dft_3d;
using fftw_api::fftw_plan_guru_dft;
using fftw_api::fftw_plan_guru_r2r;
using fftw_api::fftw_plan_guru_split_dft;
using fftw_api::fftw_plan_many_dft;
using fftw_api::fftw_plan_many_r2r;
using fftw_api::fftw_plan_r2r_2d;
using fftwf_api::fftwf_cost;
using fftwf_api::fftwf_execute_split_dft_c2r;
using fftwf_api::fftwf_plan_dft_c2r_2d;
using fftwf_api::fftwf_plan_many_dft_r2c;
using fftwf_api::fftwf_print_plan;
using Plan = fftw_api::Plan;
using PlanF = fftwf_api::Plan;
using Complex = fftw_api::C;
using ComplexF = fftwf_api::C;

// Plans the doubles hand out, and the integer*8 a Fortran caller keeps each in.
char plan_object;
char plan_object_f;
Plan const kPlan = reinterpret_cast<Plan>(&plan_object);
PlanF const kPlanF = reinterpret_cast<PlanF>(&plan_object_f);
FortranPlan fortran(Plan plan) {
    return static_cast<FortranPlan>(reinterpret_cast<std::intptr_t>(plan));
}
FortranPlan fortran(PlanF plan) {
    return static_cast<FortranPlan>(reinterpret_cast<std::intptr_t>(plan));
}

std::vector<int> values(const int* array, int count) {
    return {array, array + count};
}

struct Dims {
    std::vector<int> n, is, os;
    bool operator==(const Dims&) const = default;
};
Dims dims(const IoDim* array, int count) {
    Dims all;
    for (int i = 0; i < count; ++i) {
        all.n.push_back(array[i].n);
        all.is.push_back(array[i].is);
        all.os.push_back(array[i].os);
    }
    return all;
}

constexpr int kEstimate = 64;  // FFTW_ESTIMATE
constexpr int kRedft10 = 5;    // FFTW_REDFT10
constexpr int kRodft01 = 8;    // FFTW_RODFT01
constexpr int kDht = 2;        // FFTW_DHT

TEST(FftwLegacy, PlanDft1dStoresThePlanInTheCallersInteger8UnderBothManglings) {
    double buffer[2][2 * 16];
    Expect<&fftw_plan_dft_1d> plan_dft_1d(
        [&](int n, Complex* in, Complex* out, int sign, unsigned flags) {
            EXPECT_EQ(n, 16);
            EXPECT_EQ(static_cast<void*>(in), buffer[0]);
            EXPECT_EQ(static_cast<void*>(out), buffer[1]);
            EXPECT_EQ(sign, kBackward);
            EXPECT_EQ(flags, kEstimate);
            return kPlan;
        });
    const int n = 16, sign = kBackward, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_dft_1d_(&plan, &n, buffer[0], buffer[1], &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    plan = 0;
    dfftw_plan_dft_1d__(&plan, &n, buffer[0], buffer[1], &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    EXPECT_EQ(plan_dft_1d.calls(), 2);
}

TEST(FftwLegacy, FixedRankFormsTakeTheSizesAndKindsInReverse) {
    Expect<&fftw_plan_dft_3d> plan_dft_3d(
        [](int n0, int n1, int n2, Complex*, Complex*, int sign, unsigned) {
            EXPECT_EQ((std::vector{n0, n1, n2}), (std::vector{7, 5, 3}));
            EXPECT_EQ(sign, kForward);
            return kPlan;
        });
    Expect<&fftw_plan_r2r_2d> plan_r2r_2d(
        [](int n0, int n1, double*, double*, R2rKind kind0, R2rKind kind1, unsigned) {
            EXPECT_EQ((std::vector{n0, n1}), (std::vector{5, 3}));
            EXPECT_EQ((std::vector{kind0, kind1}), (std::vector{kRodft01, kRedft10}));
            return kPlan;
        });
    Expect<&fftwf_plan_dft_c2r_2d> plan_dft_c2r_2d([](int n0, int n1, ComplexF*, float*, unsigned) {
        EXPECT_EQ((std::vector{n0, n1}), (std::vector{5, 3}));
        return kPlanF;
    });
    double data[2 * 105];
    float real[15];
    const int nx = 3, ny = 5, nz = 7, sign = kForward, flags = kEstimate;
    const int kindx = kRedft10, kindy = kRodft01;
    FortranPlan plan = 0;
    dfftw_plan_dft_3d_(&plan, &nx, &ny, &nz, data, data, &sign, &flags);
    dfftw_plan_r2r_2d_(&plan, &nx, &ny, data, data, &kindx, &kindy, &flags);
    sfftw_plan_dft_c2r_2d__(&plan, &nx, &ny, data, real, &flags);
    EXPECT_EQ(plan, fortran(kPlanF));
    EXPECT_EQ(plan_dft_3d.calls() + plan_r2r_2d.calls() + plan_dft_c2r_2d.calls(), 3);
}

TEST(FftwLegacy, ManyFormReversesSizesAndEmbeddingsAndPassesTheRestByValue) {
    double in[2 * 400], out[2 * 400];
    Expect<&fftw_plan_many_dft> plan_many_dft(
        [&](int rank, const int* n, int howmany, Complex* in_arg, const int* inembed, int istride,
            int idist, Complex* out_arg, const int* onembed, int ostride, int odist, int sign,
            unsigned flags) {
            EXPECT_EQ(rank, 3);
            EXPECT_EQ(values(n, 3), (std::vector{5, 3, 2}));
            EXPECT_EQ(values(inembed, 3), (std::vector{6, 4, 2}));
            EXPECT_EQ(values(onembed, 3), (std::vector{7, 3, 2}));
            EXPECT_EQ(howmany, 4);
            EXPECT_EQ((std::vector{istride, idist, ostride, odist}), (std::vector{1, 48, 2, 42}));
            EXPECT_EQ(static_cast<void*>(in_arg), in);
            EXPECT_EQ(static_cast<void*>(out_arg), out);
            EXPECT_EQ(sign, kForward);
            EXPECT_EQ(flags, kEstimate);
            return kPlan;
        });
    const int rank = 3, n[] = {2, 3, 5}, inembed[] = {2, 4, 6}, onembed[] = {2, 3, 7};
    const int howmany = 4, istride = 1, idist = 48, ostride = 2, odist = 42;
    const int sign = kForward, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_many_dft_(&plan, &rank, n, &howmany, in, inembed, &istride, &idist, out, onembed,
                         &ostride, &odist, &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    EXPECT_EQ(values(n, 3), (std::vector{2, 3, 5})) << "the caller's array is its own";
    EXPECT_EQ(plan_many_dft.calls(), 1);
}

TEST(FftwLegacy, MissingEmbeddingsAndInvalidRanksReachTheCFunctionAsGiven) {
    double data[2 * 8];
    Expect<&fftw_plan_many_dft> plan_many_dft([](int rank, const int* n, int, Complex*,
                                                 const int* inembed, int, int, Complex*,
                                                 const int* onembed, int, int, int, unsigned) {
        EXPECT_EQ(rank, 1);
        EXPECT_EQ(values(n, 1), (std::vector{8}));
        EXPECT_EQ(inembed, nullptr);
        EXPECT_EQ(onembed, nullptr);
        return kPlan;
    });
    int rank = 1;
    const int n[] = {8}, one = 1, sign = kForward, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_many_dft_(&plan, &rank, n, &one, data, nullptr, &one, &one, data, nullptr, &one,
                         &one, &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));

    // FFTW's planner answers a negative rank with a NULL plan, which the caller gets.
    Expect<&fftw_plan_dft> plan_dft(
        [&](int rank_arg, const int* n_arg, Complex*, Complex*, int, unsigned) {
            EXPECT_EQ(n_arg, n) << "no element is read, so the caller's array goes through";
            return rank_arg < 0 ? nullptr : kPlan;
        });
    rank = -1;
    dfftw_plan_dft_(&plan, &rank, n, data, data, &sign, &flags);
    EXPECT_EQ(plan, 0);
    rank = 0;
    dfftw_plan_dft_(&plan, &rank, n, data, data, &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    EXPECT_EQ(plan_dft.calls(), 2);
}

TEST(FftwLegacy, GuruFormsKeepTheirDimensionsInTheOrderGiven) {
    double data[2 * 1000];
    Expect<&fftw_plan_guru_dft> plan_guru_dft([&](int rank, const IoDim* dims_arg, int howmany_rank,
                                                  const IoDim* howmany_dims, Complex* in,
                                                  Complex* out, int sign, unsigned flags) {
        EXPECT_EQ(rank, 2);
        EXPECT_EQ(dims(dims_arg, 2), (Dims{{4, 6}, {1, 4}, {1, 5}}));
        EXPECT_EQ(howmany_rank, 3);
        EXPECT_EQ(dims(howmany_dims, 3), (Dims{{2, 3, 5}, {24, 48, 144}, {30, 60, 180}}));
        EXPECT_EQ(static_cast<void*>(in), data);
        EXPECT_EQ(static_cast<void*>(out), data + 2);
        EXPECT_EQ(sign, kBackward);
        EXPECT_EQ(flags, kEstimate);
        return kPlan;
    });
    const int rank = 2, n[] = {4, 6}, is[] = {1, 4}, os[] = {1, 5};
    const int howmany_rank = 3, h_n[] = {2, 3, 5}, h_is[] = {24, 48, 144}, h_os[] = {30, 60, 180};
    const int sign = kBackward, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_guru_dft_(&plan, &rank, n, is, os, &howmany_rank, h_n, h_is, h_os, data, data + 2,
                         &sign, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    EXPECT_EQ(plan_guru_dft.calls(), 1);
}

TEST(FftwLegacy, SplitGuruFormKeepsItsArraysInOrder) {
    double ri[8], ii[8], ro[8], io[8];
    Expect<&fftw_plan_guru_split_dft> plan_guru_split_dft(
        [&](int rank, const IoDim* dims_arg, int howmany_rank, const IoDim* howmany_dims,
            double* ri_arg, double* ii_arg, double* ro_arg, double* io_arg, unsigned flags) {
            EXPECT_EQ(rank, 1);
            EXPECT_EQ(dims(dims_arg, 1), (Dims{{8}, {1}, {1}}));
            EXPECT_EQ(howmany_rank, 0);
            EXPECT_EQ(howmany_dims, nullptr);
            EXPECT_EQ((std::vector{ri_arg, ii_arg, ro_arg, io_arg}),
                      (std::vector<double*>{ri, ii, ro, io}));
            EXPECT_EQ(flags, kEstimate);
            return kPlan;
        });
    const int rank = 1, n[] = {8}, is[] = {1}, os[] = {1}, howmany_rank = 0, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_guru_split_dft_(&plan, &rank, n, is, os, &howmany_rank, nullptr, nullptr, nullptr,
                               ri, ii, ro, io, &flags);
    EXPECT_EQ(plan, fortran(kPlan));
    EXPECT_EQ(plan_guru_split_dft.calls(), 1);
}

// FFTW 3.3 reverses the kinds of every r2r planner, but not the guru dimensions they
// belong to: kind(1) goes with n(rank). A drop-in keeps that.
TEST(FftwLegacy, R2rKindsAreReversedEvenWhereTheGuruDimensionsAreNot) {
    double data[64];
    Expect<&fftw_plan_guru_r2r> plan_guru_r2r([](int rank, const IoDim* dims_arg, int howmany_rank,
                                                 const IoDim*, double*, double*,
                                                 const R2rKind* kind, unsigned) {
        EXPECT_EQ(rank, 3);
        EXPECT_EQ(dims(dims_arg, 3), (Dims{{2, 3, 4}, {1, 2, 6}, {1, 2, 6}}));
        EXPECT_EQ(howmany_rank, 0);
        EXPECT_EQ(values(kind, 3), (std::vector{kDht, kRodft01, kRedft10}));
        return kPlan;
    });
    Expect<&fftw_plan_many_r2r> plan_many_r2r(
        [](int rank, const int* n, int, double*, const int* inembed, int, int, double*,
           const int* onembed, int, int, const R2rKind* kind, unsigned) {
            if (rank == 0) {
                EXPECT_EQ(kind, nullptr) << "FFTW passes no kinds for rank 0";
                return kPlan;
            }
            EXPECT_EQ(rank, 2);
            EXPECT_EQ(values(n, 2), (std::vector{8, 4}));
            EXPECT_EQ(values(inembed, 2), (std::vector{8, 5}));
            EXPECT_EQ(values(onembed, 2), (std::vector{8, 6}));
            EXPECT_EQ(values(kind, 2), (std::vector{kDht, kRedft10}));
            return kPlan;
        });
    const int rank = 3, n[] = {2, 3, 4}, is[] = {1, 2, 6}, os[] = {1, 2, 6}, none = 0;
    const int kind[] = {kRedft10, kRodft01, kDht}, flags = kEstimate;
    FortranPlan plan = 0;
    dfftw_plan_guru_r2r_(&plan, &rank, n, is, os, &none, nullptr, nullptr, nullptr, data, data,
                         kind, &flags);

    const int many_rank = 2, many_n[] = {4, 8}, inembed[] = {5, 8}, onembed[] = {6, 8};
    const int many_kind[] = {kRedft10, kDht}, one = 1;
    dfftw_plan_many_r2r_(&plan, &many_rank, many_n, &one, data, inembed, &one, &one, data, onembed,
                         &one, &one, many_kind, &flags);
    dfftw_plan_many_r2r_(&plan, &none, many_n, &one, data, nullptr, &one, &one, data, nullptr, &one,
                         &one, many_kind, &flags);
    EXPECT_EQ(plan_guru_r2r.calls() + plan_many_r2r.calls(), 3);
}

TEST(FftwLegacy, SinglePrecisionCallsTheFloatFunctions) {
    float in[2 * 32];
    float out[2 * 32];
    Expect<&fftwf_plan_many_dft_r2c> plan_many_dft_r2c(
        [&](int rank, const int* n, int howmany, float* in_arg, const int* inembed, int istride,
            int idist, ComplexF* out_arg, const int* onembed, int ostride, int odist,
            unsigned flags) {
            EXPECT_EQ(rank, 2);
            EXPECT_EQ(values(n, 2), (std::vector{2, 8}));
            EXPECT_EQ(values(inembed, 2), (std::vector{2, 8}));
            EXPECT_EQ(values(onembed, 2), (std::vector{2, 5}));
            EXPECT_EQ((std::vector{howmany, istride, idist, ostride, odist}),
                      (std::vector{2, 1, 16, 1, 10}));
            EXPECT_EQ(in_arg, in);
            EXPECT_EQ(static_cast<void*>(out_arg), out);
            EXPECT_EQ(flags, kEstimate);
            return kPlanF;
        });
    const int rank = 2, n[] = {8, 2}, inembed[] = {8, 2}, onembed[] = {5, 2};
    const int howmany = 2, istride = 1, idist = 16, ostride = 1, odist = 10, flags = kEstimate;
    FortranPlan plan = 0;
    sfftw_plan_many_dft_r2c_(&plan, &rank, n, &howmany, in, inembed, &istride, &idist, out, onembed,
                             &ostride, &odist, &flags);
    EXPECT_EQ(plan, fortran(kPlanF));
    EXPECT_EQ(plan_many_dft_r2c.calls(), 1);
}

TEST(FftwLegacy, ConsumersTakeThePlanByReference) {
    double data[2 * 4];
    float ri[4], ii[4], real[4];
    Expect<&fftw_execute> execute([](Plan plan) { EXPECT_EQ(plan, kPlan); });
    Expect<&fftw_execute_dft> execute_dft([&](Plan plan, Complex* in, Complex* out) {
        EXPECT_EQ(plan, kPlan);
        EXPECT_EQ(static_cast<void*>(in), data);
        EXPECT_EQ(static_cast<void*>(out), data);
    });
    Expect<&fftwf_execute_split_dft_c2r> execute_split_dft_c2r(
        [&](PlanF plan, float* ri_arg, float* ii_arg, float* out) {
            EXPECT_EQ(plan, kPlanF);
            EXPECT_EQ((std::vector{ri_arg, ii_arg, out}), (std::vector<float*>{ri, ii, real}));
        });
    Expect<&fftw_api::fftw_destroy_plan> destroy_plan([](Plan plan) { EXPECT_EQ(plan, kPlan); });
    Expect<&fftwf_print_plan> print_plan([](PlanF plan) { EXPECT_EQ(plan, kPlanF); });
    const FortranPlan plan = fortran(kPlan), plan_f = fortran(kPlanF);
    dfftw_execute_(&plan);
    dfftw_execute_dft_(&plan, data, data);
    sfftw_execute_split_dft_c2r__(&plan_f, ri, ii, real);
    sfftw_print_plan_(&plan_f);
    dfftw_destroy_plan_(&plan);
    EXPECT_EQ(execute.calls() + execute_dft.calls() + execute_split_dft_c2r.calls() +
                  print_plan.calls() + destroy_plan.calls(),
              5);
}

TEST(FftwLegacy, CostsComeBackThroughTheFirstArgumentAndFlopsThroughTheLastThree) {
    Expect<&fftw_api::fftw_estimate_cost> estimate_cost([](Plan plan) {
        EXPECT_EQ(plan, kPlan);
        return 1234.5;
    });
    Expect<&fftwf_cost> cost([](PlanF plan) {
        EXPECT_EQ(plan, kPlanF);
        return 0.25;
    });
    Expect<&fftw_api::fftw_flops> flops([](Plan plan, double* add, double* mul, double* fmas) {
        EXPECT_EQ(plan, kPlan);
        *add = 1;
        *mul = 2;
        *fmas = 3;
    });
    const FortranPlan plan = fortran(kPlan), plan_f = fortran(kPlanF);
    double value = 0;
    dfftw_estimate_cost_(&value, &plan);
    EXPECT_EQ(value, 1234.5);
    sfftw_cost__(&value, &plan_f);
    EXPECT_EQ(value, 0.25);
    double add = 0, mul = 0, fmas = 0;
    dfftw_flops_(&plan, &add, &mul, &fmas);
    EXPECT_EQ((std::vector{add, mul, fmas}), (std::vector{1.0, 2.0, 3.0}));
}

}  // namespace
}  // namespace gpushim::fftw
