/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * db_read.c -- DB/experiment.xml into struct rpt_db with libxml2's streaming
 * reader (xmlTextReader): one pass, no DOM, attributes read in place.
 *
 * Tool code.  Elements this reader does not know are skipped with their
 * whole subtree (xmlTextReaderNext), attributes it does not know are
 * ignored, so that databases with more content than experiment.dtd
 * describes today still load.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/xmlreader.h>

#include "report/report_internal.h"
#include "support/vec.h"

const char *
rpt_strerror(int err)
{
    switch (err) {
    case RPT_OK:
        return "success";
    case RPT_ENOMEM:
        return "out of memory";
    case RPT_EIO:
        return "cannot read the database";
    case RPT_EFORMAT:
        return "not a csprof experiment database";
    case RPT_EINVAL:
        return "invalid argument";
    case RPT_ENOENT:
        return "the database has no such part";
    }
    return "unknown error";
}

void
rpt_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void *
rpt_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;

    if (csp_vec_reserve(&p, cap, need, elem) != 0)
        return NULL;
    memset((char *)p + old * elem, 0, (*cap - old) * elem);
    return p;
}

/* Attributes of the current element, by name, without copying. */
#define MAX_ATTRS 24
struct attrs {
    int n;
    const char *name[MAX_ATTRS];
    const char *value[MAX_ATTRS];
};

static void
read_attrs(xmlTextReaderPtr r, struct attrs *a)
{
    a->n = 0;
    if (xmlTextReaderMoveToFirstAttribute(r) != 1)
        return;
    do {
        if (a->n < MAX_ATTRS) {
            a->name[a->n] = (const char *)xmlTextReaderConstName(r);
            a->value[a->n] = (const char *)xmlTextReaderConstValue(r);
            a->n++;
        }
    } while (xmlTextReaderMoveToNextAttribute(r) == 1);
    xmlTextReaderMoveToElement(r);
}

static const char *
attr(const struct attrs *a, const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (a->name[i] != NULL && strcmp(a->name[i], name) == 0)
            return a->value[i];
    return NULL;
}

static long long
attr_ll(const struct attrs *a, const char *name, long long dflt)
{
    const char *v = attr(a, name);
    char *end;
    long long x;

    if (v == NULL || *v == '\0')
        return dflt;
    errno = 0;
    x = strtoll(v, &end, 10);
    return (errno != 0 || *end != '\0') ? dflt : x;
}

/* Attribute @name as a hexadecimal address ("0x10a0"), or 0 when absent or malformed. */
static uint64_t
attr_addr(const struct attrs *a, const char *name)
{
    const char *v = attr(a, name);
    char *end;
    unsigned long long x;

    if (v == NULL || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
        return 0;
    errno = 0;
    x = strtoull(v + 2, &end, 16);
    return (errno != 0 || *end != '\0' || end == v + 2) ? 0 : (uint64_t)x;
}

static double
attr_d(const struct attrs *a, const char *name, double dflt)
{
    const char *v = attr(a, name);
    char *end;
    double x;

    if (v == NULL || *v == '\0')
        return dflt;
    x = strtod(v, &end);
    return *end != '\0' || !isfinite(x) ? dflt : x; /* JSON writers print it */
}

static char *
attr_dup(const struct attrs *a, const char *name)
{
    const char *v = attr(a, name);

    return v != NULL ? strdup(v) : NULL;
}

/* Raw units per stored unit, from the unit names csprof-prof writes. */
static double
unit_factor(const char *unit, const char *raw)
{
    static const struct {
        const char *unit, *raw;
        double factor;
    } table[] = {
        {"s", "ns", 1e9}, {"ms", "ns", 1e6}, {"us", "ns", 1e3}, {"s", "us", 1e6}, {"s", "ms", 1e3},
    };

    if (unit == NULL || raw == NULL || strcmp(unit, raw) == 0)
        return 1.0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].unit, unit) == 0 && strcmp(table[i].raw, raw) == 0)
            return table[i].factor;
    return 1.0;
}

struct reader {
    struct rpt_db *db;
    size_t cap_metrics, cap_modules, cap_files, cap_procs, cap_inputs, cap_nodes;
    /* the open CCT elements: node index and XML depth */
    uint32_t *stack;
    int *stack_depth;
    size_t nstack, cap_stack, cap_stack_depth;
    bool in_cct;
    int cct_depth; /* XML depth of SecCallPathProfileData */
    bool in_flat;
    int flat_depth; /* XML depth of SecFlatProfileData */
    struct rpt_snode *snodes;
    uint32_t nsnodes;
    size_t cap_snodes;
    struct rpt_node *nodes;
    uint32_t nnodes;
    /* values are kept as (node, metric, value) until the metric count is final */
    struct mval {
        uint32_t node;
        bool flat; /* a value of the static view */
        int metric;
        double v;
    } * mvals;
    size_t nmvals, cap_mvals;
    uint32_t *last_child; /* per node, for O(1) sibling links */
    size_t cap_last;
    size_t cap_file_src, cap_summary;
    int summary_depth;  /* XML depth of Summary while inside it, else -1 */
    double *population; /* Metric population= by i (statistics), else 0 */
    size_t cap_population;
};

