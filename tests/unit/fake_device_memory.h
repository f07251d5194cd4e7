// Device memory for unit tests of what holds it (the memory pool and its clients): a fake
// plugin whose blocks come from the host heap, within a capacity, counted in use. One per
// test program; each test sets it up afresh.
#pragma once

#include <cstddef>
#include <map>
#include <new>

#include "gpu/device_interface.h"

namespace gpushim::gpu::test {

struct FakeDeviceMemory {
    std::size_t capacity = std::size_t{1} << 20;
    std::size_t used = 0;
    std::map<void*, std::size_t> blocks;
};
inline FakeDeviceMemory fake_memory;

constexpr int kFakeOutOfMemory = 2;

inline int fake_alloc(void** block, std::size_t bytes) {
    if (fake_memory.used + bytes > fake_memory.capacity) return kFakeOutOfMemory;
    *block = ::operator new(bytes);
    fake_memory.blocks[*block] = bytes;
    fake_memory.used += bytes;
    return 0;
}

inline int fake_free(void* block) {
    fake_memory.used -= fake_memory.blocks.at(block);
    fake_memory.blocks.erase(block);
    ::operator delete(block);
    return 0;
}

// A plugin with that memory and nothing else.
inline gpushim_device_plugin fake_memory_plugin() {
    gpushim_device_plugin plugin{};
    plugin.device_alloc = fake_alloc;
    plugin.device_free = fake_free;
    return plugin;
}

}  // namespace gpushim::gpu::test
