/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_work.c -- loads libm with dlopen after start, spends its time in
 * libm's cos through dlsym, then dlcloses it before exiting: the profile
 * must still map those samples to libm (the load map keeps modules that
 * were unloaded).
 */
#include <dlfcn.h>
#include <stdio.h>

int
main(void)
{
    void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    double (*cosine)(double);
    double sum = 0;

    if (h == NULL)
        return 2;
    *(void **)&cosine = dlsym(h, "cos");
    if (cosine == NULL)
        return 3;
    for (long i = 0; i < 40000000; i++)
        sum += cosine((double)i * 1e-3);
    dlclose(h);
    printf("%d\n", sum != 0);
    return 0;
}
