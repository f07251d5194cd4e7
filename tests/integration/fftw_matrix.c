/* The FFTW3 API through libgpushim.so, checked against FFTW's own results.
 *
 * Linked -lgpushim -lfftw3 -lfftw3f (the shim first, so that every planner and execute call
 * binds to it) and run by run_fftw.py with GPUSHIM_BACKEND=hostsim GPUSHIM_THRESHOLD=0, so
 * that every transform the device can do is offloaded. Built against plain FFTW, without the
 * shim, it passes too: everything it checks is a property of FFTW.
 *
 * The reference is FFTW itself, reached with dlsym in libfftw3.so.3 / libfftw3f.so.3. Only
 * functions that are leaves there will do: Debian's public planners call each other through
 * the PLT (fftw_plan_dft_1d -> fftw_plan_dft -> fftw_plan_many_dft) and would land in the
 * shim again, while the guru64 planners, fftw_execute and fftw_destroy_plan call none of the
 * API (objdump -d libfftw3.so.3: only the basic and many planners, fftw_print_plan and the
 * Fortran wrappers call API functions through the PLT).
 *
 * Each case plans one transform through one public planner form (every form of fftw3.h, in
 * both precisions), executes it twice with the input changed in place in between (a device
 * cache must notice), or on new arrays, and compares each result with a guru64 plan of the
 * same transform run on a copy of the same buffers:
 *   - the output: relative 2-norm error at most BOUND eps log2(N), N the transform size;
 *   - every other scalar of the buffers bitwise unchanged: the gaps between strided elements,
 *     the input of a transform that must preserve it, the arrays a new-array execute was not
 *     given;
 *   - an FFTW_ESTIMATE planner leaves its arrays untouched;
 *   - a planner returns NULL only when FFTW's own does, and with FFTW_WISDOM_ONLY exactly
 *     when FFTW's own does;
 *   - fftw_sprint_plan / fprint_plan / print_plan print something, fftw_flops / cost /
 *     estimate_cost are finite and non-negative, fftw_destroy_plan(NULL) does nothing (as in
 *     FFTW 3.3.10).
 * Prints a FAILED line per failed check, then "N checks, M failed"; exit status 0 when none
 * failed, 1 otherwise. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fftw3.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FFTW_MATRIX_PRECISION

/* FFTW's own error against a long-double FFTW, on the sizes below, is at most 0.23 eps log2(N)
 * in both precisions (relative 2-norm, ESTIMATE and MEASURE plans). The shim's result and the
 * reference each carry such an error, and a device FFT (Bluestein for large primes, other
 * radices) may be several times less accurate than FFTW: 8 leaves a margin of about 15 over
 * two FFTW-quality results. A wrong stride, sign, scale or batch gives an error of order 1. */
#define BOUND 8.0

#define STR(s) #s
#define XSTR(s) STR(s)

#include "check_count.h"

static uint64_t seed = 88172645463325252ull;
static double rnd(void) { /* xorshift64, in [-1, 1): exact in float */
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 40) / 8388608.0 - 1.0;
}

enum kind { C2C, R2C, C2R, SPLIT_C2C, SPLIT_R2C, SPLIT_C2R, R2R };
enum form { BASIC, BASIC_1D, BASIC_2D, BASIC_3D, MANY, GURU, GURU64 };
enum side_type { REAL, CPLX, SPLIT };
static const enum side_type side_types[][2] = {
    [C2C] = {CPLX, CPLX},        [R2C] = {REAL, CPLX},        [C2R] = {CPLX, REAL},
    [SPLIT_C2C] = {SPLIT, SPLIT}, [SPLIT_R2C] = {REAL, SPLIT}, [SPLIT_C2R] = {SPLIT, REAL},
    [R2R] = {REAL, REAL}};

typedef struct {
    const char* name;
    enum kind kind;
    enum form form;
    int sign;           /* C2C and SPLIT_C2C (split arrays: backward by swapping re and im) */
    int rank, n[3];     /* the basic and many forms */
    int howmany;        /* the many forms */
    const int *inembed, *onembed;
    int istride, idist, ostride, odist;
    fftw_iodim dims[3]; /* the guru forms: rank dims and hrank batch dims */
    int hrank;
    fftw_iodim hdims[2];
    fftw_r2r_kind r2r[3];
    int inplace;
    int shift;             /* reals before the data: pointers off FFTW's 16-byte alignment */
    int split_interleaved; /* split arrays as re = p, im = p + 1 (else two separate blocks) */
    unsigned flags;
    int new_array; /* executed on new arrays (fftw_execute_dft...) as well as with fftw_execute */
    int wisdom;    /* FFTW_WISDOM_ONLY: FFTW wisdom for the problem is made first, or forgotten */
} tcase;

#define FWD FFTW_FORWARD
#define BWD FFTW_BACKWARD
#define EST FFTW_ESTIMATE

