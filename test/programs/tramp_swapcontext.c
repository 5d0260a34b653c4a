/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_swapcontext.c -- coroutines on their own stacks, switched with
 * swapcontext while they recurse, for test/integration/trampoline.sh.
 *
 * Three generator coroutines (makecontext) each walk a recursion tree and
 * yield to the scheduler from deep inside it with swapcontext; the
 * scheduler round-robins them, so samples land in one stack and the next
 * return happens on another.  Generators finish by returning into uc_link
 * (glibc switches with its internal setcontext there).  Then a
 * getcontext/setcontext loop that re-enters a saved context from inside a
 * recursion, and a tight getcontext/setcontext loop.  Output: values and
 * counts that do not depend on timing.  An optional argument scales the
 * work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NOINLINE    __attribute__((noinline))
#define NGEN        3
#define STACK_BYTES (1024 * 1024)

struct generator {
    ucontext_t ctx;
    unsigned long value; /* last yielded value */
    unsigned long yields;
    int done;
    int depth; /* tree depth this generator walks */
};

static ucontext_t scheduler;
static struct generator gens[NGEN];
static struct generator *current;
static volatile unsigned long sink;
static long scale = 25;

NOINLINE static unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
    return x;
}

NOINLINE static void
yield(unsigned long v)
{
    current->value = v;
    current->yields++;
    swapcontext(&current->ctx, &scheduler);
}

/* Walk a binary tree of @depth levels; yield at every leaf. */
NOINLINE static unsigned long
walk(int depth, unsigned long acc)
{
    unsigned long l, r;

    acc = work(acc, 200);
    if (depth == 0) {
        yield(acc);
        return acc & 0xffff;
    }
    l = walk(depth - 1, acc ^ 1);
    r = walk(depth - 1, acc ^ 2);
    return l + r + 1; /* not a tail call */
}

static void
generator_main(int index)
{
    struct generator *g = &gens[index];

    for (long k = 0; k < scale; k++)
        g->value = walk(g->depth, (unsigned long)index * 1000 + (unsigned long)k);
    g->done = 1;
    /* returning switches to uc_link (the scheduler) */
}

/* ---- setcontext: re-enter a saved context from inside a recursion ---- */

static ucontext_t again;
static volatile int rounds_left;
static volatile unsigned long restart_sum;

NOINLINE static void
sink_and_restart(int depth, unsigned long acc)
{
    acc = work(acc, 300);
    if (depth > 0) {
        sink_and_restart(depth - 1, acc);
        sink += acc; /* not a tail call */
        return;
    }
    restart_sum += acc & 0xfff;
    setcontext(&again); /* back to main's getcontext, abandoning the recursion */
}

/* ---- setcontext in a tight loop: many samples land inside setcontext
 * itself, some while it is switching stacks (its unwind rules then read the
 * return address from the ucontext_t, which is no place for a trampoline) ---- */

static ucontext_t tight;
static volatile long tight_left;

NOINLINE static void
tight_step(void)
{
    sink += work(sink, 5);
    setcontext(&tight);
}

int
main(int argc, char **argv)
{
    static char stacks[NGEN][STACK_BYTES] __attribute__((aligned(64)));
    unsigned long checksum = 0, switches = 0;
    int live = NGEN;

    if (argc > 1)
        scale = atol(argv[1]);
    for (int i = 0; i < NGEN; i++) {
        struct generator *g = &gens[i];

        g->depth = 9 + i;
        getcontext(&g->ctx);
        g->ctx.uc_stack.ss_sp = stacks[i];
        g->ctx.uc_stack.ss_size = STACK_BYTES;
        g->ctx.uc_link = &scheduler;
        makecontext(&g->ctx, (void (*)(void))generator_main, 1, i);
    }
    while (live > 0) {
        live = 0;
        for (int i = 0; i < NGEN; i++) {
            if (gens[i].done)
                continue;
            current = &gens[i];
            swapcontext(&scheduler, &gens[i].ctx);
            switches++;
            checksum = checksum * 131 + gens[i].value;
            live += !gens[i].done;
        }
    }
    for (int i = 0; i < NGEN; i++)
        printf("generator %d: %lu yields, result %lu\n", i, gens[i].yields, gens[i].value);
    printf("switches %lu checksum %lx\n", switches, checksum);

    rounds_left = (int)(200 * scale);
    getcontext(&again);
    if (rounds_left > 0) {
        rounds_left--;
        sink_and_restart(100 + rounds_left % 200, (unsigned long)rounds_left);
    }
    printf("setcontext rounds done, sum %lu\n", restart_sum);

    tight_left = 20000 * scale;
    getcontext(&tight);
    if (tight_left > 0) {
        tight_left--;
        tight_step();
    }
    printf("tight setcontext loop done\n");
    return 0;
}
