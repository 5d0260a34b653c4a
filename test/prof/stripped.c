/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stripped.c -- for prof_test.sh's "stripped" case: one procedure with two
 * sibling loops, the second holding a nested loop, so that a stripped copy
 * has several loops without lines in one procedure.  Compiled at test time
 * and never run: prof_gen places samples inside the loops.
 */
volatile int stripped_sink;

__attribute__((noinline)) void
work(int n)
{
    for (int i = 0; i < n; i++)
        stripped_sink += i * 3;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            stripped_sink += i ^ j;
}

int
main(int argc, char **argv)
{
    (void)argv;
    work(argc * 1000);
    return 0;
}
