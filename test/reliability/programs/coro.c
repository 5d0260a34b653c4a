// SPDX-License-Identifier: BSD-3-Clause
// coro.c -- reliability row 14: ucontext coroutines.  100 coroutines, each on
// a 64 KiB stack from malloc, run coro_entry(): STEPS times a little work
// (coro_step) and a swapcontext back to main's scheduler, which resumes them
// round robin until every one has returned.  Prints a checksum, the same on
// every run.  Usage: coro [STEPS] (default 1000; 2 x 100 x STEPS switches,
// about 10 us of work per step).
#include "burn.h"
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NCORO      100
#define STACK_SIZE (64 * 1024)

static ucontext_t sched_ctx;
static ucontext_t coro_ctx[NCORO];
static uint64_t coro_sum[NCORO];
static int coro_done[NCORO];
static unsigned long steps = 1000;

static __attribute__((noinline)) uint64_t
coro_step(uint64_t x)
{
    return 3 * rel_burn(x, 5000) + 1;
}

// coro_entry: the coroutine body; returns to sched_ctx through uc_link.
static __attribute__((noinline)) void
coro_entry(int i)
{
    uint64_t x = (uint64_t)i + 1;
    for (unsigned long s = 0; s < steps; s++) {
        x = coro_step(x + s);
        if (swapcontext(&coro_ctx[i], &sched_ctx) != 0)
            abort();
    }
    coro_sum[i] = x;
    coro_done[i] = 1;
}

// coro_init: make coroutine I, on a fresh heap stack; 0 or -1 (perror'd).
static int
coro_init(int i)
{
    if (getcontext(&coro_ctx[i]) != 0) {
        perror("getcontext");
        return -1;
    }
    coro_ctx[i].uc_stack.ss_sp = malloc(STACK_SIZE);
    coro_ctx[i].uc_stack.ss_size = STACK_SIZE;
    coro_ctx[i].uc_link = &sched_ctx;
    if (coro_ctx[i].uc_stack.ss_sp == NULL) {
        perror("malloc");
        return -1;
    }
    makecontext(&coro_ctx[i], (void (*)(void))coro_entry, 1, i);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc > 1)
        steps = strtoul(argv[1], NULL, 10);
    for (int i = 0; i < NCORO; i++)
        if (coro_init(i) != 0)
            return 1;
    int live = NCORO;
    while (live > 0) {
        live = 0;
        for (int i = 0; i < NCORO; i++) {
            if (coro_done[i])
                continue;
            if (swapcontext(&sched_ctx, &coro_ctx[i]) != 0) {
                perror("swapcontext");
                return 1;
            }
            live += !coro_done[i];
        }
    }
    uint64_t sum = 0;
    for (int i = 0; i < NCORO; i++) {
        sum ^= coro_sum[i];
        free(coro_ctx[i].uc_stack.ss_sp);
    }
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
