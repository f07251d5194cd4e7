// The emulated CUDA runtime (libcudart): devices whose memory is host memory with a capacity,
// streams whose work runs only when the host waits for it, events, pinned memory, and the
// copies between them. See cudasim.h for what the emulation checks.
//
// Environment (tests only):
//   CUDASIM_MEMORY=<bytes>   each device's capacity (default 16 GiB)
//   CUDASIM_DEVICES=<N>      N devices, 0 to 8 (default 1); 0: cudaGetDeviceCount answers
//                            cudaErrorNoDevice
//   CUDASIM_MEMORY_POOLS=0   the device does not support memory pools
//   CUDASIM_UNTOUCHED_DEVICE=<d>  making device d's context stops the process: the process
//                            under test must leave that device alone
//   CUDASIM_FAIL_EVERY=<N>   about one in N of the calls that ask injected_fault() fails
//   CUDASIM_STICKY_FAULT_AT=<N>  the N-th call that asks injected_fault() faults the device,
//                            as a kernel's illegal address does: from then on every runtime
//                            call that needs the context fails with cudaErrorIllegalAddress
//                            (a sticky error) and does nothing, and every call that asks
//                            injected_fault() fails; work not yet run never runs
//   CUDASIM_DRIVER_VERSION=<v>  the driver's CUDA version, as cudaDriverGetVersion gives it
//                            (default the runtime's, CUDART_VERSION); an older one than the
//                            runtime's is minor version compatibility, where driver functions
//                            asked for by a newer version are refused
//
// cudaDeviceReset destroys everything made in the current device's context at once, work not
// yet run included: its streams are unknown from then on, its device memory is gone (not what
// came from a memory pool, as CUDA documents), and its pinned memory can no longer be touched
// (a read or write faults, as on a GPU, whose pinned pages are unmapped); the next call that
// needs the context makes it again. cudasimFaultDevice(), not CUDA's, stands in for a kernel of
// the program's own that faults: from then on the device is as after CUDASIM_STICKY_FAULT_AT,
// and the driver functions the plugin asks before each call return the sticky error too.
#include <cuda.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tests/cudasim/cudasim.h"

struct CUstream_st {
    int device = 0;  // the device current when it was made
    struct Work {
        uint64_t sequence;
        std::function<void()> run;
    };
    std::deque<Work> pending;
    uint64_t enqueued = 0;   // the sequence number of the last work enqueued
    uint64_t completed = 0;  // the sequence number of the last work run
    bool running = false;    // a thread is running the front work, outside the lock
};

struct CUevent_st {
    int device = 0;                 // the device current when it was made
    cudaStream_t stream = nullptr;  // where it was last recorded; null: never recorded
    uint64_t sequence = 0;          // it completes when that stream has run this much
};

struct CUmemPoolHandle_st {
    int device = 0;
};

// A device's primary context, the only kind emulated.
struct CUctx_st {
    int device = 0;
};

namespace cudasim {
namespace {

constexpr size_t kAlignment = 256;  // cudaMalloc's documented minimum alignment
constexpr size_t kDefaultCapacity = size_t{16} << 30;
constexpr int kMaxDevices = 8;
// cudaDevAttrMaxPitch of current GPUs: 2-D copies refuse larger pitches.
constexpr size_t kMaxPitch = (size_t{1} << 31) - 1;

uint64_t environment_number(const char* variable, uint64_t fallback) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') return fallback;
    uint64_t value = 0;
    const std::string_view view(text);
    const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (error != std::errc{} || end != view.data() + view.size()) {
        misuse("environment", std::string(variable) + "=" + text + " is not a whole number");
    }
    return value;
}

struct Allocation {
    size_t bytes;
    bool pinned;  // page-locked host memory rather than device memory
    int device;   // the device whose memory it is, or whose context pinned it
    uint64_t id;  // unique for the process, as CU_POINTER_ATTRIBUTE_BUFFER_ID
    bool stream_ordered;  // from a memory pool, which a device reset leaves alone
};

int device_count_setting() {
    const uint64_t count = environment_number("CUDASIM_DEVICES", 1);
    if (count > kMaxDevices) {
        misuse("environment", "CUDASIM_DEVICES=" + std::to_string(count) + " is more than " +
                                  std::to_string(kMaxDevices));
    }
    return static_cast<int>(count);
}

// Everything the runtime shares between threads. Work runs outside the lock (it may call back
// into the runtime: a stream waiting for another's event, a CPU routine that reaches
// libgpushim.so and through it the plugin).
struct Runtime {
    std::mutex mutex;
    std::condition_variable progress;
    CUstream_st legacy_stream;
    std::set<cudaStream_t> streams;
    std::map<uintptr_t, Allocation> allocations;  // live blocks by start address
    uint64_t allocations_made = 0;
    size_t device_bytes_used[kMaxDevices] = {};
    size_t capacity = environment_number("CUDASIM_MEMORY", kDefaultCapacity);
    int device_count = device_count_setting();
    int untouched_device = static_cast<int>(environment_number("CUDASIM_UNTOUCHED_DEVICE", -1ULL));
    CUctx_st primary_contexts[kMaxDevices];
    std::atomic<bool> context_made[kMaxDevices] = {};
    bool memory_pools = environment_number("CUDASIM_MEMORY_POOLS", 1) != 0;
    uint64_t fail_every = environment_number("CUDASIM_FAIL_EVERY", 0);
    int driver_version =
        static_cast<int>(environment_number("CUDASIM_DRIVER_VERSION", CUDART_VERSION));
    std::atomic<uint64_t> fault_candidates{0};
    uint64_t sticky_fault_at = environment_number("CUDASIM_STICKY_FAULT_AT", 0);
    std::atomic<uint64_t> sticky_candidates{0};
    std::atomic<bool> faulted{false};
    CUmemPoolHandle_st default_pools[kMaxDevices];
    std::unordered_map<std::string, void*> cpu_symbols;

