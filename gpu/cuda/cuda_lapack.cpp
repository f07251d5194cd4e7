// The LAPACK operations of the device interface, on cuSOLVER and cuBLAS.
//
// cuSOLVER's 64-bit generic API (cusolverDnX*) where it has the routine: POTRF, GETRF,
// GETRS, POTRS, TRTRI, GEQRF, SYEVD, GESVD, so that dimensions, leading dimensions and
// pivots above 2^31 pass through unchanged. Its legacy typed API where it has not:
// ORGQR/UNGQR, ORMQR/UNMQR and POTRI take int sizes, and an operation whose sizes do not
// fit is refused (kUnsupportedLapackSize), never truncated. TRTRS is cuBLAS's trsm (64-bit
// API). GESV and POSV are their two steps; GETRI is GETRS on an identity.
//
// Pivots: cusolverDnXgetrf writes LAPACK's 1-based row interchanges ("row i is
// interchanged with row ipiv(i)"); NVIDIA's Xgetrf sample prints Ipiv = 3 3 3 for
// A = [1 2 3; 4 5 6; 7 8 10], which is what LAPACK's DGETRF returns (0-based would be
// 2 2 2). They reach op.ipiv unconverted, and Xgetrs reads them back the same way.
//
// Nothing here waits for the device: every step is enqueued on the queue's stream, with
// workspaces taken and given back in stream order.
#include "gpu/cuda/cuda_lapack.h"

#include <cuComplex.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string_view>

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

// The device workspace begins with kScratchBytes of scratch (an INFO that must not reach
// the caller: the second step of GESV and POSV), then the area the routine asked for; 256
// bytes keep that area as aligned as the allocation itself.
constexpr size_t kScratchBytes = 256;

int reserve_workspaces(LapackState& state, size_t device_bytes, size_t host_bytes) {
    if (device_bytes > std::numeric_limits<size_t>::max() - kScratchBytes) {
        return status_from(cudaErrorMemoryAllocation);
    }
    if (const int status = reserve_device_workspace(state, kScratchBytes + device_bytes)) {
        return status;
    }
    return reserve_host_workspace(state, host_bytes);
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
    static constexpr auto trsm = cublasStrsm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnSorgqr_bufferSize;
    static constexpr auto orgqr = cusolverDnSorgqr;
    static constexpr auto ormqr_buffer_size = cusolverDnSormqr_bufferSize;
    static constexpr auto ormqr = cusolverDnSormqr;
    static constexpr auto potri_buffer_size = cusolverDnSpotri_bufferSize;
    static constexpr auto potri = cusolverDnSpotri;
};

template <>
struct Element<double> {
    using Real = double;
    static constexpr bool kComplex = false;
    static constexpr cudaDataType kType = CUDA_R_64F;
    static constexpr cudaDataType kRealType = CUDA_R_64F;
    static double one() { return 1.0; }
    static constexpr auto trsm = cublasDtrsm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnDorgqr_bufferSize;
    static constexpr auto orgqr = cusolverDnDorgqr;
    static constexpr auto ormqr_buffer_size = cusolverDnDormqr_bufferSize;
    static constexpr auto ormqr = cusolverDnDormqr;
    static constexpr auto potri_buffer_size = cusolverDnDpotri_bufferSize;
    static constexpr auto potri = cusolverDnDpotri;
};

template <>
struct Element<cuComplex> {
    using Real = float;
    static constexpr bool kComplex = true;
    static constexpr cudaDataType kType = CUDA_C_32F;
    static constexpr cudaDataType kRealType = CUDA_R_32F;
    static cuComplex one() { return make_cuComplex(1.0f, 0.0f); }
    static constexpr auto trsm = cublasCtrsm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnCungqr_bufferSize;
    static constexpr auto orgqr = cusolverDnCungqr;
    static constexpr auto ormqr_buffer_size = cusolverDnCunmqr_bufferSize;
    static constexpr auto ormqr = cusolverDnCunmqr;
    static constexpr auto potri_buffer_size = cusolverDnCpotri_bufferSize;
    static constexpr auto potri = cusolverDnCpotri;
};

