// The emulated cuSOLVER's factorizations and solves: LU (Xgetrf, Xgetrs), Cholesky (Xpotrf,
// Xpotrs, potri), Bunch-Kaufman (sytrf, Xsytrs), the triangular inverse (Xtrtri) and QR
// (Xgeqrf, orgqr/ungqr, ormqr/unmqr), computed by the CPU's LAPACK in stream order.
//
// What the cuSOLVER documentation says and the emulation enforces:
// - a null handle: CUSOLVER_STATUS_NOT_INITIALIZED ("the library was not initialized");
// - the argument errors each routine lists under CUSOLVER_STATUS_INVALID_VALUE (negative sizes,
//   leading dimensions below max(1, rows), orgqr's n > m or k > n, ...), and data type
//   combinations outside the documented table (A, B, tau and the compute type of one precision);
// - info is device memory written in stream order: 0, or i > 0 as LAPACK (getrf: U(i,i) is
//   exactly zero, the factorization completed; potrf: the leading minor of order i is not
//   positive definite; potri and trtri: the i-th diagonal entry of the factor is zero);
// - Xgetrf's ipiv is device memory of min(m, n) int64_t holding LAPACK's 1-based interchanges
//   ("row i is interchanged with row ipiv(i)"); a null ipiv means no pivoting;
// - sytrf's ipiv is device memory of n int in LAPACK's SYTRF convention; the emulation has no
//   factorization without pivoting and takes a null ipiv as a misuse (stricter); info > 0:
//   D(i,i) is exactly zero, the factorization completed, as LAPACK's; Xsytrs reads such
//   pivots as n int64_t;
// - the workspaces passed are at least what the routine's bufferSize query answers (device and
//   host bytes for the 64-bit API; lwork elements for the legacy API).
// Where the documentation is silent the emulation takes the stricter reading, noted below.
#include <cuComplex.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/cudasim/cudasim.h"
#include "tests/cudasim/cudasim_cusolver.h"

