// The emulated cuBLAS (libcublas.so.13): the handle calls, and the 64-bit Level-3 routines,
// DGMM, TRTTP and TPTTR that the CUDA plugin calls, computed in stream order (the Level-3
// routines by the CPU BLAS).
//
// The rules are those of the cuBLAS API reference (CUDA 13): "cuBLAS Helper Function
// Reference" for the handle, "cuBLAS Level-3 Function Reference" and "BLAS-like Extension"
// (dgmm, trttp, tpttr) for the routines. Each routine answers CUBLAS_STATUS_INVALID_VALUE wherever
// its table of error values says so. Where the reference leaves a case undefined, the emulation
// takes the stricter reading and says so where it does.
#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "tests/cudasim/cudasim.h"

struct cublasContext {
    int device = 0;                 // the device current when it was made
    cudaStream_t stream = nullptr;  // "If the cuBLAS library stream is not set, all kernels use
                                    // the default NULL stream."
    cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
};

namespace cudasim {
namespace {

// Live handles: a destroyed or made-up handle stops the process rather than reading freed
// memory.
struct Handles {
    std::mutex mutex;
    std::unordered_set<cublasHandle_t> live;
};

// Never destroyed: a handle may be released from another library's destructor at exit.
Handles& handles() {
    static Handles* const instance = new Handles;
    return *instance;
}

// The handle's settings at the time of the call; false for a null handle, which the reference
// answers with CUBLAS_STATUS_NOT_INITIALIZED.
bool settings(const char* api, cublasHandle_t handle, cublasContext* out) {
    if (handle == nullptr) return false;
    std::lock_guard lock(handles().mutex);
    if (!handles().live.contains(handle)) misuse(api, "the handle was destroyed or never created");
    *out = *handle;
    return true;
}

template <class T>
struct Element;

template <>
struct Element<float> {
    using Real = float;
    static constexpr char kPrefix = 's';
};

template <>
struct Element<double> {
    using Real = double;
    static constexpr char kPrefix = 'd';
};

template <>
struct Element<cuComplex> {
    using Real = float;
    static constexpr char kPrefix = 'c';
};

template <>
struct Element<cuDoubleComplex> {
    using Real = double;
    static constexpr char kPrefix = 'z';
};

template <class T>
constexpr bool kComplex = !std::is_same_v<T, typename Element<T>::Real>;

template <class T>
bool is_zero(const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
        return value == 0;
    } else {
        return value.x == 0 && value.y == 0;
    }
}

template <class T>
T times(const T& x, const T& y) {
    if constexpr (std::is_floating_point_v<T>) {
        return x * y;
    } else {
        return {x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x};
    }
}

// The Fortran BLAS routines, by their argument shapes; scalars and matrices of every precision
// pass as void pointers, the trailing size_t are the lengths of the character arguments.
using GemmFn = void(const char*, const char*, const int*, const int*, const int*, const void*,
                    const void*, const int*, const void*, const int*, const void*, void*,
                    const int*, size_t, size_t);
// SYMM, HEMM, SYR2K and HER2K: two flags, two sizes, A, B and C.
using TwoOperandFn = void(const char*, const char*, const int*, const int*, const void*,
                          const void*, const int*, const void*, const int*, const void*, void*,
                          const int*, size_t, size_t);
// SYRK and HERK.
using RankKFn = void(const char*, const char*, const int*, const int*, const void*, const void*,
                     const int*, const void*, void*, const int*, size_t, size_t);
// TRMM and TRSM.
using TriangularFn = void(const char*, const char*, const char*, const char*, const int*,
                          const int*, const void*, const void*, const int*, void*, const int*,
                          size_t, size_t, size_t, size_t);

template <class F, class T>
F* cpu_blas(const char* stem) {
    const std::string symbol = Element<T>::kPrefix + std::string(stem) + "_";
    return cpu_function<F>(kCpuBlas, symbol.c_str());
}

// The CPU BLAS takes 32-bit sizes; the tests never come near the limit.
int narrow(const char* api, const char* what, int64_t value) {
    if (value > INT_MAX) {
        misuse(api, std::string(what) + " = " + std::to_string(value) +
                        " exceeds the CPU BLAS's int: the emulation cannot run it");
    }
    return static_cast<int>(value);
}

int64_t at_least_one(int64_t rows) {
    return std::max<int64_t>(1, rows);
}

bool valid_fill(cublasFillMode_t uplo) {
    // CUBLAS_FILL_MODE_FULL is not among the values the Level-3 tables accept.
    return uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER;
}

bool valid_side(cublasSideMode_t side) {
    return side == CUBLAS_SIDE_LEFT || side == CUBLAS_SIDE_RIGHT;
}

bool valid_diag(cublasDiagType_t diag) {
    return diag == CUBLAS_DIAG_UNIT || diag == CUBLAS_DIAG_NON_UNIT;
}

// GEMM, TRMM and TRSM define op(A) for N, T and C; for a real matrix A^H is A^T, which the
// CPU BLAS reads 'C' as too.
bool general_op(cublasOperation_t op) {
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

char op_flag(cublasOperation_t op) {
    return op == CUBLAS_OP_N ? 'N' : op == CUBLAS_OP_T ? 'T' : 'C';
}

char side_flag(cublasSideMode_t side) {
    return side == CUBLAS_SIDE_LEFT ? 'L' : 'R';
}

char fill_flag(cublasFillMode_t uplo) {
    return uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
}

char diag_flag(cublasDiagType_t diag) {
    return diag == CUBLAS_DIAG_UNIT ? 'U' : 'N';
}

// A scalar argument: in host pointer mode read at the call, in device pointer mode read when
// the work runs, in stream order.
template <class S>
struct Scalar {
    S value{};
    const S* device = nullptr;

    S get() const { return device != nullptr ? *device : value; }
    bool known_zero() const { return device == nullptr && is_zero(value); }
};

template <class S>
Scalar<S> scalar(const char* api, const char* what, cublasPointerMode_t mode, const S* address) {
    if (mode == CUBLAS_POINTER_MODE_DEVICE) {
        require_device(api, what, address, sizeof(S));
        return {S{}, address};
    }
    require_host(api, what, address, sizeof(S));
    return {*address, nullptr};
}

struct Operand {
    const char* name;
    const void* address;
    size_t bytes;
};

bool overlap(const Operand& x, const Operand& y) {
    const auto x_start = reinterpret_cast<uintptr_t>(x.address);
    const auto y_start = reinterpret_cast<uintptr_t>(y.address);
    return x.bytes > 0 && y.bytes > 0 && x_start < y_start + y.bytes && y_start < x_start + x.bytes;
}

// Every operand must lie inside one device allocation, and the output must not overlap an
// input: the reference defines no overlap except the in-place forms it names (TRMM with
// C == B, DGMM with C == A), which the callers leave out of `inputs`.
void require_operands(const char* api, const Operand& output,
                      std::initializer_list<Operand> inputs) {
    require_device(api, output.name, output.address, output.bytes);
    for (const Operand& input : inputs) {
        require_device(api, input.name, input.address, input.bytes);
        if (overlap(output, input)) {
            misuse(api, std::string(output.name) + " overlaps " + input.name +
                            ", which the cuBLAS documentation does not allow");
        }
    }
}

template <class T>
Operand matrix(const char* name, const T* address, int64_t rows, int64_t cols, int64_t ld) {
    return {name, address, matrix_bytes(rows, cols, ld, sizeof(T))};
}

// Zeroes the triangle `uplo` of a column-major matrix, or all of it for
// CUBLAS_FILL_MODE_FULL. "If beta == 0, C does not have to be a valid input": the CPU BLAS
// could let NaN there through a multiplication by zero, so C is cleared first.
template <class T>
void clear(T* c, int64_t rows, int64_t cols, int64_t ld, cublasFillMode_t uplo) {
    for (int64_t j = 0; j < cols; ++j) {
        const int64_t first = uplo == CUBLAS_FILL_MODE_LOWER ? std::min(j, rows) : 0;
        const int64_t end = uplo == CUBLAS_FILL_MODE_UPPER ? std::min(j + 1, rows) : rows;
        std::fill(c + j * ld + first, c + j * ld + end, T{});
    }
}

// Enqueues `work` on the handle's stream unless an injected fault fails the launch.
cublasStatus_t launch(const cublasContext& context, std::function<void()> work) {
    if (injected_fault()) return CUBLAS_STATUS_EXECUTION_FAILED;
    enqueue(context.stream, std::move(work));
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t gemm(const char* api, cublasHandle_t handle, cublasOperation_t transa,
                    cublasOperation_t transb, int64_t m, int64_t n, int64_t k, const T* alpha,
                    const T* a, int64_t lda, const T* b, int64_t ldb, const T* beta, T* c,
                    int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const int64_t a_rows = transa == CUBLAS_OP_N ? m : k;
    const int64_t b_rows = transb == CUBLAS_OP_N ? k : n;
    if (m < 0 || n < 0 || k < 0 || !general_op(transa) || !general_op(transb) ||
        lda < at_least_one(a_rows) || ldb < at_least_one(b_rows) || ldc < at_least_one(m) ||
        alpha == nullptr || beta == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<T> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const Scalar<T> beta_value = scalar(api, "beta", context.pointer_mode, beta);
    if (c == nullptr && !beta_value.known_zero()) return CUBLAS_STATUS_INVALID_VALUE;
    require_operands(api, matrix("C", c, m, n, ldc),
                     {matrix("A", a, a_rows, transa == CUBLAS_OP_N ? k : m, lda),
                      matrix("B", b, b_rows, transb == CUBLAS_OP_N ? n : k, ldb)});
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<GemmFn, T>("gemm");
    const char flags[2] = {op_flag(transa), op_flag(transb)};
    const int sizes[6] = {narrow(api, "m", m),     narrow(api, "n", n),
                          narrow(api, "k", k),     narrow(api, "lda", lda),
                          narrow(api, "ldb", ldb), narrow(api, "ldc", ldc)};
    return launch(context, [=] {
        const T alpha = alpha_value.get();
        const T beta = beta_value.get();
        if (is_zero(beta)) clear(c, m, n, ldc, CUBLAS_FILL_MODE_FULL);
        cpu(&flags[0], &flags[1], &sizes[0], &sizes[1], &sizes[2], &alpha, a, &sizes[3], b,
            &sizes[4], &beta, c, &sizes[5], 1, 1);
    });
}

// SYMM and HEMM ("hemm"): A is ka x ka with ka the side's dimension of C.
template <class T>
cublasStatus_t symmetric(const char* api, const char* stem, cublasHandle_t handle,
                         cublasSideMode_t side, cublasFillMode_t uplo, int64_t m, int64_t n,
                         const T* alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
                         const T* beta, T* c, int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    if (m < 0 || n < 0 || !valid_side(side) || !valid_fill(uplo) || lda < at_least_one(ka) ||
        ldb < at_least_one(m) || ldc < at_least_one(m) || alpha == nullptr || beta == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<T> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const Scalar<T> beta_value = scalar(api, "beta", context.pointer_mode, beta);
    if (c == nullptr && !beta_value.known_zero()) return CUBLAS_STATUS_INVALID_VALUE;
    require_operands(api, matrix("C", c, m, n, ldc),
                     {matrix("A", a, ka, ka, lda), matrix("B", b, m, n, ldb)});
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<TwoOperandFn, T>(stem);
    const char flags[2] = {side_flag(side), fill_flag(uplo)};
    const int sizes[5] = {narrow(api, "m", m), narrow(api, "n", n), narrow(api, "lda", lda),
                          narrow(api, "ldb", ldb), narrow(api, "ldc", ldc)};
    return launch(context, [=] {
        const T alpha = alpha_value.get();
        const T beta = beta_value.get();
        if (is_zero(beta)) clear(c, m, n, ldc, CUBLAS_FILL_MODE_FULL);
        cpu(&flags[0], &flags[1], &sizes[0], &sizes[1], &alpha, a, &sizes[2], b, &sizes[3], &beta,
            c, &sizes[4], 1, 1);
    });
}

// The transpose flags of SYRK, SYR2K (op(A) = A or A^T) and HERK, HER2K (A or A^H). Their
// tables of error values do not list CUBLAS_OP_C (symmetric) or CUBLAS_OP_T (Hermitian) as
// invalid, but their op(A) is not defined for it: the emulation refuses it as invalid.
bool rank_op(cublasOperation_t op, cublasOperation_t transposed) {
    return op == CUBLAS_OP_N || op == transposed;
}

// "The imaginary parts of the diagonal elements are assumed and set to zero" (HERK, HER2K),
// also where the CPU BLAS returns early without touching C.
template <class T>
void real_diagonal(T* c, int64_t n, int64_t ldc) {
    if constexpr (kComplex<T>) {
        for (int64_t j = 0; j < n; ++j) c[j * ldc + j].y = 0;
    }
}

// SYRK ("syrk", transposed CUBLAS_OP_T, S = T) and HERK ("herk", CUBLAS_OP_C, S real).
template <class T, class S>
cublasStatus_t rank_k(const char* api, const char* stem, cublasOperation_t transposed,
                      cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,
                      int64_t n, int64_t k, const S* alpha, const T* a, int64_t lda, const S* beta,
                      T* c, int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const int64_t a_rows = trans == CUBLAS_OP_N ? n : k;
    if (n < 0 || k < 0 || !rank_op(trans, transposed) || !valid_fill(uplo) ||
        lda < at_least_one(a_rows) || ldc < at_least_one(n) || alpha == nullptr ||
        beta == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<S> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const Scalar<S> beta_value = scalar(api, "beta", context.pointer_mode, beta);
    if (c == nullptr && !beta_value.known_zero()) return CUBLAS_STATUS_INVALID_VALUE;
    require_operands(api, matrix("C", c, n, n, ldc),
                     {matrix("A", a, a_rows, trans == CUBLAS_OP_N ? k : n, lda)});
    if (n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<RankKFn, T>(stem);
    const bool hermitian = transposed == CUBLAS_OP_C;
    const char flags[2] = {fill_flag(uplo), op_flag(trans)};
    const int sizes[4] = {narrow(api, "n", n), narrow(api, "k", k), narrow(api, "lda", lda),
                          narrow(api, "ldc", ldc)};
    return launch(context, [=] {
        const S alpha = alpha_value.get();
        const S beta = beta_value.get();
        if (is_zero(beta)) clear(c, n, n, ldc, uplo);
        cpu(&flags[0], &flags[1], &sizes[0], &sizes[1], &alpha, a, &sizes[2], &beta, c, &sizes[3],
            1, 1);
        if (hermitian) real_diagonal(c, n, ldc);
    });
}

// SYR2K ("syr2k", CUBLAS_OP_T, B = T) and HER2K ("her2k", CUBLAS_OP_C, beta real). HER2K's
// table omits the ldb check that its parameter B states; the emulation makes it.
template <class T, class B>
cublasStatus_t rank_2k(const char* api, const char* stem, cublasOperation_t transposed,
                       cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,
                       int64_t n, int64_t k, const T* alpha, const T* a, int64_t lda, const T* b,
                       int64_t ldb, const B* beta, T* c, int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const int64_t rows = trans == CUBLAS_OP_N ? n : k;
    const int64_t cols = trans == CUBLAS_OP_N ? k : n;
    if (n < 0 || k < 0 || !rank_op(trans, transposed) || !valid_fill(uplo) ||
        lda < at_least_one(rows) || ldb < at_least_one(rows) || ldc < at_least_one(n) ||
        alpha == nullptr || beta == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<T> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const Scalar<B> beta_value = scalar(api, "beta", context.pointer_mode, beta);
    if (c == nullptr && !beta_value.known_zero()) return CUBLAS_STATUS_INVALID_VALUE;
    require_operands(api, matrix("C", c, n, n, ldc),
                     {matrix("A", a, rows, cols, lda), matrix("B", b, rows, cols, ldb)});
    if (n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<TwoOperandFn, T>(stem);
    const bool hermitian = transposed == CUBLAS_OP_C;
    const char flags[2] = {fill_flag(uplo), op_flag(trans)};
    const int sizes[5] = {narrow(api, "n", n), narrow(api, "k", k), narrow(api, "lda", lda),
                          narrow(api, "ldb", ldb), narrow(api, "ldc", ldc)};
    return launch(context, [=] {
        const T alpha = alpha_value.get();
        const B beta = beta_value.get();
        if (is_zero(beta)) clear(c, n, n, ldc, uplo);
        cpu(&flags[0], &flags[1], &sizes[0], &sizes[1], &alpha, a, &sizes[2], b, &sizes[3], &beta,
            c, &sizes[4], 1, 1);
        if (hermitian) real_diagonal(c, n, ldc);
    });
}

// The checks TRMM and TRSM share; TRMM's table omits diag, which TRSM's lists: both check it.
bool triangular_valid(cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                      cublasDiagType_t diag, int64_t m, int64_t n, int64_t lda, int64_t ldb) {
    const int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    return m >= 0 && n >= 0 && valid_side(side) && valid_fill(uplo) && general_op(trans) &&
           valid_diag(diag) && lda >= at_least_one(ka) && ldb >= at_least_one(m);
}

// TRMM is out of place in cuBLAS: C = alpha op(A) B or alpha B op(A). "The application can
// obtain the in-place functionality of BLAS in the cuBLAS API by passing the address of the
// matrix B in place of the matrix C. No other overlapping in the input parameters is
// supported." In place means the same matrix: C == B with ldc == ldb.
template <class T>
cublasStatus_t trmm(const char* api, cublasHandle_t handle, cublasSideMode_t side,
                    cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag,
                    int64_t m, int64_t n, const T* alpha, const T* a, int64_t lda, const T* b,
                    int64_t ldb, T* c, int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!triangular_valid(side, uplo, trans, diag, m, n, lda, ldb) || ldc < at_least_one(m) ||
        alpha == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<T> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    const bool in_place = c == b && ldc == ldb;
    if (in_place) {
        require_operands(api, matrix("C", c, m, n, ldc), {matrix("A", a, ka, ka, lda)});
    } else {
        require_operands(api, matrix("C", c, m, n, ldc),
                         {matrix("A", a, ka, ka, lda), matrix("B", b, m, n, ldb)});
    }
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<TriangularFn, T>("trmm");
    const char flags[4] = {side_flag(side), fill_flag(uplo), op_flag(trans), diag_flag(diag)};
    const int sizes[4] = {narrow(api, "m", m), narrow(api, "n", n), narrow(api, "lda", lda),
                          narrow(api, "ldc", ldc)};
    return launch(context, [=] {
        const T alpha = alpha_value.get();
        // "If alpha == 0 then A is not referenced and B does not have to be a valid input."
        if (is_zero(alpha)) {
            clear(c, m, n, ldc, CUBLAS_FILL_MODE_FULL);
            return;
        }
        if (!in_place) {
            for (int64_t j = 0; j < n; ++j) std::copy_n(b + j * ldb, m, c + j * ldc);
        }
        cpu(&flags[0], &flags[1], &flags[2], &flags[3], &sizes[0], &sizes[1], &alpha, a, &sizes[2],
            c, &sizes[3], 1, 1, 1, 1);
    });
}

// TRSM: op(A) X = alpha B or X op(A) = alpha B, X overwriting B.
template <class T>
cublasStatus_t trsm(const char* api, cublasHandle_t handle, cublasSideMode_t side,
                    cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag,
                    int64_t m, int64_t n, const T* alpha, const T* a, int64_t lda, T* b,
                    int64_t ldb) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!triangular_valid(side, uplo, trans, diag, m, n, lda, ldb) || alpha == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const Scalar<T> alpha_value = scalar(api, "alpha", context.pointer_mode, alpha);
    const int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    require_operands(api, matrix("B", b, m, n, ldb), {matrix("A", a, ka, ka, lda)});
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    auto* cpu = cpu_blas<TriangularFn, T>("trsm");
    const char flags[4] = {side_flag(side), fill_flag(uplo), op_flag(trans), diag_flag(diag)};
    const int sizes[4] = {narrow(api, "m", m), narrow(api, "n", n), narrow(api, "lda", lda),
                          narrow(api, "ldb", ldb)};
    return launch(context, [=] {
        const T alpha = alpha_value.get();
        // "If alpha == 0 then A is not referenced and B does not have to be a valid input."
        if (is_zero(alpha)) {
            clear(b, m, n, ldb, CUBLAS_FILL_MODE_FULL);
            return;
        }
        cpu(&flags[0], &flags[1], &flags[2], &flags[3], &sizes[0], &sizes[1], &alpha, a, &sizes[2],
            b, &sizes[3], 1, 1, 1, 1);
    });
}

// DGMM: C = A diag(X) (right) or diag(X) A (left), X(j) = x[j * incx] for incx >= 0 and
// x[(len - 1 - j) * |incx|] otherwise. "The operation is out-of-place. The in-place only works
// if lda = ldc": C may be A itself, nothing else that overlaps.
template <class T>
cublasStatus_t dgmm(const char* api, cublasHandle_t handle, cublasSideMode_t mode, int64_t m,
                    int64_t n, const T* a, int64_t lda, const T* x, int64_t incx, T* c,
                    int64_t ldc) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || !valid_side(mode) || lda < at_least_one(m) || ldc < at_least_one(m)) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const int64_t length = mode == CUBLAS_SIDE_LEFT ? m : n;
    const int64_t stride = incx < 0 ? -incx : incx;
    // x is documented as an array of |incx| * length elements; with incx == 0 it is x[0].
    const Operand vector{
        "x", x,
        length == 0 ? 0 : static_cast<size_t>(std::max<int64_t>(stride * length, 1)) * sizeof(T)};
    if (c == a && ldc == lda) {
        require_operands(api, matrix("C", c, m, n, ldc), {vector});
    } else {
        require_operands(api, matrix("C", c, m, n, ldc), {matrix("A", a, m, n, lda), vector});
    }
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    return launch(context, [=] {
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) {
                const int64_t index = mode == CUBLAS_SIDE_LEFT ? i : j;
                const T& scale = x[incx >= 0 ? index * incx : (length - 1 - index) * stride];
                c[j * ldc + i] = times(scale, a[j * lda + i]);
            }
        }
    });
}

// TRTTP (to_packed) and TPTTR: the uplo triangle of the n x n matrix A (lda) to AP, packed
// column by column (n (n + 1) / 2 elements), or back into A's uplo triangle, "the upper
// [lower] part of A is left untouched".
template <class T>
cublasStatus_t packed_copy(const char* api, cublasHandle_t handle, cublasFillMode_t uplo, int n,
                           T* a, int lda, T* ap, bool to_packed) {
    cublasContext context;
    if (!settings(api, handle, &context)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || !valid_fill(uplo) || lda < at_least_one(n)) return CUBLAS_STATUS_INVALID_VALUE;
    const Operand full = matrix("A", a, n, n, lda);
    const Operand packed{"AP", ap,
                         static_cast<size_t>(n) * static_cast<size_t>(n + 1) / 2 * sizeof(T)};
    if (to_packed) {
        require_operands(api, packed, {full});
    } else {
        require_operands(api, full, {packed});
    }
    if (n == 0) return CUBLAS_STATUS_SUCCESS;
    const bool lower = uplo == CUBLAS_FILL_MODE_LOWER;
    return launch(context, [=] {
        int64_t k = 0;
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); ++i, ++k) {
                T& element = a[j * lda + i];
                if (to_packed) {
                    ap[k] = element;
                } else {
                    element = ap[k];
                }
            }
        }
    });
}

}  // namespace
}  // namespace cudasim

