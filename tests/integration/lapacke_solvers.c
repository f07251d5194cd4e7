/* A C program that calls LAPACK through LAPACKE (Netlib's C interface, Debian's liblapacke),
 * row-major and column-major, as C and C++ codes do.
 *
 * LAPACKE reaches LAPACK through the Fortran names (its row-major calls transpose into
 * contiguous scratch first; its column-major ones pass the caller's leading dimension), so
 * with the shim linked first or preloaded those calls are the shim's. run_program.py runs it
 * with GPUSHIM_THRESHOLD=0 on the backend under test. Every result is checked by LAPACK's
 * test ratios computed here in double (complex) arithmetic on the logical matrices, not by
 * another LAPACK: ||P A - L U||, ||A X - B||, ||U^H U - A||, ||Q^H Q - I||, ||A - Q R||,
 * ||A V - V W||, ||A - U S V^H||, ||A^H (A X - B)||, each over n eps and the norms it scales
 * with, below the threshold of LAPACK's linear-equation testers, 30; INFO for an exactly
 * singular matrix and for one that is not positive definite is the first failing order,
 * where LAPACK stops; storage that LAPACK does not write (padding, the other triangle, a
 * factor a solve reads) is unchanged to the byte. In row-major calls LAPACKE hands LAPACK a
 * transposed copy, so only the column-major ones test the shim's handling of the storage.
 * Exit status 0 when every check passes. */
#include <complex.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_count.h"

typedef double complex zd;
enum prec { S, D, C, Z };
static const size_t esize[] = {4, 8, 8, 16};
static const char pname[] = "sdcz";
static const double peps[] = {FLT_EPSILON, DBL_EPSILON, FLT_EPSILON, DBL_EPSILON};
static const double threshold = 30.0; /* THRESH of LAPACK's linear-equation testers */

static int is_complex(enum prec p) {
    return p == C || p == Z;
}
static enum prec real_of(enum prec p) {
    return p == C ? S : p == Z ? D : p;
}

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static double rnd(void) { /* xorshift64, in [-1, 1) */
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

static void ratio_below_threshold(double ratio, const char* what) {
    check(ratio < threshold, "%s = %.3g (threshold %.0f)", what, ratio, threshold);
}

/* ---- stored matrices ------------------------------------------------------------------ */
typedef struct {
    enum prec p;
    int layout;
    int rows, cols, ld;
    void* data;
    size_t bytes;
} mat;

static const char* layout_name(int layout) {
    return layout == LAPACK_ROW_MAJOR ? "row" : "col";
}
static size_t idx(const mat* m, int i, int j) {
    return m->layout == LAPACK_COL_MAJOR ? (size_t)i + (size_t)j * m->ld
                                         : (size_t)i * m->ld + (size_t)j;
}
static zd get(const mat* m, int i, int j) {
    size_t k = idx(m, i, j);
    switch (m->p) {
        case S:
            return ((float*)m->data)[k];
        case D:
            return ((double*)m->data)[k];
        case C:
            return ((float complex*)m->data)[k];
        default:
            return ((zd*)m->data)[k];
    }
}
static void set(mat* m, int i, int j, zd v) {
    size_t k = idx(m, i, j);
    switch (m->p) {
        case S:
            ((float*)m->data)[k] = (float)creal(v);
            break;
        case D:
            ((double*)m->data)[k] = creal(v);
            break;
        case C:
            ((float complex*)m->data)[k] = (float complex)v;
            break;
        default:
            ((zd*)m->data)[k] = v;
            break;
    }
}
/* Random contents everywhere, padding beyond the leading dimension's used part included. */
static mat make(enum prec p, int layout, int rows, int cols, int pad) {
    mat m = {p, layout, rows, cols, (layout == LAPACK_COL_MAJOR ? rows : cols) + pad, NULL, 0};
    size_t n = (size_t)m.ld * (size_t)(layout == LAPACK_COL_MAJOR ? cols : rows);
    m.bytes = n * esize[p];
    m.data = malloc(m.bytes);
    for (size_t k = 0; k < n; ++k) {
        unsigned char* e = (unsigned char*)m.data + k * esize[p];
        double re = rnd(), im = is_complex(p) ? rnd() : 0;
        if (p == S || p == C) {
            float v[2] = {(float)re, (float)im};
            memcpy(e, v, esize[p]);
        } else {
            double v[2] = {re, im};
            memcpy(e, v, esize[p]);
        }
    }
    return m;
}
static mat copy_of(const mat* m) {
    mat c = *m;
    c.data = malloc(m->bytes);
    memcpy(c.data, m->data, m->bytes);
    return c;
}
static int same_element(const mat* m, const mat* before, size_t k) {
    return memcmp((const char*)m->data + k * esize[m->p],
                  (const char*)before->data + k * esize[m->p], esize[m->p]) == 0;
}
/* Every stored element outside the logical rows x cols is as it was. */
static void check_padding(const mat* m, const mat* before, const char* name) {
    int inner = m->layout == LAPACK_COL_MAJOR ? m->rows : m->cols;
    size_t n = m->bytes / esize[m->p];
    int ok = 1;
    for (size_t k = 0; k < n; ++k)
        if ((int)(k % (size_t)m->ld) >= inner) ok &= same_element(m, before, k);
    check(ok, "%s: padding beyond the leading dimension's used part changed", name);
}
/* The strict triangle opposite uplo is as it was (LAPACK neither reads nor writes it). */
static void check_other_triangle(const mat* m, const mat* before, char uplo, const char* name) {
    int ok = 1;
    for (int i = 0; i < m->rows; ++i)
        for (int j = 0; j < m->cols; ++j)
            if (uplo == 'U' ? i > j : i < j) ok &= same_element(m, before, idx(m, i, j));
    check(ok, "%s: the triangle opposite uplo = %c changed", name, uplo);
}
static void check_unchanged(const mat* m, const mat* before, const char* name) {
    check(memcmp(m->data, before->data, m->bytes) == 0, "%s changed", name);
}
static void free_mats(mat* list[], int n) {
    for (int k = 0; k < n; ++k) free(list[k]->data);
}

/* ---- dense logical matrices in double complex, row-major ------------------------------ */
static zd* zalloc(int rows, int cols) {
    return calloc((size_t)rows * cols + 1, sizeof(zd));
}
/* The first `rows` rows of a stored matrix. */
static zd* dense_top(const mat* m, int rows) {
    zd* d = zalloc(rows, m->cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < m->cols; ++j) d[(size_t)i * m->cols + j] = get(m, i, j);
    return d;
}
static zd* dense(const mat* m) {
    return dense_top(m, m->rows);
}
static zd* duplicate(const zd* a, int rows, int cols) {
    zd* b = zalloc(rows, cols);
    memcpy(b, a, sizeof(zd) * (size_t)rows * cols);
    return b;
}
static zd* mul(const zd* a, const zd* b, int m, int k, int n) {
    zd* c = zalloc(m, n);
    for (int i = 0; i < m; ++i)
        for (int l = 0; l < k; ++l) {
            zd x = a[(size_t)i * k + l];
            for (int j = 0; j < n; ++j) c[(size_t)i * n + j] += x * b[(size_t)l * n + j];
        }
    return c;
}
static zd* adjoint(const zd* a, int rows, int cols) {
    zd* t = zalloc(cols, rows);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) t[(size_t)j * rows + i] = conj(a[(size_t)i * cols + j]);
    return t;
}
static double norm_inf(const zd* a, int rows, int cols) { /* NaN-propagating */
    double worst = 0;
    for (int i = 0; i < rows; ++i) {
        double s = 0;
        for (int j = 0; j < cols; ++j) s += cabs(a[(size_t)i * cols + j]);
        if (!(s <= worst)) worst = s;
    }
    return worst;
}
static double diff_inf(const zd* a, const zd* b, int rows, int cols) {
    zd* d = zalloc(rows, cols);
    for (size_t k = 0; k < (size_t)rows * cols; ++k) d[k] = a[k] - b[k];
    double r = norm_inf(d, rows, cols);
    free(d);
    return r;
}
/* ||Q^H Q - I|| for a rows x cols Q with orthonormal columns. */
static double orthonormality_error(const zd* q, int rows, int cols) {
    zd* qh = adjoint(q, rows, cols);
    zd* g = mul(qh, q, cols, rows, cols);
    for (int i = 0; i < cols; ++i) g[(size_t)i * cols + i] -= 1;
    double r = norm_inf(g, cols, cols);
    free(qh), free(g);
    return r;
}
static zd* identity(int n) {
    zd* e = zalloc(n, n);
    for (int i = 0; i < n; ++i) e[(size_t)i * n + i] = 1;
    return e;
}
/* A random Hermitian (symmetric when real) matrix, and one that is also positive definite. */
static zd* hermitian(enum prec p, int n) {
    zd* h = zalloc(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            zd v = rnd() + (is_complex(p) && i != j ? I * rnd() : 0);
            h[(size_t)i * n + j] = v;
            h[(size_t)j * n + i] = conj(v);
        }
    return h;
}
static zd* positive_definite(enum prec p, int n) {
    zd* m = zalloc(n, n);
    for (size_t k = 0; k < (size_t)n * n; ++k) m[k] = rnd() + (is_complex(p) ? I * rnd() : 0);
    zd* mh = adjoint(m, n, n);
    zd* h = mul(m, mh, n, n, n);
    for (int i = 0; i < n; ++i) h[(size_t)i * n + i] = creal(h[(size_t)i * n + i]) + n;
    free(m), free(mh);
    return h;
}
/* The uplo triangle of a dense n x n matrix into a stored one (the other stays random). */
static void store_triangle(mat* a, const zd* h, char uplo) {
    for (int i = 0; i < a->rows; ++i)
        for (int j = 0; j < a->cols; ++j)
            if (uplo == 'U' ? i <= j : i >= j) set(a, i, j, h[(size_t)i * a->cols + j]);
}
/* The Hermitian (conj) or symmetric matrix whose uplo triangle a stores. */
static zd* from_triangle(const mat* a, char uplo, int conjugate) {
    int n = a->rows;
    zd* h = zalloc(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            int stored = uplo == 'U' ? i <= j : i >= j;
            zd v = stored ? get(a, i, j) : get(a, j, i);
            h[(size_t)i * n + j] = stored || !conjugate ? v : conj(v);
        }
    return h;
}
/* Real scalars of the precision's real type, read into doubles. */
static double real_at(enum prec p, const void* v, int k) {
    return real_of(p) == S ? ((const float*)v)[k] : ((const double*)v)[k];
}

