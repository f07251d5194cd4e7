/* The LAPACK routines gpushim exports: one row per routine, expanded like the Level-3
 * table (blas3_routines.h), under the Fortran names of every scheme of name_schemes.h.
 *
 * X(name, KIND, family, T, ...)
 *   name    lower-case LAPACK name
 *   KIND    gpushim_lapack_kind without its GPUSHIM_ prefix
 *   family  the argument list (lapack_signatures.h)
 *   T       element type
 *
 * Plain preprocessor text: this file is also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_LAPACK_ROUTINES_H
#define GPUSHIM_SHIM_LAPACK_ROUTINES_H

#define GPUSHIM_FOR_EACH_LAPACK_ROUTINE(X, ...)            \
    X(spotrf, POTRF, potrf, float, __VA_ARGS__)            \
    X(dpotrf, POTRF, potrf, double, __VA_ARGS__)           \
    X(cpotrf, POTRF, potrf, ccomplex, __VA_ARGS__)         \
    X(zpotrf, POTRF, potrf, zcomplex, __VA_ARGS__)         \
    X(sgetrf, GETRF, getrf, float, __VA_ARGS__)            \
    X(dgetrf, GETRF, getrf, double, __VA_ARGS__)           \
    X(cgetrf, GETRF, getrf, ccomplex, __VA_ARGS__)         \
    X(zgetrf, GETRF, getrf, zcomplex, __VA_ARGS__)

#endif
