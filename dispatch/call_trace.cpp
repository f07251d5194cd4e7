#include "dispatch/call_trace.h"

#include <cinttypes>
#include <cstdio>

namespace gpushim {
namespace {

std::string sizes(const char* pattern, auto... values) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
}

}  // namespace

const char* describe(CpuReason reason) {
    switch (reason) {
        case CpuReason::none:
            return "";
        case CpuReason::disabled:
            return "GPUSHIM_DISABLE";
        case CpuReason::nothing_to_offload:
            return "invalid arguments or nothing to compute";
        case CpuReason::below_threshold:
            return "below its threshold";
        case CpuReason::inside_device_operation:
            return "called by the device plugin's CPU library";
        case CpuReason::workspace_query:
            return "a workspace query";
        case CpuReason::small_workspace:
            return "a workspace smaller than the CPU library's";
        case CpuReason::not_for_device:
            return "not a call the device takes";
        case CpuReason::device_unavailable:
            return "no usable device, or no room on it";
        case CpuReason::device_lost:
            return "the GPU was lost earlier in this process";
        case CpuReason::device_failed:
            return "the device failed: recomputed";
        case CpuReason::device_failed_part_way:
            return "the device failed part-way: the CPU computed the rest";
        case CpuReason::device_differed:
            return "the device's result failed GPUSHIM_VERIFY's check: recomputed";
    }
    return "";
}

std::string call_shape(const Blas3Op& op) {
    switch (op.kind) {
        case GPUSHIM_GEMM:
            return sizes("m=%" PRId64 " n=%" PRId64 " k=%" PRId64, op.m, op.n, op.k);
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            return sizes("n=%" PRId64 " k=%" PRId64, op.n, op.k);
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return sizes("m=%" PRId64 " n=%" PRId64 " side=%c", op.m, op.n, op.side);
    }
    return "";
}

std::string call_shape(const LapackOp& op) {
    // m is zero where the kind has none (square matrices).
    std::string shape =
        op.m != 0 ? sizes("m=%" PRId64 " n=%" PRId64, op.m, op.n) : sizes("n=%" PRId64, op.n);
    if (op.k != 0) shape += sizes(" k=%" PRId64, op.k);
    if (op.nrhs != 0) shape += sizes(" nrhs=%" PRId64, op.nrhs);
    return shape;
}

std::string call_shape(const FftOp& op) {
    const FftProblem& problem = *op.problem;
    static constexpr const char* kKinds[] = {"c2c",       "r2c",       "c2r", "split c2c",
                                             "split r2c", "split c2r", "r2r"};
    std::string shape = kKinds[static_cast<int>(problem.kind)];
    const char* separator = " ";
    for (const FftDimension& dimension : problem.dims) {
        shape += separator + std::to_string(dimension.n);
        separator = "x";
    }
    int64_t transforms = 1;
    for (const FftDimension& dimension : problem.howmany) transforms *= dimension.n;
    if (transforms != 1) shape += sizes(", %" PRId64 " transforms", transforms);
    return shape;
}

}  // namespace gpushim
