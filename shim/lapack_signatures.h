// The argument lists of the LAPACK families (Fortran interface): the parameter list
// (PARAMS), the names to forward (ARGS) and the sizes as the call's description has them
// (SHAPE: m, n, k, nrhs, each the argument of that name or 0 where the family has none;
// tests/unit/check_lapack_shapes.py checks that). A CHARACTER argument brings a hidden
// length at the end, as gfortran passes it. R is the real type of T (w, s, rwork).
#pragma once

#include <cstddef>

#include "fallback/fortran_blas3.h"

namespace gpushim::shim {
template <class T>
using RealPart = typename fallback::RealOf<T>::type;
}  // namespace gpushim::shim

#define GPUSHIM_LAPACK_uplo_square_PARAMS(T, I) \
    const char *uplo, const I *n, T *a, const I *lda, I *info, std::size_t uplo_len
#define GPUSHIM_LAPACK_uplo_square_ARGS uplo, n, a, lda, info, uplo_len
#define GPUSHIM_LAPACK_uplo_square_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_getrf_PARAMS(T, I) const I *m, const I *n, T *a, const I *lda, I *ipiv, I *info
#define GPUSHIM_LAPACK_getrf_ARGS m, n, a, lda, ipiv, info
#define GPUSHIM_LAPACK_getrf_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_getrs_PARAMS(T, I)                                                          \
    const char *trans, const I *n, const I *nrhs, const T *a, const I *lda, const I *ipiv, T *b, \
        const I *ldb, I *info, std::size_t trans_len
#define GPUSHIM_LAPACK_getrs_ARGS trans, n, nrhs, a, lda, ipiv, b, ldb, info, trans_len
#define GPUSHIM_LAPACK_getrs_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_gesv_PARAMS(T, I) \
    const I *n, const I *nrhs, T *a, const I *lda, I *ipiv, T *b, const I *ldb, I *info
#define GPUSHIM_LAPACK_gesv_ARGS n, nrhs, a, lda, ipiv, b, ldb, info
#define GPUSHIM_LAPACK_gesv_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_getri_PARAMS(T, I) \
    const I *n, T *a, const I *lda, const I *ipiv, T *work, const I *lwork, I *info
#define GPUSHIM_LAPACK_getri_ARGS n, a, lda, ipiv, work, lwork, info
#define GPUSHIM_LAPACK_getri_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_sytrf_PARAMS(T, I)                                                        \
    const char *uplo, const I *n, T *a, const I *lda, I *ipiv, T *work, const I *lwork, I *info, \
        std::size_t uplo_len
#define GPUSHIM_LAPACK_sytrf_ARGS uplo, n, a, lda, ipiv, work, lwork, info, uplo_len
#define GPUSHIM_LAPACK_sytrf_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_sytri_PARAMS(T, I)                                              \
    const char *uplo, const I *n, T *a, const I *lda, const I *ipiv, T *work, I *info, \
        std::size_t uplo_len
#define GPUSHIM_LAPACK_sytri_ARGS uplo, n, a, lda, ipiv, work, info, uplo_len
#define GPUSHIM_LAPACK_sytri_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_sytrs_PARAMS(T, I)                                                       \
    const char *uplo, const I *n, const I *nrhs, const T *a, const I *lda, const I *ipiv, T *b, \
        const I *ldb, I *info, std::size_t uplo_len
#define GPUSHIM_LAPACK_sytrs_ARGS uplo, n, nrhs, a, lda, ipiv, b, ldb, info, uplo_len
#define GPUSHIM_LAPACK_sytrs_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_sysv_PARAMS(T, I)                                                          \
    const char *uplo, const I *n, const I *nrhs, T *a, const I *lda, I *ipiv, T *b, const I *ldb, \
        T *work, const I *lwork, I *info, std::size_t uplo_len
#define GPUSHIM_LAPACK_sysv_ARGS uplo, n, nrhs, a, lda, ipiv, b, ldb, work, lwork, info, uplo_len
#define GPUSHIM_LAPACK_sysv_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_uplo_solve_PARAMS(T, I)                                                  \
    const char *uplo, const I *n, const I *nrhs, T *a, const I *lda, T *b, const I *ldb, I *info, \
        std::size_t uplo_len
