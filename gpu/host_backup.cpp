#include "gpu/host_backup.h"

#include <sys/mman.h>

namespace gpushim::gpu {
namespace {

struct KeptMemory {
    std::byte* data = nullptr;
    std::size_t capacity = 0;

    KeptMemory() = default;
    KeptMemory(const KeptMemory&) = delete;
    KeptMemory& operator=(const KeptMemory&) = delete;
    ~KeptMemory() { release(); }

    void release() {
        if (data != nullptr) munmap(data, capacity);
        data = nullptr;
        capacity = 0;
    }
};
thread_local KeptMemory kept;

}  // namespace

std::byte* HostBackup::reserve(std::size_t bytes) {
    if (kept.capacity < bytes) {
        void* mapped =
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) return nullptr;
        kept.release();
        kept.data = static_cast<std::byte*>(mapped);
        kept.capacity = bytes;
    }
    return kept.data;
}

}  // namespace gpushim::gpu
