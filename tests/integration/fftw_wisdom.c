/* FFTW's wisdom through libgpushim.so, for transforms the device computes.
 *
 *   fftw_wisdom IMPORTER                      linked -lgpushim -lfftw3 -lfftw3f (+ threads)
 *   fftw_wisdom_plain import DOUBLE FLOAT     the same source linked with FFTW alone
 *
 * run_fftw.py runs the first with GPUSHIM_THRESHOLD=0: every transform below is bound for the
 * device, and the shim plans FFTW's CPU path with FFTW_ESTIMATE instead of the caller's
 * FFTW_MEASURE search. FFTW would have wisdom from that search; a program must see it all the
 * same. For each case, in both precisions:
 *   - an FFTW_MEASURE plan is made, executed once (the report shows the device computed it)
 *     and destroyed;
 *   - after forget_wisdom, FFTW_WISDOM_ONLY gives none;
 *   - planned with FFTW_MEASURE again, FFTW_WISDOM_ONLY | FFTW_MEASURE gives a plan (in a
 *     child forked then, where the device is not usable, too), and FFTW_WISDOM_ONLY |
 *     FFTW_PATIENT none (a MEASURE search answers no PATIENT question).
 * Then each case is planned again with FFTW_MEASURE, the wisdom is exported to two files
 * (fftw_export_wisdom_to_filename, fftwf_export_wisdom_to_string), and IMPORTER, a process
 * without the shim, imports them: FFTW itself must find wisdom for every case through the
 * same planner calls on arrays of the same alignment, and none for a transform never planned.
 *
 * Built against plain FFTW, the first part passes as well: it checks properties of FFTW.
 * Prints a FAILED line per failed check, then "N checks, M failed" (the importer prefixes its
 * line with "import: "); exit status 0 when none failed, 1 otherwise, 2 on usage errors. */
#define _GNU_SOURCE
#include <fftw3.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef FFTW_WISDOM_PRECISION

static int nchk, nfail;
static char current[160]; /* the case being checked, for the messages */

static void check(int ok, const char* fmt, ...) {
    va_list ap;
    ++nchk;
    if (ok) return;
    ++nfail;
    printf("FAILED: %s: ", current);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

enum form { DFT_1D, DFT_2D, DFT_R2C_2D, DFT_C2R_1D, MANY_DFT, GURU64_DFT };

typedef struct {
    const char* name;
    enum form form;
    int n[2];
    int sign; /* the complex forms */
    int inplace;
    int shift;   /* reals before both arrays: addresses off FFTW's alignment */
    int threads; /* FFTW's planner threads (fftw_plan_with_nthreads) */
} wcase;

static const wcase cases[] = {
    {"dft_1d 1000 forward", DFT_1D, {1000}, FFTW_FORWARD, 0, 0, 1},
    {"dft_2d 48x40 backward in place", DFT_2D, {48, 40}, FFTW_BACKWARD, 1, 0, 1},
    {"dft_r2c_2d 24x20", DFT_R2C_2D, {24, 20}, FFTW_FORWARD, 0, 0, 1},
    {"dft_c2r_1d 96 in place", DFT_C2R_1D, {96}, FFTW_BACKWARD, 1, 0, 1},
    {"many_dft 64 x3, interleaved input", MANY_DFT, {64}, FFTW_FORWARD, 0, 0, 1},
    {"guru64_dft 12x10 in a 2x3 batch", GURU64_DFT, {12, 10}, FFTW_BACKWARD, 0, 0, 1},
    {"dft_1d 256, arrays 8 bytes off alignment", DFT_1D, {256}, FFTW_FORWARD, 0, 1, 1},
    {"dft_1d 512, 2 planner threads", DFT_1D, {512}, FFTW_FORWARD, 0, 0, 2},
};
static const wcase never_planned = {
    "dft_1d 77, never planned", DFT_1D, {77}, FFTW_FORWARD, 0, 0, 1};
#define NCASES (sizeof cases / sizeof cases[0])

/* Reals in each array: the largest case (48x40 complex) with room to spare. */
#define ARRAY_REALS 8192

#define FFTW_WISDOM_PRECISION 1
#include __FILE__
#undef FFTW_WISDOM_PRECISION
#define FFTW_WISDOM_PRECISION 2
#include __FILE__

/* Runs `importer import DOUBLE FLOAT`: its checks are its own; its exit status is one here. */
static void run_importer(const char* importer, char* double_file, char* float_file) {
    snprintf(current, sizeof current, "%s, without the shim", importer);
    char* argv[] = {(char*)importer, "import", double_file, float_file, NULL};
    fflush(stdout);
    pid_t pid;
    int status = 0;
    int spawned = posix_spawn(&pid, importer, NULL, NULL, argv, environ) == 0 &&
                  waitpid(pid, &status, 0) == pid;
    check(spawned && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "importing the exported wisdom: %s",
          spawned ? "checks failed (above)" : "could not run it");
}

int main(int argc, char** argv) {
    fftw_init_threads();
    fftwf_init_threads();
    if (argc == 4 && strcmp(argv[1], "import") == 0) {
        import_double(argv[2]);
        import_float(argv[3]);
        printf("import: %d checks, %d failed\n", nchk, nfail);
        return nfail ? 1 : 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s IMPORTER | %s import DOUBLE_WISDOM FLOAT_WISDOM\n", argv[0],
                argv[0]);
        return 2;
    }
    char double_file[] = "/tmp/gpushim_wisdom_XXXXXX";
    char float_file[] = "/tmp/gpushim_wisdomf_XXXXXX";
    int double_fd = mkstemp(double_file), float_fd = mkstemp(float_file);
    if (double_fd < 0 || float_fd < 0) {
        perror("mkstemp");
        return 2;
    }
    close(double_fd);
    close(float_fd);
    export_double(double_file);
    export_float(float_file);
    run_importer(argv[1], double_file, float_file);
    unlink(double_file);
    unlink(float_file);
    printf("%d checks, %d failed\n", nchk, nfail);
    return nfail ? 1 : 0;
}

