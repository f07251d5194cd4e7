#include "gpu/blas3_executor.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"

namespace gpushim::gpu {
namespace {

// Larger results would need a pinned result buffer beyond what is reasonable to hold
// per thread; such calls stay on the CPU until the executor tiles them.
constexpr std::size_t kMaxResultBytes = std::size_t{4} << 30;

DeviceMemoryPool& device_pool(const gpushim_device_plugin& plugin) {
    static auto* pool = new DeviceMemoryPool(plugin);  // never destroyed, like the device
    return *pool;
}

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

class DeviceRun {
public:
    DeviceRun(const gpushim_device_plugin& plugin, QueueContext& context, Transfers& transfers)
        : plugin_(plugin), context_(context), transfers_(transfers) {}

    // Copies a host matrix to packed device memory (leading dimension = rows), through the
    // two pinned chunk buffers so that packing one chunk overlaps the copy of the other.
    int upload(void* device, const Matrix& m) {
        const std::size_t column_bytes = m.column_bytes();
        if (column_bytes == 0 || m.extent.cols == 0) return 0;
        auto* target = static_cast<std::byte*>(device);
        if (column_bytes <= QueueContext::kChunkBytes) {
            const int64_t columns_per_chunk = static_cast<int64_t>(QueueContext::kChunkBytes / column_bytes);
            for (int64_t first = 0; first < m.extent.cols; first += columns_per_chunk) {
                const int64_t count = std::min(columns_per_chunk, m.extent.cols - first);
                std::byte* staging = nullptr;
                if (int status = next_chunk(staging); status != 0) return status;
                for (int64_t j = 0; j < count; ++j) {
                    std::memcpy(staging + static_cast<std::size_t>(j) * column_bytes, m.column(first + j), column_bytes);
                }
                if (int status = send_chunk(target + static_cast<std::size_t>(first) * column_bytes, column_bytes,
                                            staging, column_bytes, static_cast<std::size_t>(count));
                    status != 0) {
                    return status;
                }
            }
            return 0;
        }
        for (int64_t j = 0; j < m.extent.cols; ++j) {
            for (std::size_t offset = 0; offset < column_bytes; offset += QueueContext::kChunkBytes) {
                const std::size_t piece = std::min(QueueContext::kChunkBytes, column_bytes - offset);
                std::byte* staging = nullptr;
                if (int status = next_chunk(staging); status != 0) return status;
                std::memcpy(staging, m.column(j) + offset, piece);
                if (int status = send_chunk(target + static_cast<std::size_t>(j) * column_bytes + offset, piece,
                                            staging, piece, 1);
                    status != 0) {
                    return status;
                }
            }
        }
        return 0;
    }

    // Copies packed device memory into the context's pinned result buffer.
    int download(const void* device, std::size_t bytes) {
        transfers_.bytes_to_host += bytes;
        return plugin_.copy_to_host_2d(context_.result, bytes, device, bytes, bytes, 1, context_.queue);
    }

    int finish() {
        for (bool& pending : context_.chunk_pending) pending = false;
        return plugin_.queue_synchronize(context_.queue);
    }

private:
    int next_chunk(std::byte*& staging) {
        const int index = next_;
        next_ ^= 1;
        if (context_.chunk_pending[index]) {
            if (int status = plugin_.event_synchronize(context_.chunk_done[index]); status != 0) return status;
            context_.chunk_pending[index] = false;
        }
        staging = static_cast<std::byte*>(context_.chunk[index]);
        current_ = index;
        return 0;
    }

    int send_chunk(std::byte* device, std::size_t device_pitch, const std::byte* staging, std::size_t width,
                   std::size_t rows) {
        transfers_.bytes_to_device += width * rows;
        if (int status = plugin_.copy_to_device_2d(device, device_pitch, staging, width, width, rows,
                                                   context_.queue);
            status != 0) {
            return status;
        }
        context_.chunk_pending[current_] = true;
        return plugin_.event_record(context_.chunk_done[current_], context_.queue);
    }

