// cuSOLVER's eigenvalue and singular value routines that the CUDA plugin calls (Xsyevd,
// Xsyevdx, Xgesvd, Xgeev, and the legacy ?sygvd / ?hegvd), emulated with the CPU's LAPACK.
// The semantics are those of the cuSOLVER documentation, not LAPACK's where they differ:
// the statuses for invalid arguments, which pointers are device memory, Xgeev's layout of W,
// Xsyevdx's count on the host, and what a routine leaves undefined ("the contents of A are
// destroyed"), which the emulation fills with NaN bytes.
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "fallback/fortran_blas3.h"
#include "tests/cudasim/cudasim.h"
#include "tests/cudasim/cudasim_cusolver.h"

namespace {

using cudasim::element_bytes;
using cudasim::matrix_bytes;
using cudasim::require_device;
using cudasim::require_host;

template <class T>
constexpr bool kComplex = false;
template <class R>
constexpr bool kComplex<std::complex<R>> = true;

template <class T>
using Real = typename gpushim::fallback::RealOf<T>::type;

// LAPACK's prefix of each precision.
template <class T>
constexpr char kPrefix = 0;
template <>
constexpr char kPrefix<float> = 's';
template <>
constexpr char kPrefix<double> = 'd';
template <>
constexpr char kPrefix<std::complex<float>> = 'c';
template <>
constexpr char kPrefix<std::complex<double>> = 'z';

// Calls f(std::type_identity<T>{}) with the CPU element type of a cuSOLVER data type.
template <class F>
cusolverStatus_t with_type(cudaDataType type, F&& f) {
    switch (type) {
        case CUDA_R_32F:
            return f(std::type_identity<float>{});
        case CUDA_R_64F:
            return f(std::type_identity<double>{});
        case CUDA_C_32F:
            return f(std::type_identity<std::complex<float>>{});
        case CUDA_C_64F:
            return f(std::type_identity<std::complex<double>>{});
        default:
            return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
}

bool is_complex(cudaDataType type) {
    return type == CUDA_C_32F || type == CUDA_C_64F;
}

// The type of W and S for a matrix of `type`: real for a complex matrix.
cudaDataType real_of(cudaDataType type) {
    if (type == CUDA_C_32F) return CUDA_R_32F;
    return type == CUDA_C_64F ? CUDA_R_64F : type;
}

cudaDataType complex_of(cudaDataType type) {
    if (type == CUDA_R_32F) return CUDA_C_32F;
    return type == CUDA_R_64F ? CUDA_C_64F : type;
}

// ---- the CPU's LAPACK ----------------------------------------------------------------------

// The hidden length of a CHARACTER argument, after the last argument.
constexpr size_t kLen = 1;

// The LAPACK routine real_name (complex_name for a complex T, where given) of T's precision.
// Fortran takes every argument by address, so the function's type is that of the arguments
// given.
template <class T, class... Args>
void lapack(const char* real_name, const char* complex_name, Args... args) {
    const std::string symbol = cudasim::lapack_symbol(kPrefix<T>, real_name, complex_name);
    cudasim::cpu_function<void(Args...)>(cudasim::kCpuLapack, symbol.c_str())(args...);
}

// Runs call(work, lwork, rwork, lrwork, iwork, liwork) once as LAPACK's workspace query (sizes
// -1), then with the arrays it asked for. RWORK has at least `min_rwork` elements, for the
// routines that fix its size rather than answer for it.
template <class T, class Call>
void with_workspaces(int min_rwork, Call call) {
    using R = Real<T>;
    T work_size{};
    R rwork_size{};
    int iwork_size = 0;
    call(&work_size, -1, &rwork_size, -1, &iwork_size, -1);
    std::vector<T> work(std::max(1, static_cast<int>(std::real(work_size))));
    std::vector<R> rwork(std::max({1, min_rwork, static_cast<int>(rwork_size)}));
    std::vector<int> iwork(std::max(1, iwork_size));
    call(work.data(), static_cast<int>(work.size()), rwork.data(), static_cast<int>(rwork.size()),
         iwork.data(), static_cast<int>(iwork.size()));
}

// ?SYEVD / ?HEEVD: all eigenvalues, ascending, to w, and with jobz 'V' their eigenvectors over A.
// Returns INFO.
template <class T>
int cpu_syevd(char jobz, char uplo, int n, T* a, int lda, Real<T>* w) {
    int info = 0;
    with_workspaces<T>(0,
                       [&](T* work, int lwork, Real<T>* rwork, int lrwork, int* iwork, int liwork) {
                           if constexpr (kComplex<T>) {
                               lapack<T>("syevd", "heevd", &jobz, &uplo, &n, a, &lda, w, work,
                                         &lwork, rwork, &lrwork, iwork, &liwork, &info, kLen, kLen);
                           } else {
                               lapack<T>("syevd", "heevd", &jobz, &uplo, &n, a, &lda, w, work,
                                         &lwork, iwork, &liwork, &info, kLen, kLen);
                           }
                       });
    return info;
}

// ?SYEVR / ?HEEVR: the eigenvalues in `range`, ascending, to w, their count to *found, and with
// jobz 'V' their eigenvectors to z. Returns INFO.
template <class T>
int cpu_syevr(char jobz, char range, char uplo, int n, T* a, int lda, Real<T> vl, Real<T> vu,
              int il, int iu, int* found, Real<T>* w, T* z, int ldz) {
    const Real<T> abstol = 0;  // LAPACK's default tolerance
    std::vector<int> isuppz(2 * static_cast<size_t>(std::max(1, n)));
    int info = 0;
    with_workspaces<T>(
        0, [&](T* work, int lwork, Real<T>* rwork, int lrwork, int* iwork, int liwork) {
            if constexpr (kComplex<T>) {
                lapack<T>("syevr", "heevr", &jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu,
                          &abstol, found, w, z, &ldz, isuppz.data(), work, &lwork, rwork, &lrwork,
                          iwork, &liwork, &info, kLen, kLen, kLen);
            } else {
                lapack<T>("syevr", "heevr", &jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu,
                          &abstol, found, w, z, &ldz, isuppz.data(), work, &lwork, iwork, &liwork,
                          &info, kLen, kLen, kLen);
            }
        });
    return info;
}

template <class T>
int cpu_gesvd(char jobu, char jobvt, int m, int n, T* a, int lda, Real<T>* s, T* u, int ldu, T* vt,
              int ldvt) {
    int info = 0;
    with_workspaces<T>(5 * std::min(m, n), [&](T* work, int lwork, Real<T>* rwork, int, int*, int) {
        if constexpr (kComplex<T>) {
            lapack<T>("gesvd", nullptr, &jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work,
                      &lwork, rwork, &info, kLen, kLen);
        } else {
            lapack<T>("gesvd", nullptr, &jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work,
                      &lwork, &info, kLen, kLen);
        }
    });
    return info;
}

// ?GEEV without left eigenvectors; the eigenvalues go to w as complex numbers whatever the
// routine's own layout (WR and WI for a real matrix). Returns INFO.
template <class T>
int cpu_geev(char jobvr, int n, T* a, int lda, std::complex<Real<T>>* w, T* vr, int ldvr) {
    using R = Real<T>;
    const char jobvl = 'N';
    const int ldvl = 1;
    T vl{};                                                              // not referenced
    std::vector<R> parts(kComplex<T> ? 0 : 2 * static_cast<size_t>(n));  // WR, then WI
    int info = 0;
    with_workspaces<T>(2 * n, [&](T* work, int lwork, R* rwork, int, int*, int) {
        if constexpr (kComplex<T>) {
            lapack<T>("geev", nullptr, &jobvl, &jobvr, &n, a, &lda, w, &vl, &ldvl, vr, &ldvr, work,
                      &lwork, rwork, &info, kLen, kLen);
        } else {
            lapack<T>("geev", nullptr, &jobvl, &jobvr, &n, a, &lda, parts.data(), parts.data() + n,
                      &vl, &ldvl, vr, &ldvr, work, &lwork, &info, kLen, kLen);
        }
    });
    if constexpr (!kComplex<T>) {
        for (int j = 0; j < n; ++j) w[j] = {parts[j], parts[n + j]};
    }
    return info;
}

template <class T>
int cpu_sygvd(int itype, char jobz, char uplo, int n, T* a, int lda, T* b, int ldb, Real<T>* w) {
    int info = 0;
    with_workspaces<T>(
        0, [&](T* work, int lwork, Real<T>* rwork, int lrwork, int* iwork, int liwork) {
            if constexpr (kComplex<T>) {
                lapack<T>("sygvd", "hegvd", &itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work,
                          &lwork, rwork, &lrwork, iwork, &liwork, &info, kLen, kLen);
            } else {
                lapack<T>("sygvd", "hegvd", &itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work,
                          &lwork, iwork, &liwork, &info, kLen, kLen);
            }
        });
    return info;
}

// ---- shared checks --------------------------------------------------------------------------

// The CPU's LAPACK takes 32-bit sizes.
int to_int(const char* api, const char* what, int64_t value) {
    if (value > INT_MAX) {
        cudasim::misuse(api, std::string(what) + " = " + std::to_string(value) +
                                 " exceeds what the emulation's 32-bit LAPACK takes");
    }
    return static_cast<int>(value);
}

// Fills rows x cols of a column-major matrix with NaN bytes: what the routine leaves undefined.
template <class T>
void poison_matrix(T* a, int64_t rows, int64_t cols, int64_t ld) {
    if (rows <= 0) return;
    for (int64_t j = 0; j < cols; ++j) {
        cudasim::poison(a + j * ld, static_cast<size_t>(rows) * sizeof(T));
    }
}

// The documentation lists no status for a null bufferSize output; a GPU build would write
// through it.
template <class P>
void require_output(const char* api, const char* what, P* pointer) {
    if (pointer == nullptr) cudasim::misuse(api, std::string(what) + " is null");
}

// The documentation does not say what a null params gives; refused, the stricter answer.
cusolverStatus_t check_handle(cusolverDnHandle_t handle, cusolverDnParams_t params) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    return params == nullptr ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_SUCCESS;
}

bool valid_mode(cusolverEigMode_t mode) {
    return mode == CUSOLVER_EIG_MODE_NOVECTOR || mode == CUSOLVER_EIG_MODE_VECTOR;
}

bool valid_fill(cublasFillMode_t uplo) {
    return uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER;
}

char job_of(cusolverEigMode_t mode) {
    return mode == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';
}

char fill_of(cublasFillMode_t uplo) {
    return uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
}

// The workspaces this emulation asks for. Any size would do; these grow with the problem and
// the job, so that a routine given what a query for other arguments answered shows.
size_t device_workspace(cudaDataType type, int64_t elements) {
    return element_bytes(type) * static_cast<size_t>(64 + elements);
}

size_t host_workspace(int64_t n) {
    return 8 * static_cast<size_t>(16 + n);
}

// ---- Xsyevd and Xsyevdx ----------------------------------------------------------------------

// Both: (A, W, compute) is (R_32F, R_32F, R_32F), (R_64F, R_64F, R_64F), (C_32F, R_32F, C_32F)
// or (C_64F, R_64F, C_64F); INVALID_VALUE for n < 0, lda < max(1, n), or a jobz, range or uplo
// out of its enumeration. Xsyevdx's vl and vu are host values of W's type, read only for range
// V, which needs vl < vu; il and iu are read only for range I: 1 <= il <= iu <= n, or il = 1
// and iu = 0 when n = 0 (the rules of LAPACK's ?syevx, which the parameter table follows).
cusolverStatus_t check_syev(const char* api, cusolverDnHandle_t handle, cusolverDnParams_t params,
                            cusolverEigMode_t jobz, cusolverEigRange_t range, cublasFillMode_t uplo,
                            int64_t n, cudaDataType type_a, int64_t lda, const void* vl,
                            const void* vu, int64_t il, int64_t iu, cudaDataType type_w,
                            cudaDataType compute) {
    if (const cusolverStatus_t status = check_handle(handle, params)) return status;
    if (element_bytes(type_a) == 0 || type_w != real_of(type_a) || compute != type_a) {
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    const bool valid_range = range == CUSOLVER_EIG_RANGE_ALL || range == CUSOLVER_EIG_RANGE_I ||
                             range == CUSOLVER_EIG_RANGE_V;
    if (!valid_mode(jobz) || !valid_range || !valid_fill(uplo) || n < 0 ||
        lda < std::max<int64_t>(1, n)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    if (range == CUSOLVER_EIG_RANGE_V) {
        require_host(api, "vl", vl, element_bytes(type_w));
        require_host(api, "vu", vu, element_bytes(type_w));
        const bool ordered =
            type_w == CUDA_R_32F
                ? *static_cast<const float*>(vl) < *static_cast<const float*>(vu)
                : *static_cast<const double*>(vl) < *static_cast<const double*>(vu);
        if (!ordered) return CUSOLVER_STATUS_INVALID_VALUE;
    }
    if (range == CUSOLVER_EIG_RANGE_I &&
        !(n > 0 ? 1 <= il && il <= iu && iu <= n : il == 1 && iu == 0)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

void syev_workspaces(cusolverEigMode_t jobz, int64_t n, cudaDataType type_a, size_t* device,
                     size_t* host) {
    *device = device_workspace(type_a, n * (jobz == CUSOLVER_EIG_MODE_VECTOR ? 4 : 2));
    *host = host_workspace(n);
}

// Xsyevd is Xsyevdx with range ALL and no h_meig. The eigenvalues beyond those found and, with
// vectors, the columns of A beyond theirs, are left undefined; without vectors "the contents
// of A are destroyed". h_meig is host memory that holds the count when the call returns, so
// Xsyevdx waits for the stream, as cuSOLVER must to write it.
cusolverStatus_t syev(const char* api, cusolverDnHandle_t handle, cusolverDnParams_t params,
                      cusolverEigMode_t jobz, cusolverEigRange_t range, cublasFillMode_t uplo,
                      int64_t n, cudaDataType type_a, void* a, int64_t lda, const void* vl,
                      const void* vu, int64_t il, int64_t iu, int64_t* h_meig, cudaDataType type_w,
                      void* w, cudaDataType compute, void* device_ws, size_t device_bytes,
                      void* host_ws, size_t host_bytes, int* info) {
    if (const cusolverStatus_t status = check_syev(api, handle, params, jobz, range, uplo, n,
                                                   type_a, lda, vl, vu, il, iu, type_w, compute)) {
        return status;
    }
    require_device(api, "A", a, matrix_bytes(n, n, lda, element_bytes(type_a)));
    require_device(api, "W", w, static_cast<size_t>(n) * element_bytes(type_w));
    require_device(api, "info", info, sizeof(int));
    if (h_meig != nullptr) require_host(api, "h_meig", h_meig, sizeof(int64_t));
    const int order = to_int(api, "n", n);
    const int ld = to_int(api, "lda", lda);
    const bool by_index = range == CUSOLVER_EIG_RANGE_I;
    const int first = by_index ? to_int(api, "il", il) : 1;
    const int last = by_index ? to_int(api, "iu", iu) : order;
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    size_t device_needed = 0;
    size_t host_needed = 0;
    syev_workspaces(jobz, n, type_a, &device_needed, &host_needed);
    cudaStream_t stream = handle->stream;
    cudasim::require_workspaces(api, stream, device_ws, device_bytes, device_needed, host_ws,
                                host_bytes, host_needed);
    const char job = job_of(jobz);
    const char part = fill_of(uplo);
    const char which = by_index ? 'I' : (range == CUSOLVER_EIG_RANGE_V ? 'V' : 'A');
    with_type(type_a, [&]<class T>(std::type_identity<T>) {
        using R = Real<T>;
        const R lower = which == 'V' ? *static_cast<const R*>(vl) : R{0};
        const R upper = which == 'V' ? *static_cast<const R*>(vu) : R{0};
        cudasim::enqueue(stream, [=] {
            auto* const matrix = static_cast<T*>(a);
            auto* const values = static_cast<R*>(w);
            const size_t rows = static_cast<size_t>(order);
            // The whole spectrum by divide and conquer, as cuSOLVER's syevd computes it (MRRR,
            // ?SYEVR's method, can leave a zero eigenvalue of a singular matrix a few eps
            // away from zero where ?SYEVD does not: tests with a tight cutoff notice).
            if (which == 'A') {
                *info = cpu_syevd<T>(job, part, order, matrix, ld, values);
                if (job == 'N') poison_matrix(matrix, order, order, ld);
                if (h_meig != nullptr) *h_meig = order;
                return;
            }
            std::vector<T> z(job == 'V' ? rows * rows : 1);
            int found = 0;
            *info = cpu_syevr<T>(job, which, part, order, matrix, ld, lower, upper, first, last,
                                 &found, values, z.data(), std::max(1, order));
            if (job == 'V') {
                for (int j = 0; j < found; ++j) {
                    std::copy_n(z.data() + j * rows, rows, matrix + static_cast<size_t>(j) * ld);
                }
                poison_matrix(matrix + static_cast<size_t>(found) * ld, order, order - found, ld);
            } else {
                poison_matrix(matrix, order, order, ld);
            }
            cudasim::poison(values + found, (rows - static_cast<size_t>(found)) * sizeof(R));
            if (h_meig != nullptr) *h_meig = found;
        });
        return CUSOLVER_STATUS_SUCCESS;
    });
    if (h_meig != nullptr && cudaStreamSynchronize(stream) != cudaSuccess) {
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

// ---- Xgesvd ---------------------------------------------------------------------------------

bool valid_svd_job(signed char job) {
    return job == 'A' || job == 'S' || job == 'O' || job == 'N';
}

// (A, S, U, VT, compute) is (T, real T, T, T, T). cuSOLVER's gesvd "only supports m >= n";
// INVALID_VALUE for that, for m, n < 0, lda < max(1, m), ldu < max(1, m) and ldvt < max(1, n)
// (checked whatever the jobs: the documentation lists them unconditionally), a job that is not
// 'A', 'S', 'O' or 'N', and for jobu and jobvt both 'O' (as LAPACK: "JOBVT and JOBU cannot both
// be 'O'").
cusolverStatus_t check_gesvd(cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu,
                             signed char jobvt, int64_t m, int64_t n, cudaDataType type_a,
                             int64_t lda, cudaDataType type_s, cudaDataType type_u, int64_t ldu,
                             cudaDataType type_vt, int64_t ldvt, cudaDataType compute) {
    if (const cusolverStatus_t status = check_handle(handle, params)) return status;
    if (element_bytes(type_a) == 0 || type_s != real_of(type_a) || type_u != type_a ||
        type_vt != type_a || compute != type_a) {
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    if (!valid_svd_job(jobu) || !valid_svd_job(jobvt) || (jobu == 'O' && jobvt == 'O') || n < 0 ||
        m < n || lda < std::max<int64_t>(1, m) || ldu < std::max<int64_t>(1, m) ||
        ldvt < std::max<int64_t>(1, n)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

void gesvd_workspaces(int64_t m, int64_t n, cudaDataType type_a, size_t* device, size_t* host) {
    *device = device_workspace(type_a, 2 * (m + n));
    *host = host_workspace(n);
}

// ---- Xgeev ----------------------------------------------------------------------------------

// (A, W, VL, VR, compute): all one type, or for a real A a complex W of its precision (NVIDIA's
// Xgeev sample: A, VL, VR and compute CUDA_R_64F, W CUDA_C_64F). Left eigenvectors are not
// supported (NOT_SUPPORTED for jobvl VECTOR). INVALID_VALUE for n < 0, lda < max(1, n),
// ldvl < 1, ldvr < 1 or, with right eigenvectors, ldvr < n, and a job out of its enumeration.
cusolverStatus_t check_geev(cusolverDnHandle_t handle, cusolverDnParams_t params,
                            cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n,
                            cudaDataType type_a, int64_t lda, cudaDataType type_w,
                            cudaDataType type_vl, int64_t ldvl, cudaDataType type_vr, int64_t ldvr,
                            cudaDataType compute) {
    if (const cusolverStatus_t status = check_handle(handle, params)) return status;
    const bool w_ok = type_w == type_a || (!is_complex(type_a) && type_w == complex_of(type_a));
    if (element_bytes(type_a) == 0 || !w_ok || type_vl != type_a || type_vr != type_a ||
        compute != type_a) {
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    if (!valid_mode(jobvl) || !valid_mode(jobvr) || n < 0 || lda < std::max<int64_t>(1, n) ||
        ldvl < 1 || ldvr < (jobvr == CUSOLVER_EIG_MODE_VECTOR ? std::max<int64_t>(1, n) : 1)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return jobvl == CUSOLVER_EIG_MODE_VECTOR ? CUSOLVER_STATUS_NOT_SUPPORTED
                                             : CUSOLVER_STATUS_SUCCESS;
}

void geev_workspaces(cusolverEigMode_t jobvr, int64_t n, cudaDataType type_a, size_t* device,
                     size_t* host) {
    *device = device_workspace(type_a, n * (jobvr == CUSOLVER_EIG_MODE_VECTOR ? 4 : 2));
    *host = host_workspace(n);
}

// W in the documented layout: n complex numbers, or for a real W 2n reals (the real parts,
// then the imaginary parts). With INFO = i > 0 the eigenvalues 1..i did not converge and "no
// eigenvectors have been computed" (LAPACK's meaning): left undefined.
template <class R>
void store_eigenvalues(const std::vector<std::complex<R>>& values, int unconverged, void* w,
                       bool complex_w) {
    const size_t n = values.size();
    const size_t bad = static_cast<size_t>(std::max(0, unconverged));
    if (complex_w) {
        auto* const out = static_cast<std::complex<R>*>(w);
        std::copy(values.begin(), values.end(), out);
        cudasim::poison(out, bad * sizeof(std::complex<R>));
        return;
    }
    auto* const out = static_cast<R*>(w);
    for (size_t j = 0; j < n; ++j) {
        out[j] = values[j].real();
        out[n + j] = values[j].imag();
    }
    cudasim::poison(out, bad * sizeof(R));
    cudasim::poison(out + n, bad * sizeof(R));
}

// ---- sygvd / hegvd (legacy API) ---------------------------------------------------------------

// INVALID_VALUE for n < 0, lda < max(1, n), ldb < max(1, n), itype not 1, 2 or 3, and a jobz or
// uplo out of its enumeration.
cusolverStatus_t check_sygvd(cusolverDnHandle_t handle, cusolverEigType_t itype,
                             cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, int lda,
                             int ldb) {
    if (handle == nullptr) return CUSOLVER_STATUS_NOT_INITIALIZED;
    const bool valid_type = itype == CUSOLVER_EIG_TYPE_1 || itype == CUSOLVER_EIG_TYPE_2 ||
                            itype == CUSOLVER_EIG_TYPE_3;
    if (!valid_type || !valid_mode(jobz) || !valid_fill(uplo) || n < 0 || lda < std::max(1, n) ||
        ldb < std::max(1, n)) {
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

// The workspace in elements of the matrix type.
int sygvd_workspace(int n) {
    return static_cast<int>(std::min<int64_t>(INT_MAX, 64 + 2 * static_cast<int64_t>(n)));
}

cusolverStatus_t sygvd_buffer_size(const char* api, cusolverDnHandle_t handle,
                                   cusolverEigType_t itype, cusolverEigMode_t jobz,
                                   cublasFillMode_t uplo, int n, int lda, int ldb, int* lwork) {
    if (const cusolverStatus_t status = check_sygvd(handle, itype, jobz, uplo, n, lda, ldb)) {
        return status;
    }
    require_output(api, "lwork", lwork);
    *lwork = sygvd_workspace(n);
    return CUSOLVER_STATUS_SUCCESS;
}

// INFO as LAPACK's: i <= n, no convergence; n + i, B's leading minor of order i is not positive
// definite. With jobz NOVECTOR "the contents of A are destroyed"; B keeps LAPACK's Cholesky
// factor, as documented.
template <class T>
cusolverStatus_t sygvd(const char* api, cusolverDnHandle_t handle, cusolverEigType_t itype,
                       cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, void* a, int lda,
                       void* b, int ldb, Real<T>* w, void* work, int lwork, int* info) {
    if (const cusolverStatus_t status = check_sygvd(handle, itype, jobz, uplo, n, lda, ldb)) {
        return status;
    }
    if (lwork < 0) cudasim::misuse(api, "lwork = " + std::to_string(lwork) + " is negative");
    require_device(api, "A", a, matrix_bytes(n, n, lda, sizeof(T)));
    require_device(api, "B", b, matrix_bytes(n, n, ldb, sizeof(T)));
    require_device(api, "W", w, static_cast<size_t>(n) * sizeof(Real<T>));
    require_device(api, "info", info, sizeof(int));
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    cudaStream_t stream = handle->stream;
    cudasim::require_workspaces(api, stream, work, static_cast<size_t>(lwork) * sizeof(T),
                                static_cast<size_t>(sygvd_workspace(n)) * sizeof(T), nullptr, 0, 0);
    const int kind = static_cast<int>(itype);
    const char job = job_of(jobz);
    const char part = fill_of(uplo);
    cudasim::enqueue(stream, [=] {
        auto* const matrix = static_cast<T*>(a);
        *info = cpu_sygvd<T>(kind, job, part, n, matrix, lda, static_cast<T*>(b), ldb, w);
        if (job == 'N') poison_matrix(matrix, n, n, lda);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

}  // namespace

cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                             cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                             int64_t n, cudaDataType dataTypeA, const void*,
                                             int64_t lda, cudaDataType dataTypeW, const void*,
                                             cudaDataType computeType,
                                             size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
    constexpr const char* kApi = "cusolverDnXsyevd_bufferSize";
    if (const cusolverStatus_t status =
            check_syev(kApi, handle, params, jobz, CUSOLVER_EIG_RANGE_ALL, uplo, n, dataTypeA, lda,
                       nullptr, nullptr, 1, n, dataTypeW, computeType)) {
        return status;
    }
    require_output(kApi, "workspaceInBytesOnDevice", workspaceInBytesOnDevice);
    require_output(kApi, "workspaceInBytesOnHost", workspaceInBytesOnHost);
    syev_workspaces(jobz, n, dataTypeA, workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                  cudaDataType dataTypeA, void* A, int64_t lda,
                                  cudaDataType dataTypeW, void* W, cudaDataType computeType,
                                  void* bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void* bufferOnHost, size_t workspaceInBytesOnHost, int* info) {
    return syev("cusolverDnXsyevd", handle, params, jobz, CUSOLVER_EIG_RANGE_ALL, uplo, n,
                dataTypeA, A, lda, nullptr, nullptr, 1, n, nullptr, dataTypeW, W, computeType,
                bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost,
                info);
}

cusolverStatus_t cusolverDnXsyevdx_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cusolverEigRange_t range, cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void*,
    int64_t lda, void* vl, void* vu, int64_t il, int64_t iu, int64_t*, cudaDataType dataTypeW,
    const void*, cudaDataType computeType, size_t* workspaceInBytesOnDevice,
    size_t* workspaceInBytesOnHost) {
    constexpr const char* kApi = "cusolverDnXsyevdx_bufferSize";
    if (const cusolverStatus_t status =
            check_syev(kApi, handle, params, jobz, range, uplo, n, dataTypeA, lda, vl, vu, il, iu,
                       dataTypeW, computeType)) {
        return status;
    }
    require_output(kApi, "workspaceInBytesOnDevice", workspaceInBytesOnDevice);
    require_output(kApi, "workspaceInBytesOnHost", workspaceInBytesOnHost);
    syev_workspaces(jobz, n, dataTypeA, workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXsyevdx(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                   cusolverEigMode_t jobz, cusolverEigRange_t range,
                                   cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
                                   void* A, int64_t lda, void* vl, void* vu, int64_t il, int64_t iu,
                                   int64_t* meig64, cudaDataType dataTypeW, void* W,
                                   cudaDataType computeType, void* bufferOnDevice,
                                   size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                   size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* kApi = "cusolverDnXsyevdx";
    if (meig64 == nullptr) cudasim::misuse(kApi, "h_meig is null");
    return syev(kApi, handle, params, jobz, range, uplo, n, dataTypeA, A, lda, vl, vu, il, iu,
                meig64, dataTypeW, W, computeType, bufferOnDevice, workspaceInBytesOnDevice,
                bufferOnHost, workspaceInBytesOnHost, info);
}

cusolverStatus_t cusolverDnXgesvd_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu, signed char jobvt,
    int64_t m, int64_t n, cudaDataType dataTypeA, const void*, int64_t lda, cudaDataType dataTypeS,
    const void*, cudaDataType dataTypeU, const void*, int64_t ldu, cudaDataType dataTypeVT,
    const void*, int64_t ldvt, cudaDataType computeType, size_t* workspaceInBytesOnDevice,
    size_t* workspaceInBytesOnHost) {
    constexpr const char* kApi = "cusolverDnXgesvd_bufferSize";
    if (const cusolverStatus_t status =
            check_gesvd(handle, params, jobu, jobvt, m, n, dataTypeA, lda, dataTypeS, dataTypeU,
                        ldu, dataTypeVT, ldvt, computeType)) {
        return status;
    }
    require_output(kApi, "workspaceInBytesOnDevice", workspaceInBytesOnDevice);
    require_output(kApi, "workspaceInBytesOnHost", workspaceInBytesOnHost);
    gesvd_workspaces(m, n, dataTypeA, workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

// U is referenced for jobu 'A' (m x m) and 'S' (m x n), VT for jobvt 'A' and 'S' (n x n). "On
// exit, the contents of A are destroyed", except what jobu or jobvt 'O' puts there: U's n
// columns, or VT in A's first n rows (the rows below are then undefined).
cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  signed char jobu, signed char jobvt, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void* A, int64_t lda,
                                  cudaDataType dataTypeS, void* S, cudaDataType dataTypeU, void* U,
                                  int64_t ldu, cudaDataType dataTypeVT, void* VT, int64_t ldvt,
                                  cudaDataType computeType, void* bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* kApi = "cusolverDnXgesvd";
    if (const cusolverStatus_t status =
            check_gesvd(handle, params, jobu, jobvt, m, n, dataTypeA, lda, dataTypeS, dataTypeU,
                        ldu, dataTypeVT, ldvt, computeType)) {
        return status;
    }
    const size_t elem = element_bytes(dataTypeA);
    require_device(kApi, "A", A, matrix_bytes(m, n, lda, elem));
    require_device(kApi, "S", S, static_cast<size_t>(n) * element_bytes(dataTypeS));
    if (jobu == 'A' || jobu == 'S') {
        require_device(kApi, "U", U, matrix_bytes(m, jobu == 'A' ? m : n, ldu, elem));
    }
    if (jobvt == 'A' || jobvt == 'S')
        require_device(kApi, "VT", VT, matrix_bytes(n, n, ldvt, elem));
    require_device(kApi, "info", info, sizeof(int));
    const int rows = to_int(kApi, "m", m);
    const int cols = to_int(kApi, "n", n);
    const int ld_a = to_int(kApi, "lda", lda);
    const int ld_u = to_int(kApi, "ldu", ldu);
    const int ld_vt = to_int(kApi, "ldvt", ldvt);
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    size_t device_needed = 0;
    size_t host_needed = 0;
    gesvd_workspaces(m, n, dataTypeA, &device_needed, &host_needed);
    cudaStream_t stream = handle->stream;
    cudasim::require_workspaces(kApi, stream, bufferOnDevice, workspaceInBytesOnDevice,
                                device_needed, bufferOnHost, workspaceInBytesOnHost, host_needed);
    const char job_u = static_cast<char>(jobu);
    const char job_vt = static_cast<char>(jobvt);
    return with_type(dataTypeA, [&]<class T>(std::type_identity<T>) {
        cudasim::enqueue(stream, [=] {
            auto* const matrix = static_cast<T*>(A);
            *info = cpu_gesvd<T>(job_u, job_vt, rows, cols, matrix, ld_a, static_cast<Real<T>*>(S),
                                 static_cast<T*>(U), ld_u, static_cast<T*>(VT), ld_vt);
            if (job_vt == 'O') {
                poison_matrix(matrix + cols, rows - cols, cols, ld_a);
            } else if (job_u != 'O') {
                poison_matrix(matrix, rows, cols, ld_a);
            }
        });
        return CUSOLVER_STATUS_SUCCESS;
    });
}

cusolverStatus_t cusolverDnXgeev_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
    cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, const void*, int64_t lda,
    cudaDataType dataTypeW, const void*, cudaDataType dataTypeVL, const void*, int64_t ldvl,
    cudaDataType dataTypeVR, const void*, int64_t ldvr, cudaDataType computeType,
    size_t* workspaceInBytesOnDevice, size_t* workspaceInBytesOnHost) {
    constexpr const char* kApi = "cusolverDnXgeev_bufferSize";
    if (const cusolverStatus_t status =
            check_geev(handle, params, jobvl, jobvr, n, dataTypeA, lda, dataTypeW, dataTypeVL, ldvl,
                       dataTypeVR, ldvr, computeType)) {
        return status;
    }
    require_output(kApi, "workspaceInBytesOnDevice", workspaceInBytesOnDevice);
    require_output(kApi, "workspaceInBytesOnHost", workspaceInBytesOnHost);
    geev_workspaces(jobvr, n, dataTypeA, workspaceInBytesOnDevice, workspaceInBytesOnHost);
    return CUSOLVER_STATUS_SUCCESS;
}

// A is overwritten. VR holds the right eigenvectors in W's order, each of norm 1 with its
// largest component real; for a real VR a complex conjugate pair j, j+1 is stored as
// VR(:, j) +- i VR(:, j+1), as LAPACK stores it.
cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                 cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n,
                                 cudaDataType dataTypeA, void* A, int64_t lda,
                                 cudaDataType dataTypeW, void* W, cudaDataType dataTypeVL, void*,
                                 int64_t ldvl, cudaDataType dataTypeVR, void* VR, int64_t ldvr,
                                 cudaDataType computeType, void* bufferOnDevice,
                                 size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                 size_t workspaceInBytesOnHost, int* info) {
    constexpr const char* kApi = "cusolverDnXgeev";
    if (const cusolverStatus_t status =
            check_geev(handle, params, jobvl, jobvr, n, dataTypeA, lda, dataTypeW, dataTypeVL, ldvl,
                       dataTypeVR, ldvr, computeType)) {
        return status;
    }
    const bool complex_w = is_complex(dataTypeW);
    const bool vectors = jobvr == CUSOLVER_EIG_MODE_VECTOR;
    const size_t elem = element_bytes(dataTypeA);
    require_device(kApi, "A", A, matrix_bytes(n, n, lda, elem));
    require_device(kApi, "W", W,
                   static_cast<size_t>(complex_w ? n : 2 * n) * element_bytes(dataTypeW));
    if (vectors) require_device(kApi, "VR", VR, matrix_bytes(n, n, ldvr, elem));
    require_device(kApi, "info", info, sizeof(int));
    const int order = to_int(kApi, "n", n);
    const int ld_a = to_int(kApi, "lda", lda);
    const int ld_vr = vectors ? to_int(kApi, "ldvr", ldvr) : 1;
    if (cudasim::injected_fault()) return CUSOLVER_STATUS_EXECUTION_FAILED;
    size_t device_needed = 0;
    size_t host_needed = 0;
    geev_workspaces(jobvr, n, dataTypeA, &device_needed, &host_needed);
    cudaStream_t stream = handle->stream;
    cudasim::require_workspaces(kApi, stream, bufferOnDevice, workspaceInBytesOnDevice,
                                device_needed, bufferOnHost, workspaceInBytesOnHost, host_needed);
    return with_type(dataTypeA, [&]<class T>(std::type_identity<T>) {
        cudasim::enqueue(stream, [=] {
            auto* const matrix = static_cast<T*>(A);
            std::vector<std::complex<Real<T>>> values(static_cast<size_t>(order));
            T unreferenced{};
            T* const right = vectors ? static_cast<T*>(VR) : &unreferenced;
            const int result =
                cpu_geev<T>(vectors ? 'V' : 'N', order, matrix, ld_a, values.data(), right, ld_vr);
            *info = result;
            poison_matrix(matrix, order, order, ld_a);
            store_eigenvalues(values, result, W, complex_w);
            if (vectors && result > 0) poison_matrix(right, order, order, ld_vr);
        });
        return CUSOLVER_STATUS_SUCCESS;
    });
}

// The SYGVD / HEGVD entry points (legacy API) of one precision: cuSOLVER's NAME, its element
// type T and real type R, and the CPU's element type C.
#define CUDASIM_CUSOLVER_SYGVD(NAME, T, R, C)                                                      \
    cusolverStatus_t cusolverDn##NAME##_bufferSize(                                                \
        cusolverDnHandle_t handle, cusolverEigType_t itype, cusolverEigMode_t jobz,                \
        cublasFillMode_t uplo, int n, const T*, int lda, const T*, int ldb, const R*,              \
        int* lwork) {                                                                              \
        return sygvd_buffer_size("cusolverDn" #NAME "_bufferSize", handle, itype, jobz, uplo, n,   \
                                 lda, ldb, lwork);                                                 \
    }                                                                                              \
    cusolverStatus_t cusolverDn##NAME(cusolverDnHandle_t handle, cusolverEigType_t itype,          \
                                      cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T* A,  \
                                      int lda, T* B, int ldb, R* W, T* work, int lwork,            \
                                      int* info) {                                                 \
        return sygvd<C>("cusolverDn" #NAME, handle, itype, jobz, uplo, n, A, lda, B, ldb, W, work, \
                        lwork, info);                                                              \
    }

CUDASIM_CUSOLVER_SYGVD(Ssygvd, float, float, float)
CUDASIM_CUSOLVER_SYGVD(Dsygvd, double, double, double)
CUDASIM_CUSOLVER_SYGVD(Chegvd, cuComplex, float, std::complex<float>)
CUDASIM_CUSOLVER_SYGVD(Zhegvd, cuDoubleComplex, double, std::complex<double>)
