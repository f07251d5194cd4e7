#include "gpu/staging.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/host_copy_pool.h"

namespace gpushim::gpu {
DeviceMemoryPool& device_pool(const gpushim_device_plugin& plugin) {
    // Never destroyed, like the device.
    static auto* pool =
        new DeviceMemoryPool(plugin, config().gpu_memory.value_or(DeviceMemoryPool::kNoLimit));
    return *pool;
}

void leave_room_for_others() {
    // The device's free memory is a driver call (cudaMemGetInfo, microseconds): asked at
    // most every 20 ms, not after every call.
    constexpr int64_t kInterval = std::chrono::nanoseconds(std::chrono::milliseconds(20)).count();
    static std::atomic<int64_t> next_check{0};
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    int64_t due = next_check.load(std::memory_order_relaxed);
    if (now < due || !next_check.compare_exchange_strong(due, now + kInterval)) return;
    if (const gpushim_device_plugin* plugin = backend())
        device_pool(*plugin).leave_room_for_others();
}

namespace {

// Calls visit(source, packed_offset, length) for each piece of a column of m within the
// bytes [begin, end) of its packed form, in order.
template <class Visit>
void for_each_segment(const Matrix& m, std::size_t begin, std::size_t end, Visit&& visit) {
    const std::size_t column_bytes = m.column_bytes();
    for (std::size_t offset = begin; offset < end;) {
        const auto column = static_cast<int64_t>(offset / column_bytes);
        const std::size_t within = offset % column_bytes;
        const std::size_t length = std::min(column_bytes - within, end - offset);
        visit(m.column(column) + within, offset, length);
        offset += length;
    }
}

// Packs the bytes [offset, offset + bytes) of m's packed form into `staging` (unless
// nullptr), on the copy threads; when `print` is set, returns their fingerprint.
Fingerprint pack_bytes(std::byte* staging, const Matrix& m, std::size_t offset, std::size_t bytes,
                       bool print) {
    const std::size_t pieces = (bytes + kCopyPieceBytes - 1) / kCopyPieceBytes;
    std::vector<Fingerprint> piece_prints(print ? pieces : 0);
    parallel_copy(pieces, bytes, [&](std::size_t piece) {
        const std::size_t begin = offset + piece * kCopyPieceBytes;
        const std::size_t end = std::min(begin + kCopyPieceBytes, offset + bytes);
        FingerprintHasher hasher;
        for_each_segment(
            m, begin, end, [&](const std::byte* source, std::size_t at, std::size_t length) {
                std::byte* copy = staging != nullptr ? staging + (at - offset) : nullptr;
                if (print) {
                    hasher.update(source, length, copy);
                } else {
                    std::memcpy(copy, source, length);
                }
            });
        if (print) piece_prints[piece] = hasher.finish();
    });
    FingerprintHasher chunk;
    for (const Fingerprint& piece : piece_prints) chunk.update(piece);
    return chunk.finish();
}

}  // namespace

int Staging::upload(void* device, const Matrix& m, int q, ChunkPrints* prints) {
    const std::size_t total = m.bytes();
    if (total == 0) return 0;
    auto* target = static_cast<std::byte*>(device);
    const std::size_t chunks = (total + QueueContext::kChunkBytes - 1) / QueueContext::kChunkBytes;
    if (prints != nullptr) prints->resize(chunks);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
        const std::size_t offset = chunk * QueueContext::kChunkBytes;
        const std::size_t bytes = std::min(QueueContext::kChunkBytes, total - offset);
        if (prints != nullptr && (*prints)[chunk].has_value() &&
            chunk_print(m, chunk) == *(*prints)[chunk]) {
            transfers_.bytes_reused += bytes;
            continue;
        }
        std::byte* staging = nullptr;
        if (int status = next_chunk(staging); status != 0) return status;
        const Fingerprint print = pack_bytes(staging, m, offset, bytes, prints != nullptr);
        if (prints != nullptr) (*prints)[chunk] = print;
        if (int status = send_chunk(target + offset, staging, bytes, q); status != 0) return status;
    }
    return 0;
}

