/* Every name scheme of the shim, called the way its real clients call it.
 *
 *   gpushim_name_schemes SCHEME [CPU_BLAS_GLOB]
 *
 * SCHEME    Fortran name       CBLAS name              integers  its CPU BLAS
 * std       dgemm_             cblas_dgemm             32-bit    OpenBLAS (linked)
 * 64        dgemm_64_          cblas_dgemm64_          64-bit    ILP64 OpenBLAS, 64_ names
 * scipy64   scipy_dgemm_64_    scipy_cblas_dgemm64_    64-bit    pip NumPy's scipy-openblas64
 * scipy32   scipy_dgemm_       scipy_cblas_dgemm       32-bit    pip SciPy's scipy-openblas
 *
 * The program links libgpushim.so (so dlsym(RTLD_DEFAULT, name) finds the shim's entry
 * point, which is checked with dladdr), and loads the CPU BLAS of the scheme with
 * dlopen(RTLD_LOCAL) from the first file matching CPU_BLAS_GLOB, as a Python extension
 * does: the shim has to find it among the loaded objects. No match: exit 77 (skip).
 * It calls {s,d,c,z}gemm through the Fortran and the CBLAS name (row- and column-major,
 * transposes), plus calls the shim must hand to the CPU (m = 0, k = 0 with beta != 1),
 * and compares with naive loops. Prints "N checks, M failed"; exit 0 when M = 0. */
#define _GNU_SOURCE
#include <complex.h>
#include <dlfcn.h>
#include <float.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double complex zd;
static int nchk, nfail;
static int wide; /* 64-bit integers */
static char fpre[16], fsuf[8], cpre[16], csuf[8];

static void verdict(int ok, const char* what) {
    ++nchk;
    if (!ok) {
        ++nfail;
        printf("FAILED: %s\n", what);
    }
}

