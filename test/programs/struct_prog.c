/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_prog.c -- test input for csprof-struct (test/structure): a few
 * functions with known names, an always-inlined helper, and lines marked
 * "@stmt known" that must each have a statement in the structure of
 * known(), and a function with aliases.  Built at test time with -O0 -g,
 * -O2 -g, -O3 -g, -O2 (no -g) and stripped.  The marked lines are calls
 * to a noinline function, so every optimization level keeps code for them.
 */
#include <stdio.h>
#include <stdlib.h>

volatile int struct_sink;

__attribute__((noinline)) void
step(int x)
{
    struct_sink = x;
}

static inline __attribute__((always_inline)) int
helper_inl(int x)
{
    struct_sink = x * 3;
    return x * 2 + 1;
}

__attribute__((noinline)) int
known(int n)
{
    step(n);     /* @stmt known */
    step(n + 1); /* @stmt known */
    step(n * 3); /* @stmt known */
    return n + struct_sink;
}

__attribute__((noinline)) int
caller(int n)
{
    int s = 0;

    for (int i = 0; i < n; i++)
        s += helper_inl(i + struct_sink);
    return s;
}

/* Three names for one function: csprof-struct must call it "alias_global"
 * (global beats weak beats local, before the shorter name). */
__attribute__((noinline)) static int
alias_local(int x)
{
    return x + struct_sink;
}
extern int alias_global(int x) __attribute__((alias("alias_local")));
extern int alias_weak(int x) __attribute__((weak, alias("alias_local")));

int
main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;

    printf("%d %d %d\n", known(n), caller(n), alias_weak(n));
    return 0;
}
