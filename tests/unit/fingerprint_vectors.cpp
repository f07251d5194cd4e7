// Prints the fingerprints of pseudo-random inputs of many lengths, fed whole and in
// pieces, with and without copying. Built twice (tests/unit/CMakeLists.txt): with the
// SSE2 implementation of x86-64 and with the portable one of other architectures; the
// test unit.fingerprint_portable_agrees compares the two outputs.
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/fingerprint.h"

int main() {
    using gpushim::gpu::Fingerprint;
    using gpushim::gpu::FingerprintHasher;
    std::mt19937_64 rng(42);
    std::vector<std::byte> bytes(1 << 16);
    for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
    std::vector<std::byte> copy(bytes.size());
    int mismatched_copies = 0;
    for (std::size_t length = 0; length <= bytes.size(); length += 1 + length / 3) {
        const std::byte* source = bytes.data() + length % 61;
        const std::size_t available = bytes.size() - length % 61;
        const std::size_t n = length < available ? length : available;
        const Fingerprint whole = gpushim::gpu::fingerprint(source, n);
        FingerprintHasher pieces;
        for (std::size_t at = 0; at < n;) {
            const std::size_t piece = std::min<std::size_t>(rng() % 200, n - at);
            pieces.update(source + at, piece, copy.data() + at);
            at += piece;
        }
        if (n > 0 && std::memcmp(copy.data(), source, n) != 0) ++mismatched_copies;
        const Fingerprint fed = pieces.finish();
        std::printf("%zu %016llx %016llx %s\n", n, static_cast<unsigned long long>(whole.low),
                    static_cast<unsigned long long>(whole.high),
                    fed == whole ? "same" : "DIFFERENT");
    }
    std::printf("copies that differ from their source: %d\n", mismatched_copies);
    return 0;
}
