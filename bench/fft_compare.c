/* FFT timings for the GPU check (bench/gpu_check.sh), through the plain FFTW3 API.
 *
 * One source, three columns of the FFT table (bench/fft_table.py):
 *   fft_compare --label fftw      built against FFTW and libfftw3_threads: all cores
 *   fft_compare --label gpushim   the same binary under LD_PRELOAD=libgpushim.so with
 *                                 GPUSHIM_THRESHOLD=0: the shim's plans, host data
 *   fft_compare --label cufftw    built with -DFFT_COMPARE_CUFFTW against cuFFTW
 *                                 (cufftw.h, -lcufftw -lcufft), NVIDIA's FFTW interface
 *
 * Cells (--cells, comma-separated): TYPE:DIMS[*HOWMANY]. TYPE is c2c (complex to
 * complex) or r2c (real to half spectrum, checked back through c2r); DIMS are 1 to 3
 * sizes joined by 'x', each an integer or a power B^E and a multiple of 4 (the spectrum
 * check needs n/4); HOWMANY transforms of DIMS, one after another, make one plan
 * (fftw_plan_many_dft*). Double precision, out of place. Examples: c2c:2^20,
 * c2c:8192x8192, c2c:512x512x512, c2c:2^16*1024, r2c:8192x8192.
 *
 * Per cell: forward and backward plans with FFTW_ESTIMATE (planning stays a fraction of a
 * second; FFTW_MEASURE would try algorithms for minutes at these sizes, and the shim
 * never searches for a GPU-bound plan), the input filled and the output zeroed (page
 * faults), one warm-up execute (thread pools, the shim's plugin and cuFFT plan), the two
 * checks, then up to --reps timed executes, fewer once they took --cell-seconds: the
 * wall clock of each fftw_execute, median and best. A batched plan's time is that of
 * the whole batch. Before every timed execute one input element changes, so a copy of
 * an unchanged input kept on the device cannot turn a host-data column into a
 * compute-only one.
 *
 * Checks (against the input, a pseudo-random sequence generated again for the comparison
 * rather than kept in a second copy):
 *   spectrum   the forward transform at n/4 along the first and along the last axis, in
 *              the first and in the last transform of a batch, against the direct sum
 *              sum_j x_j (-i)^(j_axis) (exact phases, compensated sums): catches a wrong
 *              sign, axis order or batch layout, which a round trip cannot see;
 *   roundtrip  backward(forward(x)) = N x at every element (FFTW's transforms are
 *              unnormalized): catches everything else.
 * Errors are relative to |x|_2 (the size of a spectral value of a random x) and to
 * N |x|_2; both must be <= 32 log2(N) eps.
 *
 * Budget: cells run cheapest first (by flops); a cell whose predicted time (from the
 * previous cell's rate) does not fit in what is left of --budget is recorded as skipped
 * with that prediction. SIGTERM (the step's timeout) lets the running execute finish,
 * then ends the program normally, so the shim still writes its report at exit.
 *
 * Output: one JSON object per line, on stdout and appended to --out: an "info" record,
 * then per cell a "start" record and one "fft" record: measured (seconds_per_transform,
 * best_s, gflops by 5 N log2 N per complex transform, half that for r2c; check, errors,
 * executes per routine name of the shim's report), skipped (predicted_s) or error
 * ("n/a: ..." where a plan could not be made, as cuFFTW without a GPU). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef FFT_COMPARE_CUFFTW
#include <cufftw.h>
#else
#include <fftw3.h>
#endif

#define MAX_CELLS 64
/* Before any cell is measured: a conservative rate and host-side cost per point. */
#define PRIOR_GFLOPS 2.0
#define PRIOR_HOST_SECONDS_PER_POINT 40e-9

typedef struct {
    char spec[64];
    int r2c;
    int rank;
    int dims[3];
    long howmany;
    double points; /* per transform */
    double flops;  /* per execute: all howmany transforms */
} cell_t;