static const tcase cases[] = {
    /* c2c: the basic forms; factors 2, 3, 5, 7, large primes, odd sizes, n = 1 */
    {.name = "dft_1d 360 forward", .kind = C2C, .form = BASIC_1D, .sign = FWD, .rank = 1,
     .n = {360}, .flags = EST},
    {.name = "dft_1d 1009 backward in place, new arrays", .kind = C2C, .form = BASIC_1D,
     .sign = BWD, .rank = 1, .n = {1009}, .inplace = 1, .flags = EST, .new_array = 1},
    {.name = "dft_1d 4099 forward", .kind = C2C, .form = BASIC_1D, .sign = FWD, .rank = 1,
     .n = {4099}, .flags = EST},
    {.name = "dft_1d 210 backward in place, FFTW_MEASURE", .kind = C2C, .form = BASIC_1D,
     .sign = BWD, .rank = 1, .n = {210}, .inplace = 1, .flags = FFTW_MEASURE},
    {.name = "dft_1d 1", .kind = C2C, .form = BASIC_1D, .sign = FWD, .rank = 1, .n = {1},
     .flags = EST},
    {.name = "dft_1d 256 forward, input 8 bytes off alignment", .kind = C2C, .form = BASIC_1D,
     .sign = FWD, .rank = 1, .n = {256}, .shift = 1, .flags = EST, .new_array = 1},
    {.name = "dft_2d 24x35 forward, new arrays", .kind = C2C, .form = BASIC_2D, .sign = FWD,
     .rank = 2, .n = {24, 35}, .flags = EST, .new_array = 1},
    {.name = "dft_3d 7x9x11 backward in place", .kind = C2C, .form = BASIC_3D, .sign = BWD,
     .rank = 3, .n = {7, 9, 11}, .inplace = 1, .flags = EST},
    {.name = "dft rank 3 5x12x21 forward", .kind = C2C, .form = BASIC, .sign = FWD, .rank = 3,
     .n = {5, 12, 21}, .flags = EST},
    {.name = "dft rank 2 64x48 backward in place, new arrays", .kind = C2C, .form = BASIC,
     .sign = BWD, .rank = 2, .n = {64, 48}, .inplace = 1, .flags = EST, .new_array = 1},
    /* c2c: batches */
    {.name = "many_dft 12x10 x3, embeds 14x13 / 12x11, stride 2, new arrays", .kind = C2C,
     .form = MANY, .sign = FWD, .rank = 2, .n = {12, 10}, .howmany = 3,
     .inembed = (const int[]){14, 13}, .istride = 2, .idist = 2 * 14 * 13 + 3,
     .onembed = (const int[]){12, 11}, .ostride = 1, .odist = 12 * 11 + 1, .flags = EST,
     .new_array = 1},
    {.name = "many_dft 100 x4 interleaved channels, in place", .kind = C2C, .form = MANY,
     .sign = BWD, .rank = 1, .n = {100}, .howmany = 4, .istride = 4, .idist = 1,
     .ostride = 4, .odist = 1, .inplace = 1, .flags = EST},
    {.name = "many_dft 81 x5, FFTW_DESTROY_INPUT", .kind = C2C, .form = MANY, .sign = FWD,
     .rank = 1, .n = {81}, .howmany = 5, .istride = 1, .idist = 81, .ostride = 1, .odist = 81,
     .flags = EST | FFTW_DESTROY_INPUT},
    {.name = "many_dft 6x10x15 x2", .kind = C2C, .form = MANY, .sign = BWD, .rank = 3,
     .n = {6, 10, 15}, .howmany = 2, .istride = 1, .idist = 900, .ostride = 1, .odist = 900,
     .flags = EST},
    {.name = "guru_dft 16x20 column- to row-major x3", .kind = C2C, .form = GURU, .sign = FWD,
     .rank = 2, .dims = {{16, 1, 20}, {20, 16, 1}}, .hrank = 1, .hdims = {{3, 320, 320}},
     .flags = EST},
    {.name = "guru_dft 50, strides 2 / 3", .kind = C2C, .form = GURU, .sign = BWD, .rank = 1,
     .dims = {{50, 2, 3}}, .flags = EST},
    {.name = "guru64_dft 27 stride 3, 4x3 interleaved batches, in place, new arrays",
     .kind = C2C, .form = GURU64, .sign = BWD, .rank = 1, .dims = {{27, 3, 3}}, .hrank = 2,
     .hdims = {{4, 81, 81}, {3, 1, 1}}, .inplace = 1, .flags = EST, .new_array = 1},
    {.name = "guru64_dft 64, input stride -1", .kind = C2C, .form = GURU64, .sign = FWD,
     .rank = 1, .dims = {{64, -1, 1}}, .flags = EST},
    /* r2c */
    {.name = "dft_r2c_1d 360", .kind = R2C, .form = BASIC_1D, .rank = 1, .n = {360},
     .flags = EST},
    {.name = "dft_r2c_1d 1009 in place, new arrays", .kind = R2C, .form = BASIC_1D, .rank = 1,
     .n = {1009}, .inplace = 1, .flags = EST, .new_array = 1},
    {.name = "dft_r2c_1d 4099", .kind = R2C, .form = BASIC_1D, .rank = 1, .n = {4099},
     .flags = EST},
    {.name = "dft_r2c_1d 210, FFTW_MEASURE", .kind = R2C, .form = BASIC_1D, .rank = 1,
     .n = {210}, .flags = FFTW_MEASURE},
    {.name = "dft_r2c_2d 24x35 in place, new arrays", .kind = R2C, .form = BASIC_2D,
     .rank = 2, .n = {24, 35}, .inplace = 1, .flags = EST, .new_array = 1},
    {.name = "dft_r2c_3d 7x9x11", .kind = R2C, .form = BASIC_3D, .rank = 3, .n = {7, 9, 11},
     .flags = EST},
    {.name = "dft_r2c rank 3 6x10x15 in place", .kind = R2C, .form = BASIC, .rank = 3,
     .n = {6, 10, 15}, .inplace = 1, .flags = EST},
    {.name = "many_dft_r2c 12x10 x3, embeds 13x12 / 12x7, stride 2, new arrays", .kind = R2C,
     .form = MANY, .rank = 2, .n = {12, 10}, .howmany = 3, .inembed = (const int[]){13, 12},
     .istride = 2, .idist = 2 * 13 * 12 + 1, .onembed = (const int[]){12, 7}, .ostride = 1,
     .odist = 12 * 7 + 2, .flags = EST, .new_array = 1},
    {.name = "many_dft_r2c 100 x3 in place, padded", .kind = R2C, .form = MANY, .rank = 1,
     .n = {100}, .howmany = 3, .istride = 1, .idist = 102, .ostride = 1, .odist = 51,
     .inplace = 1, .flags = EST},
    {.name = "guru_dft_r2c 50, 4 interleaved channels", .kind = R2C, .form = GURU, .rank = 1,
     .dims = {{50, 4, 1}}, .hrank = 1, .hdims = {{4, 1, 26}}, .flags = EST},
    {.name = "guru64_dft_r2c 9x15 padded rows x2, new arrays", .kind = R2C, .form = GURU64,
     .rank = 2, .dims = {{9, 16, 9}, {15, 1, 1}}, .hrank = 1, .hdims = {{2, 149, 81}},
     .flags = EST, .new_array = 1},
    /* c2r: the input is the half spectrum of a real array (see fill_hermitian) */
    {.name = "dft_c2r_1d 360", .kind = C2R, .form = BASIC_1D, .rank = 1, .n = {360},
     .flags = EST},
    {.name = "dft_c2r_1d 1009 in place, new arrays", .kind = C2R, .form = BASIC_1D, .rank = 1,
     .n = {1009}, .inplace = 1, .flags = EST, .new_array = 1},
    {.name = "dft_c2r_1d 4099", .kind = C2R, .form = BASIC_1D, .rank = 1, .n = {4099},
     .flags = EST},
    /* FFTW's plan for 1000 destroys its input without the flag */
    {.name = "dft_c2r_1d 1000, FFTW_PRESERVE_INPUT", .kind = C2R, .form = BASIC_1D,
     .rank = 1, .n = {1000}, .flags = EST | FFTW_PRESERVE_INPUT},
    {.name = "dft_c2r_1d 210 in place, FFTW_MEASURE", .kind = C2R, .form = BASIC_1D,
     .rank = 1, .n = {210}, .inplace = 1, .flags = FFTW_MEASURE},
    {.name = "dft_c2r_2d 24x35 in place", .kind = C2R, .form = BASIC_2D, .rank = 2,
     .n = {24, 35}, .inplace = 1, .flags = EST},
    {.name = "dft_c2r_2d 24x35, FFTW_PRESERVE_INPUT (FFTW: NULL)", .kind = C2R,
     .form = BASIC_2D, .rank = 2, .n = {24, 35}, .flags = EST | FFTW_PRESERVE_INPUT},
    {.name = "dft_c2r_3d 7x9x11, new arrays", .kind = C2R, .form = BASIC_3D, .rank = 3,
     .n = {7, 9, 11}, .flags = EST, .new_array = 1},
    {.name = "dft_c2r rank 2 64x48", .kind = C2R, .form = BASIC, .rank = 2, .n = {64, 48},
     .flags = EST},
    {.name = "many_dft_c2r 12x10 x3, embeds 12x7 / 13x12, stride 2, new arrays", .kind = C2R,
     .form = MANY, .rank = 2, .n = {12, 10}, .howmany = 3, .inembed = (const int[]){12, 7},
     .istride = 1, .idist = 12 * 7 + 2, .onembed = (const int[]){13, 12}, .ostride = 2,
     .odist = 2 * 13 * 12 + 1, .flags = EST, .new_array = 1},
    {.name = "many_dft_c2r 100 x3 in place, padded", .kind = C2R, .form = MANY, .rank = 1,
     .n = {100}, .howmany = 3, .istride = 1, .idist = 51, .ostride = 1, .odist = 102,
     .inplace = 1, .flags = EST},
    {.name = "guru_dft_c2r 50, 4 interleaved channels", .kind = C2R, .form = GURU, .rank = 1,
     .dims = {{50, 1, 4}}, .hrank = 1, .hdims = {{4, 26, 1}}, .flags = EST},
    {.name = "guru64_dft_c2r 9x15 padded rows x2, new arrays", .kind = C2R, .form = GURU64,
     .rank = 2, .dims = {{9, 9, 16}, {15, 1, 1}}, .hrank = 1, .hdims = {{2, 81, 149}},
     .flags = EST, .new_array = 1},
    /* FFTW_WISDOM_ONLY: a plan exactly when FFTW has wisdom for the problem */
    {.name = "dft_1d 77 FFTW_WISDOM_ONLY, no wisdom", .kind = C2C, .form = BASIC_1D,
     .sign = FWD, .rank = 1, .n = {77}, .flags = FFTW_MEASURE | FFTW_WISDOM_ONLY},
    {.name = "dft_1d 64 FFTW_WISDOM_ONLY, with wisdom", .kind = C2C, .form = BASIC_1D,
     .sign = FWD, .rank = 1, .n = {64}, .flags = FFTW_MEASURE | FFTW_WISDOM_ONLY,
     .wisdom = 1},
    {.name = "dft_r2c_2d 12x10 FFTW_WISDOM_ONLY, with wisdom", .kind = R2C, .form = BASIC_2D,
     .rank = 2, .n = {12, 10}, .flags = FFTW_MEASURE | FFTW_WISDOM_ONLY, .wisdom = 1},
    {.name = "dft_c2r_1d 96 FFTW_WISDOM_ONLY, no wisdom", .kind = C2R, .form = BASIC_1D,
     .rank = 1, .n = {96}, .flags = EST | FFTW_WISDOM_ONLY},
    /* split arrays: always on FFTW */
    {.name = "guru_split_dft 360 forward, separate arrays", .kind = SPLIT_C2C, .form = GURU,
     .sign = FWD, .rank = 1, .dims = {{360, 1, 1}}, .flags = EST},
    {.name = "guru64_split_dft 12x10 backward, interleaved, in place, new arrays",
     .kind = SPLIT_C2C, .form = GURU64, .sign = BWD, .rank = 2,
     .dims = {{12, 20, 20}, {10, 2, 2}}, .split_interleaved = 1, .inplace = 1, .flags = EST,
     .new_array = 1},
    {.name = "guru_split_dft_r2c 100 x2, separate arrays", .kind = SPLIT_R2C, .form = GURU,
     .rank = 1, .dims = {{100, 1, 1}}, .hrank = 1, .hdims = {{2, 100, 51}}, .flags = EST},
    {.name = "guru64_split_dft_r2c 8x10, interleaved, new arrays", .kind = SPLIT_R2C,
     .form = GURU64, .rank = 2, .dims = {{8, 10, 12}, {10, 1, 2}}, .split_interleaved = 1,
     .flags = EST, .new_array = 1},
    {.name = "guru_split_dft_c2r 100 x2, separate arrays", .kind = SPLIT_C2R, .form = GURU,
     .rank = 1, .dims = {{100, 1, 1}}, .hrank = 1, .hdims = {{2, 51, 100}}, .flags = EST},
    {.name = "guru64_split_dft_c2r 8x10, interleaved, new arrays", .kind = SPLIT_C2R,
     .form = GURU64, .rank = 2, .dims = {{8, 12, 10}, {10, 2, 1}}, .split_interleaved = 1,
     .flags = EST, .new_array = 1},
    /* r2r: always on FFTW */
    {.name = "r2r_1d 100 REDFT10", .kind = R2R, .form = BASIC_1D, .rank = 1, .n = {100},
     .r2r = {FFTW_REDFT10}, .flags = EST},
    {.name = "r2r_2d 12x17 RODFT00 R2HC in place, new arrays", .kind = R2R, .form = BASIC_2D,
     .rank = 2, .n = {12, 17}, .r2r = {FFTW_RODFT00, FFTW_R2HC}, .inplace = 1, .flags = EST,
     .new_array = 1},
    {.name = "r2r_3d 5x6x9 REDFT00 DHT HC2R", .kind = R2R, .form = BASIC_3D, .rank = 3,
     .n = {5, 6, 9}, .r2r = {FFTW_REDFT00, FFTW_DHT, FFTW_HC2R}, .flags = EST},
    {.name = "r2r rank 1 63 REDFT11", .kind = R2R, .form = BASIC, .rank = 1, .n = {63},
     .r2r = {FFTW_REDFT11}, .flags = EST},
    {.name = "many_r2r 40 x3 REDFT01, interleaved input", .kind = R2R, .form = MANY,
     .rank = 1, .n = {40}, .howmany = 3, .istride = 3, .idist = 1, .ostride = 1, .odist = 40,
     .r2r = {FFTW_REDFT01}, .flags = EST},
    {.name = "guru_r2r 10x12 transposed RODFT10 RODFT01", .kind = R2R, .form = GURU,
     .rank = 2, .dims = {{10, 12, 1}, {12, 1, 10}}, .r2r = {FFTW_RODFT10, FFTW_RODFT01},
     .flags = EST},
    {.name = "guru64_r2r 33 x4 RODFT11, new arrays", .kind = R2R, .form = GURU64, .rank = 1,
     .dims = {{33, 1, 1}}, .hrank = 1, .hdims = {{4, 33, 35}}, .r2r = {FFTW_RODFT11},
     .flags = EST, .new_array = 1},
};