#else /* the precision part, included twice above: FFTW's X() mangling, as in fftw3.h */

#if FFTW_WISDOM_PRECISION == 1
#define X(name) fftw_##name
#define P(name) name##_double
#define R double
#define C fftw_complex
#define PREC "double"
#else
#define X(name) fftwf_##name
#define P(name) name##_float
#define R float
#define C fftwf_complex
#define PREC "float"
#endif

typedef struct {
    R* in_block;
    R* out_block;
    R* in;
    R* out;
} P(arrays);

static P(arrays) P(allocate)(const wcase* c) {
    P(arrays) a;
    a.in_block = X(alloc_real)(ARRAY_REALS + 2);
    a.out_block = X(alloc_real)(ARRAY_REALS + 2);
    memset(a.in_block, 0, sizeof(R) * (ARRAY_REALS + 2));
    memset(a.out_block, 0, sizeof(R) * (ARRAY_REALS + 2));
    a.in = a.in_block + c->shift;
    a.out = c->inplace ? a.in : a.out_block + c->shift;
    return a;
}

static void P(release)(P(arrays) * a) {
    X(free)(a->in_block);
    X(free)(a->out_block);
}

/* The case's planner call, with `flags`. */
static X(plan) P(plan_case)(const wcase* c, const P(arrays) * a, unsigned flags) {
    C* in = (C*)a->in;
    C* out = (C*)a->out;
    int n0 = c->n[0], n1 = c->n[1];
    X(plan_with_nthreads)(c->threads);
    X(plan) p = NULL;
    switch (c->form) {
        case DFT_1D:
            p = X(plan_dft_1d)(n0, in, out, c->sign, flags);
            break;
        case DFT_2D:
            p = X(plan_dft_2d)(n0, n1, in, out, c->sign, flags);
            break;
        case DFT_R2C_2D:
            p = X(plan_dft_r2c_2d)(n0, n1, a->in, out, flags);
            break;
        case DFT_C2R_1D:
            p = X(plan_dft_c2r_1d)(n0, in, a->out, flags);
            break;
        case MANY_DFT: {
            const int n[1] = {n0};
            p = X(plan_many_dft)(1, n, 3, in, NULL, 3, 1, out, NULL, 1, n0, c->sign, flags);
            break;
        }
        case GURU64_DFT: {
            const X(iodim64) dims[2] = {{n0, n1, n1}, {n1, 1, 1}};
            const X(iodim64) batch[2] = {{2, 3 * n0 * n1, 3 * n0 * n1}, {3, n0 * n1, n0 * n1}};
            p = X(plan_guru64_dft)(2, dims, 2, batch, in, out, c->sign, flags);
            break;
        }
    }
    X(plan_with_nthreads)(1);
    return p;
}