/* ||A X - B|| / (||A|| ||X|| n eps) for a solve of op(A) X = B: LAPACK's xGET02 ratio times
 * 1/n (xGET02 divides by ||A|| ||X|| eps column by column). */
static void check_solution(enum prec p, const zd* a, int n, const mat* x_stored, const zd* b,
                           int nrhs) {
    zd* x = dense_top(x_stored, n);
    zd* ax = mul(a, x, n, n, nrhs);
    double scale = norm_inf(a, n, n) * norm_inf(x, n, nrhs) * n * peps[p] + DBL_MIN;
    ratio_below_threshold(diff_inf(ax, b, n, nrhs) / scale, "||A X - B|| / (||A|| ||X|| n eps)");
    free(x), free(ax);
}

/* Pivots in LAPACK's range i <= ipiv(i) <= n, and ||P A - L U|| / (n eps ||A||). */
static void check_lu(enum prec p, const mat* factored, const zd* a, const lapack_int* ipiv) {
    int n = factored->rows, in_range = 1;
    for (int i = 0; i < n; ++i) in_range &= ipiv[i] >= i + 1 && ipiv[i] <= n;
    check(in_range, "a pivot outside LAPACK's range i <= ipiv(i) <= n");
    if (!in_range) return;
    zd* pa = duplicate(a, n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            zd t = pa[(size_t)i * n + j];
            pa[(size_t)i * n + j] = pa[(size_t)(ipiv[i] - 1) * n + j];
            pa[(size_t)(ipiv[i] - 1) * n + j] = t;
        }
    zd *f = dense(factored), *l = zalloc(n, n), *u = zalloc(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (i > j)
                l[(size_t)i * n + j] = f[(size_t)i * n + j];
            else
                u[(size_t)i * n + j] = f[(size_t)i * n + j];
            if (i == j) l[(size_t)i * n + j] = 1;
        }
    zd* lu = mul(l, u, n, n, n);
    ratio_below_threshold(diff_inf(pa, lu, n, n) / (n * peps[p] * norm_inf(a, n, n)),
                          "||P A - L U|| / (n eps ||A||)");
    free(pa), free(f), free(l), free(u), free(lu);
}

/* ---- LU: GESV, GETRF + GETRI, an exactly singular matrix ----------------------------- */
static lapack_int call_getrf(mat* a, lapack_int* ipiv) {
    switch (a->p) {
        case S:
            return LAPACKE_sgetrf(a->layout, a->rows, a->cols, a->data, a->ld, ipiv);
        case D:
            return LAPACKE_dgetrf(a->layout, a->rows, a->cols, a->data, a->ld, ipiv);
        case C:
            return LAPACKE_cgetrf(a->layout, a->rows, a->cols, a->data, a->ld, ipiv);
        default:
            return LAPACKE_zgetrf(a->layout, a->rows, a->cols, a->data, a->ld, ipiv);
    }
}
static lapack_int call_gesv(mat* a, lapack_int* ipiv, mat* b) {
    int o = a->layout, n = a->rows, r = b->cols;
    switch (a->p) {
        case S:
            return LAPACKE_sgesv(o, n, r, a->data, a->ld, ipiv, b->data, b->ld);
        case D:
            return LAPACKE_dgesv(o, n, r, a->data, a->ld, ipiv, b->data, b->ld);
        case C:
            return LAPACKE_cgesv(o, n, r, a->data, a->ld, ipiv, b->data, b->ld);
        default:
            return LAPACKE_zgesv(o, n, r, a->data, a->ld, ipiv, b->data, b->ld);
    }
}