/* A transform as the guru64 interface states it: what the reference plans. Strides are in
 * elements of each side's type (complex, or real for real and split arrays). */
typedef struct {
    int rank, hrank;
    fftw_iodim64 dims[3], hdims[2];
} guru_t;

/* FFTW's reading of the basic and many forms (api/plan-many-dft*.c, rdft2_pad): a NULL embed
 * is n, except on the complex side of r2c / c2r (n_last/2+1) and on the real side of an
 * in-place one (2(n_last/2+1), the padding). */
static void to_guru(const tcase* c, guru_t* g) {
    if (c->form == GURU || c->form == GURU64) {
        g->rank = c->rank;
        g->hrank = c->hrank;
        for (int i = 0; i < c->rank; ++i)
            g->dims[i] = (fftw_iodim64){c->dims[i].n, c->dims[i].is, c->dims[i].os};
        for (int i = 0; i < c->hrank; ++i)
            g->hdims[i] = (fftw_iodim64){c->hdims[i].n, c->hdims[i].is, c->hdims[i].os};
        return;
    }
    int many = c->form == MANY, last = c->rank - 1, half = c->n[last] / 2 + 1;
    int nin[3], nout[3];
    for (int i = 0; i < c->rank; ++i) nin[i] = nout[i] = c->n[i];
    if (c->kind == R2C) {
        nout[last] = half;
        if (c->inplace) nin[last] = 2 * half;
    } else if (c->kind == C2R) {
        nin[last] = half;
        if (c->inplace) nout[last] = 2 * half;
    }
    if (many && c->inembed) memcpy(nin, c->inembed, sizeof(int) * (size_t)c->rank);
    if (many && c->onembed) memcpy(nout, c->onembed, sizeof(int) * (size_t)c->rank);
    ptrdiff_t is = many ? c->istride : 1, os = many ? c->ostride : 1;
    g->rank = c->rank;
    for (int i = last; i >= 0; --i) {
        g->dims[i] = (fftw_iodim64){c->n[i], is, os};
        is *= nin[i];
        os *= nout[i];
    }
    g->hrank = 1;
    g->hdims[0] = many ? (fftw_iodim64){c->howmany, c->idist, c->odist} : (fftw_iodim64){1, 0, 0};
}

