/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * limits_spin.c -- a short CPU-bound program for the refusal and
 * period-limit scenarios (r18, r19, r36): `limits_spin UNITS` runs UNITS
 * units of floating-point work (a few ms each), prints a checksum and
 * exits 0.  With a second argument it also creates that file, so a test
 * can tell whether the program ran at all.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void
unit(void)
{
    for (int i = 0; i < 2000000; i++)
        sink += i * 0.5;
}

int
main(int argc, char **argv)
{
    long units = argc > 1 ? atol(argv[1]) : 10;

    if (argc > 2) {
        FILE *f = fopen(argv[2], "w");

        if (f != NULL)
            fclose(f);
    }
    for (long i = 0; i < units; i++)
        unit();
    printf("%.0f\n", sink);
    return 0;
}