static uint64_t seed = 0x9E3779B97F4A7C15ull;
static double rnd(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

static void* entry(const char* name) {
    void* f = dlsym(RTLD_DEFAULT, name);
    Dl_info info;
    char what[160];
    snprintf(what, sizeof what, "%s is exported by libgpushim.so", name);
    verdict(f && dladdr(f, &info) && info.dli_fname && strstr(info.dli_fname, "libgpushim.so"),
            what);
    if (!f) {
        printf("%s: not found at all\n", name);
        exit(1);
    }
    return f;
}

/* ---- calling conventions ------------------------------------------------------------- */
typedef void (*f32_t)(const char*, const char*, const int32_t*, const int32_t*, const int32_t*,
                      const void*, const void*, const int32_t*, const void*, const int32_t*,
                      const void*, void*, const int32_t*, size_t, size_t);
typedef void (*f64_t)(const char*, const char*, const int64_t*, const int64_t*, const int64_t*,
                      const void*, const void*, const int64_t*, const void*, const int64_t*,
                      const void*, void*, const int64_t*, size_t, size_t);
typedef void (*cs32_t)(int, int, int, int32_t, int32_t, int32_t, float, const void*, int32_t,
                       const void*, int32_t, float, void*, int32_t);
typedef void (*cs64_t)(int, int, int, int64_t, int64_t, int64_t, float, const void*, int64_t,
                       const void*, int64_t, float, void*, int64_t);
typedef void (*cd32_t)(int, int, int, int32_t, int32_t, int32_t, double, const void*, int32_t,
                       const void*, int32_t, double, void*, int32_t);
typedef void (*cd64_t)(int, int, int, int64_t, int64_t, int64_t, double, const void*, int64_t,
                       const void*, int64_t, double, void*, int64_t);
typedef void (*cz32_t)(int, int, int, int32_t, int32_t, int32_t, const void*, const void*,
                       int32_t, const void*, int32_t, const void*, void*, int32_t);
typedef void (*cz64_t)(int, int, int, int64_t, int64_t, int64_t, const void*, const void*,
                       int64_t, const void*, int64_t, const void*, void*, int64_t);

enum { ROW = 101, COL = 102, NOTRANS = 111, TRANS = 112, CONJTRANS = 113 };

static void fortran_gemm(char p, char ta, char tb, int64_t m, int64_t n, int64_t k,
                         const void* alpha, const void* a, int64_t lda, const void* b,
                         int64_t ldb, const void* beta, void* c, int64_t ldc) {
    char name[64];
    snprintf(name, sizeof name, "%s%cgemm%s", fpre, p, fsuf);
    void* f = entry(name);
    if (wide) {
        ((f64_t)f)(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    } else {
        int32_t m4 = (int32_t)m, n4 = (int32_t)n, k4 = (int32_t)k, la = (int32_t)lda,
                lb = (int32_t)ldb, lc = (int32_t)ldc;
        ((f32_t)f)(&ta, &tb, &m4, &n4, &k4, alpha, a, &la, b, &lb, beta, c, &lc, 1, 1);
    }
}

static void cblas_gemm(char p, int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                       const void* alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                       const void* beta, void* c, int64_t ldc) {
    char name[64];
    snprintf(name, sizeof name, "%scblas_%cgemm%s", cpre, p, csuf);
    void* f = entry(name);
    if (p == 's') {
        float al = *(const float*)alpha, be = *(const float*)beta;
        if (wide) ((cs64_t)f)(order, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
        else ((cs32_t)f)(order, ta, tb, (int32_t)m, (int32_t)n, (int32_t)k, al, a, (int32_t)lda,
                         b, (int32_t)ldb, be, c, (int32_t)ldc);
    } else if (p == 'd') {
        double al = *(const double*)alpha, be = *(const double*)beta;
        if (wide) ((cd64_t)f)(order, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
        else ((cd32_t)f)(order, ta, tb, (int32_t)m, (int32_t)n, (int32_t)k, al, a, (int32_t)lda,
                         b, (int32_t)ldb, be, c, (int32_t)ldc);
    } else {
        if (wide) ((cz64_t)f)(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        else ((cz32_t)f)(order, ta, tb, (int32_t)m, (int32_t)n, (int32_t)k, alpha, a,
                         (int32_t)lda, b, (int32_t)ldb, beta, c, (int32_t)ldc);
    }
}

/* ---- matrices of any precision, column- or row-major ---------------------------------- */
static size_t esz(char p) { return p == 's' ? 4 : p == 'd' || p == 'c' ? 8 : 16; }
static zd get(char p, const void* x, size_t i) {
    switch (p) {
    case 's': return ((const float*)x)[i];
    case 'd': return ((const double*)x)[i];
    case 'c': return ((const float complex*)x)[i];
    default: return ((const zd*)x)[i];
    }
}
static void put(char p, void* x, size_t i, zd v) {
    switch (p) {
    case 's': ((float*)x)[i] = (float)creal(v); break;
    case 'd': ((double*)x)[i] = creal(v); break;
    case 'c': ((float complex*)x)[i] = (float complex)v; break;
    default: ((zd*)x)[i] = v; break;
    }
}
static void* randmat(char p, size_t count) {
    void* x = malloc(esz(p) * (count ? count : 1));
    for (size_t i = 0; i < count; ++i)
        put(p, x, i, rnd() + ((p == 'c' || p == 'z') ? I * rnd() : 0));
    return x;
}
static void scalar(char p, zd v, void* out) { put(p, out, 0, v); }
/* element (i, j) of a stored matrix */
static size_t at(int rowmajor, int64_t ld, int64_t i, int64_t j) {
    return rowmajor ? (size_t)(i * ld + j) : (size_t)(i + j * ld);
}
static int tcode(char t) { return t == 'N' ? NOTRANS : t == 'T' ? TRANS : CONJTRANS; }

/* C = alpha op(A) op(B) + beta C, checked against loops; layout 'F' (Fortran name), 'C'
 * (CBLAS column-major), 'R' (CBLAS row-major) */
static void one(char p, char layout, char ta, char tb, int64_t m, int64_t n, int64_t k) {
    int cplx = p == 'c' || p == 'z';
    int rm = layout == 'R';
    zd alpha = cplx ? 0.75 - 0.5 * I : 0.75, beta = cplx ? 0.5 + 0.25 * I : -0.5;
    if (k == 0) beta = 2.0;
    int64_t ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m;
    int64_t br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
    int64_t lda = (rm ? ac : ar) + 2, ldb = (rm ? bc : br) + 1, ldc = (rm ? n : m) + 3;
    size_t na = (size_t)(lda * (rm ? ar : ac)), nb = (size_t)(ldb * (rm ? br : bc));
    size_t nc = (size_t)(ldc * (rm ? m : n));
    void *a = randmat(p, na), *b = randmat(p, nb), *c = randmat(p, nc);
    void* c0 = malloc(esz(p) * (nc ? nc : 1));
    memcpy(c0, c, esz(p) * nc);
    unsigned char al[16], be[16];
    scalar(p, alpha, al);
    scalar(p, beta, be);
    if (layout == 'F')
        fortran_gemm(p, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    else
        cblas_gemm(p, rm ? ROW : COL, tcode(ta), tcode(tb), m, n, k, al, a, lda, b, ldb, be, c,
                   ldc);
    double eps = (p == 's' || p == 'c') ? FLT_EPSILON : DBL_EPSILON;
    int ok = 1, pad_ok = 1;
    double worst = 0;
    unsigned char* logical = calloc(nc ? nc : 1, 1);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            zd s = 0;
            double as = 0;
            for (int64_t l = 0; l < k; ++l) {
                zd x = ta == 'N' ? get(p, a, at(rm, lda, i, l)) : get(p, a, at(rm, lda, l, i));
                zd y = tb == 'N' ? get(p, b, at(rm, ldb, l, j)) : get(p, b, at(rm, ldb, j, l));
                if (ta == 'C') x = conj(x);
                if (tb == 'C') y = conj(y);
                s += x * y;
                as += cabs(x) * cabs(y);
            }
            size_t q = at(rm, ldc, i, j);
            logical[q] = 1;
            zd old = get(p, c0, q);
            zd want = (p == 's' || p == 'c') ? (zd)((float complex)alpha) * s : alpha * s;
            want += beta * old;
            double err = cabs(get(p, c, q) - want);
            double bound = 8.0 * (k + 2) * eps * (cabs(alpha) * as + cabs(beta) * cabs(old));
            if (!(err <= bound + DBL_MIN)) {
                ok = 0;
                if (err > worst) worst = err;
            }
        }
    for (size_t q = 0; q < nc; ++q)
        if (!logical[q] && memcmp((char*)c + q * esz(p), (char*)c0 + q * esz(p), esz(p)))
            pad_ok = 0;
    char what[160];
    snprintf(what, sizeof what, "%cgemm %s %c%c %lldx%lldx%lld (worst error %.3g)", p,
             layout == 'F' ? "fortran" : rm ? "cblas row" : "cblas col", ta, tb, (long long)m,
             (long long)n, (long long)k, worst);
    verdict(ok, what);
    snprintf(what, sizeof what, "%cgemm %c %c%c %lldx%lldx%lld: C outside the result untouched",
             p, layout, ta, tb, (long long)m, (long long)n, (long long)k);
    verdict(pad_ok, what);
    free(a), free(b), free(c), free(c0), free(logical);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s std|64|scipy64|scipy32 [CPU_BLAS_GLOB]\n", argv[0]);
        return 2;
    }
    const char* s = argv[1];
    if (!strcmp(s, "std")) {
        strcpy(fsuf, "_");
    } else if (!strcmp(s, "64")) {
        strcpy(fsuf, "_64_"), strcpy(csuf, "64_"), wide = 1;
    } else if (!strcmp(s, "scipy64")) {
        strcpy(fpre, "scipy_"), strcpy(fsuf, "_64_"), strcpy(cpre, "scipy_");
        strcpy(csuf, "64_"), wide = 1;
    } else if (!strcmp(s, "scipy32")) {
        strcpy(fpre, "scipy_"), strcpy(fsuf, "_"), strcpy(cpre, "scipy_");
    } else {
        fprintf(stderr, "unknown scheme %s\n", s);
        return 2;
    }
    if (argc > 2) {
        glob_t g;
        if (glob(argv[2], 0, NULL, &g) != 0 || g.gl_pathc == 0) {
            printf("SKIP: no CPU BLAS for the %s scheme matches %s\n", s, argv[2]);
            return 77;
        }
        if (!dlopen(g.gl_pathv[0], RTLD_NOW | RTLD_LOCAL)) {
            printf("cannot load %s: %s\n", g.gl_pathv[0], dlerror());
            return 1;
        }
        printf("scheme %s, CPU BLAS %s\n", s, g.gl_pathv[0]);
        globfree(&g);
    }
    const char precs[] = "sdcz";
    for (int pi = 0; pi < 4; ++pi) {
        char p = precs[pi];
        int cplx = p == 'c' || p == 'z';
        char t2 = cplx ? 'C' : 'T';
        one(p, 'F', 'N', 'N', 21, 17, 13);
        one(p, 'F', t2, 'N', 19, 23, 16);
        one(p, 'F', 'T', t2, 12, 9, 30);
        one(p, 'C', 'N', t2, 18, 14, 11);
        one(p, 'R', 'N', 'N', 15, 22, 19);
        one(p, 'R', t2, 'T', 16, 13, 17);
        one(p, 'F', 'N', 'N', 64, 64, 64);
        /* calls the shim hands to the scheme's CPU BLAS (degenerate) */
        one(p, 'F', 'N', 'N', 0, 8, 5);
        one(p, 'F', 'N', 'N', 7, 9, 0);   /* C = beta C */
        one(p, 'R', 'N', 'N', 6, 0, 4);
        one(p, 'R', 'T', 'N', 5, 6, 0);
    }
    printf("%d checks, %d failed\n", nchk, nfail);
    return nfail ? 1 : 0;
}
