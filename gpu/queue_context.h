// What one calling thread needs to drive the device: a queue (stream and library handles),
// two events and two pinned staging buffers for pipelined uploads, and a pinned buffer
// that receives results. Contexts are leased to threads and returned when a thread ends,
// never destroyed: device teardown at process exit is the driver's business.
#pragma once

#include <cstddef>

#include "gpu/device_interface.h"

namespace gpushim::gpu {

struct QueueContext {
    static constexpr std::size_t kChunkBytes = 32u << 20;

    gpushim_queue queue = nullptr;
    gpushim_event chunk_done[2] = {nullptr, nullptr};
    bool chunk_pending[2] = {false, false};
    void* chunk[2] = {nullptr, nullptr};
    void* result = nullptr;
    std::size_t result_capacity = 0;

    // Makes `result` hold at least `bytes`; false when pinned memory is not available.
    bool reserve_result(const gpushim_device_plugin& plugin, std::size_t bytes);
};

// This thread's context, created on first use; nullptr when the device cannot create one.
QueueContext* thread_queue_context(const gpushim_device_plugin& plugin);

}  // namespace gpushim::gpu