#define GPUSHIM_LAPACK_uplo_solve_ARGS uplo, n, nrhs, a, lda, b, ldb, info, uplo_len
#define GPUSHIM_LAPACK_uplo_solve_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_trtrs_PARAMS(T, I)                                                          \
    const char *uplo, const char *trans, const char *diag, const I *n, const I *nrhs, const T *a, \
        const I *lda, T *b, const I *ldb, I *info, std::size_t uplo_len, std::size_t trans_len,  \
        std::size_t diag_len
#define GPUSHIM_LAPACK_trtrs_ARGS \
    uplo, trans, diag, n, nrhs, a, lda, b, ldb, info, uplo_len, trans_len, diag_len
#define GPUSHIM_LAPACK_trtrs_SHAPE 0, *n, 0, *nrhs

#define GPUSHIM_LAPACK_trtri_PARAMS(T, I)                                                       \
    const char *uplo, const char *diag, const I *n, T *a, const I *lda, I *info, std::size_t uplo_len, \
        std::size_t diag_len
#define GPUSHIM_LAPACK_trtri_ARGS uplo, diag, n, a, lda, info, uplo_len, diag_len
#define GPUSHIM_LAPACK_trtri_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_geqrf_PARAMS(T, I) \
    const I *m, const I *n, T *a, const I *lda, T *tau, T *work, const I *lwork, I *info
#define GPUSHIM_LAPACK_geqrf_ARGS m, n, a, lda, tau, work, lwork, info
#define GPUSHIM_LAPACK_geqrf_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_orgqr_PARAMS(T, I)                                                    \
    const I *m, const I *n, const I *k, T *a, const I *lda, const T *tau, T *work, const I *lwork, \
        I *info
#define GPUSHIM_LAPACK_orgqr_ARGS m, n, k, a, lda, tau, work, lwork, info
#define GPUSHIM_LAPACK_orgqr_SHAPE *m, *n, *k, 0

#define GPUSHIM_LAPACK_ormqr_PARAMS(T, I)                                                        \
    const char *side, const char *trans, const I *m, const I *n, const I *k, const T *a,        \
        const I *lda, const T *tau, T *c, const I *ldc, T *work, const I *lwork, I *info,      \
        std::size_t side_len, std::size_t trans_len
#define GPUSHIM_LAPACK_ormqr_ARGS \
    side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len, trans_len
#define GPUSHIM_LAPACK_ormqr_SHAPE *m, *n, *k, 0

#define GPUSHIM_LAPACK_syevd_PARAMS(T, I)                                                          \
    const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *w, T *work,           \
        const I *lwork, I *iwork, const I *liwork, I *info, std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_syevd_ARGS \
    jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_syevd_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_heevd_PARAMS(T, I)                                                        \
    const char *jobz, const char *uplo, const I *n, T *a, const I *lda,                         \
        gpushim::shim::RealPart<T> *w, T *work, const I *lwork, gpushim::shim::RealPart<T> *rwork, \
        const I *lrwork, I *iwork, const I *liwork, I *info, std::size_t jobz_len,              \
        std::size_t uplo_len
#define GPUSHIM_LAPACK_heevd_ARGS \
    jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_heevd_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_syev_PARAMS(T, I)                                                       \
    const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *w, T *work,       \
        const I *lwork, I *info, std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_syev_ARGS jobz, uplo, n, a, lda, w, work, lwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_syev_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_heev_PARAMS(T, I)                                                      \
    const char *jobz, const char *uplo, const I *n, T *a, const I *lda,                      \
        gpushim::shim::RealPart<T> *w, T *work, const I *lwork,                              \
        gpushim::shim::RealPart<T> *rwork, I *info, std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_heev_ARGS jobz, uplo, n, a, lda, w, work, lwork, rwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_heev_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_gesvd_PARAMS(T, I)                                                         \
    const char *jobu, const char *jobvt, const I *m, const I *n, T *a, const I *lda, T *s, T *u, \
        const I *ldu, T *vt, const I *ldvt, T *work, const I *lwork, I *info,                    \
        std::size_t jobu_len, std::size_t jobvt_len
