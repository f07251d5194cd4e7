/* The Level-3 BLAS routines gpushim exports: one row per routine, expanded by every
 * place that needs the list (entry points, the routine enum, the version script).
 *
 * X(name, KIND, family, T, AlphaT, BetaT, ...)
 *   name    lower-case BLAS name; exported under every scheme of name_schemes.h
 *   KIND    gpushim_blas3_kind without its GPUSHIM_ prefix
 *   family  the argument list shared by routines of one shape (blas3_signatures.h)
 *   T       element type; AlphaT / BetaT the scalar types of the Fortran interface
 *   ...     passed through unchanged, so a caller can expand the table per scheme
 *
 * Plain preprocessor text: this file is also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_BLAS3_ROUTINES_H
#define GPUSHIM_SHIM_BLAS3_ROUTINES_H

#define GPUSHIM_FOR_EACH_BLAS3_ROUTINE(X, ...)                                  \
    X(sgemm, GEMM, gemm, float, float, float, __VA_ARGS__)                      \
    X(dgemm, GEMM, gemm, double, double, double, __VA_ARGS__)                   \
    X(cgemm, GEMM, gemm, ccomplex, ccomplex, ccomplex, __VA_ARGS__)             \
    X(zgemm, GEMM, gemm, zcomplex, zcomplex, zcomplex, __VA_ARGS__)             \
    X(ssymm, SYMM, symm, float, float, float, __VA_ARGS__)                      \
    X(dsymm, SYMM, symm, double, double, double, __VA_ARGS__)                   \
    X(csymm, SYMM, symm, ccomplex, ccomplex, ccomplex, __VA_ARGS__)             \
    X(zsymm, SYMM, symm, zcomplex, zcomplex, zcomplex, __VA_ARGS__)             \
    X(chemm, HEMM, symm, ccomplex, ccomplex, ccomplex, __VA_ARGS__)             \
    X(zhemm, HEMM, symm, zcomplex, zcomplex, zcomplex, __VA_ARGS__)             \
    X(ssyrk, SYRK, rank_k, float, float, float, __VA_ARGS__)                    \
    X(dsyrk, SYRK, rank_k, double, double, double, __VA_ARGS__)                 \
    X(csyrk, SYRK, rank_k, ccomplex, ccomplex, ccomplex, __VA_ARGS__)           \
    X(zsyrk, SYRK, rank_k, zcomplex, zcomplex, zcomplex, __VA_ARGS__)           \
    X(cherk, HERK, rank_k, ccomplex, float, float, __VA_ARGS__)                 \
    X(zherk, HERK, rank_k, zcomplex, double, double, __VA_ARGS__)               \
    X(ssyr2k, SYR2K, rank_2k, float, float, float, __VA_ARGS__)                 \
    X(dsyr2k, SYR2K, rank_2k, double, double, double, __VA_ARGS__)              \
    X(csyr2k, SYR2K, rank_2k, ccomplex, ccomplex, ccomplex, __VA_ARGS__)        \
    X(zsyr2k, SYR2K, rank_2k, zcomplex, zcomplex, zcomplex, __VA_ARGS__)        \
    X(cher2k, HER2K, rank_2k, ccomplex, ccomplex, float, __VA_ARGS__)           \
    X(zher2k, HER2K, rank_2k, zcomplex, zcomplex, double, __VA_ARGS__)          \
    X(strmm, TRMM, triangular, float, float, float, __VA_ARGS__)                \
    X(dtrmm, TRMM, triangular, double, double, double, __VA_ARGS__)             \
    X(ctrmm, TRMM, triangular, ccomplex, ccomplex, ccomplex, __VA_ARGS__)       \
    X(ztrmm, TRMM, triangular, zcomplex, zcomplex, zcomplex, __VA_ARGS__)       \
    X(strsm, TRSM, triangular, float, float, float, __VA_ARGS__)                \
    X(dtrsm, TRSM, triangular, double, double, double, __VA_ARGS__)             \
    X(ctrsm, TRSM, triangular, ccomplex, ccomplex, ccomplex, __VA_ARGS__)       \
    X(ztrsm, TRSM, triangular, zcomplex, zcomplex, zcomplex, __VA_ARGS__)

#endif
