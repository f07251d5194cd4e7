/* FFTW's wisdom through libgpushim.so, for transforms the device computes, with FFTW itself
 * as the reference.
 *
 *   fftw_wisdom PLAIN                      linked -lgpushim -lfftw3[f] -lfftw3[f]_threads
 *   fftw_wisdom_plain answers FILE         the same source linked with FFTW alone
 *   fftw_wisdom_plain import DOUBLE FLOAT
 *
 * run_fftw.py runs the first with GPUSHIM_THRESHOLD=0: every transform below is bound for the
 * device, and the shim plans FFTW's CPU path with FFTW_ESTIMATE instead of the caller's
 * FFTW_MEASURE search. FFTW would have wisdom from that search; a program must see the same
 * wisdom all the same. A script, in both precisions, plans each case with FFTW_MEASURE
 * (executing it once: the report shows the device computed it), forgets wisdom, and asks
 * FFTW_WISDOM_ONLY questions: after forget_wisdom; after an FFTW_MEASURE plan; from a child
 * forked then; with FFTW_PATIENT; for the same transform through other planner forms.
 * PLAIN runs the same script with
 * FFTW alone ("answers"): every answer (a plan or NULL) must be FFTW's. Planner threads: one
 * case plans on 2; a child forked then (after the parent ran FFTW's threads) must not hang,
 * whatever it answers (the shim does not make a search on several threads there).
 * Then each case is planned again with FFTW_MEASURE, the wisdom exported to two files
 * (fftw_export_wisdom_to_filename, fftwf_export_wisdom_to_string), and PLAIN imports them
 * ("import"): FFTW alone must find wisdom for every case through the same planner calls on
 * arrays of the same alignment, and none for a transform never planned.
 *
 * Prints a FAILED line per failed check, then "N checks, M failed" (the other modes prefix
 * theirs with their name); exit status 0 when none failed, 1 otherwise, 2 on usage errors. */
#define _GNU_SOURCE
#include <fftw3.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef FFTW_WISDOM_PRECISION

#include "check_count.h"

/* The script's FFTW_WISDOM_ONLY answers, '1' a plan and '0' NULL, and what each asked. */
#define MAX_ANSWERS 256
static char answers[MAX_ANSWERS + 1];
static char questions[MAX_ANSWERS][sizeof current];
static int nanswers;

static void record_answer(int plan) {
    if (nanswers == MAX_ANSWERS) return;
    memcpy(questions[nanswers], current, sizeof current);
    answers[nanswers++] = plan ? '1' : '0';
}

enum form {
    DFT_1D,
    DFT_2D,
    DFT_R2C_2D,
    DFT_C2R_1D,
    MANY_DFT,
    MANY_1,
    GURU64_PLAIN,
    GURU64_REVERSED,
    GURU64_DFT
};

typedef struct wcase {
    const char* name;
    enum form form;
    int n[2];
    int sign; /* the complex forms */
    int inplace;
    int shift;                   /* reals before both arrays: addresses off FFTW's alignment */
    int threads;                 /* FFTW's planner threads (fftw_plan_with_nthreads) */
    const struct wcase* related; /* asked after the case's plan; a NULL name ends the list */
} wcase;

/* The same transform through other planner forms. (Not the smaller transforms a search
 * solves on its way: which ones depends on the plan FFTW_MEASURE picks, by timing, so two
 * processes need not agree even without the shim.) */
/* clang-format off */
static const wcase related_1d[] = {
    {"guru64_dft 1000 forward, no batch dimension", GURU64_PLAIN, {1000}, FFTW_FORWARD, 0, 0, 1,
     0},
    {"many_dft 1000 forward x1, distance 0", MANY_1, {1000}, FFTW_FORWARD, 0, 0, 1, 0},
    {0}};
static const wcase related_2d[] = {
    {"guru64_dft 48x40 backward in place, no batch dimension", GURU64_PLAIN, {48, 40},
     FFTW_BACKWARD, 1, 0, 1, 0},
    {0}};

static const wcase cases[] = {
    {"dft_1d 1000 forward", DFT_1D, {1000}, FFTW_FORWARD, 0, 0, 1, related_1d},
    {"dft_2d 48x40 backward in place", DFT_2D, {48, 40}, FFTW_BACKWARD, 1, 0, 1, related_2d},
    {"dft_r2c_2d 24x20", DFT_R2C_2D, {24, 20}, FFTW_FORWARD, 0, 0, 1, 0},
    {"dft_r2c_2d 24x20 in place (rows padded)", DFT_R2C_2D, {24, 20}, FFTW_FORWARD, 1, 0, 1, 0},
    {"dft_c2r_1d 96 in place", DFT_C2R_1D, {96}, FFTW_BACKWARD, 1, 0, 1, 0},
    {"guru64_dft 300 backward, negative strides", GURU64_REVERSED, {300}, FFTW_BACKWARD, 0,
     0, 1, 0},
    {"many_dft 64 x3, interleaved input", MANY_DFT, {64}, FFTW_FORWARD, 0, 0, 1, 0},
    {"guru64_dft 12x10 in a 2x3 batch", GURU64_DFT, {12, 10}, FFTW_BACKWARD, 0, 0, 1, 0},
    {"dft_1d 256, arrays 8 bytes off alignment", DFT_1D, {256}, FFTW_FORWARD, 0, 1, 1, 0},
    {"dft_1d 512, 2 planner threads", DFT_1D, {512}, FFTW_FORWARD, 0, 0, 2, 0},
};
static const wcase never_planned =
    {"dft_1d 77, never planned", DFT_1D, {77}, FFTW_FORWARD, 0, 0, 1, 0};
