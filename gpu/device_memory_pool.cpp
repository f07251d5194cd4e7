#include "gpu/device_memory_pool.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

#include "gpu/backend.h"

namespace gpushim::gpu {
namespace {
constexpr std::size_t kSmallGranule = 64 * 1024;
constexpr std::size_t kLargeGranule = 2 * 1024 * 1024;
// One over the share of the device's memory that leave_room_for_others keeps free.
constexpr std::size_t kShareLeftFree = 10;
}  // namespace

std::size_t DeviceMemoryPool::rounded_size(std::size_t bytes) {
    const std::size_t granule = bytes < kLargeGranule ? kSmallGranule : kLargeGranule;
    return (bytes + granule - 1) / granule * granule;
}

DeviceBlock DeviceMemoryPool::allocate(std::size_t bytes) {
    const std::size_t size = rounded_size(bytes);
    std::lock_guard lock(mutex_);
    // A cached block up to twice the request is reused; a larger one stays for larger calls.
    if (auto it = free_blocks_.lower_bound(size);
        it != free_blocks_.end() && it->first <= 2 * size) {
        const DeviceBlock block{it->second, it->first};
        cached_bytes_ -= block.size;
        free_blocks_.erase(it);
        return block;
    }
    if (!try_hold(size) && !(make_room_locked(size) && try_hold(size))) return {};
    DeviceBlock block{nullptr, size};
    const int status = plugin_.device_alloc(&block.data, size);
    if (status == 0) return block;
    if (note_failure_status(plugin_, status)) {  // no room to make on a lost device
        give(size);
        return {};
    }
    trim_locked();
    if (plugin_.device_alloc(&block.data, size) == 0) return block;
    if (call_shortage_hooks_locked() && plugin_.device_alloc(&block.data, size) == 0) return block;
    give(size);
    return {};
}

bool DeviceMemoryPool::try_hold(std::size_t bytes) {
    if (limit_ == kNoLimit) {
        held_.fetch_add(bytes, std::memory_order_relaxed);
        return true;
    }
    std::size_t held = held_.load(std::memory_order_relaxed);
    do {
        if (bytes > limit_ || held > limit_ - bytes) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
}

bool DeviceMemoryPool::make_room_locked(std::size_t bytes) {
    if (bytes > limit_) return false;
    const auto short_by = [&] {
        const std::size_t held = held_.load(std::memory_order_relaxed);
        return held > limit_ - bytes ? held - (limit_ - bytes) : 0;
    };
    if (short_by() == 0) return true;
    free_largest_locked(short_by());
    if (short_by() == 0) return true;
    call_shortage_hooks_locked();
    return short_by() == 0;
}

namespace {
thread_local uint64_t refused_takes = 0;
}  // namespace

bool DeviceMemoryPool::take(std::size_t bytes, bool make_room) {
    if (try_hold(bytes)) return true;
    if (make_room) {
        std::lock_guard lock(mutex_);
        // Twice: another thread may take the room made before this one holds it.
        for (int attempt = 0; attempt < 2 && make_room_locked(bytes); ++attempt) {
            if (try_hold(bytes)) return true;
        }
    }
    ++refused_takes;
    return false;
}

uint64_t DeviceMemoryPool::refused_takes_on_this_thread() {
    return refused_takes;
}

void DeviceMemoryPool::give(std::size_t bytes) {
    // Never below zero: more given than taken (a plugin's mistake) must not make the count
    // wrap and refuse everything.
    std::size_t held = held_.load(std::memory_order_relaxed);
    while (!held_.compare_exchange_weak(held, held - std::min(held, bytes),
                                        std::memory_order_relaxed)) {
    }
}

void DeviceMemoryPool::free_on_device(DeviceBlock block) {
    plugin_.device_free(block.data);
    give(block.size);
}

void DeviceMemoryPool::on_shortage(std::function<bool()> release, bool for_others) {
    std::lock_guard lock(mutex_);
    release_on_shortage_.push_back({std::move(release), for_others});
}

void DeviceMemoryPool::release(DeviceBlock block) {
    std::lock_guard lock(mutex_);
    free_blocks_.emplace(block.size, block.data);
    cached_bytes_ += block.size;
}

void DeviceMemoryPool::trim() {
    std::lock_guard lock(mutex_);
    trim_locked();
}

void DeviceMemoryPool::release_held() {
    std::lock_guard lock(mutex_);
    trim_locked();
    call_shortage_hooks_locked();
}

void DeviceMemoryPool::trim_locked() {
    free_largest_locked(std::numeric_limits<std::size_t>::max());
}

std::size_t DeviceMemoryPool::free_largest_locked(std::size_t bytes) {
    std::size_t freed = 0;
    while (freed < bytes && !free_blocks_.empty()) {
        const auto largest = std::prev(free_blocks_.end());
        plugin_.device_free(largest->second);
        give(largest->first);
        cached_bytes_ -= largest->first;
        freed += largest->first;
        free_blocks_.erase(largest);
    }
    return freed;
}

bool DeviceMemoryPool::call_shortage_hooks_locked(bool for_others) {
    bool released = false;
    for (const ShortageHook& hook : release_on_shortage_) {
        if (!for_others || hook.for_others) released = hook.release() || released;
    }
    return released;
}

void DeviceMemoryPool::leave_room_for_others() {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (const int status = plugin_.memory_info(&free_bytes, &total_bytes); status != 0) {
        note_failure_status(plugin_, status);
        return;
    }
    const std::size_t room = total_bytes / kShareLeftFree;
    if (free_bytes >= room) return;
    // The largest cached blocks first, until the room is free (each a cudaFree).
    std::lock_guard lock(mutex_);
    if (free_largest_locked(room - free_bytes) < room - free_bytes)
        call_shortage_hooks_locked(true);
}

std::size_t DeviceMemoryPool::cached_bytes() const {
    std::lock_guard lock(mutex_);
    return cached_bytes_;
}

}  // namespace gpushim::gpu