static void test_gesv(enum prec p, int layout, int n, int nrhs) {
    snprintf(current, sizeof current, "%cgesv %s n=%d nrhs=%d", pname[p], layout_name(layout), n,
             nrhs);
    mat a = make(p, layout, n, n, 3), b = make(p, layout, n, nrhs, 2);
    mat a0 = copy_of(&a), b0 = copy_of(&b);
    zd *da = dense(&a), *db = dense(&b);
    lapack_int* ipiv = malloc(sizeof *ipiv * (size_t)n);
    lapack_int info = call_gesv(&a, ipiv, &b);
    check(info == 0, "INFO = %d", (int)info);
    check_lu(p, &a, da, ipiv);
    check_solution(p, da, n, &b, db, nrhs);
    check_padding(&a, &a0, "A");
    check_padding(&b, &b0, "B");
    mat* all[] = {&a, &b, &a0, &b0};
    free_mats(all, 4);
    free(da), free(db), free(ipiv);
}

static void test_inverse(enum prec p, int layout, int n) {
    snprintf(current, sizeof current, "%cgetrf+%cgetri %s n=%d", pname[p], pname[p],
             layout_name(layout), n);
    mat a = make(p, layout, n, n, 4);
    mat a0 = copy_of(&a);
    zd* da = dense(&a);
    lapack_int* ipiv = malloc(sizeof *ipiv * (size_t)n);
    lapack_int info = call_getrf(&a, ipiv);
    check(info == 0, "GETRF's INFO = %d", (int)info);
    check_lu(p, &a, da, ipiv);
    switch (p) {
        case S:
            info = LAPACKE_sgetri(layout, n, a.data, a.ld, ipiv);
            break;
        case D:
            info = LAPACKE_dgetri(layout, n, a.data, a.ld, ipiv);
            break;
        case C:
            info = LAPACKE_cgetri(layout, n, a.data, a.ld, ipiv);
            break;
        case Z:
            info = LAPACKE_zgetri(layout, n, a.data, a.ld, ipiv);
            break;
    }
    check(info == 0, "GETRI's INFO = %d", (int)info);
    zd* inv = dense(&a);
    zd *prod = mul(inv, da, n, n, n), *e = identity(n);
    double scale = n * peps[p] * norm_inf(da, n, n) * norm_inf(inv, n, n);
    ratio_below_threshold(diff_inf(prod, e, n, n) / scale,
                          "||inv(A) A - I|| / (n eps ||A|| ||inv(A)||)");
    check_padding(&a, &a0, "A");
    mat* all[] = {&a, &a0};
    free_mats(all, 2);
    free(da), free(ipiv), free(inv), free(prod), free(e);
}

/* Column `zero` of A exactly zero: elimination never makes it nonzero, so U(zero, zero) is
 * LAPACK's first zero pivot and INFO = zero + 1, from GETRF and from GESV alike; GETRF
 * completes the factorization all the same. */
static void test_singular(enum prec p, int layout, int n, int zero) {
    snprintf(current, sizeof current, "%cgetrf/%cgesv %s n=%d, column %d zero", pname[p], pname[p],
             layout_name(layout), n, zero + 1);
    mat a = make(p, layout, n, n, 1), b = make(p, layout, n, 2, 1);
    for (int i = 0; i < n; ++i) set(&a, i, zero, 0);
    mat a_gesv = copy_of(&a);
    zd* da = dense(&a);
    lapack_int* ipiv = malloc(sizeof *ipiv * (size_t)n);
    lapack_int info = call_getrf(&a, ipiv);
    check(info == zero + 1, "GETRF's INFO = %d, LAPACK's is %d", (int)info, zero + 1);
    check_lu(p, &a, da, ipiv);
    info = call_gesv(&a_gesv, ipiv, &b);
    check(info == zero + 1, "GESV's INFO = %d, LAPACK's is %d", (int)info, zero + 1);
    mat* all[] = {&a, &a_gesv, &b};
    free_mats(all, 3);
    free(da), free(ipiv);
}

/* ---- Cholesky: POTRF, POTRS, POTRI; a matrix that is not positive definite ------------ */
static lapack_int call_potrf(mat* a, char uplo) {
    return a->p == D ? LAPACKE_dpotrf(a->layout, uplo, a->rows, a->data, a->ld)
                     : LAPACKE_zpotrf(a->layout, uplo, a->rows, a->data, a->ld);
}

static void test_cholesky(enum prec p, int layout, char uplo, int n, int nrhs) {
    snprintf(current, sizeof current, "%cpotrf+%cpotrs+%cpotri %s uplo=%c n=%d", pname[p], pname[p],
             pname[p], layout_name(layout), uplo, n);
    zd* h = positive_definite(p, n);
    mat a = make(p, layout, n, n, 2);
    store_triangle(&a, h, uplo);
    mat a0 = copy_of(&a);
    lapack_int info = call_potrf(&a, uplo);
    check(info == 0, "POTRF's INFO = %d", (int)info);
    zd* f = dense(&a);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (uplo == 'U' ? i > j : i < j) f[(size_t)i * n + j] = 0;
    zd* fh = adjoint(f, n, n);
    zd* product = uplo == 'U' ? mul(fh, f, n, n, n) : mul(f, fh, n, n, n);
    ratio_below_threshold(
        diff_inf(product, h, n, n) / (n * peps[p] * norm_inf(h, n, n)),
        uplo == 'U' ? "||U^H U - A|| / (n eps ||A||)" : "||L L^H - A|| / (n eps ||A||)");
    check_other_triangle(&a, &a0, uplo, "A");
    check_padding(&a, &a0, "A");

    mat factor = copy_of(&a), b = make(p, layout, n, nrhs, 3);
    zd* db = dense(&b);
    info = p == D ? LAPACKE_dpotrs(layout, uplo, n, nrhs, a.data, a.ld, b.data, b.ld)
                  : LAPACKE_zpotrs(layout, uplo, n, nrhs, a.data, a.ld, b.data, b.ld);
    check(info == 0, "POTRS's INFO = %d", (int)info);
    check_solution(p, h, n, &b, db, nrhs);
    check_unchanged(&a, &factor, "the factor POTRS reads");

    info = p == D ? LAPACKE_dpotri(layout, uplo, n, a.data, a.ld)
                  : LAPACKE_zpotri(layout, uplo, n, a.data, a.ld);
    check(info == 0, "POTRI's INFO = %d", (int)info);
    zd* inv = from_triangle(&a, uplo, 1);
    zd *hinv = mul(h, inv, n, n, n), *e = identity(n);
    double scale = n * peps[p] * norm_inf(h, n, n) * norm_inf(inv, n, n);
    ratio_below_threshold(diff_inf(hinv, e, n, n) / scale,
                          "||A inv(A) - I|| / (n eps ||A|| ||inv(A)||)");
    check_other_triangle(&a, &a0, uplo, "A after POTRI");
    mat* all[] = {&a, &a0, &factor, &b};
    free_mats(all, 4);
    free(h), free(f), free(fh), free(product), free(db), free(inv), free(hinv), free(e);
}

