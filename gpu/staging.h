// Moving matrices between the caller's memory and the device, for the executors: packed
// uploads through pinned chunk buffers, downloads into the pinned result buffers of the
// calling thread's context, and delivery of a packed result into the caller's matrix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "dispatch/blas3_call.h"
#include "gpu/device_interface.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"
#include "gpu/residency_cache.h"

namespace gpushim::gpu {

struct Transfers {
    uint64_t bytes_to_device = 0;
    uint64_t bytes_to_host = 0;
    uint64_t bytes_reused = 0;  // operand bytes found on the device, not copied
};

// The process's device memory pool (never destroyed, like the device).
DeviceMemoryPool& device_pool(const gpushim_device_plugin& plugin);

// After a device call: DeviceMemoryPool::leave_room_for_others, when a device is in use.
void leave_room_for_others();

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

// Transfers of one call, on the calling thread's context.
class Staging {
  public:
    Staging(const gpushim_device_plugin& plugin, QueueContext& context, Transfers& transfers)
        : plugin_(plugin), context_(context), transfers_(transfers) {}

    // Copies a host matrix to packed device memory (leading dimension = rows) on queue q,
    // through the two pinned chunk buffers: packing one chunk overlaps the copy of the other.
    // With `prints` (a residency cache entry's: the device memory holds what they describe),
    // a chunk whose host bytes still have its print is not copied, and the others' prints
    // are taken while packing.
    int upload(void* device, const Matrix& m, int q, ChunkPrints* prints = nullptr);

    // The largest pitch of a 2-D copy: CUDA's cudaMemcpy2D fails beyond cudaDevAttrMaxPitch,
    // 2^31 - 1 bytes. Longer copies go in pieces of kLongCopyPieceBytes.
    static constexpr std::size_t kMaxPitchBytes = (std::size_t{1} << 31) - 1;
    static constexpr std::size_t kLongCopyPieceBytes = std::size_t{1} << 30;

    // Copies `rows` rows of `row_bytes` of packed device memory to result[q] + offset, packed;
    // rows longer than kMaxPitchBytes in pieces within it.
    int download(const void* device, std::size_t offset, std::size_t row_bytes, std::size_t rows,
                 int q) {
        return download_to(static_cast<std::byte*>(context_.result[q]) + offset, device, row_bytes,
                           rows, q);
    }

    // The same, to `pinned` (pinned host memory of the caller's) instead of result[q].
    int download_to(std::byte* pinned, const void* device, std::size_t row_bytes, std::size_t rows,
                    int q);

    // Copies a packed device matrix to the start of result[q].
    int download(const void* device, const Matrix& m, int q) {
        return download(device, 0, m.column_bytes(), static_cast<std::size_t>(m.extent.cols), q);
    }

    // Fills `total` bytes of packed device memory chunk by chunk through the pinned chunk
    // buffers: fill(staging, offset, bytes) writes the packed bytes [offset, offset + bytes)
    // into `staging` while the previous chunk's copy proceeds.
    using Fill = std::function<void(std::byte* staging, std::size_t offset, std::size_t bytes)>;
    int upload_packed(void* device, std::size_t total, const Fill& fill, int q);

    // Reads `total` bytes of device memory chunk by chunk through the pinned chunk buffers:
    // drain(staging, offset, bytes) receives the bytes [offset, offset + bytes) once they are
    // on the host, while the next chunk's copy proceeds. `offset` and `bytes` are multiples
    // of 16 bytes but for the last chunk's end.
    using Drain =
        std::function<void(const std::byte* staging, std::size_t offset, std::size_t bytes)>;
    int download_packed(const void* device, std::size_t total, const Drain& drain, int q);

    // Waits for everything enqueued; the chunk buffers are free afterwards.
    int synchronize_all();

    // Ends a call's transfers: waits for everything enqueued, and returns the call's first
    // failure, `status` (at `step`) or else the wait's (at "synchronisation").
    int finish(int status, const char*& step);

  private:
    int next_chunk(std::byte*& staging);
    int send_chunk(std::byte* device, const std::byte* staging, std::size_t bytes, int q);

    const gpushim_device_plugin& plugin_;
    QueueContext& context_;
    Transfers& transfers_;
    int next_ = 0;
    int current_ = 0;
};

// What of a matrix is delivered: all of it, a triangle with its diagonal, or a triangle
// without it (a unit-diagonal TRTRI leaves the diagonal alone).
enum class Triangle { all, upper, lower, strictly_upper, strictly_lower };

// Writes a packed result into the caller's matrix: all of it, or one triangle, whose
// diagonal meets column 0 at row `diagonal` (a panel of a larger triangle).
void deliver(const std::byte* packed, const Matrix& out, Triangle part, int64_t diagonal = 0);

// Writes the bytes [offset, offset + bytes) of a matrix's packed form, held in `chunk`, where
// they belong in the caller's matrix `out`: all of them, or those in one triangle (whose
// diagonal starts at row 0).
void deliver_chunk(const std::byte* chunk, std::size_t offset, std::size_t bytes, const Matrix& out,
                   Triangle part = Triangle::all);

// Copies a matrix into `packed` (leading dimension = rows), on the copy threads.
void pack(const Matrix& m, std::byte* packed);

// The residency cache's entry of a column-major host matrix (nullopt for an empty one):
// ResidencyCache::lease with the matrix's key.
std::optional<ResidencyCache::Lease> lease_matrix(
    ResidencyCache& cache, const Matrix& m,
    ResidencyCache::Access access = ResidencyCache::Access::reads);

// The fingerprint Staging::upload takes of chunk `chunk` (of QueueContext::kChunkBytes) of
// m's packed form.
Fingerprint chunk_print(const Matrix& m, std::size_t chunk);

// The prints Staging::upload takes of a matrix's chunks, taken instead while the device's
// result is delivered into it, in order: a result left on the device is then known to be
// what the caller's matrix holds without reading it again.
class DeliveredPrints {
  public:
    explicit DeliveredPrints(std::size_t total_bytes);

    // Writes the bytes [offset, offset + bytes) of the packed form of `whole`, held in
    // `packed`, where they belong in it, those before them delivered already.
    void deliver(const std::byte* packed, std::size_t offset, std::size_t bytes,
                 const Matrix& whole);

    // The prints of the matrix's chunks, once all of it has been delivered.
    ChunkPrints finish() const;

  private:
    std::vector<FingerprintHasher> pieces_;  // of kCopyPieceBytes of the packed form each
};

// Logs (info) that a call's `bytes` on the device do not fit: in the device's memory, or in
// what GPUSHIM_GPU_MEMORY lets the library hold; `what` names the call ("an FFT of ").
void report_does_not_fit(const gpushim_device_plugin& plugin, const char* what, std::size_t bytes);

// The status of a device result the host's own checks reject (a pivot out of range), for
// report_failure: no plugin status is negative.
inline constexpr int kRejectedByHost = -1;

// Logs a device failure: the first as a warning, later ones at debug level.
void report_failure(const gpushim_device_plugin& plugin, const char* step, int status);

}  // namespace gpushim::gpu