    Runtime() {
        streams.insert(&legacy_stream);
        for (int device = 0; device < kMaxDevices; ++device) {
            default_pools[device].device = device;
            primary_contexts[device].device = device;
        }
    }
};

Runtime& runtime() {
    // Never destroyed: the plugin and the program's exit handlers may call in during exit.
    static auto* instance = new Runtime;
    return *instance;
}

thread_local cudaError_t last_error = cudaSuccess;
// The calling thread's current context: none until the thread sets a device, makes a context
// current or makes a call that needs one.
thread_local CUcontext current_context = nullptr;

void make_context(int device) {
    Runtime& r = runtime();
    if (device == r.untouched_device) {
        misuse("context", "device " + std::to_string(device) +
                              "'s context was made, which CUDASIM_UNTOUCHED_DEVICE says the "
                              "process leaves alone");
    }
    r.context_made[device].store(true);
}

// The device cudaGetDevice answers: the current context's, device 0 where there is none (and
// none is made).
int current_device() {
    return current_context != nullptr ? current_context->device : 0;
}

cudaError_t fail(cudaError_t error) {
    last_error = error;
    return error;
}

cudaStream_t resolve(cudaStream_t stream) {
    // One stream per thread is not emulated: taken for the legacy stream it would order two
    // threads' work as a GPU does not; the plugin uses streams of its own anyway.
    if (stream == cudaStreamPerThread) misuse("stream", "cudaStreamPerThread is not emulated");
    if (stream == nullptr || stream == cudaStreamLegacy) return &runtime().legacy_stream;
    return stream;
}

bool known_stream(cudaStream_t stream) {
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    return r.streams.contains(resolve(stream));
}

// Runs the work of `stream` until its sequence number `target` has completed. Another thread
// may be running the stream's front work: then this one waits for it.
void run_until(cudaStream_t stream, uint64_t target) {
    Runtime& r = runtime();
    std::unique_lock lock(r.mutex);
    while (stream->completed < target) {
        if (stream->running) {
            r.progress.wait(lock);
            continue;
        }
        CUstream_st::Work work = std::move(stream->pending.front());
        stream->pending.pop_front();
        stream->running = true;
        lock.unlock();
        work.run();
        lock.lock();
        stream->running = false;
        stream->completed = work.sequence;
        r.progress.notify_all();
    }
}

void drain(cudaStream_t stream) {
    uint64_t target = 0;
    {
        std::lock_guard lock(runtime().mutex);
        target = stream->enqueued;
    }
    run_until(stream, target);
}

// What the runtime does before an implicitly synchronising call (cudaFree, cudaFreeHost,
// cudaDeviceSynchronize): the work so far of the current device's streams runs, not another
// device's (code that relied on it would be wrong on a GPU).
void drain_device() {
    const int device = context_device();
    std::set<cudaStream_t> streams;
    {
        Runtime& r = runtime();
        std::lock_guard lock(r.mutex);
        for (cudaStream_t stream : r.streams) {
            if (stream == &r.legacy_stream || stream->device == device) streams.insert(stream);
        }
    }
    for (cudaStream_t stream : streams) drain(stream);
}

// The live allocation containing [address, address + bytes), or null.
const Allocation* find_allocation(const void* address, size_t bytes, uintptr_t* start) {
    Runtime& r = runtime();
    const auto begin = reinterpret_cast<uintptr_t>(address);
    auto it = r.allocations.upper_bound(begin);
    if (it == r.allocations.begin()) return nullptr;
    --it;
    if (begin - it->first > it->second.bytes || bytes > it->second.bytes - (begin - it->first)) {
        return nullptr;
    }
    *start = it->first;
    return &it->second;
}

// Pinned host memory, or memory of `device` (from its memory pool where `stream_ordered`).
cudaError_t allocate(void** address, size_t bytes, bool pinned, int device,
                     bool stream_ordered = false) {
    if (address == nullptr) return fail(cudaErrorInvalidValue);
    *address = nullptr;
    if (bytes == 0) return cudaSuccess;
    if (injected_fault()) return fail(cudaErrorMemoryAllocation);
    Runtime& r = runtime();
    {
        std::lock_guard lock(r.mutex);
        if (!pinned && bytes > r.capacity - r.device_bytes_used[device]) {
            return fail(cudaErrorMemoryAllocation);
        }
    }
    const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    // Pinned memory is mapped pages of its own, which a device reset can make inaccessible.
    void* block =
        pinned ? mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
               : std::aligned_alloc(kAlignment, rounded);
    if (block == MAP_FAILED) block = nullptr;
    if (block == nullptr) return fail(cudaErrorMemoryAllocation);
    poison(block, rounded);
    std::lock_guard lock(r.mutex);
    if (!pinned) {
        if (bytes > r.capacity - r.device_bytes_used[device]) {
            std::free(block);
            return fail(cudaErrorMemoryAllocation);
        }
        r.device_bytes_used[device] += bytes;
    }
    r.allocations.emplace(reinterpret_cast<uintptr_t>(block),
                          Allocation{bytes, pinned, device, ++r.allocations_made, stream_ordered});
    *address = block;
    return cudaSuccess;
}

// Takes the block starting at `address` out of the live set; false if there is none of that
// kind. The bytes stay until release() so that work enqueued before can still use them.
std::optional<Allocation> retire(void* address, bool pinned) {
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    const auto it = r.allocations.find(reinterpret_cast<uintptr_t>(address));
    if (it == r.allocations.end() || it->second.pinned != pinned) return std::nullopt;
    const Allocation retired = it->second;
    r.allocations.erase(it);
    return retired;
}

void release(void* address, const Allocation& retired) {
    if (retired.pinned) {
        munmap(address, retired.bytes);
        return;
    }
    std::free(address);
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    r.device_bytes_used[retired.device] -= retired.bytes;
}

bool valid_device(int device) {
    return device >= 0 && device < runtime().device_count;
}

bool default_pool(cudaMemPool_t pool) {
    const CUmemPoolHandle_st* pools = runtime().default_pools;
    return std::any_of(pools, pools + runtime().device_count,
                       [&](const CUmemPoolHandle_st& known) { return &known == pool; });
}

// The memory a copy of `kind` reads and writes, checked before the copy is enqueued.
cudaError_t check_copy(const char* api, void* dst, size_t dst_bytes, const void* src,
                       size_t src_bytes, cudaMemcpyKind kind) {
    switch (kind) {
        case cudaMemcpyHostToDevice:
            require_device(api, "dst", dst, dst_bytes);
            require_host(api, "src", src, src_bytes);
            return cudaSuccess;
        case cudaMemcpyDeviceToHost:
            require_host(api, "dst", dst, dst_bytes);
            require_device(api, "src", src, src_bytes);
            return cudaSuccess;
        case cudaMemcpyDeviceToDevice:
            require_device(api, "dst", dst, dst_bytes);
            require_device(api, "src", src, src_bytes);
            return cudaSuccess;
        default:
            // Host to host and cudaMemcpyDefault (unified addressing) are legal CUDA, but the
            // plugin always knows the direction: asking the runtime to guess hides a mix-up.
            misuse(api, "copy kind " + std::to_string(static_cast<int>(kind)) +
                            " is not emulated (the plugin states every direction)");
    }
}

size_t pitched_bytes(size_t pitch, size_t width, size_t height) {
    return height == 0 || width == 0 ? 0 : (height - 1) * pitch + width;
}

}  // namespace

