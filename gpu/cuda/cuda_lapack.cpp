// The LAPACK operations of the device interface, on cuSOLVER and cuBLAS.
//
// cuSOLVER's 64-bit generic API (cusolverDnX*) where it has the routine: POTRF, GETRF,
// GETRS, POTRS, SYTRS, TRTRI, GEQRF, SYEVD, GESVD, SYEVR (Xsyevdx), GEEV (Xgeev), so that
// dimensions, leading dimensions and pivots above 2^31 pass through unchanged. Its legacy
// typed API where it has not: ORGQR/UNGQR, ORMQR/UNMQR, POTRI, SYGVD/HEGVD, SYTRF and SYTRI
// take int sizes, and an operation whose sizes do not fit is refused (kUnsupportedLapackSize),
// never truncated. TRTRS is cuBLAS's trsm (64-bit API). GESV, POSV and SYSV are their two
// steps; GETRI is GETRS on an identity; GELS is Xgeqrf, ORMQR/UNMQR with Q^H and cuBLAS's trsm
// with R; GELSD is Xgeqrf, ORMQR/UNMQR, Xgesvd of R and cuBLAS's gemm and dgmm.
//
// Pivots: cusolverDnXgetrf writes LAPACK's 1-based row interchanges ("row i is
// interchanged with row ipiv(i)"); NVIDIA's Xgetrf sample prints Ipiv = 3 3 3 for
// A = [1 2 3; 4 5 6; 7 8 10], which is what LAPACK's DGETRF returns (0-based would be
// 2 2 2). They reach op.ipiv unconverted, and Xgetrs reads them back the same way.
//
// Nothing here waits for the device but SYEVR (cusolverDnXsyevdx returns its count in host
// memory), GELSD (the rank is decided on the host from the singular values), SYTRF (its int
// pivots are widened on the host) and an operation that follows one of them (until their
// copies from host memory have read it): every step
// is enqueued on the queue's stream, with workspaces taken and given back in stream order.
#include "gpu/cuda/cuda_lapack.h"

#include <cuComplex.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "gpu/cuda/cuda_memory_account.h"
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
    const size_t bytes = state.device_workspace_bytes;
    state.device_workspace = nullptr;
    state.device_workspace_bytes = 0;
    // In stream order: work already enqueued that uses the block finishes first, and
    // nothing waits. cudaFree (no memory pools) waits for the whole device instead.
    const int status = runtime_status(state.pool != nullptr ? cudaFreeAsync(block, state.stream)
                                                            : cudaFree(block));
    give_device_memory(bytes);
    return status;
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
    const int launched = runtime_status(cudaLaunchHostFunc(state.stream, free_host_block, block));
    if (launched == kSuccess) return kSuccess;
    runtime_status(cudaStreamSynchronize(state.stream));  // reported or not, the wait is done
    std::free(block);
    return launched;
}

// Copies `bytes` from the plugin's own host memory (found, the host workspace) to the
// device. "API synchronization behavior" promises only that such a copy from pageable
// memory "might be synchronous with respect to host": an event marks when it has read its
// source, and enqueue_lapack waits for it before the next operation writes there again.
int copy_from_plugin_host(void* device, const void* host, size_t bytes, LapackState& state) {
    if (const int status = runtime_status(
            cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, state.stream))) {
        return status;
    }
    if (state.host_sources_read == nullptr) {
        if (const int status = runtime_status(
                cudaEventCreateWithFlags(&state.host_sources_read, cudaEventDisableTiming))) {
            state.host_sources_read = nullptr;
            return status;
        }
    }
    return runtime_status(cudaEventRecord(state.host_sources_read, state.stream));
}

