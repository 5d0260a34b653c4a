/* SPDX-License-Identifier: BSD-3-Clause */
/* early_main.c -- the program linked with early_lib.c (reliability row 10). */
#include <stdio.h>
#include <time.h>

void early_wait(void);

static volatile double sink;

int
main(void)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            sink = sink + i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 0.3);
    early_wait();
    printf("main done\n");
    return 0;
}