static volatile sig_atomic_t stop_requested;
static void on_sigterm(int sig) {
    (void)sig;
    stop_requested = 1;
}

static struct timespec t_origin;
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t_origin.tv_sec) + 1e-9 * (double)(t.tv_nsec - t_origin.tv_nsec);
}

/* --------------------------------------------------------------------- JSON output */

static FILE* out_file;
static char line[4096];
static size_t line_len;

static void put(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + line_len, sizeof line - line_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        line_len += (size_t)n < sizeof line - line_len ? (size_t)n : sizeof line - line_len - 1;
}

static void put_str(const char* key, const char* value) {
    put("%s\"%s\": \"", line_len > 1 ? ", " : "", key);
    for (const char* c = value; *c; ++c) {
        if (*c == '"' || *c == '\\')
            put("\\%c", *c);
        else if ((unsigned char)*c < 0x20)
            put("\\u%04x", *c);
        else
            put("%c", *c);
    }
    put("\"");
}

static void put_num(const char* key, double value) {
    /* JSON has no NaN or infinity: a non-finite error is written as null. */
    if (isfinite(value))
        put("%s\"%s\": %.6g", line_len > 1 ? ", " : "", key, value);
    else
        put("%s\"%s\": null", line_len > 1 ? ", " : "", key);
}

static void put_int(const char* key, double value) {
    put("%s\"%s\": %.0f", line_len > 1 ? ", " : "", key, value);
}

static void begin_record(const char* kind, const char* label) {
    line_len = 0;
    put("{");
    put_str("kind", kind);
    put_str("label", label);
}

static void end_record(void) {
    put_num("t", now());
    put("}\n");
    fputs(line, stdout);
    fflush(stdout);
    if (out_file) {
        fputs(line, out_file);
        fflush(out_file);
    }
}

static void put_cell(const cell_t* c) {
    put_str("cell", c->spec);
    put_str("type", c->r2c ? "r2c" : "c2c");
    put("%s\"dims\": [%d", ", ", c->dims[0]);
    for (int a = 1; a < c->rank; ++a) put(", %d", c->dims[a]);
    put("]");
    put_int("n", c->points);
    put_int("howmany", (double)c->howmany);
    put_str("prec", "d");
}

/* ----------------------------------------------------------------------- the cells */

/* An integer or B^E; returns the position after it, or NULL. */
static const char* parse_size(const char* s, long* value) {
    char* end;
    long base = strtol(s, &end, 10);
    if (end == s || base < 1) return NULL;
    if (*end == '^') {
        const char* e = end + 1;
        long exponent = strtol(e, &end, 10);
        if (end == e || exponent < 0 || exponent > 40) return NULL;
        long v = 1;
        for (long i = 0; i < exponent; ++i) {
            if (v > (1L << 40) / base) return NULL;
            v *= base;
        }
        base = v;
    }
    *value = base;
    return end;
}

static int parse_cell(const char* text, size_t len, cell_t* c) {
    memset(c, 0, sizeof *c);
    if (len >= sizeof c->spec) return -1;
    memcpy(c->spec, text, len);
    const char* s = c->spec;
    if (strncmp(s, "c2c:", 4) == 0)
        c->r2c = 0;
    else if (strncmp(s, "r2c:", 4) == 0)
        c->r2c = 1;
    else
        return -1;
    s += 4;
    c->points = 1;
    for (;;) {
        long v;
        if (c->rank == 3 || !(s = parse_size(s, &v)) || v % 4 != 0 || v > (1L << 30)) return -1;
        c->dims[c->rank++] = (int)v;
        c->points *= (double)v;
        if (*s != 'x') break;
        ++s;
    }
    c->howmany = 1;
    if (*s == '*' && !(s = parse_size(s + 1, &c->howmany))) return -1;
    if (*s != '\0') return -1;
    c->flops = (c->r2c ? 2.5 : 5.0) * c->points * log2(c->points) * (double)c->howmany;
    return 0;
}

