#include "gpu/queue_context.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

std::mutex idle_mutex;
std::vector<QueueContext*>* idle_contexts = new std::vector<QueueContext*>;
// Every context made, leased or idle (idle_mutex).
std::vector<QueueContext*>* all_contexts = new std::vector<QueueContext*>;

void destroy_partial(const gpushim_device_plugin& plugin, QueueContext* context) {
    for (int i = 0; i < 2; ++i) {
        if (context->chunk[i] != nullptr) plugin.pinned_free(context->chunk[i]);
        if (context->chunk_done[i] != nullptr) plugin.event_destroy(context->chunk_done[i]);
    }
    for (int q = 0; q < QueueContext::kQueues; ++q) {
        if (context->panel_done[q] != nullptr) plugin.event_destroy(context->panel_done[q]);
        if (context->queue[q] != nullptr) plugin.queue_destroy(context->queue[q]);
    }
    if (context->shared_ready != nullptr) plugin.event_destroy(context->shared_ready);
    delete context;
}

QueueContext* create_context(const gpushim_device_plugin& plugin) {
    auto* context = new QueueContext;
    bool lost = false;
    const auto succeeded = [&plugin, &lost](int status) {
        if (status != 0) lost = note_failure_status(plugin, status);
        return status == 0;
    };
    bool ok = succeeded(plugin.event_create(&context->shared_ready));
    for (int q = 0; ok && q < QueueContext::kQueues; ++q) {
        ok = succeeded(plugin.queue_create(&context->queue[q])) &&
             succeeded(plugin.event_create(&context->panel_done[q]));
    }
    for (int i = 0; ok && i < 2; ++i) {
        ok = succeeded(plugin.event_create(&context->chunk_done[i])) &&
             succeeded(plugin.pinned_alloc(&context->chunk[i], QueueContext::kChunkBytes));
    }
    if (ok) return context;
    destroy_partial(plugin, context);  // nothing has been enqueued yet
    static std::atomic<bool> reported{false};
    if (!lost && !reported.exchange(true)) {  // a lost device has said so
        log::write(log::Level::warn,
                   "cannot create device queues or pinned buffers; computing on the CPU");
    }
    return nullptr;
}

// Hands the context back to the idle list when its thread ends. A call made after that
// (from a later thread-local destructor, or an atexit handler on the main thread) gets no
// context: another thread may own it by then.
struct Lease {
    QueueContext* context = nullptr;
    bool ended = false;
    ~Lease() {
        ended = true;
        if (context == nullptr) return;
        std::lock_guard lock(idle_mutex);
        idle_contexts->push_back(context);
        context = nullptr;
    }
};

thread_local Lease lease;
// The context on which this thread is enqueuing a LAPACK operation (LapackEnqueue).
thread_local QueueContext* enqueuing_lapack = nullptr;

}  // namespace

int QueueContext::reserve_result(const gpushim_device_plugin& plugin, int q, std::size_t bytes) {
    if (bytes <= result_capacity[q]) return 0;
    if (result[q] != nullptr) {
        plugin.pinned_free(result[q]);
        result[q] = nullptr;
        result_capacity[q] = 0;
    }
    // Grown by half again, so that a slowly growing workload does not re-pin every call;
    // where the host cannot pin that much (a result of tens of GB), exactly what is asked.
    std::size_t capacity = bytes + bytes / 2;
    if (plugin.pinned_alloc(&result[q], capacity) != 0) {
        capacity = bytes;
        if (const int status = plugin.pinned_alloc(&result[q], capacity); status != 0) {
            result[q] = nullptr;
            return status;
        }
    }
    result_capacity[q] = capacity;
    return 0;
}

QueueContext* thread_queue_context(const gpushim_device_plugin& plugin) {
    if (lease.context != nullptr) return lease.context;
    if (lease.ended) return nullptr;
    {
        std::lock_guard lock(idle_mutex);
        if (!idle_contexts->empty()) {
            lease.context = idle_contexts->back();
            idle_contexts->pop_back();
            return lease.context;
        }
    }
    lease.context = create_context(plugin);
    if (lease.context != nullptr) {
        [[maybe_unused]] static const bool hook_registered = [&plugin] {
            DeviceMemoryPool& pool = device_pool(plugin);
            // Not for others' shortage: the next LAPACK call of each thread would reserve its
            // workspace again, after a wait for the streams.
            pool.on_shortage(
                [&plugin, &pool] {
                    const std::size_t held = pool.held_bytes();
                    return release_idle_workspaces(plugin) > 0 && pool.held_bytes() < held;
                },
                false);
            return true;
        }();
        std::lock_guard lock(idle_mutex);
        all_contexts->push_back(lease.context);
    }
    return lease.context;
}

LapackEnqueue::LapackEnqueue(QueueContext& context) : context_(context) {
    context_.lapack_in_use.lock();
    enqueuing_lapack = &context_;
}

LapackEnqueue::~LapackEnqueue() {
    enqueuing_lapack = nullptr;
    context_.lapack_in_use.unlock();
}

std::size_t release_idle_workspaces(const gpushim_device_plugin& plugin) {
    std::lock_guard lock(idle_mutex);
    std::size_t asked = 0;
    for (QueueContext* context : *all_contexts) {
        // The calling thread's own operation: a try_lock of a mutex it holds would be undefined.
        if (context == enqueuing_lapack) continue;
        std::unique_lock in_use(context->lapack_in_use, std::try_to_lock);
        if (!in_use) continue;
        for (gpushim_queue queue : context->queue) {
            plugin.queue_release_workspaces(queue);
            ++asked;
        }
    }
    return asked;
}

}  // namespace gpushim::gpu
