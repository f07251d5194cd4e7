// The residency cache (gpu/residency_cache.h) on a fake device: an operand gets an entry
// the second time it is seen, found by its key; an entry serves one lease at a time, keeps
// its prints only when a lease keeps them, stays within the capacity by evicting the least
// recently used entries not in use, and gives its memory back when the pool runs short.
#include "gpu/residency_cache.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "gpu/device_memory_pool.h"
#include "tests/unit/fake_device_memory.h"

namespace gpushim::gpu {
namespace {

using test::fake_memory;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// A key for an n x n double matrix at a made-up host address.
ResidencyCache::Key key(uintptr_t address, int64_t n = 512) {
    return {reinterpret_cast<const std::byte*>(address), n, n, n, sizeof(double)};
}

class ResidencyCacheTest : public testing::Test {
  protected:
    void SetUp() override {
        fake_memory = {};
        fake_memory.capacity = std::size_t{64} << 20;
    }
    void TearDown() override {
        cache_.release_unused();
        pool_.trim();
        EXPECT_TRUE(fake_memory.blocks.empty());
    }
    // The lease of an operand seen for the second time: the first sighting gets none.
    std::optional<ResidencyCache::Lease> admit(const ResidencyCache::Key& key, std::size_t bytes) {
        EXPECT_FALSE(cache_.lease(key, bytes).has_value());
        return cache_.lease(key, bytes);
    }

