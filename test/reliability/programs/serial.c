// SPDX-License-Identifier: BSD-3-Clause
// serial.c -- reliability row 1: a CPU-bound serial program whose work is
// split 2:1 between work_a and work_b, called from main.  Prints a checksum
// that depends on every iteration, so the output is deterministic and the
// loops cannot be optimized away.  Usage: serial [UNITS] (default 100; one
// unit is a few milliseconds of CPU).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS_PER_UNIT 1000000u

// burn: ITERS rounds of a dependent xorshift chain starting at SEED.
static __attribute__((noinline)) uint64_t
burn(uint64_t seed, unsigned long iters)
{
    uint64_t x = seed | 1;
    for (unsigned long i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

// work_a: two units of work; SEED makes each call different (not hoistable).
static __attribute__((noinline)) uint64_t
work_a(uint64_t seed)
{
    return 3 * burn(seed ^ 0x9e3779b97f4a7c15u, 2 * ITERS_PER_UNIT) + 1; // not a tail call
}

// work_b: one unit of work.
static __attribute__((noinline)) uint64_t
work_b(uint64_t seed)
{
    return 5 * burn(seed ^ 0xc2b2ae3d27d4eb4fu, ITERS_PER_UNIT) + 1; // not a tail call
}

int
main(int argc, char **argv)
{
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    uint64_t sum = 0;
    // Interleave the two so that a change of CPU speed during the run hits both alike.
    for (unsigned long i = 0; i < units; i++) {
        sum += work_a(sum + i);
        sum += work_b(sum + i);
    }
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
