// SPDX-License-Identifier: BSD-3-Clause
// allocs.c -- reliability row 8: samples that land inside the allocator and
// stdio.  16 threads and main each run churn(): malloc, realloc and free of
// pseudo-random sizes (16 B to 64 KiB) into a table of 256 slots, filling
// the memory, and fprintf to /dev/null, for ROUNDS rounds.  Prints a
// checksum of the data written (not of addresses), the same on every run.
// Usage: allocs [ROUNDS] (default 200000).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 16
#define SLOTS    256

static unsigned long rounds = 200000;
static FILE *devnull;

struct job {
    uint64_t seed;
    uint64_t sum;
};

static uint64_t
next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static __attribute__((noinline)) void *
churn(void *arg)
{
    struct job *job = arg;
    unsigned char *slot[SLOTS] = {0};
    size_t len[SLOTS] = {0};
    uint64_t x = job->seed | 1, sum = 0;
    for (unsigned long i = 0; i < rounds; i++) {
        uint64_t r = next(&x);
        unsigned k = r % SLOTS;
        size_t n = 16 + (r >> 8) % ((r >> 40) % 16 == 0 ? 65536 : 512);
        switch ((r >> 32) % 4) {
        case 0:
            free(slot[k]);
            slot[k] = NULL;
            len[k] = 0;
            break;
        case 1: {
            unsigned char *p = realloc(slot[k], n);
            if (p == NULL)
                abort();
            if (n > len[k])
                memset(p + len[k], (int)(r & 0xff), n - len[k]);
            slot[k] = p;
            len[k] = n;
            break;
        }
        case 2:
            fprintf(devnull, "%lu %llu %s\n", i, (unsigned long long)r, "allocs");
            break;
        default:
            free(slot[k]);
            slot[k] = malloc(n);
            if (slot[k] == NULL)
                abort();
            memset(slot[k], (int)(r & 0xff), n);
            len[k] = n;
        }
        if (len[k] > 0)
            sum += slot[k][len[k] - 1] + len[k];
    }
    for (unsigned k = 0; k < SLOTS; k++)
        free(slot[k]);
    job->sum = sum;
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_t tid[NTHREADS];
    struct job job[NTHREADS + 1];
    uint64_t sum = 0;
    if (argc > 1)
        rounds = strtoul(argv[1], NULL, 10);
    devnull = fopen("/dev/null", "w");
    if (devnull == NULL) {
        perror("/dev/null");
        return 1;
    }
    for (int i = 0; i <= NTHREADS; i++)
        job[i].seed = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15u;
    for (int i = 0; i < NTHREADS; i++) {
        if (pthread_create(&tid[i], NULL, churn, &job[i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    churn(&job[NTHREADS]);
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(tid[i], NULL);
        sum ^= job[i].sum;
    }
    sum ^= job[NTHREADS].sum;
    fclose(devnull);
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
