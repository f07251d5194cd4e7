// Copies of the caller's arrays that a device call overwrites (LAPACK's factors and
// solutions, an in-place FFT's data), taken before its results come back chunk by chunk into
// those arrays: should a copy back fail half-way, or the results be unusable, the arrays are
// put back from here for the CPU to compute the call from. Ordinary host memory: copying an
// array costs less than pinning a buffer of its size to receive the result whole and keeping
// it (pinned memory is the system's to lose: 12 GB after an order-32768 DGETRF).
#pragma once

#include <cstddef>
#include <memory>

namespace gpushim::gpu {

class HostBackup {
  public:
    // A thread keeps its backup memory for its next calls up to this size: a larger backup
    // is allocated for its call alone (its page faults cost little beside such a call).
    static constexpr std::size_t kKeptBytes = std::size_t{1} << 30;

    // Room for `bytes`, or nullptr when the host has none: the calling thread's kept memory,
    // grown, or memory of this backup's own. One backup at a time per thread.
    std::byte* reserve(std::size_t bytes);

  private:
    std::unique_ptr<std::byte[]> own_;
};

}  // namespace gpushim::gpu
