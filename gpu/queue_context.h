// What one calling thread needs to drive the device: two queues (streams with their
// library handles) so that one panel's transfers overlap another's computation, two
// pinned chunk buffers with their events for pipelined uploads, and per queue a pinned
// buffer receiving results. Contexts are leased to threads and returned when a thread
// ends, never destroyed: device teardown at process exit is the driver's business.
#pragma once

#include <cstddef>
#include <mutex>

#include "gpu/device_interface.h"

namespace gpushim::gpu {

struct QueueContext {
    static constexpr std::size_t kChunkBytes = 32u << 20;
    static constexpr int kQueues = 2;

    gpushim_queue queue[kQueues] = {};
    gpushim_event panel_done[kQueues] = {};  // a panel's result is in result[q]
    gpushim_event shared_ready = nullptr;    // the operand all panels share is on the device
    void* result[kQueues] = {};
    std::size_t result_capacity[kQueues] = {};

    gpushim_event chunk_done[2] = {};
    bool chunk_pending[2] = {};
    void* chunk[2] = {};

    // Held while a LAPACK operation is enqueued on the queues (LapackEnqueue): the workspaces
    // the device keeps for them may be released by any thread but then.
    std::mutex lapack_in_use;

    // Makes result[q] hold at least `bytes`: 0, or the plugin's status when pinned memory is
    // not available.
    int reserve_result(const gpushim_device_plugin& plugin, int q, std::size_t bytes);
};

// This thread's context, created on first use; nullptr when the device cannot create one
// (said once in the log) or the thread is past the end of its thread-local storage.
QueueContext* thread_queue_context(const gpushim_device_plugin& plugin);

// While a LAPACK operation is enqueued on a context's queues: release_idle_workspaces leaves
// their workspaces alone, on this thread (which may run short of device memory meanwhile)
// as on others.
class LapackEnqueue {
  public:
    explicit LapackEnqueue(QueueContext& context);
    ~LapackEnqueue();
    LapackEnqueue(const LapackEnqueue&) = delete;
    LapackEnqueue& operator=(const LapackEnqueue&) = delete;

  private:
    QueueContext& context_;
};

// Asks the device to free the workspaces it keeps for the queues of every context on which no
// LAPACK operation is being enqueued (a thread's queues keep them between its calls, or for
// the next thread to lease them); returns how many queues were asked. The device memory
// pool calls it when it runs short, with its lock held: it never waits for a context.
std::size_t release_idle_workspaces(const gpushim_device_plugin& plugin);

}  // namespace gpushim::gpu