/* Complex elements of the forward output of one transform. */
static double out_points(const cell_t* c) {
    int last = c->dims[c->rank - 1];
    return c->r2c ? c->points / last * (last / 2 + 1) : c->points;
}

/* The input: uniform in [-1, 1), the same sequence in every pass (filling, the round
 * trip's comparison), so it needs no second copy. The top bits of a 64-bit LCG: cheap
 * enough that the checks of a 2^27-point cell stay near a second. */
typedef struct {
    uint64_t state;
} sequence_t;
static inline double next_value(sequence_t* s) {
    s->state = s->state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(s->state >> 11) * 0x1p-52 - 1.0;
}

static double total_points(const cell_t* c) {
    return c->points * (double)c->howmany;
}

/* Also zeroes the output: its pages are faulted in here, not inside the warm-up execute,
 * whose time then predicts the next cell's better. */
static void fill(const cell_t* c, double* in, fftw_complex* out) {
    sequence_t seq = {1};
    const uint64_t reals = (uint64_t)total_points(c) * (c->r2c ? 1 : 2);
    for (uint64_t i = 0; i < reals; ++i) in[i] = next_value(&seq);
    memset(out, 0, (size_t)(out_points(c) * (double)c->howmany) * sizeof(fftw_complex));
}

typedef struct {
    double sum, carry;
} kahan_t;
static inline void kahan_add(kahan_t* k, double v) {
    double y = v - k->carry, t = k->sum + y;
    k->carry = (t - k->sum) - y;
    k->sum = t;
}

/* z (-i)^m */
static inline void rotate(double* re, double* im, unsigned m) {
    double r = *re, i = *im;
    switch (m & 3) {
        case 0:
            break;
        case 1:
            *re = i;
            *im = -r;
            break;
        case 2:
            *re = -r;
            *im = -i;
            break;
        default:
            *re = -i;
            *im = r;
            break;
    }
}

/* Largest error of the spectral values at n/4 along the first and along the last axis,
 * in the first and in the last transform, relative to that transform's |x|_2; x is read
 * from `in`, which an out-of-place forward transform preserves (FFTW's contract; were it
 * broken, the round trip would see it). Summed in chunks: plain sums within a chunk per
 * index mod 4 along the last axis (whose phase is constant within the chunk along the
 * first axis), compensated sums across chunks. */
static double spectrum_error(const cell_t* c, const double* in, fftw_complex* X) {
    const int r = c->rank, last = c->dims[r - 1];
    const uint64_t points = (uint64_t)c->points, opoints = (uint64_t)out_points(c);
    const int comps = c->r2c ? 1 : 2;
    uint64_t chunk = (uint64_t)last;
    while (chunk > 4096 && chunk % 8 == 0) chunk /= 2;
    const uint64_t first_stride = points / (uint64_t)c->dims[0];   /* input, elements */
    const uint64_t first_ostride = opoints / (uint64_t)c->dims[0]; /* output */
    double worst = 0;
    const long batches[2] = {0, c->howmany - 1};
    for (int bi = 0; bi < (c->howmany > 1 ? 2 : 1); ++bi) {
        const double* x = in + (uint64_t)batches[bi] * points * (uint64_t)comps;
        kahan_t lre = {0, 0}, lim = {0, 0}, fre = {0, 0}, fim = {0, 0}, norm2 = {0, 0};
        for (uint64_t j0 = 0; j0 < points; j0 += chunk) {
            double pre[4] = {0, 0, 0, 0}, pim[4] = {0, 0, 0, 0}, sq = 0;
            for (uint64_t j = 0; j < chunk; ++j) {
                const double xr = x[(j0 + j) * (uint64_t)comps],
                             xi = comps == 2 ? x[(j0 + j) * 2 + 1] : 0.0;
                pre[j & 3] += xr;
                pim[j & 3] += xi;
                sq += xr * xr + xi * xi;
            }
            double tre = 0, tim = 0;
            for (unsigned m = 0; m < 4; ++m) {
                double a = pre[m], b = pim[m];
                tre += a;
                tim += b;
                rotate(&a, &b, m);
                kahan_add(&lre, a);
                kahan_add(&lim, b);
            }
            rotate(&tre, &tim, (unsigned)(j0 / first_stride));
            kahan_add(&fre, tre);
            kahan_add(&fim, tim);
            kahan_add(&norm2, sq);
        }
        fftw_complex* spectrum = X + (uint64_t)batches[bi] * opoints;
        const double scale = sqrt(norm2.sum);
        const double* got[2] = {spectrum[last / 4],
                                spectrum[(uint64_t)(c->dims[0] / 4) * first_ostride]};
        const double want[2][2] = {{lre.sum, lim.sum}, {fre.sum, fim.sum}};
        for (int k = 0; k < (r > 1 ? 2 : 1); ++k) {
            double e = hypot(got[k][0] - want[k][0], got[k][1] - want[k][1]) / scale;
            if (isnan(e) || e > worst) worst = e; /* a NaN stays */
        }
    }
    return worst;
}