/* clang-format on */
#define NCASES (sizeof cases / sizeof cases[0])

/* Reals in each array: the largest case (48x40 complex) with room to spare. */
#define ARRAY_REALS 8192

#define FFTW_WISDOM_PRECISION 1
#include __FILE__
#undef FFTW_WISDOM_PRECISION
#define FFTW_WISDOM_PRECISION 2
#include __FILE__

/* Runs PLAIN with `arguments` after its path; true when it exited 0. */
static int run_plain(const char* plain, char* const arguments[3]) {
    char* argv[] = {(char*)plain, arguments[0], arguments[1], arguments[2], NULL};
    fflush(stdout);
    pid_t pid;
    int status = 0;
    return posix_spawn(&pid, plain, NULL, NULL, argv, environ) == 0 &&
           waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int make_temporary(char* path) {
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

/* FFTW's own answers to the script, from PLAIN: every answer here must be the same. */
static void compare_answers(const char* plain) {
    char file[] = "/tmp/gpushim_answers_XXXXXX";
    snprintf(current, sizeof current, "%s answers", plain);
    if (!make_temporary(file)) {
        check(0, "no temporary file");
        return;
    }
    char* arguments[3] = {"answers", file, NULL};
    int ran = run_plain(plain, arguments);
    char fftw_answers[MAX_ANSWERS + 2] = "";
    FILE* f = fopen(file, "r");
    if (f) {
        if (!fgets(fftw_answers, sizeof fftw_answers, f)) fftw_answers[0] = '\0';
        fftw_answers[strcspn(fftw_answers, "\n")] = '\0';
        fclose(f);
    }
    unlink(file);
    check(ran && (int)strlen(fftw_answers) == nanswers, "FFTW alone gave %d answers, here %d",
          (int)strlen(fftw_answers), nanswers);
    for (int i = 0; ran && i < nanswers && fftw_answers[i]; ++i) {
        memcpy(current, questions[i], sizeof current);
        check(answers[i] == fftw_answers[i], "FFTW_WISDOM_ONLY gave %s, FFTW alone %s",
              answers[i] == '1' ? "a plan" : "NULL", fftw_answers[i] == '1' ? "a plan" : "NULL");
    }
}

int main(int argc, char** argv) {
    fftw_init_threads();
    fftwf_init_threads();
    if (argc == 3 && strcmp(argv[1], "answers") == 0) {
        script_double();
        script_float();
        FILE* f = fopen(argv[2], "w");
        int written = f != NULL && fprintf(f, "%s\n", answers) > 0;
        if (f) fclose(f);
        printf("answers: %d answers%s\n", nanswers, written ? "" : ", not written");
        return written ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[1], "import") == 0) {
        import_double(argv[2]);
        import_float(argv[3]);
        printf("import: %d checks, %d failed\n", nchk, nfail);
        return nfail ? 1 : 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s PLAIN | %s answers FILE | %s import DOUBLE FLOAT\n", argv[0],
                argv[0], argv[0]);
        return 2;
    }
    script_double();
    script_float();
    compare_answers(argv[1]);

    char double_file[] = "/tmp/gpushim_wisdom_XXXXXX";
    char float_file[] = "/tmp/gpushim_wisdomf_XXXXXX";
    if (!make_temporary(double_file) || !make_temporary(float_file)) {
        perror("mkstemp");
        return 2;
    }
    export_double(double_file);
    export_float(float_file);
    snprintf(current, sizeof current, "%s import, without the shim", argv[1]);
    char* arguments[3] = {"import", double_file, float_file};
    check(run_plain(argv[1], arguments), "importing the exported wisdom: checks failed (above)");
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
        case MANY_1: {
            const int n[1] = {n0};
            p = X(plan_many_dft)(1, n, 1, in, NULL, 1, 0, out, NULL, 1, 0, c->sign, flags);
            break;
        }
        case GURU64_PLAIN: {
            const X(iodim64) dims[2] = {{n0, n1 ? n1 : 1, n1 ? n1 : 1}, {n1, 1, 1}};
            const X(iodim64) only[1] = {{n0, 1, 1}};
            p = X(plan_guru64_dft)(n1 ? 2 : 1, n1 ? dims : only, 0, NULL, in, out, c->sign, flags);
            break;
        }
        case GURU64_REVERSED: {
            /* from the arrays' last element to their first */
            const X(iodim64) dims[1] = {{n0, -1, -1}};
            p = X(plan_guru64_dft)(1, dims, 0, NULL, in + n0 - 1, out + n0 - 1, c->sign, flags);
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

/* An FFTW_MEASURE plan of the case, executed once when `execute` (on zeros: FFTW_MEASURE
 * overwrote the arrays, and a c2r input must be Hermitian). */
static void P(measure)(const wcase* c, const P(arrays) * a, int execute) {
    snprintf(current, sizeof current, "%s: %s: FFTW_MEASURE", PREC, c->name);
    X(plan) p = P(plan_case)(c, a, FFTW_MEASURE);
    check(p != NULL, "no plan");
    if (!p) return;
    if (execute) {
        memset(a->in_block, 0, sizeof(R) * (ARRAY_REALS + 2));
        X(execute)(p);
    }
    X(destroy_plan)(p);
}

/* An FFTW_WISDOM_ONLY question with `flags` (and FFTW_WISDOM_ONLY): its answer recorded. */
static void P(ask)(const wcase* c, unsigned flags, const char* when) {
    snprintf(current, sizeof current, "%s: %s: FFTW_WISDOM_ONLY | %s %s", PREC, c->name,
             flags == FFTW_PATIENT ? "FFTW_PATIENT" : "FFTW_MEASURE", when);
    P(arrays) a = P(allocate)(c);
    X(plan) p = P(plan_case)(c, &a, flags | FFTW_WISDOM_ONLY);
    record_answer(p != NULL);
    if (p) X(destroy_plan)(p);
    P(release)(&a);
}

/* The question asked by a child forked now, which must finish (in 60 s); its answer is
 * recorded when `recorded`. */
static void P(ask_in_child)(const wcase* c, int recorded, const char* when) {
    snprintf(current, sizeof current,
             "%s: %s: FFTW_WISDOM_ONLY | FFTW_MEASURE in a child forked %s", PREC, c->name, when);
    P(arrays) a = P(allocate)(c);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        X(plan) p = P(plan_case)(c, &a, FFTW_MEASURE | FFTW_WISDOM_ONLY);
        _exit(p != NULL ? 0 : 1);
    }
    int status = 0;
    int finished = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status);
    check(finished, "the child did not finish (%s)",
          pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "hung" : "killed");
    /* 0 or 1 is its answer; anything else, a child stopped by something else (a sanitizer) */
    check(!finished || WEXITSTATUS(status) <= 1, "the child exited with status %d",
          finished ? WEXITSTATUS(status) : 0);
    if (recorded) record_answer(finished && WEXITSTATUS(status) == 0);
    P(release)(&a);
}

