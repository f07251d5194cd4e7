#include "gpu/queue_context.h"

#include <mutex>
#include <vector>

namespace gpushim::gpu {
namespace {

std::mutex idle_mutex;
std::vector<QueueContext*>* idle_contexts = new std::vector<QueueContext*>;

QueueContext* create_context(const gpushim_device_plugin& plugin) {
    auto* context = new QueueContext;
    bool ok = plugin.queue_create(&context->queue) == 0;
    for (int i = 0; ok && i < 2; ++i) {
        ok = plugin.event_create(&context->chunk_done[i]) == 0 &&
             plugin.pinned_alloc(&context->chunk[i], QueueContext::kChunkBytes) == 0;
    }
    if (ok) return context;
    // Partial creation: release what exists; nothing has been enqueued yet.
    for (int i = 0; i < 2; ++i) {
        if (context->chunk[i] != nullptr) plugin.pinned_free(context->chunk[i]);
        if (context->chunk_done[i] != nullptr) plugin.event_destroy(context->chunk_done[i]);
    }
    if (context->queue != nullptr) plugin.queue_destroy(context->queue);
    delete context;
    return nullptr;
}

// Hands the context back to the idle list when its thread ends.
struct Lease {
    QueueContext* context = nullptr;
    ~Lease() {
        if (context == nullptr) return;
        std::lock_guard lock(idle_mutex);
        idle_contexts->push_back(context);
    }
};

thread_local Lease lease;

}  // namespace

bool QueueContext::reserve_result(const gpushim_device_plugin& plugin, std::size_t bytes) {
    if (bytes <= result_capacity) return true;
    if (result != nullptr) {
        plugin.pinned_free(result);
        result = nullptr;
        result_capacity = 0;
    }
    // Grown by half again, so that a slowly growing workload does not re-pin every call.
    const std::size_t capacity = bytes + bytes / 2;
    if (plugin.pinned_alloc(&result, capacity) != 0) {
        result = nullptr;
        return false;
    }
    result_capacity = capacity;
    return true;
}

QueueContext* thread_queue_context(const gpushim_device_plugin& plugin) {
    if (lease.context != nullptr) return lease.context;
    {
        std::lock_guard lock(idle_mutex);
        if (!idle_contexts->empty()) {
            lease.context = idle_contexts->back();
            idle_contexts->pop_back();
            return lease.context;
        }
    }
    lease.context = create_context(plugin);
    return lease.context;
}

}  // namespace gpushim::gpu
