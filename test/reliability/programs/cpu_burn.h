/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpu_burn.h -- burn(SECONDS): spin until the calling thread has used
 * SECONDS of CPU time (CLOCK_THREAD_CPUTIME_ID), for the reliability
 * programs whose checks need each thread to have run long enough to be
 * sampled.  `sink` keeps the loop from being optimised away.
 */
#ifndef REL_CPU_BURN_H
#define REL_CPU_BURN_H

#include <time.h>

static volatile double sink;

__attribute__((noinline)) static void
burn(double seconds)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            sink = sink + i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

#endif /* REL_CPU_BURN_H */