/* The element offsets one side of a transform touches, batches outermost and row-major within
 * a transform (fill_hermitian relies on the order). Returns their number; out may be NULL. */
static size_t enumerate(const guru_t* g, int side, int halve_last, ptrdiff_t* out) {
    int nd = 0;
    ptrdiff_t cnt[5], str[5], idx[5] = {0};
    for (int i = 0; i < g->hrank; ++i, ++nd) {
        cnt[nd] = g->hdims[i].n;
        str[nd] = side ? g->hdims[i].os : g->hdims[i].is;
    }
    for (int i = 0; i < g->rank; ++i, ++nd) {
        cnt[nd] = halve_last && i == g->rank - 1 ? g->dims[i].n / 2 + 1 : g->dims[i].n;
        str[nd] = side ? g->dims[i].os : g->dims[i].is;
    }
    size_t total = 1;
    for (int i = 0; i < nd; ++i) total *= (size_t)cnt[i];
    for (size_t k = 0; out && k < total; ++k) {
        ptrdiff_t off = 0;
        for (int i = 0; i < nd; ++i) off += idx[i] * str[i];
        out[k] = off;
        for (int i = nd - 1; i >= 0 && ++idx[i] == cnt[i]; --i) idx[i] = 0;
    }
    return total;
}

/* Where a case's data lies: side 0 is the input, side 1 the output; one buffer when in place. */
typedef struct {
    enum kind kind;
    guru_t g;
    int inplace;
    enum side_type type[2];
    ptrdiff_t* off[2]; /* the elements each side touches (enumerate) */
    size_t count[2];
    ptrdiff_t ptr[2][2]; /* the data pointers, in reals from the buffer start: [side][re, im] */
    size_t len[2];       /* reals in each buffer */
    unsigned char* may_change[2]; /* per real of each buffer: the transform may write it */
    ptrdiff_t n_total, batches;
} layout;

static int halved(enum kind k, int side) {
    return side ? k == R2C || k == SPLIT_R2C : k == C2R || k == SPLIT_C2R;
}

static ptrdiff_t scalar(const layout* L, int side, size_t j, int part) {
    ptrdiff_t e = L->off[side][j];
    switch (L->type[side]) {
    case REAL: return L->ptr[side][0] + e;
    case CPLX: return L->ptr[side][0] + 2 * e + part;
    default: return L->ptr[side][part] + e;
    }
}

static int parts(const layout* L, int side) { return L->type[side] == REAL ? 1 : 2; }

/* FFTW's default: out-of-place transforms preserve their input, except c2r and HC2R. */
static int destroys_input(const tcase* c) {
    if (c->flags & FFTW_PRESERVE_INPUT) return 0;
    if (c->inplace || (c->flags & FFTW_DESTROY_INPUT) || c->kind == C2R || c->kind == SPLIT_C2R)
        return 1;
    for (int i = 0; c->kind == R2R && i < c->rank; ++i)
        if (c->r2r[i] == FFTW_HC2R) return 1;
    return 0;
}

