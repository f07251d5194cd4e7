// Device copies of operands, kept after a call for later calls that pass the same bytes.
//
// Iterative code multiplies by the same matrix again and again; copying it to the device
// every time is what makes offload lose (NVBLAS does). An entry is found by where the
// operand lies in host memory and its shape, and it is reused chunk by chunk only where the
// fingerprint of the caller's bytes now equals the one taken when they were uploaded
// (gpu/fingerprint.h): a chunk the program changed is uploaded again, never assumed.
//
// An operand gets an entry the second time it is seen: one seen once (a temporary) costs
// neither device memory nor fingerprinting. One whose every chunk changed at two uses in a
// row (an array the program refills before each call, as Fortran codes do) rests: it is
// uploaded plainly, without the check and without new prints, for 1, 2, 4 ... up to
// kMaxRest uses, and then checked again. An entry serves one call at a time (a lease);
// the least recently used entries not in use make room for new ones within the capacity
// (bytes, and kMaxEntries), and all of them are freed when device memory runs short (the
// memory pool asks, on_shortage).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "gpu/device_interface.h"
#include "gpu/device_memory_pool.h"
#include "gpu/fingerprint.h"

namespace gpushim::gpu {

// The fingerprints of an operand's upload chunks, by chunk; empty where unknown.
using ChunkPrints = std::vector<std::optional<Fingerprint>>;

class ResidencyCache {
    struct Entry;

  public:
    static constexpr std::size_t kMaxEntries = 256;
    static constexpr std::size_t kSeenKeys = 256;
    static constexpr int kMaxRest = 64;

    // A column-major operand in host memory: where it is, and its shape.
    struct Key {
        const std::byte* host = nullptr;
        int64_t ld = 0;
        int64_t rows = 0;
        int64_t cols = 0;
        std::size_t element = 0;
        friend bool operator==(const Key&, const Key&) = default;
    };

    // One call's use of an entry. Unless kept, the entry forgets its prints when the lease
    // ends (an upload did not complete, so the device copy is unknown); a lease given back
    // before any upload is kept.
    class Lease {
      public:
        Lease(Lease&& other) noexcept
            : cache_(std::exchange(other.cache_, nullptr)),
              entry_(other.entry_),
              use_(other.use_) {}
        Lease& operator=(Lease&& other) noexcept {
            if (this != &other) {
                end();
                cache_ = std::exchange(other.cache_, nullptr);
                entry_ = other.entry_;
                use_ = other.use_;
            }
            return *this;
        }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease() { end(); }

        void* device() const;
        // Whether the upload compares with and takes prints (else the entry rests: upload
        // plainly, prints stay empty).
        bool checks() const { return use_.checks; }
        ChunkPrints& prints();
        // Given back without an upload that compared with its prints: the entry keeps its
        // prints as they are now (as they were, unless the caller set new ones).
        void keep() {
            use_.kept = true;
            use_.compares = false;
        }
        // The upload completed (the device copy matches prints()) and found `reused_any`
        // chunk already on the device: later calls may use it.
        void keep(bool reused_any) {
            use_.kept = true;
            use_.reused_any = reused_any;
        }

      private:
        friend class ResidencyCache;
        struct Use {
            bool kept = false;
            bool checks = true;
            bool compares = false;  // the entry had prints: the upload compares
            bool reused_any = true;
        };
        Lease(ResidencyCache* cache, Entry* entry, Use use)
            : cache_(cache), entry_(entry), use_(use) {}
        void end();

        ResidencyCache* cache_;
        Entry* entry_;
        Use use_;
    };

    ResidencyCache(DeviceMemoryPool& pool, std::size_t capacity)
        : pool_(pool), capacity_(capacity) {}
    ResidencyCache(const ResidencyCache&) = delete;
    ResidencyCache& operator=(const ResidencyCache&) = delete;

    // How a call uses an operand.
    enum class Access {
        reads,                // an input, or an output the call updates
        writes_only,          // an output
        reads_whole_if_kept,  // an input read in panels, which have keys of their own
        reads_into_factors,   // an input the call overwrites with factors, which solves read
    };

    // The entry of `key` (an operand of `bytes`), now the caller's alone: one used before
    // with its prints, or a new one without. nullopt when the operand is not kept: it is
    // seen for the first time (lately), it exceeds the capacity, another call holds its
    // entry, or the device has no room. Beyond `reads`:
    //  - writes_only: the entry, if it does not rest; a new one for an array sighted (read)
    //    lately. A result is kept for an array that calls read, never for one they only
    //    write, and writing it is no sighting.
    //  - reads_whole_if_kept: the entry only if it has prints and does not rest, never a new
    //    one; otherwise a sighting (of the whole array, which the panels' keys are not), so
    //    that a result written into it later is kept.
    //  Either, refused while the entry rests, counts as one of its uses without a check.
    //  - reads_into_factors: as reads, with a new entry from the first sighting: the
    //    factors of a LAPACK factorization (a copy of the program's matrix, often new at
    //    every call) are read by the solve that follows it.
    std::optional<Lease> lease(const Key& key, std::size_t bytes, Access access = Access::reads);

    // Frees the device memory of every entry not in use (straight to the device: it is
    // called from the pool's shortage hook); true when there was one.
    bool release_unused();

    std::size_t capacity() const { return capacity_; }
    std::size_t held_bytes() const;
    std::size_t entry_count() const;

  private:
    struct Entry {
        Key key;
        std::size_t bytes = 0;  // what the pool handed out
        DeviceBlock block;
        ChunkPrints prints;
        bool in_use = false;
        int misses = 0;     // uses in a row that found no chunk unchanged
        int rest = 0;       // uses left without a check
        int next_rest = 1;  // the rest after the next two misses
    };

    void end_lease(Entry* entry, const Lease::Use& use);

    DeviceMemoryPool& pool_;
    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;  // most recently leased first
    std::size_t held_bytes_ = 0;
    std::list<Key> seen_;  // keys without an entry, most recent first
};

// The plugin's cache (never destroyed, like the device), registered with its memory pool
// as what to release when the device runs short; nullptr when GPUSHIM_CACHE_BYTES is 0.
ResidencyCache* residency_cache(const gpushim_device_plugin& plugin);

}  // namespace gpushim::gpu
