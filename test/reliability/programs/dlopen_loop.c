/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_loop.c -- for r42_checkpoint_loader.sh: the main thread opens and
 * closes two libraries for 3 seconds, so most samples (and checkpoints)
 * land while csprof's dlopen/dlclose overrides refresh the load map.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
int
main(void)
{
    struct timespec t0, t;
    long n = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
        void *h2 = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h2)
            dlclose(h2);
        if (h)
            dlclose(h);
        n++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (t.tv_sec - t0.tv_sec < 3);
    printf("done\n");
    return n > 0 ? 0 : 1;
}
