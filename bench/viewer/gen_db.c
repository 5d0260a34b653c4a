/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_db.c -- write the measurement files of a large synthetic run, with the
 * lib/fmt writer, for the viewer's scale benchmark (bench/viewer/run.sh).
 *
 * Bench tool (ordinary process context).  Usage:
 *   gen_db OUTDIR NODES THREADS MODULE=SYMS [MODULE=SYMS...]
 * Each MODULE is a real ELF file (the first is the program: its procedure
 * "main" roots every path) and SYMS its `nm -S` output: every text symbol
 * with a size is a procedure, so csprof-prof maps the addresses through the
 * modules' real structure (procedures, loops, inlined code, lines).
 *
 * The model: every procedure gets a fixed list of call sites (fan-out 1 to
 * 24, skewed towards few: 1 + 23 u^3), each at an offset inside it and
 * calling a procedure of the same module (80 %) or of another; a call
 * path starts at main, has a depth drawn from 10 to 60 and at each level
 * takes call site floor(k u^2) (skewed towards the first, so hot paths
 * repeat), and ends in a sample at one of 6 hot offsets of its last
 * procedure.  Paths are added to one calling-context tree until it holds
 * NODES measurement nodes (call sites and sample leaves).  Each of THREADS
 * threads (OUTDIR/t<NN>.cspm) holds about 70 % of the leaves, with the
 * ancestors they need, and its samples scaled by 0.5 + 0.25 t (imbalance);
 * call sites carry call counts.  csprof-prof turns N measurement nodes
 * into about 1.2 N to 2 N database nodes (procedure frames, loops,
 * inlined frames, statements, call sites).  Deterministic (fixed seed).
 * Exit status 0, or 1 with one line on stderr.  The model is this file's;
 * symbols, tree and writer are test/gen/gen.h's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define MAX_MODULES 8
#define MAX_PROCS   400000
#define MAX_SITES   24
#define HOT_LEAVES  6
#define PERIOD_NS   1000000ull

struct proc {
    uint32_t module;
    uint64_t start, size;
    uint32_t nsites;
    uint32_t site_callee[MAX_SITES]; /* procedure index */
    uint32_t site_off[MAX_SITES];    /* offset of the return address from start */
};

static struct proc *procs;
static uint32_t nprocs, mod_first[MAX_MODULES + 1], nmods, main_proc = UINT32_MAX;
static const char *mod_path[MAX_MODULES];
/* The whole run's tree; module ids are module numbers + 1; mark: in the thread being written. */
static struct gen_cct cct;
static uint64_t rng = 0x2545f4914f6cdd1dull;

/* The procedures of module @mod: its text symbols of 16 bytes or more (MAX_PROCS in all). */
static void
load_syms(uint32_t mod, const char *path)
{
    struct gen_syms t = {0};
    size_t i;

    gen_syms_load(&t, path, mod);
    mod_first[mod] = nprocs;
    for (i = 0; i < t.n && nprocs < MAX_PROCS; i++) {
        const struct gen_sym *s = &t.v[i];

        if ((s->type != 'T' && s->type != 't' && s->type != 'W' && s->type != 'i') || s->size < 16)
            continue;
        if (mod == 0 && strcmp(s->name, "main") == 0)
            main_proc = nprocs;
        procs[nprocs].module = mod;
        procs[nprocs].start = s->addr;
        procs[nprocs].size = s->size;
        nprocs++;
    }
    gen_syms_free(&t);
    if (nprocs - mod_first[mod] < 4)
        gen_die("%s: fewer than 4 text symbols with a size of 16 bytes or more", path);
    mod_first[mod + 1] = nprocs;
}

static void
make_call_graph(void)
{
    uint32_t p, s;

    for (p = 0; p < nprocs; p++) {
        struct proc *pr = &procs[p];
        double u = gen_unif(&rng);

        pr->nsites = 1 + (uint32_t)(23.0 * u * u * u);
        for (s = 0; s < pr->nsites; s++) {
            uint32_t m = pr->module, n;

            if (gen_unif(&rng) >= 0.8)
                m = (uint32_t)(gen_rand(&rng) % nmods);
            n = mod_first[m + 1] - mod_first[m];
            /* skewed towards the first procedures of a module: some are hot everywhere */
            u = gen_unif(&rng);
            pr->site_callee[s] = mod_first[m] + (uint32_t)((double)n * u * u);
            pr->site_off[s] = 1 + (uint32_t)(gen_rand(&rng) % (pr->size - 1));
        }
    }
}

static void
add_path(void)
{
    uint32_t depth = 10 + (uint32_t)(gen_rand(&rng) % 51), d, p = main_proc, cur = 0;
    double v = gen_unif(&rng);
    uint64_t samples = 1 + (uint64_t)(20.0 * v * v * v);

    for (d = 0; d + 1 < depth; d++) {
        const struct proc *pr = &procs[p];
        double u = gen_unif(&rng);
        uint32_t s = (uint32_t)((double)pr->nsites * u * u);

        cur = gen_cct_child(&cct, cur, FMT_NODE_CALLSITE, pr->module + 1,
                            pr->start + pr->site_off[s]);
        cct.nodes[cur].calls += 1 + gen_rand(&rng) % 4;
        p = pr->site_callee[s];
    }
    {
        const struct proc *pr = &procs[p];
        uint64_t hot = gen_rand(&rng) % HOT_LEAVES;
        uint64_t off = (pr->size * (2 * hot + 1)) / (2 * HOT_LEAVES);

        cur = gen_cct_child(&cct, cur, FMT_NODE_LEAF, pr->module + 1, pr->start + off);
        cct.nodes[cur].samples += samples;
    }
}