int context_device() {
    if (current_context == nullptr && runtime().device_count > 0) {
        make_context(0);
        current_context = &runtime().primary_contexts[0];
    } else if (current_context != nullptr && !runtime().context_made[current_device()].load()) {
        make_context(current_device());  // after a device reset
    }
    return current_device();
}

int stream_device(cudaStream_t stream) {
    cudaStream_t target = resolve(stream);
    return target == &runtime().legacy_stream ? context_device() : target->device;
}

void require_handle_device(const char* api, int device, cudaStream_t stream) {
    const int current = context_device();
    const int of_stream = stream_device(stream);
    if (current != device || of_stream != device) {
        misuse(api, "a stream of device " + std::to_string(of_stream) + ", with device " +
                        std::to_string(current) + " current, given to a handle of device " +
                        std::to_string(device));
    }
}

void enqueue(cudaStream_t stream, std::function<void()> work) {
    const int device = context_device();
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    cudaStream_t target = resolve(stream);
    if (!r.streams.contains(target)) misuse("enqueue", "work enqueued on a destroyed stream");
    if (target != &r.legacy_stream && target->device != device) {
        misuse("enqueue", "work enqueued on a stream of device " + std::to_string(target->device) +
                              " while device " + std::to_string(device) + " is current");
    }
    target->pending.push_back({++target->enqueued, std::move(work)});
}