/* A(k, k) = -1 in a matrix whose leading k x k block is positive definite: the Schur
 * complement there is negative, so LAPACK's INFO is k + 1. */
static void test_not_positive_definite(enum prec p, int layout, char uplo, int n, int k) {
    snprintf(current, sizeof current, "%cpotrf %s uplo=%c n=%d, not positive definite at %d",
             pname[p], layout_name(layout), uplo, n, k + 1);
    zd* h = positive_definite(p, n);
    h[(size_t)k * n + k] = -1;
    mat a = make(p, layout, n, n, 1);
    store_triangle(&a, h, uplo);
    mat a0 = copy_of(&a);
    lapack_int info = call_potrf(&a, uplo);
    check(info == k + 1, "INFO = %d, LAPACK's is %d", (int)info, k + 1);
    check_other_triangle(&a, &a0, uplo, "A");
    mat* all[] = {&a, &a0};
    free_mats(all, 2);
    free(h);
}

/* ---- QR: GEQRF, ORMQR/UNMQR with its reflectors, ORGQR/UNGQR ------------------------- */
static void test_qr(enum prec p, int layout, int m, int n, int nrhs) {
    const char* family = p == D ? "dor" : "zun";
    snprintf(current, sizeof current, "%cgeqrf+%smqr+%sgqr %s %dx%d", pname[p], family, family,
             layout_name(layout), m, n);
    mat a = make(p, layout, m, n, 3), c = make(p, layout, m, nrhs, 1);
    mat a0 = copy_of(&a);
    zd *da = dense(&a), *dc = dense(&c);
    void* tau = malloc(esize[p] * (size_t)n);
    lapack_int info = p == D ? LAPACKE_dgeqrf(layout, m, n, a.data, a.ld, tau)
                             : LAPACKE_zgeqrf(layout, m, n, a.data, a.ld, tau);
    check(info == 0, "GEQRF's INFO = %d", (int)info);
    zd* r = dense_top(&a, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) r[(size_t)i * n + j] = 0;
    mat reflectors = copy_of(&a);
    info = p == D ? LAPACKE_dormqr(layout, 'L', 'T', m, nrhs, n, a.data, a.ld, tau, c.data, c.ld)
                  : LAPACKE_zunmqr(layout, 'L', 'C', m, nrhs, n, a.data, a.ld, tau, c.data, c.ld);
    check(info == 0, "ORMQR/UNMQR's INFO = %d", (int)info);
    check_unchanged(&a, &reflectors, "the reflectors ORMQR/UNMQR reads");
    info = p == D ? LAPACKE_dorgqr(layout, m, n, n, a.data, a.ld, tau)
                  : LAPACKE_zungqr(layout, m, n, n, a.data, a.ld, tau);
    check(info == 0, "ORGQR/UNGQR's INFO = %d", (int)info);
    zd* q = dense(&a);
    ratio_below_threshold(orthonormality_error(q, m, n) / (m * peps[p]), "||Q^H Q - I|| / (m eps)");
    zd* qr = mul(q, r, m, n, n);
    ratio_below_threshold(diff_inf(qr, da, m, n) / (m * peps[p] * norm_inf(da, m, n)),
                          "||A - Q R|| / (m eps ||A||)");
    /* Q^H C = H(n)^H ... H(1)^H C from LAPACK's reflectors H(i) = I - tau(i) v v^H, with
     * v(1:i-1) = 0, v(i) = 1 and v(i+1:m) below R's diagonal in column i (all m rows) */
    zd *f = dense(&reflectors), *want = duplicate(dc, m, nrhs), *out = dense(&c);
    for (int i = 0; i < n; ++i) {
        zd t = p == D ? ((double*)tau)[i] : ((zd*)tau)[i];
        for (int j = 0; j < nrhs; ++j) {
            zd dot = want[(size_t)i * nrhs + j];
            for (int r = i + 1; r < m; ++r)
                dot += conj(f[(size_t)r * n + i]) * want[(size_t)r * nrhs + j];
            want[(size_t)i * nrhs + j] -= conj(t) * dot;
            for (int r = i + 1; r < m; ++r)
                want[(size_t)r * nrhs + j] -= conj(t) * dot * f[(size_t)r * n + i];
        }
    }
    ratio_below_threshold(diff_inf(out, want, m, nrhs) / (m * peps[p] * norm_inf(dc, m, nrhs)),
                          "||ORMQR's Q^H C - H(n)^H ... H(1)^H C|| / (m eps ||C||)");
    check_padding(&a, &a0, "A");
    mat* all[] = {&a, &c, &a0, &reflectors};
    free_mats(all, 4);
    free(da), free(dc), free(tau), free(r), free(q), free(qr), free(f), free(want), free(out);
}

/* ---- Hermitian eigenproblems: SYEVD/HEEVD, SYEVR's index range ------------------------ */
static void check_eigenpairs(enum prec p, const zd* h, int n, const zd* v, const double* w,
                             int count) {
    zd* vw = zalloc(n, count);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < count; ++j) vw[(size_t)i * count + j] = v[(size_t)i * count + j] * w[j];
    zd* hv = mul(h, v, n, n, count);
    ratio_below_threshold(diff_inf(hv, vw, n, count) / (n * peps[p] * norm_inf(h, n, n)),
                          "||A V - V W|| / (n eps ||A||)");
    ratio_below_threshold(orthonormality_error(v, n, count) / (n * peps[p]),
                          "||V^H V - I|| / (n eps)");
    int ascending = 1;
    for (int j = 1; j < count; ++j) ascending &= w[j - 1] <= w[j];
    check(ascending, "eigenvalues not in ascending order");
    free(vw), free(hv);
}