    const gpushim_device_plugin plugin_ = test::fake_memory_plugin();
    DeviceMemoryPool pool_{plugin_};
    ResidencyCache cache_{pool_, 8 * kMiB};
};

TEST_F(ResidencyCacheTest, AnOperandSeenOnceGetsNoEntry) {
    for (uintptr_t address = 0x1000; address < 0x1000 + 64 * 0x1000; address += 0x1000) {
        EXPECT_FALSE(cache_.lease(key(address), kMiB).has_value());
    }
    EXPECT_EQ(cache_.entry_count(), 0u);
    EXPECT_EQ(fake_memory.used, 0u);
    EXPECT_TRUE(cache_.lease(key(0x1000), kMiB).has_value());  // the second time
    // Keys seen long ago are forgotten.
    for (uintptr_t i = 0; i <= ResidencyCache::kSeenKeys; ++i) {
        EXPECT_FALSE(cache_.lease(key(0x100000 + 0x1000 * i), kMiB).has_value());
    }
    EXPECT_FALSE(cache_.lease(key(0x2000), kMiB).has_value());
}

TEST_F(ResidencyCacheTest, AKeptLeaseIsFoundAgainWithItsPrints) {
    void* device_copy = nullptr;
    {
        auto lease = admit(key(0x1000), 2 * kMiB);
        ASSERT_TRUE(lease.has_value());
        EXPECT_TRUE(lease->prints().empty());
        device_copy = lease->device();
        lease->prints() = {Fingerprint{1, 2}};
        lease->keep(true);
    }
    auto again = cache_.lease(key(0x1000), 2 * kMiB);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->device(), device_copy);
    ASSERT_EQ(again->prints().size(), 1u);
    EXPECT_EQ(again->prints()[0], (Fingerprint{1, 2}));
    EXPECT_EQ(cache_.entry_count(), 1u);
}

TEST_F(ResidencyCacheTest, ALeaseNotKeptForgetsThePrints) {
    {
        auto lease = admit(key(0x1000), 2 * kMiB);
        ASSERT_TRUE(lease.has_value());
        lease->prints() = {Fingerprint{1, 2}};
        lease->keep(true);
    }
    {
        auto failed = cache_.lease(key(0x1000), 2 * kMiB);
        ASSERT_TRUE(failed.has_value());
        failed->prints()[0] = Fingerprint{3, 4};  // an upload that did not complete
    }
    auto again = cache_.lease(key(0x1000), 2 * kMiB);
    ASSERT_TRUE(again.has_value());
    EXPECT_TRUE(again->prints().empty());
}

TEST_F(ResidencyCacheTest, AnEntryServesOneLeaseAtATime) {
    auto first = admit(key(0x1000), kMiB);
    ASSERT_TRUE(first.has_value());
    EXPECT_FALSE(cache_.lease(key(0x1000), kMiB).has_value());
    first.reset();
    EXPECT_TRUE(cache_.lease(key(0x1000), kMiB).has_value());
}

TEST_F(ResidencyCacheTest, EveryPartOfTheKeyCounts) {
    const ResidencyCache::Key base = key(0x1000, 256);
    std::vector<ResidencyCache::Key> others(5, base);
    others[0].host += 8;
    others[1].ld += 1;
    others[2].rows -= 1;
    others[3].cols -= 1;
    others[4].element = 4;
    auto held = admit(base, kMiB);
    ASSERT_TRUE(held.has_value());
    std::vector<ResidencyCache::Lease> leases;
    for (const ResidencyCache::Key& other : others) {
        auto lease = admit(other, kMiB / 2);  // another entry, not the one held
        ASSERT_TRUE(lease.has_value());
        EXPECT_NE(lease->device(), held->device());
        leases.push_back(std::move(*lease));
    }
    EXPECT_EQ(cache_.entry_count(), 6u);
}

TEST_F(ResidencyCacheTest, TheLeastRecentlyUsedEntriesMakeRoom) {
    for (uintptr_t address : {0x1000, 0x2000, 0x3000, 0x4000}) {
        ASSERT_TRUE(admit(key(address), 2 * kMiB).has_value());
    }
    EXPECT_EQ(cache_.held_bytes(), 8 * kMiB);
    ASSERT_TRUE(cache_.lease(key(0x1000), 2 * kMiB).has_value());  // now the most recent
    ASSERT_TRUE(admit(key(0x5000), 4 * kMiB).has_value());         // evicts 0x2000, 0x3000
    EXPECT_EQ(cache_.entry_count(), 3u);
    EXPECT_LE(cache_.held_bytes(), 8 * kMiB);
    // An entry evicted is new again (no prints, possibly other memory); one kept is found.
    auto kept = cache_.lease(key(0x1000), 2 * kMiB);
    ASSERT_TRUE(kept.has_value());
    EXPECT_EQ(cache_.entry_count(), 3u);
}

TEST_F(ResidencyCacheTest, EntriesInUseAreNeverEvicted) {
    auto a = admit(key(0x1000), 4 * kMiB);
    auto b = admit(key(0x2000), 4 * kMiB);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_FALSE(admit(key(0x3000), 2 * kMiB).has_value());
    EXPECT_FALSE(cache_.lease(key(0x4000), 9 * kMiB).has_value());  // beyond the capacity
    EXPECT_FALSE(cache_.lease(key(0x4000), 9 * kMiB).has_value());
    EXPECT_EQ(cache_.entry_count(), 2u);
    b.reset();
    EXPECT_TRUE(cache_.lease(key(0x3000), 2 * kMiB).has_value());  // seen: admitted at once
}

TEST_F(ResidencyCacheTest, NothingIsEvictedWhenThatCannotMakeRoom) {
    ASSERT_TRUE(admit(key(0x1000), kMiB).has_value());
    auto in_use = admit(key(0x2000), 6 * kMiB);
    ASSERT_TRUE(in_use.has_value());
    EXPECT_FALSE(admit(key(0x3000), 4 * kMiB).has_value());  // 6 + 4 > 8 whatever goes
    EXPECT_EQ(cache_.entry_count(), 2u);
    EXPECT_TRUE(cache_.lease(key(0x1000), kMiB).has_value());  // still there
    EXPECT_EQ(fake_memory.used, 7 * kMiB);
}

TEST_F(ResidencyCacheTest, ABlockLargerThanAskedForCountsWhole) {
    pool_.release(pool_.allocate(4 * kMiB));  // the pool keeps it for reuse
    auto lease = admit(key(0x1000), 3 * kMiB);
    ASSERT_TRUE(lease.has_value());
    EXPECT_EQ(cache_.held_bytes(), 4 * kMiB);
    EXPECT_EQ(fake_memory.used, 4 * kMiB);
}

// One use of an admitted entry: the upload takes prints where it checks and finds
// `reused_any` chunk unchanged; returns whether it checked.
bool use(ResidencyCache& cache, const ResidencyCache::Key& key, bool reused_any) {
    auto lease = cache.lease(key, kMiB);
    EXPECT_TRUE(lease.has_value());
    if (!lease) return false;
    const bool checks = lease->checks();
    if (checks) {
        lease->prints() = {Fingerprint{1, 2}};
    } else {
        EXPECT_TRUE(lease->prints().empty());
    }
    lease->keep(reused_any);
    return checks;
}

TEST_F(ResidencyCacheTest, AnOperandThatChangesAtEveryUseRestsLongerAndLonger) {
    const ResidencyCache::Key refilled = key(0x1000);
    ASSERT_TRUE(admit(refilled, kMiB).has_value());  // no prints yet: nothing compared
    EXPECT_TRUE(use(cache_, refilled, false));       // takes prints
    // Two uses in a row that find every chunk changed: one use without a check; then,
    // with prints taken again and two more misses, two; then four.
    std::vector<bool> checked;
    for (int i = 0; i < 14; ++i) checked.push_back(use(cache_, refilled, false));
    EXPECT_EQ(checked, (std::vector<bool>{true, true, false, true, true, true, false, false, true,
                                          true, true, false, false, false}));
    // A use that finds a chunk unchanged ends the rests: the next two misses rest once.
    EXPECT_FALSE(use(cache_, refilled, false));  // the last of the four
    EXPECT_TRUE(use(cache_, refilled, false));   // takes prints
    EXPECT_TRUE(use(cache_, refilled, true));    // a chunk was unchanged
    checked.clear();
    for (int i = 0; i < 4; ++i) checked.push_back(use(cache_, refilled, false));
    EXPECT_EQ(checked, (std::vector<bool>{true, true, false, true}));
}

TEST_F(ResidencyCacheTest, AFailedUseIsNoMiss) {
    const ResidencyCache::Key k = key(0x1000);
    ASSERT_TRUE(admit(k, kMiB).has_value());
    EXPECT_TRUE(use(cache_, k, false));  // takes prints
    EXPECT_TRUE(use(cache_, k, false));  // the first miss
    {
        auto failed = cache_.lease(k, kMiB);  // an upload that did not complete
        ASSERT_TRUE(failed.has_value());
        failed->prints()[0] = Fingerprint{5, 6};
    }
    EXPECT_TRUE(use(cache_, k, false));  // no prints: takes them, compares nothing
    EXPECT_TRUE(use(cache_, k, false));  // the second miss
    EXPECT_FALSE(use(cache_, k, false));
}

TEST_F(ResidencyCacheTest, ALeaseGivenBackUntouchedIsNoUse) {
    const ResidencyCache::Key k = key(0x1000);
    ASSERT_TRUE(admit(k, kMiB).has_value());
    EXPECT_TRUE(use(cache_, k, false));  // takes prints
    EXPECT_TRUE(use(cache_, k, false));  // the first miss
    {
        auto given_back = cache_.lease(k, kMiB);  // e.g. another operand found no room
        ASSERT_TRUE(given_back.has_value());
        given_back->keep();
    }
    EXPECT_TRUE(use(cache_, k, false));  // the prints were kept: the second miss
    EXPECT_FALSE(use(cache_, k, false));
}

// An output a call only writes: leased where calls read the array (its entry, or a new one
// after a sighting), not while the entry rests; writing it is no sighting.
TEST_F(ResidencyCacheTest, AnOperandOnlyWrittenIsLeasedWhereCallsReadIt) {
    constexpr auto kWrites = ResidencyCache::Access::writes_only;
    const ResidencyCache::Key written = key(0x1000);
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(cache_.lease(written, kMiB, kWrites).has_value());
    EXPECT_EQ(cache_.entry_count(), 0u);
    EXPECT_FALSE(cache_.lease(written, kMiB).has_value());  // read: the first sighting
    {
        auto result = cache_.lease(written, kMiB, kWrites);
        ASSERT_TRUE(result.has_value());
        EXPECT_TRUE(result->prints().empty());
        result->prints() = {Fingerprint{3, 4}};  // a result delivered
        result->keep();
    }
    auto read = cache_.lease(written, kMiB);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->prints(), (ChunkPrints{Fingerprint{3, 4}}));
    read->keep(true);
    read.reset();

