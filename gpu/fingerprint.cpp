#include "gpu/fingerprint.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__) && !defined(GPUSHIM_PORTABLE_FINGERPRINT)
#define GPUSHIM_SSE2_FINGERPRINT 1
#include <emmintrin.h>
#endif

namespace gpushim::gpu {
namespace {

constexpr int kLanes = FingerprintHasher::kLanes;
constexpr int kStripesPerBlock = FingerprintHasher::kStripesPerBlock;
constexpr int kKeyCount = kLanes + kStripesPerBlock;

// Keys with well-spread bits, from a fixed generator (splitmix64's steps).
constexpr std::array<uint64_t, kKeyCount> make_keys(uint64_t state) {
    std::array<uint64_t, kKeyCount> keys{};
    for (uint64_t& key : keys) {
        state += 0x9e3779b97f4a7c15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        key = z ^ (z >> 31);
    }
    return keys;
}
constexpr auto kFirstKeys = make_keys(1);
constexpr auto kSecondKeys = make_keys(2);
constexpr uint64_t kScramble = 0x9e3779b1ULL;  // odd: the block scramble is a bijection
constexpr uint64_t kMultiplier = 0xd6e8feb86659fd93ULL;

// After a block, each lane is mixed bijectively, so that the sums of two blocks do not
// commute.
inline uint64_t scrambled(uint64_t lane, uint64_t key) {
    return (lane ^ (lane >> 47) ^ key) * kScramble;
}

#ifdef GPUSHIM_SSE2_FINGERPRINT
// The two lanes of a register scrambled (SSE2 has no 64-bit multiply).
inline void store_scrambled(__m128i& lanes, const uint64_t* keys) {
    alignas(16) uint64_t pair[2];
    _mm_store_si128(reinterpret_cast<__m128i*>(pair), lanes);
    for (int i = 0; i < 2; ++i) pair[i] = scrambled(pair[i], keys[i]);
    lanes = _mm_load_si128(reinterpret_cast<const __m128i*>(pair));
}
#else
// One stripe into one family's lanes: each lane adds the product of the low and high
// halves of its keyed word (a 32 x 32 -> 64 multiply: SSE2 does two lanes at once), plus
// the neighbouring word, so that a word whose keyed half is zero still counts.
inline void absorb_stripe(uint64_t (&lanes)[kLanes], const uint64_t* words, const uint64_t* keys) {
    for (int i = 0; i < kLanes; ++i) {
        const uint64_t keyed = words[i] ^ keys[i];
        lanes[i] += (keyed & 0xffffffffULL) * (keyed >> 32) + words[i ^ 1];
    }
}

inline void scramble(uint64_t (&lanes)[kLanes], const uint64_t* keys) {
    for (int i = 0; i < kLanes; ++i) lanes[i] = scrambled(lanes[i], keys[i]);
}
#endif

// A strong 64-bit finaliser: every input bit affects every output bit.
uint64_t avalanche(uint64_t x) {
    x ^= x >> 32;
    x *= kMultiplier;
    x ^= x >> 29;
    x *= kMultiplier;
    x ^= x >> 32;
    return x;
}

uint64_t merge(const uint64_t (&lanes)[kLanes], uint64_t key, uint64_t length) {
    uint64_t h = avalanche(length ^ key);
    for (const uint64_t lane : lanes) h = avalanche(h ^ lane);
    return h;
}

}  // namespace

FingerprintHasher::FingerprintHasher() {
    for (int i = 0; i < kLanes; ++i) {
        first_[i] = kFirstKeys[static_cast<std::size_t>(kKeyCount - 1 - i)];
        second_[i] = kSecondKeys[static_cast<std::size_t>(kKeyCount - 1 - i)];
    }
}

#ifdef GPUSHIM_SSE2_FINGERPRINT
// The same arithmetic as absorb_stripe and scramble, two lanes per SSE2 register (SSE2 is
// part of x86-64, so no check is needed).
std::size_t FingerprintHasher::absorb(const std::byte* bytes, std::size_t length, std::byte* copy) {
    constexpr int kVectors = kLanes / 2;
    __m128i first[kVectors];
    __m128i second[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        first[v] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first_ + 2 * v));
        second[v] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(second_ + 2 * v));
    }
    const auto absorb_vector = [](__m128i& lanes, __m128i words, __m128i swapped,
                                  const uint64_t* keys) {
        const __m128i keyed =
            _mm_xor_si128(words, _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys)));
        lanes = _mm_add_epi64(
            lanes, _mm_add_epi64(_mm_mul_epu32(keyed, _mm_srli_epi64(keyed, 32)), swapped));
    };
    std::size_t done = 0;
    for (; length - done >= kStripeBytes; done += kStripeBytes) {
        for (int v = 0; v < kVectors; ++v) {
            const __m128i words =
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + done + 16 * v));
            if (copy != nullptr)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(copy + done + 16 * v), words);
            const __m128i swapped = _mm_shuffle_epi32(words, _MM_SHUFFLE(1, 0, 3, 2));
            absorb_vector(first[v], words, swapped, kFirstKeys.data() + stripe_ + 2 * v);
            absorb_vector(second[v], words, swapped, kSecondKeys.data() + stripe_ + 2 * v);
        }
        if (++stripe_ == kStripesPerBlock) {
            for (int v = 0; v < kVectors; ++v) {
                store_scrambled(first[v], kFirstKeys.data() + kStripesPerBlock + 2 * v);
                store_scrambled(second[v], kSecondKeys.data() + kStripesPerBlock + 2 * v);
            }
            stripe_ = 0;
        }
    }
    for (int v = 0; v < kVectors; ++v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(first_ + 2 * v), first[v]);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(second_ + 2 * v), second[v]);
    }
    return done;
}
#else
std::size_t FingerprintHasher::absorb(const std::byte* bytes, std::size_t length, std::byte* copy) {
    std::size_t done = 0;
    for (; length - done >= kStripeBytes; done += kStripeBytes) {
        uint64_t words[kLanes];
        std::memcpy(words, bytes + done, kStripeBytes);
        if (copy != nullptr) std::memcpy(copy + done, words, kStripeBytes);
        absorb_stripe(first_, words, kFirstKeys.data() + stripe_);
        absorb_stripe(second_, words, kSecondKeys.data() + stripe_);
        if (++stripe_ == kStripesPerBlock) {
            scramble(first_, kFirstKeys.data() + kStripesPerBlock);
            scramble(second_, kSecondKeys.data() + kStripesPerBlock);
            stripe_ = 0;
        }
    }
    return done;
}
#endif

