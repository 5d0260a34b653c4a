/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen.c -- the synthetic-profile generators' library (gen.h): symbol
 * tables from `nm -S`, a calling-context tree with shared prefixes, and the
 * lib/fmt writer boilerplate.
 *
 * Test/bench tool code (ordinary process context, one thread).  Errors
 * are fatal (gen_die); nothing here may run in a profiled process.
 */
#include "gen.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *gen_name = "gen";
static struct fmt_writer writer; /* large: keep it off the stack */
static char *file_path;          /* the open file of gen_file_open */
static int file_fd = -1;

void
gen_set_name(const char *name)
{
    gen_name = name;
}

void
gen_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", gen_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *
gen_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);

    if (p == NULL && n != 0 && size != 0)
        gen_die("out of memory");
    return p;
}

char *
gen_xstrdup(const char *s)
{
    char *d = strdup(s);

    if (d == NULL)
        gen_die("out of memory");
    return d;
}

uint64_t
gen_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

double
gen_unif(uint64_t *state)
{
    return (double)(gen_rand(state) >> 11) * (1.0 / 9007199254740992.0);
}

void
gen_syms_load(struct gen_syms *t, const char *path, uint32_t module)
{
    char *line = NULL, *name = NULL;
    size_t linecap = 0, namecap = 0;
    unsigned long long addr, size;
    char type;
    ssize_t len;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        gen_die("%s: cannot open", path);
    while ((len = getline(&line, &linecap, f)) > 0) {
        struct gen_sym *s;

        if ((size_t)len + 1 > namecap) {
            free(name);
            namecap = (size_t)len + 1;
            name = gen_xcalloc(namecap, 1);
        }
        if (sscanf(line, "%llx %llx %c %s", &addr, &size, &type, name) != 4)
            continue;                  /* symbols without a size */
        if (strchr(name, '@') != NULL) /* nm -D: "qsort@@GLIBC_2.2.5" */
            *strchr(name, '@') = '\0';
        if (t->n == t->cap) {
            t->cap = t->cap != 0 ? 2 * t->cap : 1024;
            t->v = realloc(t->v, t->cap * sizeof(*t->v));
            if (t->v == NULL)
                gen_die("out of memory");
        }
        s = &t->v[t->n++];
        s->name = gen_xstrdup(name);
        s->addr = addr;
        s->size = size;
        s->type = type;
        s->module = module;
    }
    free(name);
    free(line);
    fclose(f);
}

const struct gen_sym *
gen_syms_find(const struct gen_syms *t, const char *name)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    return NULL;
}

void
gen_syms_free(struct gen_syms *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    memset(t, 0, sizeof(*t));
}

void
gen_cct_init(struct gen_cct *c, uint32_t nvalues)
{
    memset(c, 0, sizeof(*c));
    c->nvalues = nvalues;
    c->cap = 1024;
    c->nodes = gen_xcalloc(c->cap, sizeof(*c->nodes));
    c->values = gen_xcalloc((size_t)c->cap * (nvalues != 0 ? nvalues : 1), sizeof(*c->values));
    gen_cct_reset(c);
}

void
gen_cct_reset(struct gen_cct *c)
{
    csp_hmap_free(&c->index);
    memset(&c->nodes[0], 0, sizeof(c->nodes[0]));
    memset(c->values, 0, c->nvalues * sizeof(*c->values));
    c->nodes[0].kind = FMT_NODE_ROOT;
    c->nodes[0].module = FMT_MODULE_NONE;
    c->nnodes = 1;
}

void
gen_cct_free(struct gen_cct *c)
{
    free(c->nodes);
    free(c->values);
    csp_hmap_free(&c->index);
    memset(c, 0, sizeof(*c));
}

/* A node's key, as gen_cct_child looks it up. */
struct node_key {
    const struct gen_cct *c;
    uint32_t parent, kind, module;
    uint64_t offset;
};

static uint64_t
node_hash(uint32_t parent, uint32_t kind, uint32_t module, uint64_t offset)
{
    return csp_hash_u64(offset ^
                        csp_hash_u64((uint64_t)parent << 32 ^ (uint64_t)kind << 24 ^ module));
}

static bool
node_eq(const void *val, const void *key)
{
    const struct node_key *k = key;
    const struct gen_node *n = &k->c->nodes[(uintptr_t)val - 1];

    return n->parent == k->parent && n->kind == k->kind && n->module == k->module &&
           n->offset == k->offset;
}