static void make_layout(const tcase* c, layout* L) {
    memset(L, 0, sizeof *L);
    L->kind = c->kind;
    L->inplace = c->inplace;
    to_guru(c, &L->g);
    L->n_total = L->batches = 1;
    for (int i = 0; i < L->g.rank; ++i) L->n_total *= L->g.dims[i].n;
    for (int i = 0; i < L->g.hrank; ++i) L->batches *= L->g.hdims[i].n;
    ptrdiff_t first[2], region[2];
    for (int side = 0; side < 2; ++side) {
        L->type[side] = side_types[c->kind][side];
        L->count[side] = enumerate(&L->g, side, halved(c->kind, side), NULL);
        L->off[side] = malloc(sizeof(ptrdiff_t) * L->count[side]);
        enumerate(&L->g, side, halved(c->kind, side), L->off[side]);
        ptrdiff_t lo = 0, hi = 0;
        for (size_t j = 0; j < L->count[side]; ++j) {
            if (L->off[side][j] < lo) lo = L->off[side][j];
            if (L->off[side][j] > hi) hi = L->off[side][j];
        }
        /* a negative stride puts the data pointer past the elements it reaches backwards */
        first[side] = -lo;
        region[side] = (L->type[side] == CPLX ? 2 : 1) * (first[side] + hi + 1);
    }
    if (c->inplace) { /* one pointer for both sides (no in-place case has a negative stride) */
        first[0] = first[1] = 0;
        region[0] = region[1] = region[0] > region[1] ? region[0] : region[1];
    }
    for (int side = 0; side < 2; ++side) {
        ptrdiff_t base = c->shift;
        switch (L->type[side]) {
        case REAL: L->ptr[side][0] = L->ptr[side][1] = base + first[side]; break;
        case CPLX: L->ptr[side][0] = L->ptr[side][1] = base + 2 * first[side]; break;
        case SPLIT:
            L->ptr[side][0] = base + first[side];
            L->ptr[side][1] = L->ptr[side][0] + (c->split_interleaved ? 1 : region[side]);
            break;
        }
        ptrdiff_t reals = region[side];
        if (L->type[side] == SPLIT) reals = c->split_interleaved ? reals + 1 : 2 * reals;
        L->len[side] = (size_t)(base + reals);
    }
    if (c->inplace) L->len[0] = L->len[1] = L->len[0] > L->len[1] ? L->len[0] : L->len[1];
    int destroys = destroys_input(c);
    for (int k = 0; k < (c->inplace ? 1 : 2); ++k) L->may_change[k] = calloc(L->len[k], 1);
    if (c->inplace) L->may_change[1] = L->may_change[0];
    for (int side = destroys ? 0 : 1; side < 2; ++side)
        for (size_t j = 0; j < L->count[side]; ++j)
            for (int p = 0; p < parts(L, side); ++p) L->may_change[side][scalar(L, side, j, p)] = 1;
}

static void free_layout(layout* L) {
    free(L->off[0]);
    free(L->off[1]);
    free(L->may_change[0]);
    if (!L->inplace) free(L->may_change[1]);
}

static double log2_size(ptrdiff_t n) { return n > 2 ? log2((double)n) : 1.0; }

#define FFTW_MATRIX_PRECISION 1
#include __FILE__
#undef FFTW_MATRIX_PRECISION
#define FFTW_MATRIX_PRECISION 2
#include __FILE__

int main(void) {
    run_all_double();
    run_all_float();
    printf("%d checks, %d failed\n", nchk, nfail);
    return nfail ? 1 : 0;
}

#else /* the precision part, included twice above: FFTW's X() mangling, as in fftw3.h */

#if FFTW_MATRIX_PRECISION == 1
#define X(name) fftw_##name
#define P(name) name##_double
#define R double
#define C fftw_complex
#define EPS DBL_EPSILON
#define PREC "double"
#define LIBRARY "libfftw3.so.3"
#else
#define X(name) fftwf_##name
#define P(name) name##_float
#define R float
#define C fftwf_complex
#define EPS FLT_EPSILON
#define PREC "float"
#define LIBRARY "libfftw3f.so.3"
#endif

/* FFTW's leaves (see the top of the file), never the shim's functions of the same names. */
static struct {
    X(plan) (*dft)(int, const X(iodim64)*, int, const X(iodim64)*, C*, C*, int, unsigned);
    X(plan) (*r2c)(int, const X(iodim64)*, int, const X(iodim64)*, R*, C*, unsigned);
    X(plan) (*c2r)(int, const X(iodim64)*, int, const X(iodim64)*, C*, R*, unsigned);
    X(plan) (*split_dft)(int, const X(iodim64)*, int, const X(iodim64)*, R*, R*, R*, R*,
                         unsigned);
    X(plan) (*split_r2c)(int, const X(iodim64)*, int, const X(iodim64)*, R*, R*, R*, unsigned);
    X(plan) (*split_c2r)(int, const X(iodim64)*, int, const X(iodim64)*, R*, R*, R*, unsigned);
    X(plan) (*r2r)(int, const X(iodim64)*, int, const X(iodim64)*, R*, R*, const X(r2r_kind)*,
                   unsigned);
    void (*execute)(const X(plan));
    void (*destroy)(X(plan));
} P(ref);

static void* P(leaf)(void* lib, const char* name) {
    void* f = dlsym(lib, name);
    Dl_info info;
    if (!f || !dladdr(f, &info) || !strstr(info.dli_fname, LIBRARY)) {
        printf("FAILED: %s is not FFTW's own (%s): no reference\n", name,
               f && dladdr(f, &info) ? info.dli_fname : dlerror());
        exit(1);
    }
    return f;
}