void misuse(const char* api, const std::string& message) {
    std::fprintf(stderr, "cudasim: %s: %s\n", api, message.c_str());
    std::fflush(stderr);
    std::abort();
}

void require_device(const char* api, const char* what, const void* address, size_t bytes) {
    if (bytes == 0) return;
    const int device = context_device();
    uintptr_t start = 0;
    std::lock_guard lock(runtime().mutex);
    const Allocation* block = find_allocation(address, bytes, &start);
    if (block == nullptr || block->pinned) {
        char text[160];
        std::snprintf(text, sizeof text, "%s [%p, +%zu bytes) is not inside one device allocation",
                      what, address, bytes);
        misuse(api, text);
    }
    if (block->device != device) {
        misuse(api, std::string(what) + " is memory of device " + std::to_string(block->device) +
                        " while device " + std::to_string(device) + " is current");
    }
}

void require_host(const char* api, const char* what, const void* address, size_t bytes) {
    if (address == nullptr) misuse(api, std::string(what) + " is null");
    uintptr_t start = 0;
    std::lock_guard lock(runtime().mutex);
    const Allocation* block = find_allocation(address, 1, &start);
    if (block == nullptr) return;
    if (!block->pinned) {
        misuse(api, std::string(what) + " is device memory where host memory is expected");
    }
    if (find_allocation(address, std::max<size_t>(bytes, 1), &start) == nullptr) {
        misuse(api, std::string(what) + " runs past the end of its pinned allocation");
    }
}

namespace {

void reset_device(int device) {
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    for (auto it = r.streams.begin(); it != r.streams.end();) {
        const cudaStream_t stream = *it;
        if (stream != &r.legacy_stream && stream->device != device) {
            ++it;
            continue;
        }
        stream->pending.clear();
        stream->completed = stream->enqueued;
        // Never freed, as a destroyed stream: a handle or event may still name it.
        it = stream == &r.legacy_stream ? std::next(it) : r.streams.erase(it);
    }
    // The blocks are never freed either, so that their addresses are not handed out again.
    for (auto it = r.allocations.begin(); it != r.allocations.end();) {
        const Allocation& block = it->second;
        // CUDA: "cudaDeviceReset() will not destroy memory allocations by cudaMallocAsync() and
        // cudaMallocFromPoolAsync()".
        if (block.device != device || block.stream_ordered) {
            ++it;
            continue;
        }
        if (block.pinned) {
            mprotect(reinterpret_cast<void*>(it->first), block.bytes, PROT_NONE);
        } else {
            r.device_bytes_used[device] -= block.bytes;
        }
        it = r.allocations.erase(it);
    }
    r.progress.notify_all();
    r.context_made[device].store(false);
}

}  // namespace

bool injected_fault() {
    Runtime& r = runtime();
    if (r.faulted.load()) return true;
    if (r.sticky_fault_at != 0 && r.sticky_candidates.fetch_add(1) + 1 == r.sticky_fault_at) {
        r.faulted.store(true);  // the call itself was launched: its fault shows up later
        return false;
    }
    if (r.fail_every == 0) return false;
    // One call in N on average, picked by a fixed pseudo-random sequence (SplitMix64 of the
    // call's number) rather than every N-th: a workload that cycles through N kinds of call
    // would otherwise see every fault strike the same kind.
    uint64_t x = r.fault_candidates.fetch_add(1) + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return (x ^ (x >> 31)) % r.fail_every == 0;
}