void FingerprintHasher::update(const std::byte* bytes, std::size_t length, std::byte* copy) {
    if (length == 0) return;  // `bytes` may then be null, which memcpy does not allow
    length_ += length;
    // Bytes of `copy` are written where `bytes` were read: one pass over the source.
    const auto copy_plain = [&](std::size_t count) {
        if (copy != nullptr) {
            std::memcpy(copy, bytes, count);
            copy += count;
        }
        bytes += count;
        length -= count;
    };
    if (pending_bytes_ > 0) {
        const std::size_t taken = std::min(length, kStripeBytes - pending_bytes_);
        std::memcpy(pending_ + pending_bytes_, bytes, taken);
        pending_bytes_ += taken;
        copy_plain(taken);
        if (pending_bytes_ < kStripeBytes) return;
        absorb(pending_, kStripeBytes, nullptr);
        pending_bytes_ = 0;
    }
    const std::size_t done = absorb(bytes, length, copy);
    if (copy != nullptr) copy += done;
    bytes += done;
    length -= done;
    std::memcpy(pending_, bytes, length);
    pending_bytes_ = length;
    copy_plain(length);
}

Fingerprint FingerprintHasher::finish() const {
    FingerprintHasher last = *this;
    if (last.pending_bytes_ > 0) {
        // Zero padding is unambiguous: the length enters the final mix.
        std::memset(last.pending_ + last.pending_bytes_, 0, kStripeBytes - last.pending_bytes_);
        last.absorb(last.pending_, kStripeBytes, nullptr);
    }
    return {merge(last.first_, kFirstKeys[0], length_),
            merge(last.second_, kSecondKeys[1], length_)};
}

}  // namespace gpushim::gpu
