// The device memory pool, on the host-simulated device with a small capacity.
#include "gpu/device_memory_pool.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

namespace gpushim::gpu {
namespace {

void* resolve_nothing(const char*) {
    return nullptr;
}
void log_nothing(int, const char*) {}

class DeviceMemoryPoolTest : public testing::Test {
  protected:
    static constexpr std::size_t kCapacity = 8u << 20;

    static void SetUpTestSuite() {
        setenv("GPUSHIM_HOSTSIM_MEMORY", std::to_string(kCapacity).c_str(), 1);
        void* handle = dlopen(GPUSHIM_HOSTSIM_PATH, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(handle, nullptr) << dlerror();
        auto entry = reinterpret_cast<gpushim_device_plugin_entry>(
            dlsym(handle, GPUSHIM_DEVICE_PLUGIN_ENTRY));
        plugin_ = entry();
        static const gpushim_host_services services{resolve_nothing, log_nothing, nullptr,
                                                    nullptr,         nullptr,     nullptr};
        ASSERT_EQ(plugin_->init(&services), 0);
    }

    static std::size_t device_free() {
        std::size_t free_bytes = 0, total = 0;
        plugin_->memory_info(&free_bytes, &total);
        return free_bytes;
    }

    static const gpushim_device_plugin* plugin_;
};
const gpushim_device_plugin* DeviceMemoryPoolTest::plugin_ = nullptr;

TEST_F(DeviceMemoryPoolTest, ReleasedBlocksAreReused) {
    DeviceMemoryPool pool(*plugin_);
    const DeviceBlock first = pool.allocate(1000);
    ASSERT_NE(first.data, nullptr);
    EXPECT_GE(first.size, 1000u);
    pool.release(first);
    EXPECT_EQ(pool.cached_bytes(), first.size);
    const std::size_t free_before = device_free();
    const DeviceBlock second = pool.allocate(900);
    EXPECT_EQ(second.data, first.data);
    EXPECT_EQ(device_free(), free_before);  // no device allocation
    pool.release(second);
    pool.trim();
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(device_free(), kCapacity);
}

TEST_F(DeviceMemoryPoolTest, AMuchLargerCachedBlockIsNotUsedForASmallRequest) {
    DeviceMemoryPool pool(*plugin_);
    const DeviceBlock large = pool.allocate(4u << 20);
    pool.release(large);
    const DeviceBlock small = pool.allocate(100);
    EXPECT_NE(small.data, large.data);
    pool.release(small);
    pool.trim();
}

TEST_F(DeviceMemoryPoolTest, CachedBlocksAreFreedWhenTheDeviceIsFull) {
    DeviceMemoryPool pool(*plugin_);
    const DeviceBlock cached = pool.allocate(3u << 20);
    pool.release(cached);
    const DeviceBlock big = pool.allocate(6u << 20);  // fits only once the cache is trimmed
    ASSERT_NE(big.data, nullptr);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(pool.allocate(6u << 20).data, nullptr);  // the device is really full
    pool.release(big);
    pool.trim();
}

TEST_F(DeviceMemoryPoolTest, BufferReportsWhetherItIsUsable) {
    DeviceMemoryPool pool(*plugin_);
    {
        const DeviceBuffer none(pool, 0);
        EXPECT_TRUE(none.ok());
        EXPECT_EQ(none.data(), nullptr);
        const DeviceBuffer too_big(pool, 64u << 20);
        EXPECT_FALSE(too_big.ok());
        const DeviceBuffer fits(pool, 1u << 20);
        EXPECT_TRUE(fits.ok());
    }
    EXPECT_GT(pool.cached_bytes(), 0u);
    pool.trim();
}

// Another user of the device takes memory the pool cannot see; after a call, the pool gives
// back blocks it keeps until a tenth of the device is free, then asks its clients.
TEST_F(DeviceMemoryPoolTest, RoomIsLeftForOtherUsersOfTheDevice) {
    DeviceMemoryPool pool(*plugin_);
    int hook_calls = 0;
    pool.on_shortage([&] {
        ++hook_calls;
        return false;
    });
    int own_shortage_calls = 0;
    pool.on_shortage(
        [&] {
            ++own_shortage_calls;
            return false;
        },
        false);
    const DeviceBlock first = pool.allocate(1u << 20);
    const DeviceBlock second = pool.allocate(1u << 20);
    ASSERT_NE(first.data, nullptr);
    ASSERT_NE(second.data, nullptr);
    pool.release(first);
    pool.release(second);
    pool.leave_room_for_others();  // 3/4 of the device free
    EXPECT_EQ(pool.cached_bytes(), 2u << 20);
    EXPECT_EQ(hook_calls, 0);

    void* others = nullptr;
    ASSERT_EQ(plugin_->device_alloc(&others, kCapacity - (2u << 20) - kCapacity / 20), 0);
    pool.leave_room_for_others();  // 1/20 free: one block of 1/8 makes the tenth
    EXPECT_EQ(pool.cached_bytes(), 1u << 20);
    EXPECT_EQ(device_free(), kCapacity / 20 + (1u << 20));
    EXPECT_EQ(hook_calls, 0);

    void* more_of_others = nullptr;
    ASSERT_EQ(plugin_->device_alloc(&more_of_others, 1u << 20), 0);
    pool.leave_room_for_others();  // the other block
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(hook_calls, 0);

    void* still_more = nullptr;
    ASSERT_EQ(plugin_->device_alloc(&still_more, 1u << 20), 0);
    pool.leave_room_for_others();  // 1/20 free, nothing cached: the clients are asked
    EXPECT_EQ(hook_calls, 1);
    EXPECT_EQ(own_shortage_calls, 0);  // but not for what only the library's shortage frees
    pool.release_held();
    EXPECT_EQ(hook_calls, 2);
    EXPECT_EQ(own_shortage_calls, 1);
    for (void* block : {still_more, more_of_others, others}) plugin_->device_free(block);
    EXPECT_EQ(device_free(), kCapacity);
}

// GPUSHIM_GPU_MEMORY: the pool's blocks, in use or cached, stay within the limit where the
// device has room for more; what it keeps goes first to make room.
TEST_F(DeviceMemoryPoolTest, BlocksStayWithinTheLimit) {
    DeviceMemoryPool pool(*plugin_, 4u << 20);
    const DeviceBlock first = pool.allocate(2u << 20);
    ASSERT_NE(first.data, nullptr);
    EXPECT_EQ(pool.allocate(4u << 20).data, nullptr);  // the device has 6 MiB free
    EXPECT_EQ(pool.held_bytes(), 2u << 20);
    pool.release(first);
    const DeviceBlock larger = pool.allocate(4u << 20);  // once the cached block is freed
    ASSERT_NE(larger.data, nullptr);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(pool.held_bytes(), 4u << 20);
    EXPECT_EQ(device_free(), kCapacity - (4u << 20));
    EXPECT_EQ(pool.allocate(64).data, nullptr);
    pool.release(larger);
    pool.trim();
    EXPECT_EQ(pool.held_bytes(), 0u);
    EXPECT_EQ(device_free(), kCapacity);
}

// A plugin's workspace is taken from the same account: the pool's cached blocks, then its
// clients' memory, make room for it; what does not fit is refused.
TEST_F(DeviceMemoryPoolTest, TakesCountAgainstTheLimit) {
    DeviceMemoryPool pool(*plugin_, 4u << 20);
    int hook_calls = 0;
    pool.on_shortage([&] {
        ++hook_calls;
        return false;
    });
    pool.release(pool.allocate(2u << 20));
    ASSERT_EQ(pool.cached_bytes(), 2u << 20);
    EXPECT_TRUE(pool.take(3u << 20));
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(device_free(), kCapacity);
    EXPECT_EQ(hook_calls, 0);
    EXPECT_FALSE(pool.take(2u << 20));
    EXPECT_EQ(hook_calls, 1);
    EXPECT_EQ(pool.allocate(2u << 20).data, nullptr);
    EXPECT_EQ(pool.held_bytes(), 3u << 20);
    pool.give(3u << 20);
    EXPECT_TRUE(pool.take(4u << 20));
    EXPECT_FALSE(pool.take(1));
    pool.give(4u << 20);
    EXPECT_EQ(pool.held_bytes(), 0u);
    EXPECT_FALSE(pool.take((4u << 20) + 1));
}

// Within the limit but beyond what the device has: the device's refusal gives the bytes back.
TEST_F(DeviceMemoryPoolTest, ADeviceRefusalIsNotHeld) {
    DeviceMemoryPool pool(*plugin_, 2 * kCapacity);
    const DeviceBlock all = pool.allocate(kCapacity);
    ASSERT_NE(all.data, nullptr);
    EXPECT_EQ(pool.allocate(2u << 20).data, nullptr);
    EXPECT_EQ(pool.held_bytes(), kCapacity);
    pool.release(all);
    pool.trim();
    EXPECT_EQ(pool.held_bytes(), 0u);
}

// More given back than taken (a plugin's mistake) leaves nothing held, not a wrapped count.
TEST_F(DeviceMemoryPoolTest, GivingBackTooMuchHoldsNothing) {
    for (const std::size_t limit : {std::size_t{4} << 20, DeviceMemoryPool::kNoLimit}) {
        DeviceMemoryPool pool(*plugin_, limit);
        ASSERT_TRUE(pool.take(1u << 20));
        pool.give(2u << 20);
        EXPECT_EQ(pool.held_bytes(), 0u);
        const DeviceBlock block = pool.allocate(2u << 20);
        EXPECT_NE(block.data, nullptr);
        pool.release(block);
        pool.trim();
    }
}

// A size merely preferred is taken only where it fits beside what is held: nothing kept is
// freed for it.
TEST_F(DeviceMemoryPoolTest, APreferredSizeFreesNothing) {
    DeviceMemoryPool pool(*plugin_, 4u << 20);
    pool.release(pool.allocate(2u << 20));
    const uint64_t refused_before = DeviceMemoryPool::refused_takes_on_this_thread();
    EXPECT_FALSE(pool.take(3u << 20, false));
    EXPECT_EQ(pool.cached_bytes(), 2u << 20);
    EXPECT_EQ(DeviceMemoryPool::refused_takes_on_this_thread(), refused_before + 1);
    EXPECT_TRUE(pool.take(2u << 20, false));
    pool.give(2u << 20);
    pool.trim();
}

// A client (the residency cache) frees the blocks it keeps when the pool asks, at once and
// without the pool's lock: free_on_device.
TEST_F(DeviceMemoryPoolTest, ClientsFreeTheirBlocksToMakeRoom) {
    DeviceMemoryPool pool(*plugin_, 6u << 20);
    DeviceBlock kept = pool.allocate(4u << 20);
    ASSERT_NE(kept.data, nullptr);
    pool.on_shortage([&] {
        if (kept.data == nullptr) return false;
        pool.free_on_device(kept);
        kept = {};
        return true;
    });
    const DeviceBlock needed = pool.allocate(4u << 20);
    ASSERT_NE(needed.data, nullptr);
    EXPECT_EQ(kept.data, nullptr);
    EXPECT_EQ(pool.held_bytes(), 4u << 20);
    EXPECT_EQ(device_free(), kCapacity - (4u << 20));
    pool.release(needed);
    pool.trim();
    EXPECT_EQ(device_free(), kCapacity);
}

}  // namespace
}  // namespace gpushim::gpu