/* |y - N x|_2 / (N |x|_2) over all transforms; y is the backward output (in `in`). */
static double roundtrip_error(const cell_t* c, const double* y) {
    sequence_t seq = {1};
    const uint64_t reals = (uint64_t)total_points(c) * (c->r2c ? 1 : 2);
    double diff2 = 0, norm2 = 0;
    for (uint64_t i = 0; i < reals; ++i) {
        const double x = next_value(&seq), d = y[i] - c->points * x;
        diff2 += d * d;
        norm2 += x * x;
    }
    return sqrt(diff2) / (c->points * sqrt(norm2));
}

static void plan_cell(const cell_t* c, void* in, void* out, fftw_plan* fwd, fftw_plan* bwd) {
    const unsigned flags = FFTW_ESTIMATE;
    const int* n = c->dims;
    if (c->howmany == 1 && !c->r2c) {
        *fwd = fftw_plan_dft(c->rank, n, in, out, FFTW_FORWARD, flags);
        *bwd = fftw_plan_dft(c->rank, n, out, in, FFTW_BACKWARD, flags);
    } else if (c->howmany == 1) {
        *fwd = fftw_plan_dft_r2c(c->rank, n, in, out, flags);
        *bwd = fftw_plan_dft_c2r(c->rank, n, out, in, flags);
    } else {
        const int h = (int)c->howmany, ip = (int)c->points, op = (int)out_points(c);
        if (!c->r2c) {
            *fwd = fftw_plan_many_dft(c->rank, n, h, in, NULL, 1, ip, out, NULL, 1, ip,
                                      FFTW_FORWARD, flags);
            *bwd = fftw_plan_many_dft(c->rank, n, h, out, NULL, 1, ip, in, NULL, 1, ip,
                                      FFTW_BACKWARD, flags);
        } else {
            *fwd = fftw_plan_many_dft_r2c(c->rank, n, h, in, NULL, 1, ip, out, NULL, 1, op, flags);
            *bwd = fftw_plan_many_dft_c2r(c->rank, n, h, out, NULL, 1, op, in, NULL, 1, ip, flags);
        }
    }
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* What the previous cell measured, for predicting the next one. */
typedef struct {
    double gflops;                 /* timed executes */
    double host_seconds_per_point; /* filling and checking, per input point */
} rates_t;

static double predict(const cell_t* c, const rates_t* rt, int reps, double cell_seconds) {
    double t = c->flops / (rt->gflops * 1e9);
    double timed = ceil(cell_seconds / t);
    if (timed > reps) timed = reps;
    if (timed < 1) timed = 1;
    /* warm-up and backward; 1.5: larger transforms run at a lower rate (out of cache) and
     * first executes set up plans and transfers */
    return 1.5 * (2 + timed) * t + rt->host_seconds_per_point * total_points(c);
}

typedef struct {
    const char* label;
    int reps;
    double cell_seconds;
    double budget;
} options_t;

/* `in` and `out` are the program's two buffers, large enough for every cell: reused, so
 * pages are faulted in once, not once per cell. */
static void run_cell(const cell_t* c, const options_t* o, rates_t* rt, double predicted, double* in,
                     fftw_complex* out) {
    begin_record("start", o->label);
    put_cell(c);
    end_record();

    const double t_cell = now();
    fftw_plan fwd = NULL, bwd = NULL;
    double t0 = now();
    plan_cell(c, in, out, &fwd, &bwd);
    const double plan_s = now() - t0;
    if (!fwd || !bwd) {
        begin_record("fft", o->label);
        put_cell(c);
        put_str("error", "n/a: the plan could not be made (fftw_plan_* returned NULL)");
        end_record();
        if (fwd) fftw_destroy_plan(fwd);
        if (bwd) fftw_destroy_plan(bwd);
        return;
    }

    double host_s = 0;
    t0 = now();
    fill(c, in, out);
    host_s += now() - t0;

    t0 = now();
    fftw_execute(fwd);
    const double first_s = now() - t0;
    t0 = now();
    const double err_spectrum = spectrum_error(c, in, out);
    host_s += now() - t0;
    t0 = now();
    fftw_execute(bwd);
    const double backward_s = now() - t0;
    t0 = now();
    const double err_roundtrip = roundtrip_error(c, in);
    host_s += now() - t0;

    double times[64];
    int timed = 0;
    const int max_reps = o->reps < 64 ? o->reps : 64;
    const double t_loop = now();
    while (timed < max_reps &&
           (timed == 0 || (now() - t_loop < o->cell_seconds && !stop_requested))) {
        in[(size_t)timed * (c->r2c ? 1 : 2)] += 1.0; /* the real part of element `timed` */
        t0 = now();
        fftw_execute(fwd);
        times[timed++] = now() - t0;
    }
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);

    qsort(times, (size_t)timed, sizeof(double), cmp_double);
    const double median =
        timed % 2 ? times[timed / 2] : 0.5 * (times[timed / 2 - 1] + times[timed / 2]);
    const double tol = 32.0 * log2(c->points) * 0x1p-52;
    const int ok = err_spectrum <= tol && err_roundtrip <= tol;

    begin_record("fft", o->label);
    put_cell(c);
    put_num("seconds_per_transform", median);
    put_num("best_s", times[0]);
    put_int("reps", timed);
    put_num("gflops", c->flops / median * 1e-9);
    put_num("first_s", first_s);
    put_num("backward_s", backward_s);
    put_num("plan_s", plan_s);
    put_num("host_s", host_s);
    put_num("cell_s", now() - t_cell);
    put_num("predicted_s", predicted);
    put_str("check", ok ? "ok" : "FAIL");
    put_num("err_spectrum", err_spectrum);
    put_num("err_roundtrip", err_roundtrip);
    put_num("tol", tol);
    /* Per routine name of the shim's report: the warm-up and timed forward executes, one backward.
     */
    if (c->r2c)
        put(", \"executes\": {\"fftw_dft_r2c\": %d, \"fftw_dft_c2r\": 1}", timed + 1);
    else
        put(", \"executes\": {\"fftw_dft\": %d}", timed + 2);
    if (stop_requested) put_str("note", "timed executes cut short by SIGTERM");
    end_record();

    rt->gflops = c->flops / median * 1e-9;
    rt->host_seconds_per_point = host_s / total_points(c);
}

