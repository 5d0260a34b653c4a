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
 * Exit status 0, or 1 with one line on stderr.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"

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

struct node {
    uint32_t parent;
    uint32_t kind : 2;
    uint32_t module : 6;
    uint32_t keep : 1; /* in the thread being written */
    uint64_t offset;
    uint64_t samples;
    uint64_t calls;
};

static struct proc *procs;
static uint32_t nprocs, mod_first[MAX_MODULES + 1], nmods, main_proc = UINT32_MAX;
static const char *mod_path[MAX_MODULES];
static struct node *nodes;
static uint32_t nnodes, max_nodes;
static uint32_t *slots, nslots;
static struct fmt_writer writer;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Uniform in [0, 1). */
static double
unif(void)
{
    return (double)(next_rand() >> 11) * (1.0 / 9007199254740992.0);
}

static void
die(const char *msg, const char *arg)
{
    fprintf(stderr, "gen_db: %s%s%s\n", arg != NULL ? arg : "", arg != NULL ? ": " : "", msg);
    exit(1);
}

static void
load_syms(uint32_t mod, const char *path)
{
    char line[8192], name[4096];
    unsigned long long addr, size;
    char type;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        die("cannot open", path);
    mod_first[mod] = nprocs;
    while (fgets(line, sizeof(line), f) != NULL && nprocs < MAX_PROCS) {
        if (sscanf(line, "%llx %llx %c %4095s", &addr, &size, &type, name) != 4)
            continue;
        if ((type != 'T' && type != 't' && type != 'W' && type != 'i') || size < 16)
            continue;
        if (mod == 0 && strcmp(name, "main") == 0)
            main_proc = nprocs;
        procs[nprocs].module = mod;
        procs[nprocs].start = addr;
        procs[nprocs].size = size;
        nprocs++;
    }
    fclose(f);
    if (nprocs - mod_first[mod] < 4)
        die("fewer than 4 text symbols with a size of 16 bytes or more", path);
    mod_first[mod + 1] = nprocs;
}

static void
make_call_graph(void)
{
    uint32_t p, s;

    for (p = 0; p < nprocs; p++) {
        struct proc *pr = &procs[p];
        double u = unif();

        pr->nsites = 1 + (uint32_t)(23.0 * u * u * u);
        for (s = 0; s < pr->nsites; s++) {
            uint32_t m = pr->module, n;

            if (unif() >= 0.8)
                m = (uint32_t)(next_rand() % nmods);
            n = mod_first[m + 1] - mod_first[m];
            /* skewed towards the first procedures of a module: some are hot everywhere */
            u = unif();
            pr->site_callee[s] = mod_first[m] + (uint32_t)((double)n * u * u);
            pr->site_off[s] = 1 + (uint32_t)(next_rand() % (pr->size - 1));
        }
    }
}

/* Node index of (parent, kind, module, offset), created if absent. */
static uint32_t
node_get(uint32_t parent, uint32_t kind, uint32_t module, uint64_t offset)
{
    uint64_t h = (offset * 0x9e3779b97f4a7c15ull) ^
                 (((uint64_t)parent << 8 | kind << 6 | module) * 0xbf58476d1ce4e5b9ull);
    uint32_t i = (uint32_t)(h >> 32) & (nslots - 1), n;

    for (;; i = (i + 1) & (nslots - 1)) {
        if (slots[i] == 0)
            break;
        n = slots[i] - 1;
        if (nodes[n].parent == parent && nodes[n].kind == kind && nodes[n].module == module &&
            nodes[n].offset == offset)
            return n;
    }
    if (nnodes == max_nodes)
        die("node table full", NULL);
    memset(&nodes[nnodes], 0, sizeof(nodes[nnodes]));
    nodes[nnodes].parent = parent;
    nodes[nnodes].kind = kind;
    nodes[nnodes].module = module;
    nodes[nnodes].offset = offset;
    slots[i] = nnodes + 1;
    return nnodes++;
}