static void test_eigh(enum prec p, int layout, char uplo, int n) {
    snprintf(current, sizeof current, "%c%s %s uplo=%c n=%d", pname[p],
             is_complex(p) ? "heevd" : "syevd", layout_name(layout), uplo, n);
    zd* random = hermitian(p, n);
    mat a = make(p, layout, n, n, 2);
    store_triangle(&a, random, uplo);
    zd* h = from_triangle(&a, uplo, 1); /* as stored: rounded to the precision */
    mat a0 = copy_of(&a);
    void* w_stored = malloc(sizeof(double) * (size_t)n);
    lapack_int info = 0;
    switch (p) {
        case S:
            info = LAPACKE_ssyevd(layout, 'V', uplo, n, a.data, a.ld, w_stored);
            break;
        case D:
            info = LAPACKE_dsyevd(layout, 'V', uplo, n, a.data, a.ld, w_stored);
            break;
        case C:
            info = LAPACKE_cheevd(layout, 'V', uplo, n, a.data, a.ld, w_stored);
            break;
        case Z:
            info = LAPACKE_zheevd(layout, 'V', uplo, n, a.data, a.ld, w_stored);
            break;
    }
    check(info == 0, "INFO = %d", (int)info);
    double* w = malloc(sizeof(double) * (size_t)n);
    for (int j = 0; j < n; ++j) w[j] = real_at(p, w_stored, j);
    zd* v = dense(&a);
    check_eigenpairs(p, h, n, v, w, n);
    check_padding(&a, &a0, "A");

    if (p == D) { /* SciPy's default driver, for eigenvalues il..iu of the same matrix */
        int il = n / 4 + 1, iu = n / 2, want = iu - il + 1;
        snprintf(current, sizeof current, "dsyevr %s uplo=%c n=%d, values %d..%d",
                 layout_name(layout), uplo, n, il, iu);
        mat b = copy_of(&a0), zs = make(D, layout, n, want, 1);
        double* wr = malloc(sizeof(double) * (size_t)n);
        lapack_int found = 0, *isuppz = malloc(sizeof *isuppz * 2 * (size_t)n);
        info = LAPACKE_dsyevr(layout, 'V', 'I', uplo, n, b.data, b.ld, 0, 0, il, iu, 0, &found, wr,
                              zs.data, zs.ld, isuppz);
        check(info == 0 && found == want, "INFO = %d, %d values found of %d", (int)info, (int)found,
              want);
        if (info == 0 && found == want) {
            zd* zv = dense(&zs);
            check_eigenpairs(D, h, n, zv, wr, want);
            double worst = 0;
            for (int j = 0; j < want; ++j) worst = fmax(worst, fabs(wr[j] - w[il - 1 + j]));
            ratio_below_threshold(worst / (n * DBL_EPSILON * norm_inf(h, n, n)),
                                  "|w(il:iu) - SYEVD's w(il:iu)| / (n eps ||A||)");
            free(zv);
        }
        mat* all[] = {&b, &zs};
        free_mats(all, 2);
        free(wr), free(isuppz);
    }
    mat* all[] = {&a, &a0};
    free_mats(all, 2);
    free(random), free(h), free(w_stored), free(w), free(v);
}

/* ---- SVD: GESDD, GESVD ---------------------------------------------------------------- */
static lapack_int call_svd(int gesdd, mat* a, void* s, mat* u, mat* vt, void* superb) {
    int o = a->layout, m = a->rows, n = a->cols;
    if (gesdd) switch (a->p) {
            case S:
                return LAPACKE_sgesdd(o, 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                      vt->ld);
            case D:
                return LAPACKE_dgesdd(o, 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                      vt->ld);
            case C:
                return LAPACKE_cgesdd(o, 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                      vt->ld);
            case Z:
                return LAPACKE_zgesdd(o, 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                      vt->ld);
        }
    switch (a->p) {
        case S:
            return LAPACKE_sgesvd(o, 'S', 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                  vt->ld, superb);
        case D:
            return LAPACKE_dgesvd(o, 'S', 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                  vt->ld, superb);
        case C:
            return LAPACKE_cgesvd(o, 'S', 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                  vt->ld, superb);
        default:
            return LAPACKE_zgesvd(o, 'S', 'S', m, n, a->data, a->ld, s, u->data, u->ld, vt->data,
                                  vt->ld, superb);
    }
}

static void test_svd(enum prec p, int gesdd, int layout, int m, int n) {
    int mn = m < n ? m : n, mx = m < n ? n : m;
    snprintf(current, sizeof current, "%c%s %s %dx%d", pname[p], gesdd ? "gesdd" : "gesvd",
             layout_name(layout), m, n);
    mat a = make(p, layout, m, n, 2), u = make(p, layout, m, mn, 1), vt = make(p, layout, mn, n, 3);
    mat u0 = copy_of(&u), vt0 = copy_of(&vt);
    zd* da = dense(&a);
    void *s_stored = malloc(sizeof(double) * (size_t)mn),
         *superb = malloc(sizeof(double) * (size_t)mn);
    lapack_int info = call_svd(gesdd, &a, s_stored, &u, &vt, superb);
    check(info == 0, "INFO = %d", (int)info);
    int ordered = 1;
    double* s = malloc(sizeof(double) * (size_t)mn);
    for (int j = 0; j < mn; ++j) {
        s[j] = real_at(p, s_stored, j);
        ordered &= s[j] >= 0 && (j == 0 || s[j] <= s[j - 1]);
    }
    check(ordered, "singular values not non-negative and descending");
    zd *du = dense(&u), *dvt = dense(&vt);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < mn; ++j) du[(size_t)i * mn + j] *= s[j];
    zd* usv = mul(du, dvt, m, mn, n);
    ratio_below_threshold(diff_inf(usv, da, m, n) / (mx * peps[p] * norm_inf(da, m, n)),
                          "||A - U S V^H|| / (max(m, n) eps ||A||)");
    free(du);
    du = dense(&u);
    ratio_below_threshold(orthonormality_error(du, m, mn) / (m * peps[p]),
                          "||U^H U - I|| / (m eps)");
    zd* v = adjoint(dvt, mn, n);
    ratio_below_threshold(orthonormality_error(v, n, mn) / (n * peps[p]),
                          "||V^H V - I|| / (n eps)");
    check_padding(&u, &u0, "U");
    check_padding(&vt, &vt0, "VT");
    mat* all[] = {&a, &u, &vt, &u0, &vt0};
    free_mats(all, 5);
    free(da), free(s_stored), free(superb), free(s), free(du), free(dvt), free(usv), free(v);
}

/* ---- least squares: GELS, GELSD --------------------------------------------------------- */
/* B is max(m, n) x nrhs; the solution X is its first n rows. For m >= n, the residual is
 * orthogonal to A's columns: ||A^H (A X - B)|| / (max(m, n) eps ||A|| (||A|| ||X|| + ||B||));
 * for m < n, A X = B: ||A X - B|| / (n eps ||A|| ||X||). */