// ---- handle ---------------------------------------------------------------------------------

// "CUBLAS_STATUS_INVALID_VALUE: handle == NULL"; without a device, "the CUDA Runtime
// initialization failed" (CUBLAS_STATUS_NOT_INITIALIZED); a failed allocation answers
// CUBLAS_STATUS_ALLOC_FAILED.
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
    if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (cudasim::injected_fault()) return CUBLAS_STATUS_ALLOC_FAILED;
    auto* created = new (std::nothrow) cublasContext;
    if (created == nullptr) return CUBLAS_STATUS_ALLOC_FAILED;
    created->device = cudasim::context_device();
    std::lock_guard lock(cudasim::handles().mutex);
    cudasim::handles().live.insert(created);
    *handle = created;
    return CUBLAS_STATUS_SUCCESS;
}

// "The release of those resources by calling cublasDestroy() will implicitly call
// cudaDeviceSynchronize()": all work enqueued through the handle has run when it returns. The
// documentation lists no status for a failed synchronisation.
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    cublasContext context;
    if (!cudasim::settings("cublasDestroy", handle, &context)) {
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    static_cast<void>(cudaDeviceSynchronize());
    std::lock_guard lock(cudasim::handles().mutex);
    cudasim::handles().live.erase(handle);
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
    cublasContext context;
    if (!cudasim::settings("cublasSetStream", handle, &context)) {
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    cudasim::require_handle_device("cublasSetStream", context.device, stream);
    std::lock_guard lock(cudasim::handles().mutex);
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    cublasContext context;
    if (!cudasim::settings("cublasSetPointerMode", handle, &context)) {
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    std::lock_guard lock(cudasim::handles().mutex);
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

namespace cudasim {
namespace {

struct StatusText {
    cublasStatus_t status;
    const char* name;
    const char* meaning;
};

// The statuses of cublas_api.h, with the meanings the cuBLAS library itself gives them.
constexpr StatusText kStatusTexts[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED",
     "the library was not initialized"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
     "an unsupported value or parameter was passed to the function"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
     "the function requires an architectural feature absent from the device"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR",
     "an access to GPU memory space failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the function failed to launch on the GPU"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED",
     "the requested functionality is not supported"},
    {CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed"},
};

// The documentation gives no text for a value outside cublasStatus_t: only a caller that
// made one up asks, so the emulation stops.
const StatusText& status_text(const char* api, cublasStatus_t status) {
    for (const StatusText& text : kStatusTexts) {
        if (text.status == status) return text;
    }
    misuse(api, std::to_string(static_cast<int>(status)) + " is not a cublasStatus_t");
}

}  // namespace
}  // namespace cudasim

const char* cublasGetStatusName(cublasStatus_t status) {
    return cudasim::status_text("cublasGetStatusName", status).name;
}

const char* cublasGetStatusString(cublasStatus_t status) {
    return cudasim::status_text("cublasGetStatusString", status).meaning;
}

// ---- routines -------------------------------------------------------------------------------

// The entry points of one precision P (S, D, C, Z) with element type T.
#define CUDASIM_CUBLAS_ROUTINES(P, T)                                                             \
    cublasStatus_t cublas##P##gemm_v2_64(                                                         \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,     \
        int64_t n, int64_t k, const T* alpha, const T* A, int64_t lda, const T* B, int64_t ldb,   \
        const T* beta, T* C, int64_t ldc) {                                                       \
        return cudasim::gemm<T>("cublas" #P "gemm_64", handle, transa, transb, m, n, k, alpha, A, \
                                lda, B, ldb, beta, C, ldc);                                       \
    }                                                                                             \
    cublasStatus_t cublas##P##symm_v2_64(cublasHandle_t handle, cublasSideMode_t side,            \
                                         cublasFillMode_t uplo, int64_t m, int64_t n,             \
                                         const T* alpha, const T* A, int64_t lda, const T* B,     \
                                         int64_t ldb, const T* beta, T* C, int64_t ldc) {         \
        return cudasim::symmetric<T>("cublas" #P "symm_64", "symm", handle, side, uplo, m, n,     \
                                     alpha, A, lda, B, ldb, beta, C, ldc);                        \
    }                                                                                             \
    cublasStatus_t cublas##P##syrk_v2_64(                                                         \
        cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int64_t n,         \
        int64_t k, const T* alpha, const T* A, int64_t lda, const T* beta, T* C, int64_t ldc) {   \
        return cudasim::rank_k<T, T>("cublas" #P "syrk_64", "syrk", CUBLAS_OP_T, handle, uplo,    \
                                     trans, n, k, alpha, A, lda, beta, C, ldc);                   \
    }                                                                                             \
    cublasStatus_t cublas##P##syr2k_v2_64(cublasHandle_t handle, cublasFillMode_t uplo,           \
                                          cublasOperation_t trans, int64_t n, int64_t k,          \
                                          const T* alpha, const T* A, int64_t lda, const T* B,    \
                                          int64_t ldb, const T* beta, T* C, int64_t ldc) {        \
        return cudasim::rank_2k<T, T>("cublas" #P "syr2k_64", "syr2k", CUBLAS_OP_T, handle, uplo, \
                                      trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);          \
    }                                                                                             \
    cublasStatus_t cublas##P##trmm_v2_64(                                                         \
        cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,                      \
        cublasOperation_t trans, cublasDiagType_t diag, int64_t m, int64_t n, const T* alpha,     \
        const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc) {                    \
        return cudasim::trmm<T>("cublas" #P "trmm_64", handle, side, uplo, trans, diag, m, n,     \
                                alpha, A, lda, B, ldb, C, ldc);                                   \
    }                                                                                             \
    cublasStatus_t cublas##P##trsm_v2_64(                                                         \
        cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,                      \
        cublasOperation_t trans, cublasDiagType_t diag, int64_t m, int64_t n, const T* alpha,     \
        const T* A, int64_t lda, T* B, int64_t ldb) {                                             \
        return cudasim::trsm<T>("cublas" #P "trsm_64", handle, side, uplo, trans, diag, m, n,     \
                                alpha, A, lda, B, ldb);                                           \
    }                                                                                             \
    cublasStatus_t cublas##P##dgmm_64(cublasHandle_t handle, cublasSideMode_t mode, int64_t m,    \
                                      int64_t n, const T* A, int64_t lda, const T* x,             \
                                      int64_t incx, T* C, int64_t ldc) {                          \
        return cudasim::dgmm<T>("cublas" #P "dgmm_64", handle, mode, m, n, A, lda, x, incx, C,    \
                                ldc);                                                             \
    }                                                                                             \
    cublasStatus_t cublas##P##trttp(cublasHandle_t handle, cublasFillMode_t uplo, int n,          \
                                    const T* A, int lda, T* AP) {                                 \
        return cudasim::packed_copy<T>("cublas" #P "trttp", handle, uplo, n, const_cast<T*>(A),   \
                                       lda, AP, true);                                            \
    }                                                                                             \
    cublasStatus_t cublas##P##tpttr(cublasHandle_t handle, cublasFillMode_t uplo, int n,          \
                                    const T* AP, T* A, int lda) {                                 \
        return cudasim::packed_copy<T>("cublas" #P "tpttr", handle, uplo, n, A, lda,              \
                                       const_cast<T*>(AP), false);                                \
    }

