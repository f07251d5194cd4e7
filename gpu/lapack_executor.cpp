#include "gpu/lapack_executor.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/device_memory_pool.h"
#include "gpu/lapack_operands.h"
#include "gpu/queue_context.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

constexpr std::size_t kMaxParts = 8;  // five arrays, the pivots, INFO, the count found
constexpr std::size_t kPivotsPart = 5;
constexpr std::size_t kInfoPart = 6;
constexpr std::size_t kFoundPart = 7;

std::size_t aligned(std::size_t bytes) {
    return (bytes + 7) / 8 * 8;
}

// LAPACK's POTRF stops at a diagonal element that is not positive or is NaN; a device
// library may carry a NaN through with INFO = 0. The real part of each diagonal element of
// the packed factor is checked, so that such a call is left to the CPU library.
template <class Real>
bool diagonal_is_positive(const std::byte* packed, int64_t n, std::size_t element) {
    for (int64_t j = 0; j < n; ++j) {
        Real value;
        std::memcpy(&value, packed + static_cast<std::size_t>(j * n + j) * element, sizeof value);
        if (!(value > Real(0))) return false;
    }
    return true;
}

bool factor_diagonal_is_positive(const LapackOp& op, const std::byte* packed) {
    const std::size_t element = element_size(op.precision);
    const bool single = op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_C;
    return single ? diagonal_is_positive<float>(packed, op.n, element)
                  : diagonal_is_positive<double>(packed, op.n, element);
}

// GELS answers INFO = k for an exactly zero R(k,k) (a rank-deficient A); the packed m x n
// factors of the device hold R in their upper triangle.
bool r_diagonal_has_zero(const LapackOp& op, const std::byte* packed) {
    const std::size_t element = element_size(op.precision);
    const std::size_t real = is_complex(op.precision) ? element / 2 : element;
    for (int64_t j = 0; j < op.n; ++j) {
        const std::byte* entry = packed + static_cast<std::size_t>(j * op.m + j) * element;
        bool zero = true;
        for (std::size_t offset = 0; offset < element; offset += real) {
            if (real == sizeof(float)) {
                float value;
                std::memcpy(&value, entry + offset, sizeof value);
                zero = zero && value == 0.0F;
            } else {
                double value;
                std::memcpy(&value, entry + offset, sizeof value);
                zero = zero && value == 0.0;
            }
        }
        if (zero) return true;
    }
    return false;
}

// Whether the device's results may be delivered: INFO = 0, and what LAPACK would still
// reject (a NaN or non-positive Cholesky pivot, a zero in GELS's R) is not there.
bool device_result_usable(const LapackOp& op, int info, const std::byte* packed_a) {
    if (info != 0) return false;
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POSV:
            return factor_diagonal_is_positive(op, packed_a);
        case GPUSHIM_GELS:
            return !r_diagonal_has_zero(op, packed_a);
        default:
            return true;
    }
}

// SYEVR finds n eigenvalues for RANGE 'A' and iu - il + 1 for 'I'; any count is at most n.
bool count_plausible(const LapackOp& op, int64_t found) {
    if (op.kind == GPUSHIM_SYEVR && op.range == 'A') return found == op.n;
    if (op.kind == GPUSHIM_SYEVR && op.range == 'I') return found == op.iu - op.il + 1;
    return found >= 0 && found <= op.n;
}

// The part of a delivered operand that holds results: SYEVR's first `found` eigenvalues
// and eigenvectors.
Matrix delivered_part(const LapackOperand& operand, int64_t found) {
    Matrix part = operand.host;
    if (operand.limits == FoundLimits::rows) part.extent.rows = std::min(part.extent.rows, found);
    if (operand.limits == FoundLimits::columns)
        part.extent.cols = std::min(part.extent.cols, found);
    return part;
}

// Whether an operand's result comes back through the chunk buffers, straight into the
// caller's array: an output that is no input, delivered whole (or its `found` prefix).
bool streamed(const LapackOperand& operand) {
    return operand.deliver && !operand.upload && operand.part == Triangle::all;
}

// Whether an operand's result comes back whole into the pinned result buffer first.
bool buffered(const LapackOperand& operand) {
    return operand.deliver && !streamed(operand);
}

