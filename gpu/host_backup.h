// Copies of the caller's arrays that a device call overwrites (LAPACK's factors and
// solutions, an in-place FFT's data), taken before its results come back chunk by chunk into
// those arrays: should a copy back fail half-way, or the results be unusable, the arrays are
// put back from here for the CPU to compute the call from. Ordinary host memory: copying an
// array costs less than pinning a buffer of its size to receive the result whole and keeping
// it (pinned memory is the system's to lose: 12 GB after an order-32768 DGETRF).
#pragma once

#include <cstddef>

namespace gpushim::gpu {

// The calling thread's backup memory for one call, kept for its next calls: fresh memory
// would cost its page faults on every call (145 ms for 256 MiB on a small virtual machine;
// handing it to the kernel as lazily freeable, MADV_FREE, cost as much there), and unlike
// pinned memory the system may page it out.
class HostBackup {
  public:
    // Room for `bytes`, or nullptr when the host has none. One backup at a time per thread.
    std::byte* reserve(std::size_t bytes);
};

}  // namespace gpushim::gpu