static void check_least_squares(enum prec p, const zd* a, int m, int n, const mat* b_out,
                                const zd* b, int nrhs) {
    zd* x = dense_top(b_out, n);
    zd* ax = mul(a, x, m, n, nrhs);
    int mx = m < n ? n : m;
    if (m < n) {
        ratio_below_threshold(
            diff_inf(ax, b, m, nrhs) / (mx * peps[p] * norm_inf(a, m, n) * norm_inf(x, n, nrhs)),
            "||A X - B|| / (n eps ||A|| ||X||)");
    } else {
        for (size_t k = 0; k < (size_t)m * nrhs; ++k) ax[k] -= b[k];
        zd *ah = adjoint(a, m, n), *g = mul(ah, ax, n, m, nrhs);
        double na = norm_inf(a, m, n);
        double scale = mx * peps[p] * na * (na * norm_inf(x, n, nrhs) + norm_inf(b, m, nrhs));
        ratio_below_threshold(norm_inf(g, n, nrhs) / scale,
                              "||A^H (A X - B)|| / (max(m, n) eps ||A|| (||A|| ||X|| + ||B||))");
        free(ah), free(g);
    }
    free(x), free(ax);
}

/* A whose last column equals its first: the minimum-norm solution gives them equal weight,
 * x(1, :) = x(n, :) (a solution that is not of minimum norm need not). */
static void duplicate_first_column(mat* a) {
    for (int i = 0; i < a->rows; ++i) set(a, i, a->cols - 1, get(a, i, 0));
}
static void check_minimum_norm_split(enum prec p, const mat* b_out, int m, int n, int nrhs) {
    zd* x = dense_top(b_out, n);
    double worst = 0;
    for (int j = 0; j < nrhs; ++j) worst = fmax(worst, cabs(x[j] - x[(size_t)(n - 1) * nrhs + j]));
    int mx = m < n ? n : m;
    ratio_below_threshold(worst / (mx * peps[p] * norm_inf(x, n, nrhs)),
                          "|x(1,:) - x(n,:)| / (max(m, n) eps ||X||), columns 1 and n equal");
    free(x);
}

/* minimum_norm: m < n with A's first and last columns equal. */
static void test_gels(enum prec p, int layout, int m, int n, int nrhs, int minimum_norm) {
    int mx = m < n ? n : m;
    snprintf(current, sizeof current, "%cgels %s %dx%d nrhs=%d", pname[p], layout_name(layout), m,
             n, nrhs);
    mat a = make(p, layout, m, n, 1), b = make(p, layout, mx, nrhs, 2);
    if (minimum_norm) duplicate_first_column(&a);
    mat b0 = copy_of(&b);
    zd *da = dense(&a), *db = dense_top(&b, m);
    lapack_int info = 0;
    switch (p) {
        case S:
            info = LAPACKE_sgels(layout, 'N', m, n, nrhs, a.data, a.ld, b.data, b.ld);
            break;
        case D:
            info = LAPACKE_dgels(layout, 'N', m, n, nrhs, a.data, a.ld, b.data, b.ld);
            break;
        case C:
            info = LAPACKE_cgels(layout, 'N', m, n, nrhs, a.data, a.ld, b.data, b.ld);
            break;
        case Z:
            info = LAPACKE_zgels(layout, 'N', m, n, nrhs, a.data, a.ld, b.data, b.ld);
            break;
    }
    check(info == 0, "INFO = %d", (int)info);
    check_least_squares(p, da, m, n, &b, db, nrhs);
    if (minimum_norm) check_minimum_norm_split(p, &b, m, n, nrhs);
    check_padding(&b, &b0, "B");
    mat* all[] = {&a, &b, &b0};
    free_mats(all, 3);
    free(da), free(db);
}

/* rank_deficient: A's first and last columns equal (rank n - 1), rcond 1e-8. Also checks the
 * singular values: non-negative, descending, their squares summing to ||A||_F^2, and the
 * last at most rcond times the first where A is rank-deficient. */
static void test_gelsd(int layout, int m, int n, int nrhs, int rank_deficient) {
    snprintf(current, sizeof current, "dgelsd %s %dx%d nrhs=%d%s", layout_name(layout), m, n, nrhs,
             rank_deficient ? ", rank n-1" : "");
    int mn = m < n ? m : n, mx = m < n ? n : m;
    double rcond = rank_deficient ? 1e-8 : -1.0;
    mat a = make(D, layout, m, n, 2), b = make(D, layout, mx, nrhs, 1);
    if (rank_deficient) duplicate_first_column(&a);
    zd *da = dense(&a), *db = dense_top(&b, m);
    double* s = malloc(sizeof(double) * (size_t)mn);
    lapack_int rank = -1;
    lapack_int info =
        LAPACKE_dgelsd(layout, m, n, nrhs, a.data, a.ld, b.data, b.ld, s, rcond, &rank);
    check(info == 0 && rank == mn - rank_deficient, "INFO = %d, rank %d (want %d)", (int)info,
          (int)rank, mn - rank_deficient);
    check_least_squares(D, da, m, n, &b, db, nrhs);
    if (rank_deficient) check_minimum_norm_split(D, &b, m, n, nrhs);
    int ordered = 1;
    double squares = 0, frobenius = 0;
    for (int j = 0; j < mn; ++j) {
        ordered &= s[j] >= 0 && (j == 0 || s[j] <= s[j - 1]);
        squares += s[j] * s[j];
    }
    for (size_t k = 0; k < (size_t)m * n; ++k) frobenius += pow(cabs(da[k]), 2);
    check(ordered, "singular values not non-negative and descending");
    ratio_below_threshold(fabs(squares - frobenius) / (mx * DBL_EPSILON * frobenius),
                          "|sum s^2 - ||A||_F^2| / (max(m, n) eps ||A||_F^2)");
    if (rank_deficient)
        check(s[mn - 1] <= rcond * s[0], "s(n) = %.3g above rcond s(1) = %.3g", s[mn - 1],
              rcond * s[0]);
    mat* all[] = {&a, &b};
    free_mats(all, 2);
    free(da), free(db), free(s);
}