    EXPECT_TRUE(use(cache_, written, false));  // two misses: the entry rests one use
    EXPECT_TRUE(use(cache_, written, false));
    EXPECT_FALSE(cache_.lease(written, kMiB, kWrites).has_value());  // that use
    EXPECT_TRUE(cache_.lease(written, kMiB, kWrites).has_value());
}

// The matrix a factorization overwrites with its factors: an entry from the first sighting,
// within the capacity like any other.
TEST_F(ResidencyCacheTest, FactorsGetAnEntryAtTheirFirstSighting) {
    constexpr auto kFactors = ResidencyCache::Access::reads_into_factors;
    auto factors = cache_.lease(key(0x1000), kMiB, kFactors);
    ASSERT_TRUE(factors.has_value());
    EXPECT_EQ(cache_.entry_count(), 1u);
    EXPECT_FALSE(cache_.lease(key(0x2000), 9 * kMiB, kFactors).has_value());  // beyond 8 MiB
    EXPECT_EQ(cache_.entry_count(), 1u);
    factors->prints() = {Fingerprint{7, 8}};
    factors->keep();
    factors.reset();
    auto solve = cache_.lease(key(0x1000), kMiB);
    ASSERT_TRUE(solve.has_value());
    EXPECT_EQ(solve->prints(), (ChunkPrints{Fingerprint{7, 8}}));
}