    const gpushim_device_plugin& plugin_;
    QueueContext& context_;
    Transfers& transfers_;
    int next_ = 0;
    int current_ = 0;
};

// Writes the packed result into the caller's matrix: all of it, or one triangle.
void deliver(const Blas3Op& op, const std::byte* packed, const Matrix& out) {
    const std::size_t column_bytes = out.column_bytes();
    auto* host = const_cast<std::byte*>(out.host);
    for (int64_t j = 0; j < out.extent.cols; ++j) {
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
        std::memcpy(host + static_cast<std::size_t>(j) * static_cast<std::size_t>(out.ld) * out.element + offset,
                    packed + static_cast<std::size_t>(j) * column_bytes + offset, length);
    }
}

void report_failure(const gpushim_device_plugin& plugin, const char* step, int status) {
    static std::atomic<bool> reported{false};
    const auto level = reported.exchange(true) ? log::Level::debug : log::Level::warn;
    log::write(level, "device %s failed (%s); recomputing on the CPU", step, plugin.describe_error(status));
}

}  // namespace

Outcome execute_blas3(const Blas3Op& op, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;

    const std::size_t element = element_size(op.precision);
    const Matrix a{static_cast<const std::byte*>(op.a), op.lda, operand_extent(op, Operand::a), element};
    const Matrix b{static_cast<const std::byte*>(op.b), op.ldb, operand_extent(op, Operand::b), element};
    const Matrix c{static_cast<const std::byte*>(op.c), op.ldc, operand_extent(op, Operand::c), element};
    const Operand output_kind = output_operand(op);
    const Matrix& out = output_kind == Operand::b ? b : c;
    if (out.bytes() > kMaxResultBytes) return Outcome::unavailable;

    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) {
        report_failure(*plugin, "queue creation", -1);
        return Outcome::failed;
    }
    if (!context->reserve_result(*plugin, out.bytes())) {
        report_failure(*plugin, "pinned allocation", -1);
        return Outcome::failed;
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const DeviceBuffer device_a(pool, a.bytes());
    const DeviceBuffer device_b(pool, b.bytes());
    const DeviceBuffer device_c(pool, c.bytes());
    if (!device_a.ok() || !device_b.ok() || !device_c.ok()) {
        log::write(log::Level::info, "%.1f MB does not fit in device memory; computing on the CPU",
                   static_cast<double>(a.bytes() + b.bytes() + c.bytes()) * 1e-6);
        return Outcome::unavailable;
    }

    DeviceRun run(*plugin, *context, transfers);
    Blas3Op device_op = op;
    device_op.a = device_a.data();
    device_op.lda = std::max<int64_t>(1, a.extent.rows);
    device_op.b = device_b.data();
    device_op.ldb = std::max<int64_t>(1, b.extent.rows);
    device_op.c = device_c.data();
    device_op.ldc = std::max<int64_t>(1, c.extent.rows);
    const void* device_out = output_kind == Operand::b ? device_b.data() : device_c.data();

    const char* step = "upload";
    int status = run.upload(device_a.data(), a);
    if (status == 0) status = run.upload(device_b.data(), b);
    if (status == 0 && reads_output(op) && output_kind == Operand::c) status = run.upload(device_c.data(), c);
    if (status == 0) {
        step = "BLAS operation";
        status = plugin->blas3(&device_op, context->queue);
    }
    if (status == 0) {
        step = "download";
        status = run.download(device_out, out.bytes());
    }
    const int sync_status = run.finish();
    if (status == 0 && sync_status != 0) {
        step = "synchronisation";
        status = sync_status;
    }
    if (status != 0) {
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }
    deliver(op, static_cast<const std::byte*>(context->result), out);
    return Outcome::completed;
}

}  // namespace gpushim::gpu
