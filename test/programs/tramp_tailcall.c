/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_tailcall.c -- sibling and tail calls under the trampoline, for
 * test/integration/trampoline.sh.
 *
 * At -O2 gcc turns a call in tail position into a jump: the callee then
 * returns straight to its caller's caller, through whatever return
 * address the caller was given -- possibly the trampoline, which must
 * then count and move on correctly although the frame it was placed for
 * has been replaced.  Mutually recursive functions in tail position
 * (direct jumps), a state machine dispatching through a table of function
 * pointers in tail position (indirect jumps), and a chain where a tail
 * call lands in a function that recurses normally.  Output: results that
 * do not depend on timing.  An optional argument scales the work.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NOIPA    __attribute__((noipa))

static volatile unsigned long sink;

NOIPA static unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    return x;
}

/* ---- direct mutual recursion in tail position ---- */

NOIPA unsigned long ping(long n, unsigned long acc);
NOIPA unsigned long pong(long n, unsigned long acc);

NOIPA unsigned long
ping(long n, unsigned long acc)
{
    if (n <= 0)
        return acc;
    return pong(n - 1, work(acc, 20) + 1); /* jmp pong */
}

NOIPA unsigned long
pong(long n, unsigned long acc)
{
    if (n <= 0)
        return acc ^ 0x5a5a;
    return ping(n - 1, work(acc, 30) ^ 3); /* jmp ping */
}

/* ---- a state machine of sibling calls through function pointers ---- */

typedef unsigned long state_fn(long n, unsigned long acc);

static state_fn *const *states_table;

NOIPA static unsigned long
state_a(long n, unsigned long acc)
{
    if (n <= 0)
        return acc;
    acc = work(acc, 25);
    return states_table[acc % 4](n - 1, acc); /* jmp *table(...) */
}

NOIPA static unsigned long
state_b(long n, unsigned long acc)
{
    if (n <= 0)
        return acc + 1;
    acc = work(acc ^ 0xff, 15);
    return states_table[(acc >> 7) % 4](n - 1, acc);
}

/* A normal (non-tail) recursion reached by a tail call. */
NOIPA static unsigned long
deep(int depth, unsigned long acc)
{
    unsigned long r;

    acc = work(acc, 40);
    if (depth == 0)
        return acc;
    r = deep(depth - 1, acc);
    return r + (acc & 1);
}

NOIPA static unsigned long
state_c(long n, unsigned long acc)
{
    if (n <= 0)
        return acc ^ 7;
    if (n % 97 == 0)
        return deep((int)(n % 50), acc) + state_a(n - 1, acc); /* one real call, one jmp */
    return state_a(n - 1, work(acc, 10));
}

NOIPA static unsigned long
state_d(long n, unsigned long acc)
{
    if (n <= 0)
        return acc * 3;
    return state_b(n - 1, acc + (unsigned long)n); /* jmp state_b */
}

static state_fn *const states[4] = {state_a, state_b, state_c, state_d};

/* ---- a tail call whose callee is the one that recurses ---- */

NOIPA static unsigned long
trampoline_like(int depth, unsigned long acc)
{
    acc = work(acc, 5);
    return deep(depth, acc); /* jmp deep: deep returns to our caller */
}

int
main(int argc, char **argv)
{
    long scale = 400;
    unsigned long r1 = 0, r2 = 0, r3 = 0;

    if (argc > 1)
        scale = atol(argv[1]);
    states_table = states;
    for (long i = 0; i < scale; i++) {
        r1 = r1 * 31 + ping(20000 + i, (unsigned long)i);
        r2 = r2 * 31 + states[i % 4](30000 + i, (unsigned long)i);
        for (int k = 0; k < 50; k++)
            r3 = r3 * 31 + trampoline_like(200 + k, (unsigned long)(i * 50 + k));
    }
    sink = r1 + r2 + r3;
    printf("ping/pong %lx\nstate machine %lx\ntail into recursion %lx\n", r1, r2, r3);
    return 0;
}
