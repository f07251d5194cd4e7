// Calling threads' queue contexts: the device's workspaces of idle queues are released when
// device memory runs short, never those of a queue on which a LAPACK operation is enqueued.
#include "gpu/queue_context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <future>
#include <latch>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

// A plugin whose queues, events and pinned buffers are tokens that are never used, and
// which records the queues whose workspaces it was asked to release.
std::mutex released_mutex;
std::set<gpushim_queue> released;
std::atomic<std::uintptr_t> next_token{0};

template <class Handle>
int make_token(Handle* handle) {
    *handle = reinterpret_cast<Handle>(++next_token * 64);
    return 0;
}
int pinned_token(void** pointer, std::size_t) {
    return make_token(pointer);
}
int release_workspaces(gpushim_queue queue) {
    const std::lock_guard lock(released_mutex);
    released.insert(queue);
    return 0;
}

gpushim_device_plugin token_plugin() {
    gpushim_device_plugin plugin{};
    plugin.queue_create = make_token<gpushim_queue>;
    plugin.event_create = make_token<gpushim_event>;
    plugin.pinned_alloc = pinned_token;
    plugin.queue_release_workspaces = release_workspaces;
    return plugin;
}

std::set<gpushim_queue> queues_of(const QueueContext* context) {
    return {context->queue[0], context->queue[1]};
}

std::set<gpushim_queue> take_released() {
    const std::lock_guard lock(released_mutex);
    return std::exchange(released, {});
}

TEST(QueueContext, WorkspacesOfQueuesNotEnqueuingLapackAreReleased) {
    static const gpushim_device_plugin plugin = token_plugin();
    QueueContext* mine = thread_queue_context(plugin);
    ASSERT_NE(mine, nullptr);
    EXPECT_EQ(thread_queue_context(plugin), mine);

    // Two threads lease contexts at once and end: both contexts are idle.
    QueueContext* ended[2] = {};
    std::latch both_leased(2);
    {
        std::jthread first([&] {
            ended[0] = thread_queue_context(plugin);
            both_leased.arrive_and_wait();
        });
        std::jthread second([&] {
            ended[1] = thread_queue_context(plugin);
            both_leased.arrive_and_wait();
        });
    }
    ASSERT_NE(ended[0], nullptr);
    ASSERT_NE(ended[1], nullptr);
    ASSERT_NE(ended[0], ended[1]);

    std::promise<QueueContext*> enqueuing;
    std::promise<void> done;
    std::thread busy([&] {
        QueueContext* context = thread_queue_context(plugin);
        const LapackEnqueue enqueue(*context);
        enqueuing.set_value(context);
        done.get_future().wait();
    });
    QueueContext* other = enqueuing.get_future().get();  // one of the idle ones, leased again
    ASSERT_TRUE(other == ended[0] || other == ended[1]);
    QueueContext* idle = other == ended[0] ? ended[1] : ended[0];

    // Contexts of other tests in this process, if any, are released too: only these
    // contexts' queues are looked at.
    const auto released_of = [](const QueueContext* context) {
        const std::set<gpushim_queue> queues = queues_of(context);
        const std::lock_guard lock(released_mutex);
        return std::ranges::count_if(released, [&](gpushim_queue q) { return queues.contains(q); });
    };
    {
        // This thread runs short while it enqueues an operation of its own.
        const LapackEnqueue enqueue(*mine);
        release_idle_workspaces(plugin);
        EXPECT_EQ(released_of(idle), 2);
        EXPECT_EQ(released_of(mine), 0);
        EXPECT_EQ(released_of(other), 0);
    }
    take_released();
    release_idle_workspaces(plugin);
    EXPECT_EQ(released_of(idle), 2);
    EXPECT_EQ(released_of(mine), 2);
    EXPECT_EQ(released_of(other), 0);

    done.set_value();
    busy.join();
    take_released();
    release_idle_workspaces(plugin);
    EXPECT_EQ(released_of(other), 2);

    // The device memory pool asks for them when it runs short (when its first plugin is this
    // one: ctest runs each test in a process of its own).
    take_released();
    device_pool(plugin).release_held();
    EXPECT_EQ(released_of(mine), 2);
}

}  // namespace
}  // namespace gpushim::gpu