/* ---- GEEV, right eigenvectors (real: LAPACK's packed conjugate pairs) ---------------- */
static void test_geev(enum prec p, int layout, int n) {
    snprintf(current, sizeof current, "%cgeev %s n=%d", pname[p], layout_name(layout), n);
    mat a = make(p, layout, n, n, 2), vr = make(p, layout, n, n, 1);
    mat vr0 = copy_of(&vr);
    zd* da = dense(&a);
    zd* lambda = zalloc(1, n);
    zd* v = zalloc(n, n);
    lapack_int info;
    if (p == D) {
        double *wr = malloc(sizeof(double) * (size_t)n), *wi = malloc(sizeof(double) * (size_t)n);
        info = LAPACKE_dgeev(layout, 'N', 'V', n, a.data, a.ld, wr, wi, NULL, 1, vr.data, vr.ld);
        int pairs_ok = 1;
        for (int j = 0; j < n; ++j) {
            if (wi[j] == 0) {
                lambda[j] = wr[j];
                for (int i = 0; i < n; ++i) v[(size_t)i * n + j] = get(&vr, i, j);
            } else if (wi[j] > 0 && j + 1 < n && wi[j + 1] == -wi[j] && wr[j + 1] == wr[j]) {
                lambda[j] = wr[j] + I * wi[j];
                lambda[j + 1] = conj(lambda[j]);
                for (int i = 0; i < n; ++i) {
                    zd x = get(&vr, i, j) + I * get(&vr, i, j + 1);
                    v[(size_t)i * n + j] = x;
                    v[(size_t)i * n + j + 1] = conj(x);
                }
                ++j;
            } else {
                pairs_ok = 0;
            }
        }
        check(pairs_ok,
              "complex eigenvalues not in conjugate pairs, positive imaginary part first");
        free(wr), free(wi);
    } else {
        info = LAPACKE_zgeev(layout, 'N', 'V', n, a.data, a.ld, lambda, NULL, 1, vr.data, vr.ld);
        zd* dv = dense(&vr);
        memcpy(v, dv, sizeof(zd) * (size_t)n * n);
        free(dv);
    }
    check(info == 0, "INFO = %d", (int)info);
    zd* v_lambda = zalloc(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) v_lambda[(size_t)i * n + j] = v[(size_t)i * n + j] * lambda[j];
    zd* av = mul(da, v, n, n, n);
    double na = norm_inf(da, n, n);
    ratio_below_threshold(diff_inf(av, v_lambda, n, n) / (n * peps[p] * na * norm_inf(v, n, n)),
                          "||A V - V W|| / (n eps ||A|| ||V||)");
    /* LAPACK's normalization: Euclidean length 1, the component of largest magnitude real.
     * Rounding may order near-equal magnitudes either way, and a library may measure them as
     * |Re| + |Im| (BLAS's i?amax), which picks one within 1/sqrt(2) of the largest modulus:
     * the most nearly real component within that much of the largest is taken for it. */
    double worst_length = 0, worst_phase = 0;
    zd trace = 0, sum = 0;
    for (int j = 0; j < n; ++j) {
        double length = 0, largest = 0, phase = INFINITY;
        for (int i = 0; i < n; ++i) {
            length += pow(cabs(v[(size_t)i * n + j]), 2);
            largest = fmax(largest, cabs(v[(size_t)i * n + j]));
        }
        for (int i = 0; i < n; ++i) {
            zd x = v[(size_t)i * n + j];
            if (cabs(x) >= 0.999 * largest / sqrt(2.0))
                phase = fmin(phase, fabs(cimag(x)) / cabs(x));
        }
        worst_length = fmax(worst_length, fabs(sqrt(length) - 1));
        worst_phase = fmax(worst_phase, phase);
        trace += da[(size_t)j * n + j];
        sum += lambda[j];
    }
    ratio_below_threshold(worst_length / (n * peps[p]), "| ||v|| - 1 | / (n eps)");
    ratio_below_threshold(worst_phase / (n * peps[p]),
                          "|Im v(k)| / (|v(k)| n eps), v(k) the largest component");
    ratio_below_threshold(cabs(trace - sum) / (n * peps[p] * na),
                          "|trace(A) - sum(w)| / (n eps ||A||)");
    check_padding(&vr, &vr0, "VR");
    mat* all[] = {&a, &vr, &vr0};
    free_mats(all, 3);
    free(da), free(lambda), free(v), free(v_lambda), free(av);
}

/* ---- triangular: TRTRS, TRTRI; symmetric indefinite: SYSV ----------------------------- */
static zd* triangle_of(const mat* a, char uplo, char diag) {
    int n = a->rows;
    zd* t = zalloc(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i == j)
                t[(size_t)i * n + j] = diag == 'U' ? 1 : get(a, i, j);
            else if (uplo == 'U' ? i < j : i > j)
                t[(size_t)i * n + j] = get(a, i, j);
    return t;
}
static void strengthen_diagonal(mat* a) {
    for (int i = 0; i < a->rows; ++i) set(a, i, i, get(a, i, i) + 4.0);
}

static void test_trtrs(int layout, char uplo, char trans, char diag, int n, int nrhs) {
    snprintf(current, sizeof current, "dtrtrs %s uplo=%c trans=%c diag=%c n=%d",
             layout_name(layout), uplo, trans, diag, n);
    mat a = make(D, layout, n, n, 1), b = make(D, layout, n, nrhs, 2);
    strengthen_diagonal(&a);
    mat a0 = copy_of(&a), b0 = copy_of(&b);
    zd *t = triangle_of(&a, uplo, diag), *db = dense(&b);
    zd* op = trans == 'N' ? duplicate(t, n, n) : adjoint(t, n, n);
    lapack_int info =
        LAPACKE_dtrtrs(layout, uplo, trans, diag, n, nrhs, a.data, a.ld, b.data, b.ld);
    check(info == 0, "INFO = %d", (int)info);
    check_solution(D, op, n, &b, db, nrhs);
    check_unchanged(&a, &a0, "A");
    check_padding(&b, &b0, "B");
    mat* all[] = {&a, &b, &a0, &b0};
    free_mats(all, 4);
    free(t), free(db), free(op);
}

static void test_trtri(int layout, char uplo, char diag, int n) {
    snprintf(current, sizeof current, "ztrtri %s uplo=%c diag=%c n=%d", layout_name(layout), uplo,
             diag, n);
    mat a = make(Z, layout, n, n, 2);
    strengthen_diagonal(&a);
    mat a0 = copy_of(&a);
    zd* t = triangle_of(&a, uplo, diag);
    lapack_int info = LAPACKE_ztrtri(layout, uplo, diag, n, a.data, a.ld);
    check(info == 0, "INFO = %d", (int)info);
    zd *inv = triangle_of(&a, uplo, diag), *prod = mul(t, inv, n, n, n), *e = identity(n);
    double scale = n * DBL_EPSILON * norm_inf(t, n, n) * norm_inf(inv, n, n);
    ratio_below_threshold(diff_inf(prod, e, n, n) / scale,
                          "||T inv(T) - I|| / (n eps ||T|| ||inv(T)||)");
    check_other_triangle(&a, &a0, uplo, "A");
    if (diag == 'U') {
        int kept = 1;
        for (int i = 0; i < n; ++i) kept &= same_element(&a, &a0, idx(&a, i, i));
        check(kept, "the diagonal of a unit triangle changed");
    }
    check_padding(&a, &a0, "A");
    mat* all[] = {&a, &a0};
    free_mats(all, 2);
    free(t), free(inv), free(prod), free(e);
}

/* The Bunch-Kaufman factorization SYTRF leaves in A and ipiv, multiplied out as LAPACK's
 * xSYT01 does: U = P(n) U(n) ... P(k) U(k) ... (k from n down) or L = P(1) L(1) ... (k from
 * 1 up) in steps of a 1 x 1 (ipiv(k) > 0: rows k and ipiv(k) interchanged) or a 2 x 2 block
 * (ipiv(k) = ipiv(k-1) < 0 for U, ipiv(k) = ipiv(k+1) < 0 for L: rows k-1 or k+1 and -ipiv(k)
 * interchanged), then ||U D U^T - A|| / (n eps ||A||) (transposed, not conjugated: complex
 * symmetric). The pivots' structure is checked on the way. */