namespace {

// ---- CPU LAPACK (Fortran ABI, 32-bit integers; matrices untyped) -----------------------------

using Getrf = void(const int*, const int*, void*, const int*, int*, int*);
using Getrs = void(const char*, const int*, const int*, const void*, const int*, const int*, void*,
                   const int*, int*, size_t);
using Potrf = void(const char*, const int*, void*, const int*, int*, size_t);  // and potri
using Potrs = void(const char*, const int*, const int*, const void*, const int*, void*, const int*,
                   int*, size_t);
using Sytrf = void(const char*, const int*, void*, const int*, int*, void*, const int*, int*,
                   size_t);
using Sytrs = void(const char*, const int*, const int*, const void*, const int*, const int*, void*,
                   const int*, int*, size_t);
using Trtri = void(const char*, const char*, const int*, void*, const int*, int*, size_t, size_t);
using Geqrf = void(const int*, const int*, void*, const int*, void*, void*, const int*, int*);
using Orgqr = void(const int*, const int*, const int*, void*, const int*, const void*, void*,
                   const int*, int*);
using Ormqr = void(const char*, const char*, const int*, const int*, const int*, const void*,
                   const int*, const void*, void*, const int*, void*, const int*, int*, size_t,
                   size_t);

// One precision: LAPACK's prefix ('s', 'd', 'c', 'z') and the element size.
struct Precision {
    char prefix = 0;
    size_t bytes = 0;
    bool complex() const { return prefix == 'c' || prefix == 'z'; }
};

Precision precision_of(cudaDataType type) {
    switch (type) {
        case CUDA_R_32F:
            return {'s', 4};
        case CUDA_R_64F:
            return {'d', 8};
        case CUDA_C_32F:
            return {'c', 8};
        case CUDA_C_64F:
            return {'z', 16};
        default:
            return {};
    }
}

template <class T>
Precision precision_of() {
    if constexpr (std::is_same_v<T, float>) return precision_of(CUDA_R_32F);
    if constexpr (std::is_same_v<T, double>) return precision_of(CUDA_R_64F);
    if constexpr (std::is_same_v<T, cuComplex>) return precision_of(CUDA_C_32F);
    if constexpr (std::is_same_v<T, cuDoubleComplex>) return precision_of(CUDA_C_64F);
}

// The LAPACK routine `real_name` (`complex_name` for complex precisions, as ungqr for orgqr),
// resolved at the API call, so that a missing one stops the process where it was asked for.
template <class F>
F* lapack(Precision p, const char* real_name, const char* complex_name = nullptr) {
    const std::string name = cudasim::lapack_symbol(p.prefix, real_name, complex_name);
    return cudasim::cpu_function<F>(cudasim::kCpuLapack, name.c_str());
}

// Runs `call(work, &lwork)` once as LAPACK's workspace query and once with the work array it
// asked for, `slack` elements longer than LWORK says.
template <class Call>
void with_lapack_work(Precision p, Call call, int slack = 0) {
    alignas(16) unsigned char answer[16] = {};
    const int query = -1;
    call(answer, &query);
    double optimal = 0;
    if (p.prefix == 's' || p.prefix == 'c') {
        float single = 0;
        std::memcpy(&single, answer, sizeof single);
        optimal = single;
    } else {
        std::memcpy(&optimal, answer, sizeof optimal);
    }
    const int lwork = std::max(1, static_cast<int>(optimal));
    // complex double fits any precision
    std::vector<std::complex<double>> work(static_cast<size_t>(lwork) + static_cast<size_t>(slack));
    call(work.data(), &lwork);
}

// LU without interchanges, as Xgetrf documents for a null ipiv ("not numerically stable");
// LAPACK has no such routine. Like LAPACK's getf2, a zero pivot sets info and the
// factorization goes on.
template <class E>
int lu_without_pivoting(int m, int n, void* matrix, int lda) {
    auto* const a = static_cast<E*>(matrix);
    const auto at = [&](int i, int j) -> E& {
        return a[static_cast<size_t>(j) * static_cast<size_t>(lda) + static_cast<size_t>(i)];
    };
    int info = 0;
    for (int j = 0; j < std::min(m, n); ++j) {
        const E pivot = at(j, j);
        if (pivot == E(0)) {
            if (info == 0) info = j + 1;
        } else {
            for (int i = j + 1; i < m; ++i) at(i, j) /= pivot;
        }
        for (int k = j + 1; k < n; ++k) {
            for (int i = j + 1; i < m; ++i) at(i, k) -= at(i, j) * at(j, k);
        }
    }
    return info;
}

int lu_without_pivoting(Precision p, int m, int n, void* a, int lda) {
    switch (p.prefix) {
        case 's':
            return lu_without_pivoting<float>(m, n, a, lda);
        case 'd':
            return lu_without_pivoting<double>(m, n, a, lda);
        case 'c':
            return lu_without_pivoting<std::complex<float>>(m, n, a, lda);
        default:
            return lu_without_pivoting<std::complex<double>>(m, n, a, lda);
    }
}

// cuSOLVER documents nothing of the factor's triangle when a factorization or inversion
// reports info > 0, so the emulation leaves it as unwritten memory.
void poison_triangle(void* a, int n, int lda, size_t bytes, char uplo) {
    auto* const base = static_cast<unsigned char*>(a);
    for (int j = 0; j < n; ++j) {
        const int first = uplo == 'U' ? 0 : j;
        const int count = uplo == 'U' ? j + 1 : n - j;
        cudasim::poison(base + (static_cast<size_t>(j) * static_cast<size_t>(lda) + first) * bytes,
                        static_cast<size_t>(count) * bytes);
    }
}

// ---- argument checks ----------------------------------------------------------------------

// The CPU LAPACK takes 32-bit sizes; no test reaches beyond them.
int to_int(const char* api, int64_t value) {
    if (value > INT_MAX) {
        cudasim::misuse(api, "size " + std::to_string(value) +
                                 " exceeds what the emulation's 32-bit CPU LAPACK takes");
    }
    return static_cast<int>(value);
}

int64_t at_least_one(int64_t value) {
    return std::max<int64_t>(1, value);
}

bool fill_char(cublasFillMode_t uplo, char* out) {
    if (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER) return false;
    *out = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
    return true;
}

// Whether every type is the same supported precision (the documented tables allow exactly
// the four combinations where A, B or tau, and the compute type agree).
bool same_precision(cudaDataType first, std::initializer_list<cudaDataType> others) {
    return cudasim::element_bytes(first) != 0 &&
           std::all_of(others.begin(), others.end(), [&](cudaDataType t) { return t == first; });
}

// cuSOLVER documents no status for a null params; it must come from cusolverDnCreateParams.
cusolverStatus_t check_generic(cusolverDnHandle_t handle, cusolverDnParams_t params) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (params == nullptr) return CUSOLVER_STATUS_INVALID_VALUE;
    return CUSOLVER_STATUS_SUCCESS;
}

void require_info(const char* api, const int* info) {
    cudasim::require_device(api, "info", info, sizeof(int));
}