int Staging::download_to(std::byte* target, const void* device, std::size_t row_bytes,
                         std::size_t rows, int q) {
    if (row_bytes == 0 || rows == 0) return 0;
    transfers_.bytes_to_host += row_bytes * rows;
    if (row_bytes <= kMaxPitchBytes) {
        return plugin_.copy_to_host_2d(target, row_bytes, device, row_bytes, row_bytes, rows,
                                       context_.queue[q]);
    }
    // Rows wider than a pitch may be (a column of 2^28 doubles or more): packed on both
    // sides, they are one run of bytes, copied in pieces of kLongCopyPieceBytes, each a
    // 2-D copy of a single row.
    const auto* source = static_cast<const std::byte*>(device);
    const std::size_t total = row_bytes * rows;
    for (std::size_t done = 0; done < total; done += kLongCopyPieceBytes) {
        const std::size_t bytes = std::min(kLongCopyPieceBytes, total - done);
        if (int status = plugin_.copy_to_host_2d(target + done, bytes, source + done, bytes, bytes,
                                                 1, context_.queue[q]);
            status != 0) {
            return status;
        }
    }
    return 0;
}

int Staging::upload_packed(void* device, std::size_t total, const Fill& fill, int q) {
    auto* target = static_cast<std::byte*>(device);
    for (std::size_t offset = 0; offset < total; offset += QueueContext::kChunkBytes) {
        const std::size_t bytes = std::min(QueueContext::kChunkBytes, total - offset);
        std::byte* staging = nullptr;
        if (int status = next_chunk(staging); status != 0) return status;
        fill(staging, offset, bytes);
        if (int status = send_chunk(target + offset, staging, bytes, q); status != 0) return status;
    }
    return 0;
}

int Staging::download_packed(const void* device, std::size_t total, const Drain& drain, int q) {
    const auto* source = static_cast<const std::byte*>(device);
    struct Pending {
        int index;
        std::size_t offset, bytes;
    };
    std::optional<Pending> pending;
    auto drain_pending = [&]() -> int {
        if (int status = plugin_.event_synchronize(context_.chunk_done[pending->index]);
            status != 0) {
            return status;
        }
        context_.chunk_pending[pending->index] = false;
        drain(static_cast<const std::byte*>(context_.chunk[pending->index]), pending->offset,
              pending->bytes);
        return 0;
    };
    for (std::size_t offset = 0; offset < total; offset += QueueContext::kChunkBytes) {
        const std::size_t bytes = std::min(QueueContext::kChunkBytes, total - offset);
        // The buffer's previous chunk was drained one iteration ago.
        std::byte* staging = nullptr;
        if (int status = next_chunk(staging); status != 0) return status;
        transfers_.bytes_to_host += bytes;
        if (int status = plugin_.copy_to_host_2d(staging, bytes, source + offset, bytes, bytes, 1,
                                                 context_.queue[q]);
            status != 0) {
            return status;
        }
        context_.chunk_pending[current_] = true;
        if (int status = plugin_.event_record(context_.chunk_done[current_], context_.queue[q]);
            status != 0) {
            return status;
        }
        if (pending) {
            if (int status = drain_pending(); status != 0) return status;
        }
        pending = Pending{current_, offset, bytes};
    }
    return pending ? drain_pending() : 0;
}

int Staging::synchronize_all() {
    int status = 0;
    for (gpushim_queue queue : context_.queue) {
        if (int s = plugin_.queue_synchronize(queue); s != 0 && status == 0) status = s;
    }
    for (bool& pending : context_.chunk_pending) pending = false;
    return status;
}

