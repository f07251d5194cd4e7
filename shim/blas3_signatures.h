// The argument lists of the Level-3 BLAS families, for the Fortran and the CBLAS interface.
// Each family has its parameter list (PARAMS), the names to forward (ARGS), the names
// that describe the call (OP_ARGS, without Fortran's hidden character lengths) and its
// shape (SHAPE: side, m, n, k as multiply_adds takes them, zero where unused).
// CBLAS passes enums as int and complex scalars by address; CblasScalar maps the types.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpushim {

using ccomplex = std::complex<float>;
using zcomplex = std::complex<double>;

template <class S>
using CblasScalar = std::conditional_t<std::is_floating_point_v<S>, S, const void*>;

}  // namespace gpushim

// --- Fortran: every argument by reference, character lengths appended -------------------
#define GPUSHIM_FORTRAN_gemm_PARAMS(T, A, B, I)                                                 \
    const char *transa, const char *transb, const I *m, const I *n, const I *k, const A *alpha, \
        const T *a, const I *lda, const T *b, const I *ldb, const B *beta, T *c, const I *ldc,  \
        std::size_t transa_len, std::size_t transb_len
#define GPUSHIM_FORTRAN_gemm_OP_ARGS transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_FORTRAN_gemm_ARGS GPUSHIM_FORTRAN_gemm_OP_ARGS, transa_len, transb_len
#define GPUSHIM_FORTRAN_gemm_SHAPE 0, *m, *n, *k

#define GPUSHIM_FORTRAN_symm_PARAMS(T, A, B, I)                                                 \
    const char *side, const char *uplo, const I *m, const I *n, const A *alpha, const T *a,     \
        const I *lda, const T *b, const I *ldb, const B *beta, T *c, const I *ldc,              \
        std::size_t side_len, std::size_t uplo_len
#define GPUSHIM_FORTRAN_symm_OP_ARGS side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_FORTRAN_symm_ARGS GPUSHIM_FORTRAN_symm_OP_ARGS, side_len, uplo_len
#define GPUSHIM_FORTRAN_symm_SHAPE gpushim::shim::fortran_flag(side), *m, *n, 0

#define GPUSHIM_FORTRAN_rank_k_PARAMS(T, A, B, I)                                               \
    const char *uplo, const char *trans, const I *n, const I *k, const A *alpha, const T *a,    \
        const I *lda, const B *beta, T *c, const I *ldc, std::size_t uplo_len,                  \
        std::size_t trans_len
#define GPUSHIM_FORTRAN_rank_k_OP_ARGS uplo, trans, n, k, alpha, a, lda, beta, c, ldc
#define GPUSHIM_FORTRAN_rank_k_ARGS GPUSHIM_FORTRAN_rank_k_OP_ARGS, uplo_len, trans_len
#define GPUSHIM_FORTRAN_rank_k_SHAPE 0, 0, *n, *k

#define GPUSHIM_FORTRAN_rank_2k_PARAMS(T, A, B, I)                                              \
    const char *uplo, const char *trans, const I *n, const I *k, const A *alpha, const T *a,    \
        const I *lda, const T *b, const I *ldb, const B *beta, T *c, const I *ldc,              \
        std::size_t uplo_len, std::size_t trans_len
#define GPUSHIM_FORTRAN_rank_2k_OP_ARGS uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_FORTRAN_rank_2k_ARGS GPUSHIM_FORTRAN_rank_2k_OP_ARGS, uplo_len, trans_len
#define GPUSHIM_FORTRAN_rank_2k_SHAPE 0, 0, *n, *k

#define GPUSHIM_FORTRAN_triangular_PARAMS(T, A, B, I)                                           \
    const char *side, const char *uplo, const char *transa, const char *diag, const I *m,       \
        const I *n, const A *alpha, const T *a, const I *lda, T *b, const I *ldb,               \
        std::size_t side_len, std::size_t uplo_len, std::size_t transa_len,                     \
        std::size_t diag_len
#define GPUSHIM_FORTRAN_triangular_OP_ARGS side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb
#define GPUSHIM_FORTRAN_triangular_ARGS \
    GPUSHIM_FORTRAN_triangular_OP_ARGS, side_len, uplo_len, transa_len, diag_len
#define GPUSHIM_FORTRAN_triangular_SHAPE gpushim::shim::fortran_flag(side), *m, *n, 0

// --- CBLAS: a layout first, enums as int, sizes and real scalars by value ----------------
#define GPUSHIM_CBLAS_gemm_PARAMS(T, A, B, I)                                                   \
    int layout, int transa, int transb, I m, I n, I k, gpushim::CblasScalar<A> alpha,           \
        const T *a, I lda, const T *b, I ldb, gpushim::CblasScalar<B> beta, T *c, I ldc
#define GPUSHIM_CBLAS_gemm_ARGS layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_CBLAS_gemm_SHAPE 0, m, n, k

#define GPUSHIM_CBLAS_symm_PARAMS(T, A, B, I)                                                   \
    int layout, int side, int uplo, I m, I n, gpushim::CblasScalar<A> alpha, const T *a, I lda, \
        const T *b, I ldb, gpushim::CblasScalar<B> beta, T *c, I ldc
#define GPUSHIM_CBLAS_symm_ARGS layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_CBLAS_symm_SHAPE gpushim::shim::cblas_side(side), m, n, 0

#define GPUSHIM_CBLAS_rank_k_PARAMS(T, A, B, I)                                                 \
    int layout, int uplo, int trans, I n, I k, gpushim::CblasScalar<A> alpha, const T *a,       \
        I lda, gpushim::CblasScalar<B> beta, T *c, I ldc
#define GPUSHIM_CBLAS_rank_k_ARGS layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc
#define GPUSHIM_CBLAS_rank_k_SHAPE 0, 0, n, k

#define GPUSHIM_CBLAS_rank_2k_PARAMS(T, A, B, I)                                                \
    int layout, int uplo, int trans, I n, I k, gpushim::CblasScalar<A> alpha, const T *a,       \
        I lda, const T *b, I ldb, gpushim::CblasScalar<B> beta, T *c, I ldc
#define GPUSHIM_CBLAS_rank_2k_ARGS layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define GPUSHIM_CBLAS_rank_2k_SHAPE 0, 0, n, k

#define GPUSHIM_CBLAS_triangular_PARAMS(T, A, B, I)                                             \
    int layout, int side, int uplo, int transa, int diag, I m, I n,                             \
        gpushim::CblasScalar<A> alpha, const T *a, I lda, T *b, I ldb
#define GPUSHIM_CBLAS_triangular_ARGS layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb
#define GPUSHIM_CBLAS_triangular_SHAPE gpushim::shim::cblas_side(side), m, n, 0
