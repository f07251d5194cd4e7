// The CUDA backend: thin calls into the CUDA runtime, cuBLAS, cuSOLVER and cuFFT behind the
// C table of gpu/device_interface.h. Everything that decides (pooling, staging, tiling,
// fallback) lives above the interface, where it is tested without a GPU.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>

#include "gpu/cuda/cuda_blas3.h"
#include "gpu/cuda/cuda_fft.h"
#include "gpu/cuda/cuda_lapack.h"
#include "gpu/cuda/cuda_memory_account.h"
#include "gpu/cuda/cuda_status.h"
#include "gpu/device_interface.h"

struct gpushim_queue_s {
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    gpushim::cuda::LapackState lapack;  // its cuSOLVER handle comes with the first LAPACK call
};

struct gpushim_event_s {
    cudaEvent_t event = nullptr;
};

namespace gpushim::cuda {
namespace {

constexpr int kLogDebug = 4;

// Written once by init(), which the host calls before anything else.
struct PluginState {
    int device = 0;
    // The device's primary context, which the runtime calls of every entry use.
    CUcontext context = nullptr;
    // The driver's calls for a thread's current context, from the runtime (cudaGetDriverEntryPoint-
    // ByVersion): the plugin links no libcuda of its own.
    CUresult (*get_current_context)(CUcontext*) = nullptr;
    CUresult (*set_current_context)(CUcontext) = nullptr;
    // What tells a device the program has reset (cudaDeviceReset, cuDevicePrimaryCtxReset)
    // from the one the plugin set up: the primary context is inactive, or another, or no
    // longer knows a pinned sentinel buffer by the allocation id it had. A reset frees every
    // allocation and stream of the context, and the pages of pinned buffers with them.
    // Not watched where the driver functions or the id could not be had.
    bool watching = false;
    CUdevice driver_device = 0;
    CUresult (*primary_context_state)(CUdevice, unsigned*, int*) = nullptr;
    CUresult (*retain_primary_context)(CUcontext*, CUdevice) = nullptr;
    CUresult (*release_primary_context)(CUdevice) = nullptr;
    CUresult (*pointer_attribute)(void*, CUpointer_attribute, CUdeviceptr) = nullptr;
    void* sentinel = nullptr;
    unsigned long long sentinel_id = 0;
    // The device's default memory pool, from which queues take their LAPACK workspaces in
    // stream order; null where the device does not support memory pools.
    cudaMemPool_t memory_pool = nullptr;
    const gpushim_host_services* services = nullptr;
    char description[sizeof(cudaDeviceProp::name) + 128] = "";
};
PluginState plugin;
// Set by an exit handler registered after the CUDA runtime's own, so it runs before the
// runtime is torn down: from then on device_intact() keeps new calls off the device.
std::atomic<bool> process_exiting{false};

void log_debug(const char* message) {
    if (plugin.services != nullptr && plugin.services->log != nullptr) {
        plugin.services->log(kLogDebug, message);
    }
}

int driver_status(CUresult result) {
    return result == CUDA_SUCCESS ? kSuccess : kDriverStatusBase + static_cast<int>(result);
}

// The current context is per thread, and the host calls in from any of the program's threads:
// some have none (a cudaSetDevice to put back "device 0" would create device 0's context, a few
// hundred MiB on a GPU another process may be using), some have chosen another device, or a
// context of their own, for their own CUDA work. Every entry runs in the plugin's context and
// leaves the thread's own as it was, none included.
template <typename Call>
int on_plugin_device(Call call) {
    CUcontext previous = nullptr;
    if (const int status = driver_status(plugin.get_current_context(&previous))) return status;
    if (previous == plugin.context) return call();
    if (const int status = driver_status(plugin.set_current_context(plugin.context))) {
        return status;
    }
    const int status = call();
    plugin.set_current_context(previous);  // the call's status is the one to report
    return status;
}

// The CUDA version whose driver functions the plugin asks for: a fixed one, older than any
// driver a CUDA 13 runtime runs on. The toolkit's own version (CUDART_VERSION) would be refused
// by an older driver of the same major version, on which minor version compatibility lets the
// runtime run, and the plugin would never start there.
constexpr unsigned kDriverFunctionsVersion = 12000;

// `function` of the driver, as the runtime finds it.
template <typename Function>
int driver_function(const char* name, Function** function) {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const int status = runtime_status(cudaGetDriverEntryPointByVersion(
        name, &address, kDriverFunctionsVersion, cudaEnableDefault, &found));
    if (status != kSuccess) return status;
    if (found != cudaDriverEntryPointSuccess || address == nullptr) {
        return driver_status(CUDA_ERROR_NOT_FOUND);
    }
    *function = reinterpret_cast<Function*>(address);
    return kSuccess;
}

// The primary context of the plugin's device, created if need be, without changing the calling
// thread's current context for good.
int primary_context(CUcontext* context) {
    CUcontext previous = nullptr;
    if (const int status = driver_status(plugin.get_current_context(&previous))) return status;
    // Creates the context where there is none yet: a device that cannot be used (prohibited
    // or exclusively held compute mode) fails here rather than in the first offloaded call.
    int status = runtime_status(cudaSetDevice(plugin.device));
    if (status == kSuccess) status = driver_status(plugin.get_current_context(context));
    const int restored = driver_status(plugin.set_current_context(previous));
    return status != kSuccess ? status : restored;
}

}  // namespace

bool take_device_memory(size_t bytes, bool make_room) {
    const gpushim_host_services* services = plugin.services;
    if (bytes == 0 || services == nullptr || services->take_device_memory == nullptr) return true;
    return services->take_device_memory(bytes, make_room ? 1 : 0) != 0;
}

void give_device_memory(size_t bytes) {
    const gpushim_host_services* services = plugin.services;
    if (bytes == 0 || services == nullptr || services->give_device_memory == nullptr) return;
    services->give_device_memory(bytes);
}

void release_kept_device_memory() {
    const gpushim_host_services* services = plugin.services;
    if (services != nullptr && services->release_kept_device_memory != nullptr)
        services->release_kept_device_memory();
}

namespace {

// The device's properties, memory pool and description, for init.
int read_device(int device_count) {
    cudaDeviceProp properties{};
    if (const int status = runtime_status(cudaGetDeviceProperties(&properties, plugin.device))) {
        return status;
    }
    int driver_version = 0;
    if (const int status = runtime_status(cudaDriverGetVersion(&driver_version))) return status;
    int memory_pools = 0;
    if (const int status = runtime_status(cudaDeviceGetAttribute(
            &memory_pools, cudaDevAttrMemoryPoolsSupported, plugin.device))) {
        return status;
    }
    // The default pool, not the device's current one: the program may have made another
    // pool current for its own allocations.
    if (memory_pools != 0) {
        if (const int status =
                runtime_status(cudaDeviceGetDefaultMemPool(&plugin.memory_pool, plugin.device))) {
            return status;
        }
    }
    // Tenths of a GiB in integers keep the text's length bounded for the fixed buffer.
    constexpr size_t kBytesPerGiB = size_t{1} << 30;
    const size_t memory_tenths_gib =
        (properties.totalGlobalMem * 10 + kBytesPerGiB / 2) / kBytesPerGiB;
    std::snprintf(plugin.description, sizeof plugin.description,
                  "%s (device %d of %d, sm_%d%d, %zu.%zu GiB, driver %d.%d)", properties.name,
                  plugin.device, device_count, properties.major, properties.minor,
                  memory_tenths_gib / 10, memory_tenths_gib % 10, driver_version / 1000,
                  driver_version % 1000 / 10);

    char message[sizeof plugin.description + 128];
    std::snprintf(message, sizeof message, "cuda plugin: %s; LAPACK workspaces from %s",
                  plugin.description,
                  plugin.memory_pool != nullptr ? "the default memory pool (stream-ordered)"
                                                : "cudaMalloc (no memory pools)");
    log_debug(message);
    return kSuccess;
}

const char* describe_error(int status);

// The handle of the device's primary context, which is active: retaining it makes nothing, and
// released at once, the count is as it was (unless the program resets the device meanwhile:
// its race, as CUDA documents).
int current_primary_context(CUcontext* primary) {
    const int status = driver_status(plugin.retain_primary_context(primary, plugin.driver_device));
    if (status == kSuccess) plugin.release_primary_context(plugin.driver_device);
    return status;
}

// The allocation id the driver knows the pinned sentinel buffer by.
int sentinel_buffer_id(unsigned long long* id) {
    return on_plugin_device([&] {
        return driver_status(plugin.pointer_attribute(
            id, CU_POINTER_ATTRIBUTE_BUFFER_ID, reinterpret_cast<CUdeviceptr>(plugin.sentinel)));
    });
}

// Sets up what device_intact() asks: kSuccess, or why a reset cannot be watched for.
int set_up_watch() {
    // The device of the plugin's own context, rather than its runtime ordinal taken for the
    // driver's. The signature of the version asked for (12000): CUDA 13's takes a context too.
    CUresult (*context_device)(CUdevice*) = nullptr;
    if (const int status = driver_function("cuCtxGetDevice", &context_device)) return status;
    if (const int status =
            driver_function("cuDevicePrimaryCtxGetState", &plugin.primary_context_state)) {
        return status;
    }
    if (const int status =
            driver_function("cuDevicePrimaryCtxRetain", &plugin.retain_primary_context)) {
        return status;
    }
    if (const int status =
            driver_function("cuDevicePrimaryCtxRelease", &plugin.release_primary_context)) {
        return status;
    }
    if (const int status = driver_function("cuPointerGetAttribute", &plugin.pointer_attribute)) {
        return status;
    }
    if (const int status = on_plugin_device(
            [&] { return driver_status(context_device(&plugin.driver_device)); })) {
        return status;
    }
    // The watch asks about the primary context: were the plugin's another, every call would
    // look like one after a reset.
    CUcontext primary = nullptr;
    if (const int status = current_primary_context(&primary)) return status;
    if (primary != plugin.context) return kContextNotPrimary;
    if (const int status = on_plugin_device([] {
            return runtime_status(cudaHostAlloc(&plugin.sentinel, 1, cudaHostAllocPortable));
        })) {
        return status;
    }
    return sentinel_buffer_id(&plugin.sentinel_id);
}

// Without the watch the plugin works as before; only a reset by the program would go unseen,
// which the debug log says.
void watch_for_reset() {
    const int status = set_up_watch();
    if (status == kSuccess) {
        plugin.watching = true;
        return;
    }
    if (plugin.sentinel != nullptr) {
        on_plugin_device([] { return runtime_status(cudaFreeHost(plugin.sentinel)); });
        plugin.sentinel = nullptr;
    }
    char message[512];
    std::snprintf(message, sizeof message,
                  "cuda plugin: a device reset by the program cannot be watched for (%s): after "
                  "one, the next offloaded call would fault",
                  describe_error(status));
    log_debug(message);
}

int init(const gpushim_host_services* services) {
    plugin.services = services;
    int device_count = 0;
    if (const int status = runtime_status(cudaGetDeviceCount(&device_count))) return status;
    if (device_count == 0) return kNoDevice;
    const int chosen = services != nullptr && services->choose_device != nullptr
                           ? services->choose_device(device_count)
                           : -1;
    if (chosen >= 0 && chosen < device_count) {
        plugin.device = chosen;
    } else if (const int status = runtime_status(cudaGetDevice(&plugin.device))) {
        return status;
    }
    if (int status = driver_function("cuCtxGetCurrent", &plugin.get_current_context);
        status != kSuccess ||
        (status = driver_function("cuCtxSetCurrent", &plugin.set_current_context)) != kSuccess ||
        (status = primary_context(&plugin.context)) != kSuccess) {
        return status;
    }
    if (const int status = on_plugin_device([&] { return read_device(device_count); })) {
        return status;
    }
    watch_for_reset();
    if (std::atexit([] { process_exiting.store(true); }) != 0) {
        log_debug(
            "cuda plugin: no exit handler could be registered: calls made while the "
            "process exits may find the CUDA runtime torn down");
    }
    return kSuccess;
}

int device_intact() {
    if (process_exiting.load(std::memory_order_relaxed)) return kProcessExiting;
    if (!plugin.watching) return kSuccess;
    unsigned flags = 0;
    int active = 0;
    if (const int status =
            driver_status(plugin.primary_context_state(plugin.driver_device, &flags, &active))) {
        return status;
    }
    if (active == 0) return kDeviceReset;
    CUcontext primary = nullptr;
    if (const int status = current_primary_context(&primary)) return status;
    if (primary != plugin.context) return kDeviceReset;
    unsigned long long id = 0;
    const int status = sentinel_buffer_id(&id);
    if (status == driver_status(CUDA_ERROR_INVALID_VALUE)) return kDeviceReset;
    if (status != kSuccess) return status;
    return id == plugin.sentinel_id ? kSuccess : kDeviceReset;
}

const char* device_description() {
    return plugin.description;
}

// cuSOLVER has no counterpart of cublasGetStatusName/String: names and meanings from
// cusolver_common.h and the cuSOLVER documentation.
const char* cusolver_status_text(cusolverStatus_t status) {
    switch (status) {
        case CUSOLVER_STATUS_SUCCESS:
            return "CUSOLVER_STATUS_SUCCESS: success";
        case CUSOLVER_STATUS_NOT_INITIALIZED:
            return "CUSOLVER_STATUS_NOT_INITIALIZED: the library was not initialized";
        case CUSOLVER_STATUS_ALLOC_FAILED:
            return "CUSOLVER_STATUS_ALLOC_FAILED: resource allocation failed";
        case CUSOLVER_STATUS_INVALID_VALUE:
            return "CUSOLVER_STATUS_INVALID_VALUE: an unsupported value or parameter was passed";
        case CUSOLVER_STATUS_ARCH_MISMATCH:
            return "CUSOLVER_STATUS_ARCH_MISMATCH: the device lacks a feature the routine needs";
        case CUSOLVER_STATUS_MAPPING_ERROR:
            return "CUSOLVER_STATUS_MAPPING_ERROR: access to GPU memory space failed";
        case CUSOLVER_STATUS_EXECUTION_FAILED:
            return "CUSOLVER_STATUS_EXECUTION_FAILED: the GPU program failed to execute";
        case CUSOLVER_STATUS_INTERNAL_ERROR:
            return "CUSOLVER_STATUS_INTERNAL_ERROR: an internal cuSOLVER operation failed";
        case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
            return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: the matrix type is not supported";
        case CUSOLVER_STATUS_NOT_SUPPORTED:
            return "CUSOLVER_STATUS_NOT_SUPPORTED: the parameter combination is not supported";
        case CUSOLVER_STATUS_ZERO_PIVOT:
            return "CUSOLVER_STATUS_ZERO_PIVOT: a zero pivot was encountered";
        case CUSOLVER_STATUS_INVALID_LICENSE:
            return "CUSOLVER_STATUS_INVALID_LICENSE: invalid license";
        case CUSOLVER_STATUS_INVALID_WORKSPACE:
            return "CUSOLVER_STATUS_INVALID_WORKSPACE: the workspace is invalid or too small";
        default:
            // The iterative-refinement (IRS) statuses: never returned by the routines used.
            return nullptr;
    }
}

// The text of a status composed from a library's code, kept for the life of the process so
// that the pointer describe_error returns never dangles. There are as many as the distinct
// codes the libraries return. Not thread_local: in a library loaded with dlopen, a
// thread_local with a destructor runs it at thread exit in dynamic TLS, which glibc frees
// later on another thread without an ordering ThreadSanitizer can see.
const char* kept_text(int status, std::string text) {
    static std::mutex guard;
    static auto* const texts = new std::unordered_map<int, std::string>;
    const std::lock_guard lock(guard);
    return texts->try_emplace(status, std::move(text)).first->second.c_str();
}

const char* describe_error(int status) {
    // The text names the library's own error code, so a user can look it up.
    if (status == kSuccess) return "success";
    if (status == kInvalidFftOperation) {
        return "the CUDA plugin got an FFT description it cannot plan: an unknown kind or "
               "precision, a rank outside 1..3, a size or howmany below 1, a C2C sign other "
               "than -1 and +1, or arrays whose byte offsets exceed int64";
    }
    if (status >= kDriverStatusBase) {
        return kept_text(
            status, "CUDA driver error " + std::to_string(status - kDriverStatusBase) +
                        " (CUresult) in one of the plugin's driver calls (the current context, the "
                        "primary context's state, a pointer's attributes, or finding them)");
    }
    if (status >= kCufftStatusBase) {
        const int code = status - kCufftStatusBase;
        const char* known = cufft_status_text(static_cast<cufftResult>(code));
        return kept_text(status, known != nullptr ? std::string("cuFFT ") + known
                                                  : "cuFFT status " + std::to_string(code));
    }
    if (status >= kCusolverStatusBase) {
        const int code = status - kCusolverStatusBase;
        const char* known = cusolver_status_text(static_cast<cusolverStatus_t>(code));
        return kept_text(status, known != nullptr ? std::string("cuSOLVER ") + known
                                                  : "cuSOLVER status " + std::to_string(code));
    }
    if (status >= kCublasStatusBase) {
        const auto blas_status = static_cast<cublasStatus_t>(status - kCublasStatusBase);
        return kept_text(status, std::string("cuBLAS ") + cublasGetStatusName(blas_status) + ": " +
                                     cublasGetStatusString(blas_status));
    }
    if (status >= kCudaStatusBase) {
        const auto error = static_cast<cudaError_t>(status - kCudaStatusBase);
        return kept_text(status, std::string("CUDA runtime ") + cudaGetErrorName(error) + ": " +
                                     cudaGetErrorString(error));
    }
    switch (status) {
        case kNoDevice:
            return "no CUDA device is visible to this process";
        case kHostOutOfMemory:
            return "the CUDA plugin ran out of host memory";
        case kInvalidBlasOperation:
            return "the CUDA plugin got a BLAS operation with an unknown kind, precision or flag";
        case kInvalidLapackOperation:
            return "the CUDA plugin got a LAPACK operation it cannot run: an unknown kind, "
                   "precision, flag or range, a null pointer the kind needs (a, b, ipiv, tau, "
                   "w, wi, u, vt, found, info), a GESVD, GELS or GELSD with m < n, a GESVD with "
                   "both jobs 'O', or a GELS with trans other than 'N'";
        case kDeviceReset:
            return "the program reset the device (cudaDeviceReset or cuDevicePrimaryCtxReset), "
                   "which freed the memory, pinned buffers and streams gpushim held on it";
        case kProcessExiting:
            return "the process is exiting";
        case kContextNotPrimary:
            return "the plugin's context is not its device's primary context";
        case kUnsupportedLapackSize:
            return "the CUDA plugin got a LAPACK operation whose sizes, or the workspace they "
                   "need, exceed the 32-bit int of a cuSOLVER routine it runs on (the legacy "
                   "API's: ORGQR/UNGQR, ORMQR/UNMQR, POTRI, SYGVD/HEGVD, SYTRF, SYTRI, and the "
                   "ORMQR step of GELS and GELSD)";
    }
    return "unknown CUDA plugin status";
}

int memory_info(size_t* free_bytes, size_t* total_bytes) {
    return on_plugin_device(
        [&] { return runtime_status(cudaMemGetInfo(free_bytes, total_bytes)); });
}

int device_alloc(void** dev_ptr, size_t bytes) {
    return on_plugin_device([&] { return runtime_status(cudaMalloc(dev_ptr, bytes)); });
}

int device_free(void* dev_ptr) {
    return on_plugin_device([&] { return runtime_status(cudaFree(dev_ptr)); });
}

int pinned_alloc(void** host_ptr, size_t bytes) {
    // Portable: a staging buffer must stay pinned whatever context copies through it.
    return on_plugin_device(
        [&] { return runtime_status(cudaHostAlloc(host_ptr, bytes, cudaHostAllocPortable)); });
}

int pinned_free(void* host_ptr) {
    return on_plugin_device([&] { return runtime_status(cudaFreeHost(host_ptr)); });
}

// Releases whatever part of the queue exists; reports the first failure. cuBLAS documents
// that destroying a handle waits for the whole device, so queues are meant to live long.
// The LAPACK workspaces are freed in stream order, before the stream goes.
int release_queue(gpushim_queue_s* queue) {
    int status = release_lapack(queue->lapack);
    if (queue->blas != nullptr) {
        const int blas_status = status_from(cublasDestroy(queue->blas));
        if (status == kSuccess) status = blas_status;
    }
    if (queue->stream != nullptr) {
        const int stream_status = runtime_status(cudaStreamDestroy(queue->stream));
        if (status == kSuccess) status = stream_status;
    }
    delete queue;
    return status;
}

int queue_create(gpushim_queue* queue) {
    return on_plugin_device([&] {
        auto* created = new (std::nothrow) gpushim_queue_s;
        if (created == nullptr) return static_cast<int>(kHostOutOfMemory);
        // Non-blocking: the program's own legacy-default-stream work must not serialise
        // with ours.
        int status =
            runtime_status(cudaStreamCreateWithFlags(&created->stream, cudaStreamNonBlocking));
        created->lapack.stream = created->stream;
        created->lapack.pool = plugin.memory_pool;
        if (status == kSuccess) status = status_from(cublasCreate(&created->blas));
        if (status == kSuccess)
            status = status_from(cublasSetStream(created->blas, created->stream));
        if (status == kSuccess) {
            status = status_from(cublasSetPointerMode(created->blas, CUBLAS_POINTER_MODE_HOST));
        }
        // TRTRS runs on the queue's cuBLAS handle, on the same stream.
        created->lapack.blas = created->blas;
        if (status != kSuccess) {
            release_queue(created);
            return status;
        }
        *queue = created;
        return static_cast<int>(kSuccess);
    });
}

int queue_destroy(gpushim_queue queue) {
    return on_plugin_device([&] { return release_queue(queue); });
}

int queue_synchronize(gpushim_queue queue) {
    return on_plugin_device([&] { return runtime_status(cudaStreamSynchronize(queue->stream)); });
}

int queue_release_workspaces(gpushim_queue queue) {
    const LapackState& lapack = queue->lapack;
    if (lapack.device_workspace == nullptr && lapack.host_workspace == nullptr) return kSuccess;
    return on_plugin_device([&] {
        int status = release_workspaces(queue->lapack);
        // Freed in stream order into the memory pool, which gives memory back to the device
        // only at a synchronisation: now, so that the allocation that ran short can have it.
        const int synchronized = runtime_status(cudaStreamSynchronize(queue->stream));
        if (status == kSuccess) status = synchronized;
        if (plugin.memory_pool != nullptr) {
            const int trimmed = runtime_status(cudaMemPoolTrimTo(plugin.memory_pool, 0));
            if (status == kSuccess) status = trimmed;
        }
        return status;
    });
}

int event_create(gpushim_event* event) {
    return on_plugin_device([&] {
        auto* created = new (std::nothrow) gpushim_event_s;
        if (created == nullptr) return static_cast<int>(kHostOutOfMemory);
        const int status =
            runtime_status(cudaEventCreateWithFlags(&created->event, cudaEventDisableTiming));
        if (status != kSuccess) {
            delete created;
            return status;
        }
        *event = created;
        return static_cast<int>(kSuccess);
    });
}

int event_destroy(gpushim_event event) {
    return on_plugin_device([&] {
        const int status = runtime_status(cudaEventDestroy(event->event));
        delete event;
        return status;
    });
}

int event_record(gpushim_event event, gpushim_queue queue) {
    return on_plugin_device(
        [&] { return runtime_status(cudaEventRecord(event->event, queue->stream)); });
}

int event_synchronize(gpushim_event event) {
    return on_plugin_device([&] { return runtime_status(cudaEventSynchronize(event->event)); });
}

// Rows that lie end to end on both sides (packed columns, the staging buffers' chunks) are one
// contiguous block: one linear copy, which CUDA runs at full speed, where a 2-D copy of many
// short rows may run a row at a time.
int copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width_bytes,
            size_t rows, cudaMemcpyKind kind, cudaStream_t stream) {
    if ((dst_pitch == width_bytes && src_pitch == width_bytes) || rows == 1) {
        return runtime_status(cudaMemcpyAsync(dst, src, width_bytes * rows, kind, stream));
    }
    return runtime_status(
        cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width_bytes, rows, kind, stream));
}

