/* What an in-place FFT costs through the shim against the same transform out of place, in one
 * process: c2c double, HOWMANY transforms of N points, one FFTW_ESTIMATE plan each, executes
 * alternating (the input written again before each, outside the timed execute); prints the
 * median execute time of each and their ratio. The shim copies an in-place transform's input
 * aside before its output overwrites it (to put it back should the device fail): this
 * measures what that costs.
 *
 *   GPUSHIM_BACKEND=hostsim GPUSHIM_THRESHOLD=0 build/fft_in_place_cost [N [HOWMANY [REPS]]]
 *
 * (or on a GPU, with the CUDA plugin). Defaults 1024 x 16384 (256 MiB), 7 repetitions.
 * Goal: in place within 10% of out of place. Exits 1 when the in-place result differs from
 * the out-of-place one by more than 32 log2(N) eps relative to its 2-norm. */
#define _POSIX_C_SOURCE 200809L

#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* values, int count) {
    qsort(values, (size_t)count, sizeof(double), by_value);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void fill(fftw_complex* x, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        x[i][0] = (double)(i * 7919 % 1009) / 1009.0 - 0.5;
        x[i][1] = (double)(i * 104729 % 1013) / 1013.0 - 0.5;
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1024;
    const int howmany = argc > 2 ? atoi(argv[2]) : 16384;
    const int reps = argc > 3 ? atoi(argv[3]) : 7;
    if (n < 2 || howmany < 1 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: fft_in_place_cost [N >= 2 [HOWMANY >= 1 [REPS 1..1000]]]\n");
        return 2;
    }
    const size_t count = (size_t)n * (size_t)howmany;
    fftw_complex* source = fftw_malloc(count * sizeof(fftw_complex));
    fftw_complex* data = fftw_malloc(count * sizeof(fftw_complex));
    fftw_complex* out = fftw_malloc(count * sizeof(fftw_complex));
    double* out_of_place_s = malloc((size_t)reps * sizeof(double));
    double* in_place_s = malloc((size_t)reps * sizeof(double));
    if (!source || !data || !out || !out_of_place_s || !in_place_s) {
        fprintf(stderr, "fft_in_place_cost: out of memory for %zu points\n", count);
        return 2;
    }
    fill(source, count);
    memset(out, 0, count * sizeof(fftw_complex)); /* page faults before any timing */
    memcpy(data, source, count * sizeof(fftw_complex));
    const fftw_plan out_of_place = fftw_plan_many_dft(1, &n, howmany, data, NULL, 1, n, out, NULL,
                                                      1, n, FFTW_FORWARD, FFTW_ESTIMATE);
    const fftw_plan in_place = fftw_plan_many_dft(1, &n, howmany, data, NULL, 1, n, data, NULL, 1,
                                                  n, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!out_of_place || !in_place) {
        fprintf(stderr, "fft_in_place_cost: no plan\n");
        return 2;
    }
    for (int r = -1; r < reps; ++r) { /* r = -1: warm-up (device start, device plans) */
        memcpy(data, source, count * sizeof(fftw_complex));
        double t = seconds();
        fftw_execute(out_of_place);
        if (r >= 0) out_of_place_s[r] = seconds() - t;
        t = seconds();
        fftw_execute(in_place);
        if (r >= 0) in_place_s[r] = seconds() - t;
    }
    /* data holds the in-place transform of source, out the out-of-place one. */
    double difference = 0, norm = 0;
    for (size_t i = 0; i < count; ++i) {
        const double re = data[i][0] - out[i][0], im = data[i][1] - out[i][1];
        difference += re * re + im * im;
        norm += out[i][0] * out[i][0] + out[i][1] * out[i][1];
    }
    const double error = sqrt(difference / norm);
    const double bound = 32 * log2((double)n) * 0x1p-52;
    const double out_of_place_median = median(out_of_place_s, reps);
    const double in_place_median = median(in_place_s, reps);
    printf("c2c double %d x %d (%.0f MiB), %d executes each\n", n, howmany,
           (double)(count * sizeof(fftw_complex)) / (1 << 20), reps);
    printf("out of place  %9.2f ms (median)\n", out_of_place_median * 1e3);
    printf("in place      %9.2f ms (median)\n", in_place_median * 1e3);
    printf("ratio in/out  %9.3f\n", in_place_median / out_of_place_median);
    printf("check         %s (relative difference %.2e, bound %.2e)\n",
           error <= bound ? "ok" : "FAILED", error, bound);
    fftw_destroy_plan(out_of_place);
    fftw_destroy_plan(in_place);
    fftw_free(source);
    fftw_free(data);
    fftw_free(out);
    free(out_of_place_s);
    free(in_place_s);
    return error <= bound ? 0 : 1;
}
