/* blas_prefix_adapter: a benchmark helper, not part of the shim.
 *
 * Exports the standard LP64 Fortran Level-3 BLAS names (sgemm_, dgemm_, ...) and the
 * GETRF and POTRF names as one-instruction trampolines to the same routines under a
 * prefix in another
 * library, by default the scipy_ names of pip SciPy's bundled scipy-openblas
 * (libscipy_openblas-*.so in scipy.libs: LP64, same ABI, only the names differ).
 *
 * Why: NVBLAS needs a CPU BLAS with the standard names (NVBLAS_CPU_BLAS_LIB), and
 * the GPU machine has none unless one is carried there; the Fortran-name GEMM
 * driver (bench/gemm_compare.py --impl fortran) needs one for the shim's CPU
 * fallback too, and `gpushim tune` one to time GEMM, GETRF and POTRF against.
 *
 * Environment (read once, when the library is loaded):
 *   BLAS_PREFIX_ADAPTER_LIB    path of the library that has the prefixed names (required)
 *   BLAS_PREFIX_ADAPTER_PREFIX  the prefix, default "scipy_"
 * A routine that cannot be resolved aborts with a message when called. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// clang-format off
#define ADAPTER_ROUTINES(X)                                                           \
    X(sgemm_) X(ssymm_) X(ssyrk_) X(ssyr2k_) X(strmm_) X(strsm_)                      \
    X(dgemm_) X(dsymm_) X(dsyrk_) X(dsyr2k_) X(dtrmm_) X(dtrsm_)                      \
    X(cgemm_) X(csymm_) X(chemm_) X(csyrk_) X(cherk_) X(csyr2k_) X(cher2k_)           \
    X(ctrmm_) X(ctrsm_)                                                               \
    X(zgemm_) X(zsymm_) X(zhemm_) X(zsyrk_) X(zherk_) X(zsyr2k_) X(zher2k_)           \
    X(ztrmm_) X(ztrsm_)                                                               \
    X(sgetrf_) X(dgetrf_) X(cgetrf_) X(zgetrf_) X(spotrf_) X(dpotrf_) X(cpotrf_)      \
    X(zpotrf_)

#if defined(__x86_64__)
#define TRAMPOLINE_BODY(sym)                                   \
    "  endbr64\n"                                              \
    "  jmp *gpushim_adapter_target_" #sym "(%rip)\n"
#elif defined(__aarch64__)
#define TRAMPOLINE_BODY(sym)                                   \
    "  adrp x16, gpushim_adapter_target_" #sym "\n"            \
    "  ldr x16, [x16, :lo12:gpushim_adapter_target_" #sym "]\n" \
    "  br x16\n"
#else
#error "blas_prefix_adapter: only x86_64 and aarch64 trampolines are written"
#endif
// clang-format on

static void unresolved(void) {
    fputs(
        "blas_prefix_adapter: a BLAS routine was called that BLAS_PREFIX_ADAPTER_LIB "
        "does not provide (see the message printed at load time)\n",
        stderr);
    abort();
}

/* One pointer per routine (hidden, so the trampoline reaches it PC-relative), and
 * the trampoline itself (push/popsection: the compiler must find itself back in the
 * section it was in, or the next pointer lands in .text). */
// clang-format off
#define DEFINE_ROUTINE(sym)                                                          \
    __attribute__((visibility("hidden"), used)) void* gpushim_adapter_target_##sym = \
        (void*)unresolved;                                                           \
    __asm__(".pushsection .text\n"                                                   \
            ".globl " #sym "\n"                                                      \
            ".type " #sym ", %function\n"                                            \
            ".p2align 4\n"                                                           \
            #sym ":\n"                                                               \
            TRAMPOLINE_BODY(sym)                                                     \
            ".size " #sym ", .-" #sym "\n"                                           \
            ".popsection\n");
// clang-format on
ADAPTER_ROUTINES(DEFINE_ROUTINE)

struct adapter_entry {
    const char* name;
    void** target;
};
#define TABLE_ENTRY(sym) {#sym, &gpushim_adapter_target_##sym},
static const struct adapter_entry adapter_table[] = {ADAPTER_ROUTINES(TABLE_ENTRY)};

__attribute__((constructor)) static void adapter_init(void) {
    const char* path = getenv("BLAS_PREFIX_ADAPTER_LIB");
    const char* prefix = getenv("BLAS_PREFIX_ADAPTER_PREFIX");
    if (!prefix) prefix = "scipy_";
    if (!path || !*path) {
        fputs("blas_prefix_adapter: BLAS_PREFIX_ADAPTER_LIB is not set; every routine aborts\n",
              stderr);
        return;
    }
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "blas_prefix_adapter: cannot load %s: %s\n", path, dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof adapter_table / sizeof adapter_table[0]; ++i) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", prefix, adapter_table[i].name);
        void* f = dlsym(lib, name);
        if (f)
            *adapter_table[i].target = f;
        else
            fprintf(stderr, "blas_prefix_adapter: %s has no %s\n", path, name);
    }
}
