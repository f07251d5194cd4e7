// The copies the staging layer asks a device for stay within what CUDA accepts: a 2-D copy's
// pitch at most 2^31 - 1 bytes (cudaMemcpy2D fails beyond cudaDevAttrMaxPitch), however long
// a column of the result is. Nothing is copied: a fake plugin records the copies, on
// addresses that are never dereferenced. And the pinned result buffers that receive them are
// reserved whenever the host can pin what a call needs. A packed result delivered in chunks
// (of any size, splitting columns) writes what a whole delivery writes, triangles included,
// and a matrix packed and delivered whole comes back as it was.
#include "gpu/staging.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "gpu/queue_context.h"

namespace gpushim::gpu {
namespace {

constexpr std::size_t kCudaMaxPitch = (std::size_t{1} << 31) - 1;

struct RecordedCopy {
    std::uintptr_t dst;
    std::size_t dst_pitch;
    std::uintptr_t src;
    std::size_t src_pitch;
    std::size_t width;
    std::size_t rows;
};
std::vector<RecordedCopy> recorded;

int record_copy_to_host(void* host_dst, std::size_t dst_pitch, const void* dev_src,
                        std::size_t src_pitch, std::size_t width_bytes, std::size_t rows,
                        gpushim_queue /*queue*/) {
    recorded.push_back({reinterpret_cast<std::uintptr_t>(host_dst), dst_pitch,
                        reinterpret_cast<std::uintptr_t>(dev_src), src_pitch, width_bytes, rows});
    return 0;
}

// Downloads `rows` packed rows of `row_bytes` from a fake device address to a fake result
// buffer, at `offset` in it, and checks that the recorded copies move exactly those bytes,
// packed, with no pitch beyond CUDA's limit.
void check_download(std::size_t offset, std::size_t row_bytes, std::size_t rows) {
    recorded.clear();
    gpushim_device_plugin plugin{};
    plugin.copy_to_host_2d = record_copy_to_host;
    QueueContext context;
    const std::uintptr_t result = std::uintptr_t{1} << 44;
    const std::uintptr_t device = std::uintptr_t{1} << 45;
    context.result[0] = reinterpret_cast<void*>(result);
    Transfers transfers;
    Staging staging(plugin, context, transfers);
    ASSERT_EQ(staging.download(reinterpret_cast<const void*>(device), offset, row_bytes, rows, 0),
              0);

    const std::size_t total = row_bytes * rows;
    EXPECT_EQ(transfers.bytes_to_host, total);
    std::size_t covered = 0;  // the copies, in order, cover [0, total) of both sides
    for (const RecordedCopy& copy : recorded) {
        EXPECT_LE(copy.dst_pitch, kCudaMaxPitch);
        EXPECT_LE(copy.src_pitch, kCudaMaxPitch);
        // Packed on both sides: each row follows the one before it.
        EXPECT_EQ(copy.dst_pitch, copy.width);
        EXPECT_EQ(copy.src_pitch, copy.width);
        EXPECT_EQ(copy.dst, result + offset + covered);
        EXPECT_EQ(copy.src, device + covered);
        covered += copy.width * copy.rows;
    }
    EXPECT_EQ(covered, total);
}

TEST(Staging, ADownloadOfShortRowsIsOneCopy) {
    check_download(4096, std::size_t{3} << 20, 5);
    EXPECT_EQ(recorded.size(), 1u);
}

TEST(Staging, ADownloadOfRowsAtCudasPitchLimitIsOneCopy) {
    check_download(0, kCudaMaxPitch, 2);
    EXPECT_EQ(recorded.size(), 1u);
}

// A column of 2^28 doubles or more (a tall GEMM panel, GEQRF's or GELS's m x n matrix
// with m above 268 million): its bytes exceed a pitch.
TEST(Staging, ADownloadOfColumnsLongerThanAPitchKeepsEveryPitchWithinCudasLimit) {
    const std::size_t column_bytes = (std::size_t{300} << 20) * sizeof(double);
    check_download(64, column_bytes, 3);
    check_download(0, kCudaMaxPitch + 1, 1);
}

}  // namespace
}  // namespace gpushim::gpu