static void P(load_reference)(void) {
    void* lib = dlopen(LIBRARY, RTLD_NOW); /* already loaded: the same object */
    if (!lib) {
        printf("FAILED: dlopen(%s): %s\n", LIBRARY, dlerror());
        exit(1);
    }
    *(void**)&P(ref).dft = P(leaf)(lib, XSTR(X(plan_guru64_dft)));
    *(void**)&P(ref).r2c = P(leaf)(lib, XSTR(X(plan_guru64_dft_r2c)));
    *(void**)&P(ref).c2r = P(leaf)(lib, XSTR(X(plan_guru64_dft_c2r)));
    *(void**)&P(ref).split_dft = P(leaf)(lib, XSTR(X(plan_guru64_split_dft)));
    *(void**)&P(ref).split_r2c = P(leaf)(lib, XSTR(X(plan_guru64_split_dft_r2c)));
    *(void**)&P(ref).split_c2r = P(leaf)(lib, XSTR(X(plan_guru64_split_dft_c2r)));
    *(void**)&P(ref).r2r = P(leaf)(lib, XSTR(X(plan_guru64_r2r)));
    *(void**)&P(ref).execute = P(leaf)(lib, XSTR(X(execute)));
    *(void**)&P(ref).destroy = P(leaf)(lib, XSTR(X(destroy_plan)));
}

typedef struct {
    R* b[2]; /* input and output buffer; the same one when in place */
} P(set);

static void P(alloc)(const layout* L, P(set)* s) {
    for (int k = 0; k < (L->inplace ? 1 : 2); ++k) {
        s->b[k] = X(malloc)(sizeof(R) * L->len[k]); /* FFTW's alignment, the same for every set */
        memset(s->b[k], 0x5A, sizeof(R) * L->len[k]);
    }
    if (L->inplace) s->b[1] = s->b[0];
}

static void P(release)(const layout* L, P(set)* s) {
    X(free)(s->b[0]);
    if (!L->inplace) X(free)(s->b[1]);
}

static void P(copy)(const layout* L, P(set)* to, const P(set)* from) {
    for (int k = 0; k < (L->inplace ? 1 : 2); ++k)
        memcpy(to->b[k], from->b[k], sizeof(R) * L->len[k]);
}

static int P(same)(const layout* L, const P(set)* a, const P(set)* b) {
    for (int k = 0; k < (L->inplace ? 1 : 2); ++k)
        if (memcmp(a->b[k], b->b[k], sizeof(R) * L->len[k])) return 0;
    return 1;
}

static R* P(at)(const layout* L, const P(set)* s, int side, int part) {
    return s->b[side] + L->ptr[side][part];
}

/* The case's planner form, on the arrays of s. */
static X(plan) P(plan_tested)(const tcase* c, const layout* L, const P(set)* s) {
    R *i0 = P(at)(L, s, 0, 0), *i1 = P(at)(L, s, 0, 1);
    R *o0 = P(at)(L, s, 1, 0), *o1 = P(at)(L, s, 1, 1);
    C *ci = (C*)i0, *co = (C*)o0;
    const int* n = c->n;
    const X(iodim)* d = c->dims;
    const X(iodim)* h = c->hdims;
    const X(iodim64)* d64 = L->g.dims;
    const X(iodim64)* h64 = L->g.hdims;
    int r = c->rank, hr = c->hrank, hm = c->howmany, sg = c->sign;
    unsigned f = c->flags;
    if (c->kind == SPLIT_C2C && sg == BWD) { /* FFTW's backward split transform: swap re, im */
        R* t = i0;
        i0 = i1;
        i1 = t;
        t = o0;
        o0 = o1;
        o1 = t;
    }
    switch (c->kind) {
    case C2C:
        switch (c->form) {
        case BASIC: return X(plan_dft)(r, n, ci, co, sg, f);
        case BASIC_1D: return X(plan_dft_1d)(n[0], ci, co, sg, f);
        case BASIC_2D: return X(plan_dft_2d)(n[0], n[1], ci, co, sg, f);
        case BASIC_3D: return X(plan_dft_3d)(n[0], n[1], n[2], ci, co, sg, f);
        case MANY:
            return X(plan_many_dft)(r, n, hm, ci, c->inembed, c->istride, c->idist, co,
                                    c->onembed, c->ostride, c->odist, sg, f);
        case GURU: return X(plan_guru_dft)(r, d, hr, h, ci, co, sg, f);
        case GURU64: return X(plan_guru64_dft)(r, d64, hr, h64, ci, co, sg, f);
        }
        break;
    case R2C:
        switch (c->form) {
        case BASIC: return X(plan_dft_r2c)(r, n, i0, co, f);
        case BASIC_1D: return X(plan_dft_r2c_1d)(n[0], i0, co, f);
        case BASIC_2D: return X(plan_dft_r2c_2d)(n[0], n[1], i0, co, f);
        case BASIC_3D: return X(plan_dft_r2c_3d)(n[0], n[1], n[2], i0, co, f);
        case MANY:
            return X(plan_many_dft_r2c)(r, n, hm, i0, c->inembed, c->istride, c->idist, co,
                                        c->onembed, c->ostride, c->odist, f);
        case GURU: return X(plan_guru_dft_r2c)(r, d, hr, h, i0, co, f);
        case GURU64: return X(plan_guru64_dft_r2c)(r, d64, hr, h64, i0, co, f);
        }
        break;
    case C2R:
        switch (c->form) {
        case BASIC: return X(plan_dft_c2r)(r, n, ci, o0, f);
        case BASIC_1D: return X(plan_dft_c2r_1d)(n[0], ci, o0, f);
        case BASIC_2D: return X(plan_dft_c2r_2d)(n[0], n[1], ci, o0, f);
        case BASIC_3D: return X(plan_dft_c2r_3d)(n[0], n[1], n[2], ci, o0, f);
        case MANY:
            return X(plan_many_dft_c2r)(r, n, hm, ci, c->inembed, c->istride, c->idist, o0,
                                        c->onembed, c->ostride, c->odist, f);
        case GURU: return X(plan_guru_dft_c2r)(r, d, hr, h, ci, o0, f);
        case GURU64: return X(plan_guru64_dft_c2r)(r, d64, hr, h64, ci, o0, f);
        }
        break;
    case SPLIT_C2C: /* the split forms exist only in the guru interfaces */
        return c->form == GURU ? X(plan_guru_split_dft)(r, d, hr, h, i0, i1, o0, o1, f)
                               : X(plan_guru64_split_dft)(r, d64, hr, h64, i0, i1, o0, o1, f);
    case SPLIT_R2C:
        return c->form == GURU ? X(plan_guru_split_dft_r2c)(r, d, hr, h, i0, o0, o1, f)
                               : X(plan_guru64_split_dft_r2c)(r, d64, hr, h64, i0, o0, o1, f);
    case SPLIT_C2R:
        return c->form == GURU ? X(plan_guru_split_dft_c2r)(r, d, hr, h, i0, i1, o0, f)
                               : X(plan_guru64_split_dft_c2r)(r, d64, hr, h64, i0, i1, o0, f);
    case R2R:
        switch (c->form) {
        case BASIC: return X(plan_r2r)(r, n, i0, o0, c->r2r, f);
        case BASIC_1D: return X(plan_r2r_1d)(n[0], i0, o0, c->r2r[0], f);
        case BASIC_2D: return X(plan_r2r_2d)(n[0], n[1], i0, o0, c->r2r[0], c->r2r[1], f);
        case BASIC_3D:
            return X(plan_r2r_3d)(n[0], n[1], n[2], i0, o0, c->r2r[0], c->r2r[1], c->r2r[2], f);
        case MANY:
            return X(plan_many_r2r)(r, n, hm, i0, c->inembed, c->istride, c->idist, o0,
                                    c->onembed, c->ostride, c->odist, c->r2r, f);
        case GURU: return X(plan_guru_r2r)(r, d, hr, h, i0, o0, c->r2r, f);
        case GURU64: return X(plan_guru64_r2r)(r, d64, hr, h64, i0, o0, c->r2r, f);
        }
        break;
    }
    return NULL;
}

