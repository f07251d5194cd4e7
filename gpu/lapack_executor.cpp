#include "gpu/lapack_executor.h"

#include <algorithm>
#include <cstring>

#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

std::size_t aligned(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

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

}  // namespace

Outcome execute_lapack(const LapackOp& op, int64_t* pivots, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;
    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;

    const bool lu = op.kind == GPUSHIM_GETRF;
    const int64_t rows = lu ? op.m : op.n;
    const Matrix a{static_cast<const std::byte*>(op.a), op.lda, {rows, op.n}, element_size(op.precision)};
    const auto pivot_count = static_cast<std::size_t>(lu ? std::min(op.m, op.n) : 0);
    // The pinned result buffer holds the factors, then the pivots, then INFO.
    const std::size_t pivots_offset = aligned(a.bytes());
    const std::size_t info_offset = pivots_offset + aligned(pivot_count * sizeof(int64_t));
    if (!context->reserve_result(*plugin, 0, info_offset + sizeof(int))) {
        report_failure(*plugin, "pinned allocation", -1);
        return Outcome::failed;
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const DeviceBuffers<3> buffers(pool, {a.bytes(), pivot_count * sizeof(int64_t), sizeof(int)});
    void* const device_a = buffers.part(0);
    void* const device_pivots = buffers.part(1);
    void* const device_info = buffers.part(2);
    if (!buffers.ok()) {
        log::write(log::Level::info, "%.1f MB does not fit in device memory; computing on the CPU",
                   static_cast<double>(a.bytes()) * 1e-6);
        return Outcome::unavailable;
    }

    gpushim_lapack_op device_op = op;
    device_op.a = device_a;
    device_op.lda = std::max<int64_t>(1, rows);
    device_op.ipiv = static_cast<int64_t*>(device_pivots);
    device_op.info = static_cast<int*>(device_info);

    Staging staging(*plugin, *context, transfers);
    const char* step = "upload";
    int status = staging.upload(device_a, a, 0);
    if (status == 0) {
        step = "LAPACK operation";
        status = plugin->lapack(&device_op, context->queue[0]);
    }
    if (status == 0) {
        step = "download";
        status = staging.download(device_a, a, 0);
    }
    if (status == 0) status = staging.download(device_pivots, pivots_offset, pivot_count * sizeof(int64_t), 1, 0);
    if (status == 0) status = staging.download(device_info, info_offset, sizeof(int), 1, 0);
    const int sync_status = staging.synchronize_all();
    if (status == 0 && sync_status != 0) {
        step = "synchronisation";
        status = sync_status;
    }
    if (status != 0) {
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }

    const auto* result = static_cast<const std::byte*>(context->result[0]);
    int info = 0;
    std::memcpy(&info, result + info_offset, sizeof info);
    if (info != 0 || (!lu && !factor_diagonal_is_positive(op, result))) {
        log::write(log::Level::debug, "device factorization reports INFO = %d (or a NaN pivot); the CPU computes the call",
                   info);
        return Outcome::unavailable;
    }
    const Triangle part = lu ? Triangle::all : op.uplo == 'U' ? Triangle::upper : Triangle::lower;
    deliver(result, a, part);
    std::memcpy(pivots, result + pivots_offset, pivot_count * sizeof(int64_t));
    return Outcome::completed;
}

}  // namespace gpushim::gpu