#define GPUSHIM_LAPACK_gesvd_ARGS \
    jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, jobu_len, jobvt_len
#define GPUSHIM_LAPACK_gesvd_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_gesvd_complex_PARAMS(T, I)                                                 \
    const char *jobu, const char *jobvt, const I *m, const I *n, T *a, const I *lda,             \
        gpushim::shim::RealPart<T> *s, T *u, const I *ldu, T *vt, const I *ldvt, T *work,       \
        const I *lwork, gpushim::shim::RealPart<T> *rwork, I *info, std::size_t jobu_len,       \
        std::size_t jobvt_len
#define GPUSHIM_LAPACK_gesvd_complex_ARGS \
    jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, jobu_len, jobvt_len
#define GPUSHIM_LAPACK_gesvd_complex_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_gesdd_PARAMS(T, I)                                                         \
    const char *jobz, const I *m, const I *n, T *a, const I *lda, T *s, T *u, const I *ldu, T *vt, \
        const I *ldvt, T *work, const I *lwork, I *iwork, I *info, std::size_t jobz_len
#define GPUSHIM_LAPACK_gesdd_ARGS jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, jobz_len
#define GPUSHIM_LAPACK_gesdd_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_gesdd_complex_PARAMS(T, I)                                                 \
    const char *jobz, const I *m, const I *n, T *a, const I *lda, gpushim::shim::RealPart<T> *s, \
        T *u, const I *ldu, T *vt, const I *ldvt, T *work, const I *lwork,                       \
        gpushim::shim::RealPart<T> *rwork, I *iwork, I *info, std::size_t jobz_len
#define GPUSHIM_LAPACK_gesdd_complex_ARGS \
    jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, jobz_len
#define GPUSHIM_LAPACK_gesdd_complex_SHAPE *m, *n, 0, 0

#define GPUSHIM_LAPACK_syevr_PARAMS(T, I)                                                          \
    const char *jobz, const char *range, const char *uplo, const I *n, T *a, const I *lda,       \
        const T *vl, const T *vu, const I *il, const I *iu, const T *abstol, I *m, T *w, T *z,   \
        const I *ldz, I *isuppz, T *work, const I *lwork, I *iwork, const I *liwork, I *info,    \
        std::size_t jobz_len, std::size_t range_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_syevr_ARGS                                                                  \
    jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork, iwork, \
        liwork, info, jobz_len, range_len, uplo_len
#define GPUSHIM_LAPACK_syevr_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_heevr_PARAMS(T, I)                                                          \
    const char *jobz, const char *range, const char *uplo, const I *n, T *a, const I *lda,       \
        const gpushim::shim::RealPart<T> *vl, const gpushim::shim::RealPart<T> *vu, const I *il, \
        const I *iu, const gpushim::shim::RealPart<T> *abstol, I *m, gpushim::shim::RealPart<T> *w, \
        T *z, const I *ldz, I *isuppz, T *work, const I *lwork, gpushim::shim::RealPart<T> *rwork, \
        const I *lrwork, I *iwork, const I *liwork, I *info, std::size_t jobz_len,               \
        std::size_t range_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_heevr_ARGS                                                                  \
    jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork, rwork, \
        lrwork, iwork, liwork, info, jobz_len, range_len, uplo_len
#define GPUSHIM_LAPACK_heevr_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_sygvd_PARAMS(T, I)                                                          \
    const I *itype, const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *b,    \
        const I *ldb, T *w, T *work, const I *lwork, I *iwork, const I *liwork, I *info,         \
        std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_sygvd_ARGS \
    itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, iwork, liwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_sygvd_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_hegvd_PARAMS(T, I)                                                          \
    const I *itype, const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *b,    \
        const I *ldb, gpushim::shim::RealPart<T> *w, T *work, const I *lwork,                    \
        gpushim::shim::RealPart<T> *rwork, const I *lrwork, I *iwork, const I *liwork, I *info,  \
        std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_hegvd_ARGS                                                                  \
    itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, lrwork, iwork, liwork, info,     \
        jobz_len, uplo_len