/* Index attribute i of a table row: 0-based, dense, below a sane bound. */
static int
row_index(const struct attrs *a)
{
    long long i = attr_ll(a, "i", -1);

    return (i < 0 || i > 100000000) ? -1 : (int)i;
}

static int
add_table_row(struct reader *rd, const char *el, const struct attrs *a)
{
    struct rpt_db *db = rd->db;
    int i = row_index(a);

    if (i < 0)
        return RPT_EFORMAT;
    if (strcmp(el, "Metric") == 0) {
        struct rpt_metric *m;
        db->metrics = rpt_grow(db->metrics, &rd->cap_metrics, (size_t)i + 1, sizeof *m);
        if (db->metrics == NULL)
            return RPT_ENOMEM;
        m = &db->metrics[i];
        if (m->name != NULL)
            return RPT_EFORMAT; /* duplicate index */
        m->name = attr_dup(a, "n");
        m->event = attr_dup(a, "event");
        m->unit = attr_dup(a, "unit");
        m->raw_unit = attr_dup(a, "raw-unit");
        if (m->name == NULL || m->event == NULL)
            return RPT_EFORMAT;
        m->inclusive = attr(a, "t") != NULL && strcmp(attr(a, "t"), "inclusive") == 0;
        m->partner = (int)attr_ll(a, "partner", -1);
        m->raw_per_unit = unit_factor(m->unit, m->raw_unit);
        m->integral = m->raw_unit != NULL || strcmp(m->event, "samples") == 0 ||
                      strcmp(m->event, "calls") == 0;
        /* newer databases add derived metrics (formula) and statistics over
           threads and processes (stat): neither adds up along the tree */
        m->stat = attr_dup(a, "stat");
        m->over = attr_dup(a, "over");
        m->of = (int)attr_ll(a, "of", -1);
        m->formula = attr_dup(a, "formula");
        rd->population =
            rpt_grow(rd->population, &rd->cap_population, (size_t)i + 1, sizeof *rd->population);
        if (rd->population == NULL)
            return RPT_ENOMEM;
        rd->population[i] = (double)attr_ll(a, "population", 0);
        m->additive = attr(a, "formula") == NULL && attr(a, "stat") == NULL &&
                      (m->unit == NULL || strcmp(m->unit, "derived") != 0);
        if (i + 1 > db->nmetrics)
            db->nmetrics = i + 1;
    } else if (strcmp(el, "LoadModule") == 0) {
        db->modules = rpt_grow(db->modules, &rd->cap_modules, (size_t)i + 1, sizeof *db->modules);
        if (db->modules == NULL)
            return RPT_ENOMEM;
        free(db->modules[i].name);
        free(db->modules[i].build_id);
        db->modules[i].name = attr_dup(a, "n");
        db->modules[i].build_id = attr_dup(a, "build-id");
        if (i + 1 > db->nmodules)
            db->nmodules = i + 1;
    } else if (strcmp(el, "File") == 0) {
        db->files = rpt_grow(db->files, &rd->cap_files, (size_t)i + 1, sizeof *db->files);
        if (db->files == NULL)
            return RPT_ENOMEM;
        free(db->files[i]);
        db->files[i] = attr_dup(a, "n");
        db->file_src = rpt_grow(db->file_src, &rd->cap_file_src, (size_t)i + 1, sizeof(char *));
        if (db->file_src == NULL)
            return RPT_ENOMEM;
        free(db->file_src[i]);
        db->file_src[i] = attr_dup(a, "src");
        if (i + 1 > db->nfiles)
            db->nfiles = i + 1;
    } else { /* Procedure */
        struct rpt_proc *p;
        db->procs = rpt_grow(db->procs, &rd->cap_procs, (size_t)i + 1, sizeof *p);
        if (db->procs == NULL)
            return RPT_ENOMEM;
        p = &db->procs[i];
        free(p->name);
        p->name = attr_dup(a, "n");
        p->lm = (int)attr_ll(a, "lm", -1);
        p->file = (int)attr_ll(a, "f", -1);
        p->line = (int)attr_ll(a, "l", 0);
        if (i + 1 > db->nprocs)
            db->nprocs = i + 1;
    }
    return RPT_OK;
}

static int
add_input(struct reader *rd, const struct attrs *a)
{
    struct rpt_db *db = rd->db;
    struct rpt_input *in;

    db->inputs = rpt_grow(db->inputs, &rd->cap_inputs, (size_t)db->ninputs + 1, sizeof *in);
    if (db->inputs == NULL)
        return RPT_ENOMEM;
    in = &db->inputs[db->ninputs++];
    in->path = attr_dup(a, "path");
    in->read = attr(a, "status") != NULL && strcmp(attr(a, "status"), "read") == 0;
    in->pid = attr_ll(a, "pid", -1);
    in->tid = attr_ll(a, "tid", -1);
    in->thread_index = attr_ll(a, "thread-index", -1);
    in->rank = attr_ll(a, "rank", -1);
    in->samples = attr_d(a, "samples", -1);
    in->cpu_ns = attr_d(a, "cpu-ns", -1);
    in->thread = attr_ll(a, "thread", -1);
    in->process = attr_ll(a, "process", -1);
    in->program = attr_dup(a, "program");
    in->start_ns = attr_d(a, "start-ns", -1);
    in->end_ns = attr_d(a, "end-ns", -1);
    return RPT_OK;
}

