/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_backtrace.c -- the program walks its own stack with backtrace()
 * from deep in a sampled recursion, for test/integration/trampoline.sh.
 *
 * glibc's backtrace() unwinds with libgcc's unwinder, which must never
 * meet the profiler's trampoline (it would end the walk there or follow
 * a wrong return address).  The program calls backtrace() at the bottom
 * of recursions of varying depth, many times, and checks each result:
 * the expected number of frames and the expected function at each level.
 * It prints the function names of one walk, from backtrace_symbols()
 * with addresses stripped (link with -rdynamic so the program's own
 * functions have names).  Output does not depend on timing.  An optional
 * argument scales the work.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE   __attribute__((noinline))
#define MAX_FRAMES 512

static volatile unsigned long sink;
static void *frames[MAX_FRAMES];
static int last_count;
static long walks, bad_walks;
static int bottom_depth_seen[2]; /* frames counted at depth 0 and at depth 1: for the stride */

NOINLINE unsigned long work(unsigned long x, int n);
NOINLINE unsigned long level(int depth, unsigned long acc, int walk);
NOINLINE void print_walk(void);

NOINLINE unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    sink += x;
    return x;
}

/* The name in "module(name+0x1f) [0x...]"; "" when the symbol has none. */
static void
symbol_name(const char *sym, char *out, size_t size)
{
    const char *open = strchr(sym, '('), *end;
    size_t n;

    out[0] = '\0';
    if (open == NULL)
        return;
    open++;
    end = open + strcspn(open, "+)");
    n = (size_t)(end - open) < size - 1 ? (size_t)(end - open) : size - 1;
    memcpy(out, open, n);
    out[n] = '\0';
}

/* The function named at frames[i], from backtrace_symbols. */
static int
frame_is(char **syms, int i, const char *name)
{
    char buf[128];

    symbol_name(syms[i], buf, sizeof(buf));
    return strcmp(buf, name) == 0;
}

NOINLINE unsigned long
level(int depth, unsigned long acc, int walk)
{
    unsigned long r;

    acc = work(acc + (unsigned long)depth, 150);
    if (depth > 0) {
        r = level(depth - 1, acc, walk);
        return r ^ (acc & 0xff); /* not a tail call */
    }
    if (walk) {
        last_count = backtrace(frames, MAX_FRAMES);
        walks++;
    }
    return acc;
}

NOINLINE void
print_walk(void)
{
    char **syms = backtrace_symbols(frames, last_count);
    char buf[128];

    if (syms == NULL)
        return;
    for (int i = 0; i < last_count; i++) {
        symbol_name(syms[i], buf, sizeof(buf));
        printf("  #%d %s\n", i, buf[0] != '\0' ? buf : "?");
    }
    free(syms);
}

int
main(int argc, char **argv)
{
    long rounds = 16000;
    int base;

    if (argc > 1)
        rounds = atol(argv[1]);
    /* Frames of a walk at depth 0 and 1: the rest of the stack, and one per level. */
    level(0, 0, 1);
    bottom_depth_seen[0] = last_count;
    level(1, 0, 1);
    bottom_depth_seen[1] = last_count;
    base = bottom_depth_seen[0];
    if (bottom_depth_seen[1] != base + 1) {
        printf("FAIL: a walk one level deeper has %d frames, not %d\n", bottom_depth_seen[1],
               base + 1);
        return 3;
    }
    for (long i = 0; i < rounds; i++) {
        int depth = (int)(i * 13 % 400);
        int want = base + depth;
        char **syms;

        level(depth, (unsigned long)i, (i % 4) == 0);
        if ((i % 4) != 0)
            continue;
        if (last_count != want) {
            if (bad_walks++ < 5)
                printf("FAIL: walk at depth %d has %d frames, not %d\n", depth, last_count, want);
            continue;
        }
        /* Every frame between the bottom and main is `level`, then main. */
        syms = backtrace_symbols(frames, last_count);
        if (syms == NULL)
            continue;
        for (int k = 0; k <= depth; k++) {
            if (!frame_is(syms, k, "level")) {
                if (bad_walks++ < 5)
                    printf("FAIL: walk at depth %d: frame %d is not level\n", depth, k);
                break;
            }
        }
        if (!frame_is(syms, depth + 1, "main") && bad_walks++ < 5)
            printf("FAIL: walk at depth %d: frame %d is not main\n", depth, depth + 1);
        free(syms);
    }
    printf("walks %ld, frames below level: %d\n", walks, base);
    level(5, 1, 1);
    printf("a walk from depth 5:\n");
    print_walk();
    if (bad_walks != 0) {
        printf("FAIL: %ld walks were wrong\n", bad_walks);
        return 3;
    }
    return 0;
}
