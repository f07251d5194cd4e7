#include "gpu/host_backup.h"

#include <new>

namespace gpushim::gpu {
namespace {

struct KeptMemory {
    std::unique_ptr<std::byte[]> data;
    std::size_t capacity = 0;
};
thread_local KeptMemory kept;

}  // namespace

std::byte* HostBackup::reserve(std::size_t bytes) {
    if (bytes > kKeptBytes) {
        own_.reset(new (std::nothrow) std::byte[bytes]);
        return own_.get();
    }
    if (kept.capacity < bytes) {
        kept.data.reset(new (std::nothrow) std::byte[bytes]);
        kept.capacity = kept.data != nullptr ? bytes : 0;
    }
    return kept.data.get();
}

}  // namespace gpushim::gpu