// The Hermitian entry points of one complex precision P with element type T and real type R.
#define CUDASIM_CUBLAS_HERMITIAN_ROUTINES(P, T, R)                                                \
    cublasStatus_t cublas##P##hemm_v2_64(cublasHandle_t handle, cublasSideMode_t side,            \
                                         cublasFillMode_t uplo, int64_t m, int64_t n,             \
                                         const T* alpha, const T* A, int64_t lda, const T* B,     \
                                         int64_t ldb, const T* beta, T* C, int64_t ldc) {         \
        return cudasim::symmetric<T>("cublas" #P "hemm_64", "hemm", handle, side, uplo, m, n,     \
                                     alpha, A, lda, B, ldb, beta, C, ldc);                        \
    }                                                                                             \
    cublasStatus_t cublas##P##herk_v2_64(                                                         \
        cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int64_t n,         \
        int64_t k, const R* alpha, const T* A, int64_t lda, const R* beta, T* C, int64_t ldc) {   \
        return cudasim::rank_k<T, R>("cublas" #P "herk_64", "herk", CUBLAS_OP_C, handle, uplo,    \
                                     trans, n, k, alpha, A, lda, beta, C, ldc);                   \
    }                                                                                             \
    cublasStatus_t cublas##P##her2k_v2_64(cublasHandle_t handle, cublasFillMode_t uplo,           \
                                          cublasOperation_t trans, int64_t n, int64_t k,          \
                                          const T* alpha, const T* A, int64_t lda, const T* B,    \
                                          int64_t ldb, const R* beta, T* C, int64_t ldc) {        \
        return cudasim::rank_2k<T, R>("cublas" #P "her2k_64", "her2k", CUBLAS_OP_C, handle, uplo, \
                                      trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);          \
    }

CUDASIM_CUBLAS_ROUTINES(S, float)
CUDASIM_CUBLAS_ROUTINES(D, double)
CUDASIM_CUBLAS_ROUTINES(C, cuComplex)
CUDASIM_CUBLAS_ROUTINES(Z, cuDoubleComplex)
CUDASIM_CUBLAS_HERMITIAN_ROUTINES(C, cuComplex, float)
CUDASIM_CUBLAS_HERMITIAN_ROUTINES(Z, cuDoubleComplex, double)
