/* Level-3 BLAS called while the process exits, after it offloaded: from an exit handler
 * registered before the program's first call, which runs after every handler registered
 * later (the shim's report, the CUDA runtime's teardown, the plugin's own). That call must be
 * computed right, on the CPU (the calling thread's device queues went with its thread-local
 * storage, and the plugin stops once exit begins: the CUDA runtime may be gone), and the exit
 * must end normally.
 *
 * Linked against libgpushim.so and the CPU BLAS, run by run_program.py with
 * GPUSHIM_THRESHOLD=0, GPUSHIM_LOG=trace and GPUSHIM_LOG_FILE=<the file given as argument>:
 * the handler reads the trace line of its own call from that file. Prints "N checks, M
 * failed" from the handler. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kOrder = 160 };

static const char* trace_file;
static int checks, failed;
static double a[kOrder * kOrder], b[kOrder * kOrder], c[kOrder * kOrder];

static void verdict(int ok, const char* what) {
    ++checks;
    if (!ok) {
        ++failed;
        printf("FAILED: %s\n", what);
    }
}

/* C = A B by dgemm, compared with a plain loop: |C - A B| <= 4 (k + 2) eps |A| |B|. */
static int product_is_right(unsigned seed) {
    srand(seed);
    for (int i = 0; i < kOrder * kOrder; ++i) {
        a[i] = rand() / (double)RAND_MAX - 0.5;
        b[i] = rand() / (double)RAND_MAX - 0.5;
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, kOrder, kOrder, kOrder, 1.0, a, kOrder,
                b, kOrder, 0.0, c, kOrder);
    for (int j = 0; j < kOrder; ++j) {
        for (int i = 0; i < kOrder; ++i) {
            double exact = 0.0, magnitude = 0.0;
            for (int l = 0; l < kOrder; ++l) {
                exact += a[i + l * kOrder] * b[l + j * kOrder];
                magnitude += fabs(a[i + l * kOrder] * b[l + j * kOrder]);
            }
            if (!(fabs(c[i + j * kOrder] - exact) <= 4.0 * (kOrder + 2) * 2.3e-16 * magnitude)) {
                return 0;
            }
        }
    }
    return 1;
}

/* The last line of the trace file that contains `text`, into `line`; 0 where there is none. */
static int last_trace_line(const char* text, char* line, size_t size) {
    FILE* file = fopen(trace_file, "r");
    if (file == NULL) return 0;
    char buffer[1024];
    int found = 0;
    while (fgets(buffer, sizeof buffer, file) != NULL) {
        if (strstr(buffer, text) != NULL) {
            snprintf(line, size, "%s", buffer);
            found = 1;
        }
    }
    fclose(file);
    return found;
}

static void at_exit(void) {
    verdict(product_is_right(2), "the product computed while the process exits");
    char line[1024] = "";
    verdict(last_trace_line("trace: dgemm ", line, sizeof line) && strstr(line, ": CPU, ") != NULL,
            "the product computed while the process exits ran on the CPU");
    /* The CUDA plugin keeps calls off the device once exit has begun, whatever thread makes
     * them; the main thread's queues are gone by now anyway. */
    const char* backend = getenv("GPUSHIM_BACKEND");
    if (backend != NULL && strstr(backend, "cuda") != NULL) { /* its name or its path */
        char exiting[1024];
        verdict(last_trace_line("the GPU cannot be asked now (the process is exiting)", exiting,
                                sizeof exiting),
                "the CUDA plugin said the process is exiting");
    }
    printf("last dgemm trace: %s", line);
    printf("%d checks, %d failed\n", checks, failed);
    fflush(stdout);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE_FILE (GPUSHIM_LOG_FILE, with GPUSHIM_LOG=trace)\n",
                argv[0]);
        return 2;
    }
    trace_file = argv[1];
    atexit(at_exit);
    verdict(product_is_right(1), "the product computed before exit");
    char line[1024] = "";
    verdict(last_trace_line("trace: dgemm ", line, sizeof line) && strstr(line, ": GPU, ") != NULL,
            "the product computed before exit ran on the GPU");
    return 0;
}
