#include "gpu/lapack_executor.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/device_memory_pool.h"
#include "gpu/host_backup.h"
#include "gpu/lapack_operands.h"
#include "gpu/queue_context.h"
#include "gpu/residency_cache.h"
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

// The address of element (j, j) of a column-major matrix.
const std::byte* diagonal_element(const Matrix& m, int64_t j) {
    return m.host + static_cast<std::size_t>(j * m.ld + j) * m.element;
}

// LAPACK's POTRF stops at a diagonal element that is not positive or is NaN; a device
// library may carry a NaN through with INFO = 0. The real part of each diagonal element of
// the factor is checked, so that such a call is left to the CPU library.
template <class Real>
bool diagonal_is_positive(const Matrix& factor) {
    for (int64_t j = 0; j < factor.extent.cols; ++j) {
        Real value;
        std::memcpy(&value, diagonal_element(factor, j), sizeof value);
        if (!(value > Real(0))) return false;
    }
    return true;
}

bool factor_diagonal_is_positive(const LapackOp& op, const Matrix& factor) {
    const bool single = op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_C;
    return single ? diagonal_is_positive<float>(factor) : diagonal_is_positive<double>(factor);
}

// GELS answers INFO = k for an exactly zero R(k,k) (a rank-deficient A); the m x n factors
// hold R in their upper triangle.
bool r_diagonal_has_zero(const LapackOp& op, const Matrix& factors) {
    const std::size_t real = is_complex(op.precision) ? factors.element / 2 : factors.element;
    for (int64_t j = 0; j < std::min(factors.extent.rows, factors.extent.cols); ++j) {
        const std::byte* entry = diagonal_element(factors, j);
        bool zero = true;
        for (std::size_t offset = 0; offset < factors.element; offset += real) {
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

// Whether the device's factors, delivered into the caller's A, are what LAPACK would
// accept: not a NaN or non-positive Cholesky pivot, nor a zero in GELS's R.
bool delivered_factors_acceptable(const LapackOp& op, const Matrix& a) {
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POSV:
            return factor_diagonal_is_positive(op, a);
        case GPUSHIM_GELS:
            return !r_diagonal_has_zero(op, a);
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

// Whether the call overwrites an array of the caller's (factors, solutions, SYEVD's
// eigenvectors): it is kept aside until the device's version has arrived whole and is
// acceptable.
bool overwritten(const LapackOperand& operand) {
    return operand.deliver && operand.upload;
}

// Whether all of an array comes back to the caller: not a triangle, nor SYEVR's first
// `found` columns.
bool delivered_whole(const LapackOperand& operand) {
    return operand.deliver && operand.part == Triangle::all &&
           operand.limits == FoundLimits::nothing;
}

// Whether an operand's device copy may be kept for later calls (gpu/residency_cache.h):
// the factors a solve only reads, and an array uploaded and delivered whole (factors,
// solutions, inverses), whose device copy then holds what the caller's array holds. Not an
// array the device changes without delivering it all (a triangle, SYEVD's destroyed A).
bool may_stay_on_device(const LapackOperand& operand) {
    return operand.upload && (operand.device_reads_only || delivered_whole(operand));
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

    // Device: each array packed, then the pivots, INFO and the count found. Result buffer
    // (pinned): the pivots (when delivered), the count found and INFO. Once they say the call
    // succeeded, the arrays come back through the chunk buffers into the caller's, each chunk
    // written while the next one is copied. The arrays the call overwrites are first copied
    // aside (the backup), while the device computes: should a copy fail half-way, or the
    // factors be what LAPACK rejects, they are put back and the CPU computes the call from
    // them, writing every output again (all but, for SYEVR by value, entries beyond the count
    // the CPU finds, which LAPACK leaves unspecified).
    std::size_t sizes[kMaxParts] = {};
    std::size_t backup_offsets[kMaxParts] = {};
    std::size_t backup_bytes = 0;
    for (std::size_t i = 0; i < operands.count; ++i) {
        const LapackOperand& operand = operands.list[i];
        sizes[i] = operand.host.bytes();
        if (overwritten(operand)) {
            backup_offsets[i] = backup_bytes;
            backup_bytes += sizes[i];
        }
    }
    sizes[kPivotsPart] = pivot_bytes;
    sizes[kInfoPart] = sizeof(int);
    sizes[kFoundPart] = operands.counts_found ? sizeof(int64_t) : 0;
    std::size_t result_offsets[kMaxParts] = {};
    std::size_t result_bytes = operands.pivots_out ? aligned(pivot_bytes) : 0;
    result_offsets[kFoundPart] = result_bytes;
    result_bytes += aligned(sizes[kFoundPart]);
    result_offsets[kInfoPart] = result_bytes;
    result_bytes += sizeof(int);
    if (const int status = context->reserve_result(*plugin, 0, result_bytes); status != 0) {
        report_failure(*plugin, "pinned allocation", status);
        return Outcome::failed;
    }

    // The arrays that may stay on the device come from the residency cache: a copy still
    // there is not uploaded again, and the results delivered whole stay there, with the
    // prints taken as they are delivered.
    std::array<std::optional<ResidencyCache::Lease>, kMaxParts> leases;
    if (ResidencyCache* cache = residency_cache(*plugin); cache != nullptr) {
        for (std::size_t i = 0; i < operands.count; ++i) {
            const LapackOperand& operand = operands.list[i];
            if (may_stay_on_device(operand))
                leases[i] =
                    lease_matrix(*cache, operand.host,
                                 operand.factors ? ResidencyCache::Access::reads_into_factors
                                                 : ResidencyCache::Access::reads);
        }
    }
    DeviceMemoryPool& pool = device_pool(*plugin);
    std::optional<DeviceBuffers<kMaxParts>> buffers;
    const auto allocate_buffers = [&] {
        std::size_t own[kMaxParts];
        for (std::size_t i = 0; i < kMaxParts; ++i) own[i] = leases[i] ? 0 : sizes[i];
        buffers.emplace(pool, own);
    };
    allocate_buffers();
    // Given back before anything was uploaded: their entries stay as they were.
    const auto give_back_leases = [&leases] {
        for (auto& lease : leases) {
            if (lease) lease->keep();
            lease.reset();
        }
    };
    const auto leased_any = [&] {
        return std::any_of(leases.begin(), leases.end(),
                           [](const auto& l) { return l.has_value(); });
    };
    if (!buffers->ok() && leased_any()) {
        // Without the leases, the pool's shortage hook can free what they hold.
        buffers.reset();
        give_back_leases();
        allocate_buffers();
    }
    if (!buffers->ok()) {
        std::size_t total = 0;
        for (std::size_t bytes : sizes) total += bytes;
        report_does_not_fit(*plugin, "", total);
        return Outcome::unavailable;
    }
    const auto device_array = [&](std::size_t i) {
        return leases[i] ? leases[i]->device() : buffers->part(i);
    };
    HostBackup host_backup;
    std::byte* const backup = backup_bytes > 0 ? host_backup.reserve(backup_bytes) : nullptr;
    if (backup_bytes > 0 && backup == nullptr) {
        give_back_leases();
        log::write(log::Level::info,
                   "no host memory for a %.1f MB copy of the arrays the call overwrites; "
                   "computing on the CPU",
                   static_cast<double>(backup_bytes) * 1e-6);
        return Outcome::unavailable;
    }

    gpushim_lapack_op device_op = op;
    device_op.a = device_op.b = device_op.tau = device_op.w = device_op.wi = device_op.u =
        device_op.vt = nullptr;
    device_op.lda = device_op.ldb = device_op.ldu = device_op.ldvt = 1;
    for (std::size_t i = 0; i < operands.count; ++i)
        set_device_array(device_op, operands.list[i], device_array(i));
    device_op.ipiv = static_cast<int64_t*>(buffers->part(kPivotsPart));
    device_op.info = static_cast<int*>(buffers->part(kInfoPart));
    device_op.found = static_cast<int64_t*>(buffers->part(kFoundPart));

    Staging staging(*plugin, *context, transfers);
    const uint64_t refused_before = DeviceMemoryPool::refused_takes_on_this_thread();
    const char* step = "upload";
    int status = 0;
    // With a lease, an array is compared with the prints of its copy on the device (a read
    // one also gets prints where it has none); an array delivered whole gets the prints of
    // what is delivered instead. A matrix to factor is not compared: it is a new one (often
    // a copy of the program's), never the factors left there.
    std::array<bool, kMaxParts> reused{};
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        const LapackOperand& operand = operands.list[i];
        if (!operand.upload) continue;
        ResidencyCache::Lease* lease = leases[i] ? &*leases[i] : nullptr;
        const bool compares = lease != nullptr && lease->checks() && !operand.factors &&
                              (operand.device_reads_only || !lease->prints().empty());
        const uint64_t before = transfers.bytes_reused;
        status =
            staging.upload(device_array(i), operand.host, 0, compares ? &lease->prints() : nullptr);
        reused[i] = transfers.bytes_reused > before;
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
    // INFO starts as -1: a device library that never writes it (CUDA 12.0's cuSOLVER potrf
    // left it unwritten for some matrices, cupy/cupy#7309) sends the call to the CPU, instead
    // of passing a stale 0 from the memory's last use. Kept until the queue has drained.
    const int unset_info = -1;
    if (status == 0) {
        const Matrix info{reinterpret_cast<const std::byte*>(&unset_info), 1, {1, 1}, sizeof(int)};
        status = staging.upload(device_op.info, info, 0);
    }
    if (status == 0) {
        step = "LAPACK operation";
        const LapackEnqueue enqueue(*context);
        status = plugin->lapack(&device_op, context->queue[0]);
    }
    if (status == 0) step = "download";
    if (status == 0 && operands.pivots_out && pivot_bytes > 0)
        status = staging.download(device_op.ipiv, 0, pivot_bytes, 1, 0);
    if (status == 0 && operands.counts_found)
        status =
            staging.download(device_op.found, result_offsets[kFoundPart], sizeof(int64_t), 1, 0);
    if (status == 0)
        status = staging.download(device_op.info, result_offsets[kInfoPart], sizeof(int), 1, 0);
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        if (overwritten(operands.list[i])) pack(operands.list[i].host, backup + backup_offsets[i]);
    }
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
    if (info != 0) {
        log::write(log::Level::debug,
                   "device operation reports INFO = %d; the CPU computes the call", info);
        return Outcome::unavailable;
    }
    int64_t found = 0;
    if (operands.counts_found) {
        std::memcpy(&found, result + result_offsets[kFoundPart], sizeof found);
        if (!count_plausible(op, found)) {
            report_failure(*plugin, "count of eigenvalues", kRejectedByHost);
            return Outcome::failed;
        }
    }
    std::vector<int64_t> pivots(operands.pivots_out ? static_cast<std::size_t>(operands.pivot_count)
                                                    : 0);
    if (!pivots.empty()) std::memcpy(pivots.data(), result, pivots.size() * sizeof(int64_t));
    if (operands.pivots_out && !pivots_plausible(op, pivots.data(), operands.pivot_count)) {
        report_failure(*plugin, "pivot check", kRejectedByHost);
        return Outcome::failed;
    }

    std::array<ChunkPrints, kMaxParts> delivered_prints;
    for (std::size_t i = 0; i < operands.count && status == 0; ++i) {
        const LapackOperand& operand = operands.list[i];
        if (!operand.deliver) continue;
        // The delivered part of a packed array is a prefix of it: the first `found` columns,
        // or the first `found` entries of a vector.
        const Matrix part = delivered_part(operand, found);
        // Prints describe the whole array: taken only where all of it is delivered.
        std::optional<DeliveredPrints> printed;
        if (leases[i] && leases[i]->checks() && delivered_whole(operand))
            printed.emplace(part.bytes());
        status = staging.download_packed(
            device_array(i), part.bytes(),
            [&](const std::byte* chunk, std::size_t offset, std::size_t bytes) {
                if (printed) {
                    printed->deliver(chunk, offset, bytes, part);
                } else {
                    deliver_chunk(chunk, offset, bytes, part, operand.part);
                }
            },
            0);
        if (status == 0 && printed) delivered_prints[i] = printed->finish();
    }
    status = staging.finish(status, step);
    const auto put_back = [&] {
        for (std::size_t i = 0; i < operands.count; ++i) {
            const LapackOperand& operand = operands.list[i];
            if (overwritten(operand))
                deliver(backup + backup_offsets[i], operand.host, operand.part);
        }
    };
    if (status != 0) {
        put_back();
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }
    if (!delivered_factors_acceptable(op, operands.list[0].host)) {
        put_back();
        log::write(log::Level::debug,
                   "the device's factors hold what LAPACK rejects; the CPU computes the call");
        return Outcome::unavailable;
    }
    if (operands.counts_found) *op.found = found;
    if (operands.pivots_out) store_pivots(op, pivots);
    for (std::size_t i = 0; i < operands.count; ++i) {
        if (!leases[i]) continue;
        if (operands.list[i].deliver && leases[i]->checks())
            leases[i]->prints() = std::move(delivered_prints[i]);
        if (operands.list[i].factors) {
            leases[i]->keep();
        } else {
            leases[i]->keep(reused[i]);
        }
    }
    return Outcome::completed;
}

}  // namespace gpushim::gpu
