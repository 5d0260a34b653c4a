/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * deep_recursion.c -- very deep call paths for r21_deep_recursion.sh.
 *
 *   deep_recursion DEPTH MUTUAL UNITS
 *
 * On a thread with a 1 GiB stack: recurse() calls itself DEPTH times and
 * spends UNITS units of CPU in leaf_work() at the bottom; then mutual_a()
 * and mutual_b() call each other MUTUAL times in all and spend UNITS units
 * in leaf_work() at the bottom.  The recursive calls are not tail calls
 * (each adds to its callee's result).  Prints a checksum and exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;
static long units;

__attribute__((noinline)) static void
leaf_work(void)
{
    for (long u = 0; u < units; u++)
        for (int i = 0; i < 2000000; i++)
            sink += i * 0.5;
}

__attribute__((noinline)) static long
recurse(long depth)
{
    long r;

    if (depth == 0) {
        leaf_work();
        return 0;
    }
    r = recurse(depth - 1);
    sink += 1;
    return r + 1;
}

static long mutual_b(long depth);

__attribute__((noinline)) static long
mutual_a(long depth)
{
    long r;

    if (depth == 0) {
        leaf_work();
        return 0;
    }
    r = mutual_b(depth - 1);
    sink += 1;
    return r + 1;
}

__attribute__((noinline)) static long
mutual_b(long depth)
{
    long r;

    if (depth == 0) {
        leaf_work();
        return 0;
    }
    r = mutual_a(depth - 1);
    sink += 2;
    return r + 1;
}

static long depth_arg, mutual_arg;

static void *
deep_thread(void *arg)
{
    long *out = arg;

    out[0] = recurse(depth_arg);
    out[1] = mutual_a(mutual_arg);
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_attr_t attr;
    pthread_t t;
    long out[2];

    if (argc != 4) {
        fprintf(stderr, "usage: deep_recursion DEPTH MUTUAL UNITS\n");
        return 2;
    }
    depth_arg = atol(argv[1]);
    mutual_arg = atol(argv[2]);
    units = atol(argv[3]);
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, (size_t)1 << 30) != 0 ||
        pthread_create(&t, &attr, deep_thread, out) != 0) {
        fprintf(stderr, "deep_recursion: cannot start a thread with a 1 GiB stack\n");
        return 1;
    }
    pthread_join(t, NULL);
    printf("%ld %ld\n", out[0], out[1]);
    return 0;
}
