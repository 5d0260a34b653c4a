/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prog.c -- a tiny program for the csprof-prof tests.  It is compiled at
 * test time; the tests never run it: prof_gen places synthetic samples at
 * the addresses of its functions (from `nm -S`), so that csprof-prof maps
 * them to real procedures through lib/structure.
 */
volatile int prog_sink;

__attribute__((noinline)) void c(void);
__attribute__((noinline)) void b(void);
__attribute__((noinline)) void a(void);
__attribute__((noinline)) void d(void);

/* Inlined into d() even at -O0: d's body is mostly this loop. */
static inline __attribute__((always_inline)) void
inl(void)
{
    for (int i = 0; i < 1000; i++)
        prog_sink += i * 3;
}

void
c(void)
{
    for (int i = 0; i < 1000; i++)
        prog_sink += i;
}

void
b(void)
{
    c();
    prog_sink++;
}

void
a(void)
{
    b();
    c();
    prog_sink++;
}

void
d(void)
{
    inl();
    prog_sink++;
}

int
main(void)
{
    a();
    d();
    b();
    return 0;
}