int copy_to_device_2d(void* dev_dst, size_t dst_pitch, const void* host_src, size_t src_pitch,
                      size_t width_bytes, size_t rows, gpushim_queue queue) {
    return on_plugin_device([&] {
        return copy_2d(dev_dst, dst_pitch, host_src, src_pitch, width_bytes, rows,
                       cudaMemcpyHostToDevice, queue->stream);
    });
}

int copy_to_host_2d(void* host_dst, size_t dst_pitch, const void* dev_src, size_t src_pitch,
                    size_t width_bytes, size_t rows, gpushim_queue queue) {
    return on_plugin_device([&] {
        return copy_2d(host_dst, dst_pitch, dev_src, src_pitch, width_bytes, rows,
                       cudaMemcpyDeviceToHost, queue->stream);
    });
}

int blas3(const gpushim_blas3_op* op, gpushim_queue queue) {
    return on_plugin_device([&] { return enqueue_blas3(*op, queue->blas); });
}

int lapack(const gpushim_lapack_op* op, gpushim_queue queue) {
    return on_plugin_device([&] { return enqueue_lapack(*op, queue->lapack); });
}

int fft_plan_create(const gpushim_fft_desc* desc, gpushim_fft_plan* plan) {
    return on_plugin_device([&] { return create_fft_plan(*desc, plan); });
}

