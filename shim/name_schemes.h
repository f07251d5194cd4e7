/* The symbol name schemes of DESIGN.md ("Symbol names"): one row per scheme.
 *
 * X(fortran_prefix, fortran_suffix, cblas_prefix, cblas_suffix, Int)
 *   Fortran name: fortran_prefix ## routine ## fortran_suffix      e.g. scipy_dgemm_64_
 *   CBLAS name:   cblas_prefix ## routine ## cblas_suffix          e.g. scipy_cblas_dgemm64_
 *   Int:          the integer type of sizes and leading dimensions
 *
 * Plain preprocessor text: this file is also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_NAME_SCHEMES_H
#define GPUSHIM_SHIM_NAME_SCHEMES_H

#define GPUSHIM_FOR_EACH_NAME_SCHEME(X)       \
    X(, _, cblas_, , int32_t)                 \
    X(, _64_, cblas_, 64_, int64_t)           \
    X(scipy_, _64_, scipy_cblas_, 64_, int64_t) \
    X(scipy_, _, scipy_cblas_, , int32_t)

#endif