/* The same transform through FFTW's guru64 leaf, on the arrays of s. */
static X(plan) P(plan_reference)(const tcase* c, const layout* L, const P(set)* s, unsigned f) {
    R *i0 = P(at)(L, s, 0, 0), *i1 = P(at)(L, s, 0, 1);
    R *o0 = P(at)(L, s, 1, 0), *o1 = P(at)(L, s, 1, 1);
    const guru_t* g = &L->g;
    switch (c->kind) {
    case C2C: return P(ref).dft(g->rank, g->dims, g->hrank, g->hdims, (C*)i0, (C*)o0, c->sign, f);
    case R2C: return P(ref).r2c(g->rank, g->dims, g->hrank, g->hdims, i0, (C*)o0, f);
    case C2R: return P(ref).c2r(g->rank, g->dims, g->hrank, g->hdims, (C*)i0, o0, f);
    case SPLIT_C2C:
        return c->sign == FWD
                   ? P(ref).split_dft(g->rank, g->dims, g->hrank, g->hdims, i0, i1, o0, o1, f)
                   : P(ref).split_dft(g->rank, g->dims, g->hrank, g->hdims, i1, i0, o1, o0, f);
    case SPLIT_R2C: return P(ref).split_r2c(g->rank, g->dims, g->hrank, g->hdims, i0, o0, o1, f);
    case SPLIT_C2R: return P(ref).split_c2r(g->rank, g->dims, g->hrank, g->hdims, i0, i1, o0, f);
    case R2R: return P(ref).r2r(g->rank, g->dims, g->hrank, g->hdims, i0, o0, c->r2r, f);
    }
    return NULL;
}

static void P(execute_tested)(const tcase* c, const layout* L, X(plan) p, const P(set)* s,
                              int new_array) {
    R *i0 = P(at)(L, s, 0, 0), *i1 = P(at)(L, s, 0, 1);
    R *o0 = P(at)(L, s, 1, 0), *o1 = P(at)(L, s, 1, 1);
    if (!new_array) {
        X(execute)(p);
        return;
    }
    switch (c->kind) {
    case C2C: X(execute_dft)(p, (C*)i0, (C*)o0); break;
    case R2C: X(execute_dft_r2c)(p, i0, (C*)o0); break;
    case C2R: X(execute_dft_c2r)(p, (C*)i0, o0); break;
    case SPLIT_C2C:
        if (c->sign == FWD)
            X(execute_split_dft)(p, i0, i1, o0, o1);
        else
            X(execute_split_dft)(p, i1, i0, o1, o0);
        break;
    case SPLIT_R2C: X(execute_split_dft_r2c)(p, i0, o0, o1); break;
    case SPLIT_C2R: X(execute_split_dft_c2r)(p, i0, i1, o0); break;
    case R2R: X(execute_r2r)(p, i0, o0); break;
    }
}

/* A c2r input is the half spectrum of a real array: FFTW and a device FFT may treat input
 * that is not Hermitian differently, so for rank 2 and 3 no other input has one right answer.
 * In rank 1 FFTW never reads the imaginary parts of the DC and (n even) Nyquist terms: there
 * they get values a real spectrum cannot have, which must be ignored as FFTW ignores them. */
static void P(fill_hermitian)(const layout* L, P(set)* s) {
    const guru_t* g = &L->g;
    int last = g->rank - 1;
    ptrdiff_t half = g->dims[last].n / 2 + 1, m = L->n_total / g->dims[last].n * half;
    ptrdiff_t sx = 1, sy = 1;
    X(iodim64) d[3];
    for (int i = last; i >= 0; --i) {
        d[i] = (X(iodim64)){g->dims[i].n, sx, sy};
        sx *= g->dims[i].n;
        sy *= i == last ? half : g->dims[i].n;
    }
    R* x = X(malloc)(sizeof(R) * (size_t)L->n_total);
    C* y = X(malloc)(sizeof(C) * (size_t)m);
    X(plan) p = P(ref).r2c(g->rank, d, 0, NULL, x, y, FFTW_ESTIMATE);
    for (size_t b = 0; b < L->count[0] / (size_t)m; ++b) {
        for (ptrdiff_t i = 0; i < L->n_total; ++i) x[i] = (R)rnd();
        P(ref).execute(p);
        if (g->rank == 1) {
            ((R*)y)[1] = (R)rnd();
            if (g->dims[0].n % 2 == 0) ((R*)y)[2 * (half - 1) + 1] = (R)rnd();
        }
        for (ptrdiff_t j = 0; j < m; ++j)
            for (int part = 0; part < 2; ++part)
                s->b[0][scalar(L, 0, b * (size_t)m + (size_t)j, part)] = ((R*)y)[2 * j + part];
    }
    P(ref).destroy(p);
    X(free)(x);
    X(free)(y);
}

static void P(fill_input)(const layout* L, P(set)* s) {
    if (L->kind == C2R || L->kind == SPLIT_C2R) {
        P(fill_hermitian)(L, s);
        return;
    }
    for (size_t j = 0; j < L->count[0]; ++j)
        for (int part = 0; part < parts(L, 0); ++part) s->b[0][scalar(L, 0, j, part)] = (R)rnd();
}

