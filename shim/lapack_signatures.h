// The argument lists of the LAPACK families (Fortran interface): the parameter list
// (PARAMS), the names to forward (ARGS), and what describes the call (OP_ARGS).
#pragma once

#include <cstddef>

#define GPUSHIM_LAPACK_potrf_PARAMS(T, I) \
    const char *uplo, const I *n, T *a, const I *lda, I *info, std::size_t uplo_len
#define GPUSHIM_LAPACK_potrf_OP_ARGS uplo, n, a, lda
#define GPUSHIM_LAPACK_potrf_ARGS uplo, n, a, lda, info, uplo_len

#define GPUSHIM_LAPACK_getrf_PARAMS(T, I) const I *m, const I *n, T *a, const I *lda, I *ipiv, I *info
#define GPUSHIM_LAPACK_getrf_OP_ARGS m, n, a, lda
#define GPUSHIM_LAPACK_getrf_ARGS m, n, a, lda, ipiv, info
