// Fingerprints (gpu/fingerprint.h): the same bytes fed in any pieces give the same print,
// and any change to the bytes or their length gives another.
#include "gpu/fingerprint.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace gpushim::gpu {
namespace {

std::vector<std::byte> random_bytes(std::size_t length, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::byte> bytes(length);
    for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
    return bytes;
}

TEST(Fingerprint, DoesNotDependOnHowTheBytesAreFed) {
    const std::vector<std::byte> bytes = random_bytes(1000, 1);
    const Fingerprint whole = fingerprint(bytes.data(), bytes.size());
    std::mt19937_64 rng(2);
    for (int trial = 0; trial < 200; ++trial) {
        FingerprintHasher hasher;
        for (std::size_t at = 0; at < bytes.size();) {
            const std::size_t piece = std::min<std::size_t>(rng() % 70, bytes.size() - at);
            hasher.update(bytes.data() + at, piece);
            at += piece;
        }
        ASSERT_EQ(hasher.finish(), whole) << "trial " << trial;
    }
}

TEST(Fingerprint, EverySingleBitFlipChangesIt) {
    std::vector<std::byte> bytes = random_bytes(203, 3);  // a partial last block
    const Fingerprint original = fingerprint(bytes.data(), bytes.size());
    std::set<std::pair<uint64_t, uint64_t>> seen{{original.low, original.high}};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            bytes[i] ^= static_cast<std::byte>(1 << bit);
            const Fingerprint flipped = fingerprint(bytes.data(), bytes.size());
            bytes[i] ^= static_cast<std::byte>(1 << bit);
            ASSERT_TRUE(seen.insert({flipped.low, flipped.high}).second)
                << "byte " << i << " bit " << bit;
        }
    }
}

TEST(Fingerprint, BothHalvesChangeWithTheInput) {
    std::vector<std::byte> bytes = random_bytes(4096, 4);
    const Fingerprint original = fingerprint(bytes.data(), bytes.size());
    for (std::size_t i : {std::size_t{0}, std::size_t{2047}, std::size_t{4095}}) {
        bytes[i] ^= std::byte{0x80};
        const Fingerprint changed = fingerprint(bytes.data(), bytes.size());
        bytes[i] ^= std::byte{0x80};
        EXPECT_NE(changed.low, original.low) << i;
        EXPECT_NE(changed.high, original.high) << i;
    }
}

TEST(Fingerprint, TrailingZerosAndSwappedWordsChangeIt) {
    std::vector<std::byte> bytes = random_bytes(64, 5);
    const Fingerprint original = fingerprint(bytes.data(), bytes.size());
    for (std::size_t zeros = 1; zeros <= 40; ++zeros) {
        std::vector<std::byte> longer = bytes;
        longer.resize(bytes.size() + zeros, std::byte{0});
        EXPECT_NE(fingerprint(longer.data(), longer.size()), original) << zeros;
    }
    EXPECT_NE(fingerprint(nullptr, 0), fingerprint(bytes.data(), 1));
    // Same words, other order: within a block, and across blocks in the same lane.
    for (const auto& [first, second] : {std::pair{0, 8}, std::pair{0, 32}}) {
        std::vector<std::byte> swapped = bytes;
        std::swap_ranges(swapped.begin() + first, swapped.begin() + first + 8,
                         swapped.begin() + second);
        EXPECT_NE(fingerprint(swapped.data(), swapped.size()), original) << first << second;
    }
}

TEST(Fingerprint, ManyWordsWithOneValueAtDifferentPlacesDiffer) {
    // Sparse changes in an all-zero matrix (a common shape of real data): a 1.0 at each
    // position of 512 doubles gives 512 distinct prints.
    std::vector<double> values(512, 0.0);
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (double& value : values) {
        value = 1.0;
        const Fingerprint print = fingerprint(reinterpret_cast<const std::byte*>(values.data()),
                                              values.size() * sizeof(double));
        value = 0.0;
        EXPECT_TRUE(seen.insert({print.low, print.high}).second);
    }
}

}  // namespace
}  // namespace gpushim::gpu
