/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.c -- four threads, each burning CPU in its own work function, so a
 * profile must show work_north under one thread, work_east under another...
 * Optional argument: milliseconds of CPU per thread (default 600).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

static long budget_ms = 600;

static double
cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

NOIPA static double
spin(double x)
{
    for (int i = 0; i < 100000; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

#define WORKER(name)                         \
    NOIPA static void *name(void *arg)       \
    {                                        \
        double x = 1, start = cpu_ms();      \
        while (cpu_ms() - start < budget_ms) \
            x = spin(x);                     \
        *(double *)arg = x;                  \
        return NULL;                         \
    }
WORKER(work_north)
WORKER(work_east)
WORKER(work_south)
WORKER(work_west)

int
main(int argc, char **argv)
{
    void *(*workers[4])(void *) = {work_north, work_east, work_south, work_west};
    pthread_t tids[4];
    double results[4];

    if (argc > 1)
        budget_ms = atol(argv[1]);
    for (int i = 0; i < 4; i++)
        if (pthread_create(&tids[i], NULL, workers[i], &results[i]) != 0)
            return 1;
    for (int i = 0; i < 4; i++)
        pthread_join(tids[i], NULL);
    printf("%.3f\n", results[0] + results[1] + results[2] + results[3] > 0 ? 1.0 : 0.0);
    return 0;
}