static int
cct_kind(const char *el)
{
    static const struct {
        const char *name;
        enum csp_scope kind;
    } kinds[] = {{"PF", CSP_SCOPE_PROC}, {"A", CSP_SCOPE_INLINE}, {"L", CSP_SCOPE_LOOP},
                 {"C", CSP_SCOPE_CALL},  {"S", CSP_SCOPE_STMT},   {"T", CSP_SCOPE_TRUNC}};

    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, el) == 0)
            return (int)kinds[i].kind;
    return -1;
}

static int
push(struct reader *rd, uint32_t node, int depth)
{
    rd->stack = rpt_grow(rd->stack, &rd->cap_stack, rd->nstack + 1, sizeof *rd->stack);
    rd->stack_depth =
        rpt_grow(rd->stack_depth, &rd->cap_stack_depth, rd->nstack + 1, sizeof *rd->stack_depth);
    if (rd->stack == NULL || rd->stack_depth == NULL)
        return RPT_ENOMEM;
    rd->stack[rd->nstack] = node;
    rd->stack_depth[rd->nstack] = depth;
    rd->nstack++;
    return RPT_OK;
}

static int
new_node(struct reader *rd, int kind, const struct attrs *a, uint32_t *out)
{
    uint32_t parent = rd->nstack ? rd->stack[rd->nstack - 1] : 0;
    struct rpt_node *n;
    uint32_t id = rd->nnodes;

    if (rd->nnodes == UINT32_MAX)
        return RPT_ENOMEM;
    rd->nodes = rpt_grow(rd->nodes, &rd->cap_nodes, (size_t)id + 1, sizeof *rd->nodes);
    rd->last_child =
        rpt_grow(rd->last_child, &rd->cap_last, (size_t)id + 1, sizeof *rd->last_child);
    if (rd->nodes == NULL || rd->last_child == NULL)
        return RPT_ENOMEM;
    n = &rd->nodes[id];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->kind = (uint8_t)kind;
    n->proc = -1;
    n->lm = -1;
    n->file = -1;
    if (a != NULL) {
        if (kind == CSP_SCOPE_PROC || kind == CSP_SCOPE_INLINE)
            n->proc = (int32_t)attr_ll(a, "n", -1);
        n->lm = (int32_t)attr_ll(a, "lm", -1);
        n->file = (int32_t)attr_ll(a, "f", -1);
        n->line = (int32_t)attr_ll(a, "l", 0);
        n->id = (uint32_t)attr_ll(a, "i", 0);
        n->addr = attr_addr(a, "a");
        if (kind == CSP_SCOPE_LOOP)
            n->end = attr_addr(a, "end");
    }
    if (id != 0) {
        if (rd->last_child[parent] == 0)
            rd->nodes[parent].first_child = id;
        else
            rd->nodes[rd->last_child[parent]].next_sibling = id;
        rd->last_child[parent] = id;
    }
    rd->nnodes++;
    *out = id;
    return RPT_OK;
}

static int
static_kind(const char *el)
{
    static const char *const names[] = {"StaticLM", "StaticF", "StaticP", "StaticA",
                                        "StaticL",  "StaticC", "StaticS"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], el) == 0)
            return (int)i + CSP_SCOPE_MODULE;
    return -1;
}

static int
new_snode(struct reader *rd, int kind, const struct attrs *a, uint32_t *out)
{
    uint32_t id = rd->nsnodes;
    struct rpt_snode *n;

    if (id == UINT32_MAX)
        return RPT_ENOMEM;
    rd->snodes = rpt_grow(rd->snodes, &rd->cap_snodes, (size_t)id + 1, sizeof *rd->snodes);
    if (rd->snodes == NULL)
        return RPT_ENOMEM;
    n = &rd->snodes[id];
    n->parent = rd->nstack ? rd->stack[rd->nstack - 1] : 0;
    n->kind = (uint8_t)kind;
    n->proc = n->lm = n->file = -1;
    n->line = 0;
    if (a != NULL) {
        if (kind == CSP_SCOPE_PROC || kind == CSP_SCOPE_INLINE)
            n->proc = (int32_t)attr_ll(a, "n", -1);
        n->lm = (int32_t)attr_ll(a, "lm", -1);
        n->file = (int32_t)attr_ll(a, "f", -1);
        n->line = (int32_t)attr_ll(a, "l", 0);
    }
    rd->nsnodes++;
    *out = id;
    return RPT_OK;
}

