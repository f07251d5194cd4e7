// Retired device FFT plans: adopted by the same transform only, the most recent kept, all
// released when the memory pool runs short. On a fake plugin that counts its plans, whose
// work areas share the device's memory with the pool's blocks.
#include "gpu/retired_fft_plans.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "gpu/device_memory_pool.h"
#include "tests/unit/fake_device_memory.h"

namespace gpushim::gpu {
namespace {

using test::fake_memory;

// A plan holds kPlanBytes of the fake device's memory until destroyed.
struct PlanCounts {
    static constexpr std::size_t kPlanBytes = std::size_t{256} << 10;
    int destroyed = 0;
};
PlanCounts plan_counts;

int fake_plan_create(const gpushim_fft_desc*, gpushim_fft_plan* plan) {
    if (fake_memory.used + PlanCounts::kPlanBytes > fake_memory.capacity)
        return test::kFakeOutOfMemory;
    fake_memory.used += PlanCounts::kPlanBytes;
    *plan = reinterpret_cast<gpushim_fft_plan>(::operator new(1));
    return 0;
}
int fake_plan_destroy(gpushim_fft_plan plan) {
    fake_memory.used -= PlanCounts::kPlanBytes;
    ++plan_counts.destroyed;
    ::operator delete(reinterpret_cast<void*>(plan));
    return 0;
}

gpushim_device_plugin fake_plugin() {
    gpushim_device_plugin plugin = test::fake_memory_plugin();
    plugin.fft_plan_create = fake_plan_create;
    plugin.fft_plan_destroy = fake_plan_destroy;
    return plugin;
}

gpushim_fft_desc transform(int64_t n0, int64_t n1 = 0) {
    gpushim_fft_desc desc{};
    desc.kind = GPUSHIM_FFT_C2C;
    desc.precision = GPUSHIM_PREC_D;
    desc.sign = -1;
    desc.rank = n1 == 0 ? 1 : 2;
    desc.n[0] = n0;
    desc.n[1] = n1;
    desc.howmany = 1;
    return desc;
}

gpushim_fft_plan make_plan(const gpushim_device_plugin& plugin, const gpushim_fft_desc& desc) {
    gpushim_fft_plan plan = nullptr;
    EXPECT_EQ(plugin.fft_plan_create(&desc, &plan), 0);
    return plan;
}

class RetiredFftPlansTest : public testing::Test {
  protected:
    void SetUp() override {
        fake_memory = {};
        plan_counts = {};
    }
    void TearDown() override { EXPECT_TRUE(fake_memory.blocks.empty()); }
    const gpushim_device_plugin plugin_ = fake_plugin();
};

TEST_F(RetiredFftPlansTest, OnlyTheSameTransformAdoptsAPlan) {
    RetiredFftPlans retired(plugin_);
    const gpushim_fft_desc desc = transform(4096, 512);
    const gpushim_fft_plan plan = make_plan(plugin_, desc);
    retired.retire(desc, plan);

    std::vector<gpushim_fft_desc> others(7, desc);
    others[0].n[1] = 256;
    others[1].howmany = 2;
    others[2].sign = +1;
    others[3].kind = GPUSHIM_FFT_R2C;
    others[4].precision = GPUSHIM_PREC_S;
    others[5].rank = 3;
    others[6] = transform(4096);
    for (const gpushim_fft_desc& other : others) EXPECT_EQ(retired.adopt(other), nullptr);

    gpushim_fft_desc same = desc;
    same.n[2] = 77;  // beyond the rank: not part of the transform
    EXPECT_EQ(retired.adopt(same), plan);
    EXPECT_EQ(retired.adopt(desc), nullptr);  // it is the caller's now
    EXPECT_EQ(plan_counts.destroyed, 0);
    plugin_.fft_plan_destroy(plan);
}

TEST_F(RetiredFftPlansTest, TheMostRecentlyRetiredAreKept) {
    fake_memory.capacity = 64 * PlanCounts::kPlanBytes;
    RetiredFftPlans retired(plugin_);
    const int64_t count = static_cast<int64_t>(RetiredFftPlans::kCapacity) + 2;
    std::vector<gpushim_fft_plan> plans;
    for (int64_t n = 1; n <= count; ++n) {
        plans.push_back(make_plan(plugin_, transform(n)));
        retired.retire(transform(n), plans.back());
    }
    EXPECT_EQ(retired.size(), RetiredFftPlans::kCapacity);
    EXPECT_EQ(plan_counts.destroyed, 2);  // the two oldest
    EXPECT_EQ(retired.adopt(transform(1)), nullptr);
    EXPECT_EQ(retired.adopt(transform(2)), nullptr);
    const gpushim_fft_plan newest = retired.adopt(transform(count));
    EXPECT_EQ(newest, plans.back());
    plugin_.fft_plan_destroy(newest);
    EXPECT_TRUE(retired.release_all());
    EXPECT_EQ(plan_counts.destroyed, count);
    EXPECT_EQ(fake_memory.used, 0u);
    EXPECT_FALSE(retired.release_all());
}

TEST_F(RetiredFftPlansTest, ReleasedWhenThePoolRunsShort) {
    RetiredFftPlans retired(plugin_);
    DeviceMemoryPool pool(plugin_);
    pool.on_shortage([&retired] { return retired.release_all(); });
    for (int64_t n : {64, 128, 256}) retired.retire(transform(n), make_plan(plugin_, transform(n)));
    ASSERT_EQ(fake_memory.used, 3 * PlanCounts::kPlanBytes);

    // 1 MiB of device memory: 512 KiB is more than the retired plans leave free.
    const DeviceBlock block = pool.allocate(std::size_t{512} << 10);
    ASSERT_NE(block.data, nullptr);
    EXPECT_EQ(plan_counts.destroyed, 3);
    EXPECT_EQ(retired.size(), 0u);

    // Nothing left to release: a request beyond the device fails.
    EXPECT_EQ(pool.allocate(fake_memory.capacity).data, nullptr);
    pool.release(block);
    pool.trim();
}

}  // namespace
}  // namespace gpushim::gpu
