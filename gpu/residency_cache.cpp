#include "gpu/residency_cache.h"

#include <algorithm>

#include "dispatch/config.h"
#include "gpu/staging.h"

namespace gpushim::gpu {

void ResidencyCache::Lease::end() {
    if (cache_ != nullptr) cache_->end_lease(entry_, use_);
    cache_ = nullptr;
}

void* ResidencyCache::Lease::device() const {
    return entry_->block.data;
}

ChunkPrints& ResidencyCache::Lease::prints() {
    return entry_->prints;
}

std::optional<ResidencyCache::Lease> ResidencyCache::lease(const Key& key, std::size_t bytes,
                                                           Access access) {
    const std::size_t size = DeviceMemoryPool::rounded_size(bytes);
    std::vector<DeviceBlock> evicted;
    Entry* entry = nullptr;
    {
        const std::lock_guard lock(mutex_);
        const auto found = std::find_if(entries_.begin(), entries_.end(),
                                        [&](const Entry& e) { return e.key == key; });
        if (found != entries_.end()) {
            if (found->in_use) return std::nullopt;
            if (access == Access::writes_only || access == Access::reads_whole_if_kept) {
                // A use while the entry rests: it counts, or an array that calls only write
                // and read in panels would rest for good.
                if (found->rest > 0) {
                    --found->rest;
                    found->prints.clear();
                    return std::nullopt;
                }
                if (access == Access::reads_whole_if_kept && found->prints.empty())
                    return std::nullopt;
            }
            found->in_use = true;
            entries_.splice(entries_.begin(), entries_, found);
            Lease::Use use;
            if (found->rest > 0) {
                --found->rest;
                found->prints.clear();
                use.checks = false;
            } else {
                use.compares = !found->prints.empty();
            }
            return Lease(this, &*found, use);
        }
        const auto seen = std::find(seen_.begin(), seen_.end(), key);
        if (seen == seen_.end() && access != Access::reads_into_factors) {
            if (access == Access::writes_only) return std::nullopt;
            seen_.push_front(key);
            if (seen_.size() > kSeenKeys) seen_.pop_back();
            return std::nullopt;
        }
        if (access == Access::reads_whole_if_kept) {
            seen_.splice(seen_.begin(), seen_, seen);
            return std::nullopt;
        }
        // Entries are evicted only when that makes room: the entries in use stay.
        std::size_t kept_bytes = 0;
        std::size_t kept_entries = 0;
        for (const Entry& e : entries_) {
            if (!e.in_use) continue;
            kept_bytes += e.bytes;
            ++kept_entries;
        }
        if (kept_bytes + size > capacity_ || kept_entries >= kMaxEntries) return std::nullopt;
        if (seen != seen_.end()) seen_.erase(seen);
        for (auto it = entries_.end();
             (held_bytes_ + size > capacity_ || entries_.size() >= kMaxEntries) &&
             it != entries_.begin();) {
            --it;
            if (it->in_use) continue;
            held_bytes_ -= it->bytes;
            evicted.push_back(it->block);
            it = entries_.erase(it);
        }
        held_bytes_ += size;
        entry = &entries_.emplace_front(Entry{key, size, {}, {}, true});
    }
    // The pool is used unlocked: when it runs short it calls release_unused().
    for (const DeviceBlock& block : evicted) pool_.release(block);
    const DeviceBlock block = pool_.allocate(bytes);
    const std::lock_guard lock(mutex_);
    held_bytes_ -= entry->bytes;
    if (block.data == nullptr) {
        entries_.remove_if([entry](const Entry& e) { return &e == entry; });
        seen_.push_front(key);  // the next sighting tries again
        return std::nullopt;
    }
    // The pool may hand out a cached block up to twice the size asked for: what it holds
    // counts (so the capacity may be passed by that much until the next eviction).
    entry->bytes = block.size;
    held_bytes_ += block.size;
    entry->block = block;
    return Lease(this, entry, {});
}

void ResidencyCache::end_lease(Entry* entry, const Lease::Use& use) {
    const std::lock_guard lock(mutex_);
    entry->in_use = false;
    if (!use.kept) {
        entry->prints.clear();
    } else if (use.compares && use.reused_any) {
        entry->misses = 0;
        entry->next_rest = 1;
    } else if (use.compares && ++entry->misses == 2) {
        entry->misses = 0;
        entry->rest = entry->next_rest;
        entry->next_rest = std::min(2 * entry->next_rest, kMaxRest);
    }
}

bool ResidencyCache::release_unused() {
    const std::lock_guard lock(mutex_);
    const std::size_t before = entries_.size();
    std::erase_if(entries_, [this](const Entry& e) {
        if (e.in_use) return false;
        pool_.free_on_device(e.block);
        held_bytes_ -= e.bytes;
        return true;
    });
    return entries_.size() != before;
}

std::size_t ResidencyCache::held_bytes() const {
    const std::lock_guard lock(mutex_);
    return held_bytes_;
}

std::size_t ResidencyCache::entry_count() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
}

ResidencyCache* residency_cache(const gpushim_device_plugin& plugin) {
    static ResidencyCache* const cache = [&plugin]() -> ResidencyCache* {
        DeviceMemoryPool& pool = device_pool(plugin);
        std::size_t capacity = 0;
        if (config().cache_bytes.has_value()) {
            capacity = *config().cache_bytes;
        } else if (std::size_t free_bytes = 0, total_bytes = 0;
                   plugin.memory_info(&free_bytes, &total_bytes) == 0) {
            capacity = std::min(total_bytes, pool.limit()) / 4;
        }
        if (capacity == 0) return nullptr;
        auto* made = new ResidencyCache(pool, capacity);
        pool.on_shortage([made] { return made->release_unused(); });
        return made;
    }();
    return cache;
}

}  // namespace gpushim::gpu
