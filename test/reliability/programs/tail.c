// SPDX-License-Identifier: BSD-3-Clause
// tail.c -- reliability row 16: a tail call.  main calls a, a calls b (an
// ordinary call: a uses b's result), and b ends in a call to c that -O2
// compiles as a jump (sibling call), so b's frame is gone while c runs.  c
// burns the CPU.  Prints a checksum.  Usage: tail [UNITS] (default 300; one
// unit is about 2 ms of CPU).
#include "burn.h"
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) uint64_t
c(uint64_t x)
{
    return 3 * rel_burn(x, 1000000) + 1;
}

static __attribute__((noinline)) uint64_t
b(uint64_t x)
{
    x *= 0x9e3779b97f4a7c15u;
    return c(x ^ (x >> 29)); // a tail call at -O2: jmp c
}

static __attribute__((noinline)) uint64_t
a(uint64_t x)
{
    return 5 * b(x + 1) + 1; // not a tail call
}

int
main(int argc, char **argv)
{
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
    uint64_t sum = 0;
    for (unsigned long i = 0; i < units; i++)
        sum += a(sum + i);
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
