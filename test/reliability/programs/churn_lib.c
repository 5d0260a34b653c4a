/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * churn_lib.c -- the two libraries of the dlopen churn (reliability row 20).
 *
 * Built twice: -DCHURN_A gives libchurn_a.so with churn_work_a first and
 * 64 KiB of padding code after it; otherwise libchurn_b.so, with the padding
 * first and churn_work_b after it.  Both have the same size, so after one
 * is closed the other is mapped at the same base, and their work functions
 * lie at different offsets: a sample of B attributed to A's module lands in
 * A's padding, not in A's work function.
 */
#ifdef CHURN_A
#    define CHURN_WORK churn_work_a
#    define CHURN_PAD  churn_pad_a
#else
#    define CHURN_WORK churn_work_b
#    define CHURN_PAD  churn_pad_b
#endif

unsigned long CHURN_WORK(unsigned long units);
void CHURN_PAD(void);

#ifndef CHURN_A
__attribute__((noinline)) void
CHURN_PAD(void)
{
    __asm__ volatile(".skip 65536, 0x90");
}
#endif

/* About units x 20 us of arithmetic; the result depends on units only. */
__attribute__((noinline)) unsigned long
CHURN_WORK(unsigned long units)
{
    unsigned long x = 1;

    for (unsigned long i = 0; i < units * 20000; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

#ifdef CHURN_A
__attribute__((noinline)) void
CHURN_PAD(void)
{
    __asm__ volatile(".skip 65536, 0x90");
}
#endif
