/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_pthread.c -- threads that end by unwinding out of deep, sampled
 * recursion, for test/integration/trampoline.sh.
 *
 * Each "exiting" thread recurses, pushing a cleanup handler at every
 * level, and calls pthread_exit at the bottom; each "cancelled" thread
 * recurses the same way and then loops at the bottom, doing work and
 * calling pthread_testcancel, until the main thread cancels it (deferred
 * cancellation).  Both unwind through frames where the profiler's
 * trampoline may sit; every cleanup handler must run exactly once.
 * Compiled a second time with -fexceptions, pthread_cleanup_push uses
 * unwinder-driven cleanups, which a trampoline in the stack would skip.
 * Output: counts that do not depend on timing.  An optional argument
 * scales the work.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE  __attribute__((noinline))
#define NEXITING  3
#define NCANCELED 3
#define DEPTH     120

struct worker {
    pthread_t tid;
    int index;
    int rounds;           /* exiting: recursion rounds before the final one */
    atomic_int at_bottom; /* cancelled: reached the bottom loop */
    atomic_long cleanups; /* handlers run */
    unsigned long result; /* exiting: value passed to pthread_exit */
};

static struct worker workers[NEXITING + NCANCELED];
static volatile unsigned long sink;
static long scale = 60;

NOINLINE static unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
    return x;
}

static void
cleanup(void *arg)
{
    atomic_fetch_add(&((struct worker *)arg)->cleanups, 1);
}

/* Plain recursion with returns, so the trampoline is placed and fired. */
NOINLINE static unsigned long
churn(int depth, unsigned long acc)
{
    unsigned long r;

    acc = work(acc, 300);
    if (depth == 0)
        return acc;
    r = churn(depth - 1, acc);
    return r ^ (acc >> 3);
}

NOINLINE static unsigned long
exit_deep(struct worker *w, int depth, unsigned long acc)
{
    unsigned long r = 0;

    pthread_cleanup_push(cleanup, w);
    acc = work(acc, 200);
    if (depth == 0) {
        for (int k = 0; k < w->rounds; k++)
            acc ^= churn(DEPTH, acc + (unsigned long)k);
        w->result = acc;
        pthread_exit((void *)(acc | 1));
    }
    r = exit_deep(w, depth - 1, acc) + 1;
    pthread_cleanup_pop(0);
    return r;
}

NOINLINE static unsigned long
cancel_deep(struct worker *w, int depth, unsigned long acc)
{
    unsigned long r = 0;

    pthread_cleanup_push(cleanup, w);
    acc = work(acc, 200);
    if (depth == 0) {
        atomic_store(&w->at_bottom, 1);
        for (;;) {
            acc ^= churn(DEPTH, acc);
            pthread_testcancel();
        }
    }
    r = cancel_deep(w, depth - 1, acc) + 1;
    pthread_cleanup_pop(0);
    return r;
}

static void *
exiting_main(void *arg)
{
    struct worker *w = arg;

    exit_deep(w, DEPTH, (unsigned long)w->index);
    return NULL; /* not reached */
}

static void *
cancelled_main(void *arg)
{
    struct worker *w = arg;

    cancel_deep(w, DEPTH, (unsigned long)w->index);
    return NULL; /* not reached */
}

int
main(int argc, char **argv)
{
    long bad = 0;

    if (argc > 1)
        scale = atol(argv[1]);
    for (int i = 0; i < NEXITING + NCANCELED; i++) {
        struct worker *w = &workers[i];

        w->index = i;
        w->rounds = (int)(60 * scale);
        if (pthread_create(&w->tid, NULL, i < NEXITING ? exiting_main : cancelled_main, w) != 0) {
            printf("FAIL: pthread_create\n");
            return 2;
        }
    }
    /* Let the cancelled threads run in their bottom loop for a while, then cancel them. */
    for (int i = NEXITING; i < NEXITING + NCANCELED; i++)
        while (!atomic_load(&workers[i].at_bottom))
            sink += work(sink, 1000);
    for (long k = 0; k < 600 * scale; k++)
        sink += work(sink, 1000);
    for (int i = NEXITING; i < NEXITING + NCANCELED; i++)
        pthread_cancel(workers[i].tid);

    for (int i = 0; i < NEXITING + NCANCELED; i++) {
        struct worker *w = &workers[i];
        void *ret;
        long handlers;

        pthread_join(w->tid, &ret);
        handlers = atomic_load(&w->cleanups);
        if (i < NEXITING) {
            int ok = ret == (void *)(w->result | 1);

            printf("exiting thread %d: result %lx %s, %ld cleanup handlers\n", i, w->result,
                   ok ? "returned" : "LOST", handlers);
            bad += !ok;
        } else {
            printf("cancelled thread %d: %s, %ld cleanup handlers\n", i,
                   ret == PTHREAD_CANCELED ? "canceled" : "NOT CANCELED", handlers);
            bad += ret != PTHREAD_CANCELED;
        }
        bad += handlers != DEPTH + 1;
    }
    if (bad != 0) {
        printf("FAIL: %ld threads ended wrongly\n", bad);
        return 3;
    }
    return 0;
}
