/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel_killed.c -- a program that is killed (reliability row 24).  Writes its
 * pid to argv[1], then burns CPU in two threads (main and one worker, each
 * in its own noinline function) for argv[2] seconds of wall time, unless
 * SIGKILL ends it first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double limit_s;

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double
burn(double until)
{
    volatile double x = 0;

    while (now_s() < until)
        for (int i = 0; i < 20000; i++)
            x += i * 0.5;
    return x;
}

__attribute__((noinline)) static void *
worker_burn(void *arg)
{
    (void)arg;
    burn(limit_s);
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_t t;
    FILE *f;

    if (argc != 3)
        return 2;
    f = fopen(argv[1], "w");
    if (f == NULL)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    limit_s = now_s() + atof(argv[2]);
    if (pthread_create(&t, NULL, worker_burn, NULL) != 0)
        return 1;
    burn(limit_s);
    pthread_join(t, NULL);
    puts("finished");
    return 0;
}