/* Stable pseudo-random choice of leaf @n for thread @t. */
static int
leaf_in_thread(uint32_t n, uint32_t t)
{
    uint64_t h =
        ((uint64_t)n * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(t + 1) * 0xbf58476d1ce4e5b9ull);

    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    return t == 0 || h % 10 < 7;
}

static void
write_thread(const char *dir, uint32_t t, uint32_t *newid)
{
    static const struct fmt_event ev = {.name = "CPUTIME",
                                        .unit = "ns",
                                        .mechanism = "posix-timer",
                                        .period = PERIOD_NS,
                                        .display_scale = 1e-9,
                                        .display_unit = "s"};
    struct fmt_module mods[MAX_MODULES];
    struct fmt_header hdr = {.pid = 20000,
                             .tid = 20000 + t,
                             .thread_index = t,
                             .rank = -1,
                             .program = mod_path[0],
                             .command = "gen_db",
                             .host = "bench"};
    double scale = 0.5 + 0.25 * (double)t;
    uint64_t kept = 1, i, total = 0;
    struct fmt_stat stats[2] = {{"samples.recorded", 0}, {"samples.partial", 0}};
    char path[4096];
    struct fmt_metric m;

    for (i = 0; i < nmods; i++) {
        mods[i].id = (uint32_t)i + 1;
        mods[i].epoch = 0;
        mods[i].path = mod_path[i];
        mods[i].build_id = NULL;
        mods[i].build_id_len = 0;
        mods[i].start = 0x10000000ull * (i + 1);
        mods[i].end = mods[i].start + 0x10000000ull;
        mods[i].load_bias = mods[i].start;
    }
    for (i = 0; i < cct.nnodes; i++)
        cct.nodes[i].mark = 0;
    cct.nodes[0].mark = 1;
    for (i = cct.nnodes - 1; i > 0; i--) {
        if (cct.nodes[i].kind == FMT_NODE_LEAF && leaf_in_thread((uint32_t)i, t))
            cct.nodes[i].mark = 1;
        if (cct.nodes[i].mark)
            cct.nodes[cct.nodes[i].parent].mark = 1;
    }
    newid[0] = 0;
    for (i = 1; i < cct.nnodes; i++)
        if (cct.nodes[i].mark) {
            newid[i] = (uint32_t)kept++;
            if (cct.nodes[i].kind == FMT_NODE_LEAF)
                total += (uint64_t)((double)cct.nodes[i].samples * scale + 0.5);
        }
    hdr.cpu_ns = total * PERIOD_NS;
    stats[0].value = total;
    snprintf(path, sizeof(path), "%s/t%02u.cspm", dir, t);
    gen_file_open(path, &hdr, &ev, 1, mods, nmods, kept);
    for (i = 0; i < cct.nnodes; i++) {
        struct fmt_node n = {.id = newid[i],
                             .parent = newid[cct.nodes[i].parent],
                             .kind = cct.nodes[i].kind,
                             .module = cct.nodes[i].module,
                             .offset = cct.nodes[i].offset,
                             .metrics = &m};
        uint64_t s = (uint64_t)((double)cct.nodes[i].samples * scale + 0.5);

        if (!cct.nodes[i].mark)
            continue;
        if (cct.nodes[i].kind == FMT_NODE_CALLSITE)
            n.calls = (uint64_t)((double)cct.nodes[i].calls * scale) + 1;
        if (cct.nodes[i].kind == FMT_NODE_LEAF && s > 0) {
            n.samples = s;
            m.event = 0;
            m.value = s * PERIOD_NS;
            n.nmetrics = 1;
        }
        gen_file_node(&n);
    }
    gen_file_close(stats, 2);
    fprintf(stderr, "gen_db: %s: %llu nodes, %llu samples\n", path, (unsigned long long)kept,
            (unsigned long long)total);
}

int
main(int argc, char **argv)
{
    uint32_t threads, t, *newid;
    long target;
    int a;

    gen_set_name("gen_db");
    if (argc < 5)
        gen_die("usage: gen_db OUTDIR NODES THREADS MODULE=SYMS [MODULE=SYMS...]");
    target = atol(argv[2]);
    threads = (uint32_t)atoi(argv[3]);
    if (target < 100 || target > 20000000 || threads < 1 || threads > 256)
        gen_die("NODES must be 100..20000000 and THREADS 1..256");
    procs = gen_xcalloc(MAX_PROCS, sizeof(*procs));
    for (a = 4; a < argc; a++) {
        char *eq = strchr(argv[a], '=');

        if (eq == NULL || nmods == MAX_MODULES)
            gen_die("%s: expected MODULE=SYMS (at most 8)", argv[a]);
        *eq = '\0';
        mod_path[nmods] = argv[a];
        load_syms(nmods++, eq + 1);
    }
    if (main_proc == UINT32_MAX)
        gen_die("%s: no procedure named main in the first module", mod_path[0]);
    make_call_graph();
    gen_cct_init(&cct, 0);
    while (cct.nnodes + 61 < (uint32_t)target)
        add_path();
    newid = gen_xcalloc(cct.nnodes, sizeof(*newid));
    for (t = 0; t < threads; t++)
        write_thread(argv[1], t, newid);
    free(newid);
    gen_cct_free(&cct);
    free(procs);
    return 0;
}
