// libgpushim_hostsim.so: a host-simulated device for tests (DESIGN.md, "The device
// interface"). Device memory is host memory with a capacity (GPUSHIM_HOSTSIM_MEMORY),
// queues run their work at once, BLAS operations run on the CPU BLAS the host resolves,
// and every N-th device operation fails on request (GPUSHIM_HOSTSIM_FAIL_EVERY);
// GPUSHIM_HOSTSIM_INIT_MS makes initialisation take that long.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fallback/fortran_blas3.h"
#include "gpu/device_interface.h"

namespace {

enum Status : int {
    kOk = 0,
    kOutOfMemory = 1,
    kInjectedFault = 2,
    kUnsupported = 3,
    kUnknownPointer = 4,
};

struct Queue {};
struct Event {};

struct Device {
    const gpushim_host_services* services = nullptr;
    std::size_t capacity = std::numeric_limits<std::size_t>::max();
    uint64_t fail_every = 0;
    std::atomic<uint64_t> operations{0};
    std::mutex mutex;
    std::size_t used = 0;
    std::unordered_map<void*, std::size_t> allocations;
};

Device& device() {
    static auto* instance = new Device;
    return *instance;
}

uint64_t parse_unsigned(const char* variable, uint64_t fallback) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') return fallback;
    uint64_t value = 0;
    const std::string_view view(text);
    auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (error != std::errc{} || end != view.data() + view.size()) {
        const std::string message = std::string(variable) + "=" + text +
                                    " is not valid (accepted: a non-negative integer); ignored";
        device().services->log(2, message.c_str());
        return fallback;
    }
    return value;
}

// Counts a device operation and fails it when fault injection asks for it.
int operation() {
    Device& d = device();
    const uint64_t count = d.operations.fetch_add(1) + 1;
    return (d.fail_every != 0 && count % d.fail_every == 0) ? kInjectedFault : kOk;
}

int init(const gpushim_host_services* services) {
    Device& d = device();
    d.services = services;
    d.capacity = parse_unsigned("GPUSHIM_HOSTSIM_MEMORY", std::numeric_limits<std::size_t>::max());
    d.fail_every = parse_unsigned("GPUSHIM_HOSTSIM_FAIL_EVERY", 0);
    // A slow initialisation, like CUDA's, for tests of what happens meanwhile.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(parse_unsigned("GPUSHIM_HOSTSIM_INIT_MS", 0)));
    return kOk;
}

const char* device_description() {
    return "host-simulated device (tests only)";
}

const char* describe_error(int status) {
    switch (status) {
        case kOutOfMemory:
            return "hostsim: out of device memory";
        case kInjectedFault:
            return "hostsim: injected fault";
        case kUnsupported:
            return "hostsim: operation not supported";
        case kUnknownPointer:
            return "hostsim: pointer is not device memory";
        default:
            return "hostsim: unknown status";
    }
}

int memory_info(std::size_t* free_bytes, std::size_t* total_bytes) {
    Device& d = device();
    std::lock_guard lock(d.mutex);
    *total_bytes = d.capacity;
    *free_bytes = d.capacity - d.used;
    return kOk;
}

int device_alloc(void** pointer, std::size_t bytes) {
    if (int status = operation(); status != kOk) return status;
    Device& d = device();
    std::lock_guard lock(d.mutex);
    if (bytes > d.capacity - d.used) return kOutOfMemory;
    void* block = std::malloc(bytes == 0 ? 1 : bytes);
    if (block == nullptr) return kOutOfMemory;
    d.allocations.emplace(block, bytes);
    d.used += bytes;
    *pointer = block;
    return kOk;
}

int device_free(void* pointer) {
    Device& d = device();
    std::lock_guard lock(d.mutex);
    auto it = d.allocations.find(pointer);
    if (it == d.allocations.end()) return kUnknownPointer;
    d.used -= it->second;
    d.allocations.erase(it);
    std::free(pointer);
    return kOk;
}

int pinned_alloc(void** pointer, std::size_t bytes) {
    *pointer = std::malloc(bytes == 0 ? 1 : bytes);
    return *pointer != nullptr ? kOk : kOutOfMemory;
}

int pinned_free(void* pointer) {
    std::free(pointer);
    return kOk;
}

int queue_create(gpushim_queue* queue) {
    *queue = reinterpret_cast<gpushim_queue>(new Queue);
    return kOk;
}
int queue_destroy(gpushim_queue queue) {
    delete reinterpret_cast<Queue*>(queue);
    return kOk;
}
int queue_synchronize(gpushim_queue) {
    return kOk;
}
int event_create(gpushim_event* event) {
    *event = reinterpret_cast<gpushim_event>(new Event);
    return kOk;
}
int event_destroy(gpushim_event event) {
    delete reinterpret_cast<Event*>(event);
    return kOk;
}
int event_record(gpushim_event, gpushim_queue) {
    return kOk;
}
int event_synchronize(gpushim_event) {
    return kOk;
}