static void P(script)(void) {
    for (size_t i = 0; i < NCASES; ++i) {
        const wcase* c = &cases[i];
        P(arrays) a = P(allocate)(c);
        X(forget_wisdom)();
        P(measure)(c, &a, 1);
        X(forget_wisdom)();
        P(ask)(c, FFTW_MEASURE, "after an FFTW_MEASURE plan and forget_wisdom");
        P(measure)(c, &a, 0);
        if (c->threads == 1) P(ask_in_child)(c, 1, "after an FFTW_MEASURE plan");
        P(ask)(c, FFTW_MEASURE, "after an FFTW_MEASURE plan");
        P(ask)(c, FFTW_PATIENT, "after an FFTW_MEASURE plan");
        for (const wcase* q = c->related; q && q->name; ++q) {
            char when[160];
            snprintf(when, sizeof when, "after an FFTW_MEASURE plan of %s", c->name);
            P(ask)(q, FFTW_MEASURE, when);
        }
        if (c->threads > 1) {
            /* the parent has run FFTW's threads (FFTW_MEASURE, or the search the shim made) */
            X(forget_wisdom)();
            P(measure)(c, &a, 0);
            P(ask_in_child)(c, 0, "after the parent ran FFTW's threads");
        }
        P(release)(&a);
    }
    P(ask)(&never_planned, FFTW_MEASURE, "");
}

static void P(export)(const char* file) {
    for (size_t i = 0; i < NCASES; ++i) {
        P(arrays) a = P(allocate)(&cases[i]);
        P(measure)(&cases[i], &a, 0);
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
        X(plan) p = P(plan_case)(c, &a, FFTW_MEASURE | FFTW_WISDOM_ONLY);
        check(!p == !(i < NCASES), "FFTW_WISDOM_ONLY with the exported wisdom: %s",
              p ? "a plan" : "NULL");
        if (p) X(destroy_plan)(p);
        P(release)(&a);
    }
}

#undef X
#undef P
#undef R
#undef C
#undef PREC
#endif
