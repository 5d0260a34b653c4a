/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * untracked.c -- a thread csprof cannot profile: glibc creates SIGEV_THREAD
 * timer threads internally, past csprof's pthread_create.  The callback
 * burns CPU while main sleeps; csprof must report the thread, not drop it
 * silently.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile double sink;
static volatile int done;

static void
callback(union sigval v)
{
    (void)v;
    for (long i = 0; i < 100000000; i++)
        sink = sink + (double)i;
    done = 1;
}

int
main(void)
{
    struct itimerspec its = {{0, 0}, {0, 1000000}};
    struct timespec ms = {0, 10000000};
    struct sigevent sev;
    timer_t t;

    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = callback;
    if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0 || timer_settime(t, 0, &its, NULL) != 0)
        return 90;
    while (!done)
        nanosleep(&ms, NULL);
    printf("done\n");
    return 0;
}