static void check_bunch_kaufman(enum prec p, const mat* factored, const lapack_int* ipiv, char uplo,
                                const zd* a) {
    int n = factored->rows, structure_ok = 1;
    zd *f = dense(factored), *m = identity(n), *d = zalloc(n, n);
    for (int step = 0; step < n && structure_ok;) {
        int k = uplo == 'U' ? n - 1 - step : step; /* the block's last (U) or first (L) row */
        int size = 1, swapped = k, piv = ipiv[k];
        if (piv < 0) {
            int partner = uplo == 'U' ? k - 1 : k + 1;
            structure_ok = partner >= 0 && partner < n && ipiv[partner] == piv;
            size = 2;
            swapped = partner;
            piv = -piv;
        }
        structure_ok &= piv >= 1 && piv <= n;
        if (!structure_ok) break;
        int first = uplo == 'U' ? k - size + 1 : k; /* the block's rows: first .. first+size-1 */
        for (int i = 0; i < n; ++i) {               /* m = m P(k) */
            zd t = m[(size_t)i * n + swapped];
            m[(size_t)i * n + swapped] = m[(size_t)i * n + piv - 1];
            m[(size_t)i * n + piv - 1] = t;
        }
        int v_begin = uplo == 'U' ? 0 : first + size, v_end = uplo == 'U' ? first : n;
        for (int c = first; c < first + size; ++c) /* m = m U(k): v in rows v_begin..v_end-1 */
            for (int i = 0; i < n; ++i)
                for (int r = v_begin; r < v_end; ++r)
                    m[(size_t)i * n + c] += m[(size_t)i * n + r] * f[(size_t)r * n + c];
        for (int i = first; i < first + size; ++i)
            for (int j = first; j < first + size; ++j) {
                int stored = uplo == 'U' ? i <= j : i >= j;
                d[(size_t)i * n + j] = stored ? f[(size_t)i * n + j] : f[(size_t)j * n + i];
            }
        step += size;
    }
    check(structure_ok, "pivots not in LAPACK's 1 x 1 / 2 x 2 pattern");
    if (structure_ok) {
        zd *md = mul(m, d, n, n, n), *mt = zalloc(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) mt[(size_t)j * n + i] = m[(size_t)i * n + j];
        zd* product = mul(md, mt, n, n, n);
        ratio_below_threshold(
            diff_inf(product, a, n, n) / (n * peps[p] * norm_inf(a, n, n)),
            uplo == 'U' ? "||U D U^T - A|| / (n eps ||A||)" : "||L D L^T - A|| / (n eps ||A||)");
        free(md), free(mt), free(product);
    }
    free(f), free(m), free(d);
}

/* A symmetric (complex symmetric for z, as LAPACK's ZSYSV) matrix with a zero diagonal, so
 * that the Bunch-Kaufman factorization's first pivot is a 2 x 2 block. */
static void test_sysv(enum prec p, int layout, char uplo, int n, int nrhs) {
    snprintf(current, sizeof current, "%csysv %s uplo=%c n=%d", pname[p], layout_name(layout), uplo,
             n);
    mat a = make(p, layout, n, n, 2), b = make(p, layout, n, nrhs, 1);
    for (int i = 0; i < n; ++i) set(&a, i, i, 0);
    zd *s = from_triangle(&a, uplo, 0), *db = dense(&b);
    mat a0 = copy_of(&a), b0 = copy_of(&b);
    lapack_int* ipiv = malloc(sizeof *ipiv * (size_t)n);
    lapack_int info = p == D
                          ? LAPACKE_dsysv(layout, uplo, n, nrhs, a.data, a.ld, ipiv, b.data, b.ld)
                          : LAPACKE_zsysv(layout, uplo, n, nrhs, a.data, a.ld, ipiv, b.data, b.ld);
    check(info == 0, "INFO = %d", (int)info);
    check_solution(p, s, n, &b, db, nrhs);
    int two_by_two = 0;
    for (int i = 0; i < n; ++i) two_by_two |= ipiv[i] < 0;
    check(two_by_two, "no 2 x 2 pivot for a matrix with a zero diagonal");
    check_bunch_kaufman(p, &a, ipiv, uplo, s);
    check_other_triangle(&a, &a0, uplo, "A");
    check_padding(&b, &b0, "B");
    mat* all[] = {&a, &b, &a0, &b0};
    free_mats(all, 4);
    free(s), free(db), free(ipiv);
}

int main(void) {
    const int layouts[] = {LAPACK_COL_MAJOR, LAPACK_ROW_MAJOR};
    const char uplos[] = {'U', 'L'};
    for (int li = 0; li < 2; ++li) {
        int o = layouts[li];
        for (int p = S; p <= Z; ++p) test_gesv((enum prec)p, o, 57, 5);
        test_inverse(D, o, 45);
        test_inverse(C, o, 38);
        test_singular(D, o, 40, 17);
        test_singular(Z, o, 33, 32);
        for (int u = 0; u < 2; ++u) {
            test_cholesky(D, o, uplos[u], 52, 4);
            test_cholesky(Z, o, uplos[u], 41, 3);
            test_not_positive_definite(D, o, uplos[u], 48, 40);
            test_not_positive_definite(Z, o, uplos[u], 40, 35);
            for (int p = S; p <= Z; ++p) test_eigh((enum prec)p, o, uplos[u], 44);
            test_sysv(D, o, uplos[u], 46, 3);
            test_sysv(Z, o, uplos[u], 35, 2);
        }
        test_qr(D, o, 70, 40, 6);
        test_qr(Z, o, 55, 55, 3);
        test_svd(D, 1, o, 64, 40);
        test_svd(C, 1, o, 50, 36);
        test_svd(D, 1, o, 30, 52); /* m < n */
        test_svd(S, 0, o, 60, 45);
        test_svd(Z, 0, o, 42, 42);
        test_gels(S, o, 80, 30, 4, 0);
        test_gels(D, o, 25, 60, 3, 1); /* on the CPU: the device interface takes m >= n */
        test_gels(Z, o, 66, 41, 2, 0);
        test_gelsd(o, 75, 32, 3, 0);
        test_gelsd(o, 60, 24, 2, 1);
        test_geev(D, o, 50);
        test_geev(Z, o, 37);
        for (int u = 0; u < 2; ++u)
            for (int d = 0; d < 2; ++d) {
                test_trtrs(o, uplos[u], d ? 'T' : 'N', d ? 'U' : 'N', 43, 4);
                test_trtri(o, uplos[u], "NU"[d], 39);
            }
    }
    printf("%d checks, %d failed\n", nchk, nfail);
    return nfail ? 1 : 0;
}
