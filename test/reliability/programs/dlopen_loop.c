/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_loop.c -- for r42_checkpoint_loader.sh: the main thread opens and
 * closes two libraries for 3 seconds, so most samples (and checkpoints)
 * land while csprof's dlopen/dlclose overrides refresh the load map.  With
 * an argument, it first writes its process id to that file (for a test that
 * kills it).  At the end it prints the user and system CPU time it used on
 * stderr, "cpu USER_NS SYSTEM_NS" (most of it is system time: mapping and
 * unmapping libraries).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
    struct timespec t0, t;
    struct rusage ru;
    long n = 0;

    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");

        if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0)
            return 2;
    }
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
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(stderr, "cpu %lld %lld\n",
                (long long)ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL,
                (long long)ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL);
    return n > 0 ? 0 : 1;
}