static void
add_path(void)
{
    uint32_t depth = 10 + (uint32_t)(next_rand() % 51), d, p = main_proc, cur = 0;
    double v = unif();
    uint64_t samples = 1 + (uint64_t)(20.0 * v * v * v);

    for (d = 0; d + 1 < depth; d++) {
        const struct proc *pr = &procs[p];
        double u = unif();
        uint32_t s = (uint32_t)((double)pr->nsites * u * u);

        cur = node_get(cur, FMT_NODE_CALLSITE, pr->module, pr->start + pr->site_off[s]);
        nodes[cur].calls += 1 + next_rand() % 4;
        p = pr->site_callee[s];
    }
    {
        const struct proc *pr = &procs[p];
        uint64_t hot = next_rand() % HOT_LEAVES;
        uint64_t off = (pr->size * (2 * hot + 1)) / (2 * HOT_LEAVES);

        cur = node_get(cur, FMT_NODE_LEAF, pr->module, pr->start + off);
        nodes[cur].samples += samples;
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
    int fd;

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
    for (i = 0; i < nnodes; i++)
        nodes[i].keep = 0;
    nodes[0].keep = 1;
    for (i = nnodes - 1; i > 0; i--) {
        if (nodes[i].kind == FMT_NODE_LEAF && leaf_in_thread((uint32_t)i, t))
            nodes[i].keep = 1;
        if (nodes[i].keep)
            nodes[nodes[i].parent].keep = 1;
    }
    newid[0] = 0;
    for (i = 1; i < nnodes; i++)
        if (nodes[i].keep) {
            newid[i] = (uint32_t)kept++;
            if (nodes[i].kind == FMT_NODE_LEAF)
                total += (uint64_t)((double)nodes[i].samples * scale + 0.5);
        }
    hdr.cpu_ns = total * PERIOD_NS;
    stats[0].value = total;
    snprintf(path, sizeof(path), "%s/t%02u.cspm", dir, t);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("cannot create", path);
    fmt_writer_init(&writer, fd);
    fmt_write_header(&writer, &hdr);
    fmt_write_events(&writer, &ev, 1);
    fmt_write_loadmap(&writer, mods, nmods);
    fmt_begin_cct(&writer, 0, kept);
    for (i = 0; i < nnodes; i++) {
        struct fmt_node n = {.id = newid[i],
                             .parent = newid[nodes[i].parent],
                             .kind = nodes[i].kind,
                             .module = i == 0 ? FMT_MODULE_NONE : (uint32_t)nodes[i].module + 1u,
                             .offset = nodes[i].offset,
                             .metrics = &m};
        uint64_t s = (uint64_t)((double)nodes[i].samples * scale + 0.5);

        if (!nodes[i].keep)
            continue;
        if (nodes[i].kind == FMT_NODE_CALLSITE)
            n.calls = (uint64_t)((double)nodes[i].calls * scale) + 1;
        if (nodes[i].kind == FMT_NODE_LEAF && s > 0) {
            n.samples = s;
            m.event = 0;
            m.value = s * PERIOD_NS;
            n.nmetrics = 1;
        }
        fmt_write_node(&writer, &n);
    }
    fmt_end_cct(&writer);
    fmt_write_stats(&writer, stats, 2);
    if (fmt_writer_finish(&writer) < 0 || close(fd) != 0)
        die("write failed", path);
    fprintf(stderr, "gen_db: %s: %llu nodes, %llu samples\n", path, (unsigned long long)kept,
            (unsigned long long)total);
}

int
main(int argc, char **argv)
{
    uint32_t threads, t, *newid;
    long target;
    int a;

    if (argc < 5)
        die("usage: gen_db OUTDIR NODES THREADS MODULE=SYMS [MODULE=SYMS...]", NULL);
    target = atol(argv[2]);
    threads = (uint32_t)atoi(argv[3]);
    if (target < 100 || target > 20000000 || threads < 1 || threads > 256)
        die("NODES must be 100..20000000 and THREADS 1..256", NULL);
    procs = calloc(MAX_PROCS, sizeof(*procs));
    if (procs == NULL)
        die("out of memory", NULL);
    for (a = 4; a < argc; a++) {
        char *eq = strchr(argv[a], '=');

        if (eq == NULL || nmods == MAX_MODULES)
            die("expected MODULE=SYMS (at most 8)", argv[a]);
        *eq = '\0';
        mod_path[nmods] = argv[a];
        load_syms(nmods++, eq + 1);
    }
    if (main_proc == UINT32_MAX)
        die("no procedure named main in the first module", mod_path[0]);
    make_call_graph();
    max_nodes = (uint32_t)target + 128;
    for (nslots = 1024; nslots < 2 * max_nodes; nslots *= 2)
        ;
    nodes = calloc(max_nodes, sizeof(*nodes));
    slots = calloc(nslots, sizeof(*slots));
    newid = calloc(max_nodes, sizeof(*newid));
    if (nodes == NULL || slots == NULL || newid == NULL)
        die("out of memory", NULL);
    nnodes = 1;
    nodes[0].kind = FMT_NODE_ROOT;
    while (nnodes + 61 < (uint32_t)target)
        add_path();
    for (t = 0; t < threads; t++)
        write_thread(argv[1], t, newid);
    return 0;
}
