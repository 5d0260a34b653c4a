/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omp_nest.c -- for r03_openmp.sh: OpenMP (libgomp) constructs whose
 * outlined bodies run on other threads: a parallel region with a nested
 * region inside it, a region whose single thread creates tasks, and a
 * parallel for with a dynamic schedule (GOMP_parallel_loop_*).  All the
 * work is burn() (CPU seconds), called from region_work; main prints how
 * many pieces of work ran, which is the same at every run.
 * Usage: omp_nest [ROUNDS].
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_burn.h"

static int pieces;

__attribute__((noinline)) static void
region_work(double seconds)
{
    burn(seconds);
#pragma omp atomic
    pieces++;
}

__attribute__((noinline)) static void
inner_region(double seconds)
{
#pragma omp parallel num_threads(2)
    region_work(seconds);
}

__attribute__((noinline)) static void
outer_region(double seconds)
{
#pragma omp parallel num_threads(2)
    {
        region_work(seconds);
        inner_region(seconds / 2);
    }
}

__attribute__((noinline)) static void
task_region(double seconds)
{
#pragma omp parallel num_threads(3)
#pragma omp single
    for (int i = 0; i < 12; i++) {
#pragma omp task
        region_work(seconds);
    }
}

__attribute__((noinline)) static void
loop_region(int n)
{
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++)
        region_work(0.002);
}

int
main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;

    omp_set_max_active_levels(2);
    for (int r = 0; r < rounds; r++) {
        outer_region(0.02);
        task_region(0.01);
        loop_region(20);
    }
    printf("pieces %d\n", pieces);
    return 0;
}