template <>
struct Element<cuDoubleComplex> {
    using Real = double;
    static constexpr bool kComplex = true;
    static constexpr cudaDataType kType = CUDA_C_64F;
    static constexpr cudaDataType kRealType = CUDA_R_64F;
    static cuDoubleComplex one() { return make_cuDoubleComplex(1.0, 0.0); }
    static constexpr auto trsm = cublasZtrsm_64;
    static constexpr auto orgqr_buffer_size = cusolverDnZungqr_bufferSize;
    static constexpr auto orgqr = cusolverDnZungqr;
    static constexpr auto ormqr_buffer_size = cusolverDnZunmqr_bufferSize;
    static constexpr auto ormqr = cusolverDnZunmqr;
    static constexpr auto potri_buffer_size = cusolverDnZpotri_bufferSize;
    static constexpr auto potri = cusolverDnZpotri;
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

// The legacy routines take int sizes.
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
    if (const int status = status_from(cudaMemsetAsync(matrix, 0, n * n * sizeof(T), stream))) {
        return status;
    }
    const Real one = 1;
    unsigned char bytes[sizeof one];
    std::memcpy(bytes, &one, sizeof one);
    for (size_t i = 0; i < sizeof one; ++i) {
        if (bytes[i] == 0) continue;
        if (const int status = status_from(cudaMemset2DAsync(
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
        return status_from(cudaErrorMemoryAllocation);
    }
    if (const int status = reserve_workspaces(state, n * column_bytes, 0)) return status;
    void* const identity = work_area(state);
    if (const int status = fill_identity<T>(identity, n, state.stream)) return status;
    if (const int status =
            getrs<T>(op, CUBLAS_OP_N, op.n, identity, std::max<int64_t>(1, op.n), op.info, state)) {
        return status;
    }
    if (n == 0) return kSuccess;
    return status_from(cudaMemcpy2DAsync(op.a, static_cast<size_t>(op.lda) * sizeof(T), identity,
                                         column_bytes, column_bytes, n, cudaMemcpyDeviceToDevice,
                                         state.stream));
}

// The inverse from POTRF's factor, in the uplo triangle (the other is left untouched).
template <class T>
int potri(const gpushim_lapack_op& op, LapackState& state) {
    if (!fits_int({op.n, op.lda})) return kUnsupportedLapackSize;
    const int n = static_cast<int>(op.n), lda = static_cast<int>(op.lda);
    auto* const a = static_cast<T*>(op.a);
    int lwork = 0;
    if (const int status = status_from(
            Element<T>::potri_buffer_size(state.solver, fill(op.uplo), n, a, lda, &lwork))) {
        return status;
    }
    lwork = std::max(lwork, 0);
    if (const int status = reserve_workspaces(state, static_cast<size_t>(lwork) * sizeof(T), 0)) {
        return status;
    }
    return status_from(Element<T>::potri(state.solver, fill(op.uplo), n, a, lda,
                                         static_cast<T*>(work_area(state)), lwork, op.info));
}

// op(A) X = B on cuBLAS's trsm. LAPACK's TRTRS first reports an exactly zero diagonal
// entry in INFO; the interface never passes one, so INFO is 0.
template <class T>
int trtrs(const gpushim_lapack_op& op, LapackState& state) {
    if (state.blas == nullptr) return kInvalidLapackOperation;
    if (const int status = status_from(cudaMemsetAsync(op.info, 0, sizeof(int), state.stream))) {
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
    lwork = std::max(lwork, 0);
    if (const int status = reserve_workspaces(state, static_cast<size_t>(lwork) * sizeof(T), 0)) {
        return status;
    }
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
    lwork = std::max(lwork, 0);
    if (const int status = reserve_workspaces(state, static_cast<size_t>(lwork) * sizeof(T), 0)) {
        return status;
    }
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
    }
    return kInvalidLapackOperation;
}

// Refuses what the plugin cannot run as the interface means it, before any pointer is
// touched. A null ipiv would make cuSOLVER's getrf factor without pivoting, a different
// (unstable) factorization, and its getrs solve without interchanges.
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
    }
    return false;
}

}  // namespace

int enqueue_lapack(const gpushim_lapack_op& op, LapackState& state) {
    if (!operation_valid(op)) return kInvalidLapackOperation;
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