// The answers of the bufferSize queries: arbitrary (a real GPU's are unknown here), never zero
// (every routine with a query documents needing the workspace), and growing with every size
// argument, so that a workspace sized for other arguments is caught.
struct Workspace {
    size_t device = 0;
    size_t host = 0;
};

Workspace generic_workspace(size_t element_bytes, int64_t rows, int64_t cols) {
    return {element_bytes * static_cast<size_t>(64 * (rows + cols) + 256),
            sizeof(double) * static_cast<size_t>(rows + cols + 1)};
}

int legacy_lwork(const char* api, int64_t rows, int64_t cols) {
    return to_int(api, 32 * (rows + cols) + 64);
}

// A generic (X*) routine's workspaces against what its query answered for these sizes.
void require_generic_workspaces(const char* api, cusolverDnHandle_t handle, size_t element_bytes,
                                int64_t rows, int64_t cols, const void* device, size_t device_bytes,
                                const void* host, size_t host_bytes) {
    const Workspace needed = generic_workspace(element_bytes, rows, cols);
    cudasim::require_workspaces(api, handle->stream, device, device_bytes, needed.device, host,
                                host_bytes, needed.host);
}

// A legacy routine's device workspace of lwork elements against its query's answer.
void require_legacy_workspace(const char* api, cusolverDnHandle_t handle, size_t element_bytes,
                              const void* work, int lwork, int64_t rows, int64_t cols) {
    cudasim::require_workspaces(
        api, handle->stream, work, static_cast<size_t>(std::max(lwork, 0)) * element_bytes,
        static_cast<size_t>(legacy_lwork(api, rows, cols)) * element_bytes, nullptr, 0, 0);
}

void answer_workspace(const char* api, Workspace workspace, size_t* device, size_t* host) {
    cudasim::require_host(api, "workspaceInBytesOnDevice", device);
    cudasim::require_host(api, "workspaceInBytesOnHost", host);
    *device = workspace.device;
    *host = workspace.host;
}

// ---- the legacy API's routines, over the four precisions ---------------------------------