bool device_faulted() {
    return runtime().faulted.load();
}

void poison(void* address, size_t bytes) {
    std::memset(address, 0xFF, bytes);
}

namespace {

// The link-map namespace of private_cpu_symbol's libraries: made by the first one loaded.
Lmid_t emulation_namespace = LM_ID_NEWLM;

void* cpu_symbol_of(const char* const* libraries, const char* symbol, bool private_copy) {
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    const std::string key = (private_copy ? "private " : "") + std::string(symbol);
    const auto cached = r.cpu_symbols.find(key);
    if (cached != r.cpu_symbols.end()) return cached->second;
    std::string not_loaded;
    for (const char* const* library = libraries; *library != nullptr; ++library) {
        // RTLD_LOCAL, and dlsym on the handle: the library's own definition, never the one
        // a preloaded libgpushim.so puts first in the global scope.
        void* handle = private_copy ? dlmopen(emulation_namespace, *library, RTLD_NOW | RTLD_LOCAL)
                                    : dlopen(*library, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            not_loaded += std::string("; ") + dlerror();
            continue;
        }
        if (private_copy && emulation_namespace == LM_ID_NEWLM)
            dlinfo(handle, RTLD_DI_LMID, &emulation_namespace);
        if (void* function = dlsym(handle, symbol)) {
            r.cpu_symbols.emplace(key, function);
            return function;
        }
    }
    misuse("cpu_symbol", std::string("no CPU library defines ") + symbol + not_loaded);
}

}  // namespace

void* cpu_symbol(const char* const* libraries, const char* symbol) {
    return cpu_symbol_of(libraries, symbol, false);
}

void* private_cpu_symbol(const char* const* libraries, const char* symbol) {
    return cpu_symbol_of(libraries, symbol, true);
}

}  // namespace cudasim

using cudasim::fail;

extern "C" {

cudaError_t cudaGetLastError(void) {
    return std::exchange(cudasim::last_error, cudaSuccess);
}

const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
        case cudaSuccess:
            return "cudaSuccess";
        case cudaErrorInvalidValue:
            return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation:
            return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidPitchValue:
            return "cudaErrorInvalidPitchValue";
        case cudaErrorInvalidDevice:
            return "cudaErrorInvalidDevice";
        case cudaErrorNoDevice:
            return "cudaErrorNoDevice";
        case cudaErrorInvalidResourceHandle:
            return "cudaErrorInvalidResourceHandle";
        case cudaErrorIllegalAddress:
            return "cudaErrorIllegalAddress";
        default:
            return "unrecognized error code";
    }
}

const char* cudaGetErrorString(cudaError_t error) {
    switch (error) {
        case cudaSuccess:
            return "no error";
        case cudaErrorInvalidValue:
            return "invalid argument";
        case cudaErrorMemoryAllocation:
            return "out of memory";
        case cudaErrorInvalidPitchValue:
            return "invalid pitch argument";
        case cudaErrorInvalidDevice:
            return "invalid device ordinal";
        case cudaErrorNoDevice:
            return "no CUDA-capable device is detected";
        case cudaErrorInvalidResourceHandle:
            return "invalid resource handle";
        case cudaErrorIllegalAddress:
            return "an illegal memory access was encountered";
        default:
            return "unrecognized error code";
    }
}