int Staging::finish(int status, const char*& step) {
    const int sync_status = synchronize_all();
    // A device library's failure may be the first sign of a lost device, which the wait for
    // its queue then reports.
    if (sync_status != 0) note_failure_status(plugin_, sync_status);
    if (status == 0 && sync_status != 0) {
        step = "synchronisation";
        return sync_status;
    }
    return status;
}

int Staging::next_chunk(std::byte*& staging) {
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

int Staging::send_chunk(std::byte* device, const std::byte* staging, std::size_t bytes, int q) {
    transfers_.bytes_to_device += bytes;
    if (int status =
            plugin_.copy_to_device_2d(device, bytes, staging, bytes, bytes, 1, context_.queue[q]);
        status != 0) {
        return status;
    }
    context_.chunk_pending[current_] = true;
    return plugin_.event_record(context_.chunk_done[current_], context_.queue[q]);
}

namespace {

// The rows [first, last) of column j that `part` holds, its diagonal element being in row d.
std::pair<int64_t, int64_t> rows_of(Triangle part, int64_t d, int64_t rows) {
    switch (part) {
        case Triangle::all:
            return {0, rows};
        case Triangle::upper:
            return {0, std::clamp<int64_t>(d + 1, 0, rows)};
        case Triangle::strictly_upper:
            return {0, std::clamp<int64_t>(d, 0, rows)};
        case Triangle::lower:
            return {std::clamp<int64_t>(d, 0, rows), rows};
        case Triangle::strictly_lower:
            return {std::clamp<int64_t>(d + 1, 0, rows), rows};
    }
    return {0, rows};
}

}  // namespace

void deliver_chunk(const std::byte* chunk, std::size_t offset, std::size_t bytes, const Matrix& out,
                   Triangle part) {
    const std::size_t pieces = (bytes + kCopyPieceBytes - 1) / kCopyPieceBytes;
    const std::size_t column_bytes = out.column_bytes();
    parallel_copy(pieces, bytes, [&](std::size_t piece) {
        const std::size_t begin = offset + piece * kCopyPieceBytes;
        const std::size_t end = std::min(begin + kCopyPieceBytes, offset + bytes);
        for_each_segment(
            out, begin, end, [&](const std::byte* target, std::size_t at, std::size_t length) {
                // This segment is rows [from, to) of column j; the triangle's rows of it are
                // written.
                const auto j = static_cast<int64_t>(at / column_bytes);
                const std::size_t from = at % column_bytes;
                const auto [first, last] = rows_of(part, j, out.extent.rows);
                const std::size_t low =
                    std::max(from, static_cast<std::size_t>(first) * out.element);
                const std::size_t high =
                    std::min(from + length, static_cast<std::size_t>(last) * out.element);
                if (low >= high) return;
                std::memcpy(const_cast<std::byte*>(target) + (low - from),
                            chunk + (at - offset) + (low - from), high - low);
            });
    });
}

void deliver(const std::byte* packed, const Matrix& out, Triangle part, int64_t diagonal) {
    const std::size_t column_bytes = out.column_bytes();
    auto* host = const_cast<std::byte*>(out.host);
    parallel_copy(static_cast<std::size_t>(out.extent.cols), out.bytes(), [&](std::size_t column) {
        const auto j = static_cast<int64_t>(column);
        const auto [first, last] = rows_of(part, j + diagonal, out.extent.rows);
        const std::size_t offset = static_cast<std::size_t>(first) * out.element;
        const std::size_t length = static_cast<std::size_t>(last - first) * out.element;
        std::memcpy(
            host + static_cast<std::size_t>(j) * static_cast<std::size_t>(out.ld) * out.element +
                offset,
            packed + column * column_bytes + offset, length);
    });
}

void pack(const Matrix& m, std::byte* packed) {
    pack_bytes(packed, m, 0, m.bytes(), false);
}

std::optional<ResidencyCache::Lease> lease_matrix(ResidencyCache& cache, const Matrix& m,
                                                  ResidencyCache::Access access) {
    if (m.bytes() == 0) return std::nullopt;
    return cache.lease({m.host, m.ld, m.extent.rows, m.extent.cols, m.element}, m.bytes(), access);
}

// A chunk's print is made of the prints of its pieces, which then lie at multiples of
// kCopyPieceBytes in the whole packed form as well.
static_assert(QueueContext::kChunkBytes % kCopyPieceBytes == 0);

Fingerprint chunk_print(const Matrix& m, std::size_t chunk) {
    const std::size_t offset = chunk * QueueContext::kChunkBytes;
    return pack_bytes(nullptr, m, offset, std::min(QueueContext::kChunkBytes, m.bytes() - offset),
                      true);
}

DeliveredPrints::DeliveredPrints(std::size_t total_bytes)
    : pieces_((total_bytes + kCopyPieceBytes - 1) / kCopyPieceBytes) {}

void DeliveredPrints::deliver(const std::byte* packed, std::size_t offset, std::size_t bytes,
                              const Matrix& whole) {
    if (bytes == 0) return;
    const std::size_t first = offset / kCopyPieceBytes;
    const std::size_t last = (offset + bytes - 1) / kCopyPieceBytes;
    // A piece that began in the bytes delivered before continues here: its hasher takes the
    // bytes in the order they lie, however the deliveries split them.
    parallel_copy(last - first + 1, bytes, [&](std::size_t i) {
        const std::size_t piece = first + i;
        const std::size_t begin = std::max(piece * kCopyPieceBytes, offset);
        const std::size_t end = std::min((piece + 1) * kCopyPieceBytes, offset + bytes);
        FingerprintHasher& hasher = pieces_[piece];
        for_each_segment(
            whole, begin, end, [&](const std::byte* target, std::size_t at, std::size_t length) {
                hasher.update(packed + (at - offset), length, const_cast<std::byte*>(target));
            });
    });
}

ChunkPrints DeliveredPrints::finish() const {
    constexpr std::size_t kPiecesPerChunk = QueueContext::kChunkBytes / kCopyPieceBytes;
    ChunkPrints prints;
    for (std::size_t first = 0; first < pieces_.size(); first += kPiecesPerChunk) {
        FingerprintHasher chunk;
        const std::size_t end = std::min(first + kPiecesPerChunk, pieces_.size());
        for (std::size_t piece = first; piece < end; ++piece) chunk.update(pieces_[piece].finish());
        prints.emplace_back(chunk.finish());
    }
    return prints;
}

void report_does_not_fit(const gpushim_device_plugin& plugin, const char* what, std::size_t bytes) {
    if (device_lost()) return;  // that was said
    const DeviceMemoryPool& pool = device_pool(plugin);
    if (pool.limit() == DeviceMemoryPool::kNoLimit) {
        log::write(log::Level::info,
                   "%s%.1f MB does not fit in device memory; computing on the CPU", what,
                   static_cast<double>(bytes) * 1e-6);
    } else {
        log::write(log::Level::info,
                   "%s%.1f MB does not fit in device memory, or in the %.1f MB gpushim may hold "
                   "(GPUSHIM_GPU_MEMORY; %.1f MB held); computing on the CPU",
                   what, static_cast<double>(bytes) * 1e-6,
                   static_cast<double>(pool.limit()) * 1e-6,
                   static_cast<double>(pool.held_bytes()) * 1e-6);
    }
}

void report_failure(const gpushim_device_plugin& plugin, const char* step, int status) {
    static std::atomic<bool> reported{false};
    // A lost device has said so, once, as a warning.
    const bool lost = note_failure_status(plugin, status);
    const auto level = lost || reported.exchange(true) ? log::Level::debug : log::Level::warn;
    if (status == kRejectedByHost) {
        log::write(level, "device %s failed; computing on the CPU", step);
        return;
    }
    log::write(level, "device %s failed (%s); computing on the CPU", step,
               plugin.describe_error(status));
}

}  // namespace gpushim::gpu
