/* A C program that calls Level-3 BLAS through CBLAS, row-major and column-major.
 *
 * Linked against libgpushim.so and then the CPU BLAS (the relink scenario), run by
 * run_program.py with GPUSHIM_BACKEND=hostsim GPUSHIM_THRESHOLD=0. Each call is checked
 * against naive loops computed in double / double complex on the *logical* matrices, and
 * every byte of the arrays outside what the routine may write (padding beyond the leading
 * dimension's used part, the other triangle of SYRK/HER2K results, the inputs) is checked
 * to be unchanged. Exit status 0 when all checks pass, 1 otherwise. */
#include <cblas.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double complex zd;
enum prec { S, D, C, Z };
static const size_t esize[] = {4, 8, 8, 16};
static const char pname[] = "sdcz";
static const double peps[] = {FLT_EPSILON, DBL_EPSILON, FLT_EPSILON, DBL_EPSILON};

static int nchk, nfail;
/* When set, test_gemm / test_rank_k use beta = 0 and fill C with NaN: BLAS must not read C
 * then (C = alpha op(A) op(B), finite), and neither may the shim or its device. */
static int beta0_nan_c;
static uint64_t seed = 88172645463325252ull;

static double rnd(void) { /* xorshift64, in [-1, 1) */
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

static void verdict(int ok, const char* what) {
    ++nchk;
    if (!ok) {
        ++nfail;
        printf("FAILED: %s\n", what);
    }
}

/* A stored matrix: logical rows x cols, leading dimension ld, in the given layout. */
typedef struct {
    enum prec p;
    enum CBLAS_ORDER order;
    int rows, cols, ld;
    void* data;
    size_t bytes;
} mat;

static size_t idx(const mat* m, int i, int j) {
    return m->order == CblasColMajor ? (size_t)i + (size_t)j * m->ld : (size_t)i * m->ld + j;
}
static zd get(const mat* m, int i, int j) {
    size_t k = idx(m, i, j);
    switch (m->p) {
    case S: return ((float*)m->data)[k];
    case D: return ((double*)m->data)[k];
    case C: return ((float complex*)m->data)[k];
    default: return ((zd*)m->data)[k];
    }
}
static void set(mat* m, int i, int j, zd v) {
    size_t k = idx(m, i, j);
    switch (m->p) {
    case S: ((float*)m->data)[k] = (float)creal(v); break;
    case D: ((double*)m->data)[k] = creal(v); break;
    case C: ((float complex*)m->data)[k] = (float complex)v; break;
    default: ((zd*)m->data)[k] = v; break;
    }
}
/* Random contents everywhere, padding included (so untouched padding can be checked). */
static mat make(enum prec p, enum CBLAS_ORDER o, int rows, int cols, int pad) {
    mat m = {p, o, rows, cols, (o == CblasColMajor ? rows : cols) + pad, NULL, 0};
    if (m.ld < 1) m.ld = 1;
    size_t n = (size_t)m.ld * (size_t)(o == CblasColMajor ? cols : rows);
    if (n == 0) n = 1;
    m.bytes = n * esize[p];
    m.data = malloc(m.bytes);
    for (size_t k = 0; k < n; ++k) {
        zd v = rnd() + ((p == C || p == Z) ? I * rnd() : 0);
        switch (p) {
        case S: ((float*)m.data)[k] = (float)creal(v); break;
        case D: ((double*)m.data)[k] = creal(v); break;
        case C: ((float complex*)m.data)[k] = (float complex)v; break;
        case Z: ((zd*)m.data)[k] = v; break;
        }
    }
    return m;
}
static void nan_fill(mat* m) {
    size_t n = m->bytes / (m->p == S || m->p == C ? sizeof(float) : sizeof(double));
    for (size_t k = 0; k < n; ++k) {
        if (m->p == S || m->p == C) ((float*)m->data)[k] = NAN;
        else ((double*)m->data)[k] = NAN;
    }
}
static void* dup(const mat* m) {
    void* c = malloc(m->bytes);
    memcpy(c, m->data, m->bytes);
    return c;
}
/* Dense logical copy (row-major rows x cols) in double complex. */
static zd* dense(const mat* m) {
    zd* d = malloc(sizeof(zd) * (size_t)(m->rows * m->cols + 1));
    for (int i = 0; i < m->rows; ++i)
        for (int j = 0; j < m->cols; ++j) d[(size_t)i * m->cols + j] = get(m, i, j);
    return d;
}
static zd opget(const zd* x, int cols, enum CBLAS_TRANSPOSE t, int i, int j) {
    if (t == CblasNoTrans) return x[(size_t)i * cols + j];
    zd v = x[(size_t)j * cols + i];
    return t == CblasConjTrans ? conj(v) : v;
}

/* Compare the logical result region where `want_mask` (NULL: all) is set, and require every
 * other byte of the storage to equal `before`. */
static void compare(const char* what, mat* c, const zd* want, const double* scale, double tol,
                    const void* before, const unsigned char* mask) {
    int ok = 1;
    double worst = 0;
    for (int i = 0; i < c->rows; ++i)
        for (int j = 0; j < c->cols; ++j) {
            size_t k = (size_t)i * c->cols + j;
            if (mask && !mask[k]) {
                if (memcmp((char*)c->data + idx(c, i, j) * esize[c->p],
                           (const char*)before + idx(c, i, j) * esize[c->p], esize[c->p]) != 0) {
                    ok = 0;
                    worst = INFINITY;
                }
                continue;
            }
            double err = cabs(get(c, i, j) - want[k]);
            if (!(err <= tol * scale[k] + DBL_MIN)) {
                ok = 0;
                if (err > worst) worst = err;
            }
        }
    /* padding: every element that is not logical must be untouched */
    size_t n = c->bytes / esize[c->p];
    unsigned char* logical = calloc(n, 1);
    for (int i = 0; i < c->rows; ++i)
        for (int j = 0; j < c->cols; ++j) logical[idx(c, i, j)] = 1;
    int pad_ok = 1;
    for (size_t k = 0; k < n; ++k)
        if (!logical[k] && memcmp((char*)c->data + k * esize[c->p],
                                  (const char*)before + k * esize[c->p], esize[c->p]) != 0)
            pad_ok = 0;
    free(logical);
    char buf[256];
    snprintf(buf, sizeof buf, "%s (worst error %.3g)", what, worst);
    verdict(ok, buf);
    snprintf(buf, sizeof buf, "%s: padding untouched", what);
    verdict(pad_ok, buf);
}

static void check_unchanged(const char* what, const mat* m, const void* before) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s: input unchanged", what);
    verdict(memcmp(m->data, before, m->bytes) == 0, buf);
}