cudaError_t cudaGetDeviceCount(int* count) {
    if (count == nullptr) return fail(cudaErrorInvalidValue);
    *count = cudasim::runtime().device_count;
    return *count == 0 ? fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (device == nullptr) return fail(cudaErrorInvalidValue);
    if (cudasim::runtime().device_count == 0) return fail(cudaErrorNoDevice);
    *device = cudasim::current_device();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    if (!cudasim::valid_device(device)) return fail(cudaErrorInvalidDevice);
    // Since CUDA 12 cudaSetDevice makes the device's primary context at once.
    cudasim::make_context(device);
    cudasim::current_context = &cudasim::runtime().primary_contexts[device];
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags) {
    if (!cudasim::valid_device(device)) return fail(cudaErrorInvalidDevice);
    if (flags != 0 || (device_flags & ~unsigned{cudaDeviceMask}) != 0) {
        return fail(cudaErrorInvalidValue);
    }
    cudasim::make_context(device);  // not made current
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
    if (properties == nullptr) return fail(cudaErrorInvalidValue);
    if (!cudasim::valid_device(device)) return fail(cudaErrorInvalidDevice);
    *properties = cudaDeviceProp{};
    std::snprintf(properties->name, sizeof properties->name, "cudasim: CUDA emulated on the CPU");
    properties->major = 9;
    properties->minor = 0;
    properties->totalGlobalMem = cudasim::runtime().capacity;
    properties->memoryPoolsSupported = cudasim::runtime().memory_pools ? 1 : 0;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
    if (version == nullptr) return fail(cudaErrorInvalidValue);
    *version = cudasim::runtime().driver_version;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
    if (value == nullptr) return fail(cudaErrorInvalidValue);
    if (!cudasim::valid_device(device)) return fail(cudaErrorInvalidDevice);
    if (attribute != cudaDevAttrMemoryPoolsSupported) {
        cudasim::misuse(
            "cudaDeviceGetAttribute",
            "attribute " + std::to_string(static_cast<int>(attribute)) + " is not emulated");
    }
    *value = cudasim::runtime().memory_pools ? 1 : 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    if (pool == nullptr) return fail(cudaErrorInvalidValue);
    if (!cudasim::valid_device(device)) return fail(cudaErrorInvalidDevice);
    if (!cudasim::runtime().memory_pools) return fail(cudaErrorNotSupported);
    *pool = &cudasim::runtime().default_pools[device];
    return cudaSuccess;
}

// Not CUDA's: the test programs' stand-in for a kernel of their own that faults the device
// (an illegal address), after which every call that needs the context fails.
cudaError_t cudasimFaultDevice(void) {
    cudasim::runtime().faulted.store(true);
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
    if (cudasim::runtime().device_count == 0) return fail(cudaErrorNoDevice);
    cudasim::reset_device(cudasim::current_device());
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    cudasim::drain_device();
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (free_bytes == nullptr || total_bytes == nullptr) return fail(cudaErrorInvalidValue);
    const int device = cudasim::context_device();
    cudasim::Runtime& r = cudasim::runtime();
    std::lock_guard lock(r.mutex);
    *total_bytes = r.capacity;
    *free_bytes = r.capacity - r.device_bytes_used[device];
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** address, size_t bytes) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    return cudasim::allocate(address, bytes, false, cudasim::context_device());
}

cudaError_t cudaFree(void* address) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (address == nullptr) return cudaSuccess;
    // cudaFree synchronises implicitly: work that still uses the block finishes first.
    cudasim::drain_device();
    const auto retired = cudasim::retire(address, false);
    if (!retired) return fail(cudaErrorInvalidValue);
    cudasim::release(address, *retired);
    return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void** address, size_t bytes, cudaMemPool_t pool,
                                    cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (!cudasim::default_pool(pool) || !cudasim::known_stream(stream)) {
        return fail(cudaErrorInvalidValue);
    }
    return cudasim::allocate(address, bytes, false, pool->device, true);
}

// The emulated pool keeps no memory of its own: a block freed in stream order goes back to
// the device when its stream reaches the free, so there is nothing to trim.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (!cudasim::default_pool(pool)) return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFreeAsync(void* address, cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (address == nullptr) return cudaSuccess;
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    // Out of the live set at once: work enqueued after this, on any stream, may not use it.
    const auto retired = cudasim::retire(address, false);
    if (!retired) return fail(cudaErrorInvalidValue);
    cudasim::enqueue(stream, [address, retired] { cudasim::release(address, *retired); });
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** address, size_t bytes, unsigned int flags) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    constexpr unsigned kKnownFlags =
        cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if ((flags & ~kKnownFlags) != 0) return fail(cudaErrorInvalidValue);
    // Pinned memory belongs to a context too, and goes with it.
    return cudasim::allocate(address, bytes, true, cudasim::context_device());
}

