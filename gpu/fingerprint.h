// Fingerprints of host bytes, for the residency cache: a device copy of an operand is
// reused only when the fingerprint of the caller's bytes equals the one taken when they
// were uploaded. 128 bits from two families of eight 64-bit lanes, each lane keyed by its
// position in the stripe and the stripe's position in its block, the lanes scrambled after
// every block: a change to the bytes, their order or their length goes unseen by either
// half with a chance of the order of 2^-64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpushim::gpu {

struct Fingerprint {
    uint64_t low = 0;
    uint64_t high = 0;
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

// Accumulates a byte stream fed in pieces of any length: feeding the same bytes in other
// pieces gives the same fingerprint.
class FingerprintHasher {
  public:
    static constexpr int kLanes = 8;
    static constexpr std::size_t kStripeBytes = 8 * kLanes;
    static constexpr int kStripesPerBlock = 16;

    FingerprintHasher();

    // Adds `length` bytes; with `copy`, also copies them there (reading them once).
    void update(const std::byte* bytes, std::size_t length, std::byte* copy = nullptr);
    void update(const Fingerprint& print) {
        update(reinterpret_cast<const std::byte*>(&print), sizeof print);
    }
    Fingerprint finish() const;

  private:
    // Absorbs whole stripes (copying them to `copy` unless nullptr); returns the bytes
    // consumed.
    std::size_t absorb(const std::byte* bytes, std::size_t length, std::byte* copy);

    uint64_t first_[kLanes];
    uint64_t second_[kLanes];
    int stripe_ = 0;  // within the current block
    std::byte pending_[kStripeBytes];
    std::size_t pending_bytes_ = 0;
    uint64_t length_ = 0;
};

inline Fingerprint fingerprint(const std::byte* bytes, std::size_t length) {
    FingerprintHasher hasher;
    hasher.update(bytes, length);
    return hasher.finish();
}

}  // namespace gpushim::gpu
