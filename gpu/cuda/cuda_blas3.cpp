// The 30 Level-3 BLAS routines of the device interface, mapped onto cuBLAS's 64-bit
// API so that dimensions and leading dimensions above 2^31 pass through unchanged.
#include "gpu/cuda/cuda_blas3.h"

#include <cuComplex.h>

#include <string_view>

#include "gpu/cuda/cuda_status.h"

namespace gpushim::cuda {
namespace {

template <typename T>
struct Precision;

template <>
struct Precision<float> {
    static constexpr bool kComplex = false;
    static float scalar(const double (&pair)[2]) { return static_cast<float>(pair[0]); }
    static constexpr auto gemm = cublasSgemm_64;
    static constexpr auto symm = cublasSsymm_64;
    static constexpr auto syrk = cublasSsyrk_64;
    static constexpr auto syr2k = cublasSsyr2k_64;
    static constexpr auto trmm = cublasStrmm_64;
    static constexpr auto trsm = cublasStrsm_64;
};

template <>
struct Precision<double> {
    static constexpr bool kComplex = false;
    static double scalar(const double (&pair)[2]) { return pair[0]; }
    static constexpr auto gemm = cublasDgemm_64;
    static constexpr auto symm = cublasDsymm_64;
    static constexpr auto syrk = cublasDsyrk_64;
    static constexpr auto syr2k = cublasDsyr2k_64;
    static constexpr auto trmm = cublasDtrmm_64;
    static constexpr auto trsm = cublasDtrsm_64;
};

template <>
struct Precision<cuComplex> {
    static constexpr bool kComplex = true;
    using Real = float;
    static cuComplex scalar(const double (&pair)[2]) {
        return make_cuComplex(static_cast<float>(pair[0]), static_cast<float>(pair[1]));
    }
    static constexpr auto gemm = cublasCgemm_64;
    static constexpr auto symm = cublasCsymm_64;
    static constexpr auto syrk = cublasCsyrk_64;
    static constexpr auto syr2k = cublasCsyr2k_64;
    static constexpr auto trmm = cublasCtrmm_64;
    static constexpr auto trsm = cublasCtrsm_64;
    static constexpr auto hemm = cublasChemm_64;
    static constexpr auto herk = cublasCherk_64;
    static constexpr auto her2k = cublasCher2k_64;
};

template <>
struct Precision<cuDoubleComplex> {
    static constexpr bool kComplex = true;
    using Real = double;
    static cuDoubleComplex scalar(const double (&pair)[2]) {
        return make_cuDoubleComplex(pair[0], pair[1]);
    }
    static constexpr auto gemm = cublasZgemm_64;
    static constexpr auto symm = cublasZsymm_64;
    static constexpr auto syrk = cublasZsyrk_64;
    static constexpr auto syr2k = cublasZsyr2k_64;
    static constexpr auto trmm = cublasZtrmm_64;
    static constexpr auto trsm = cublasZtrsm_64;
    static constexpr auto hemm = cublasZhemm_64;
    static constexpr auto herk = cublasZherk_64;
    static constexpr auto her2k = cublasZher2k_64;
};

bool one_of(char flag, std::string_view accepted) {
    return accepted.find(flag) != std::string_view::npos;
}

// Only the flags a routine reads are checked: the others may hold anything.
bool flags_valid(const gpushim_blas3_op& op) {
    const bool trans_valid = one_of(op.transa, "NTC");
    const bool side_valid = one_of(op.side, "LR");
    const bool uplo_valid = one_of(op.uplo, "UL");
    switch (op.kind) {
        case GPUSHIM_GEMM:
            return trans_valid && one_of(op.transb, "NTC");
        case GPUSHIM_SYMM:
        case GPUSHIM_HEMM:
            return side_valid && uplo_valid;
        case GPUSHIM_SYRK:
        case GPUSHIM_HERK:
        case GPUSHIM_SYR2K:
        case GPUSHIM_HER2K:
            return uplo_valid && trans_valid;
        case GPUSHIM_TRMM:
        case GPUSHIM_TRSM:
            return side_valid && uplo_valid && trans_valid && one_of(op.diag, "NU");
    }
    return false;
}

cublasOperation_t operation(char trans, bool complex) {
    if (trans == 'N') return CUBLAS_OP_N;
    // Reference BLAS reads 'C' as 'T' for real matrices; cuBLAS is not asked to.
    return trans == 'T' || !complex ? CUBLAS_OP_T : CUBLAS_OP_C;
}

template <typename T>
int enqueue(const gpushim_blas3_op& op, cublasHandle_t handle) {
    using P = Precision<T>;
    const T alpha = P::scalar(op.alpha);
    const T beta = P::scalar(op.beta);
    const auto* a = static_cast<const T*>(op.a);
    const auto* b = static_cast<const T*>(op.b);
    auto* c = static_cast<T*>(op.c);
    // TRMM and TRSM overwrite B; the interface declares it const because every other
    // routine only reads it.
    auto* b_in_out = static_cast<T*>(const_cast<void*>(op.b));

    // SYRK, SYR2K, HERK, HER2K, TRMM and TRSM take their single transpose flag in transa.
    const cublasOperation_t transa = operation(op.transa, P::kComplex);
    const cublasOperation_t transb = operation(op.transb, P::kComplex);
    const cublasSideMode_t side = op.side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasFillMode_t uplo = op.uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const cublasDiagType_t diag = op.diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;

    switch (op.kind) {
        case GPUSHIM_GEMM:
            return status_from(P::gemm(handle, transa, transb, op.m, op.n, op.k, &alpha, a, op.lda,
                                       b, op.ldb, &beta, c, op.ldc));
        case GPUSHIM_SYMM:
            return status_from(P::symm(handle, side, uplo, op.m, op.n, &alpha, a, op.lda, b, op.ldb,
                                       &beta, c, op.ldc));
        case GPUSHIM_SYRK:
            return status_from(
                P::syrk(handle, uplo, transa, op.n, op.k, &alpha, a, op.lda, &beta, c, op.ldc));
        case GPUSHIM_SYR2K:
            return status_from(P::syr2k(handle, uplo, transa, op.n, op.k, &alpha, a, op.lda, b,
                                        op.ldb, &beta, c, op.ldc));
        case GPUSHIM_TRMM:
            // cuBLAS's TRMM writes its product to C; C == B is its documented way to get
            // BLAS's in-place update.
            return status_from(P::trmm(handle, side, uplo, transa, diag, op.m, op.n, &alpha, a,
                                       op.lda, b_in_out, op.ldb, b_in_out, op.ldb));
        case GPUSHIM_TRSM:
            return status_from(P::trsm(handle, side, uplo, transa, diag, op.m, op.n, &alpha, a,
                                       op.lda, b_in_out, op.ldb));
        case GPUSHIM_HEMM:
            if constexpr (P::kComplex) {
                return status_from(P::hemm(handle, side, uplo, op.m, op.n, &alpha, a, op.lda, b,
                                           op.ldb, &beta, c, op.ldc));
            } else {
                return kInvalidBlasOperation;
            }
        case GPUSHIM_HERK:
            if constexpr (P::kComplex) {
                const auto real_alpha = static_cast<typename P::Real>(op.alpha[0]);
                const auto real_beta = static_cast<typename P::Real>(op.beta[0]);
                return status_from(P::herk(handle, uplo, transa, op.n, op.k, &real_alpha, a, op.lda,
                                           &real_beta, c, op.ldc));
            } else {
                return kInvalidBlasOperation;
            }
        case GPUSHIM_HER2K:
            if constexpr (P::kComplex) {
                const auto real_beta = static_cast<typename P::Real>(op.beta[0]);
                return status_from(P::her2k(handle, uplo, transa, op.n, op.k, &alpha, a, op.lda, b,
                                            op.ldb, &real_beta, c, op.ldc));
            } else {
                return kInvalidBlasOperation;
            }
    }
    return kInvalidBlasOperation;
}

}  // namespace

int enqueue_blas3(const gpushim_blas3_op& op, cublasHandle_t handle) {
    if (!flags_valid(op)) return kInvalidBlasOperation;
    switch (op.precision) {
        case GPUSHIM_PREC_S:
            return enqueue<float>(op, handle);
        case GPUSHIM_PREC_D:
            return enqueue<double>(op, handle);
        case GPUSHIM_PREC_C:
            return enqueue<cuComplex>(op, handle);
        case GPUSHIM_PREC_Z:
            return enqueue<cuDoubleComplex>(op, handle);
    }
    return kInvalidBlasOperation;
}

}  // namespace gpushim::cuda
