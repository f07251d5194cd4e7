// What the residency cache costs the host, per byte of an operand (gpu/fingerprint.h):
//   memcpy            packing into pinned staging without the cache (the baseline)
//   copy_and_print    packing with the fingerprint taken on the way (an operand kept)
//   print             the check of a kept operand (hash only: the bytes are not copied)
// One thread, 1 MiB pieces as the copy threads take them (gpu/host_copy_pool.h); the
// operand is larger than the caches, as the ones worth offloading are. Bytes per second
// in the output; the ratios to memcpy are what matter.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "gpu/fingerprint.h"

namespace {

constexpr std::size_t kOperandBytes = std::size_t{256} << 20;
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

struct Buffers {
    std::vector<std::byte> source, staging;
    Buffers() : source(kOperandBytes), staging(kOperandBytes) {
        for (std::size_t i = 0; i < kOperandBytes; ++i) source[i] = static_cast<std::byte>(i * 37);
    }
};
Buffers& buffers() {
    static Buffers instance;
    return instance;
}

void BM_memcpy(benchmark::State& state) {
    Buffers& b = buffers();
    for (auto _ : state) {
        for (std::size_t at = 0; at < kOperandBytes; at += kPieceBytes)
            std::memcpy(b.staging.data() + at, b.source.data() + at, kPieceBytes);
        benchmark::DoNotOptimize(b.staging.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kOperandBytes));
}

void BM_copy_and_print(benchmark::State& state) {
    Buffers& b = buffers();
    for (auto _ : state) {
        for (std::size_t at = 0; at < kOperandBytes; at += kPieceBytes) {
            gpushim::gpu::FingerprintHasher hasher;
            hasher.update(b.source.data() + at, kPieceBytes, b.staging.data() + at);
            benchmark::DoNotOptimize(hasher.finish());
        }
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kOperandBytes));
}

void BM_print(benchmark::State& state) {
    Buffers& b = buffers();
    for (auto _ : state) {
        for (std::size_t at = 0; at < kOperandBytes; at += kPieceBytes)
            benchmark::DoNotOptimize(gpushim::gpu::fingerprint(b.source.data() + at, kPieceBytes));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kOperandBytes));
}

BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_copy_and_print)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_print)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
