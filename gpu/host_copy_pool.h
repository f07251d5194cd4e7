// Parallel host memory copies for staging. One thread copies host memory at a fraction of
// what PCIe moves (roughly 10 GB/s against 50 GB/s), so packing operands into pinned
// buffers and unpacking results is spread over a few threads, started on first use.
#pragma once

#include <cstddef>
#include <functional>

namespace gpushim::gpu {

// Calls copy(i) for i in [0, count), on up to `threads` threads including the caller, and
// returns when all are done. Jobs below ~1 MB in total run on the caller alone.
void parallel_copy(std::size_t count, std::size_t total_bytes,
                   const std::function<void(std::size_t)>& copy);

// The bytes one job of a copy moves: large enough to amortise handing it to a thread.
inline constexpr std::size_t kCopyPieceBytes = std::size_t{1} << 20;

// memcpy of `bytes`, in pieces of kCopyPieceBytes spread over the copy threads.
void parallel_memcpy(std::byte* destination, const std::byte* source, std::size_t bytes);

// The number of threads parallel_copy uses (GPUSHIM_COPY_THREADS, or a default).
unsigned copy_threads();

}  // namespace gpushim::gpu