static int by_flops(const void* a, const void* b) {
    return cmp_double(&((const cell_t*)a)->flops, &((const cell_t*)b)->flops);
}

static int usage(const char* why) {
    fprintf(
        stderr,
        "fft_compare: %s\nusage: fft_compare --label L --cells TYPE:DIMS[*HOWMANY],... [--reps 5]\n"
        "       [--cell-seconds 1.5] [--budget 60] [--out FILE]\n",
        why);
    return 2;
}

int main(int argc, char** argv) {
    clock_gettime(CLOCK_MONOTONIC, &t_origin);
    options_t o = {NULL, 5, 1.5, 60.0};
    const char* cells_text = NULL;
    const char* out_path = NULL;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (i + 1 >= argc) return usage("every option takes a value");
        const char* v = argv[++i];
        if (!strcmp(a, "--label"))
            o.label = v;
        else if (!strcmp(a, "--cells"))
            cells_text = v;
        else if (!strcmp(a, "--reps"))
            o.reps = atoi(v);
        else if (!strcmp(a, "--cell-seconds"))
            o.cell_seconds = atof(v);
        else if (!strcmp(a, "--budget"))
            o.budget = atof(v);
        else if (!strcmp(a, "--out"))
            out_path = v;
        else
            return usage("unknown option");
    }
    if (!o.label || !cells_text) return usage("--label and --cells are required");
    if (o.reps < 1) return usage("--reps must be positive");

    cell_t cells[MAX_CELLS];
    int ncells = 0;
    for (const char* s = cells_text; *s;) {
        size_t len = strcspn(s, ",");
        if (ncells == MAX_CELLS || parse_cell(s, len, &cells[ncells]) != 0) {
            fprintf(stderr,
                    "fft_compare: bad cell '%.*s' (TYPE:DIMS[*HOWMANY], e.g. c2c:2^20, "
                    "r2c:4096x4096, c2c:2^16*1024; sizes multiples of 4)\n",
                    (int)len, s);
            return 2;
        }
        ++ncells;
        s += len + (s[len] == ',');
    }
    qsort(cells, (size_t)ncells, sizeof *cells, by_flops);
    double in_reals = 0, out_complex = 0;
    for (int i = 0; i < ncells; ++i) {
        in_reals = fmax(in_reals, total_points(&cells[i]) * (cells[i].r2c ? 1 : 2));
        out_complex = fmax(out_complex, out_points(&cells[i]) * (double)cells[i].howmany);
    }

    if (out_path && !(out_file = fopen(out_path, "a"))) {
        perror(out_path);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, NULL);

    begin_record("info", o.label);