static int
add_value(struct reader *rd, const struct attrs *a, int depth)
{
    long long m = attr_ll(a, "n", -1);
    const char *v = attr(a, "v");
    char *end;
    double x;

    /* an M belongs to the CCT node whose element is its parent */
    if (rd->nstack == 0 || rd->stack_depth[rd->nstack - 1] != depth - 1)
        return RPT_OK;
    if (m < 0 || m > 1000000 || v == NULL)
        return RPT_EFORMAT;
    x = strtod(v, &end);
    if (*end != '\0' || end == v || !isfinite(x)) /* inf and nan are no JSON numbers */
        return RPT_EFORMAT;
    rd->mvals = rpt_grow(rd->mvals, &rd->cap_mvals, rd->nmvals + 1, sizeof *rd->mvals);
    if (rd->mvals == NULL)
        return RPT_ENOMEM;
    rd->mvals[rd->nmvals++] = (struct mval){rd->stack[rd->nstack - 1], rd->in_flat, (int)m, x};
    return RPT_OK;
}

/* Handle one element start.  *skip: skip the subtree (unknown element). */
/* An element inside SecFlatProfileData (rd->in_flat: the static view) or
 * SecCallPathProfileData (the calling-context tree): a metric value of the
 * innermost open scope, or a child scope of it; anything else is skipped and
 * counted. */
static int
section_element(struct reader *rd, xmlTextReaderPtr r, const char *el, int depth, bool empty,
                bool *skip)
{
    struct attrs a;
    uint32_t id;
    int kind, rc;

    if (strcmp(el, "M") == 0) {
        read_attrs(r, &a);
        return add_value(rd, &a, depth);
    }
    kind = rd->in_flat ? static_kind(el) : cct_kind(el);
    if (kind < 0 || rd->nstack == 0 || rd->stack_depth[rd->nstack - 1] != depth - 1) {
        *skip = true;
        rd->db->skipped_elements++;
        return RPT_OK;
    }
    read_attrs(r, &a);
    rc = rd->in_flat ? new_snode(rd, kind, &a, &id) : new_node(rd, kind, &a, &id);
    if (rc == RPT_OK && !empty)
        rc = push(rd, id, depth);
    return rc;
}

/* Keep element @el of the Summary subtree (@depth below Summary) with all its attributes. */
static int
add_summary(struct reader *rd, xmlTextReaderPtr r, const char *el, int depth)
{
    struct rpt_db *db = rd->db;
    struct rpt_summary_el *s;
    size_t cap = 0;

    db->summary = rpt_grow(db->summary, &rd->cap_summary, db->nsummary + 1, sizeof *s);
    if (db->summary == NULL)
        return RPT_ENOMEM;
    s = &db->summary[db->nsummary++];
    s->el = strdup(el);
    s->depth = depth;
    if (s->el == NULL)
        return RPT_ENOMEM;
    if (xmlTextReaderMoveToFirstAttribute(r) == 1) {
        do {
            const char *n = (const char *)xmlTextReaderConstName(r);
            const char *v = (const char *)xmlTextReaderConstValue(r);
            s->attrs = rpt_grow(s->attrs, &cap, 2 * (size_t)s->nattrs + 2, sizeof(char *));
            if (s->attrs == NULL)
                return RPT_ENOMEM;
            s->attrs[2 * s->nattrs] = strdup(n ? n : "?");
            s->attrs[2 * s->nattrs + 1] = strdup(v ? v : "");
            s->nattrs++;
            if (s->attrs[2 * s->nattrs - 2] == NULL || s->attrs[2 * s->nattrs - 1] == NULL)
                return RPT_ENOMEM;
        } while (xmlTextReaderMoveToNextAttribute(r) == 1);
        xmlTextReaderMoveToElement(r);
    }
    return RPT_OK;
}

