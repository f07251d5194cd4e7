/* The LAPACK routines gpushim exports: one row per routine, expanded like the Level-3
 * table (blas3_routines.h), under the Fortran names of every scheme of name_schemes.h.
 *
 * X(name, KIND, family, T, ...)
 *   name    lower-case LAPACK name
 *   KIND    gpushim_lapack_kind without its GPUSHIM_ prefix: what the device computes
 *           (SYEV and SYEVD give the same eigenvalues, as do SYGV and SYGVD; GESDD is
 *           a GESVD with one job)
 *   family  the argument list (lapack_signatures.h), and what the entry does with it
 *   T       element type
 *
 * Plain preprocessor text: this file is also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_LAPACK_ROUTINES_H
#define GPUSHIM_SHIM_LAPACK_ROUTINES_H

#define GPUSHIM_FOR_EACH_LAPACK_ROUTINE(X, ...) \
    X(spotrf, POTRF, uplo_square, float, __VA_ARGS__) \
    X(dpotrf, POTRF, uplo_square, double, __VA_ARGS__) \
    X(cpotrf, POTRF, uplo_square, ccomplex, __VA_ARGS__) \
    X(zpotrf, POTRF, uplo_square, zcomplex, __VA_ARGS__) \
    X(sgetrf, GETRF, getrf, float, __VA_ARGS__) \
    X(dgetrf, GETRF, getrf, double, __VA_ARGS__) \
    X(cgetrf, GETRF, getrf, ccomplex, __VA_ARGS__) \
    X(zgetrf, GETRF, getrf, zcomplex, __VA_ARGS__) \
    X(sgetrs, GETRS, getrs, float, __VA_ARGS__) \
    X(dgetrs, GETRS, getrs, double, __VA_ARGS__) \
    X(cgetrs, GETRS, getrs, ccomplex, __VA_ARGS__) \
    X(zgetrs, GETRS, getrs, zcomplex, __VA_ARGS__) \
    X(sgesv, GESV, gesv, float, __VA_ARGS__) \
    X(dgesv, GESV, gesv, double, __VA_ARGS__) \
    X(cgesv, GESV, gesv, ccomplex, __VA_ARGS__) \
    X(zgesv, GESV, gesv, zcomplex, __VA_ARGS__) \
    X(sgetri, GETRI, getri, float, __VA_ARGS__) \
    X(dgetri, GETRI, getri, double, __VA_ARGS__) \
    X(cgetri, GETRI, getri, ccomplex, __VA_ARGS__) \
    X(zgetri, GETRI, getri, zcomplex, __VA_ARGS__) \
    X(spotrs, POTRS, uplo_solve, float, __VA_ARGS__) \
    X(dpotrs, POTRS, uplo_solve, double, __VA_ARGS__) \
    X(cpotrs, POTRS, uplo_solve, ccomplex, __VA_ARGS__) \
    X(zpotrs, POTRS, uplo_solve, zcomplex, __VA_ARGS__) \
    X(sposv, POSV, uplo_solve, float, __VA_ARGS__) \
    X(dposv, POSV, uplo_solve, double, __VA_ARGS__) \
    X(cposv, POSV, uplo_solve, ccomplex, __VA_ARGS__) \
    X(zposv, POSV, uplo_solve, zcomplex, __VA_ARGS__) \
    X(spotri, POTRI, uplo_square, float, __VA_ARGS__) \
    X(dpotri, POTRI, uplo_square, double, __VA_ARGS__) \
    X(cpotri, POTRI, uplo_square, ccomplex, __VA_ARGS__) \
    X(zpotri, POTRI, uplo_square, zcomplex, __VA_ARGS__) \
    X(ssytrf, SYTRF, sytrf, float, __VA_ARGS__) \
    X(dsytrf, SYTRF, sytrf, double, __VA_ARGS__) \
    X(csytrf, SYTRF, sytrf, ccomplex, __VA_ARGS__) \
    X(zsytrf, SYTRF, sytrf, zcomplex, __VA_ARGS__) \
    X(ssytri, SYTRI, sytri, float, __VA_ARGS__) \
    X(dsytri, SYTRI, sytri, double, __VA_ARGS__) \
    X(csytri, SYTRI, sytri, ccomplex, __VA_ARGS__) \
    X(zsytri, SYTRI, sytri, zcomplex, __VA_ARGS__) \
    X(ssytrs, SYTRS, sytrs, float, __VA_ARGS__) \
    X(dsytrs, SYTRS, sytrs, double, __VA_ARGS__) \
    X(csytrs, SYTRS, sytrs, ccomplex, __VA_ARGS__) \
    X(zsytrs, SYTRS, sytrs, zcomplex, __VA_ARGS__) \
    X(ssysv, SYSV, sysv, float, __VA_ARGS__) \
    X(dsysv, SYSV, sysv, double, __VA_ARGS__) \
    X(csysv, SYSV, sysv, ccomplex, __VA_ARGS__) \
    X(zsysv, SYSV, sysv, zcomplex, __VA_ARGS__) \
    X(strtrs, TRTRS, trtrs, float, __VA_ARGS__) \
    X(dtrtrs, TRTRS, trtrs, double, __VA_ARGS__) \
    X(ctrtrs, TRTRS, trtrs, ccomplex, __VA_ARGS__) \
    X(ztrtrs, TRTRS, trtrs, zcomplex, __VA_ARGS__) \
    X(strtri, TRTRI, trtri, float, __VA_ARGS__) \
    X(dtrtri, TRTRI, trtri, double, __VA_ARGS__) \
    X(ctrtri, TRTRI, trtri, ccomplex, __VA_ARGS__) \
    X(ztrtri, TRTRI, trtri, zcomplex, __VA_ARGS__) \
    X(sgeqrf, GEQRF, geqrf, float, __VA_ARGS__) \
    X(dgeqrf, GEQRF, geqrf, double, __VA_ARGS__) \
    X(cgeqrf, GEQRF, geqrf, ccomplex, __VA_ARGS__) \
    X(zgeqrf, GEQRF, geqrf, zcomplex, __VA_ARGS__) \
    X(sorgqr, ORGQR, orgqr, float, __VA_ARGS__) \
    X(dorgqr, ORGQR, orgqr, double, __VA_ARGS__) \
    X(cungqr, ORGQR, orgqr, ccomplex, __VA_ARGS__) \
    X(zungqr, ORGQR, orgqr, zcomplex, __VA_ARGS__) \
    X(sormqr, ORMQR, ormqr, float, __VA_ARGS__) \
    X(dormqr, ORMQR, ormqr, double, __VA_ARGS__) \
    X(cunmqr, ORMQR, ormqr, ccomplex, __VA_ARGS__) \
    X(zunmqr, ORMQR, ormqr, zcomplex, __VA_ARGS__) \
    X(ssyevd, SYEVD, syevd, float, __VA_ARGS__) \
    X(dsyevd, SYEVD, syevd, double, __VA_ARGS__) \
    X(cheevd, SYEVD, heevd, ccomplex, __VA_ARGS__) \
    X(zheevd, SYEVD, heevd, zcomplex, __VA_ARGS__) \
    X(ssyev, SYEVD, syev, float, __VA_ARGS__) \
    X(dsyev, SYEVD, syev, double, __VA_ARGS__) \
    X(cheev, SYEVD, heev, ccomplex, __VA_ARGS__) \
    X(zheev, SYEVD, heev, zcomplex, __VA_ARGS__) \
    X(sgesvd, GESVD, gesvd, float, __VA_ARGS__) \
    X(dgesvd, GESVD, gesvd, double, __VA_ARGS__) \
    X(cgesvd, GESVD, gesvd_complex, ccomplex, __VA_ARGS__) \
    X(zgesvd, GESVD, gesvd_complex, zcomplex, __VA_ARGS__) \
    X(sgesdd, GESVD, gesdd, float, __VA_ARGS__) \
    X(dgesdd, GESVD, gesdd, double, __VA_ARGS__) \
    X(cgesdd, GESVD, gesdd_complex, ccomplex, __VA_ARGS__) \
    X(zgesdd, GESVD, gesdd_complex, zcomplex, __VA_ARGS__) \
    X(ssyevr, SYEVR, syevr, float, __VA_ARGS__) \
    X(dsyevr, SYEVR, syevr, double, __VA_ARGS__) \
    X(cheevr, SYEVR, heevr, ccomplex, __VA_ARGS__) \
    X(zheevr, SYEVR, heevr, zcomplex, __VA_ARGS__) \
    X(ssygvd, SYGVD, sygvd, float, __VA_ARGS__) \
    X(dsygvd, SYGVD, sygvd, double, __VA_ARGS__) \
    X(chegvd, SYGVD, hegvd, ccomplex, __VA_ARGS__) \
    X(zhegvd, SYGVD, hegvd, zcomplex, __VA_ARGS__) \
    X(ssygv, SYGVD, sygv, float, __VA_ARGS__) \
    X(dsygv, SYGVD, sygv, double, __VA_ARGS__) \
    X(chegv, SYGVD, hegv, ccomplex, __VA_ARGS__) \
    X(zhegv, SYGVD, hegv, zcomplex, __VA_ARGS__) \
    X(sgeev, GEEV, geev, float, __VA_ARGS__) \
    X(dgeev, GEEV, geev, double, __VA_ARGS__) \
    X(cgeev, GEEV, geev_complex, ccomplex, __VA_ARGS__) \
    X(zgeev, GEEV, geev_complex, zcomplex, __VA_ARGS__) \
    X(sgels, GELS, gels, float, __VA_ARGS__) \
    X(dgels, GELS, gels, double, __VA_ARGS__) \
    X(cgels, GELS, gels, ccomplex, __VA_ARGS__) \
    X(zgels, GELS, gels, zcomplex, __VA_ARGS__) \
    X(sgelsd, GELSD, gelsd, float, __VA_ARGS__) \
    X(dgelsd, GELSD, gelsd, double, __VA_ARGS__) \
    X(cgelsd, GELSD, gelsd_complex, ccomplex, __VA_ARGS__) \
    X(zgelsd, GELSD, gelsd_complex, zcomplex, __VA_ARGS__)

#endif