void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
             std::size_t width, std::size_t rows) {
    for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                    static_cast<const char*>(src) + r * src_pitch, width);
    }
}

int copy_to_device_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      std::size_t width, std::size_t rows, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
    return kOk;
}

int copy_to_host_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t width, std::size_t rows, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
    return kOk;
}

// BLAS on the CPU library, through its 32-bit Fortran interface.
template <class T>
int run_blas3(const gpushim_blas3_op& op, char prefix) {
    static constexpr const char* kNames[] = {"gemm",  "symm",  "hemm", "syrk", "herk",
                                             "syr2k", "her2k", "trmm", "trsm"};
    const std::string symbol = std::string(1, prefix) + kNames[op.kind] + "_";
    void* function = device().services->resolve_cpu_symbol(symbol.c_str());
    if (function == nullptr) return kUnsupported;
    return gpushim::fallback::call_fortran_blas3<T, int32_t>(function, op) ? kOk : kUnsupported;
}

int blas3(const gpushim_blas3_op* op, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    switch (op->precision) {
        case GPUSHIM_PREC_S:
            return run_blas3<float>(*op, 's');
        case GPUSHIM_PREC_D:
            return run_blas3<double>(*op, 'd');
        case GPUSHIM_PREC_C:
            return run_blas3<std::complex<float>>(*op, 'c');
        case GPUSHIM_PREC_Z:
            return run_blas3<std::complex<double>>(*op, 'z');
    }
    return kUnsupported;
}

// LAPACK on the CPU library, through its 32-bit Fortran interface; pivots widened to int64.
template <class T>
int run_lapack(const gpushim_lapack_op& op, char prefix) {
    using Int = int32_t;
    for (int64_t size : {op.m, op.n, op.lda}) {
        if (size > std::numeric_limits<Int>::max()) return kUnsupported;
    }
    const Int m = static_cast<Int>(op.m), n = static_cast<Int>(op.n), lda = static_cast<Int>(op.lda);
    auto* a = static_cast<T*>(op.a);
    Int info = 0;
    if (op.kind == GPUSHIM_POTRF) {
        const std::string symbol = std::string(1, prefix) + "potrf_";
        using Potrf = void (*)(const char*, const Int*, T*, const Int*, Int*, std::size_t);
        reinterpret_cast<Potrf>(device().services->resolve_cpu_symbol(symbol.c_str()))(&op.uplo, &n, a, &lda, &info,
                                                                                        1);
    } else {
        const std::string symbol = std::string(1, prefix) + "getrf_";
        using Getrf = void (*)(const Int*, const Int*, T*, const Int*, Int*, Int*);
        std::vector<Int> pivots(static_cast<std::size_t>(std::max<Int>(1, std::min(m, n))));
        reinterpret_cast<Getrf>(device().services->resolve_cpu_symbol(symbol.c_str()))(&m, &n, a, &lda,
                                                                                        pivots.data(), &info);
        for (Int i = 0; i < std::min(m, n); ++i) op.ipiv[i] = pivots[static_cast<std::size_t>(i)];
    }
    *op.info = info;
    return kOk;
}

int lapack(const gpushim_lapack_op* op, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    switch (op->precision) {
        case GPUSHIM_PREC_S: return run_lapack<float>(*op, 's');
        case GPUSHIM_PREC_D: return run_lapack<double>(*op, 'd');
        case GPUSHIM_PREC_C: return run_lapack<std::complex<float>>(*op, 'c');
        case GPUSHIM_PREC_Z: return run_lapack<std::complex<double>>(*op, 'z');
    }
    return kUnsupported;
}

const gpushim_device_plugin kPlugin{
    .interface_version = GPUSHIM_DEVICE_INTERFACE_VERSION,
    .name = "hostsim",
    .init = init,
    .device_description = device_description,
    .describe_error = describe_error,
    .memory_info = memory_info,
    .device_alloc = device_alloc,
    .device_free = device_free,
    .pinned_alloc = pinned_alloc,
    .pinned_free = pinned_free,
    .queue_create = queue_create,
    .queue_destroy = queue_destroy,
    .queue_synchronize = queue_synchronize,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_synchronize = event_synchronize,
    .copy_to_device_2d = copy_to_device_2d,
    .copy_to_host_2d = copy_to_host_2d,
    .blas3 = blas3,
    .lapack = lapack,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const gpushim_device_plugin*
gpushim_device_plugin_v1() {
    return &kPlugin;
}