uint32_t
gen_cct_add(struct gen_cct *c, uint32_t parent, uint32_t kind, uint32_t module, uint64_t offset)
{
    struct gen_node *n;

    if (c->nnodes == UINT32_MAX - 1)
        gen_die("too many nodes");
    if (c->nnodes == c->cap) {
        size_t nv = c->nvalues != 0 ? c->nvalues : 1;

        c->cap *= 2;
        c->nodes = realloc(c->nodes, (size_t)c->cap * sizeof(*c->nodes));
        c->values = realloc(c->values, (size_t)c->cap * nv * sizeof(*c->values));
        if (c->nodes == NULL || c->values == NULL)
            gen_die("out of memory");
    }
    n = &c->nodes[c->nnodes];
    memset(n, 0, sizeof(*n));
    memset(&c->values[(size_t)c->nnodes * c->nvalues], 0, c->nvalues * sizeof(*c->values));
    n->parent = parent;
    n->kind = (uint8_t)kind;
    n->module = module;
    n->offset = offset;
    c->nnodes++;
    if (csp_hmap_add(&c->index, node_hash(parent, kind, module, offset),
                     (void *)(uintptr_t)c->nnodes) != 0)
        gen_die("out of memory");
    return c->nnodes - 1;
}

uint32_t
gen_cct_child(struct gen_cct *c, uint32_t parent, uint32_t kind, uint32_t module, uint64_t offset)
{
    struct node_key k = {c, parent, kind, module, offset};
    uintptr_t i =
        (uintptr_t)csp_hmap_find(&c->index, node_hash(parent, kind, module, offset), node_eq, &k);

    return i != 0 ? (uint32_t)(i - 1) : gen_cct_add(c, parent, kind, module, offset);
}

uint64_t *
gen_cct_values(struct gen_cct *c, uint32_t i)
{
    return &c->values[(size_t)i * c->nvalues];
}

void
gen_file_open(const char *path, const struct fmt_header *hdr, const struct fmt_event *events,
              uint32_t nevents, const struct fmt_module *modules, uint32_t nmodules,
              uint64_t nnodes)
{
    file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (file_fd < 0)
        gen_die("%s: cannot create", path);
    free(file_path);
    file_path = gen_xstrdup(path);
    fmt_writer_init(&writer, file_fd);
    fmt_write_header(&writer, hdr);
    fmt_write_events(&writer, events, nevents);
    fmt_write_loadmap(&writer, modules, nmodules);
    fmt_begin_cct(&writer, 0, nnodes);
}

void
gen_file_node(const struct fmt_node *n)
{
    fmt_write_node(&writer, n);
}

void
gen_file_cct(const struct gen_cct *c, uint32_t nevents)
{
    struct fmt_metric *metrics = gen_xcalloc(nevents != 0 ? nevents : 1, sizeof(*metrics));
    uint32_t i, e;

    if (nevents > c->nvalues)
        nevents = c->nvalues;
    for (i = 0; i < c->nnodes; i++) {
        const struct gen_node *cn = &c->nodes[i];
        const uint64_t *v = &c->values[(size_t)i * c->nvalues];
        struct fmt_node n = {.id = i,
                             .parent = cn->parent,
                             .kind = cn->kind,
                             .module = cn->module,
                             .offset = cn->offset,
                             .samples = cn->samples,
                             .calls = cn->calls,
                             .metrics = metrics};

        for (e = 0; e < nevents; e++)
            if (v[e] != 0) {
                metrics[n.nmetrics].event = e;
                metrics[n.nmetrics].value = v[e];
                n.nmetrics++;
            }
        fmt_write_node(&writer, &n);
    }
    free(metrics);
}

void
gen_file_close(const struct fmt_stat *stats, uint32_t nstats)
{
    int rc;

    fmt_end_cct(&writer);
    fmt_write_stats(&writer, stats, nstats);
    rc = fmt_writer_finish(&writer);
    if (close(file_fd) != 0 && rc == 0)
        rc = FMT_EIO;
    file_fd = -1;
    if (rc < 0)
        gen_die("%s: %s", file_path, fmt_strerror(rc));
    free(file_path);
    file_path = NULL;
}
