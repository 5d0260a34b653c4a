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
 * (fixed seed).  Exit status 0, or 1 with one line on stderr.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"

#define MAX_SYMS  200000
#define POOL      4000
#define MAX_DEPTH 16
#define MAX_NODES 8192

static uint64_t sym_off[MAX_SYMS];
static size_t nsyms;
static uint64_t main_off;
static uint64_t pool[POOL][MAX_DEPTH];
static int pool_depth[POOL];
static struct fmt_writer writer;

static struct {
    uint64_t parent, offset, samples;
    uint32_t kind;
} nodes[MAX_NODES];
static uint32_t nnodes;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void
die(const char *msg, const char *arg)
{
    fprintf(stderr, "gen_scale: %s%s%s\n", arg != NULL ? arg : "", arg != NULL ? ": " : "", msg);
    exit(1);
}

static void
load_syms(const char *path)
{
    char line[1024], name[512];
    unsigned long long addr, size;
    char type;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        die("cannot open", path);
    while (fgets(line, sizeof(line), f) != NULL && nsyms < MAX_SYMS) {
        if (sscanf(line, "%llx %llx %c %511s", &addr, &size, &type, name) != 4)
            continue;
        if ((type != 'T' && type != 't') || size < 4)
            continue;
        if (strcmp(name, "main") == 0)
            main_off = addr + 1;
        sym_off[nsyms++] = addr + size / 2;
    }
    fclose(f);
    if (nsyms < 16)
        die("fewer than 16 text symbols with a size", path);
}

/* Hash slots of the thread's tree: node index + 1, valid when stamp == the thread's stamp. */
#define HASH_SLOTS 32768
static uint32_t slot_node[HASH_SLOTS], slot_stamp[HASH_SLOTS], stamp;

/* Node id of (parent, kind, offset) in the thread's tree, created if absent. */
static uint32_t
node_get(uint32_t parent, uint32_t kind, uint64_t offset)
{
    uint64_t h =
        (offset * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)parent << 1 | kind) * 0xbf58476d1ce4e5b9ull;
    uint32_t i = (uint32_t)(h >> 40) & (HASH_SLOTS - 1), n;

    for (;; i = (i + 1) & (HASH_SLOTS - 1)) {
        if (slot_stamp[i] != stamp)
            break;
        n = slot_node[i] - 1;
        if (nodes[n].parent == parent && nodes[n].kind == kind && nodes[n].offset == offset)
            return n;
    }
    if (nnodes == MAX_NODES)
        die("too many nodes in one thread", NULL);
    nodes[nnodes].parent = parent;
    nodes[nnodes].kind = kind;
    nodes[nnodes].offset = offset;
    nodes[nnodes].samples = 0;
    slot_stamp[i] = stamp;
    slot_node[i] = nnodes + 1;
    return nnodes++;
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
    struct fmt_metric m;
    int fd, p, d;
    uint32_t i;

    nnodes = 1;
    nodes[0].kind = FMT_NODE_ROOT;
    stamp++;
    for (p = 0; p < npaths; p++) {
        int k = (int)(next_rand() % POOL);
        uint32_t cur = 0;

        for (d = 0; d < pool_depth[k] - 1; d++)
            cur = node_get(cur, FMT_NODE_CALLSITE, pool[k][d]);
        cur = node_get(cur, FMT_NODE_LEAF, pool[k][pool_depth[k] - 1]);
        nodes[cur].samples += 1 + next_rand() % 20;
    }
    for (i = 1; i < nnodes; i++)
        hdr.cpu_ns += nodes[i].samples * 10000000ull;
    snprintf(path, sizeof(path), "%s/r%04d-t%02d.cspm", dir, rank, thread);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("cannot create", path);
    fmt_writer_init(&writer, fd);
    fmt_write_header(&writer, &hdr);
    fmt_write_events(&writer, &ev, 1);
    fmt_write_loadmap(&writer, &mod, 1);
    fmt_begin_cct(&writer, 0, nnodes);
    for (i = 0; i < nnodes; i++) {
        struct fmt_node n = {.id = i,
                             .parent = nodes[i].parent,
                             .kind = nodes[i].kind,
                             .module = i == 0 ? FMT_MODULE_NONE : 1,
                             .offset = nodes[i].offset,
                             .samples = nodes[i].samples,
                             .metrics = &m};

        if (nodes[i].samples > 0) {
            m.event = 0;
            m.value = nodes[i].samples * 10000000ull;
            n.nmetrics = 1;
        }
        fmt_write_node(&writer, &n);
    }
    fmt_end_cct(&writer);
    fmt_write_stats(&writer, NULL, 0);
    if (fmt_writer_finish(&writer) < 0 || close(fd) != 0)
        die("write failed", path);
}

int
main(int argc, char **argv)
{
    int procs, threads, npaths, r, t, k, d;

    if (argc < 6)
        die("usage: gen_scale PROCS THREADS SYMS MODULE OUTDIR [PATHS_PER_THREAD]", NULL);
    procs = atoi(argv[1]);
    threads = atoi(argv[2]);
    npaths = argc > 6 ? atoi(argv[6]) : 150;
    if (procs <= 0 || threads <= 0 || npaths <= 0)
        die("PROCS, THREADS and PATHS_PER_THREAD must be positive", NULL);
    load_syms(argv[3]);
    for (k = 0; k < POOL; k++) {
        pool_depth[k] = 4 + (int)(next_rand() % (MAX_DEPTH - 3));
        for (d = 0; d < pool_depth[k]; d++)
            pool[k][d] = sym_off[next_rand() % (nsyms < 300 ? nsyms : 300)] + (uint64_t)d % 3;
        if (main_off != 0)
            pool[k][0] = main_off + 4;
        /* share prefixes: half the paths extend an earlier one */
        if (k > 0 && next_rand() % 2 == 0) {
            int base = (int)(next_rand() % (uint64_t)k);
            int keep = pool_depth[base] - 1;

            memcpy(pool[k], pool[base], (size_t)keep * sizeof(pool[k][0]));
        }
    }
    for (r = 0; r < procs; r++)
        for (t = 0; t < threads; t++)
            write_thread(argv[5], argv[4], r, t, npaths);
    return 0;
}