static const char* oname(enum CBLAS_ORDER o) { return o == CblasRowMajor ? "row" : "col"; }
static char tname(enum CBLAS_TRANSPOSE t) {
    return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : 'C';
}

/* scalars as the CBLAS API takes them */
typedef struct {
    float s[2];
    double d[2];
} scal;
static scal mk(zd v) {
    scal r = {{(float)creal(v), (float)cimag(v)}, {creal(v), cimag(v)}};
    return r;
}

/* ---- GEMM ------------------------------------------------------------------------------ */
static void test_gemm(enum prec p, enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta,
                      enum CBLAS_TRANSPOSE tb, int m, int n, int k) {
    int cplx = p == C || p == Z;
    zd alpha = cplx ? 0.7 - 0.2 * I : 0.7, beta = cplx ? -1.1 + 0.5 * I : -1.1;
    if (beta0_nan_c) beta = 0;
    mat a = ta == CblasNoTrans ? make(p, o, m, k, 3) : make(p, o, k, m, 2);
    mat b = tb == CblasNoTrans ? make(p, o, k, n, 1) : make(p, o, n, k, 4);
    mat c = make(p, o, m, n, 5);
    if (beta0_nan_c) nan_fill(&c);
    void *a0 = dup(&a), *b0 = dup(&b), *c0 = dup(&c);
    zd *da = dense(&a), *db = dense(&b), *dc = dense(&c);
    zd* want = malloc(sizeof(zd) * (size_t)(m * n + 1));
    double* scale = malloc(sizeof(double) * (size_t)(m * n + 1));
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            zd s = 0;
            double as = 0;
            for (int l = 0; l < k; ++l) {
                zd x = opget(da, a.cols, ta, i, l), y = opget(db, b.cols, tb, l, j);
                s += x * y;
                as += cabs(x) * cabs(y);
            }
            want[i * n + j] = alpha * s + (beta0_nan_c ? 0 : beta * dc[i * n + j]);
            scale[i * n + j] = cabs(alpha) * as + (beta0_nan_c ? 0 : cabs(beta) * cabs(dc[i * n + j]));
        }
    scal al = mk(alpha), be = mk(beta);
    switch (p) {
    case S: cblas_sgemm(o, ta, tb, m, n, k, al.s[0], a.data, a.ld, b.data, b.ld, be.s[0], c.data, c.ld); break;
    case D: cblas_dgemm(o, ta, tb, m, n, k, al.d[0], a.data, a.ld, b.data, b.ld, be.d[0], c.data, c.ld); break;
    case C: cblas_cgemm(o, ta, tb, m, n, k, al.s, a.data, a.ld, b.data, b.ld, be.s, c.data, c.ld); break;
    case Z: cblas_zgemm(o, ta, tb, m, n, k, al.d, a.data, a.ld, b.data, b.ld, be.d, c.data, c.ld); break;
    }
    char what[128];
    snprintf(what, sizeof what, "%cgemm %s %c%c %dx%dx%d", pname[p], oname(o), tname(ta),
             tname(tb), m, n, k);
    compare(what, &c, want, scale, 8.0 * (k + 2) * peps[p], c0, NULL);
    check_unchanged(what, &a, a0);
    check_unchanged(what, &b, b0);
    free(a.data), free(b.data), free(c.data), free(a0), free(b0), free(c0);
    free(da), free(db), free(dc), free(want), free(scale);
}