int fft_execute(gpushim_fft_plan plan, void* dev_in, void* dev_out, gpushim_queue queue) {
    return on_plugin_device([&] { return execute_fft(plan, dev_in, dev_out, queue->stream); });
}

int fft_plan_destroy(gpushim_fft_plan plan) {
    return on_plugin_device([&] { return destroy_fft_plan(plan); });
}

int lasting_status(int status) {
    return status_is_lasting(status) ? 1 : 0;
}

constexpr gpushim_device_plugin kPlugin = {
    .interface_version = GPUSHIM_DEVICE_INTERFACE_VERSION,
    .name = "cuda",
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
    .queue_release_workspaces = queue_release_workspaces,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_synchronize = event_synchronize,
    .copy_to_device_2d = copy_to_device_2d,
    .copy_to_host_2d = copy_to_host_2d,
    .blas3 = blas3,
    .lapack = lapack,
    .fft_plan_create = fft_plan_create,
    .fft_execute = fft_execute,
    .fft_plan_destroy = fft_plan_destroy,
    .status_is_lasting = lasting_status,
    .device_intact = device_intact,
};

}  // namespace
}  // namespace gpushim::cuda

extern "C" __attribute__((visibility("default"))) const gpushim_device_plugin*
gpushim_device_plugin_v6(void) {
    return &gpushim::cuda::kPlugin;
}
