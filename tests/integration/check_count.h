/* Counted checks for the C test programs (the FFTW and LAPACKE clients): check() counts one
 * check and, when it fails, prints "FAILED: <current>: <message>", `current` naming what is
 * being checked. The program prints "N checks, M failed" from nchk and nfail at its end. */
#ifndef GPUSHIM_TESTS_INTEGRATION_CHECK_COUNT_H
#define GPUSHIM_TESTS_INTEGRATION_CHECK_COUNT_H

#include <stdarg.h>
#include <stdio.h>

static int nchk, nfail;
static char current[200];

__attribute__((format(printf, 2, 3))) static void check(int ok, const char* fmt, ...) {
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

#endif