// Before the found count or the host workspace is written again, or the host workspace is
// handed to cuSOLVER (which may write it at once).
int wait_for_host_sources(const LapackState& state) {
    if (state.host_sources_read == nullptr) return kSuccess;
    return runtime_status(cudaEventSynchronize(state.host_sources_read));
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
    // The preferred size, or where the device or the host's account (the user's limit on
    // the library's device memory) has no room for it, what is needed: only that may make
    // the host free what it keeps.
    // The device short of what is needed: the host frees what it keeps, for a last try.
    const size_t tries[] = {preferred, needed, needed};
    const size_t first = preferred > needed ? 0 : 1;
    int status = kDeviceOutOfMemory;
    bool device_short = false;  // of what is needed
    for (size_t i = first; i < 3; ++i) {
        const size_t bytes = tries[i];
        if (i == 2) {
            if (!device_short) break;
            release_kept_device_memory();
        }
        if (!take_device_memory(bytes, bytes == needed)) continue;
        void* block = nullptr;
        const cudaError_t error = allocate_device(state, &block, bytes);
        status = runtime_status(error);  // out of memory is not sticky: cleared for a retry
        if (status == kSuccess) {
            state.device_workspace = block;
            state.device_workspace_bytes = bytes;
            return kSuccess;
        }
        give_device_memory(bytes);
        if (error != cudaErrorMemoryAllocation) return status;
        device_short = bytes == needed;
    }
    return status;
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

// The device workspace begins with kScratchBytes of scratch (an INFO that must not reach
// the caller: the second step of GESV and POSV), then the area the routine asked for; 256
// bytes keep that area as aligned as the allocation itself.
constexpr size_t kScratchBytes = 256;

int reserve_workspaces(LapackState& state, size_t device_bytes, size_t host_bytes) {
    if (device_bytes > std::numeric_limits<size_t>::max() - kScratchBytes) {
        return kDeviceOutOfMemory;
    }
    if (const int status = reserve_device_workspace(state, kScratchBytes + device_bytes)) {
        return status;
    }
    return reserve_host_workspace(state, host_bytes);
}

// The workspace of a legacy routine, whose query answered an int count of elements (negative
// where that count overflowed: the size is then refused).
template <class T>
int reserve_legacy_workspace(LapackState& state, int lwork) {
    if (lwork < 0) return kUnsupportedLapackSize;
    return reserve_workspaces(state, static_cast<size_t>(lwork) * sizeof(T), 0);
}

void* work_area(const LapackState& state) {
    return static_cast<char*>(state.device_workspace) + kScratchBytes;
}

int* scratch_info(const LapackState& state) {
    return static_cast<int*>(state.device_workspace);
}

// ---- element types --------------------------------------------------------------------------

// What differs between the four precisions: the generic API's data types, and the typed
// routines of the legacy API and of cuBLAS.
template <class T>
struct Element;

template <>
struct Element<float> {
    using Real = float;
    static constexpr bool kComplex = false;
    static constexpr cudaDataType kType = CUDA_R_32F;
    static constexpr cudaDataType kRealType = CUDA_R_32F;
    static float one() { return 1.0f; }
    static float from_real(float x) { return x; }
    static constexpr auto trsm = cublasStrsm_64;
    static constexpr auto gemm = cublasSgemm_64;
    static constexpr auto dgmm = cublasSdgmm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnSorgqr_bufferSize;
    static constexpr auto orgqr = cusolverDnSorgqr;
    static constexpr auto ormqr_buffer_size = cusolverDnSormqr_bufferSize;
    static constexpr auto ormqr = cusolverDnSormqr;
    static constexpr auto potri_buffer_size = cusolverDnSpotri_bufferSize;
    static constexpr auto potri = cusolverDnSpotri;
    static constexpr auto sygvd_buffer_size = cusolverDnSsygvd_bufferSize;
    static constexpr auto sygvd = cusolverDnSsygvd;
    static constexpr auto sytrf_buffer_size = cusolverDnSsytrf_bufferSize;
    static constexpr auto sytrf = cusolverDnSsytrf;
    static constexpr auto trttp = cublasStrttp;
    static constexpr auto tpttr = cublasStpttr;
};

template <>
struct Element<double> {
    using Real = double;
    static constexpr bool kComplex = false;
    static constexpr cudaDataType kType = CUDA_R_64F;
    static constexpr cudaDataType kRealType = CUDA_R_64F;
    static double one() { return 1.0; }
    static double from_real(double x) { return x; }
    static constexpr auto trsm = cublasDtrsm_64;
    static constexpr auto gemm = cublasDgemm_64;
    static constexpr auto dgmm = cublasDdgmm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnDorgqr_bufferSize;
    static constexpr auto orgqr = cusolverDnDorgqr;
    static constexpr auto ormqr_buffer_size = cusolverDnDormqr_bufferSize;
    static constexpr auto ormqr = cusolverDnDormqr;
    static constexpr auto potri_buffer_size = cusolverDnDpotri_bufferSize;
    static constexpr auto potri = cusolverDnDpotri;
    static constexpr auto sygvd_buffer_size = cusolverDnDsygvd_bufferSize;
    static constexpr auto sygvd = cusolverDnDsygvd;
    static constexpr auto sytrf_buffer_size = cusolverDnDsytrf_bufferSize;
    static constexpr auto sytrf = cusolverDnDsytrf;
    static constexpr auto trttp = cublasDtrttp;
    static constexpr auto tpttr = cublasDtpttr;
};

template <>
struct Element<cuComplex> {
    using Real = float;
    static constexpr bool kComplex = true;
    static constexpr cudaDataType kType = CUDA_C_32F;
    static constexpr cudaDataType kRealType = CUDA_R_32F;
    static cuComplex one() { return make_cuComplex(1.0f, 0.0f); }
    static cuComplex from_real(float x) { return make_cuComplex(x, 0.0f); }
    static constexpr auto trsm = cublasCtrsm_64;
    static constexpr auto gemm = cublasCgemm_64;
    static constexpr auto dgmm = cublasCdgmm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnCungqr_bufferSize;
    static constexpr auto orgqr = cusolverDnCungqr;
    static constexpr auto ormqr_buffer_size = cusolverDnCunmqr_bufferSize;
    static constexpr auto ormqr = cusolverDnCunmqr;
    static constexpr auto potri_buffer_size = cusolverDnCpotri_bufferSize;
    static constexpr auto potri = cusolverDnCpotri;
    static constexpr auto sygvd_buffer_size = cusolverDnChegvd_bufferSize;
    static constexpr auto sygvd = cusolverDnChegvd;
    static constexpr auto sytrf_buffer_size = cusolverDnCsytrf_bufferSize;
    static constexpr auto sytrf = cusolverDnCsytrf;
    static constexpr auto trttp = cublasCtrttp;
    static constexpr auto tpttr = cublasCtpttr;
};

template <>
struct Element<cuDoubleComplex> {
    using Real = double;
    static constexpr bool kComplex = true;
    static constexpr cudaDataType kType = CUDA_C_64F;
    static constexpr cudaDataType kRealType = CUDA_R_64F;
    static cuDoubleComplex one() { return make_cuDoubleComplex(1.0, 0.0); }
    static cuDoubleComplex from_real(double x) { return make_cuDoubleComplex(x, 0.0); }
    static constexpr auto trsm = cublasZtrsm_64;
    static constexpr auto gemm = cublasZgemm_64;
    static constexpr auto dgmm = cublasZdgmm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnZungqr_bufferSize;
    static constexpr auto orgqr = cusolverDnZungqr;
    static constexpr auto ormqr_buffer_size = cusolverDnZunmqr_bufferSize;
    static constexpr auto ormqr = cusolverDnZunmqr;
    static constexpr auto potri_buffer_size = cusolverDnZpotri_bufferSize;
    static constexpr auto potri = cusolverDnZpotri;
    static constexpr auto sygvd_buffer_size = cusolverDnZhegvd_bufferSize;
    static constexpr auto sygvd = cusolverDnZhegvd;
    static constexpr auto sytrf_buffer_size = cusolverDnZsytrf_bufferSize;
    static constexpr auto sytrf = cusolverDnZsytrf;
    static constexpr auto trttp = cublasZtrttp;
    static constexpr auto tpttr = cublasZtpttr;
};

// ---- flags ----------------------------------------------------------------------------------

bool one_of(char flag, std::string_view accepted) {
    return accepted.find(flag) != std::string_view::npos;
}

cublasFillMode_t fill(char uplo) {
    return uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

// For a real matrix the conjugate transpose is the transpose; a real ORMQR accepts only
// CUBLAS_OP_T for it.
template <class T>
cublasOperation_t operation(char trans) {
    if (trans == 'N') return CUBLAS_OP_N;
    return trans == 'T' || !Element<T>::kComplex ? CUBLAS_OP_T : CUBLAS_OP_C;
}

cublasSideMode_t side(char flag) {
    return flag == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}

cublasDiagType_t diagonal(char diag) {
    return diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

cusolverEigMode_t eigen_mode(char jobz) {
    return jobz == 'V' ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
}

// The legacy routines take int sizes, and their *_bufferSize answer an int element count,
// which for sizes that fit can still overflow: an operation with a size beyond an int, or
// a negative count, is refused (kUnsupportedLapackSize), never run with a workspace smaller
// than it needs. A count growing like n^2 may also wrap to a positive value: SYGVD, whose
// count does, and POTRI, whose growth is not documented, have order bounds of their own
// (kSygvdMaxOrder, kPotriMaxOrder).
bool fits_int(std::initializer_list<int64_t> sizes) {
    return std::all_of(sizes.begin(), sizes.end(),
                       [](int64_t size) { return size <= std::numeric_limits<int>::max(); });
}

// ---- factorizations and solvers -------------------------------------------------------------
//
// Every routine with a workspace query passes the sizes it asked for, not the capacities:
// cuSOLVER gets exactly what its query returned.

template <class T>
int potrf(const gpushim_lapack_op& op, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(
            cusolverDnXpotrf_bufferSize(state.solver, state.params, fill(op.uplo), op.n, type, op.a,
                                        op.lda, type, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXpotrf(state.solver, state.params, fill(op.uplo), op.n, type, op.a,
                                        op.lda, type, work_area(state), device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

// GETRF of the m x n matrix a (GESV: m = n).
template <class T>
int getrf(const gpushim_lapack_op& op, int64_t m, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status =
            status_from(cusolverDnXgetrf_bufferSize(state.solver, state.params, m, op.n, type, op.a,
                                                    op.lda, type, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXgetrf(state.solver, state.params, m, op.n, type, op.a, op.lda,
                                        op.ipiv, type, work_area(state), device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

// op(A) X = B with GETRF's factors in a and ipiv; no workspace.
template <class T>
int getrs(const gpushim_lapack_op& op, cublasOperation_t trans, int64_t nrhs, void* b, int64_t ldb,
          int* info, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    return status_from(cusolverDnXgetrs(state.solver, state.params, trans, op.n, nrhs, type, op.a,
                                        op.lda, op.ipiv, type, b, ldb, info));
}

// A X = B with POTRF's factor in a; no workspace.
template <class T>
int potrs(const gpushim_lapack_op& op, int* info, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    return status_from(cusolverDnXpotrs(state.solver, state.params, fill(op.uplo), op.n, op.nrhs,
                                        type, op.a, op.lda, type, op.b, op.ldb, info));
}

// GESV and POSV: the factorization writes op.info, which says whether the factor is
// singular (not positive definite); the solve's INFO (0 for valid arguments) goes to the
// scratch area, so that it cannot overwrite it. The solve is enqueued whatever the
// factorization finds: with INFO > 0, b holds no solution (LAPACK leaves it unchanged).
template <class T>
int gesv(const gpushim_lapack_op& op, LapackState& state) {
    if (const int status = getrf<T>(op, op.n, state)) return status;
    return getrs<T>(op, CUBLAS_OP_N, op.nrhs, op.b, op.ldb, scratch_info(state), state);
}

template <class T>
int posv(const gpushim_lapack_op& op, LapackState& state) {
    if (const int status = potrf<T>(op, state)) return status;
    return potrs<T>(op, scratch_info(state), state);
}

// Writes the n x n identity (leading dimension n) at `matrix`, on the device alone: zeros,
// then each nonzero byte of the real part's 1 down the diagonal (a pitch of n + 1
// elements), one 2-D memset per byte. No host buffer has to outlive the call.
template <class T>
int fill_identity(void* matrix, size_t n, cudaStream_t stream) {
    using Real = typename Element<T>::Real;
    if (const int status = runtime_status(cudaMemsetAsync(matrix, 0, n * n * sizeof(T), stream))) {
        return status;
    }
    const Real one = 1;
    unsigned char bytes[sizeof one];
    std::memcpy(bytes, &one, sizeof one);
    for (size_t i = 0; i < sizeof one; ++i) {
        if (bytes[i] == 0) continue;
        if (const int status = runtime_status(cudaMemset2DAsync(
                static_cast<char*>(matrix) + i, (n + 1) * sizeof(T), bytes[i], 1, n, stream))) {
            return status;
        }
    }
    return kSuccess;
}

// The inverse from GETRF's factors: A^-1 solves A X = I. GETRS solves on an identity in
// the workspace, which is then copied over a (honouring lda).
template <class T>
int getri(const gpushim_lapack_op& op, LapackState& state) {
    const size_t n = static_cast<size_t>(op.n);
    const size_t column_bytes = n * sizeof(T);
    if (n != 0 &&
        (column_bytes / sizeof(T) != n || n > std::numeric_limits<size_t>::max() / column_bytes)) {
        return kDeviceOutOfMemory;
    }
    if (const int status = reserve_workspaces(state, n * column_bytes, 0)) return status;
    void* const identity = work_area(state);
    if (const int status = fill_identity<T>(identity, n, state.stream)) return status;
    if (const int status =
            getrs<T>(op, CUBLAS_OP_N, op.n, identity, std::max<int64_t>(1, op.n), op.info, state)) {
        return status;
    }
    if (n == 0) return kSuccess;
    return runtime_status(cudaMemcpy2DAsync(op.a, static_cast<size_t>(op.lda) * sizeof(T), identity,
                                            column_bytes, column_bytes, n, cudaMemcpyDeviceToDevice,
                                            state.stream));
}

// The inverse from POTRF's factor, in the uplo triangle (the other is left untouched).
template <class T>
int potri(const gpushim_lapack_op& op, LapackState& state) {
    // The largest order whose n^2 fits an int: the legacy potri_bufferSize's int count of a
    // workspace whose growth cuSOLVER does not document could wrap to a positive value
    // beyond it (review).
    constexpr int64_t kPotriMaxOrder = 46340;
    if (!fits_int({op.n, op.lda}) || op.n > kPotriMaxOrder) return kUnsupportedLapackSize;
    const int n = static_cast<int>(op.n), lda = static_cast<int>(op.lda);
    auto* const a = static_cast<T*>(op.a);
    int lwork = 0;
    if (const int status = status_from(
            Element<T>::potri_buffer_size(state.solver, fill(op.uplo), n, a, lda, &lwork))) {
        return status;
    }
    if (const int status = reserve_legacy_workspace<T>(state, lwork)) return status;
    return status_from(Element<T>::potri(state.solver, fill(op.uplo), n, a, lda,
                                         static_cast<T*>(work_area(state)), lwork, op.info));
}

// SYTRF's pivots from cuSOLVER's legacy sytrf (int) to the interface's (int64_t): copied to
// the host workspace, widened there (the plugin has no kernels) and copied to `destination`
// by copy_from_plugin_host, in stream order; the copy back waits for the device, the one wait
// of SYTRF. The host workspace must hold pivot_widening_bytes(n).
size_t widened_pivots_at(size_t n) {
    return (n * sizeof(int) + sizeof(int64_t) - 1) / sizeof(int64_t) * sizeof(int64_t);
}

size_t pivot_widening_bytes(size_t n) {
    return widened_pivots_at(n) + n * sizeof(int64_t);
}

int widen_pivots(const int* source, int64_t* destination, size_t n, LapackState& state) {
    auto* const from = static_cast<int*>(state.host_workspace);
    if (const int status = runtime_status(
            cudaMemcpyAsync(from, source, n * sizeof(int), cudaMemcpyDeviceToHost, state.stream))) {
        return status;
    }
    if (const int status = runtime_status(cudaStreamSynchronize(state.stream))) return status;
    auto* const to =
        reinterpret_cast<int64_t*>(static_cast<char*>(state.host_workspace) + widened_pivots_at(n));
    std::copy(from, from + n, to);
    return copy_from_plugin_host(destination, to, n * sizeof(int64_t), state);
}

// The Bunch-Kaufman factorization on cuSOLVER's legacy sytrf, whose pivots are int in
// LAPACK's convention: widen_pivots widens them into op.ipiv.
template <class T>
int sytrf(const gpushim_lapack_op& op, LapackState& state) {
    if (!fits_int({op.n, op.lda})) return kUnsupportedLapackSize;
    const int n = static_cast<int>(op.n), lda = static_cast<int>(op.lda);
    auto* const a = static_cast<T*>(op.a);
    int lwork = 0;
    if (const int status =
            status_from(Element<T>::sytrf_buffer_size(state.solver, n, a, lda, &lwork))) {
        return status;
    }
    if (lwork < 0) return kUnsupportedLapackSize;  // the int count overflowed
    const auto order = static_cast<size_t>(n);
    const size_t work_bytes = static_cast<size_t>(lwork) * sizeof(T);  // int-aligned after it
    if (const int status = reserve_workspaces(state, work_bytes + order * sizeof(int),
                                              pivot_widening_bytes(order))) {
        return status;
    }
    auto* const device_pivots =
        reinterpret_cast<int*>(static_cast<char*>(work_area(state)) + work_bytes);
    if (const int status =
            status_from(Element<T>::sytrf(state.solver, fill(op.uplo), n, a, lda, device_pivots,
                                          static_cast<T*>(work_area(state)), lwork, op.info))) {
        return status;
    }
    return widen_pivots(device_pivots, op.ipiv, order, state);
}

// Where a step writes its INFO: the caller's, or the scratch INFO at the start of the device
// workspace (known only once the step has reserved its workspace, which may move it).
enum class InfoTo { caller, scratch };

// Xsytrs's workspaces for B := A^-1 B with `nrhs` columns at b, ldb. The query reads no array:
// a B not yet placed (SYTRI's, in the workspace being sized) may be given as any pointer.
struct SolveWorkspaces {
    size_t device_bytes = 0;
    size_t host_bytes = 0;
};

template <class T>
int sytrs_workspaces(const gpushim_lapack_op& op, int64_t nrhs, void* b, int64_t ldb,
                     SolveWorkspaces& sizes, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    return status_from(cusolverDnXsytrs_bufferSize(state.solver, fill(op.uplo), op.n, nrhs, type,
                                                   op.a, op.lda, op.ipiv, type, b, ldb,
                                                   &sizes.device_bytes, &sizes.host_bytes));
}

// B := A^-1 B (n x nrhs at b, ldb) with SYTRF's factor and (int64) pivots in a and op.ipiv,
// on workspaces of `sizes` already reserved (Xsytrs's device workspace at the work area).
template <class T>
int enqueue_sytrs(const gpushim_lapack_op& op, int64_t nrhs, void* b, int64_t ldb,
                  const SolveWorkspaces& sizes, int* info, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    return status_from(cusolverDnXsytrs(state.solver, fill(op.uplo), op.n, nrhs, type, op.a, op.lda,
                                        op.ipiv, type, b, ldb, work_area(state), sizes.device_bytes,
                                        state.host_workspace, sizes.host_bytes, info));
}

template <class T>
int sytrs(const gpushim_lapack_op& op, InfoTo info_to, LapackState& state) {
    SolveWorkspaces sizes;
    if (const int status = sytrs_workspaces<T>(op, op.nrhs, op.b, op.ldb, sizes, state)) {
        return status;
    }
    if (const int status = reserve_workspaces(state, sizes.device_bytes, sizes.host_bytes)) {
        return status;
    }
    int* const info = info_to == InfoTo::caller ? op.info : scratch_info(state);
    return enqueue_sytrs<T>(op, op.nrhs, op.b, op.ldb, sizes, info, state);
}

// The inverse from SYTRF's factor: A^-1 solves A X = I, on Xsytrs (documented, its complex
// forms complex symmetric as LAPACK's CSYTRS) with an identity in the workspace, after Xsytrs's
// own; X's uplo triangle then goes over A's through packed storage (cuBLAS's trttp and tpttr),
// the other triangle untouched. cuSOLVER's legacy sytri is not used: its reference gives no
// description, so which symmetry its complex forms assume is not known.
template <class T>
int sytri(const gpushim_lapack_op& op, LapackState& state) {
    if (state.blas == nullptr) return kInvalidLapackOperation;
    // trttp and tpttr take int sizes, and whether they index the packed array beyond an int is
    // not documented.
    if (!fits_int({op.n, op.lda, op.n * (op.n + 1) / 2})) return kUnsupportedLapackSize;
    const size_t n = static_cast<size_t>(op.n);
    SolveWorkspaces sizes;
    if (const int status = sytrs_workspaces<T>(op, op.n, op.a, op.n, sizes, state)) return status;
    const size_t identity_at =
        (sizes.device_bytes + kScratchBytes - 1) / kScratchBytes * kScratchBytes;
    const size_t identity_bytes = n * n * sizeof(T);
    const size_t packed_bytes = n * (n + 1) / 2 * sizeof(T);
    // n is below 2^16 (its packed triangle fits an int): only Xsytrs's answer can be too large.
    if (identity_at > std::numeric_limits<size_t>::max() - identity_bytes - packed_bytes) {
        return kDeviceOutOfMemory;
    }
    if (const int status = reserve_workspaces(state, identity_at + identity_bytes + packed_bytes,
                                              sizes.host_bytes)) {
        return status;
    }
    auto* const identity = reinterpret_cast<T*>(static_cast<char*>(work_area(state)) + identity_at);
    auto* const packed = reinterpret_cast<T*>(reinterpret_cast<char*>(identity) + identity_bytes);
    if (const int status = fill_identity<T>(identity, n, state.stream)) return status;
    if (const int status = enqueue_sytrs<T>(op, op.n, identity, op.n, sizes, op.info, state)) {
        return status;
    }
    const int order = static_cast<int>(op.n);
    if (const int status = status_from(
            Element<T>::trttp(state.blas, fill(op.uplo), order, identity, order, packed))) {
        return status;
    }
    return status_from(Element<T>::tpttr(state.blas, fill(op.uplo), order, packed,
                                         static_cast<T*>(op.a), static_cast<int>(op.lda)));
}

// SYTRF's pivots reach op.ipiv by a copy from the host workspace, which SYTRS's may reuse.
template <class T>
int sysv(const gpushim_lapack_op& op, LapackState& state) {
    if (const int status = sytrf<T>(op, state)) return status;
    if (const int status = wait_for_host_sources(state)) return status;
    return sytrs<T>(op, InfoTo::scratch, state);
}

// op(A) X = B on cuBLAS's trsm. LAPACK's TRTRS first reports an exactly zero diagonal
// entry in INFO; the interface never passes one, so INFO is 0.
template <class T>
int trtrs(const gpushim_lapack_op& op, LapackState& state) {
    if (state.blas == nullptr) return kInvalidLapackOperation;
    if (const int status = runtime_status(cudaMemsetAsync(op.info, 0, sizeof(int), state.stream))) {
        return status;
    }
    const T one = Element<T>::one();  // read at the call (the handle's pointer mode is host)
    return status_from(Element<T>::trsm(
        state.blas, CUBLAS_SIDE_LEFT, fill(op.uplo), operation<T>(op.trans), diagonal(op.diag),
        op.n, op.nrhs, &one, static_cast<const T*>(op.a), op.lda, static_cast<T*>(op.b), op.ldb));
}

template <class T>
int trtri(const gpushim_lapack_op& op, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(
            cusolverDnXtrtri_bufferSize(state.solver, fill(op.uplo), diagonal(op.diag), op.n, type,
                                        op.a, op.lda, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXtrtri(state.solver, fill(op.uplo), diagonal(op.diag), op.n, type,
                                        op.a, op.lda, work_area(state), device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

// ---- QR -------------------------------------------------------------------------------------

template <class T>
int geqrf(const gpushim_lapack_op& op, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(
            cusolverDnXgeqrf_bufferSize(state.solver, state.params, op.m, op.n, type, op.a, op.lda,
                                        type, op.tau, type, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXgeqrf(state.solver, state.params, op.m, op.n, type, op.a, op.lda,
                                        type, op.tau, type, work_area(state), device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

template <class T>
int orgqr(const gpushim_lapack_op& op, LapackState& state) {
    if (!fits_int({op.m, op.n, op.k, op.lda})) return kUnsupportedLapackSize;
    const int m = static_cast<int>(op.m), n = static_cast<int>(op.n), k = static_cast<int>(op.k),
              lda = static_cast<int>(op.lda);
    auto* const a = static_cast<T*>(op.a);
    const auto* const tau = static_cast<const T*>(op.tau);
    int lwork = 0;
    if (const int status = status_from(
            Element<T>::orgqr_buffer_size(state.solver, m, n, k, a, lda, tau, &lwork))) {
        return status;
    }
    if (const int status = reserve_legacy_workspace<T>(state, lwork)) return status;
    return status_from(Element<T>::orgqr(state.solver, m, n, k, a, lda, tau,
                                         static_cast<T*>(work_area(state)), lwork, op.info));
}

template <class T>
int ormqr(const gpushim_lapack_op& op, LapackState& state) {
    if (!fits_int({op.m, op.n, op.k, op.lda, op.ldb})) return kUnsupportedLapackSize;
    const int m = static_cast<int>(op.m), n = static_cast<int>(op.n), k = static_cast<int>(op.k),
              lda = static_cast<int>(op.lda), ldc = static_cast<int>(op.ldb);
    const auto* const a = static_cast<const T*>(op.a);
    const auto* const tau = static_cast<const T*>(op.tau);
    auto* const c = static_cast<T*>(op.b);
    const cublasSideMode_t from = side(op.side);
    const cublasOperation_t trans = operation<T>(op.trans);
    int lwork = 0;
    if (const int status = status_from(Element<T>::ormqr_buffer_size(
            state.solver, from, trans, m, n, k, a, lda, tau, c, ldc, &lwork))) {
        return status;
    }
    if (const int status = reserve_legacy_workspace<T>(state, lwork)) return status;
    return status_from(Element<T>::ormqr(state.solver, from, trans, m, n, k, a, lda, tau, c, ldc,
                                         static_cast<T*>(work_area(state)), lwork, op.info));
}

// ---- eigenvalues and singular values --------------------------------------------------------

template <class T>
int syevd(const gpushim_lapack_op& op, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    constexpr cudaDataType real_type = Element<T>::kRealType;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(cusolverDnXsyevd_bufferSize(
            state.solver, state.params, eigen_mode(op.jobz), fill(op.uplo), op.n, type, op.a,
            op.lda, real_type, op.w, type, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXsyevd(state.solver, state.params, eigen_mode(op.jobz),
                                        fill(op.uplo), op.n, type, op.a, op.lda, real_type, op.w,
                                        type, work_area(state), device_bytes, state.host_workspace,
                                        host_bytes, op.info));
}

// m >= n, as cuSOLVER's gesvd requires (the interface guarantees it). Where a job references
// no U (VT), the leading dimension passed is what a referenced one would need, in case
// cuSOLVER checks it anyway.
template <class T>
int gesvd(const gpushim_lapack_op& op, LapackState& state) {
    constexpr cudaDataType type = Element<T>::kType;
    constexpr cudaDataType real_type = Element<T>::kRealType;
    const auto jobu = static_cast<signed char>(op.jobu);
    const auto jobvt = static_cast<signed char>(op.jobvt);
    const int64_t ldu = one_of(op.jobu, "AS") ? op.ldu : std::max<int64_t>(1, op.m);
    const int64_t ldvt = one_of(op.jobvt, "AS") ? op.ldvt : std::max<int64_t>(1, op.n);
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = status_from(cusolverDnXgesvd_bufferSize(
            state.solver, state.params, jobu, jobvt, op.m, op.n, type, op.a, op.lda, real_type,
            op.w, type, op.u, ldu, type, op.vt, ldvt, type, &device_bytes, &host_bytes))) {
        return status;
    }
    if (const int status = reserve_workspaces(state, device_bytes, host_bytes)) return status;
    return status_from(cusolverDnXgesvd(state.solver, state.params, jobu, jobvt, op.m, op.n, type,
                                        op.a, op.lda, real_type, op.w, type, op.u, ldu, type, op.vt,
                                        ldvt, type, work_area(state), device_bytes,
                                        state.host_workspace, host_bytes, op.info));
}

// ---- SYEVR, SYGVD, GEEV, GELS ------------------------------------------------------------------

// Reserves the workspaces for a routine that also needs an array of the plugin's own in
// device memory (`own_bytes`, at the start of the work area, rounded up to 256 bytes so that
// the routine's area stays aligned). `query(own, &device_bytes, &host_bytes)` asks the
// routine what it needs, given where that array lies; the sizes it returns are what the
// routine must be given. A reservation that moves the work area asks again (the sizes do not
// depend on the addresses, but the query is given the true ones).
template <class Query>
int reserve_with_own_array(LapackState& state, size_t own_bytes, size_t* device_bytes,
                           size_t* host_bytes, Query query) {
    constexpr size_t kAlign = 256;
    if (own_bytes > std::numeric_limits<size_t>::max() - kAlign) {
        return kDeviceOutOfMemory;
    }
    const size_t own = (own_bytes + kAlign - 1) / kAlign * kAlign;
    size_t want_device = 0;
    size_t want_host = 0;
    for (int round = 0; round < 4; ++round) {
        if (want_device > std::numeric_limits<size_t>::max() - own) {
            return kDeviceOutOfMemory;
        }
        if (const int status = reserve_workspaces(state, own + want_device, want_host)) {
            return status;
        }
        size_t asked_device = 0;
        size_t asked_host = 0;
        if (const int status = query(work_area(state), &asked_device, &asked_host)) return status;
        if (kScratchBytes + own + asked_device <= state.device_workspace_bytes &&
            asked_host <= state.host_workspace_bytes) {
            *device_bytes = asked_device;
            *host_bytes = asked_host;
            return kSuccess;
        }
        want_device = std::max(want_device, asked_device);
        want_host = std::max(want_host, asked_host);
    }
    return kDeviceOutOfMemory;  // a query that keeps growing: never seen
}

// Where the routine's own area begins after an array of `own_bytes` (as reserved above).
void* after_own_array(const LapackState& state, size_t own_bytes) {
    constexpr size_t kAlign = 256;
    return static_cast<char*>(work_area(state)) + (own_bytes + kAlign - 1) / kAlign * kAlign;
}

cusolverEigRange_t eigen_range(char range) {
    return range == 'V' ? CUSOLVER_EIG_RANGE_V
                        : (range == 'I' ? CUSOLVER_EIG_RANGE_I : CUSOLVER_EIG_RANGE_ALL);
}

// SYEVR on cusolverDnXsyevdx. Its W is an array of n (the op's w may hold only the m
// eigenvalues found), so the eigenvalues land in an array of the plugin's own and their first
// m go to w; the eigenvectors, which Xsyevdx leaves in the first m columns of a, go to u
// (honouring ldu). vl and vu are host values of W's type. Xsyevdx returns m in host memory
// (state.found) by the time it returns; it reaches op.found by an asynchronous copy from
// there (copy_from_plugin_host: the next operation waits until it has been read). For
// ranges 'A' and 'I' the count is known beforehand (n, iu - il + 1: cuSOLVER documents
// h_meig as exactly that) and is what the copies use; only 'V' depends on h_meig.
template <class T>
int syevr(const gpushim_lapack_op& op, LapackState& state) {
    using Real = typename Element<T>::Real;
    constexpr cudaDataType type = Element<T>::kType;
    constexpr cudaDataType real_type = Element<T>::kRealType;
    const size_t n = static_cast<size_t>(op.n);
    if (n > std::numeric_limits<size_t>::max() / sizeof(Real)) {
        return kDeviceOutOfMemory;
    }
    const size_t w_bytes = std::max<size_t>(1, n) * sizeof(Real);
    Real vl = static_cast<Real>(op.vl);
    Real vu = static_cast<Real>(op.vu);
    const int64_t il = op.range == 'I' ? op.il : 1;
    const int64_t iu = op.range == 'I' ? op.iu : op.n;
    const cusolverEigMode_t jobz = eigen_mode(op.jobz);
    const cusolverEigRange_t range = eigen_range(op.range);
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = reserve_with_own_array(
            state, w_bytes, &device_bytes, &host_bytes, [&](void* w, size_t* device, size_t* host) {
                return status_from(cusolverDnXsyevdx_bufferSize(
                    state.solver, state.params, jobz, range, fill(op.uplo), op.n, type, op.a,
                    op.lda, &vl, &vu, il, iu, &state.found, real_type, w, type, device, host));
            })) {
        return status;
    }
    void* const w = work_area(state);
    state.found = 0;
    if (const int status = status_from(cusolverDnXsyevdx(
            state.solver, state.params, jobz, range, fill(op.uplo), op.n, type, op.a, op.lda, &vl,
            &vu, il, iu, &state.found, real_type, w, type, after_own_array(state, w_bytes),
            device_bytes, state.host_workspace, host_bytes, op.info))) {
        return status;
    }
    int64_t m = op.range == 'A' ? op.n : (op.range == 'I' ? op.iu - op.il + 1 : state.found);
    m = std::clamp<int64_t>(m, 0, op.n);
    if (op.range != 'V') state.found = m;
    if (const int status = copy_from_plugin_host(op.found, &state.found, sizeof(int64_t), state)) {
        return status;
    }
    if (m == 0) return kSuccess;
    const size_t columns = static_cast<size_t>(m);
    if (const int status = runtime_status(cudaMemcpyAsync(
            op.w, w, columns * sizeof(Real), cudaMemcpyDeviceToDevice, state.stream))) {
        return status;
    }
    if (op.jobz != 'V') return kSuccess;
    return runtime_status(cudaMemcpy2DAsync(op.u, static_cast<size_t>(op.ldu) * sizeof(T), op.a,
                                            static_cast<size_t>(op.lda) * sizeof(T), n * sizeof(T),
                                            columns, cudaMemcpyDeviceToDevice, state.stream));
}

// The largest order for which LAPACK's own workspace of a SYEVD with eigenvectors,
// 1 + 6n + 2n^2 elements, fits an int. The legacy sygvd_bufferSize answers an int count
// of a workspace that grows like n^2; beyond this order its answer may have wrapped, to a
// negative count or to a positive one smaller than the routine writes (cuSOLVER's SGESVD
// query has been seen to), which cannot be told apart from a true one: refused.
constexpr int64_t kSygvdMaxOrder = 32766;

// SYGVD/HEGVD on the legacy API (int sizes). INFO as LAPACK's: > n when B is not positive
// definite.
template <class T>
int sygvd(const gpushim_lapack_op& op, LapackState& state) {
    using Real = typename Element<T>::Real;
    if (!fits_int({op.n, op.lda, op.ldb}) || op.n > kSygvdMaxOrder) return kUnsupportedLapackSize;
    const int n = static_cast<int>(op.n), lda = static_cast<int>(op.lda),
              ldb = static_cast<int>(op.ldb);
    const auto itype = static_cast<cusolverEigType_t>(op.itype);
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    auto* const w = static_cast<Real*>(op.w);
    int lwork = 0;
    if (const int status = status_from(
            Element<T>::sygvd_buffer_size(state.solver, itype, eigen_mode(op.jobz), fill(op.uplo),
                                          n, a, lda, b, ldb, w, &lwork))) {
        return status;
    }
    if (const int status = reserve_legacy_workspace<T>(state, lwork)) return status;
    return status_from(Element<T>::sygvd(state.solver, itype, eigen_mode(op.jobz), fill(op.uplo), n,
                                         a, lda, b, ldb, w, static_cast<T*>(work_area(state)),
                                         lwork, op.info));
}

// GEEV on cusolverDnXgeev, right eigenvectors only (cuSOLVER computes no left ones). A real
// matrix with a real W gives LAPACK's WR and WI as one array of 2n (real parts, then
// imaginary parts) and VR in LAPACK's real convention for conjugate pairs. Where the op's wi
// is w + n that array is the op's own; otherwise it is the plugin's, copied to w and wi.
template <class T>
int geev(const gpushim_lapack_op& op, LapackState& state) {
    using Real = typename Element<T>::Real;
    constexpr cudaDataType type = Element<T>::kType;
    const size_t n = static_cast<size_t>(op.n);
    const bool split = !Element<T>::kComplex && op.wi != static_cast<Real*>(op.w) + op.n;
    if (n > std::numeric_limits<size_t>::max() / (2 * sizeof(Real))) {
        return kDeviceOutOfMemory;
    }
    const size_t own_bytes = split ? std::max<size_t>(1, 2 * n) * sizeof(Real) : 0;
    const cusolverEigMode_t jobvr = eigen_mode(op.jobz);
    const int64_t ldvr = op.jobz == 'V' ? op.ldu : std::max<int64_t>(1, op.n);
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    const auto w_of = [&](void* own) { return split ? own : op.w; };
    if (const int status =
            reserve_with_own_array(state, own_bytes, &device_bytes, &host_bytes,
                                   [&](void* own, size_t* device, size_t* host) {
                                       return status_from(cusolverDnXgeev_bufferSize(
                                           state.solver, state.params, CUSOLVER_EIG_MODE_NOVECTOR,
                                           jobvr, op.n, type, op.a, op.lda, type, w_of(own), type,
                                           nullptr, 1, type, op.u, ldvr, type, device, host));
                                   })) {
        return status;
    }
    void* const w = w_of(work_area(state));
    if (const int status = status_from(cusolverDnXgeev(
            state.solver, state.params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, op.n, type, op.a, op.lda,
            type, w, type, nullptr, 1, type, op.u, ldvr, type, after_own_array(state, own_bytes),
            device_bytes, state.host_workspace, host_bytes, op.info))) {
        return status;
    }
    if (!split || n == 0) return kSuccess;
    if (const int status = runtime_status(
            cudaMemcpyAsync(op.w, w, n * sizeof(Real), cudaMemcpyDeviceToDevice, state.stream))) {
        return status;
    }
    return runtime_status(cudaMemcpyAsync(op.wi, static_cast<Real*>(w) + n, n * sizeof(Real),
                                          cudaMemcpyDeviceToDevice, state.stream));
}

// GELS ('N', m >= n) in three steps: A = Q R (Xgeqrf, with tau in an array of the plugin's
// own; its INFO, 0 for valid arguments, goes to op.info), B := Q^H B (ORMQR/UNMQR, legacy
// API, INFO to the scratch area), then R X = B on the first n rows (cuBLAS trsm). Rows n+1..m
// of B keep the components of Q^H B that make up the residual. The interface guarantees
// full rank (the caller checks R's diagonal), so INFO stays 0. As LAPACK, with
// min(m, n, nrhs) = 0 nothing is factored and B (m x nrhs) is set to zero.
template <class T>
int gels(const gpushim_lapack_op& op, LapackState& state) {
    if (state.blas == nullptr) return kInvalidLapackOperation;
    if (!fits_int({op.m, op.n, op.nrhs, op.lda, op.ldb})) return kUnsupportedLapackSize;
    if (op.n == 0 || op.nrhs == 0) {
        if (const int status =
                runtime_status(cudaMemsetAsync(op.info, 0, sizeof(int), state.stream))) {
            return status;
        }
        if (op.m == 0 || op.nrhs == 0) return kSuccess;
        return runtime_status(cudaMemset2DAsync(op.b, static_cast<size_t>(op.ldb) * sizeof(T), 0,
                                                static_cast<size_t>(op.m) * sizeof(T),
                                                static_cast<size_t>(op.nrhs), state.stream));
    }
    constexpr cudaDataType type = Element<T>::kType;
    const int m = static_cast<int>(op.m), n = static_cast<int>(op.n),
              nrhs = static_cast<int>(op.nrhs), lda = static_cast<int>(op.lda),
              ldb = static_cast<int>(op.ldb);
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    const cublasOperation_t adjoint = operation<T>('C');  // CUBLAS_OP_T for a real matrix
    const size_t tau_bytes = static_cast<size_t>(n) * sizeof(T);
    size_t geqrf_device = 0;
    size_t geqrf_host = 0;
    int ormqr_lwork = 0;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    if (const int status = reserve_with_own_array(
            state, tau_bytes, &device_bytes, &host_bytes,
            [&](void* tau, size_t* device, size_t* host) -> int {
                if (const int s = status_from(cusolverDnXgeqrf_bufferSize(
                        state.solver, state.params, op.m, op.n, type, op.a, op.lda, type, tau, type,
                        &geqrf_device, &geqrf_host))) {
                    return s;
                }
                if (const int s = status_from(Element<T>::ormqr_buffer_size(
                        state.solver, CUBLAS_SIDE_LEFT, adjoint, m, nrhs, n, a, lda,
                        static_cast<const T*>(tau), b, ldb, &ormqr_lwork))) {
                    return s;
                }
                if (ormqr_lwork < 0) return kUnsupportedLapackSize;
                *device = std::max(geqrf_device, static_cast<size_t>(ormqr_lwork) * sizeof(T));
                *host = geqrf_host;
                return kSuccess;
            })) {
        return status;
    }
    auto* const tau = static_cast<T*>(work_area(state));
    void* const area = after_own_array(state, tau_bytes);
    if (const int status = status_from(cusolverDnXgeqrf(
            state.solver, state.params, op.m, op.n, type, op.a, op.lda, type, tau, type, area,
            geqrf_device, state.host_workspace, geqrf_host, op.info))) {
        return status;
    }
    if (const int status = status_from(
            Element<T>::ormqr(state.solver, CUBLAS_SIDE_LEFT, adjoint, m, nrhs, n, a, lda, tau, b,
                              ldb, static_cast<T*>(area), ormqr_lwork, scratch_info(state)))) {
        return status;
    }
    const T one = Element<T>::one();  // read at the call (the handle's pointer mode is host)
    return status_from(Element<T>::trsm(state.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                        CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, op.n, op.nrhs, &one, a,
                                        op.lda, b, op.ldb));
}

// Byte counts of the arrays GELSD lays out, each rounded up to kOwnAlign so that every
// array after it stays as aligned as the allocation; false where a count overflows.
constexpr size_t kOwnAlign = 256;

bool add_array(size_t* total, size_t elements, size_t element_bytes, size_t* offset) {
    if (element_bytes != 0 && elements > std::numeric_limits<size_t>::max() / element_bytes) {
        return false;
    }
    const size_t bytes = elements * element_bytes;
    if (bytes > std::numeric_limits<size_t>::max() - kOwnAlign) return false;
    const size_t rounded = (bytes + kOwnAlign - 1) / kOwnAlign * kOwnAlign;
    if (*total > std::numeric_limits<size_t>::max() - rounded) return false;
    *offset = *total;
    *total += rounded;
    return true;
}

// The threshold below which (inclusive) xLALSD takes a singular value as zero: rcond s(1),
// with xLAMCH('Epsilon') (half the spacing of 1, for rounding arithmetic) in place of an
// rcond <= 0 or >= 1, as xLALSD sets RCND.
template <class Real>
Real gelsd_threshold(double rcond, Real largest) {
    const Real eps = std::numeric_limits<Real>::epsilon() / 2;
    const Real relative = rcond <= 0 || rcond >= 1 ? eps : static_cast<Real>(rcond);
    return relative * largest;
}

// GELSD (m >= n), the minimum-norm least-squares solution, in the steps of LAPACK's
// xGELSD for m much larger than n:
//   A = Q R      Xgeqrf, tau in an array of the plugin's own; INFO (0) to the scratch area;
//   B := Q^H B   ORMQR/UNMQR (legacy API, int sizes), INFO to the scratch area; rows n+1..m
//                of B are left as they are: with full rank, the residual's components;
//   R = U S V^H  Xgesvd (jobs 'S', 'S') of R's n x n upper triangle, copied to a zeroed
//                matrix of the plugin's own; S to op.w; its INFO (> 0: no convergence) to
//                op.info, the only INFO the caller sees;
//   rank         S is copied to the host and the stream waited for (as Xsyevdx waits for
//                its own count): rank = the number of s(i) above gelsd_threshold(); it
//                reaches op.found from state.found by an asynchronous copy;
//   X            V diag(1/s(1..rank), 0 beyond) U^H (Q^H B)(1:n, :) on b's first n rows,
//                with cuBLAS: W = U(:, 1:rank)^H B(1:n, :) (gemm), diag(1/s) VT(1:rank, :)
//                (dgmm, into R's array), then X = (diag(1/s) VT(1:rank, :))^H W (gemm).
// As LAPACK, with n = 0 the rank is 0 and B is left alone.
template <class T>
int gelsd(const gpushim_lapack_op& op, LapackState& state) {
    using Real = typename Element<T>::Real;
    if (state.blas == nullptr) return kInvalidLapackOperation;
    if (!fits_int({op.m, op.n, op.nrhs, op.lda, op.ldb})) return kUnsupportedLapackSize;
    if (op.n == 0) {
        // A rank of 0 is all zero bytes: set on the device, with no host memory to keep alive.
        if (const int status =
                runtime_status(cudaMemsetAsync(op.found, 0, sizeof(int64_t), state.stream))) {
            return status;
        }
        return runtime_status(cudaMemsetAsync(op.info, 0, sizeof(int), state.stream));
    }
    constexpr cudaDataType type = Element<T>::kType;
    constexpr cudaDataType real_type = Element<T>::kRealType;
    const int m = static_cast<int>(op.m), n = static_cast<int>(op.n),
              nrhs = static_cast<int>(op.nrhs), lda = static_cast<int>(op.lda),
              ldb = static_cast<int>(op.ldb);
    const size_t order = static_cast<size_t>(op.n);  // below 2^31: order * order fits
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    const cublasOperation_t adjoint = operation<T>('C');  // CUBLAS_OP_T for a real matrix
    // The plugin's arrays: tau (n), R and VT (n x n each, leading dimension n), U (n x n),
    // W (n x nrhs), the scaling 1/s (n); on the host, S (n reals), then the scaling (n).
    size_t own_bytes = 0, tau_at = 0, r_at = 0, u_at = 0, vt_at = 0, w_at = 0, scale_at = 0;
    if (!add_array(&own_bytes, order, sizeof(T), &tau_at) ||
        !add_array(&own_bytes, order * order, sizeof(T), &r_at) ||
        !add_array(&own_bytes, order * order, sizeof(T), &u_at) ||
        !add_array(&own_bytes, order * order, sizeof(T), &vt_at) ||
        !add_array(&own_bytes, order * static_cast<size_t>(nrhs), sizeof(T), &w_at) ||
        !add_array(&own_bytes, order, sizeof(T), &scale_at)) {
        return kDeviceOutOfMemory;
    }
    const size_t host_scale_at = (order * sizeof(Real) + alignof(T) - 1) / alignof(T) * alignof(T);
    const size_t host_own = host_scale_at + order * sizeof(T);  // n < 2^31: no overflow
    const auto at = [](void* base, size_t offset) { return static_cast<char*>(base) + offset; };
    size_t geqrf_device = 0, geqrf_host = 0, gesvd_device = 0, gesvd_host = 0;
    int ormqr_lwork = 0;
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    const signed char job = 'S';
    if (const int status = reserve_with_own_array(
            state, own_bytes, &device_bytes, &host_bytes,
            [&](void* own, size_t* device, size_t* host) -> int {
                auto* const tau = reinterpret_cast<T*>(at(own, tau_at));
                if (const int s = status_from(cusolverDnXgeqrf_bufferSize(
                        state.solver, state.params, op.m, op.n, type, op.a, op.lda, type, tau, type,
                        &geqrf_device, &geqrf_host))) {
                    return s;
                }
                ormqr_lwork = 0;
                if (nrhs > 0) {
                    if (const int s = status_from(Element<T>::ormqr_buffer_size(
                            state.solver, CUBLAS_SIDE_LEFT, adjoint, m, nrhs, n, a, lda, tau, b,
                            ldb, &ormqr_lwork))) {
                        return s;
                    }
                    if (ormqr_lwork < 0) return kUnsupportedLapackSize;  // the count overflowed
                }
                if (const int s = status_from(cusolverDnXgesvd_bufferSize(
                        state.solver, state.params, job, job, op.n, op.n, type, at(own, r_at), op.n,
                        real_type, op.w, type, at(own, u_at), op.n, type, at(own, vt_at), op.n,
                        type, &gesvd_device, &gesvd_host))) {
                    return s;
                }
                *device = std::max(
                    {geqrf_device, static_cast<size_t>(ormqr_lwork) * sizeof(T), gesvd_device});
                *host = std::max({geqrf_host, gesvd_host, host_own});
                return kSuccess;
            })) {
        return status;
    }
    void* const own = work_area(state);
    auto* const tau = reinterpret_cast<T*>(at(own, tau_at));
    auto* const r = reinterpret_cast<T*>(at(own, r_at));
    auto* const u = reinterpret_cast<T*>(at(own, u_at));
    auto* const vt = reinterpret_cast<T*>(at(own, vt_at));
    auto* const w = reinterpret_cast<T*>(at(own, w_at));
    auto* const scale = reinterpret_cast<T*>(at(own, scale_at));
    void* const area = after_own_array(state, own_bytes);
    if (const int status = status_from(cusolverDnXgeqrf(
            state.solver, state.params, op.m, op.n, type, op.a, op.lda, type, tau, type, area,
            geqrf_device, state.host_workspace, geqrf_host, scratch_info(state)))) {
        return status;
    }
    if (nrhs > 0) {
        if (const int status = status_from(Element<T>::ormqr(
                state.solver, CUBLAS_SIDE_LEFT, adjoint, m, nrhs, n, a, lda, tau, b, ldb,
                static_cast<T*>(area), ormqr_lwork, scratch_info(state)))) {
            return status;
        }
    }
    // R: its upper triangle, column by column, over zeros (the reflectors below the diagonal
    // must not reach the SVD).
    if (const int status =
            runtime_status(cudaMemsetAsync(r, 0, order * order * sizeof(T), state.stream))) {
        return status;
    }
    for (size_t j = 0; j < order; ++j) {
        if (const int status = runtime_status(
                cudaMemcpyAsync(r + j * order, a + j * static_cast<size_t>(op.lda),
                                (j + 1) * sizeof(T), cudaMemcpyDeviceToDevice, state.stream))) {
            return status;
        }
    }
    if (const int status = status_from(
            cusolverDnXgesvd(state.solver, state.params, job, job, op.n, op.n, type, r, op.n,
                             real_type, op.w, type, u, op.n, type, vt, op.n, type, area,
                             gesvd_device, state.host_workspace, gesvd_host, op.info))) {
        return status;
    }
    // The singular values on the host; once the stream has drained, the host workspace is
    // the plugin's again.
    auto* const values = static_cast<Real*>(state.host_workspace);
    if (const int status = runtime_status(cudaMemcpyAsync(values, op.w, order * sizeof(Real),
                                                          cudaMemcpyDeviceToHost, state.stream))) {
        return status;
    }
    if (const int status = runtime_status(cudaStreamSynchronize(state.stream))) return status;
    const Real threshold = gelsd_threshold(op.rcond, values[0]);
    int64_t rank = 0;
    while (rank < op.n && values[rank] > threshold) ++rank;
    state.found = rank;
    if (const int status = copy_from_plugin_host(op.found, &state.found, sizeof(int64_t), state)) {
        return status;
    }
    if (nrhs == 0) return kSuccess;
    if (rank == 0) {  // X = 0
        return runtime_status(cudaMemset2DAsync(op.b, static_cast<size_t>(op.ldb) * sizeof(T), 0,
                                                order * sizeof(T), static_cast<size_t>(nrhs),
                                                state.stream));
    }
    auto* const inverse =
        reinterpret_cast<T*>(static_cast<char*>(state.host_workspace) + host_scale_at);
    for (int64_t i = 0; i < rank; ++i) inverse[i] = Element<T>::from_real(Real(1) / values[i]);
    if (const int status =
            copy_from_plugin_host(scale, inverse, static_cast<size_t>(rank) * sizeof(T), state)) {
        return status;
    }
    const T one = Element<T>::one();  // read at the call (the handle's pointer mode is host)
    const T zero = Element<T>::from_real(0);
    if (const int status =
            status_from(Element<T>::gemm(state.blas, adjoint, CUBLAS_OP_N, rank, op.nrhs, op.n,
                                         &one, u, op.n, b, op.ldb, &zero, w, op.n))) {
        return status;
    }
    if (const int status = status_from(Element<T>::dgmm(state.blas, CUBLAS_SIDE_LEFT, rank, op.n,
                                                        vt, op.n, scale, 1, r, op.n))) {
        return status;
    }
    return status_from(Element<T>::gemm(state.blas, adjoint, CUBLAS_OP_N, op.n, op.nrhs, rank, &one,
                                        r, op.n, w, op.n, &zero, b, op.ldb));
}

// ---- dispatch -------------------------------------------------------------------------------

template <class T>
int enqueue(const gpushim_lapack_op& op, LapackState& state) {
    switch (op.kind) {
        case GPUSHIM_POTRF:
            return potrf<T>(op, state);
        case GPUSHIM_GETRF:
            return getrf<T>(op, op.m, state);
        case GPUSHIM_GETRS:
            return getrs<T>(op, operation<T>(op.trans), op.nrhs, op.b, op.ldb, op.info, state);
        case GPUSHIM_GESV:
            return gesv<T>(op, state);
        case GPUSHIM_GETRI:
            return getri<T>(op, state);
        case GPUSHIM_POTRS:
            return potrs<T>(op, op.info, state);
        case GPUSHIM_POSV:
            return posv<T>(op, state);
        case GPUSHIM_POTRI:
            return potri<T>(op, state);
        case GPUSHIM_TRTRS:
            return trtrs<T>(op, state);
        case GPUSHIM_TRTRI:
            return trtri<T>(op, state);
        case GPUSHIM_GEQRF:
            return geqrf<T>(op, state);
        case GPUSHIM_ORGQR:
            return orgqr<T>(op, state);
        case GPUSHIM_ORMQR:
            return ormqr<T>(op, state);
        case GPUSHIM_SYEVD:
            return syevd<T>(op, state);
        case GPUSHIM_GESVD:
            return gesvd<T>(op, state);
        case GPUSHIM_SYEVR:
            return syevr<T>(op, state);
        case GPUSHIM_SYGVD:
            return sygvd<T>(op, state);
        case GPUSHIM_GEEV:
            return geev<T>(op, state);
        case GPUSHIM_GELS:
            return gels<T>(op, state);
        case GPUSHIM_GELSD:
            return gelsd<T>(op, state);
        case GPUSHIM_SYTRF:
            return sytrf<T>(op, state);
        case GPUSHIM_SYTRI:
            return sytri<T>(op, state);
        case GPUSHIM_SYTRS:
            return sytrs<T>(op, InfoTo::caller, state);
        case GPUSHIM_SYSV:
            return sysv<T>(op, state);
    }
    return kInvalidLapackOperation;
}

// Refuses what the plugin cannot run as the interface means it, before any pointer is
// touched. A null ipiv would make cuSOLVER's getrf and sytrf factor without pivoting, a
// different (unstable) factorization, and its getrs solve without interchanges.
bool operation_valid(const gpushim_lapack_op& op) {
    switch (op.precision) {
        case GPUSHIM_PREC_S:
        case GPUSHIM_PREC_D:
        case GPUSHIM_PREC_C:
        case GPUSHIM_PREC_Z:
            break;
        default:
            return false;
    }
    if (op.a == nullptr || op.info == nullptr) return false;
    const bool uplo = one_of(op.uplo, "UL");
    const bool trans = one_of(op.trans, "NTC");
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POTRI:
            return uplo;
        case GPUSHIM_GETRF:
        case GPUSHIM_GETRI:
            return op.ipiv != nullptr;
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYTRI:
            return uplo && op.ipiv != nullptr;
        case GPUSHIM_SYTRS:
        case GPUSHIM_SYSV:
            return uplo && op.ipiv != nullptr && op.b != nullptr;
        case GPUSHIM_GETRS:
            return trans && op.ipiv != nullptr && op.b != nullptr;
        case GPUSHIM_GESV:
            return op.ipiv != nullptr && op.b != nullptr;
        case GPUSHIM_POTRS:
        case GPUSHIM_POSV:
            return uplo && op.b != nullptr;
        case GPUSHIM_TRTRS:
            return uplo && trans && one_of(op.diag, "NU") && op.b != nullptr;
        case GPUSHIM_TRTRI:
            return uplo && one_of(op.diag, "NU");
        case GPUSHIM_GEQRF:
        case GPUSHIM_ORGQR:
            return op.tau != nullptr;
        case GPUSHIM_ORMQR:
            return one_of(op.side, "LR") && trans && op.tau != nullptr && op.b != nullptr;
        case GPUSHIM_SYEVD:
            return uplo && one_of(op.jobz, "NV") && op.w != nullptr;
        case GPUSHIM_GESVD:
            // cuSOLVER's gesvd computes only m >= n.
            return one_of(op.jobu, "ASON") && one_of(op.jobvt, "ASON") &&
                   !(op.jobu == 'O' && op.jobvt == 'O') && op.m >= op.n && op.w != nullptr &&
                   (op.u != nullptr || !one_of(op.jobu, "AS")) &&
                   (op.vt != nullptr || !one_of(op.jobvt, "AS"));
        case GPUSHIM_SYEVR: {
            // LAPACK's ranges: vl < vu; 1 <= il <= iu <= n, or il = 1 and iu = 0 when n = 0.
            const bool range =
                (op.range == 'A') || (op.range == 'V' && op.vl < op.vu) ||
                (op.range == 'I' && (op.n == 0 ? op.il == 1 && op.iu == 0
                                               : 1 <= op.il && op.il <= op.iu && op.iu <= op.n));
            return uplo && one_of(op.jobz, "NV") && range && op.w != nullptr &&
                   op.found != nullptr && (op.jobz == 'N' || op.u != nullptr);
        }
        case GPUSHIM_SYGVD:
            return uplo && one_of(op.jobz, "NV") && op.itype >= 1 && op.itype <= 3 &&
                   op.b != nullptr && op.w != nullptr;
        case GPUSHIM_GEEV: {
            const bool real = op.precision == GPUSHIM_PREC_S || op.precision == GPUSHIM_PREC_D;
            return one_of(op.jobz, "NV") && op.w != nullptr && (!real || op.wi != nullptr) &&
                   (op.jobz == 'N' || op.u != nullptr);
        }
        case GPUSHIM_GELS:
            // Only the overdetermined (or square) problem without transposition.
            return op.trans == 'N' && op.m >= op.n && op.b != nullptr;
        case GPUSHIM_GELSD:
            // cuSOLVER's gesvd computes only m >= n; rank and singular values are outputs.
            return op.m >= op.n && op.b != nullptr && op.w != nullptr && op.found != nullptr;
    }
    return false;
}

}  // namespace

int enqueue_lapack(const gpushim_lapack_op& op, LapackState& state) {
    if (!operation_valid(op)) return kInvalidLapackOperation;
    if (const int status = wait_for_host_sources(state)) return status;
    // TRTRS runs on cuBLAS alone: it does not initialise cuSOLVER.
    if (op.kind != GPUSHIM_TRTRS) {
        if (const int status = ensure_solver(state)) return status;
    }
    switch (op.precision) {
        case GPUSHIM_PREC_S:
            return enqueue<float>(op, state);
        case GPUSHIM_PREC_D:
            return enqueue<double>(op, state);
        case GPUSHIM_PREC_C:
            return enqueue<cuComplex>(op, state);
        case GPUSHIM_PREC_Z:
            return enqueue<cuDoubleComplex>(op, state);
    }
    return kInvalidLapackOperation;
}

int release_workspaces(LapackState& state) {
    const int device_status = free_device_workspace(state);
    const int host_status = free_host_workspace(state);
    return device_status != kSuccess ? device_status : host_status;
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
    keep_first(release_workspaces(state));
    if (state.host_sources_read != nullptr) {
        keep_first(runtime_status(cudaEventDestroy(state.host_sources_read)));
    }
    state.host_sources_read = nullptr;
    return status;
}

}  // namespace gpushim::cuda