static int
start_element(struct reader *rd, xmlTextReaderPtr r, const char *el, int depth, bool empty,
              bool *skip)
{
    struct rpt_db *db = rd->db;
    struct attrs a;
    uint32_t id;
    int rc;

    *skip = false;
    if (rd->in_flat || rd->in_cct)
        return section_element(rd, r, el, depth, empty, skip);
    if (rd->summary_depth >= 0 || strcmp(el, "Summary") == 0) {
        rc = add_summary(rd, r, el, rd->summary_depth >= 0 ? depth - rd->summary_depth : 0);
        if (rc != RPT_OK)
            return rc;
        if (rd->summary_depth < 0 && !empty)
            rd->summary_depth = depth;
    }
    if (strcmp(el, "SecFlatProfileData") == 0) {
        if (rd->nsnodes != 0 || empty)
            return rd->nsnodes != 0 ? RPT_EFORMAT : RPT_OK;
        rd->in_flat = true;
        rd->flat_depth = depth;
        rc = new_snode(rd, CSP_SCOPE_ROOT, NULL, &id);
        if (rc == RPT_OK)
            rc = push(rd, id, depth);
        return rc;
    }
    if (strcmp(el, "SecCallPathProfileData") == 0) {
        if (rd->nnodes != 0)
            return RPT_EFORMAT; /* a second profile: not produced by csprof-prof */
        rd->in_cct = !empty;
        rd->cct_depth = depth;
        rc = new_node(rd, CSP_SCOPE_ROOT, NULL, &id);
        if (rc == RPT_OK && !empty)
            rc = push(rd, id, depth);
        return rc;
    }
    if (strcmp(el, "Metric") == 0 || strcmp(el, "LoadModule") == 0 || strcmp(el, "File") == 0 ||
        strcmp(el, "Procedure") == 0) {
        read_attrs(r, &a);
        return add_table_row(rd, el, &a);
    }
    if (strcmp(el, "Input") == 0) {
        read_attrs(r, &a);
        return add_input(rd, &a);
    }
    if (strcmp(el, "csprof-experiment") == 0) {
        read_attrs(r, &a);
        db->version = attr_dup(&a, "version");
        return RPT_OK;
    }
    if (strcmp(el, "Header") == 0) {
        read_attrs(r, &a);
        db->program = attr_dup(&a, "n");
        return RPT_OK;
    }
    if (strcmp(el, "Summary") == 0) {
        read_attrs(r, &a);
        db->threads = attr_d(&a, "threads", -1);
        db->processes = attr_d(&a, "processes", -1);
        db->samples = attr_d(&a, "samples", -1);
        db->rooted_percent = attr_d(&a, "rooted-percent", -1);
        db->unknown_samples = attr_d(&a, "unknown-samples", -1);
        db->cpu_seconds = attr_d(&a, "cpu-seconds", -1);
        return RPT_OK;
    }
    return RPT_OK; /* containers and unknown elements outside the CCT: read through */
}

static void
end_element(struct reader *rd, int depth)
{
    if (depth == rd->summary_depth)
        rd->summary_depth = -1;
    if (rd->in_flat) {
        if (rd->nstack > 0 && rd->stack_depth[rd->nstack - 1] == depth)
            rd->nstack--;
        if (depth == rd->flat_depth)
            rd->in_flat = false;
        return;
    }
    if (!rd->in_cct)
        return;
    if (rd->nstack > 0 && rd->stack_depth[rd->nstack - 1] == depth)
        rd->nstack--;
    if (depth == rd->cct_depth)
        rd->in_cct = false;
}

/*
 * db->program becomes the run's program (struct rpt_groups): Header n names
 * the program of the first file read, which in a multi-process run may be
 * any of them (cc1 for a make run).  Kept when the inputs do not say.
 */
static int
name_program(struct rpt_db *db)
{
    struct rpt_groups g;
    char err[256];
    int rc = RPT_OK;

    if (rpt_db_groups(db, &g, err, sizeof err) == RPT_OK && g.main >= 0 &&
        g.processes[g.main].program != NULL) {
        char *p = strdup(g.processes[g.main].program);
        if (p == NULL) {
            rc = RPT_ENOMEM;
        } else {
            free(db->program);
            db->program = p;
        }
    }
    rpt_groups_free(&g);
    return rc;
}

/*
 * The statistics a database leaves out where one thread (process) alone has
 * a value (experiment.dtd): count 1 of population N, v the node's value of
 * metric "of": mean v / N, max v, stddev v sqrt(N - 1) / N, cv sqrt(N - 1);
 * min is 0, as stored.  Databases that wrote them keep their own.
 */
static void
fill_single_stats(struct reader *rd)
{
    struct rpt_db *db = rd->db;
    size_t nm = (size_t)db->nmetrics;

    for (int s = 0; s < db->nmetrics; s++) {
        const struct rpt_metric *m = &db->metrics[s];
        double n = (size_t)s < rd->cap_population ? rd->population[s] : 0.0;
        int c = -1, k;

        if (m->stat == NULL || m->over == NULL || m->of < 0 || m->of >= db->nmetrics || n < 2)
            continue;
        for (k = 0; k < db->nmetrics; k++) {
            const struct rpt_metric *o = &db->metrics[k];
            if (o->stat != NULL && strcmp(o->stat, "count") == 0 && o->over != NULL &&
                strcmp(o->over, m->over) == 0 && o->of == m->of)
                c = k;
        }
        if (c < 0 || c == s)
            continue;
        for (uint32_t i = 0; i < db->nnodes; i++) {
            double *row = &db->values[(size_t)i * nm], v = row[m->of];

            if (row[c] != 1.0 || row[s] != 0.0)
                continue;
            if (strcmp(m->stat, "mean") == 0)
                row[s] = v / n;
            else if (strcmp(m->stat, "max") == 0)
                row[s] = v;
            else if (strcmp(m->stat, "stddev") == 0)
                row[s] = fabs(v) * sqrt(n - 1) / n;
            else if (strcmp(m->stat, "cv") == 0 && v != 0.0)
                row[s] = v > 0.0 ? sqrt(n - 1) : -sqrt(n - 1);
        }
    }
}

