// Per-routine counters behind GPUSHIM_REPORT. Collected only when a report was asked for,
// so that small CPU calls pay nothing for them otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "dispatch/call_trace.h"
#include "dispatch/routines.h"

namespace gpushim {

enum class Placement { gpu, cpu, fallback };  // fallback: tried on the GPU, recomputed on the CPU

struct CallRecord {
    Routine routine;
    Placement placement;
    double seconds;
    double flops;
    uint64_t bytes_to_device = 0;
    uint64_t bytes_to_host = 0;
    uint64_t bytes_reused = 0;  // input bytes already on the device (residency cache)
    // For the call trace (GPUSHIM_LOG=trace), which takes the shape only while it is on.
    CpuReason reason = CpuReason::none;
    Verdict verdict = Verdict::unchecked;
    std::string shape;
};

// Whether every call is timed and recorded: for a report, or for the call trace.
bool statistics_enabled();
bool tracing_calls();

// While a call runs in the CPU library, the calls it makes through the shim's entry points
// (a reference LAPACK calling dgemm_) are part of it: they are not recorded again.
class NestedCallScope {
public:
    NestedCallScope();
    ~NestedCallScope();
    NestedCallScope(const NestedCallScope&) = delete;
    NestedCallScope& operator=(const NestedCallScope&) = delete;
};

void record_call(const CallRecord& record);

struct RoutineTotals {
    uint64_t calls = 0, gpu_calls = 0, cpu_calls = 0, fallbacks = 0;
    double seconds = 0, gpu_seconds = 0, cpu_seconds = 0, flops = 0;
    uint64_t bytes_h2d = 0, bytes_d2h = 0, bytes_reused = 0;
    uint64_t verified = 0, differed = 0;  // GPUSHIM_VERIFY: calls checked, and those that differed
};

RoutineTotals routine_totals(Routine routine);

// The report in the two formats GPUSHIM_REPORT offers.
std::string report_table();
std::string report_json();

}  // namespace gpushim
