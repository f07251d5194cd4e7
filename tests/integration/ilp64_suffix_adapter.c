/* Test helper, not part of the shim: a CPU BLAS with the `64_` names.
 *
 * The `64_` scheme (dgemm_64_, cblas_dgemm64_: 64-bit integers) is what OpenBLAS built
 * with INTERFACE64 and SYMBOLSUFFIX=64_ exports (Julia's libopenblas64_). Debian has no
 * such library: its ILP64 OpenBLAS, libopenblas64.so.0 (libopenblas64-0-*), takes 64-bit
 * integers under the *plain* names (dgemm_, cblas_dgemm). This adapter exports the
 * `64_` GEMM names and forwards them to those plain ILP64 names, so that a test program
 * can have a genuine ILP64 CPU BLAS loaded for the shim's `64_` entry points to fall back
 * to. Loaded by name_schemes.c with dlopen(RTLD_LOCAL), like a Python extension loads its
 * BLAS. The library it forwards to: $ILP64_ADAPTER_BLAS, else libopenblas64.so.0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int64_t I;
typedef void (*fgemm_t)(const char*, const char*, const I*, const I*, const I*, const void*,
                        const void*, const I*, const void*, const I*, const void*, void*,
                        const I*, size_t, size_t);
typedef void (*sgemm_c_t)(int, int, int, I, I, I, float, const void*, I, const void*, I, float,
                          void*, I);
typedef void (*dgemm_c_t)(int, int, int, I, I, I, double, const void*, I, const void*, I,
                          double, void*, I);
typedef void (*zgemm_c_t)(int, int, int, I, I, I, const void*, const void*, I, const void*, I,
                          const void*, void*, I);

static void* target(const char* name) {
    static void* lib;
    if (!lib) {
        const char* path = getenv("ILP64_ADAPTER_BLAS");
        lib = dlopen(path && *path ? path : "libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "ilp64_suffix_adapter: %s\n", dlerror());
            abort();
        }
    }
    void* f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "ilp64_suffix_adapter: %s not found\n", name);
        abort();
    }
    return f;
}

#define FORTRAN_GEMM(p)                                                                       \
    void p##gemm_64_(const char* ta, const char* tb, const I* m, const I* n, const I* k,      \
                     const void* alpha, const void* a, const I* lda, const void* b,           \
                     const I* ldb, const void* beta, void* c, const I* ldc, size_t l1,        \
                     size_t l2) {                                                             \
        static fgemm_t f;                                                                     \
        if (!f) f = (fgemm_t)target(#p "gemm_");                                              \
        f(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, l1, l2);                      \
    }
FORTRAN_GEMM(s)
FORTRAN_GEMM(d)
FORTRAN_GEMM(c)
FORTRAN_GEMM(z)

void cblas_sgemm64_(int o, int ta, int tb, I m, I n, I k, float alpha, const void* a, I lda,
                    const void* b, I ldb, float beta, void* c, I ldc) {
    static sgemm_c_t f;
    if (!f) f = (sgemm_c_t)target("cblas_sgemm");
    f(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dgemm64_(int o, int ta, int tb, I m, I n, I k, double alpha, const void* a, I lda,
                    const void* b, I ldb, double beta, void* c, I ldc) {
    static dgemm_c_t f;
    if (!f) f = (dgemm_c_t)target("cblas_dgemm");
    f(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
#define CBLAS_ZGEMM(p)                                                                        \
    void cblas_##p##gemm64_(int o, int ta, int tb, I m, I n, I k, const void* alpha,          \
                            const void* a, I lda, const void* b, I ldb, const void* beta,     \
                            void* c, I ldc) {                                                 \
        static zgemm_c_t f;                                                                   \
        if (!f) f = (zgemm_c_t)target("cblas_" #p "gemm");                                    \
        f(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
    }
CBLAS_ZGEMM(c)
CBLAS_ZGEMM(z)
