// SPDX-License-Identifier: BSD-3-Clause
// threads8.c -- reliability row 2: 8 threads run the same kernel (worker ->
// rel_burn), main creates and joins them and prints a checksum.  Every worker
// does the same amount of CPU work.  Usage: threads8 [UNITS] (default 40;
// one unit is about 2 ms of CPU per thread).
#include "burn.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 8

static unsigned long units = 40;

static __attribute__((noinline)) void *
worker(void *arg)
{
    uint64_t *acc = arg;
    for (unsigned long u = 0; u < units; u++)
        *acc = 3 * rel_burn(*acc + u, 1000000) + 1;
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_t tid[NTHREADS];
    uint64_t acc[NTHREADS], sum = 0;
    if (argc > 1)
        units = strtoul(argv[1], NULL, 10);
    for (int i = 0; i < NTHREADS; i++) {
        acc[i] = (uint64_t)i * 0x9e3779b97f4a7c15u;
        if (pthread_create(&tid[i], NULL, worker, &acc[i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(tid[i], NULL);
        sum ^= acc[i];
    }
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
