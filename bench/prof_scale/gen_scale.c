/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_scale.c -- write the measurement files of a large synthetic parallel
 * run with the lib/fmt writer, for the csprof-prof scale benchmark.
 *
 * Bench tool (ordinary process context).  Usage:
 *   gen_scale PROCS THREADS SYMS MODULE OUTDIR [PATHS_PER_THREAD]
 * SYMS is `nm -S --defined-only MODULE` output; every text symbol with a size
 * is a procedure the call paths go through, so csprof-prof maps the
 * addresses through the real structure of MODULE.  A pool of 4000 call
 * paths (4 to 16 frames, rooted at main) is drawn once; each thread samples
 * PATHS_PER_THREAD (default 150) of them with 1 to 20 samples of 10 ms each,
 * so threads share most of their tree, as the ranks of an SPMD program do.
 * Files are OUTDIR/rPPPP-tTT.cspm (rank PPPP, thread TT).  Deterministic
 * (fixed seed).  Exit status 0, or 1 with one line on stderr.  The model is
 * this file's; symbols, tree and writer are test/gen/gen.h's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define MAX_SYMS  200000
#define POOL      4000
#define MAX_DEPTH 16
#define MAX_NODES 8192

static uint64_t sym_off[MAX_SYMS];
static size_t nsyms;
static uint64_t main_off;
static uint64_t pool[POOL][MAX_DEPTH];
static int pool_depth[POOL];
static struct gen_cct cct; /* the thread being written; one value: CPUTIME in ns */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* The middle of every text symbol with a size (at most MAX_SYMS); main's address + 1. */
static void
load_syms(const char *path)
{
    struct gen_syms t = {0};
    size_t i;

    gen_syms_load(&t, path, 1);
    for (i = 0; i < t.n && nsyms < MAX_SYMS; i++) {
        const struct gen_sym *s = &t.v[i];

        if ((s->type != 'T' && s->type != 't') || s->size < 4)
            continue;
        if (strcmp(s->name, "main") == 0)
            main_off = s->addr + 1;
        sym_off[nsyms++] = s->addr + s->size / 2;
    }
    gen_syms_free(&t);
    if (nsyms < 16)
        gen_die("%s: fewer than 16 text symbols with a size", path);
}

static void
write_thread(const char *dir, const char *module, int rank, int thread, int npaths)
{
    static const struct fmt_event ev = {.name = "CPUTIME",
                                        .unit = "ns",
                                        .mechanism = "posix-timer",
                                        .period = 10000000,
                                        .display_scale = 1e-9,
                                        .display_unit = "s"};
    struct fmt_module mod = {.id = 1, .path = module, .start = 0x1000, .end = 0x100000000ull};
    struct fmt_header hdr = {.pid = 10000 + (uint32_t)rank,
                             .tid = 10000 + (uint32_t)rank + (uint32_t)thread * 100000,
                             .thread_index = (uint32_t)thread,
                             .rank = rank,
                             .cpu_ns = 0,
                             .program = module,
                             .command = "scale",
                             .host = "bench"};
    char path[4096];
    int p, d;
    uint32_t i;

    gen_cct_reset(&cct);
    for (p = 0; p < npaths; p++) {
        int k = (int)(gen_rand(&rng) % POOL);
        uint32_t cur = 0;
        uint64_t s;

        for (d = 0; d < pool_depth[k] - 1; d++)
            cur = gen_cct_child(&cct, cur, FMT_NODE_CALLSITE, 1, pool[k][d]);
        cur = gen_cct_child(&cct, cur, FMT_NODE_LEAF, 1, pool[k][pool_depth[k] - 1]);
        if (cct.nnodes > MAX_NODES)
            gen_die("too many nodes in one thread");
        s = 1 + gen_rand(&rng) % 20;
        cct.nodes[cur].samples += s;
        gen_cct_values(&cct, cur)[0] += s * 10000000ull;
    }
    for (i = 1; i < cct.nnodes; i++)
        hdr.cpu_ns += cct.nodes[i].samples * 10000000ull;
    snprintf(path, sizeof(path), "%s/r%04d-t%02d.cspm", dir, rank, thread);
    gen_file_open(path, &hdr, &ev, 1, &mod, 1, cct.nnodes);
    gen_file_cct(&cct, 1);
    gen_file_close(NULL, 0);
}

int
main(int argc, char **argv)
{
    int procs, threads, npaths, r, t, k, d;

    gen_set_name("gen_scale");
    if (argc < 6)
        gen_die("usage: gen_scale PROCS THREADS SYMS MODULE OUTDIR [PATHS_PER_THREAD]");
    procs = atoi(argv[1]);
    threads = atoi(argv[2]);
    npaths = argc > 6 ? atoi(argv[6]) : 150;
    if (procs <= 0 || threads <= 0 || npaths <= 0)
        gen_die("PROCS, THREADS and PATHS_PER_THREAD must be positive");
    load_syms(argv[3]);
    gen_cct_init(&cct, 1);
    for (k = 0; k < POOL; k++) {
        pool_depth[k] = 4 + (int)(gen_rand(&rng) % (MAX_DEPTH - 3));
        for (d = 0; d < pool_depth[k]; d++)
            pool[k][d] = sym_off[gen_rand(&rng) % (nsyms < 300 ? nsyms : 300)] + (uint64_t)d % 3;
        if (main_off != 0)
            pool[k][0] = main_off + 4;
        /* share prefixes: half the paths extend an earlier one */
        if (k > 0 && gen_rand(&rng) % 2 == 0) {
            int base = (int)(gen_rand(&rng) % (uint64_t)k);
            int keep = pool_depth[base] - 1;

            memcpy(pool[k], pool[base], (size_t)keep * sizeof(pool[k][0]));
        }
    }
    for (r = 0; r < procs; r++)
        for (t = 0; t < threads; t++)
            write_thread(argv[5], argv[4], r, t, npaths);
    gen_cct_free(&cct);
    return 0;
}
