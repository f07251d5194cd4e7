// Where a call runs: the GPU when it is valid, large enough and a device is usable;
// otherwise, or when the device fails, the CPU library with the caller's arguments.
#pragma once

#include <chrono>

#include "dispatch/blas3_call.h"
#include "dispatch/routines.h"
#include "dispatch/statistics.h"

namespace gpushim {

// Invalid, degenerate, disabled and below-threshold calls stay on the CPU.
bool worth_offloading(const Blas3Op& op, Routine routine);

// Computes a canonical call, or a panel of one, on the CPU library; false when it cannot.
using CpuPart = bool (*)(const Blas3Op&);

// Tries the device, which may compute part of the call through `cpu_part`; records the call
// when its result is complete. False: run it on the CPU (`fell_back` tells whether the
// device had been tried and failed).
bool run_on_gpu(const Blas3Op& op, Routine routine, CpuPart cpu_part, bool& fell_back);

// `cpu_call` forwards the caller's own arguments to the CPU library; `cpu_part` computes a
// canonical sub-call there, for the part of a call the device could not finish.
template <class CpuCall>
inline void route(const Blas3Op& op, Routine routine, CpuCall&& cpu_call, CpuPart cpu_part) {
    bool fell_back = false;
    if (worth_offloading(op, routine) && run_on_gpu(op, routine, cpu_part, fell_back)) return;
    if (!statistics_enabled()) {
        cpu_call();
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    cpu_call();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    record_call({routine, fell_back ? Placement::fallback : Placement::cpu, elapsed.count(),
                 arguments_valid(op) ? flop_count(op) : 0.0});
}

}  // namespace gpushim