std::vector<int64_t> widened_pivots(const LapackOp& op, int64_t count) {
    std::vector<int64_t> pivots(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i) pivots[static_cast<std::size_t>(i)] = caller_pivot(op, i);
    return pivots;
}

void store_pivots(const LapackOp& op, const std::vector<int64_t>& pivots) {
    for (std::size_t i = 0; i < pivots.size(); ++i) {
        const int64_t pivot = pivots[i];
        if (op.pivot_bytes == 8) {
            static_cast<int64_t*>(op.host_pivots)[i] = pivot;
        } else {
            static_cast<int32_t*>(op.host_pivots)[i] = static_cast<int32_t>(pivot);
        }
    }
}

}  // namespace

Outcome execute_lapack(const LapackOp& op, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;
    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;

    const LapackOperands operands = lapack_operands(op);
    const auto pivot_bytes = static_cast<std::size_t>(operands.pivot_count) * sizeof(int64_t);

    // Device: each array packed, then the pivots and INFO. Result buffer: each buffered
    // array (an input the call overwrites), then the pivots (when delivered) and INFO. The
    // streamed outputs (U, VT, eigenvalues, eigenvectors of the nonsymmetric and range drivers,
    // tau) come back through the chunk buffers into the caller's arrays once the call is known
    // to have succeeded, each chunk delivered while the next one is copied: no pinned buffer of
    // their size. Should that copy fail half-way, the inputs are still the caller's, and the
    // CPU writes the outputs again (all but, for SYEVR by value, entries beyond the count the
    // CPU finds, which LAPACK leaves unspecified).
    std::size_t sizes[kMaxParts] = {};
    std::size_t result_offsets[kMaxParts] = {};
    std::size_t result_bytes = 0;
    for (std::size_t i = 0; i < operands.count; ++i) {
        const LapackOperand& operand = operands.list[i];
        sizes[i] = operand.host.bytes();
        if (buffered(operand)) {
            result_offsets[i] = result_bytes;
            result_bytes += aligned(sizes[i]);
        }
    }
    sizes[kPivotsPart] = pivot_bytes;
    sizes[kInfoPart] = sizeof(int);
    sizes[kFoundPart] = operands.counts_found ? sizeof(int64_t) : 0;
    result_offsets[kPivotsPart] = result_bytes;
    if (operands.pivots_out) result_bytes += aligned(pivot_bytes);
    result_offsets[kFoundPart] = result_bytes;
    result_bytes += aligned(sizes[kFoundPart]);
    result_offsets[kInfoPart] = result_bytes;
    result_bytes += sizeof(int);
    if (!context->reserve_result(*plugin, 0, result_bytes)) {
        report_failure(*plugin, "pinned allocation", -1);
        return Outcome::failed;
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const DeviceBuffers<kMaxParts> buffers(pool, sizes);
    if (!buffers.ok()) {
        std::size_t total = 0;
        for (std::size_t bytes : sizes) total += bytes;
        report_does_not_fit(*plugin, "", total);
        return Outcome::unavailable;
    }

    gpushim_lapack_op device_op = op;
    device_op.a = device_op.b = device_op.tau = device_op.w = device_op.wi = device_op.u =
        device_op.vt = nullptr;
    device_op.lda = device_op.ldb = device_op.ldu = device_op.ldvt = 1;
    for (std::size_t i = 0; i < operands.count; ++i)
        set_device_array(device_op, operands.list[i], buffers.part(i));
    device_op.ipiv = static_cast<int64_t*>(buffers.part(kPivotsPart));
    device_op.info = static_cast<int*>(buffers.part(kInfoPart));
    device_op.found = static_cast<int64_t*>(buffers.part(kFoundPart));

    Staging staging(*plugin, *context, transfers);
    const uint64_t refused_before = DeviceMemoryPool::refused_takes_on_this_thread();
    const char* step = "upload";
    int status = 0;
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        if (operands.list[i].upload)
            status = staging.upload(buffers.part(i), operands.list[i].host, 0);
    }
    // Kept until the queue has drained: the upload reads it through the staging buffers.
    std::vector<int64_t> pivots_in;
    if (status == 0 && operands.pivots_in) {
        pivots_in = widened_pivots(op, operands.pivot_count);
        const Matrix pivots{reinterpret_cast<const std::byte*>(pivots_in.data()),
                            operands.pivot_count,
                            {operands.pivot_count, 1},
                            sizeof(int64_t)};
        status = staging.upload(device_op.ipiv, pivots, 0);
    }
    if (status == 0) {
        step = "LAPACK operation";
        const LapackEnqueue enqueue(*context);
        status = plugin->lapack(&device_op, context->queue[0]);
    }
    if (status == 0) step = "download";
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        const LapackOperand& operand = operands.list[i];
        if (!buffered(operand) || sizes[i] == 0) continue;
        status = staging.download(buffers.part(i), result_offsets[i], operand.host.column_bytes(),
                                  static_cast<std::size_t>(operand.host.extent.cols), 0);
    }
    if (status == 0 && operands.pivots_out && pivot_bytes > 0)
        status = staging.download(device_op.ipiv, result_offsets[kPivotsPart], pivot_bytes, 1, 0);
    if (status == 0 && operands.counts_found)
        status =
            staging.download(device_op.found, result_offsets[kFoundPart], sizeof(int64_t), 1, 0);
    if (status == 0)
        status = staging.download(device_op.info, result_offsets[kInfoPart], sizeof(int), 1, 0);
    status = staging.finish(status, step);
    if (status != 0 && DeviceMemoryPool::refused_takes_on_this_thread() != refused_before) {
        log::write(log::Level::info,
                   "the device library's workspace does not fit in the %.1f MB gpushim may hold "
                   "(GPUSHIM_GPU_MEMORY); computing on the CPU",
                   static_cast<double>(pool.limit()) * 1e-6);
        return Outcome::unavailable;
    }
    if (status != 0) {
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }

    const auto* result = static_cast<const std::byte*>(context->result[0]);
    int info = 0;
    std::memcpy(&info, result + result_offsets[kInfoPart], sizeof info);
    if (!device_result_usable(op, info, result + result_offsets[0])) {
        log::write(log::Level::debug,
                   "device operation reports INFO = %d (or a result LAPACK rejects); the CPU "
                   "computes the call",
                   info);
        return Outcome::unavailable;
    }
    int64_t found = 0;
    if (operands.counts_found) {
        std::memcpy(&found, result + result_offsets[kFoundPart], sizeof found);
        if (!count_plausible(op, found)) {
            report_failure(*plugin, "count of eigenvalues", -1);
            return Outcome::failed;
        }
    }
    std::vector<int64_t> pivots(operands.pivots_out ? static_cast<std::size_t>(operands.pivot_count)
                                                    : 0);
    if (!pivots.empty()) {
        std::memcpy(pivots.data(), result + result_offsets[kPivotsPart],
                    pivots.size() * sizeof(int64_t));
    }
    if (operands.pivots_out && !pivots_plausible(op, pivots.data(), operands.pivot_count)) {
        report_failure(*plugin, "pivot check", -1);
        return Outcome::failed;
    }
    step = "download";
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        const LapackOperand& operand = operands.list[i];
        if (!streamed(operand)) continue;
        // The delivered part of a packed array is a prefix of it: the first `found` columns,
        // or the first `found` entries of a vector.
        const Matrix part = delivered_part(operand, found);
        status = staging.download_packed(
            buffers.part(i), part.bytes(),
            [&part](const std::byte* chunk, std::size_t offset, std::size_t bytes) {
                deliver_chunk(chunk, offset, bytes, part);
            },
            0);
    }
    status = staging.finish(status, step);
    if (status != 0) {
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }
    if (operands.counts_found) *op.found = found;
    for (std::size_t i = 0; i < operands.count; ++i) {
        const LapackOperand& operand = operands.list[i];
        if (buffered(operand))
            deliver(result + result_offsets[i], delivered_part(operand, found), operand.part);
    }
    if (operands.pivots_out) store_pivots(op, pivots);
    return Outcome::completed;
}

}  // namespace gpushim::gpu
