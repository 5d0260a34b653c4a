/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * churn.c -- dlopen/dlclose churn with address reuse (reliability row 20).
 *
 * Usage: churn PREFIX_A PREFIX_B THREADS ITERATIONS UNITS_A UNITS_B
 * Thread T (0, 1...) has its own copies of the libraries, LIBA =
 * PREFIX_A<T>.so and LIBB = PREFIX_B<T>.so.  ITERATIONS times: opens LIBA, calls
 * churn_work_a(UNITS_A), closes it; opens LIBB (mapped where LIBA was
 * unless another mapping took the place), calls churn_work_b(UNITS_B),
 * closes it.
 * Prints one line with a checksum that depends on the arguments only, and
 * on stderr how often B was mapped at a base where A had been.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long work_fn(unsigned long);

static const char *prefix_a, *prefix_b;
static long iterations;
static unsigned long units_a, units_b;
static atomic_ulong reused;

/* Call @sym of @path once; returns its result, 0 on failure (reported). */
static unsigned long
call_once(const char *path, const char *sym, unsigned long units, void **base)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    unsigned long r = 0;
    void *f;
    Dl_info info;

    if (h == NULL) {
        fprintf(stderr, "churn: %s\n", dlerror());
        exit(1);
    }
    f = dlsym(h, sym);
    if (f == NULL) {
        fprintf(stderr, "churn: %s\n", dlerror());
        exit(1);
    }
    if (dladdr(f, &info) != 0)
        *base = info.dli_fbase;
    r = ((work_fn *)f)(units);
    dlclose(h);
    return r;
}

struct job {
    int index;
    unsigned long sum;
};

static void *
run(void *arg)
{
    struct job *j = arg;
    char path_a[4096], path_b[4096];
    unsigned long sum = 0;

    snprintf(path_a, sizeof(path_a), "%s%d.so", prefix_a, j->index);
    snprintf(path_b, sizeof(path_b), "%s%d.so", prefix_b, j->index);
    for (long i = 0; i < iterations; i++) {
        void *base_a = NULL, *base_b = NULL;

        sum += call_once(path_a, "churn_work_a", units_a, &base_a);
        sum += call_once(path_b, "churn_work_b", units_b, &base_b);
        if (base_a == base_b)
            atomic_fetch_add(&reused, 1);
    }
    j->sum = sum;
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_t threads[64];
    struct job jobs[64];
    unsigned long total = 0;
    int n;

    if (argc != 7) {
        fprintf(stderr, "usage: churn PREFIX_A PREFIX_B THREADS ITERATIONS UNITS_A UNITS_B\n");
        return 2;
    }
    prefix_a = argv[1];
    prefix_b = argv[2];
    n = atoi(argv[3]);
    iterations = atol(argv[4]);
    units_a = strtoul(argv[5], NULL, 10);
    units_b = strtoul(argv[6], NULL, 10);
    if (n < 1 || n > 64) {
        fprintf(stderr, "churn: THREADS must be 1..64\n");
        return 2;
    }
    for (int i = 0; i < n; i++) {
        jobs[i].index = i;
        if (pthread_create(&threads[i], NULL, run, &jobs[i]) != 0) {
            fprintf(stderr, "churn: pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < n; i++) {
        pthread_join(threads[i], NULL);
        total += jobs[i].sum;
    }
    printf("churn: %d threads x %ld iterations, checksum %lx\n", n, iterations, total);
    fprintf(stderr, "churn: B mapped at A's base in %lu of %ld iterations\n",
            (unsigned long)atomic_load(&reused), (long)n * iterations);
    return 0;
}
