#include "gpu/blas3_executor.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/blas3_panels.h"
#include "gpu/device_memory_pool.h"
#include "gpu/host_copy_pool.h"
#include "gpu/queue_context.h"

namespace gpushim::gpu {
namespace {

// A one-panel result (the rank-k/2k updates) is staged whole in pinned memory; beyond this
// such calls stay on the CPU.
constexpr std::size_t kMaxWholeResultBytes = std::size_t{4} << 30;
constexpr std::size_t kCopyPiece = std::size_t{1} << 20;

DeviceMemoryPool& device_pool(const gpushim_device_plugin& plugin) {
    static auto* pool = new DeviceMemoryPool(plugin);  // never destroyed, like the device
    return *pool;
}

// A column-major host matrix.
struct Matrix {
    const std::byte* host;
    int64_t ld;
    MatrixExtent extent;
    std::size_t element;

    std::size_t column_bytes() const { return static_cast<std::size_t>(extent.rows) * element; }
    std::size_t bytes() const { return column_bytes() * static_cast<std::size_t>(extent.cols); }
    const std::byte* column(int64_t j) const {
        return host + static_cast<std::size_t>(j) * static_cast<std::size_t>(ld) * element;
    }
};

Matrix operand(const Blas3Op& op, Operand which) {
    const void* pointer = which == Operand::a ? op.a : which == Operand::b ? op.b : op.c;
    const int64_t ld = which == Operand::a ? op.lda : which == Operand::b ? op.ldb : op.ldc;
    return {static_cast<const std::byte*>(pointer), ld, operand_extent(op, which),
            element_size(op.precision)};
}

// Transfers of one call, on the calling thread's context.
class Staging {
  public:
    Staging(const gpushim_device_plugin& plugin, QueueContext& context, Transfers& transfers)
        : plugin_(plugin), context_(context), transfers_(transfers) {}

    // Copies a host matrix to packed device memory (leading dimension = rows) on queue q,
    // through the two pinned chunk buffers: packing one chunk overlaps the copy of the other.
    int upload(void* device, const Matrix& m, int q) {
        const std::size_t column_bytes = m.column_bytes();
        if (column_bytes == 0 || m.extent.cols == 0) return 0;
        auto* target = static_cast<std::byte*>(device);
        if (column_bytes <= QueueContext::kChunkBytes) {
            const auto per_chunk = static_cast<int64_t>(QueueContext::kChunkBytes / column_bytes);
            for (int64_t first = 0; first < m.extent.cols; first += per_chunk) {
                const int64_t count = std::min(per_chunk, m.extent.cols - first);
                const std::size_t bytes = static_cast<std::size_t>(count) * column_bytes;
                std::byte* staging = nullptr;
                if (int status = next_chunk(staging); status != 0) return status;
                parallel_copy(static_cast<std::size_t>(count), bytes, [&](std::size_t j) {
                    std::memcpy(staging + j * column_bytes,
                                m.column(first + static_cast<int64_t>(j)), column_bytes);
                });
                const std::size_t offset = static_cast<std::size_t>(first) * column_bytes;
                if (int status = send_chunk(target + offset, staging, bytes, q); status != 0)
                    return status;
            }
            return 0;
        }
        for (int64_t j = 0; j < m.extent.cols; ++j) {
            for (std::size_t offset = 0; offset < column_bytes;
                 offset += QueueContext::kChunkBytes) {
                const std::size_t bytes =
                    std::min(QueueContext::kChunkBytes, column_bytes - offset);
                std::byte* staging = nullptr;
                if (int status = next_chunk(staging); status != 0) return status;
                const std::byte* source = m.column(j) + offset;
                parallel_copy((bytes + kCopyPiece - 1) / kCopyPiece, bytes, [&](std::size_t piece) {
                    const std::size_t start = piece * kCopyPiece;
                    std::memcpy(staging + start, source + start,
                                std::min(kCopyPiece, bytes - start));
                });
                const std::size_t device_offset =
                    static_cast<std::size_t>(j) * column_bytes + offset;
                if (int status = send_chunk(target + device_offset, staging, bytes, q); status != 0)
                    return status;
            }
        }
        return 0;
    }