static void P(compare)(const layout* L, const P(set)* got, const P(set)* ref, const P(set)* pre,
                       int round) {
    double err = 0, norm = 0;
    for (size_t j = 0; j < L->count[1]; ++j)
        for (int part = 0; part < parts(L, 1); ++part) {
            ptrdiff_t k = scalar(L, 1, j, part);
            double e = (double)got->b[1][k] - (double)ref->b[1][k];
            err += e * e;
            norm += (double)ref->b[1][k] * (double)ref->b[1][k];
        }
    double rel = sqrt(err / norm), bound = BOUND * EPS * log2_size(L->n_total);
    check(rel <= bound, "round %d: relative error %.3g > %.3g (%g eps log2 N)", round, rel,
          bound, BOUND);
    for (int k = 0; k < (L->inplace ? 1 : 2); ++k) {
        size_t changed = 0, where = 0;
        for (size_t i = 0; i < L->len[k]; ++i)
            if (!L->may_change[k][i] && memcmp(&got->b[k][i], &pre->b[k][i], sizeof(R)) &&
                !changed++)
                where = i;
        check(!changed, "round %d: %zu reals of the %s buffer that the transform may not write "
                        "changed (the first at index %zu)",
              round, changed, k ? "output" : "input", where);
    }
}

/* fftw_sprint_plan / fprint_plan / flops / cost / estimate_cost on a plan of the case. */
static void P(plan_queries)(const layout* L, X(plan) p) {
    char* text = X(sprint_plan)(p);
    check(text && *text, "fftw_sprint_plan returned %s", text ? "an empty string" : "NULL");
    free(text);
    FILE* f = tmpfile();
    X(fprint_plan)(p, f);
    check(ftell(f) > 0, "fftw_fprint_plan wrote nothing");
    fclose(f);
    double add = -1, mul = -1, fma = -1;
    X(flops)(p, &add, &mul, &fma);
    /* generous: FFTW counts about 8 N log2 N for a prime size; garbage is far above */
    double total = add + mul + fma,
           limit = 1000.0 * (double)L->batches * (double)L->n_total * log2_size(2 * L->n_total);
    check(add >= 0 && mul >= 0 && fma >= 0 && (L->n_total < 2 || total > 0) && total <= limit,
          "fftw_flops: add %g mul %g fma %g (want >= 0, a positive sum of at most %g)", add, mul,
          fma, limit);
    double cost = X(cost)(p), estimate = X(estimate_cost)(p);
    check(isfinite(cost) && cost >= 0 && isfinite(estimate) && estimate >= 0,
          "fftw_cost %g, fftw_estimate_cost %g: want finite, >= 0", cost, estimate);
}

static void P(run_case)(const tcase* c) {
    layout L;
    make_layout(c, &L);
    snprintf(current, sizeof current, "%s: %s", PREC, c->name);
    P(set) a, b, pre, ref, snap;
    P(alloc)(&L, &a);
    P(alloc)(&L, &b);
    P(alloc)(&L, &pre);
    P(alloc)(&L, &ref);
    P(alloc)(&L, &snap);
    if (c->flags & FFTW_WISDOM_ONLY) {
        X(forget_wisdom)();
        if (c->wisdom) P(ref).destroy(P(plan_reference)(c, &L, &ref, FFTW_MEASURE));
    }
    /* FFTW's answer first: planning the case may give FFTW wisdom it did not have */
    X(plan) q = P(plan_reference)(c, &L, &ref, c->flags);
    if (q) P(ref).destroy(q);
    X(plan) p = P(plan_tested)(c, &L, &a);
    if (c->flags & FFTW_ESTIMATE) check(P(same)(&L, &a, &snap), "the planner wrote to the arrays");
    if (!p || (c->flags & FFTW_WISDOM_ONLY))
        check(!p == !q, "the planner returned %s, FFTW's own %s", p ? "a plan" : "NULL",
              q ? "a plan" : "NULL");
    if (p) {
        P(plan_queries)(&L, p);
        /* the first round runs fftw_execute on the planned arrays, the others run on the
         * arrays of b: new ones for a new-array execute, else the same ones with new data */
        for (int round = 0; round < (c->new_array ? 3 : 2); ++round) {
            int on_b = c->new_array && round > 0;
            P(set)* s = on_b ? &b : &a;
            P(set)* other = on_b ? &a : &b;
            P(fill_input)(&L, s);
            P(copy)(&L, &pre, s);
            P(copy)(&L, &ref, s);
            P(copy)(&L, &snap, other);
            P(execute_tested)(c, &L, p, s, on_b);
            q = P(plan_reference)(c, &L, &ref, FFTW_ESTIMATE);
            P(ref).execute(q);
            P(ref).destroy(q);
            P(compare)(&L, s, &ref, &pre, round);
            if (c->new_array)
                check(P(same)(&L, other, &snap), "round %d: the execute wrote to arrays it was "
                                                 "not given", round);
        }
        X(destroy_plan)(p);
    }
    P(release)(&L, &a);
    P(release)(&L, &b);
    P(release)(&L, &pre);
    P(release)(&L, &ref);
    P(release)(&L, &snap);
    free_layout(&L);
}

/* fftw_print_plan writes to stdout: catch it in a file. */
static void P(print_plan_check)(void) {
    snprintf(current, sizeof current, "%s: fftw_print_plan", PREC);
    C* x = X(malloc)(sizeof(C) * 360);
    X(plan) p = X(plan_dft_1d)(360, x, x, FWD, FFTW_ESTIMATE);
    check(p != NULL, "dft_1d 360 in place: no plan");
    if (p) {
        FILE* f = tmpfile();
        int saved = dup(STDOUT_FILENO);
        fflush(stdout);
        dup2(fileno(f), STDOUT_FILENO);
        X(print_plan)(p);
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
        fseek(f, 0, SEEK_END);
        check(ftell(f) > 0, "nothing printed");
        fclose(f);
        X(destroy_plan)(p);
    }
    X(free)(x);
}

static void P(run_all)(void) {
    P(load_reference)();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) P(run_case)(&cases[i]);
    P(print_plan_check)();
    snprintf(current, sizeof current, "%s: fftw_destroy_plan(NULL)", PREC);
    X(destroy_plan)(NULL); /* FFTW ignores it: so must the shim (this check is reaching here) */
    check(1, "returned");
}

#undef X
#undef P
#undef R
#undef C
#undef EPS
#undef PREC
#undef LIBRARY
#endif