/* ---- SYMM (d) ---------------------------------------------------------------------------- */
static void test_dsymm(enum CBLAS_ORDER o, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m,
                       int n) {
    int ka = side == CblasLeft ? m : n;
    double alpha = 1.3, beta = 0.25;
    mat a = make(D, o, ka, ka, 2), b = make(D, o, m, n, 1), c = make(D, o, m, n, 3);
    void *a0 = dup(&a), *b0 = dup(&b), *c0 = dup(&c);
    zd *da = dense(&a), *db = dense(&b), *dc = dense(&c);
    /* symmetric matrix from the uplo triangle (row/col of the logical matrix) */
    zd* s = malloc(sizeof(zd) * (size_t)(ka * ka));
    for (int i = 0; i < ka; ++i)
        for (int j = 0; j < ka; ++j) {
            int upper = i <= j;
            zd v = (uplo == CblasUpper) == upper || i == j ? da[i * ka + j] : da[j * ka + i];
            s[i * ka + j] = v;
        }
    zd* want = malloc(sizeof(zd) * (size_t)(m * n));
    double* scale = malloc(sizeof(double) * (size_t)(m * n));
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            zd sum = 0;
            double as = 0;
            for (int l = 0; l < ka; ++l) {
                zd x = side == CblasLeft ? s[i * ka + l] : db[i * n + l];
                zd y = side == CblasLeft ? db[l * n + j] : s[l * ka + j];
                sum += x * y;
                as += cabs(x) * cabs(y);
            }
            want[i * n + j] = alpha * sum + beta * dc[i * n + j];
            scale[i * n + j] = alpha * as + beta * cabs(dc[i * n + j]);
        }
    cblas_dsymm(o, side, uplo, m, n, alpha, a.data, a.ld, b.data, b.ld, beta, c.data, c.ld);
    char what[128];
    snprintf(what, sizeof what, "dsymm %s %c%c %dx%d", oname(o), side == CblasLeft ? 'L' : 'R',
             uplo == CblasUpper ? 'U' : 'L', m, n);
    compare(what, &c, want, scale, 8.0 * (ka + 2) * DBL_EPSILON, c0, NULL);
    check_unchanged(what, &a, a0);
    check_unchanged(what, &b, b0);
    free(a.data), free(b.data), free(c.data), free(a0), free(b0), free(c0);
    free(da), free(db), free(dc), free(s), free(want), free(scale);
}