    // Copies a packed device matrix into the pinned result buffer of queue q, a column a
    // row: a pitch is limited (2^31 - 1 bytes in CUDA), a whole result is not.
    int download(const void* device, const Matrix& m, int q) {
        const std::size_t column_bytes = m.column_bytes();
        const auto columns = static_cast<std::size_t>(m.extent.cols);
        if (column_bytes == 0 || columns == 0) return 0;
        transfers_.bytes_to_host += column_bytes * columns;
        return plugin_.copy_to_host_2d(context_.result[q], column_bytes, device, column_bytes,
                                       column_bytes, columns, context_.queue[q]);
    }

    // Waits for everything enqueued; the chunk buffers are free afterwards.
    int synchronize_all() {
        int status = 0;
        for (gpushim_queue queue : context_.queue) {
            if (int s = plugin_.queue_synchronize(queue); s != 0 && status == 0) status = s;
        }
        for (bool& pending : context_.chunk_pending) pending = false;
        return status;
    }

  private:
    int next_chunk(std::byte*& staging) {
        const int index = next_;
        next_ ^= 1;
        if (context_.chunk_pending[index]) {
            if (int status = plugin_.event_synchronize(context_.chunk_done[index]); status != 0)
                return status;
            context_.chunk_pending[index] = false;
        }
        staging = static_cast<std::byte*>(context_.chunk[index]);
        current_ = index;
        return 0;
    }

    int send_chunk(std::byte* device, const std::byte* staging, std::size_t bytes, int q) {
        transfers_.bytes_to_device += bytes;
        if (int status = plugin_.copy_to_device_2d(device, bytes, staging, bytes, bytes, 1,
                                                   context_.queue[q]);
            status != 0) {
            return status;
        }
        context_.chunk_pending[current_] = true;
        return plugin_.event_record(context_.chunk_done[current_], context_.queue[q]);
    }

