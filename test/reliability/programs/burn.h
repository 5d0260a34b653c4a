// SPDX-License-Identifier: BSD-3-Clause
// burn.h -- a CPU-bound kernel shared by the reliability test programs:
// ITERS rounds of a dependent xorshift chain (cannot be vectorized or folded
// away; the result depends on SEED and every round).
#ifndef CSP_REL_BURN_H
#define CSP_REL_BURN_H
#include <stdint.h>

// rel_burn: about 2 ns of CPU per round on this VM; returns the chain's end.
static __attribute__((noinline)) uint64_t
rel_burn(uint64_t seed, unsigned long iters)
{
    uint64_t x = seed | 1;
    for (unsigned long i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}
#endif