cusolverStatus_t orgqr_valid(cusolverDnHandle_t handle, int m, int n, int k, int lda) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    // "m,n,k<0, n>m, k>n or lda<m", with LAPACK's lda >= max(1, m).
    if (m < 0 || n < 0 || k < 0 || n > m || k > n || lda < at_least_one(m)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t orgqr_buffer_size(const char* api, cusolverDnHandle_t handle, int m, int n, int k,
                                   int lda, int* lwork) {
    if (const auto status = orgqr_valid(handle, m, n, k, lda)) return status;
    cudasim::require_host(api, "lwork", lwork);
    *lwork = legacy_lwork(api, int64_t{m} + k, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t orgqr(const char* api, cusolverDnHandle_t handle, int m, int n, int k, T* a,
                       int lda, const T* tau, T* work, int lwork, int* info) {
    if (const auto status = orgqr_valid(handle, m, n, k, lda)) return status;
    const Precision p = precision_of<T>();
    cudasim::require_device(api, "A", a, cudasim::matrix_bytes(m, n, lda, p.bytes));
    cudasim::require_device(api, "tau", tau, static_cast<size_t>(k) * p.bytes);
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_legacy_workspace(api, handle, p.bytes, work, lwork, int64_t{m} + k, n);
    auto* const run = lapack<Orgqr>(p, "orgqr", "ungqr");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        with_lapack_work(
            p, [&](void* w, const int* lw) { run(&m, &n, &k, a, &lda, tau, w, lw, &result); });
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

// LAPACK's rules: C is m x n; Q has order m (left) or n (right), k reflectors of that order
// in A (lda >= its order). The documentation only says "wrong lda or ldc"; trans is N or the
// adjoint LAPACK's ormqr (unmqr) accepts, T for real and C for complex precisions.
cusolverStatus_t ormqr_valid(cusolverDnHandle_t handle, Precision p, cublasSideMode_t side,
                             cublasOperation_t trans, int m, int n, int k, int lda, int ldc,
                             char* side_char, char* trans_char) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (side != CUBLAS_SIDE_LEFT && side != CUBLAS_SIDE_RIGHT) return CUSOLVER_STATUS_INVALID_VALUE;
    const cublasOperation_t adjoint = p.complex() ? CUBLAS_OP_C : CUBLAS_OP_T;
    if (trans != CUBLAS_OP_N && trans != adjoint) return CUSOLVER_STATUS_INVALID_VALUE;
    const int order = side == CUBLAS_SIDE_LEFT ? m : n;
    if (m < 0 || n < 0 || k < 0 || k > order || lda < at_least_one(order) ||
        ldc < at_least_one(m)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    *side_char = side == CUBLAS_SIDE_LEFT ? 'L' : 'R';
    *trans_char = trans == CUBLAS_OP_N ? 'N' : (p.complex() ? 'C' : 'T');
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t ormqr_buffer_size(const char* api, cusolverDnHandle_t handle,
                                   cublasSideMode_t side, cublasOperation_t trans, int m, int n,
                                   int k, int lda, int ldc, int* lwork) {
    char side_char = 0, trans_char = 0;
    if (const auto status = ormqr_valid(handle, precision_of<T>(), side, trans, m, n, k, lda, ldc,
                                        &side_char, &trans_char)) {
        return status;
    }
    cudasim::require_host(api, "lwork", lwork);
    *lwork = legacy_lwork(api, int64_t{m} + k, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t ormqr(const char* api, cusolverDnHandle_t handle, cublasSideMode_t side,
                       cublasOperation_t trans, int m, int n, int k, const T* a, int lda,
                       const T* tau, T* c, int ldc, T* work, int lwork, int* info) {
    const Precision p = precision_of<T>();
    char side_char = 0, trans_char = 0;
    if (const auto status =
            ormqr_valid(handle, p, side, trans, m, n, k, lda, ldc, &side_char, &trans_char)) {
        return status;
    }
    const int order = side == CUBLAS_SIDE_LEFT ? m : n;
    cudasim::require_device(api, "A", a, cudasim::matrix_bytes(order, k, lda, p.bytes));
    cudasim::require_device(api, "tau", tau, static_cast<size_t>(k) * p.bytes);
    cudasim::require_device(api, "C", c, cudasim::matrix_bytes(m, n, ldc, p.bytes));
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_legacy_workspace(api, handle, p.bytes, work, lwork, int64_t{m} + k, n);
    auto* const run = lapack<Ormqr>(p, "ormqr", "unmqr");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        with_lapack_work(p, [&](void* w, const int* lw) {
            run(&side_char, &trans_char, &m, &n, &k, a, &lda, tau, c, &ldc, w, lw, &result, 1, 1);
        });
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t potri_valid(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int lda,
                             char* uplo_char) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!fill_char(uplo, uplo_char) || n < 0 || lda < at_least_one(n)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t potri_buffer_size(const char* api, cusolverDnHandle_t handle,
                                   cublasFillMode_t uplo, int n, int lda, int* lwork) {
    char uplo_char = 0;
    if (const auto status = potri_valid(handle, uplo, n, lda, &uplo_char)) return status;
    cudasim::require_host(api, "lwork", lwork);
    *lwork = legacy_lwork(api, n, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t potri(const char* api, cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                       T* a, int lda, T* work, int lwork, int* info) {
    char uplo_char = 0;
    if (const auto status = potri_valid(handle, uplo, n, lda, &uplo_char)) return status;
    const Precision p = precision_of<T>();
    cudasim::require_device(api, "A", a, cudasim::matrix_bytes(n, n, lda, p.bytes));
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_legacy_workspace(api, handle, p.bytes, work, lwork, n, n);
    auto* const run = lapack<Potrf>(p, "potri");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        run(&uplo_char, &n, a, &lda, &result, 1);
        if (result > 0) poison_triangle(a, n, lda, p.bytes, uplo_char);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

// A solve's A (n x n), its n int64_t pivots, B (n x nrhs) and info, where the routine reads
// and writes them.
void require_solve_operands(const char* api, const Precision& p, const void* A, int64_t n,
                            int64_t lda, const int64_t* ipiv, const void* B, int64_t nrhs,
                            int64_t ldb, const int* info) {
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(n, n, lda, p.bytes));
    cudasim::require_device(api, "ipiv", ipiv, static_cast<size_t>(n) * sizeof(int64_t));
    cudasim::require_device(api, "B", B, cudasim::matrix_bytes(n, nrhs, ldb, p.bytes));
    require_info(api, info);
}

// The n int64_t pivots as the CPU LAPACK's ints; one that `valid` refuses is a misuse,
// `meaning` saying what a pivot must be.
template <class Valid>
std::vector<int> lapack_pivots(const char* api, const int64_t* ipiv, int n, Valid valid,
                               const char* meaning) {
    std::vector<int> pivots(static_cast<size_t>(std::max(n, 1)));
    for (int i = 0; i < n; ++i) {
        if (!valid(ipiv[i])) {
            cudasim::misuse(api, "ipiv[" + std::to_string(i) + "] = " + std::to_string(ipiv[i]) +
                                     " is no " + meaning);
        }
        pivots[static_cast<size_t>(i)] = static_cast<int>(ipiv[i]);
    }
    return pivots;
}

// Xsytrs's arguments (it takes no params: the handle alone).
cusolverStatus_t sytrs_valid(cusolverDnHandle_t handle, cublasFillMode_t uplo, int64_t n,
                             int64_t nrhs, int64_t lda, int64_t ldb, cudaDataType type_a,
                             cudaDataType type_b, char* uplo_char) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!fill_char(uplo, uplo_char) || n < 0 || nrhs < 0 || lda < at_least_one(n) ||
        ldb < at_least_one(n) || !same_precision(type_a, {type_b})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t sytrf_valid(cusolverDnHandle_t handle, int n, int lda) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < at_least_one(n)) return CUSOLVER_STATUS_INVALID_VALUE;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t sytrf_buffer_size(const char* api, cusolverDnHandle_t handle, int n, int lda,
                                   int* lwork) {
    if (const auto status = sytrf_valid(handle, n, lda)) return status;
    cudasim::require_host(api, "lwork", lwork);
    *lwork = legacy_lwork(api, n, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t sytrf(const char* api, cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                       T* a, int lda, int* ipiv, T* work, int lwork, int* info) {
    if (const auto status = sytrf_valid(handle, n, lda)) return status;
    char uplo_char = 0;
    if (!fill_char(uplo, &uplo_char)) return CUSOLVER_STATUS_INVALID_VALUE;
    const Precision p = precision_of<T>();
    cudasim::require_device(api, "A", a, cudasim::matrix_bytes(n, n, lda, p.bytes));
    if (ipiv == nullptr) cudasim::misuse(api, "a null ipiv (no pivoting) is not emulated");
    cudasim::require_device(api, "ipiv", ipiv, static_cast<size_t>(n) * sizeof(int));
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_legacy_workspace(api, handle, p.bytes, work, lwork, n, n);
    auto* const run = lapack<Sytrf>(p, "sytrf");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        // Debian's OpenBLAS 0.3.21 CSYTRF and ZSYTRF with UPLO = 'U' read up to N - 1 elements
        // past the N * NB of WORK that their query asks for (seen with a guard page).
        with_lapack_work(
            p,
            [&](void* w, const int* lw) { run(&uplo_char, &n, a, &lda, ipiv, w, lw, &result, 1); },
            n);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

}  // namespace

// ---- the 64-bit generic API -----------------------------------------------------------------

cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                             int64_t m, int64_t n, cudaDataType dataTypeA,
                                             const void*, int64_t lda, cudaDataType computeType,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    if (const auto status = check_generic(handle, params)) return status;
    if (m < 0 || n < 0 || lda < at_least_one(m) || !same_precision(dataTypeA, {computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    answer_workspace("cusolverDnXgetrf_bufferSize",
                     generic_workspace(cudasim::element_bytes(dataTypeA), m, n),
                     workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                  int64_t n, cudaDataType dataTypeA, void* A, int64_t lda,
                                  int64_t* ipiv, cudaDataType computeType, void* bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* api = "cusolverDnXgetrf";
    if (const auto status = check_generic(handle, params)) return status;
    if (m < 0 || n < 0 || lda < at_least_one(m) || !same_precision(dataTypeA, {computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    const Precision p = precision_of(dataTypeA);
    const int rows = to_int(api, m), cols = to_int(api, n), ld = to_int(api, lda);
    const int pivots = std::min(rows, cols);
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(m, n, lda, p.bytes));
    if (ipiv != nullptr) {
        cudasim::require_device(api, "ipiv", ipiv, static_cast<size_t>(pivots) * sizeof(int64_t));
    }
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_generic_workspaces(api, handle, p.bytes, m, n, bufferOnDevice, workspaceInBytesOnDevice,
                               bufferOnHost, workspaceInBytesOnHost);
    auto* const run = lapack<Getrf>(p, "getrf");
    cudasim::enqueue(handle->stream, [=] {
        if (ipiv == nullptr) {
            *info = lu_without_pivoting(p, rows, cols, A, ld);
            return;
        }
        std::vector<int> lapack_pivots(static_cast<size_t>(std::max(pivots, 1)));
        int result = 0;
        run(&rows, &cols, A, &ld, lapack_pivots.data(), &result);
        std::copy_n(lapack_pivots.begin(), pivots, ipiv);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cublasOperation_t trans, int64_t n, int64_t nrhs,
                                  cudaDataType dataTypeA, const void* A, int64_t lda,
                                  const int64_t* ipiv, cudaDataType dataTypeB, void* B, int64_t ldb,
                                  int* info) {
    constexpr const char* api = "cusolverDnXgetrs";
    if (const auto status = check_generic(handle, params)) return status;
    if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) || n < 0 ||
        nrhs < 0 || lda < at_least_one(n) || ldb < at_least_one(n) ||
        !same_precision(dataTypeA, {dataTypeB})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    const Precision p = precision_of(dataTypeA);
    const int order = to_int(api, n), columns = to_int(api, nrhs), ld_a = to_int(api, lda),
              ld_b = to_int(api, ldb);
    // ipiv: documented as Xgetrf's output; getrs reads its n pivots.
    require_solve_operands(api, p, A, n, lda, ipiv, B, nrhs, ldb, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    const char op = trans == CUBLAS_OP_N ? 'N' : (trans == CUBLAS_OP_T ? 'T' : 'C');
    auto* const run = lapack<Getrs>(p, "getrs");
    cudasim::enqueue(handle->stream, [=] {
        // Xgetrf's pivots are 1-based row numbers of the n x n factor.
        const std::vector<int> pivots = lapack_pivots(
            api, ipiv, order, [order](int64_t k) { return k >= 1 && k <= order; }, "row of A");
        int result = 0;
        run(&op, &order, &columns, A, &ld_a, pivots.data(), B, &ld_b, &result, 1);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXsytrs_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo,
                                             int64_t n, int64_t nrhs, cudaDataType dataTypeA,
                                             const void*, int64_t lda, const int64_t*,
                                             cudaDataType dataTypeB, void*, int64_t ldb,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    char uplo_char = 0;
    if (const auto status =
            sytrs_valid(handle, uplo, n, nrhs, lda, ldb, dataTypeA, dataTypeB, &uplo_char)) {
        return status;
    }
    answer_workspace("cusolverDnXsytrs_bufferSize",
                     generic_workspace(cudasim::element_bytes(dataTypeA), n, nrhs),
                     workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXsytrs(cusolverDnHandle_t handle, cublasFillMode_t uplo, int64_t n,
                                  int64_t nrhs, cudaDataType dataTypeA, const void* A, int64_t lda,
                                  const int64_t* ipiv, cudaDataType dataTypeB, void* B, int64_t ldb,
                                  void* bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void* bufferOnHost, size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* api = "cusolverDnXsytrs";
    char uplo_char = 0;
    if (const auto status =
            sytrs_valid(handle, uplo, n, nrhs, lda, ldb, dataTypeA, dataTypeB, &uplo_char)) {
        return status;
    }
    const Precision p = precision_of(dataTypeA);
    const int order = to_int(api, n), columns = to_int(api, nrhs), ld_a = to_int(api, lda),
              ld_b = to_int(api, ldb);
    require_solve_operands(api, p, A, n, lda, ipiv, B, nrhs, ldb, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_generic_workspaces(api, handle, p.bytes, n, nrhs, bufferOnDevice,
                               workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost);
    auto* const run = lapack<Sytrs>(p, "sytrs");
    cudasim::enqueue(handle->stream, [=] {
        // sytrf's pivots: a row of A, negative for a 2 x 2 block of D.
        const std::vector<int> pivots = lapack_pivots(
            api, ipiv, order, [order](int64_t k) { return k != 0 && k >= -order && k <= order; },
            "pivot of sytrf");
        int result = 0;
        run(&uplo_char, &order, &columns, A, &ld_a, pivots.data(), B, &ld_b, &result, 1);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                             cublasFillMode_t uplo, int64_t n,
                                             cudaDataType dataTypeA, const void*, int64_t lda,
                                             cudaDataType computeType,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    if (const auto status = check_generic(handle, params)) return status;
    char uplo_char = 0;
    if (!fill_char(uplo, &uplo_char) || n < 0 || lda < at_least_one(n) ||
        !same_precision(dataTypeA, {computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    answer_workspace("cusolverDnXpotrf_bufferSize",
                     generic_workspace(cudasim::element_bytes(dataTypeA), n, n),
                     workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void* A,
                                  int64_t lda, cudaDataType computeType, void* bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* api = "cusolverDnXpotrf";
    if (const auto status = check_generic(handle, params)) return status;
    char uplo_char = 0;
    if (!fill_char(uplo, &uplo_char) || n < 0 || lda < at_least_one(n) ||
        !same_precision(dataTypeA, {computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    const Precision p = precision_of(dataTypeA);
    const int order = to_int(api, n), ld = to_int(api, lda);
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(n, n, lda, p.bytes));
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_generic_workspaces(api, handle, p.bytes, n, n, bufferOnDevice, workspaceInBytesOnDevice,
                               bufferOnHost, workspaceInBytesOnHost);
    auto* const run = lapack<Potrf>(p, "potrf");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        run(&uplo_char, &order, A, &ld, &result, 1);
        if (result > 0) poison_triangle(A, order, ld, p.bytes, uplo_char);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cublasFillMode_t uplo, int64_t n, int64_t nrhs,
                                  cudaDataType dataTypeA, const void* A, int64_t lda,
                                  cudaDataType dataTypeB, void* B, int64_t ldb, int* info) {
    constexpr const char* api = "cusolverDnXpotrs";
    if (const auto status = check_generic(handle, params)) return status;
    char uplo_char = 0;
    if (!fill_char(uplo, &uplo_char) || n < 0 || nrhs < 0 || lda < at_least_one(n) ||
        ldb < at_least_one(n) || !same_precision(dataTypeA, {dataTypeB})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    const Precision p = precision_of(dataTypeA);
    const int order = to_int(api, n), columns = to_int(api, nrhs), ld_a = to_int(api, lda),
              ld_b = to_int(api, ldb);
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(n, n, lda, p.bytes));
    cudasim::require_device(api, "B", B, cudasim::matrix_bytes(n, nrhs, ldb, p.bytes));
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    auto* const run = lapack<Potrs>(p, "potrs");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        run(&uplo_char, &order, &columns, A, &ld_a, B, &ld_b, &result, 1);
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

namespace {

cusolverStatus_t trtri_valid(cusolverDnHandle_t handle, cublasFillMode_t uplo,
                             cublasDiagType_t diag, int64_t n, cudaDataType dataTypeA, int64_t lda,
                             char* uplo_char, char* diag_char) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!fill_char(uplo, uplo_char) || (diag != CUBLAS_DIAG_NON_UNIT && diag != CUBLAS_DIAG_UNIT) ||
        n < 0 || lda < at_least_one(n) || cudasim::element_bytes(dataTypeA) == 0) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    *diag_char = diag == CUBLAS_DIAG_UNIT ? 'U' : 'N';
    return CUSOLVER_STATUS_SUCCESS;
}

}  // namespace

cusolverStatus_t cusolverDnXtrtri_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo,
                                             cublasDiagType_t diag, int64_t n,
                                             cudaDataType dataTypeA, void*, int64_t lda,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    char uplo_char = 0, diag_char = 0;
    if (const auto status =
            trtri_valid(handle, uplo, diag, n, dataTypeA, lda, &uplo_char, &diag_char)) {
        return status;
    }
    answer_workspace("cusolverDnXtrtri_bufferSize",
                     generic_workspace(cudasim::element_bytes(dataTypeA), n, n),
                     workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXtrtri(cusolverDnHandle_t handle, cublasFillMode_t uplo,
                                  cublasDiagType_t diag, int64_t n, cudaDataType dataTypeA, void* A,
                                  int64_t lda, void* bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* devInfo) {
    constexpr const char* api = "cusolverDnXtrtri";
    char uplo_char = 0, diag_char = 0;
    if (const auto status =
            trtri_valid(handle, uplo, diag, n, dataTypeA, lda, &uplo_char, &diag_char)) {
        return status;
    }
    const Precision p = precision_of(dataTypeA);
    const int order = to_int(api, n), ld = to_int(api, lda);
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(n, n, lda, p.bytes));
    require_info(api, devInfo);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_generic_workspaces(api, handle, p.bytes, n, n, bufferOnDevice, workspaceInBytesOnDevice,
                               bufferOnHost, workspaceInBytesOnHost);
    auto* const run = lapack<Trtri>(p, "trtri");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        run(&uplo_char, &diag_char, &order, A, &ld, &result, 1, 1);
        if (result > 0) poison_triangle(A, order, ld, p.bytes, uplo_char);
        *devInfo = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                             int64_t m, int64_t n, cudaDataType dataTypeA,
                                             const void*, int64_t lda, cudaDataType dataTypeTau,
                                             const void*, cudaDataType computeType,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    if (const auto status = check_generic(handle, params)) return status;
    if (m < 0 || n < 0 || lda < at_least_one(m) ||
        !same_precision(dataTypeA, {dataTypeTau, computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    answer_workspace("cusolverDnXgeqrf_bufferSize",
                     generic_workspace(cudasim::element_bytes(dataTypeA), m, n),
                     workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                  int64_t n, cudaDataType dataTypeA, void* A, int64_t lda,
                                  cudaDataType dataTypeTau, void* tau, cudaDataType computeType,
                                  void* bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void* bufferOnHost, size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* api = "cusolverDnXgeqrf";
    if (const auto status = check_generic(handle, params)) return status;
    if (m < 0 || n < 0 || lda < at_least_one(m) ||
        !same_precision(dataTypeA, {dataTypeTau, computeType})) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    const Precision p = precision_of(dataTypeA);
    const int rows = to_int(api, m), cols = to_int(api, n), ld = to_int(api, lda);
    cudasim::require_device(api, "A", A, cudasim::matrix_bytes(m, n, lda, p.bytes));
    cudasim::require_device(api, "tau", tau, static_cast<size_t>(std::min(rows, cols)) * p.bytes);
    require_info(api, info);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    require_generic_workspaces(api, handle, p.bytes, m, n, bufferOnDevice, workspaceInBytesOnDevice,
                               bufferOnHost, workspaceInBytesOnHost);
    auto* const run = lapack<Geqrf>(p, "geqrf");
    cudasim::enqueue(handle->stream, [=] {
        int result = 0;
        with_lapack_work(
            p, [&](void* w, const int* lw) { run(&rows, &cols, A, &ld, tau, w, lw, &result); });
        *info = result;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

// ---- the legacy typed API: each name of the four precisions ----------------------------------

#define CUDASIM_LEGACY_ROUTINES(P, T, GQR, MQR)                                                    \
    cusolverStatus_t cusolverDn##P##GQR##_bufferSize(                                              \
        cusolverDnHandle_t handle, int m, int n, int k, const T*, int lda, const T*, int* lwork) { \
        return orgqr_buffer_size("cusolverDn" #P #GQR "_bufferSize", handle, m, n, k, lda, lwork); \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##GQR(cusolverDnHandle_t handle, int m, int n, int k, T* A,      \
                                        int lda, const T* tau, T* work, int lwork, int* info) {    \
        return orgqr<T>("cusolverDn" #P #GQR, handle, m, n, k, A, lda, tau, work, lwork, info);    \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##MQR##_bufferSize(                                              \
        cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n,   \
        int k, const T*, int lda, const T*, const T*, int ldc, int* lwork) {                       \
        return ormqr_buffer_size<T>("cusolverDn" #P #MQR "_bufferSize", handle, side, trans, m, n, \
                                    k, lda, ldc, lwork);                                           \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##MQR(cusolverDnHandle_t handle, cublasSideMode_t side,          \
                                        cublasOperation_t trans, int m, int n, int k, const T* A,  \
                                        int lda, const T* tau, T* C, int ldc, T* work, int lwork,  \
                                        int* devInfo) {                                            \
        return ormqr<T>("cusolverDn" #P #MQR, handle, side, trans, m, n, k, A, lda, tau, C, ldc,   \
                        work, lwork, devInfo);                                                     \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##potri_bufferSize(                                              \
        cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T*, int lda, int* lwork) {        \
        return potri_buffer_size("cusolverDn" #P "potri_bufferSize", handle, uplo, n, lda, lwork); \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##potri(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, \
                                          T* A, int lda, T* work, int lwork, int* devInfo) {       \
        return potri<T>("cusolverDn" #P "potri", handle, uplo, n, A, lda, work, lwork, devInfo);   \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##sytrf_bufferSize(cusolverDnHandle_t handle, int n, T*,         \
                                                     int lda, int* lwork) {                        \
        return sytrf_buffer_size("cusolverDn" #P "sytrf_bufferSize", handle, n, lda, lwork);       \
    }                                                                                              \
    cusolverStatus_t cusolverDn##P##sytrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, \
                                          T* A, int lda, int* ipiv, T* work, int lwork,            \
                                          int* devInfo) {                                          \
        return sytrf<T>("cusolverDn" #P "sytrf", handle, uplo, n, A, lda, ipiv, work, lwork,       \
                        devInfo);                                                                  \
    }

CUDASIM_LEGACY_ROUTINES(S, float, orgqr, ormqr)
CUDASIM_LEGACY_ROUTINES(D, double, orgqr, ormqr)
CUDASIM_LEGACY_ROUTINES(C, cuComplex, ungqr, unmqr)
CUDASIM_LEGACY_ROUTINES(Z, cuDoubleComplex, ungqr, unmqr)
