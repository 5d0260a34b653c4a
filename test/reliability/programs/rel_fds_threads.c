/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel_fds_threads.c -- many threads while file descriptors run short
 * (reliability row 25).  Opens /dev/null until it holds argv[1] descriptors,
 * runs argv[2] threads (argv[3] at a time; each burns about argv[4] ms of CPU
 * time), then checks that it can still open argv[5] more files.  Prints
 * "held N, threads N, later opens ok" or says what failed (exit 1).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double burn_ms;

static double
cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

__attribute__((noinline)) static void *
thread_work(void *arg)
{
    volatile double x = 0;
    double end = cpu_ms() + burn_ms;

    (void)arg;
    while (cpu_ms() < end)
        for (int i = 0; i < 2000; i++)
            x += i * 0.5;
    return NULL;
}

int
main(int argc, char **argv)
{
    int hold, nthreads, batch, later, done = 0;
    pthread_t *t;

    if (argc != 6)
        return 2;
    hold = atoi(argv[1]);
    nthreads = atoi(argv[2]);
    batch = atoi(argv[3]);
    burn_ms = atof(argv[4]);
    later = atoi(argv[5]);
    for (int i = 0; i < hold; i++)
        if (open("/dev/null", O_RDONLY) < 0) {
            printf("could hold only %d descriptors\n", i);
            return 1;
        }
    t = calloc((size_t)batch, sizeof(*t));
    while (done < nthreads) {
        int n = nthreads - done < batch ? nthreads - done : batch;

        for (int i = 0; i < n; i++)
            if (pthread_create(&t[i], NULL, thread_work, NULL) != 0) {
                printf("pthread_create failed after %d threads\n", done + i);
                return 1;
            }
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        done += n;
    }
    for (int i = 0; i < later; i++)
        if (open("/dev/null", O_RDONLY) < 0) {
            printf("open %d of %d after the threads failed\n", i + 1, later);
            return 1;
        }
    printf("held %d, threads %d, later opens ok\n", hold, done);
    return 0;
}