    const gpushim_device_plugin& plugin_;
    QueueContext& context_;
    Transfers& transfers_;
    int next_ = 0;
    int current_ = 0;
};

// Writes a packed result into the caller's matrix: all of it, or the triangle the routine
// updates.
void deliver(const Blas3Op& op, const std::byte* packed, const Matrix& out) {
    const std::size_t column_bytes = out.column_bytes();
    auto* host = const_cast<std::byte*>(out.host);
    parallel_copy(static_cast<std::size_t>(out.extent.cols), out.bytes(), [&](std::size_t column) {
        const auto j = static_cast<int64_t>(column);
        int64_t first = 0;
        int64_t last = out.extent.rows;
        if (writes_triangle_only(op)) {
            if (op.uplo == 'U') {
                last = std::min(j + 1, out.extent.rows);
            } else {
                first = j;
            }
        }
        const std::size_t offset = static_cast<std::size_t>(first) * out.element;
        const std::size_t length = static_cast<std::size_t>(last - first) * out.element;
        std::memcpy(
            host + static_cast<std::size_t>(j) * static_cast<std::size_t>(out.ld) * out.element +
                offset,
            packed + column * column_bytes + offset, length);
    });
}

void report_failure(const gpushim_device_plugin& plugin, const char* step, int status) {
    static std::atomic<bool> reported{false};
    const auto level = reported.exchange(true) ? log::Level::debug : log::Level::warn;
    log::write(level, "device %s failed (%s); computing on the CPU", step,
               plugin.describe_error(status));
}

}  // namespace

Outcome execute_blas3(const Blas3Op& op, CpuBlas3 cpu, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;

    const PanelAxis axis = panel_axis(op);
    const int64_t span = panel_span(op, axis);
    const int64_t width = panel_width(op, axis, config().panel_bytes);
    const int64_t panels = (span + width - 1) / width;
    const int queues = panels > 1 ? QueueContext::kQueues : 1;
    const auto panel_at = [&](int64_t p) {
        return panel_op(op, axis, p * width, std::min(width, span - p * width));
    };

    // The widest panel sizes the per-queue buffers.
    const Blas3Op widest = panel_at(0);
    const Operand output = output_operand(op);
    const bool uses_b = operand_extent(op, Operand::b).cols > 0;
    const bool uploads_c = output == Operand::c && reads_output(op);
    const std::size_t output_bytes = operand(widest, output).bytes();
    if (axis == PanelAxis::whole && output_bytes > kMaxWholeResultBytes)
        return Outcome::unavailable;

    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;
    for (int q = 0; q < queues; ++q) {
        if (!context->reserve_result(*plugin, q, output_bytes)) {
            report_failure(*plugin, "pinned allocation", -1);
            return Outcome::failed;
        }
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const Matrix a = operand(op, Operand::a);
    const DeviceBuffer device_a(pool, a.bytes());
    const std::size_t b_bytes = uses_b ? operand(widest, Operand::b).bytes() : 0;
    const std::size_t c_bytes = output == Operand::c ? operand(widest, Operand::c).bytes() : 0;
    const DeviceBuffer device_b[2] = {{pool, b_bytes}, {pool, queues > 1 ? b_bytes : 0}};
    const DeviceBuffer device_c[2] = {{pool, c_bytes}, {pool, queues > 1 ? c_bytes : 0}};
    if (!device_a.ok() || !device_b[0].ok() || !device_b[1].ok() || !device_c[0].ok() ||
        !device_c[1].ok()) {
        log::write(log::Level::info, "%.1f MB does not fit in device memory; computing on the CPU",
                   static_cast<double>(a.bytes() + queues * (b_bytes + c_bytes)) * 1e-6);
        return Outcome::unavailable;
    }

    Staging staging(*plugin, *context, transfers);
    int64_t delivered = 0;  // panels [0, delivered) are in the caller's memory
    const auto deliver_panel = [&](int64_t p) {
        const Blas3Op panel = panel_at(p);
        deliver(panel, static_cast<const std::byte*>(context->result[p % queues]),
                operand(panel, output));
        delivered = p + 1;
    };

    const char* step = "upload";
    int status = staging.upload(device_a.data(), a, 0);
    if (status == 0 && queues > 1)
        status = plugin->event_record(context->shared_ready, context->queue[0]);
    for (int64_t p = 0; status == 0 && p < panels; ++p) {
        const int q = static_cast<int>(p % queues);
        if (p >= queues) {  // queue q still holds panel p - queues: deliver it first
            step = "synchronisation";
            if ((status = plugin->event_synchronize(context->panel_done[q])) != 0) break;
            deliver_panel(p - queues);
        }
        if (p == 1 && (status = plugin->event_synchronize(context->shared_ready)) != 0) break;
        const Blas3Op panel = panel_at(p);
        step = "upload";
        if (uses_b &&
            (status = staging.upload(device_b[q].data(), operand(panel, Operand::b), q)) != 0)
            break;
        if (uploads_c &&
            (status = staging.upload(device_c[q].data(), operand(panel, Operand::c), q)) != 0)
            break;
        Blas3Op device_op = panel;
        device_op.a = device_a.data();
        device_op.lda = std::max<int64_t>(1, a.extent.rows);
        device_op.b = device_b[q].data();
        device_op.ldb = std::max<int64_t>(1, operand_extent(panel, Operand::b).rows);
        device_op.c = device_c[q].data();
        device_op.ldc = std::max<int64_t>(1, operand_extent(panel, Operand::c).rows);
        step = "BLAS operation";
        if ((status = plugin->blas3(&device_op, context->queue[q])) != 0) break;
        step = "download";
        const void* device_out = output == Operand::b ? device_b[q].data() : device_c[q].data();
        if ((status = staging.download(device_out, operand(panel, output), q)) != 0) break;
        if ((status = plugin->event_record(context->panel_done[q], context->queue[q])) != 0) break;
    }
    if (status == 0) {
        step = "synchronisation";
        status = staging.synchronize_all();
    }
    if (status == 0) {
        for (int64_t p = delivered; p < panels; ++p) deliver_panel(p);
        return Outcome::completed;
    }

    staging.synchronize_all();  // nothing may still write into buffers about to be reused
    report_failure(*plugin, step, status);
    if (delivered == 0) return Outcome::failed;
    for (int64_t p = delivered; p < panels; ++p) {
        if (!cpu(panel_at(p))) {
            // Unreachable for calls that came in through an entry point of the same integer
            // width; stopping beats returning a result that is partly stale.
            log::write(log::Level::error, "cannot compute a panel on the CPU; stopping");
            std::abort();
        }
    }
    return Outcome::recovered;
}

}  // namespace gpushim::gpu