cudaError_t cudaFreeHost(void* address) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (address == nullptr) return cudaSuccess;
    cudasim::drain_device();
    const auto retired = cudasim::retire(address, true);
    if (!retired) return fail(cudaErrorInvalidValue);
    cudasim::release(address, *retired);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (stream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) {
        return fail(cudaErrorInvalidValue);
    }
    auto* created = new CUstream_st;
    created->device = cudasim::context_device();
    cudasim::Runtime& r = cudasim::runtime();
    std::lock_guard lock(r.mutex);
    r.streams.insert(created);
    *stream = created;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    cudasim::Runtime& r = cudasim::runtime();
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
        !cudasim::known_stream(stream)) {
        return fail(cudaErrorInvalidResourceHandle);
    }
    // The runtime finishes a destroyed stream's work before releasing it.
    cudasim::drain(stream);
    // Out of the live set but never freed: another thread may be draining it (cudaFree drains
    // every stream) or hold it from an event; and its address is never reused by a new stream.
    std::lock_guard lock(r.mutex);
    r.streams.erase(stream);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    cudasim::drain(cudasim::resolve(stream));
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    constexpr unsigned kKnownFlags =
        cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (event == nullptr || (flags & ~kKnownFlags) != 0) return fail(cudaErrorInvalidValue);
    *event = new CUevent_st;
    (*event)->device = cudasim::context_device();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (event == nullptr || !cudasim::known_stream(stream)) {
        return fail(cudaErrorInvalidResourceHandle);
    }
    // An event records work of its own device only, as CUDA's.
    cudaStream_t target = cudasim::resolve(stream);
    if (event->device != cudasim::stream_device(target)) {
        return fail(cudaErrorInvalidResourceHandle);
    }
    cudasim::Runtime& r = cudasim::runtime();
    std::lock_guard lock(r.mutex);
    event->stream = target;
    event->sequence = event->stream->enqueued;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    cudasim::context_device();
    if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
    cudaStream_t stream = nullptr;
    uint64_t sequence = 0;
    {
        std::lock_guard lock(cudasim::runtime().mutex);
        stream = event->stream;
        sequence = event->sequence;
    }
    if (stream != nullptr && cudasim::known_stream(stream)) cudasim::run_until(stream, sequence);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (event == nullptr || !cudasim::known_stream(stream)) {
        return fail(cudaErrorInvalidResourceHandle);
    }
    if (flags != cudaEventWaitDefault) return fail(cudaErrorInvalidValue);
    cudaStream_t recorded_on = nullptr;
    uint64_t sequence = 0;
    {
        std::lock_guard lock(cudasim::runtime().mutex);
        recorded_on = event->stream;
        sequence = event->sequence;
    }
    // The wait is for the event's most recent record at the time of this call; a wait for
    // an event never recorded is none.
    if (recorded_on == nullptr) return cudaSuccess;
    cudasim::enqueue(stream, [recorded_on, sequence] {
        if (cudasim::known_stream(recorded_on)) cudasim::run_until(recorded_on, sequence);
    });
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* data) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (function == nullptr) return fail(cudaErrorInvalidValue);
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    cudasim::enqueue(stream, [function, data] { function(data); });
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (count == 0) return cudaSuccess;
    cudasim::check_copy("cudaMemcpyAsync", dst, count, src, count, kind);
    cudasim::enqueue(stream, [dst, src, count] { std::memmove(dst, src, count); });
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (width > dst_pitch || width > src_pitch || dst_pitch > cudasim::kMaxPitch ||
        src_pitch > cudasim::kMaxPitch) {
        return fail(cudaErrorInvalidPitchValue);
    }
    if (width == 0 || height == 0) return cudaSuccess;
    cudasim::check_copy("cudaMemcpy2DAsync", dst, cudasim::pitched_bytes(dst_pitch, width, height),
                        src, cudasim::pitched_bytes(src_pitch, width, height), kind);
    cudasim::enqueue(stream, [=] {
        for (size_t row = 0; row < height; ++row) {
            std::memmove(static_cast<char*>(dst) + row * dst_pitch,
                         static_cast<const char*>(src) + row * src_pitch, width);
        }
    });
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* address, int value, size_t count, cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    cudasim::require_device("cudaMemsetAsync", "devPtr", address, count);
    cudasim::enqueue(stream, [=] { std::memset(address, value, count); });
    return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void* address, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
    if (cudasim::device_faulted()) return fail(cudaErrorIllegalAddress);
    if (!cudasim::known_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    cudasim::require_device("cudaMemset2DAsync", "devPtr", address,
                            cudasim::pitched_bytes(pitch, width, height));
    cudasim::enqueue(stream, [=] {
        for (size_t row = 0; row < height; ++row) {
            std::memset(static_cast<char*>(address) + row * pitch, value, width);
        }
    });
    return cudaSuccess;
}