#define GPUSHIM_LAPACK_hegvd_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_sygv_PARAMS(T, I)                                                           \
    const I *itype, const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *b,    \
        const I *ldb, T *w, T *work, const I *lwork, I *info, std::size_t jobz_len,              \
        std::size_t uplo_len
#define GPUSHIM_LAPACK_sygv_ARGS \
    itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_sygv_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_hegv_PARAMS(T, I)                                                           \
    const I *itype, const char *jobz, const char *uplo, const I *n, T *a, const I *lda, T *b,    \
        const I *ldb, gpushim::shim::RealPart<T> *w, T *work, const I *lwork,                    \
        gpushim::shim::RealPart<T> *rwork, I *info, std::size_t jobz_len, std::size_t uplo_len
#define GPUSHIM_LAPACK_hegv_ARGS \
    itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, info, jobz_len, uplo_len
#define GPUSHIM_LAPACK_hegv_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_geev_PARAMS(T, I)                                                           \
    const char *jobvl, const char *jobvr, const I *n, T *a, const I *lda, T *wr, T *wi, T *vl,   \
        const I *ldvl, T *vr, const I *ldvr, T *work, const I *lwork, I *info,                   \
        std::size_t jobvl_len, std::size_t jobvr_len
#define GPUSHIM_LAPACK_geev_ARGS \
    jobvl, jobvr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork, info, jobvl_len, jobvr_len
#define GPUSHIM_LAPACK_geev_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_geev_complex_PARAMS(T, I)                                                  \
    const char *jobvl, const char *jobvr, const I *n, T *a, const I *lda, T *w, T *vl,          \
        const I *ldvl, T *vr, const I *ldvr, T *work, const I *lwork,                           \
        gpushim::shim::RealPart<T> *rwork, I *info, std::size_t jobvl_len, std::size_t jobvr_len
#define GPUSHIM_LAPACK_geev_complex_ARGS \
    jobvl, jobvr, n, a, lda, w, vl, ldvl, vr, ldvr, work, lwork, rwork, info, jobvl_len, jobvr_len
#define GPUSHIM_LAPACK_geev_complex_SHAPE 0, *n, 0, 0

#define GPUSHIM_LAPACK_gels_PARAMS(T, I)                                                        \
    const char *trans, const I *m, const I *n, const I *nrhs, T *a, const I *lda, T *b,       \
        const I *ldb, T *work, const I *lwork, I *info, std::size_t trans_len
#define GPUSHIM_LAPACK_gels_ARGS trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, trans_len
#define GPUSHIM_LAPACK_gels_SHAPE *m, *n, 0, *nrhs

#define GPUSHIM_LAPACK_gelsd_PARAMS(T, I)                                                       \
    const I *m, const I *n, const I *nrhs, T *a, const I *lda, T *b, const I *ldb, T *s,       \
        const T *rcond, I *rank, T *work, const I *lwork, I *iwork, I *info
#define GPUSHIM_LAPACK_gelsd_ARGS m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info
#define GPUSHIM_LAPACK_gelsd_SHAPE *m, *n, 0, *nrhs

#define GPUSHIM_LAPACK_gelsd_complex_PARAMS(T, I)                                                 \
    const I *m, const I *n, const I *nrhs, T *a, const I *lda, T *b, const I *ldb,              \
        gpushim::shim::RealPart<T> *s, const gpushim::shim::RealPart<T> *rcond, I *rank, T *work, \
        const I *lwork, gpushim::shim::RealPart<T> *rwork, I *iwork, I *info
#define GPUSHIM_LAPACK_gelsd_complex_ARGS \
    m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info
#define GPUSHIM_LAPACK_gelsd_complex_SHAPE *m, *n, 0, *nrhs