/* Plans with `flags`: a plan or none, as `want_plan` says; destroys what it got. */
static void P(expect_plan)(const wcase* c, const P(arrays) * a, unsigned flags, int want_plan,
                           const char* what) {
    X(plan) p = P(plan_case)(c, a, flags);
    check(!p == !want_plan, "%s: %s", what, p ? "a plan" : "NULL");
    if (p) X(destroy_plan)(p);
}

/* FFTW_WISDOM_ONLY in a child forked now, where no device is usable: a plan. */
static void P(expect_plan_in_child)(const wcase* c, const P(arrays) * a) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        X(plan) p = P(plan_case)(c, a, FFTW_MEASURE | FFTW_WISDOM_ONLY);
        _exit(p != NULL ? 0 : 1);
    }
    int status = 0;
    int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
    check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "FFTW_WISDOM_ONLY in a child forked after an FFTW_MEASURE plan: %s",
          waited ? "NULL" : "no child");
}

static void P(export)(const char* file) {
    for (size_t i = 0; i < NCASES; ++i) {
        const wcase* c = &cases[i];
        snprintf(current, sizeof current, "%s: %s", PREC, c->name);
        P(arrays) a = P(allocate)(c);
        X(forget_wisdom)();
        X(plan) p = P(plan_case)(c, &a, FFTW_MEASURE);
        check(p != NULL, "FFTW_MEASURE: no plan");
        if (p) {
            /* zeros: FFTW_MEASURE overwrote the arrays, and a c2r input must be Hermitian */
            memset(a.in_block, 0, sizeof(R) * (ARRAY_REALS + 2));
            X(execute)(p);
            X(destroy_plan)(p);
        }
        X(forget_wisdom)();
        P(expect_plan)
        (c, &a, FFTW_MEASURE | FFTW_WISDOM_ONLY, 0,
         "FFTW_WISDOM_ONLY after an FFTW_MEASURE plan and forget_wisdom");
        p = P(plan_case)(c, &a, FFTW_MEASURE);
        if (p) X(destroy_plan)(p);
        /* FFTW's threads are not in a forked child: only single-threaded planning there */
        if (c->threads == 1) P(expect_plan_in_child)(c, &a);
        P(expect_plan)
        (c, &a, FFTW_MEASURE | FFTW_WISDOM_ONLY, 1,
         "FFTW_WISDOM_ONLY | FFTW_MEASURE after an FFTW_MEASURE plan (FFTW has "
         "its search's wisdom)");
        P(expect_plan)
        (c, &a, FFTW_PATIENT | FFTW_WISDOM_ONLY, 0,
         "FFTW_WISDOM_ONLY | FFTW_PATIENT after an FFTW_MEASURE plan");
        P(release)(&a);
    }
    for (size_t i = 0; i < NCASES; ++i) {
        P(arrays) a = P(allocate)(&cases[i]);
        X(plan) p = P(plan_case)(&cases[i], &a, FFTW_MEASURE);
        if (p) X(destroy_plan)(p);
        P(release)(&a);
    }
    snprintf(current, sizeof current, "%s: exporting wisdom to %s", PREC, file);
#if FFTW_WISDOM_PRECISION == 1
    check(X(export_wisdom_to_filename)(file) == 1, "fftw_export_wisdom_to_filename failed");
#else
    char* text = X(export_wisdom_to_string)();
    FILE* f = fopen(file, "w");
    check(text != NULL && f != NULL && fputs(text, f) >= 0, "fftwf_export_wisdom_to_string");
    if (f) fclose(f);
    free(text);
#endif
}

static void P(import)(const char* file) {
    snprintf(current, sizeof current, "%s: importing %s", PREC, file);
    X(forget_wisdom)();
    check(X(import_wisdom_from_filename)(file) == 1, "not a wisdom file");
    for (size_t i = 0; i <= NCASES; ++i) {
        const wcase* c = i < NCASES ? &cases[i] : &never_planned;
        snprintf(current, sizeof current, "%s: %s", PREC, c->name);
        P(arrays) a = P(allocate)(c);
        P(expect_plan)
        (c, &a, FFTW_MEASURE | FFTW_WISDOM_ONLY, i < NCASES,
         "FFTW_WISDOM_ONLY with the exported wisdom");
        P(release)(&a);
    }
}

#undef X
#undef P
#undef R
#undef C
#undef PREC
#endif