static int
finish_db(struct reader *rd, char *err, size_t errlen)
{
    struct rpt_db *db = rd->db;

    if (db->version == NULL || rd->nnodes == 0) {
        rpt_errf(err, errlen, "%s: not a csprof experiment database (no %s)", db->path,
                 db->version == NULL ? "csprof-experiment element" : "SecCallPathProfileData");
        return RPT_EFORMAT;
    }
    db->calls_metric = -1;
    for (int i = 0; i < db->nmetrics; i++) {
        struct rpt_metric *m = &db->metrics[i];
        if (m->name == NULL) {
            rpt_errf(err, errlen, "%s: metric table has no Metric i=\"%d\"", db->path, i);
            return RPT_EFORMAT;
        }
        if (strcmp(m->event, "calls") == 0 && db->calls_metric < 0)
            db->calls_metric = i;
    }
    for (int i = 0; db->procs != NULL && i < db->nprocs; i++)
        if (db->procs[i].name == NULL) {
            rpt_errf(err, errlen, "%s: procedure table has no Procedure i=\"%d\"", db->path, i);
            return RPT_EFORMAT;
        }
    for (int i = 0; db->files != NULL && i < db->nfiles; i++)
        if (db->files[i] == NULL && (db->files[i] = strdup("?")) == NULL)
            return RPT_ENOMEM;
    for (int i = 0; db->modules != NULL && i < db->nmodules; i++)
        if (db->modules[i].name == NULL && (db->modules[i].name = strdup("?")) == NULL)
            return RPT_ENOMEM;
    db->nodes = rd->nodes;
    db->nnodes = rd->nnodes;
    rd->nodes = NULL;
    for (uint32_t i = 0; i < db->nnodes; i++) {
        struct rpt_node *n = &db->nodes[i];
        if (n->proc >= db->nprocs || (n->kind == CSP_SCOPE_PROC && n->proc < 0) ||
            (n->kind == CSP_SCOPE_INLINE && n->proc < 0)) {
            rpt_errf(err, errlen, "%s: a call-tree frame names procedure %d of %d", db->path,
                     (int)n->proc, db->nprocs);
            return RPT_EFORMAT;
        }
        if (n->file >= db->nfiles)
            n->file = -1;
        if (n->lm >= db->nmodules)
            n->lm = -1;
        if (n->kind == CSP_SCOPE_PROC && n->lm < 0 && db->procs[n->proc].lm < db->nmodules)
            n->lm = db->procs[n->proc].lm;
    }
    if (db->nmetrics > 0) {
        db->values = calloc((size_t)db->nnodes * (size_t)db->nmetrics, sizeof *db->values);
        if (db->values == NULL)
            return RPT_ENOMEM;
    }
    for (uint32_t i = 0; i < rd->nsnodes; i++) {
        struct rpt_snode *n = &rd->snodes[i];
        if (n->proc >= db->nprocs ||
            ((n->kind == CSP_SCOPE_PROC || n->kind == CSP_SCOPE_INLINE) && n->proc < 0)) {
            rpt_errf(err, errlen, "%s: a static scope names procedure %d of %d", db->path,
                     (int)n->proc, db->nprocs);
            return RPT_EFORMAT;
        }
        if (n->file >= db->nfiles)
            n->file = -1;
        if (n->lm >= db->nmodules)
            n->lm = -1;
    }
    db->snodes = rd->snodes;
    db->nsnodes = rd->nsnodes;
    rd->snodes = NULL;
    if (db->nmetrics > 0 && db->nsnodes > 0) {
        db->svalues = calloc((size_t)db->nsnodes * (size_t)db->nmetrics, sizeof *db->svalues);
        if (db->svalues == NULL)
            return RPT_ENOMEM;
    }
    for (size_t i = 0; i < rd->nmvals; i++) {
        struct mval *v = &rd->mvals[i];
        if (v->metric >= db->nmetrics) {
            rpt_errf(err, errlen, "%s: a value names metric %d of %d", db->path, v->metric,
                     db->nmetrics);
            return RPT_EFORMAT;
        }
        if (v->flat)
            db->svalues[(size_t)v->node * (size_t)db->nmetrics + (size_t)v->metric] = v->v;
        else
            db->values[(size_t)v->node * (size_t)db->nmetrics + (size_t)v->metric] = v->v;
    }
    fill_single_stats(rd);
    return name_program(db);
}

/* libxml2 reports through this instead of printing: the first error is kept. */
struct xml_err {
    char msg[200];
    int line;
};

static void
on_xml_error(void *arg, const char *msg, xmlParserSeverities severity, xmlTextReaderLocatorPtr loc)
{
    struct xml_err *e = arg;
    size_t n;

    if (severity != XML_PARSER_SEVERITY_ERROR || e->msg[0] != '\0' || msg == NULL)
        return;
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    n = strlen(e->msg);
    while (n > 0 && (e->msg[n - 1] == '\n' || e->msg[n - 1] == ' '))
        e->msg[--n] = '\0';
    e->line = loc != NULL ? xmlTextReaderLocatorLineNumber(loc) : 0;
}