// An input read in panels asks for the whole array's entry: found only with prints and not
// resting, never made; asking sights the array, so that a result written into it is kept.
TEST_F(ResidencyCacheTest, AWholeArrayReadInPanelsIsLeasedOnlyWhereItsCopyIsKnown) {
    constexpr auto kWhole = ResidencyCache::Access::reads_whole_if_kept;
    constexpr auto kWrites = ResidencyCache::Access::writes_only;
    const ResidencyCache::Key array = key(0x1000);
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(cache_.lease(array, kMiB, kWhole).has_value());
    EXPECT_EQ(cache_.entry_count(), 0u);
    {
        auto result = cache_.lease(array, kMiB, kWrites);
        ASSERT_TRUE(result.has_value());
        EXPECT_FALSE(cache_.lease(array, kMiB, kWhole).has_value());  // in use
    }
    EXPECT_FALSE(cache_.lease(array, kMiB, kWhole).has_value());  // no prints: not kept
    {
        auto result = cache_.lease(array, kMiB, kWrites);
        ASSERT_TRUE(result.has_value());
        result->prints() = {Fingerprint{3, 4}};
        result->keep();
    }
    auto whole = cache_.lease(array, kMiB, kWhole);
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->prints(), (ChunkPrints{Fingerprint{3, 4}}));
    whole->keep(true);
    whole.reset();

    EXPECT_TRUE(use(cache_, array, false));  // two misses: the entry rests one use
    EXPECT_TRUE(use(cache_, array, false));
    EXPECT_FALSE(cache_.lease(array, kMiB, kWhole).has_value());  // that use
    EXPECT_FALSE(cache_.lease(array, kMiB, kWhole).has_value());  // its prints are gone
    {
        auto result = cache_.lease(array, kMiB, kWrites);
        ASSERT_TRUE(result.has_value());
        result->prints() = {Fingerprint{5, 6}};
        result->keep();
    }
    EXPECT_TRUE(cache_.lease(array, kMiB, kWhole).has_value());
}

TEST_F(ResidencyCacheTest, NoRoomOnTheDeviceMeansNoLease) {
    fake_memory.capacity = 3 * kMiB;
    auto held = admit(key(0x1000), 2 * kMiB);
    ASSERT_TRUE(held.has_value());
    EXPECT_FALSE(admit(key(0x2000), 2 * kMiB).has_value());
    EXPECT_EQ(cache_.entry_count(), 1u);
    EXPECT_EQ(cache_.held_bytes(), 2 * kMiB);
}

TEST_F(ResidencyCacheTest, UnusedEntriesAreFreedWhenThePoolRunsShort) {
    fake_memory.capacity = 8 * kMiB;  // room for the two entries and nothing else
    pool_.on_shortage([this] { return cache_.release_unused(); });
    ASSERT_TRUE(admit(key(0x1000), 4 * kMiB).has_value());
    auto in_use = admit(key(0x2000), 4 * kMiB);
    ASSERT_TRUE(in_use.has_value());

    const DeviceBlock block = pool_.allocate(4 * kMiB);  // only with 0x1000's memory back
    ASSERT_NE(block.data, nullptr);
    EXPECT_EQ(cache_.entry_count(), 1u);
    EXPECT_EQ(cache_.held_bytes(), 4 * kMiB);
    EXPECT_EQ(pool_.allocate(4 * kMiB).data, nullptr);  // the entry in use stays
    pool_.release(block);
}

}  // namespace
}  // namespace gpushim::gpu
