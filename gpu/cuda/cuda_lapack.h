#ifndef GPUSHIM_GPU_CUDA_CUDA_LAPACK_H
#define GPUSHIM_GPU_CUDA_CUDA_LAPACK_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>

#include "gpu/device_interface.h"

namespace gpushim::cuda {

// What one queue keeps for its LAPACK calls. The cuSOLVER handle is created by the first
// call, so that a process that only offloads BLAS never initialises cuSOLVER. The
// workspaces only grow; a steady workload allocates nothing.
struct LapackState {
    cudaStream_t stream = nullptr;  // the queue's stream; every call is ordered on it
    // The queue's cuBLAS handle, bound to the same stream (TRTRS is cuBLAS's trsm). The
    // queue owns it: release_lapack() leaves it alone.
    cublasHandle_t blas = nullptr;
    // Where the device workspace comes from: the device's default memory pool, allocated
    // and freed in stream order (no synchronisation), or, where memory pools are not
    // supported (pool == nullptr), cudaMalloc/cudaFree, whose free waits for the device.
    cudaMemPool_t pool = nullptr;
    cusolverDnHandle_t solver = nullptr;
    cusolverDnParams_t params = nullptr;
    // The device workspace starts with a small scratch area (an INFO that must not reach
    // the caller's), then what the routines ask for.
    void* device_workspace = nullptr;
    size_t device_workspace_bytes = 0;
    void* host_workspace = nullptr;
    size_t host_workspace_bytes = 0;
    // SYEVR's eigenvalue count (cusolverDnXsyevdx returns it in host memory) and GELSD's
    // rank (decided on the host): each reaches the op's device int64 by an asynchronous
    // copy from here, which outlives the call (a local would not).
    int64_t found = 0;
    // Recorded after the last asynchronous copy from `found` or the host workspace (which
    // may read its pageable source after cudaMemcpyAsync returns); the next operation waits
    // for it before it writes either again. Made at the first such copy.
    cudaEvent_t host_sources_read = nullptr;
};

// Enqueues `op` on state.stream and returns a plugin status (see cuda_status.h); it does
// not wait for the result. The calling thread's current device must be the queue's.
int enqueue_lapack(const gpushim_lapack_op& op, LapackState& state);

// Frees the workspaces (in stream order where it can), which the next call reserves again;
// reports the first failure.
int release_workspaces(LapackState& state);

// Releases the handle, the parameters and the workspaces (in stream order where it can);
// reports the first failure. Call before the stream is destroyed.
int release_lapack(LapackState& state);

}  // namespace gpushim::cuda

#endif
