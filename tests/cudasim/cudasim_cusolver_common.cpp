// The emulated cuSOLVER's handle and parameter objects, and the checks both halves share.
#include <new>
#include <string>

#include "tests/cudasim/cudasim.h"
#include "tests/cudasim/cudasim_cusolver.h"

namespace cudasim {

size_t element_bytes(cudaDataType type) {
    switch (type) {
        case CUDA_R_32F:
            return 4;
        case CUDA_R_64F:
        case CUDA_C_32F:
            return 8;
        case CUDA_C_64F:
            return 16;
        default:
            return 0;
    }
}

std::string lapack_symbol(char prefix, const char* real_name, const char* complex_name) {
    const bool complex = prefix == 'c' || prefix == 'z';
    return std::string(1, prefix) + (complex && complex_name ? complex_name : real_name) + "_";
}

void require_workspaces(const char* api, cudaStream_t stream, const void* device_workspace,
                        size_t device_bytes, size_t device_needed, const void* host_workspace,
                        size_t host_bytes, size_t host_needed) {
    if (device_bytes < device_needed) {
        misuse(api, "device workspace of " + std::to_string(device_bytes) +
                        " bytes; its bufferSize query answered " + std::to_string(device_needed));
    }
    if (host_bytes < host_needed) {
        misuse(api, "host workspace of " + std::to_string(host_bytes) +
                        " bytes; its bufferSize query answered " + std::to_string(host_needed));
    }
    if (device_bytes > 0) {
        require_device(api, "bufferOnDevice", device_workspace, device_bytes);
        void* const dirty = const_cast<void*>(device_workspace);
        enqueue(stream, [dirty, device_bytes] { poison(dirty, device_bytes); });
    }
    if (host_bytes > 0) require_host(api, "bufferOnHost", host_workspace, host_bytes);
}

}  // namespace cudasim

// The documentation lists no status for a null output pointer; a GPU build would write
// through it, so the emulation stops instead.
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle) {
    if (handle == nullptr) cudasim::misuse("cusolverDnCreate", "handle is null");
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_ALLOC_FAILED;
    *handle = new (std::nothrow) cusolverDnContext;
    if (*handle == nullptr) return CUSOLVER_STATUS_ALLOC_FAILED;
    (*handle)->device = cudasim::context_device();
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    cudasim::require_handle_device("cusolverDnSetStream", handle->device, stream);
    handle->stream = stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t* params) {
    if (params == nullptr) cudasim::misuse("cusolverDnCreateParams", "params is null");
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_ALLOC_FAILED;
    *params = new (std::nothrow) cusolverDnParams;
    return *params != nullptr ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}

// The documentation lists no status for a null params; refused rather than ignored.
cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params) {
    if (params == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
    delete params;
    return CUSOLVER_STATUS_SUCCESS;
}
