// The LAPACK factorizations of the device interface, mapped onto cuSOLVER's 64-bit
// generic API (cusolverDnX*), so that dimensions, leading dimensions and pivots above
// 2^31 pass through unchanged.
//
// Pivots: cusolverDnXgetrf writes LAPACK's 1-based row interchanges ("row i is
// interchanged with row ipiv(i)"); NVIDIA's Xgetrf sample prints Ipiv = 3 3 3 for
// A = [1 2 3; 4 5 6; 7 8 10], which is what LAPACK's DGETRF returns (0-based would be
// 2 2 2). They reach op.ipiv unconverted.
#include "gpu/cuda/cuda_lapack.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "gpu/cuda/cuda_status.h"

namespace gpushim::cuda {
namespace {

// Workspaces grow by at least half of what they hold, so that a slowly growing problem
// size does not reallocate at every call, and in whole granules.
constexpr size_t kDeviceGranule = size_t{1} << 20;
constexpr size_t kHostGranule = size_t{1} << 16;

size_t grown_capacity(size_t current, size_t needed, size_t granule) {
    const size_t target = std::max(needed, current + current / 2);
    if (target > std::numeric_limits<size_t>::max() - granule) return needed;
    return (target + granule - 1) / granule * granule;
}

int free_device_workspace(LapackState& state) {
    void* const block = state.device_workspace;
    if (block == nullptr) return kSuccess;
    state.device_workspace = nullptr;
    state.device_workspace_bytes = 0;
    // In stream order: work already enqueued that uses the block finishes first, and
    // nothing waits. cudaFree (no memory pools) waits for the whole device instead.
    return status_from(state.pool != nullptr ? cudaFreeAsync(block, state.stream)
                                             : cudaFree(block));
}

void free_host_block(void* block) {
    std::free(block);
}

int free_host_workspace(LapackState& state) {
    void* const block = state.host_workspace;
    if (block == nullptr) return kSuccess;
    state.host_workspace = nullptr;
    state.host_workspace_bytes = 0;
    // cuSOLVER does not say whether work it enqueued still reads the host workspace, so
    // the block is freed in stream order; if that cannot be enqueued, once the stream
    // has drained.
    const cudaError_t launched = cudaLaunchHostFunc(state.stream, free_host_block, block);
    if (launched == cudaSuccess) return kSuccess;
    cudaStreamSynchronize(state.stream);
    std::free(block);
    return status_from(launched);
}

cudaError_t allocate_device(const LapackState& state, void** block, size_t bytes) {
    return state.pool != nullptr ? cudaMallocFromPoolAsync(block, bytes, state.pool, state.stream)
                                 : cudaMalloc(block, bytes);
}

int reserve_device_workspace(LapackState& state, size_t needed) {
    if (needed <= state.device_workspace_bytes) return kSuccess;
    const size_t preferred = grown_capacity(state.device_workspace_bytes, needed, kDeviceGranule);
    // The old block goes first: under memory pressure its bytes may be what the new
    // one needs.
    if (const int status = free_device_workspace(state)) return status;
    void* block = nullptr;
    size_t bytes = preferred;
    cudaError_t error = allocate_device(state, &block, bytes);
    if (error == cudaErrorMemoryAllocation && preferred > needed) {
        // Out of memory is not sticky; clear it so that no later check of the runtime's
        // last error (cuSOLVER's, cuBLAS's) mistakes it for a failure of its own.
        cudaGetLastError();
        bytes = needed;
        error = allocate_device(state, &block, bytes);
    }
    if (error != cudaSuccess) {
        cudaGetLastError();
        return status_from(error);
    }
    state.device_workspace = block;
    state.device_workspace_bytes = bytes;
    return kSuccess;
}

int reserve_host_workspace(LapackState& state, size_t needed) {
    if (needed <= state.host_workspace_bytes) return kSuccess;
    size_t bytes = grown_capacity(state.host_workspace_bytes, needed, kHostGranule);
    if (const int status = free_host_workspace(state)) return status;
    void* block = std::malloc(bytes);
    if (block == nullptr) {
        bytes = needed;
        block = std::malloc(bytes);
    }
    if (block == nullptr) return kHostOutOfMemory;
    state.host_workspace = block;
    state.host_workspace_bytes = bytes;
    return kSuccess;
}

// The handle and its parameters, created by the first LAPACK call on the queue.
int ensure_solver(LapackState& state) {
    if (state.solver != nullptr) return kSuccess;
    cusolverDnHandle_t solver = nullptr;
    if (const int status = status_from(cusolverDnCreate(&solver))) return status;
    cusolverDnParams_t params = nullptr;
    int status = status_from(cusolverDnSetStream(solver, state.stream));
    if (status == kSuccess) status = status_from(cusolverDnCreateParams(&params));
    if (status != kSuccess) {
        if (params != nullptr) cusolverDnDestroyParams(params);
        cusolverDnDestroy(solver);
        return status;
    }
    state.solver = solver;
    state.params = params;
    return kSuccess;
}

bool data_type(gpushim_precision precision, cudaDataType* type) {
    switch (precision) {
        case GPUSHIM_PREC_S:
            *type = CUDA_R_32F;
            return true;
        case GPUSHIM_PREC_D:
            *type = CUDA_R_64F;
            return true;
        case GPUSHIM_PREC_C:
            *type = CUDA_C_32F;
            return true;
        case GPUSHIM_PREC_Z:
            *type = CUDA_C_64F;
            return true;
    }
    return false;
}

int reserve_workspaces(LapackState& state, size_t device_bytes, size_t host_bytes) {
    if (const int status = reserve_device_workspace(state, device_bytes)) return status;
    return reserve_host_workspace(state, host_bytes);
}

int enqueue_potrf(const gpushim_lapack_op& op, cudaDataType type, LapackState& state) {
    const cublasFillMode_t uplo = op.uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(cusolverDnXpotrf_bufferSize(state.solver, state.params, uplo,
                                                                   op.n, type, op.a, op.lda, type,
                                                                   &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    // The sizes passed are the ones asked for, not the capacities: cuSOLVER gets exactly
    // what its query returned.
    return status_from(cusolverDnXpotrf(state.solver, state.params, uplo, op.n, type, op.a, op.lda,
                                        type, state.device_workspace, device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

int enqueue_getrf(const gpushim_lapack_op& op, cudaDataType type, LapackState& state) {
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(cusolverDnXgetrf_bufferSize(state.solver, state.params, op.m,
                                                                   op.n, type, op.a, op.lda, type,
                                                                   &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXgetrf(state.solver, state.params, op.m, op.n, type, op.a, op.lda,
                                        op.ipiv, type, state.device_workspace, device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

// A null ipiv would make cuSOLVER factor without pivoting, a different (unstable)
// factorization: refused rather than passed on.
bool operation_valid(const gpushim_lapack_op& op) {
    if (op.a == nullptr || op.info == nullptr) return false;
    switch (op.kind) {
        case GPUSHIM_POTRF:
            return op.uplo == 'U' || op.uplo == 'L';
        case GPUSHIM_GETRF:
            return op.ipiv != nullptr;
    }
    return false;
}

}  // namespace

int enqueue_lapack(const gpushim_lapack_op& op, LapackState& state) {
    cudaDataType type{};
    if (!data_type(op.precision, &type) || !operation_valid(op)) return kInvalidLapackOperation;
    if (const int status = ensure_solver(state)) return status;
    switch (op.kind) {
        case GPUSHIM_POTRF:
            return enqueue_potrf(op, type, state);
        case GPUSHIM_GETRF:
            return enqueue_getrf(op, type, state);
    }
    return kInvalidLapackOperation;
}

int release_lapack(LapackState& state) {
    int status = kSuccess;
    const auto keep_first = [&status](int next) {
        if (status == kSuccess) status = next;
    };
    if (state.params != nullptr) keep_first(status_from(cusolverDnDestroyParams(state.params)));
    state.params = nullptr;
    if (state.solver != nullptr) keep_first(status_from(cusolverDnDestroy(state.solver)));
    state.solver = nullptr;
    keep_first(free_device_workspace(state));
    keep_first(free_host_workspace(state));
    return status;
}

}  // namespace gpushim::cuda