#ifdef FFT_COMPARE_CUFFTW
    int cufft_version = 0;
    cufftGetVersion(&cufft_version);
    char impl[64];
    snprintf(impl, sizeof impl, "cuFFTW (cuFFT %d)", cufft_version);
    put_str("impl", impl);
#else
    /* libfftw3_threads' own pthreads pool (no OpenMP runtime in the process), all cores. */
    const long threads = sysconf(_SC_NPROCESSORS_ONLN);
    fftw_init_threads();
    fftw_plan_with_nthreads((int)threads);
    put_str("impl", fftw_version);
    put_int("threads", (double)threads);
#endif
    const char* preload = getenv("LD_PRELOAD");
    put_str("preload", preload ? preload : "");
    put_str("planner", "FFTW_ESTIMATE");
    put_num("budget", o.budget);
    end_record();

    double* in = fftw_malloc((size_t)in_reals * sizeof(double));
    fftw_complex* out = fftw_malloc((size_t)out_complex * sizeof(fftw_complex));
    if (!in || !out) {
        fprintf(stderr, "fft_compare: cannot allocate %.1f GB for the buffers\n",
                (in_reals * sizeof(double) + out_complex * sizeof(fftw_complex)) / 1e9);
        return 1;
    }
    rates_t rt = {PRIOR_GFLOPS, PRIOR_HOST_SECONDS_PER_POINT};
    for (int i = 0; i < ncells; ++i) {
        const cell_t* c = &cells[i];
        const double predicted = predict(c, &rt, o.reps, o.cell_seconds);
        const double left = o.budget - now();
        if (stop_requested || predicted > left) {
            begin_record("fft", o.label);
            put_cell(c);
            put_str("skipped", stop_requested ? "stopped (SIGTERM)" : "budget");
            put_num("predicted_s", predicted);
            put_num("left_s", left);
            end_record();
            continue;
        }
        run_cell(c, &o, &rt, predicted, in, out);
    }
    fftw_free(in);
    fftw_free(out);
    if (out_file) fclose(out_file);
    return 0;
}