int
rpt_db_read(const char *path, struct rpt_db **out, char *err, size_t errlen)
{
    struct xml_err xerr = {"", 0};
    struct reader rd;
    struct rpt_db *db;
    struct stat st;
    xmlTextReaderPtr r;
    char *file;
    int rc = RPT_OK, ret, skip_depth = -1;

    *out = NULL;
    memset(&rd, 0, sizeof rd);
    rd.summary_depth = -1;
    if (stat(path, &st) != 0) {
        rpt_errf(err, errlen, "%s: %s", path, strerror(errno));
        return RPT_EIO;
    }
    if (S_ISDIR(st.st_mode)) {
        if (asprintf(&file, "%s/experiment.xml", path) < 0)
            return RPT_ENOMEM;
    } else if ((file = strdup(path)) == NULL) {
        return RPT_ENOMEM;
    }
    db = calloc(1, sizeof *db);
    if (db == NULL) {
        free(file);
        return RPT_ENOMEM;
    }
    db->path = file;
    db->threads = db->processes = db->samples = db->rooted_percent = -1;
    db->unknown_samples = db->cpu_seconds = -1;
    rd.db = db;
    r = xmlReaderForFile(file, NULL, XML_PARSE_HUGE | XML_PARSE_NONET);
    if (r == NULL) {
        rpt_errf(err, errlen, "%s: cannot open: %s", file, strerror(errno ? errno : EIO));
        rc = RPT_EIO;
        goto out_free;
    }
    xmlTextReaderSetErrorHandler(r, on_xml_error, &xerr);
    while ((ret = xmlTextReaderRead(r)) == 1) {
        int type = xmlTextReaderNodeType(r);
        int depth = xmlTextReaderDepth(r);

        if (skip_depth >= 0) { /* inside an unknown element: wait for its end */
            if (type == XML_READER_TYPE_END_ELEMENT && depth == skip_depth)
                skip_depth = -1;
            continue;
        }
        if (type == XML_READER_TYPE_ELEMENT) {
            bool empty = xmlTextReaderIsEmptyElement(r) == 1, skip = false;
            const char *el = (const char *)xmlTextReaderConstName(r);

            rc = start_element(&rd, r, el, depth, empty, &skip);
            if (rc != RPT_OK) {
                if (rc == RPT_EFORMAT)
                    rpt_errf(err, errlen, "%s:%d: malformed <%s>", file,
                             xmlTextReaderGetParserLineNumber(r), el);
                else
                    rpt_errf(err, errlen, "%s: %s", file, rpt_strerror(rc));
                goto out_reader;
            }
            if (skip && !empty)
                skip_depth = depth;
        } else if (type == XML_READER_TYPE_END_ELEMENT) {
            end_element(&rd, depth);
        }
    }
    if (ret != 0) {
        rpt_errf(err, errlen, "%s:%d: not well-formed XML: %s", file, xerr.line,
                 xerr.msg[0] ? xerr.msg : "cannot parse");
        rc = RPT_EFORMAT;
        goto out_reader;
    }
    rc = finish_db(&rd, err, errlen);
out_reader:
    xmlFreeTextReader(r);
out_free:
    free(rd.stack);
    free(rd.stack_depth);
    free(rd.mvals);
    free(rd.population);
    free(rd.last_child);
    free(rd.snodes);
    if (rc != RPT_OK) {
        if (db->nodes == NULL)
            db->nodes = rd.nodes;
        else
            free(rd.nodes);
        rpt_db_free(db);
        return rc;
    }
    *out = db;
    return RPT_OK;
}

void
rpt_db_free(struct rpt_db *db)
{
    if (db == NULL)
        return;
    for (int i = 0; db->metrics != NULL && i < db->nmetrics; i++) {
        free(db->metrics[i].name);
        free(db->metrics[i].event);
        free(db->metrics[i].unit);
        free(db->metrics[i].raw_unit);
        free(db->metrics[i].stat);
        free(db->metrics[i].over);
        free(db->metrics[i].formula);
    }
    free(db->metrics);
    for (int i = 0; db->modules != NULL && i < db->nmodules; i++) {
        free(db->modules[i].name);
        free(db->modules[i].build_id);
    }
    free(db->modules);
    for (int i = 0; db->files != NULL && i < db->nfiles; i++)
        free(db->files[i]);
    free(db->files);
    for (int i = 0; db->file_src != NULL && i < db->nfiles; i++)
        free(db->file_src[i]);
    free(db->file_src);
    for (size_t i = 0; i < db->nsummary; i++) {
        for (int k = 0; k < 2 * db->summary[i].nattrs; k++)
            free(db->summary[i].attrs[k]);
        free(db->summary[i].attrs);
        free(db->summary[i].el);
    }
    free(db->summary);
    for (int i = 0; db->procs != NULL && i < db->nprocs; i++)
        free(db->procs[i].name);
    free(db->procs);
    for (int i = 0; db->inputs != NULL && i < db->ninputs; i++) {
        free(db->inputs[i].path);
        free(db->inputs[i].program);
    }
    free(db->inputs);
    free(db->nodes);
    free(db->values);
    free(db->snodes);
    free(db->svalues);
    free(db->path);
    free(db->program);
    free(db->version);
    free(db);
}

