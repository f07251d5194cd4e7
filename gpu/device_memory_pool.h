// Device memory from a pool: freed blocks are kept for reuse, so a steady workload makes
// no device allocation per call. When the device is full, cached blocks are returned to
// it and the allocation is tried once more.
//
// The pool also keeps the library's account of the device memory it holds, within a limit
// (GPUSHIM_GPU_MEMORY): its own blocks, in use or cached, and what the device plugin holds
// for itself (workspaces, FFT plans' work areas), which the plugin takes and gives back
// through the host's services. What would pass the limit is refused as if the device were
// full, after the pool has freed what it keeps and asked its clients for theirs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "gpu/device_interface.h"

namespace gpushim::gpu {

struct DeviceBlock {
    void* data = nullptr;
    std::size_t size = 0;
};

class DeviceMemoryPool {
  public:
    static constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();

    explicit DeviceMemoryPool(const gpushim_device_plugin& plugin, std::size_t limit = kNoLimit)
        : plugin_(plugin), limit_(limit) {}
    DeviceMemoryPool(const DeviceMemoryPool&) = delete;
    DeviceMemoryPool& operator=(const DeviceMemoryPool&) = delete;

    // A block of at least `bytes`; its data is nullptr when the device cannot provide one.
    DeviceBlock allocate(std::size_t bytes);
    void release(DeviceBlock block);
    // Frees a block the pool allocated on the device at once, instead of keeping it: for a
    // shortage hook, which runs with the pool locked (it takes no lock).
    void free_on_device(DeviceBlock block);
    // Accounts for `bytes` of device memory held outside the pool (a plugin's workspace):
    // true when the limit allows them, with `make_room` after freeing what the pool keeps
    // and asking its clients if need be (without: only if they fit beside what is held, for
    // a size merely preferred); give() them back once freed. Must not be called with the
    // pool locked (a shortage hook must not take).
    bool take(std::size_t bytes, bool make_room = true);
    void give(std::size_t bytes);
    // How many takes the limit has refused on the calling thread so far: an operation that
    // failed after one was refused did not fit, rather than failed.
    static uint64_t refused_takes_on_this_thread();
    // Frees every cached block on the device.
    void trim();
    // trim(), and every shortage hook's release too: for an allocation the pool does not
    // make (a device library's work area) that failed.
    void release_held();
    // What else holds device memory that can be let go: when an allocation fails even after
    // trim(), every `release` registered is called (with the pool locked; it must not use
    // the pool) and, if one returns true (it released something), the allocation is tried
    // once more. Unless `for_others`, not when the device is short for others only
    // (leave_room_for_others): for what costs the library much to have again.
    void on_shortage(std::function<bool()> release, bool for_others = true);

    std::size_t cached_bytes() const;
    // Device memory held: the pool's blocks, in use or cached, and what was taken.
    std::size_t held_bytes() const { return held_.load(std::memory_order_relaxed); }
    std::size_t limit() const { return limit_; }

    // After a call. Where less than a tenth of the device's memory is free, the pool gives
    // back blocks it keeps for later calls, the largest first, until a tenth is free and, if
    // that is not enough, calls the shortage hooks: other users of the device (another GPU
    // library in the process, other processes) may be short of it, and cannot ask the pool.
    void leave_room_for_others();

    // Allocation sizes are rounded up so that blocks of similar calls can be reused.
    static std::size_t rounded_size(std::size_t bytes);

  private:
    void trim_locked();
    // Frees cached blocks, the largest first, until `bytes` are freed or none is left;
    // returns the bytes freed.
    std::size_t free_largest_locked(std::size_t bytes);
    // Calls every shortage hook (those for others' shortage only when `for_others`);
    // whether one released something.
    bool call_shortage_hooks_locked(bool for_others = false);
    // Adds `bytes` to what is held if that stays within the limit.
    bool try_hold(std::size_t bytes);
    // Frees what the pool keeps, then asks the shortage hooks, until `bytes` more would stay
    // within the limit; whether they would.
    bool make_room_locked(std::size_t bytes);

    const gpushim_device_plugin& plugin_;
    const std::size_t limit_;
    std::atomic<std::size_t> held_{0};
    mutable std::mutex mutex_;
    std::multimap<std::size_t, void*> free_blocks_;  // by size
    std::size_t cached_bytes_ = 0;
    struct ShortageHook {
        std::function<bool()> release;
        bool for_others;
    };
    std::vector<ShortageHook> release_on_shortage_;
};

// A pool block owned for the duration of one call.
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(DeviceMemoryPool& pool, std::size_t bytes)
        : pool_(&pool),
          needed_(bytes > 0),
          block_(needed_ ? pool.allocate(bytes) : DeviceBlock{}) {}
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (block_.data != nullptr) pool_->release(block_);
    }

    void* data() const { return block_.data; }
    // Whether the buffer is usable: allocated, or not needed at all.
    bool ok() const { return !needed_ || block_.data != nullptr; }

  private:
    DeviceMemoryPool* pool_ = nullptr;
    bool needed_ = false;
    DeviceBlock block_;
};

// The device buffers of one call, carved from one pool block: a call never holds part of
// what it needs while the rest does not fit (two calls' worth of fragments would then
// starve every later call of a small device).
template <std::size_t Count>
class DeviceBuffers {
  public:
    static constexpr std::size_t kAlignment = 256;

    DeviceBuffers(DeviceMemoryPool& pool, const std::size_t (&sizes)[Count])
        : block_(pool, total_of(sizes)) {
        std::size_t offset = 0;
        for (std::size_t i = 0; i < Count; ++i) {
            offsets_[i] = offset;
            sizes_[i] = sizes[i];
            offset += aligned(sizes[i]);
        }
    }

    bool ok() const { return block_.ok(); }
    // The i-th buffer; nullptr when it has no bytes.
    void* part(std::size_t i) const {
        if (sizes_[i] == 0 || block_.data() == nullptr) return nullptr;
        return static_cast<std::byte*>(block_.data()) + offsets_[i];
    }

  private:
    static std::size_t aligned(std::size_t bytes) {
        return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    static std::size_t total_of(const std::size_t (&sizes)[Count]) {
        std::size_t total = 0;
        for (std::size_t size : sizes) total += aligned(size);
        return total;
    }

    std::size_t offsets_[Count] = {};
    std::size_t sizes_[Count] = {};
    DeviceBuffer block_;  // none needed when every size is 0
};

}  // namespace gpushim::gpu