namespace {

CUresult emulated_cuCtxGetCurrent(CUcontext* context) {
    if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *context = cudasim::current_context;
    return CUDA_SUCCESS;
}

CUresult emulated_cuCtxSetCurrent(CUcontext context) {
    const CUctx_st* primary = cudasim::runtime().primary_contexts;
    const auto known = std::find_if(primary, primary + cudasim::runtime().device_count,
                                    [&](const CUctx_st& made) { return &made == context; });
    if (context != nullptr && known == primary + cudasim::runtime().device_count) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    cudasim::current_context = context;
    return CUDA_SUCCESS;
}

// As CUDA 12's (the version the plugin asks for); CUDA 13's takes a context too.
CUresult emulated_cuCtxGetDevice(CUdevice* device) {
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (cudasim::current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *device = cudasim::current_context->device;
    return CUDA_SUCCESS;
}

// The driver functions the plugin asks before each call return a sticky error first seen
// there, as CUDA's driver functions "may also return error codes from previous, asynchronous
// launches".
CUresult emulated_cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
    if (cudasim::device_faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (!cudasim::valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    *flags = 0;
    *active = cudasim::runtime().context_made[device].load() ? 1 : 0;
    return CUDA_SUCCESS;
}

// The retain count is not emulated: a reset destroys the context whatever it is.
CUresult emulated_cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
    if (cudasim::device_faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (!cudasim::valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    cudasim::make_context(device);
    *context = &cudasim::runtime().primary_contexts[device];
    return CUDA_SUCCESS;
}

CUresult emulated_cuDevicePrimaryCtxRelease(CUdevice device) {
    return cudasim::valid_device(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// What Numba's cuda.close() calls: the reset of cudaDeviceReset, for a device named.
CUresult emulated_cuDevicePrimaryCtxReset(CUdevice device) {
    if (!cudasim::valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    cudasim::reset_device(device);
    return CUDA_SUCCESS;
}

CUresult emulated_cuPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                        CUdeviceptr pointer) {
    if (attribute != CU_POINTER_ATTRIBUTE_BUFFER_ID) {
        cudasim::misuse(
            "cuPointerGetAttribute",
            "attribute " + std::to_string(static_cast<int>(attribute)) + " is not emulated");
    }
    if (cudasim::device_faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (cudasim::current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    uintptr_t start = 0;
    std::lock_guard lock(cudasim::runtime().mutex);
    const cudasim::Allocation* block =
        cudasim::find_allocation(reinterpret_cast<const void*>(pointer), 1, &start);
    if (block == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *static_cast<unsigned long long*>(data) = block->id;
    return CUDA_SUCCESS;
}

}  // namespace

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** function,
                                             unsigned int version, unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* status) {
    // CUDA: "If the specified CUDA version is greater than the driver version, the API will
    // return cudaErrorInvalidValue".
    if (symbol == nullptr || function == nullptr || version < 4000 ||
        version > static_cast<unsigned>(cudasim::runtime().driver_version) ||
        flags != cudaEnableDefault) {
        return fail(cudaErrorInvalidValue);
    }
    const std::string_view name(symbol);
    if (name == "cuCtxGetCurrent") {
        *function = reinterpret_cast<void*>(&emulated_cuCtxGetCurrent);
    } else if (name == "cuCtxSetCurrent") {
        *function = reinterpret_cast<void*>(&emulated_cuCtxSetCurrent);
    } else if (name == "cuCtxGetDevice") {
        *function = reinterpret_cast<void*>(&emulated_cuCtxGetDevice);
    } else if (name == "cuDevicePrimaryCtxGetState") {
        *function = reinterpret_cast<void*>(&emulated_cuDevicePrimaryCtxGetState);
    } else if (name == "cuDevicePrimaryCtxRetain") {
        *function = reinterpret_cast<void*>(&emulated_cuDevicePrimaryCtxRetain);
    } else if (name == "cuDevicePrimaryCtxRelease") {
        *function = reinterpret_cast<void*>(&emulated_cuDevicePrimaryCtxRelease);
    } else if (name == "cuDevicePrimaryCtxReset") {
        *function = reinterpret_cast<void*>(&emulated_cuDevicePrimaryCtxReset);
    } else if (name == "cuPointerGetAttribute") {
        *function = reinterpret_cast<void*>(&emulated_cuPointerGetAttribute);
    } else {
        cudasim::misuse("cudaGetDriverEntryPointByVersion",
                        std::string("the driver's ") + symbol + " is not emulated");
    }
    if (status != nullptr) *status = cudaDriverEntryPointSuccess;
    return cudaSuccess;
}

}  // extern "C"