int
rpt_db_find_metric(const struct rpt_db *db, const char *name)
{
    for (int i = 0; i < db->nmetrics; i++) {
        const struct rpt_metric *m = &db->metrics[i];
        if (!m->inclusive || !m->additive)
            continue;
        if (name == NULL || strcasecmp(m->event, name) == 0 || strcasecmp(m->name, name) == 0)
            return i;
    }
    return -1;
}

struct prog_count {
    const char *name;
    unsigned n;
};

static int
cmp_prog_count(const void *a, const void *b)
{
    const struct prog_count *x = a, *y = b;

    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* How many processes of @g other than the main one have wrapper flag @wrappers. */
static unsigned
title_others(const struct rpt_groups *g, bool wrappers)
{
    unsigned n = 0;

    for (uint32_t p = 0; p < g->nprocesses; p++)
        n += (long long)p != g->main && g->processes[p].nthreads > 0 &&
             g->processes[p].wrapper == wrappers;
    return n;
}

/* "+ N [wrapper ]processes: a x3, b x1, ..." of the processes title_others() counts, at
 * @n of @buf; returns the new length (< len). */
static size_t
title_counts(const struct rpt_groups *g, bool wrappers, struct prog_count *pc, char *buf,
             size_t len, size_t n)
{
    unsigned others = title_others(g, wrappers);
    size_t npc = 0;

    for (uint32_t p = 0; p < g->nprocesses; p++) {
        const char *name;
        size_t k;
        if ((long long)p == g->main || g->processes[p].nthreads == 0 ||
            g->processes[p].wrapper != wrappers)
            continue;
        name = rpt_program_name(g->processes[p].program);
        for (k = 0; k < npc && strcmp(pc[k].name, name) != 0; k++)
            ;
        if (k == npc)
            pc[npc++] = (struct prog_count){name, 0};
        pc[k].n++;
    }
    qsort(pc, npc, sizeof *pc, cmp_prog_count);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "+ %u %sprocess%s:", others,
                              wrappers ? "wrapper " : "", others == 1 ? "" : "es");
    for (size_t k = 0; k < npc && n < len; k++) {
        if (k == 4 && npc > 5) { /* a title, not a table */
            n += (size_t)snprintf(buf + n, len - n, " ...");
            break;
        }
        n += (size_t)snprintf(buf + n, len - n, "%s %s \xc3\x97%u", k ? "," : "", pc[k].name,
                              pc[k].n);
    }
    return n < len ? n : len - 1;
}

void
rpt_db_title(const struct rpt_db *db, char *buf, size_t len)
{
    struct rpt_groups g;
    const struct rpt_group *m;
    struct prog_count *pc;
    char err[256];
    size_t n, open;

    if (len == 0)
        return;
    if (rpt_db_groups(db, &g, err, sizeof err) != RPT_OK || g.main < 0 ||
        g.processes[g.main].program == NULL) {
        rpt_groups_free(&g);
        snprintf(buf, len, "%s", db->program != NULL ? db->program : "?");
        return;
    }
    m = &g.processes[g.main];
    n = (size_t)snprintf(buf, len, "%s",
                         g.nprocesses == 1 ? m->program : rpt_program_name(m->program));
    n = n < len ? n : len - 1;
    open = n;
    if (m->nimages > 1 && n < len) { /* the programs it ran before its last */
        n += (size_t)snprintf(buf + n, len - n, " (via");
        for (uint32_t k = 0; k + 1 < m->nimages && n < len; k++) {
            if (k == 3 && m->nimages > 5) { /* the first three, then the one before the last */
                n += (size_t)snprintf(buf + n, len - n, " \xe2\x86\x92 \xe2\x80\xa6");
                k = m->nimages - 3;
                continue;
            }
            n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? " \xe2\x86\x92 " : " ",
                                  rpt_program_name(m->images[k]));
        }
        n = n < len ? n : len - 1;
    }
    pc = calloc((size_t)g.nprocesses + 1, sizeof *pc);
    for (int w = 0; pc != NULL && w < 2; w++) { /* the other processes, then the wrappers */
        if (title_others(&g, w == 1) == 0 || n + 1 >= len)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s", n == open ? " (" : "; ");
        n = title_counts(&g, w == 1, pc, buf, len, n < len ? n : len - 1);
    }
    free(pc);
    if (n > open && n + 1 < len)
        snprintf(buf + n, len - n, ")");
    rpt_groups_free(&g);
}

int
rpt_db_find_derived(const struct rpt_db *db, const char *name)
{
    for (int i = 0; name != NULL && i < db->nmetrics; i++) {
        const struct rpt_metric *m = &db->metrics[i];
        if (m->inclusive && m->formula != NULL &&
            (strcasecmp(m->event, name) == 0 || strcasecmp(m->name, name) == 0))
            return i;
    }
    return -1;
}