/* ---- SYRK (d, z) / HER2K (c, z) -------------------------------------------------------- */
static void test_rank_k(enum prec p, int her2k, enum CBLAS_ORDER o, enum CBLAS_UPLO uplo,
                        enum CBLAS_TRANSPOSE t, int n, int k) {
    int cplx = p == C || p == Z;
    zd alpha = cplx ? 0.6 + 0.3 * I : 0.6;
    double rbeta = beta0_nan_c ? 0.0 : 1.4;
    zd beta = her2k ? rbeta : (cplx && !beta0_nan_c ? 1.4 - 0.1 * I : rbeta);
    mat a = t == CblasNoTrans ? make(p, o, n, k, 2) : make(p, o, k, n, 1);
    mat b = t == CblasNoTrans ? make(p, o, n, k, 1) : make(p, o, k, n, 3);
    mat c = make(p, o, n, n, 2);
    if (beta0_nan_c) nan_fill(&c);
    void *a0 = dup(&a), *b0 = dup(&b), *c0 = dup(&c);
    zd *da = dense(&a), *db = dense(&b), *dc = dense(&c);
    zd* want = malloc(sizeof(zd) * (size_t)(n * n));
    double* scale = malloc(sizeof(double) * (size_t)(n * n));
    unsigned char* mask = malloc((size_t)(n * n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            /* op(X) is n x k; syrk: op(A) op(A)^T; her2k: op(A) op(B)^H + conj(alpha) op(B) op(A)^H */
            zd s = 0;
            double as = 0;
            for (int l = 0; l < k; ++l) {
                if (!her2k) {
                    zd x = opget(da, a.cols, t, i, l), y = opget(da, a.cols, t, j, l);
                    s += x * y;
                    as += cabs(x) * cabs(y);
                } else {
                    zd x1 = opget(da, a.cols, t, i, l), y1 = conj(opget(db, b.cols, t, j, l));
                    zd x2 = opget(db, b.cols, t, i, l), y2 = conj(opget(da, a.cols, t, j, l));
                    s += alpha * x1 * y1 + conj(alpha) * x2 * y2;
                    as += cabs(alpha) * (cabs(x1) * cabs(y1) + cabs(x2) * cabs(y2));
                }
            }
            zd cold = dc[i * n + j];
            if (her2k && i == j) cold = creal(cold); /* imaginary part of the diagonal: zero */
            want[i * n + j] = (her2k ? s : alpha * s) + (beta0_nan_c ? 0 : beta * cold);
            scale[i * n + j] = (her2k ? as : cabs(alpha) * as) + (beta0_nan_c ? 0 : cabs(beta) * cabs(cold));
            mask[i * n + j] = uplo == CblasUpper ? i <= j : i >= j;
        }
    scal al = mk(alpha), be = mk(beta);
    const char* name = her2k ? "her2k" : "syrk";
    if (!her2k) {
        switch (p) {
        case S: cblas_ssyrk(o, uplo, t, n, k, al.s[0], a.data, a.ld, be.s[0], c.data, c.ld); break;
        case D: cblas_dsyrk(o, uplo, t, n, k, al.d[0], a.data, a.ld, be.d[0], c.data, c.ld); break;
        case C: cblas_csyrk(o, uplo, t, n, k, al.s, a.data, a.ld, be.s, c.data, c.ld); break;
        case Z: cblas_zsyrk(o, uplo, t, n, k, al.d, a.data, a.ld, be.d, c.data, c.ld); break;
        }
    } else if (p == C) {
        cblas_cher2k(o, uplo, t, n, k, al.s, a.data, a.ld, b.data, b.ld, (float)rbeta, c.data, c.ld);
    } else {
        cblas_zher2k(o, uplo, t, n, k, al.d, a.data, a.ld, b.data, b.ld, rbeta, c.data, c.ld);
    }
    char what[128];
    snprintf(what, sizeof what, "%c%s %s %c%c %dx%d", pname[p], name, oname(o),
             uplo == CblasUpper ? 'U' : 'L', tname(t), n, k);
    compare(what, &c, want, scale, 8.0 * (2 * k + 2) * peps[p], c0, mask);
    if (her2k) { /* imaginary parts of the diagonal are set to zero */
        int ok = 1;
        for (int i = 0; i < n; ++i) ok &= cimag(get(&c, i, i)) == 0;
        char buf[160];
        snprintf(buf, sizeof buf, "%s: diagonal imaginary parts zero", what);
        verdict(ok, buf);
    }
    check_unchanged(what, &a, a0);
    check_unchanged(what, &b, b0);
    free(a.data), free(b.data), free(c.data), free(a0), free(b0), free(c0);
    free(da), free(db), free(dc), free(want), free(scale), free(mask);
}

/* ---- TRSM (d, z) ------------------------------------------------------------------------- */
static void test_trsm(enum prec p, enum CBLAS_ORDER o, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo,
                      enum CBLAS_TRANSPOSE t, enum CBLAS_DIAG diag, int m, int n) {
    int cplx = p == Z;
    int ka = side == CblasLeft ? m : n;
    zd alpha = cplx ? 1.5 + 0.5 * I : 1.5;
    mat a = make(p, o, ka, ka, 1), b = make(p, o, m, n, 2);
    for (int i = 0; i < ka; ++i) /* well conditioned; a unit diagonal must be ignored */
        set(&a, i, i, get(&a, i, i) + (diag == CblasNonUnit ? 3.0 : 1e3));
    void *a0 = dup(&a), *b0 = dup(&b);
    zd *da = dense(&a), *db = dense(&b);
    zd* tri = calloc((size_t)(ka * ka), sizeof(zd));
    for (int i = 0; i < ka; ++i)
        for (int j = 0; j < ka; ++j)
            if (i == j)
                tri[i * ka + j] = diag == CblasUnit ? 1 : da[i * ka + j];
            else if ((uplo == CblasUpper) == (i < j))
                tri[i * ka + j] = da[i * ka + j];
    scal al = mk(alpha);
    if (p == D)
        cblas_dtrsm(o, side, uplo, t, diag, m, n, al.d[0], a.data, a.ld, b.data, b.ld);
    else
        cblas_ztrsm(o, side, uplo, t, diag, m, n, al.d, a.data, a.ld, b.data, b.ld);
    /* residual: op(T) X (or X op(T)) == alpha B */
    zd* x = dense(&b);
    zd* want = malloc(sizeof(zd) * (size_t)(m * n));
    double* scale = malloc(sizeof(double) * (size_t)(m * n));
    mat lhs = make(Z, CblasRowMajor, m, n, 0);
    void* lhs0 = dup(&lhs);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            zd s = 0;
            double as = 0;
            for (int l = 0; l < ka; ++l) {
                zd u = side == CblasLeft ? opget(tri, ka, t, i, l) : x[i * n + l];
                zd v = side == CblasLeft ? x[l * n + j] : opget(tri, ka, t, l, j);
                s += u * v;
                as += cabs(u) * cabs(v);
            }
            set(&lhs, i, j, s);
            want[i * n + j] = alpha * db[i * n + j];
            scale[i * n + j] = as + cabs(want[i * n + j]);
        }
    char what[128];
    snprintf(what, sizeof what, "%ctrsm %s %c%c%c%c %dx%d", pname[p], oname(o),
             side == CblasLeft ? 'L' : 'R', uplo == CblasUpper ? 'U' : 'L', tname(t),
             diag == CblasUnit ? 'U' : 'N', m, n);
    compare(what, &lhs, want, scale, 16.0 * (ka + 2) * peps[p], lhs0, NULL);
    /* B's padding must be untouched: compare B against its old self outside the logical part */
    {
        size_t ne = b.bytes / esize[p];
        unsigned char* logical = calloc(ne, 1);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) logical[idx(&b, i, j)] = 1;
        int ok = 1;
        for (size_t q = 0; q < ne; ++q)
            if (!logical[q] && memcmp((char*)b.data + q * esize[p], (char*)b0 + q * esize[p], esize[p]))
                ok = 0;
        char buf[160];
        snprintf(buf, sizeof buf, "%s: B padding untouched", what);
        verdict(ok, buf);
        free(logical);
    }
    check_unchanged(what, &a, a0);
    free(a.data), free(b.data), free(a0), free(b0), free(da), free(db), free(tri), free(x);
    free(want), free(scale), free(lhs.data), free(lhs0);
}

