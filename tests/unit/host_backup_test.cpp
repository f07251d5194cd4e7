// A thread's backup memory is kept for its next calls (the same memory, without new page
// faults), grows when a call needs more, and is the thread's own.
#include "gpu/host_backup.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace gpushim::gpu {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(HostBackup, IsKeptForTheThreadsNextCallsAndGrows) {
    std::byte* first = nullptr;
    {
        HostBackup backup;
        first = backup.reserve(3 * kMiB);
        ASSERT_NE(first, nullptr);
        std::memset(first, 0x5a, 3 * kMiB);
    }
    {
        HostBackup backup;
        std::byte* again = backup.reserve(2 * kMiB);
        EXPECT_EQ(again, first);
        std::memset(again, 0x33, 2 * kMiB);
        EXPECT_EQ(again[2 * kMiB - 1], std::byte{0x33});
    }
    HostBackup larger;
    std::byte* grown = larger.reserve(16 * kMiB);
    ASSERT_NE(grown, nullptr);
    std::memset(grown, 0x7f, 16 * kMiB);
    EXPECT_EQ(grown[16 * kMiB - 1], std::byte{0x7f});
}

TEST(HostBackup, IsTheThreadsOwn) {
    HostBackup mine;
    std::byte* here = mine.reserve(kMiB);
    ASSERT_NE(here, nullptr);
    std::byte* there = nullptr;
    std::thread([&there] {
        HostBackup theirs;
        there = theirs.reserve(kMiB);
        if (there != nullptr) std::memset(there, 1, kMiB);
    }).join();
    EXPECT_NE(there, nullptr);
    EXPECT_NE(there, here);
}

TEST(HostBackup, TooMuchIsRefusedNotFatal) {
    HostBackup backup;
    EXPECT_EQ(backup.reserve(std::size_t{1} << 62), nullptr);
    EXPECT_NE(backup.reserve(kMiB), nullptr);  // and the thread can still have some
}

}  // namespace
}  // namespace gpushim::gpu