namespace gpushim::gpu {
namespace {

// Pinned host memory of at most kPinnable bytes; nothing is allocated (the blocks are never
// touched).
constexpr std::size_t kPinnable = std::size_t{100} << 30;
int pin_at_most(void** host_ptr, std::size_t bytes) {
    if (bytes > kPinnable) return 2;
    *host_ptr = reinterpret_cast<void*>(std::uintptr_t{1} << 44);
    return 0;
}

int unpin(void* /*host_ptr*/) {
    return 0;
}

// A rows x cols matrix of doubles in an array of leading dimension ld, each element its
// index in the array plus `base`.
std::vector<double> numbered(int64_t ld, int64_t cols, double base) {
    std::vector<double> array(static_cast<std::size_t>(ld * cols));
    std::iota(array.begin(), array.end(), base);
    return array;
}

TEST(Staging, DeliveryInChunksWritesWhatWholeDeliveryWrites) {
    const int64_t rows = 37, cols = 29, ld = 41;
    std::vector<double> packed(static_cast<std::size_t>(rows * cols));
    std::iota(packed.begin(), packed.end(), -1e6);
    const std::size_t total = packed.size() * sizeof(double);
    for (Triangle part : {Triangle::all, Triangle::upper, Triangle::lower, Triangle::strictly_upper,
                          Triangle::strictly_lower}) {
        std::vector<double> whole = numbered(ld, cols, 0.5);
        deliver(
            reinterpret_cast<const std::byte*>(packed.data()),
            {reinterpret_cast<const std::byte*>(whole.data()), ld, {rows, cols}, sizeof(double)},
            part);
        // Chunks of a prime number of bytes split elements as well as columns.
        for (std::size_t chunk : {std::size_t{8}, std::size_t{13}, std::size_t{296}, total}) {
            std::vector<double> pieces = numbered(ld, cols, 0.5);
            const Matrix out{reinterpret_cast<const std::byte*>(pieces.data()),
                             ld,
                             {rows, cols},
                             sizeof(double)};
            for (std::size_t offset = 0; offset < total; offset += chunk) {
                const std::size_t bytes = std::min(chunk, total - offset);
                std::vector<std::byte> staged(bytes);  // as the chunk buffer holds them
                std::memcpy(staged.data(),
                            reinterpret_cast<const std::byte*>(packed.data()) + offset, bytes);
                deliver_chunk(staged.data(), offset, bytes, out, part);
            }
            EXPECT_EQ(pieces, whole)
                << "triangle " << static_cast<int>(part) << ", chunks of " << chunk << " bytes";
        }
    }
}

TEST(Staging, APackedMatrixDeliveredWholeIsWhatItWas) {
    const int64_t rows = 300, cols = 1000, ld = 301;  // 2.4 MB: packed by several threads
    const std::vector<double> original = numbered(ld, cols, 0.25);
    std::vector<double> changed = original;
    const Matrix m{
        reinterpret_cast<const std::byte*>(changed.data()), ld, {rows, cols}, sizeof(double)};
    std::vector<std::byte> packed(m.bytes());
    pack(m, packed.data());
    for (int64_t j = 0; j < cols; ++j) changed[static_cast<std::size_t>(j * ld + j % rows)] = -1;
    deliver(packed.data(), m, Triangle::all);
    EXPECT_EQ(changed, original);
    double first_of_column_7 = 0;
    std::memcpy(&first_of_column_7, packed.data() + 7 * rows * sizeof(double), sizeof(double));
    EXPECT_EQ(first_of_column_7, original[7 * ld]);
}

// Prints taken while a result is delivered in parts are those an upload of the delivered
// matrix takes: over chunks of 32 MiB and pieces of 1 MiB that the parts' edges cut
// anywhere (blocks of columns, or runs of bytes that split columns and elements).
TEST(Staging, PrintsTakenWhileDeliveringAreThoseAnUploadTakes) {
    const int64_t rows = 1000, cols = 4500, ld = 1003;  // 36 MB packed: two chunks
    std::vector<double> packed(static_cast<std::size_t>(rows * cols));
    std::iota(packed.begin(), packed.end(), 0.125);
    const auto* packed_bytes = reinterpret_cast<const std::byte*>(packed.data());
    const std::size_t column_bytes = rows * sizeof(double);
    const std::size_t total = packed.size() * sizeof(double);
    // Parts of 7, 1000 and all columns; of 32 MiB and 5 MB + 3 bytes.
    for (std::size_t part : {7 * column_bytes, 1000 * column_bytes, total, std::size_t{32} << 20,
                             std::size_t{5000003}}) {
        std::vector<double> out = numbered(ld, cols, -3.0);
        const Matrix whole{
            reinterpret_cast<const std::byte*>(out.data()), ld, {rows, cols}, sizeof(double)};
        DeliveredPrints prints(whole.bytes());
        for (std::size_t offset = 0; offset < total; offset += part)
            prints.deliver(packed_bytes + offset, offset, std::min(part, total - offset), whole);
        for (int64_t j = 0; j < cols; ++j) {
            ASSERT_EQ(std::memcmp(whole.column(j), packed_bytes + j * column_bytes, column_bytes),
                      0)
                << "column " << j << ", parts of " << part << " bytes";
        }
        const ChunkPrints taken = prints.finish();
        ASSERT_EQ(taken.size(), 2u);
        for (std::size_t chunk = 0; chunk < taken.size(); ++chunk)
            EXPECT_EQ(taken[chunk], chunk_print(whole, chunk)) << "parts of " << part << " bytes";
        EXPECT_NE(taken[0], taken[1]);
    }
}

// A result the host can pin, but not half as much again, is still received: the grown
// capacity is only a preference.
TEST(QueueContext, AResultThatFitsIsReservedWhenItsGrowthDoesNot) {
    gpushim_device_plugin plugin{};
    plugin.pinned_alloc = pin_at_most;
    plugin.pinned_free = unpin;
    QueueContext context;
    const std::size_t bytes = std::size_t{80} << 30;
    ASSERT_GT(bytes + bytes / 2, kPinnable);
    EXPECT_EQ(context.reserve_result(plugin, 0, bytes), 0);
    EXPECT_NE(context.result[0], nullptr);
    EXPECT_GE(context.result_capacity[0], bytes);
    EXPECT_LE(context.result_capacity[0], kPinnable);
    // More than can be pinned is refused.
    QueueContext other;
    EXPECT_NE(other.reserve_result(plugin, 0, kPinnable + 1), 0);
    EXPECT_EQ(other.result[0], nullptr);
    EXPECT_EQ(other.result_capacity[0], 0u);
    // A small result still gets room to grow.
    QueueContext small;
    EXPECT_EQ(small.reserve_result(plugin, 0, 1000), 0);
    EXPECT_EQ(small.result_capacity[0], 1500u);
}

}  // namespace
}  // namespace gpushim::gpu