int main(void) {
    const enum CBLAS_ORDER orders[] = {CblasColMajor, CblasRowMajor};
    const enum CBLAS_TRANSPOSE trs[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
    const enum CBLAS_UPLO uplos[] = {CblasUpper, CblasLower};
    const enum CBLAS_SIDE sides[] = {CblasLeft, CblasRight};
    const enum CBLAS_DIAG diags[] = {CblasNonUnit, CblasUnit};
    for (int oi = 0; oi < 2; ++oi) {
        enum CBLAS_ORDER o = orders[oi];
        for (int p = S; p <= Z; ++p)
            for (int x = 0; x < 3; ++x)
                for (int y = 0; y < 3; ++y) {
                    if ((p == S || p == D) && (x == 2 || y == 2)) continue;
                    test_gemm((enum prec)p, o, trs[x], trs[y], 23, 17, 31);
                }
        test_gemm(D, o, CblasNoTrans, CblasNoTrans, 1, 40, 30);  /* 1 x N */
        test_gemm(D, o, CblasTrans, CblasNoTrans, 40, 1, 30);    /* N x 1 */
        test_gemm(Z, o, CblasNoTrans, CblasTrans, 64, 48, 1);    /* rank 1 */
        test_gemm(D, o, CblasNoTrans, CblasNoTrans, 120, 100, 90);
        for (int s = 0; s < 2; ++s)
            for (int u = 0; u < 2; ++u) test_dsymm(o, sides[s], uplos[u], 21, 16);
        for (int u = 0; u < 2; ++u)
            for (int t = 0; t < 2; ++t) {
                test_rank_k(D, 0, o, uplos[u], trs[t], 25, 18);
                test_rank_k(Z, 0, o, uplos[u], trs[t], 19, 11);
                test_rank_k(S, 0, o, uplos[u], trs[t], 13, 30);
                test_rank_k(Z, 1, o, uplos[u], t ? CblasConjTrans : CblasNoTrans, 22, 9);
                test_rank_k(C, 1, o, uplos[u], t ? CblasConjTrans : CblasNoTrans, 14, 20);
            }
        for (int s = 0; s < 2; ++s)
            for (int u = 0; u < 2; ++u)
                for (int t = 0; t < 3; ++t)
                    for (int d = 0; d < 2; ++d) {
                        if (t < 2) test_trsm(D, o, sides[s], uplos[u], trs[t], diags[d], 19, 14);
                        test_trsm(Z, o, sides[s], uplos[u], trs[t], diags[d], 12, 15);
                    }
    }
    /* beta = 0 with NaN in C: C must not be read */
    beta0_nan_c = 1;
    for (int oi = 0; oi < 2; ++oi)
        for (int p = S; p <= Z; ++p) {
            test_gemm((enum prec)p, orders[oi], CblasNoTrans, CblasTrans, 20, 18, 25);
            if (p == D || p == Z) test_rank_k((enum prec)p, 0, orders[oi], CblasLower, CblasNoTrans, 17, 9);
            if (p == C || p == Z) test_rank_k((enum prec)p, 1, orders[oi], CblasUpper, CblasConjTrans, 15, 12);
        }
    beta0_nan_c = 0;
    printf("%d checks, %d failed\n", nchk, nfail);
    return nfail ? 1 : 0;
}
