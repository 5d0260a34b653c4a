/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * view.c -- views of a database: the top-down tree of frames with the
 * call-path transforms, bottom-up (callers), flat (static), and the union
 * of two trees for differential profiles.
 *
 * Tool code.  Siblings are merged by a key (kind, name, call-site line), so
 * hiding a frame, eliding roots or collapsing recursion joins what becomes
 * the same context; two databases, of different builds maybe, are matched
 * by program structure rather than by address (rpt_tree_union()).  Self values come from the stored
 * inclusive values (self = inclusive - children's inclusive), so every view
 * satisfies inclusive = self + children's inclusive exactly, whatever the
 * database rounded.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"
#include "support/hashmap.h"
#include "support/strtab.h"

/* ------------------------------------------------------------ name table */

struct rpt_names {
    struct csp_strtab tab; /* support/strtab.h */
};

struct rpt_names *
rpt_names_new(void)
{
    return calloc(1, sizeof(struct rpt_names));
}

void
rpt_names_free(struct rpt_names *nm)
{
    if (nm == NULL)
        return;
    csp_strtab_free(&nm->tab);
    free(nm);
}

const char *
rpt_names_get(const struct rpt_names *nm, uint32_t id)
{
    return id < nm->tab.n ? nm->tab.strs[id] : "?";
}

/* Intern @s; *id gets its id.  Returns RPT_OK or RPT_ENOMEM. */
static int
names_intern(struct rpt_names *nm, const char *s, uint32_t *id)
{
    return csp_strtab_intern(&nm->tab, s, id) == 0 ? RPT_OK : RPT_ENOMEM;
}

/* ------------------------------------------------------------- the tree */

struct tree_build {
    struct rpt_tree *t;
    /* The children of every node by (parent, kind, name, call-site line): hashed keys
     * (support/hashmap.h), each value a node id (never 0: the root is no child). */
    struct csp_hmap map;
};

static uint64_t
key_hash(uint32_t parent, uint8_t kind, uint32_t name, int32_t cs_line)
{
    uint64_t h = parent * 0x9e3779b97f4a7c15ull;

    h ^= ((uint64_t)kind << 56) ^ ((uint64_t)name * 0xc2b2ae3d27d4eb4full) ^ (uint32_t)cs_line;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

/* A child looked up: its key, and the tree whose nodes the map's values name. */
struct child_key {
    const struct rpt_tree *t;
    uint32_t parent, name;
    uint8_t kind;
    int32_t cs_line;
};

static bool
child_eq(const void *val, const void *key)
{
    const struct child_key *k = key;
    const struct rpt_vnode *v = &k->t->nodes[(uintptr_t)val];

    return v->parent == k->parent && v->kind == k->kind && v->name == k->name &&
           v->cs_line == k->cs_line;
}

static int
map_insert(struct csp_hmap *m, const struct rpt_tree *t, uint32_t id)
{
    const struct rpt_vnode *v = &t->nodes[id];

    return csp_hmap_add(m, key_hash(v->parent, v->kind, v->name, v->cs_line),
                        (void *)(uintptr_t)id) == 0
               ? RPT_OK
               : RPT_ENOMEM;
}

static uint32_t
map_find(const struct csp_hmap *m, const struct rpt_tree *t, uint32_t parent, uint8_t kind,
         uint32_t name, int32_t cs_line)
{
    struct child_key k = {t, parent, name, kind, cs_line};

    return (uint32_t)(uintptr_t)csp_hmap_find(m, key_hash(parent, kind, name, cs_line), child_eq,
                                              &k);
}

static struct rpt_tree *
tree_new(const struct rpt_db *db, struct rpt_names *names, int nvalues)
{
    struct rpt_tree *t = calloc(1, sizeof *t);

    if (t == NULL)
        return NULL;
    t->db = db;
    t->nvalues = nvalues;
    if (names == NULL) {
        names = rpt_names_new();
        t->owns_names = true;
    }
    t->names = names;
    t->metric_of = calloc((size_t)(nvalues > 0 ? nvalues : 1), sizeof *t->metric_of);
    if (names == NULL || t->metric_of == NULL) {
        rpt_tree_free(t);
        return NULL;
    }
    return t;
}

void
rpt_tree_free(struct rpt_tree *t)
{
    if (t == NULL)
        return;
    if (t->owns_names)
        rpt_names_free(t->names);
    free(t->nodes);
    free(t->metric_of);
    free(t->self);
    free(t->incl);
    free(t->counts);
    free(t);
}

/* Append a node (no sibling merging).  Returns its id, or 0 on ENOMEM. */
static uint32_t
tree_add(struct rpt_tree *t, uint32_t parent, const struct rpt_vnode *proto)
{
    size_t cap = t->cap, need = (size_t)t->nnodes + 1, vcap;
    uint32_t id = t->nnodes;
    struct rpt_vnode *v;

    if (need > cap) {
        size_t ncap = cap ? cap * 2 : 256;
        struct rpt_vnode *nodes = realloc(t->nodes, ncap * sizeof *nodes);
        double *self, *incl;
        vcap = ncap * (size_t)t->nvalues;
        if (nodes == NULL)
            return 0;
        t->nodes = nodes;
        self = realloc(t->self, (vcap ? vcap : 1) * sizeof *self);
        if (self == NULL)
            return 0;
        t->self = self;
        incl = realloc(t->incl, (vcap ? vcap : 1) * sizeof *incl);
        if (incl == NULL)
            return 0;
        t->incl = incl;
        t->cap = (uint32_t)ncap;
    }
    v = &t->nodes[id];
    *v = *proto;
    v->parent = parent;
    v->first_child = v->next_sibling = v->last_child = 0;
    for (int c = 0; c < t->nvalues; c++)
        t->self[(size_t)id * (size_t)t->nvalues + (size_t)c] =
            t->incl[(size_t)id * (size_t)t->nvalues + (size_t)c] = 0;
    if (id != 0) {
        struct rpt_vnode *p = &t->nodes[parent];
        if (p->last_child == 0)
            p->first_child = id;
        else
            t->nodes[p->last_child].next_sibling = id;
        p->last_child = id;
    }
    t->nnodes++;
    return id;
}

/* The child of @parent with @proto's key, created from @proto when absent; 0 on ENOMEM. */
static uint32_t
child_get(struct tree_build *b, uint32_t parent, const struct rpt_vnode *proto)
{
    uint32_t id = map_find(&b->map, b->t, parent, proto->kind, proto->name, proto->cs_line);

    if (id != 0) {
        struct rpt_vnode *v = &b->t->nodes[id];
        v->calls += proto->calls;
        if (proto->calls_callees > v->calls_callees)
            v->calls_callees = proto->calls_callees;
        v->diff |= proto->diff;
        if (v->cs_file < 0)
            v->cs_file = proto->cs_file;
        return id;
    }
    id = tree_add(b->t, parent, proto);
    if (id == 0 || map_insert(&b->map, b->t, id) != RPT_OK)
        return 0;
    return id;
}

/* incl = self + children's incl: children always follow their parent. */
static void
tree_sum(struct rpt_tree *t)
{
    size_t nv = (size_t)t->nvalues;

    memcpy(t->incl, t->self, (size_t)t->nnodes * nv * sizeof *t->incl);
    for (uint32_t i = t->nnodes; i-- > 1;) {
        uint32_t p = t->nodes[i].parent;
        for (size_t c = 0; c < nv; c++)
            t->incl[p * nv + c] += t->incl[i * nv + c];
    }
}

int
rpt_tree_column(const struct rpt_tree *t, int m)
{
    for (int c = 0; c < t->nvalues; c++)
        if (t->metric_of[c] == m)
            return c;
    return -1;
}

const char *
rpt_tree_name(const struct rpt_tree *t, uint32_t node)
{
    return rpt_names_get(t->names, t->nodes[node].name);
}

const char *
rpt_file_base(const struct rpt_db *db, int f)
{
    const char *s, *slash;

    if (f < 0 || f >= db->nfiles)
        return "?";
    s = db->files[f];
    slash = strrchr(s, '/');
    return slash != NULL && slash[1] != '\0' ? slash + 1 : s;
}

/* ------------------------------------------------------ top-down build */

struct build_ctx {
    struct tree_build b;
    const struct rpt_db *db;
    const struct rpt_view_options *opt;
    regex_t focus, hide, hide_lib, roots;
    bool has_focus, has_hide, has_hide_lib;
    double *residue;     /* per column scratch */
    uint32_t *proc_name; /* db proc -> name id */
    uint32_t trunc_name;
};

static const char root_re[] =
    "^(_start|__libc_start_main.*|__libc_start_call_main|start_thread|clone|clone3|__clone.*)$";

static int
compile(regex_t *re, const char *pattern, const char *what, char *err, size_t errlen)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    char msg[160];

    if (rc == 0)
        return RPT_OK;
    regerror(rc, re, msg, sizeof msg);
    rpt_errf(err, errlen, "%s '%s': %s", what, pattern, msg);
    return RPT_EINVAL;
}

static bool
matches(const regex_t *re, const char *s)
{
    return regexec(re, s, 0, NULL, 0) == 0;
}

/* Self value of stored node @n in column @c: its inclusive less its children's. */
static double
stored_self(const struct build_ctx *x, uint32_t n, int c, int m)
{
    const struct rpt_db *db = x->db;
    const struct rpt_metric *mt = &db->metrics[m];
    double v = rpt_db_value(db, n, m);

    (void)c;
    for (uint32_t k = db->nodes[n].first_child; k != 0; k = db->nodes[k].next_sibling)
        v -= rpt_db_value(db, k, m);
    if (mt->integral) /* whole raw units: remove the decimal round-off */
        v = round(v * mt->raw_per_unit) / mt->raw_per_unit;
    else if (fabs(v) < 1e-12 * fabs(rpt_db_value(db, n, m)))
        v = 0;
    return v;
}

static void
add_self(struct build_ctx *x, uint32_t dst, uint32_t n)
{
    struct rpt_tree *t = x->b.t;

    for (int c = 0; c < t->nvalues; c++)
        t->self[(size_t)dst * (size_t)t->nvalues + (size_t)c] +=
            stored_self(x, n, c, t->metric_of[c]);
}

/*
 * "loop at FILE:LINE", "FILE:LINE"; a loop without a line (stripped code) is
 * named by its address range in its module, "loop at prog+0x1130..0x1158"
 * (lib/profile keeps such loops apart by address), never "loop at ?:0".
 */
static int
name_of_loop(struct build_ctx *x, int kind, const struct rpt_node *sn, int lm, uint32_t *id)
{
    char buf[512];

    if (kind == CSP_SCOPE_LOOP && sn->line <= 0 && sn->end > sn->addr) {
        const char *mod = lm >= 0 && lm < x->db->nmodules ? x->db->modules[lm].name : "?";
        const char *slash = strrchr(mod, '/');

        snprintf(buf, sizeof buf, "loop at %s+0x%llx..0x%llx",
                 slash != NULL && slash[1] != '\0' ? slash + 1 : mod, (unsigned long long)sn->addr,
                 (unsigned long long)sn->end);
    } else if (kind == CSP_SCOPE_LOOP) {
        snprintf(buf, sizeof buf, "loop at %s:%d", rpt_file_base(x->db, sn->file), sn->line);
    } else {
        snprintf(buf, sizeof buf, "%s:%d", rpt_file_base(x->db, sn->file), sn->line);
    }
    return names_intern(x->b.t->names, buf, id);
}

struct pending_call {
    int32_t file, line;
    double calls;
    uint32_t callees; /* frames entered from the call site (> 1: an indirect call) */
};

static int build_children(struct build_ctx *x, uint32_t n, uint32_t target,
                          const struct pending_call *pc, unsigned depth);

/* Whether procedure @proc of @db is csprof's [kernel] frame (time in the kernel below the
 * instruction that entered it: no callee, no calls). */
static bool
is_kernel(const struct rpt_db *db, int32_t proc)
{
    return proc >= 0 && proc < db->nprocs && strcmp(db->procs[proc].name, "[kernel]") == 0;
}

/* Whether a frame of procedure @p entered below view node @target disappears. */
static bool
frame_folds(struct build_ctx *x, int p, uint32_t name, uint32_t target)
{
    const struct rpt_db *db = x->db;
    const struct rpt_vnode *tv = &x->b.t->nodes[target];
    const char *s = db->procs[p].name;
    int lm = db->procs[p].lm;

    if (x->has_hide && matches(&x->hide, s))
        return true;
    if (x->has_hide_lib && lm >= 0 && lm < db->nmodules &&
        matches(&x->hide_lib, db->modules[lm].name))
        return true;
    if (target == 0 && !x->opt->keep_roots && matches(&x->roots, s))
        return true;
    if (x->opt->collapse_recursion &&
        (tv->kind == CSP_SCOPE_PROC || tv->kind == CSP_SCOPE_INLINE) && tv->name == name)
        return true;
    return false;
}

static int
build_node(struct build_ctx *x, uint32_t n, uint32_t target, const struct pending_call *pc,
           unsigned depth)
{
    const struct rpt_db *db = x->db;
    const struct rpt_node *sn = &db->nodes[n];
    struct rpt_vnode proto;
    struct pending_call none = {-1, 0, 0, 0}, call;
    uint32_t dst = target;
    int rc;

    if (depth > 100000)
        return RPT_EFORMAT;
    memset(&proto, 0, sizeof proto);
    proto.proc = -1;
    proto.lm = -1;
    proto.file = sn->file;
    proto.line = sn->line;
    proto.cs_file = -1;
    proto.addr = sn->addr;
    switch (sn->kind) {
    case CSP_SCOPE_CALL:
        add_self(x, target, n);
        call.file = sn->file;
        call.line = sn->line;
        call.calls = db->calls_metric >= 0 ? rpt_db_value(db, n, db->calls_metric) : 0;
        call.callees = 0; /* ([kernel]: an entry into the kernel at that address, not a callee) */
        for (uint32_t k = sn->first_child; k != 0; k = db->nodes[k].next_sibling)
            call.callees +=
                db->nodes[k].kind == CSP_SCOPE_PROC && !is_kernel(db, db->nodes[k].proc);
        return build_children(x, n, target, &call, depth + 1);
    case CSP_SCOPE_PROC:
    case CSP_SCOPE_INLINE:
        proto.kind = sn->kind == CSP_SCOPE_PROC ? CSP_SCOPE_PROC : CSP_SCOPE_INLINE;
        proto.name = x->proc_name[sn->proc];
        proto.proc = sn->proc;
        proto.lm = sn->kind == CSP_SCOPE_PROC ? sn->lm : db->nodes[sn->parent].lm;
        proto.file = db->procs[sn->proc].file;
        proto.line = db->procs[sn->proc].line;
        if (sn->kind == CSP_SCOPE_INLINE) {
            proto.cs_file = sn->file;
            proto.cs_line = sn->line;
            if (!x->opt->keep_inlines)
                break;
        } else {
            proto.cs_file = pc->file;
            proto.cs_line = pc->line;
            if (!is_kernel(db, sn->proc)) { /* the kernel is entered, never called */
                proto.calls = pc->calls;
                proto.calls_callees = pc->callees > 1 ? pc->callees : 0;
            }
        }
        if (!frame_folds(x, sn->proc, proto.name, target) &&
            (dst = child_get(&x->b, target, &proto)) == 0)
            return RPT_ENOMEM;
        break;
    case CSP_SCOPE_LOOP:
    case CSP_SCOPE_STMT:
        if (sn->kind == CSP_SCOPE_LOOP ? x->opt->keep_loops : x->opt->statements) {
            proto.kind = sn->kind == CSP_SCOPE_LOOP ? CSP_SCOPE_LOOP : CSP_SCOPE_STMT;
            proto.lm = x->b.t->nodes[target].lm;
            rc = name_of_loop(x, proto.kind, sn, sn->lm >= 0 ? sn->lm : proto.lm, &proto.name);
            if (rc != RPT_OK)
                return rc;
            if ((dst = child_get(&x->b, target, &proto)) == 0)
                return RPT_ENOMEM;
        }
        break;
    case CSP_SCOPE_TRUNC:
        proto.kind = CSP_SCOPE_TRUNC;
        proto.name = x->trunc_name;
        if ((dst = child_get(&x->b, target, &proto)) == 0)
            return RPT_ENOMEM;
        break;
    default:
        return RPT_EFORMAT;
    }
    add_self(x, dst, n);
    return build_children(x, n, dst, &none, depth + 1);
}

static int
build_children(struct build_ctx *x, uint32_t n, uint32_t target, const struct pending_call *pc,
               unsigned depth)
{
    for (uint32_t k = x->db->nodes[n].first_child; k != 0; k = x->db->nodes[k].next_sibling) {
        int rc = build_node(x, k, target, pc, depth);
        if (rc != RPT_OK)
            return rc;
    }
    return RPT_OK;
}

/* Copy the subtree of @src node @sn under @dst node @dparent, merging by key. */
static int
copy_subtree(struct tree_build *b, uint32_t dparent, const struct rpt_tree *src, uint32_t sn,
             const int *colmap, unsigned depth)
{
    struct rpt_tree *t = b->t;
    struct rpt_vnode proto = src->nodes[sn];
    uint32_t d;

    if (src->db != t->db) /* indices of another database mean nothing here */
        proto.proc = proto.lm = proto.file = proto.cs_file = -1;
    d = child_get(b, dparent, &proto);

    if (d == 0)
        return RPT_ENOMEM;
    if (depth > 100000)
        return RPT_EFORMAT;
    for (int c = 0; c < src->nvalues; c++)
        t->self[(size_t)d * (size_t)t->nvalues + (size_t)colmap[c]] += rpt_self(src, sn, c);
    for (uint32_t k = src->nodes[sn].first_child; k != 0; k = src->nodes[k].next_sibling) {
        int rc = copy_subtree(b, d, src, k, colmap, depth + 1);
        if (rc != RPT_OK)
            return rc;
    }
    return RPT_OK;
}

/* Focus: copy every outermost frame matching @re (and its subtree) under the root. */
static int
focus_copy(struct tree_build *b, const struct rpt_tree *src, uint32_t sn, const regex_t *re,
           const int *colmap)
{
    for (uint32_t k = src->nodes[sn].first_child; k != 0; k = src->nodes[k].next_sibling) {
        const struct rpt_vnode *v = &src->nodes[k];
        int rc;
        if ((v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE) &&
            matches(re, rpt_tree_name(src, k)))
            rc = copy_subtree(b, 0, src, k, colmap, 0);
        else
            rc = focus_copy(b, src, k, re, colmap);
        if (rc != RPT_OK)
            return rc;
    }
    return RPT_OK;
}

static int
root_node(struct rpt_tree *t, const char *program)
{
    struct rpt_vnode proto;
    const char *base = program != NULL ? strrchr(program, '/') : NULL;

    memset(&proto, 0, sizeof proto);
    proto.kind = CSP_SCOPE_ROOT;
    proto.proc = proto.lm = proto.file = proto.cs_file = -1;
    if (names_intern(t->names,
                     base != NULL      ? base + 1
                     : program != NULL ? program
                                       : "[program]",
                     &proto.name) != RPT_OK)
        return RPT_ENOMEM;
    return tree_add(t, 0, &proto) == 0 && t->nnodes == 1 ? RPT_OK : RPT_ENOMEM;
}

static void
check_total(struct rpt_tree *t)
{
    t->db_total_difference = 0;
    for (int c = 0; c < t->nvalues; c++) {
        double d = fabs(rpt_incl(t, 0, c) - rpt_db_value(t->db, 0, t->metric_of[c]));
        if (d > t->db_total_difference)
            t->db_total_difference = d;
    }
}

int
rpt_tree_build(const struct rpt_db *db, const struct rpt_view_options *opt, struct rpt_names *names,
               struct rpt_tree **out, char *err, size_t errlen)
{
    struct build_ctx x;
    int nvalues = 0, rc;

    *out = NULL;
    memset(&x, 0, sizeof x);
    x.db = db;
    x.opt = opt;
    for (int m = 0; m < db->nmetrics; m++)
        nvalues += db->metrics[m].inclusive && db->metrics[m].additive;
    x.b.t = tree_new(db, names, nvalues);
    if (x.b.t == NULL)
        return RPT_ENOMEM;
    nvalues = 0;
    for (int m = 0; m < db->nmetrics; m++)
        if (db->metrics[m].inclusive && db->metrics[m].additive)
            x.b.t->metric_of[nvalues++] = m;

    rc = compile(&x.roots, root_re, "root pattern", err, errlen);
    if (rc != RPT_OK)
        goto out_free_tree;
    if (opt->focus != NULL) {
        rc = compile(&x.focus, opt->focus, "--focus", err, errlen);
        if (rc != RPT_OK)
            goto out_free_roots;
        x.has_focus = true;
    }
    if (opt->hide != NULL) {
        rc = compile(&x.hide, opt->hide, "--hide", err, errlen);
        if (rc != RPT_OK)
            goto out_free_re;
        x.has_hide = true;
    }
    if (opt->hide_lib != NULL) {
        rc = compile(&x.hide_lib, opt->hide_lib, "--hide-lib", err, errlen);
        if (rc != RPT_OK)
            goto out_free_re;
        x.has_hide_lib = true;
    }
    rc = RPT_ENOMEM;
    x.proc_name = calloc((size_t)(db->nprocs ? db->nprocs : 1), sizeof *x.proc_name);
    if (x.proc_name == NULL)
        goto out_free_re;
    for (int p = 0; p < db->nprocs; p++)
        if (names_intern(x.b.t->names, db->procs[p].name, &x.proc_name[p]) != RPT_OK)
            goto out_free_re;
    if (names_intern(x.b.t->names, "[truncated]", &x.trunc_name) != RPT_OK)
        goto out_free_re;
    rc = root_node(x.b.t, db->program);
    if (rc != RPT_OK)
        goto out_free_re;
    add_self(&x, 0, 0);
    {
        struct pending_call none = {-1, 0, 0, 0};
        rc = build_children(&x, 0, 0, &none, 0);
    }
    if (rc != RPT_OK) {
        rpt_errf(err, errlen, "%s: %s", db->path, rpt_strerror(rc));
        goto out_free_re;
    }
    tree_sum(x.b.t);
    check_total(x.b.t);
    if (x.has_focus) {
        struct tree_build fb;
        int *colmap = malloc((size_t)(nvalues ? nvalues : 1) * sizeof *colmap);
        memset(&fb, 0, sizeof fb);
        fb.t = tree_new(db, x.b.t->names, nvalues);
        rc = RPT_ENOMEM;
        if (fb.t != NULL && colmap != NULL) {
            memcpy(fb.t->metric_of, x.b.t->metric_of, (size_t)nvalues * sizeof *colmap);
            for (int c = 0; c < nvalues; c++)
                colmap[c] = c;
            rc = root_node(fb.t, db->program);
            if (rc == RPT_OK)
                rc = focus_copy(&fb, x.b.t, 0, &x.focus, colmap);
        }
        free(colmap);
        csp_hmap_free(&fb.map);
        if (rc == RPT_OK) {
            tree_sum(fb.t);
            fb.t->db_total_difference = x.b.t->db_total_difference;
            if (x.b.t->owns_names) {
                fb.t->owns_names = true;
                x.b.t->owns_names = false;
            }
            rpt_tree_free(x.b.t);
            x.b.t = fb.t;
        } else {
            rpt_tree_free(fb.t);
            goto out_free_re;
        }
    }
    *out = x.b.t;
    x.b.t = NULL;
out_free_re:
    free(x.proc_name);
    if (x.has_hide_lib)
        regfree(&x.hide_lib);
    if (x.has_hide)
        regfree(&x.hide);
    if (x.has_focus)
        regfree(&x.focus);
out_free_roots:
    regfree(&x.roots);
out_free_tree:
    csp_hmap_free(&x.b.map);
    rpt_tree_free(x.b.t);
    return rc;
}

/* ------------------------------------------------------------ bottom-up */

/*
 * The bottom-up view's one definition (docs/views.md, "Bottom-up"; the viewer's
 * share/viewer/model.js bottomUpBuild/bottomUpEntries/bottomUpCallers compute the same,
 * test/viewer/bottom_up_conformance.js compares them):
 *  - a row per procedure NAME: its out-of-line frames and its inlined frames are
 *    instances of one procedure (the row is "[inline] f" only when every instance is
 *    inlined); loops and statements are no rows, their cost is their procedure's;
 *  - exclusive: the self cost of every node whose nearest enclosing frame (or inlined
 *    frame) is an instance, over all contexts; the rows' exclusive values plus the
 *    root's (cost in no frame) make the total;
 *  - an instance is outermost when no enclosing frame is an instance of the same
 *    procedure; inclusive: the inclusive cost of the outermost instances (recursion
 *    counted once), so that exclusive <= inclusive in every row;
 *  - callers: the frames (and loops, when kept) above each outermost instance, each
 *    caller row keyed by the call-site line it called from, with that instance's
 *    inclusive cost and the exclusive cost of the procedure inside it (its own and that
 *    of the recursive instances it encloses);
 *  - calls: a procedure row has the calls of all its instances, a direct caller row the
 *    calls of the outermost instances it called.
 */

static bool
is_proc(const struct rpt_vnode *v)
{
    return v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE || v->kind == CSP_SCOPE_TRUNC;
}

static bool
is_frame(const struct rpt_vnode *v)
{
    return is_proc(v) || v->kind == CSP_SCOPE_LOOP;
}

static void
add_values(struct rpt_tree *dst, uint32_t d, const struct rpt_tree *src, uint32_t s, bool self,
           bool incl)
{
    size_t nv = (size_t)dst->nvalues;

    for (size_t c = 0; c < nv; c++) {
        if (self)
            dst->self[d * nv + c] += rpt_self(src, s, (int)c);
        if (incl)
            dst->incl[d * nv + c] += rpt_incl(src, s, (int)c);
    }
}

static struct rpt_tree *
derived_tree(const struct rpt_tree *td)
{
    struct rpt_tree *t = tree_new(td->db, td->names, td->nvalues);

    if (t == NULL)
        return NULL;
    memcpy(t->metric_of, td->metric_of, (size_t)td->nvalues * sizeof *t->metric_of);
    if (tree_add(t, 0, &td->nodes[0]) != 0 || t->nnodes != 1) {
        rpt_tree_free(t);
        return NULL;
    }
    t->db_total_difference = td->db_total_difference;
    return t;
}

/* Adds @self (nvalues entries) to @d's self and @td's node @n's inclusive to @d's inclusive. */
static void
add_carried(struct rpt_tree *dst, uint32_t d, const double *self, const struct rpt_tree *td,
            uint32_t n)
{
    size_t nv = (size_t)dst->nvalues;

    for (size_t c = 0; c < nv; c++) {
        dst->self[d * nv + c] += self[c];
        dst->incl[d * nv + c] += rpt_incl(td, n, (int)c);
    }
}

int
rpt_tree_bottom_up(const struct rpt_tree *td, unsigned max_depth, struct rpt_tree **out)
{
    size_t nv = (size_t)td->nvalues, nn = td->nnodes;
    struct tree_build b;
    uint32_t *outer = NULL, maxname = 0;
    double *cself = NULL, *ccalls = NULL;
    uint8_t *inlined_only = NULL;
    int rc = RPT_ENOMEM;

    *out = NULL;
    memset(&b, 0, sizeof b);
    b.t = derived_tree(td);
    for (uint32_t n = 0; n < nn; n++)
        maxname = td->nodes[n].name > maxname ? td->nodes[n].name : maxname;
    /* outer[n]: the node that carries node n's self cost -- the outermost instance of the
       procedure of n's nearest enclosing frame (0: the root, no frame encloses n) */
    outer = calloc(nn, sizeof *outer);
    cself = calloc(nn * (nv ? nv : 1), sizeof *cself);
    ccalls = calloc(nn, sizeof *ccalls);
    inlined_only = malloc((size_t)maxname + 1);
    if (b.t == NULL || outer == NULL || cself == NULL || ccalls == NULL || inlined_only == NULL)
        goto out_free;
    memset(inlined_only, 1, (size_t)maxname + 1);
    for (size_t c = 0; c < nv; c++)
        cself[c] = rpt_self(td, 0, (int)c); /* the root's own (an elided frame's) */
    for (uint32_t n = 1; n < nn; n++) {
        const struct rpt_vnode *v = &td->nodes[n];
        uint32_t o = outer[v->parent];

        if (is_proc(v)) {
            if (v->kind != CSP_SCOPE_INLINE)
                inlined_only[v->name] = 0;
            o = n; /* outermost unless an enclosing frame is the same procedure */
            for (uint32_t a = v->parent; a != 0; a = td->nodes[a].parent)
                if (is_proc(&td->nodes[a]) && td->nodes[a].name == v->name)
                    o = a;
            ccalls[o] += v->calls;
        }
        outer[n] = o;
        for (size_t c = 0; c < nv; c++)
            cself[(size_t)o * nv + c] += rpt_self(td, n, (int)c);
    }
    /* the root's own cost and that of nodes in no frame (a loop left at the top when every
       frame above it was hidden) stay the root's: the rows' self values plus it make the
       total */
    for (size_t c = 0; c < nv; c++) {
        b.t->self[c] += cself[c];
        b.t->incl[c] += rpt_incl(td, 0, (int)c);
    }
    for (uint32_t n = 1; n < nn; n++) {
        const struct rpt_vnode *v = &td->nodes[n];
        bool any = ccalls[n] != 0;
        uint32_t d = 0, u = n, below = n;
        unsigned level = 0;

        if (!is_proc(v) || outer[n] != n)
            continue;
        for (size_t c = 0; c < nv && !any; c++)
            any = cself[(size_t)n * nv + c] != 0 || rpt_incl(td, n, (int)c) != 0;
        if (!any)
            continue;
        while (u != 0 && (max_depth == 0 || level < max_depth)) {
            struct rpt_vnode proto = td->nodes[u];
            if (!is_frame(&proto)) { /* statements: part of their frame */
                u = proto.parent;
                continue;
            }
            if (level == 0) {
                if (proto.kind != CSP_SCOPE_TRUNC)
                    proto.kind = inlined_only[proto.name] ? CSP_SCOPE_INLINE : CSP_SCOPE_PROC;
                proto.cs_line = 0;
                proto.cs_file = -1;
                proto.calls = ccalls[n];
            } else {
                proto.cs_line = td->nodes[below].cs_line; /* where it called the row below */
                proto.cs_file = td->nodes[below].cs_file;
                proto.calls = level == 1 ? v->calls : 0;
            }
            d = child_get(&b, d, &proto);
            if (d == 0)
                goto out_free;
            add_carried(b.t, d, &cself[(size_t)n * nv], td, n);
            below = u;
            u = proto.parent;
            level++;
        }
    }
    rc = RPT_OK;
    *out = b.t;
    b.t = NULL;
out_free:
    csp_hmap_free(&b.map);
    free(outer);
    free(cself);
    free(ccalls);
    free(inlined_only);
    rpt_tree_free(b.t);
    return rc;
}

/* ----------------------------------------------------------------- flat */

/* flat_key's answers besides a row's key: */
#define FLAT_INHERIT   (-1) /* the node belongs to its enclosing keyed node */
#define FLAT_NO_ROW    (-2) /* no row: its cost (and that of what it encloses) the root's */
#define FLAT_NO_MODULE (-3) /* no load module ([kernel], JIT): row FLAT_UNKNOWN_MODULE */
#define FLAT_NO_FILE   (-4) /* a frame without a file (_start): row FLAT_UNKNOWN_FILE */
/* The rows' names, the viewer's (share/viewer/model-flat.js).  A frame without a load module is
 * a row of its own, never counted in its caller's module: a [kernel] or JIT frame is not the
 * program's code (docs/views.md, "Flat", rule 3). */
#define FLAT_UNKNOWN_FILE   "[unknown file]"
#define FLAT_UNKNOWN_MODULE "[unknown module]"

/* The flat key a node carries itself, or FLAT_INHERIT, FLAT_NO_ROW, FLAT_NO_MODULE,
 * FLAT_NO_FILE: the rules of docs/views.md, "Flat".  By loop, a frame is FLAT_NO_ROW: a loop's
 * exclusive cost is that of its own statements, not of the frames called (or inlined) in it
 * nor of its nested loops (their own rows), so that each cost is in one row. */
static int64_t
flat_key(const struct rpt_tree *t, uint32_t n, enum rpt_flat_by by)
{
    const struct rpt_vnode *v = &t->nodes[n];
    const struct rpt_db *db = t->db;

    switch (by) {
    case RPT_FLAT_PROCEDURE: /* inlined and out-of-line instances share the name's row */
        return is_proc(v) ? (int64_t)v->name : FLAT_INHERIT;
    case RPT_FLAT_FILE:
        if (v->kind == CSP_SCOPE_STMT)
            return v->file >= 0 ? v->file : FLAT_INHERIT;
        if (v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE)
            return v->proc >= 0 && db->procs[v->proc].file >= 0 ? db->procs[v->proc].file
                                                                : FLAT_NO_FILE;
        return -1;
    case RPT_FLAT_MODULE:
        return v->kind != CSP_SCOPE_PROC ? FLAT_INHERIT : v->lm >= 0 ? v->lm : FLAT_NO_MODULE;
    case RPT_FLAT_LOOP:
        if (is_proc(v))
            return FLAT_NO_ROW;
        return v->kind == CSP_SCOPE_LOOP ? (int64_t)v->name : FLAT_INHERIT;
    case RPT_FLAT_LINE:
        return v->kind == CSP_SCOPE_STMT ? (int64_t)v->name : -1;
    }
    return -1;
}

int
rpt_tree_flat(const struct rpt_tree *td, enum rpt_flat_by by, struct rpt_tree **out)
{
    struct tree_build b;
    int64_t *key = NULL;
    uint8_t *inlined_only = NULL;
    uint32_t maxname = 0;
    int rc = RPT_ENOMEM;

    *out = NULL;
    memset(&b, 0, sizeof b);
    b.t = derived_tree(td);
    key = malloc((size_t)td->nnodes * sizeof *key);
    for (uint32_t n = 0; n < td->nnodes; n++)
        maxname = td->nodes[n].name > maxname ? td->nodes[n].name : maxname;
    inlined_only = malloc((size_t)maxname + 1);
    if (b.t == NULL || key == NULL || inlined_only == NULL)
        goto out_free;
    /* a procedure row reads [inline] f only when every instance of f is inlined (bottom-up's
       rule) */
    memset(inlined_only, 1, (size_t)maxname + 1);
    for (uint32_t n = 1; n < td->nnodes; n++)
        if (is_proc(&td->nodes[n]) && td->nodes[n].kind != CSP_SCOPE_INLINE)
            inlined_only[td->nodes[n].name] = 0;
    /* Cost that no row encloses stays at the root (self), so that the root's self plus the
       rows' self values make the total, as in the tree: the tree root's own cost, and nodes
       with no keyed ancestor -- by procedure, a loop or statement left directly under the root
       when every frame above it was hidden (--hide-lib, --hide) or elided; by loop or line,
       everything outside loops or statements (by loop, what the frames called in a loop
       spend too).  A frame without a file (load module) is a row FLAT_UNKNOWN_FILE
       (FLAT_UNKNOWN_MODULE) of its own. */
    add_values(b.t, 0, td, 0, true, true);
    key[0] = FLAT_INHERIT;
    for (uint32_t n = 1; n < td->nnodes; n++) {
        const struct rpt_vnode *v = &td->nodes[n];
        int64_t k = flat_key(td, n, by), own = k;
        struct rpt_vnode proto;
        bool outer = true;
        uint32_t d;

        if (k == FLAT_INHERIT)
            k = key[v->parent]; /* inherit the enclosing row */
        key[n] = k;
        if (k == FLAT_INHERIT || k == FLAT_NO_ROW) { /* no row: its self is the root's */
            add_values(b.t, 0, td, n, true, false);
            continue;
        }
        if (own >= 0 || own == FLAT_NO_MODULE || own == FLAT_NO_FILE)
            for (uint32_t a = v->parent; a != 0 && outer; a = td->nodes[a].parent)
                outer = flat_key(td, a, by) != own;
        memset(&proto, 0, sizeof proto);
        proto.proc = proto.lm = proto.file = proto.cs_file = -1;
        if (by == RPT_FLAT_PROCEDURE || by == RPT_FLAT_LOOP || by == RPT_FLAT_LINE) {
            /* the row looks like the first node that carried the key */
            uint32_t src = n;
            while (flat_key(td, src, by) != k)
                src = td->nodes[src].parent;
            proto = td->nodes[src];
            if (by == RPT_FLAT_PROCEDURE && proto.kind != CSP_SCOPE_TRUNC)
                proto.kind = inlined_only[proto.name] ? CSP_SCOPE_INLINE : CSP_SCOPE_PROC;
            proto.cs_line = 0;
            proto.cs_file = -1;
            proto.calls = 0;
            proto.calls_callees = 0;
        } else {
            const char *s = k == FLAT_NO_MODULE   ? FLAT_UNKNOWN_MODULE
                            : k == FLAT_NO_FILE   ? FLAT_UNKNOWN_FILE
                            : by == RPT_FLAT_FILE ? td->db->files[k]
                                                  : td->db->modules[k].name;
            proto.kind = CSP_SCOPE_GROUP;
            if (by == RPT_FLAT_FILE)
                proto.file = k == FLAT_NO_FILE ? -1 : (int32_t)k;
            else
                proto.lm = k == FLAT_NO_MODULE ? -1 : (int32_t)k;
            if (names_intern(b.t->names, s, &proto.name) != RPT_OK)
                goto out_free;
        }
        d = child_get(&b, 0, &proto);
        if (d == 0)
            goto out_free;
        if (own >= 0 && (v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE))
            b.t->nodes[d].calls += v->calls;
        if (own >= 0 && v->calls_callees > b.t->nodes[d].calls_callees)
            b.t->nodes[d].calls_callees = v->calls_callees;
        add_values(b.t, d, td, n, true,
                   (own >= 0 || own == FLAT_NO_MODULE || own == FLAT_NO_FILE) && outer);
    }
    rc = RPT_OK;
    *out = b.t;
    b.t = NULL;
out_free:
    free(key);
    free(inlined_only);
    csp_hmap_free(&b.map);
    rpt_tree_free(b.t);
    return rc;
}

/* ------------------------------------------------------ stored flat view */

/* Add stored static node @i's exclusive values (@excl_of: the exclusive metric of each of
 * @nv values, -1: none) to the root's self of @t: cost the stored flat view has no row for. */
static void
stored_self_to_root(struct rpt_tree *t, const struct rpt_db *db, uint32_t i, const int *excl_of,
                    size_t nv)
{
    const double *v = &db->svalues[(size_t)i * (size_t)db->nmetrics];

    for (size_t c = 0; c < nv; c++)
        t->self[c] += excl_of[c] >= 0 ? v[excl_of[c]] : 0;
}

int
rpt_tree_flat_stored(const struct rpt_tree *td, const struct rpt_view_options *opt,
                     enum rpt_flat_by by, struct rpt_tree **out)
{
    const struct rpt_db *db = td->db;
    struct tree_build b;
    uint32_t *name_of = NULL;
    int *excl_of = NULL, rc = RPT_ENOMEM;
    uint8_t want;
    regex_t roots;
    size_t nv = (size_t)td->nvalues;

    *out = NULL;
    if (db->nsnodes < 2 || opt->focus != NULL || opt->hide != NULL || opt->hide_lib != NULL ||
        !(by == RPT_FLAT_PROCEDURE || by == RPT_FLAT_FILE || by == RPT_FLAT_MODULE))
        return RPT_EINVAL;
    want = by == RPT_FLAT_PROCEDURE ? CSP_SCOPE_PROC
           : by == RPT_FLAT_FILE    ? CSP_SCOPE_FILE
                                    : CSP_SCOPE_MODULE;
    /* What the stored view cannot give by docs/views.md's "Flat" (recomputed instead): a
       procedure's row with its inlined instances (their inclusive counted once with its
       out-of-line ones: the stored scopes do not say which enclose which at run time), and
       one "[unknown file]" row for several stored scopes without a file (the same) */
    for (uint32_t i = 1, nofile = 0; i < db->nsnodes; i++)
        if ((by == RPT_FLAT_PROCEDURE && opt->keep_inlines &&
             db->snodes[i].kind == CSP_SCOPE_INLINE) ||
            (by == RPT_FLAT_FILE && db->snodes[i].kind == CSP_SCOPE_FILE &&
             db->snodes[i].file < 0 && ++nofile > 1))
            return RPT_EINVAL;
    if (regcomp(&roots, root_re, REG_EXTENDED | REG_NOSUB) != 0)
        return RPT_ENOMEM;
    memset(&b, 0, sizeof b);
    b.t = derived_tree(td);
    name_of = calloc((size_t)db->nprocs + 1, sizeof *name_of);
    excl_of = malloc((nv ? nv : 1) * sizeof *excl_of);
    if (b.t == NULL || name_of == NULL || excl_of == NULL)
        goto out_free;
    for (size_t c = 0; c < nv; c++)
        excl_of[c] = db->metrics[td->metric_of[c]].partner;
    add_values(b.t, 0, td, 0, false, true);
    for (uint32_t i = 1; i < db->nsnodes; i++) {
        const struct rpt_snode *sn = &db->snodes[i];
        struct rpt_vnode proto;
        const char *name;
        uint32_t d;

        if (sn->kind != want)
            continue;
        memset(&proto, 0, sizeof proto);
        proto.proc = proto.lm = proto.file = proto.cs_file = -1;
        if (want == CSP_SCOPE_PROC) {
            name = db->procs[sn->proc].name;
            if (!opt->keep_roots && matches(&roots, name)) {
                /* an elided root's own cost is the root's, as in the tree ("cost outside any
                   shown frame") */
                stored_self_to_root(b.t, db, i, excl_of, nv);
                continue;
            }
            proto.kind = CSP_SCOPE_PROC;
            proto.proc = sn->proc;
            proto.lm = sn->lm >= 0 ? sn->lm : db->procs[sn->proc].lm;
            proto.file = db->procs[sn->proc].file;
            proto.line = db->procs[sn->proc].line;
        } else if (want == CSP_SCOPE_FILE) {
            name = sn->file >= 0 ? db->files[sn->file] : FLAT_UNKNOWN_FILE; /* as recomputed */
            proto.kind = CSP_SCOPE_GROUP;
            proto.file = sn->file;
        } else {
            name = sn->lm >= 0 ? db->modules[sn->lm].name : FLAT_UNKNOWN_MODULE; /* the same */
            proto.kind = CSP_SCOPE_GROUP;
            proto.lm = sn->lm;
        }
        if (names_intern(b.t->names, name, &proto.name) != RPT_OK)
            goto out_free;
        d = child_get(&b, 0, &proto);
        if (d == 0)
            goto out_free;
        for (size_t c = 0; c < nv; c++) {
            const double *v = &db->svalues[(size_t)i * (size_t)db->nmetrics];
            double ex = excl_of[c] >= 0 ? v[excl_of[c]] : 0;
            b.t->self[d * nv + c] += ex;
            b.t->incl[d * nv + c] += v[td->metric_of[c]];
        }
    }
    /* sampled calls, as the recomputed view counts them: from the tree's frames */
    for (uint32_t n = 1; n < td->nnodes; n++) {
        const struct rpt_vnode *v = &td->nodes[n];
        uint32_t id = 0, nm;
        if (v->calls == 0 || (v->kind != CSP_SCOPE_PROC && v->kind != CSP_SCOPE_INLINE))
            continue;
        if (want == CSP_SCOPE_PROC) {
            id = map_find(&b.map, b.t, 0, v->kind, v->name, 0);
        } else {
            int k = want == CSP_SCOPE_FILE      ? (v->proc >= 0 ? db->procs[v->proc].file : -1)
                    : v->kind == CSP_SCOPE_PROC ? v->lm
                                                : -1;
            if (k < 0)
                continue;
            if (names_intern(b.t->names,
                             want == CSP_SCOPE_FILE ? db->files[k] : db->modules[k].name,
                             &nm) != RPT_OK)
                goto out_free;
            id = map_find(&b.map, b.t, 0, CSP_SCOPE_GROUP, nm, 0);
        }
        if (id != 0) {
            b.t->nodes[id].calls += v->calls;
            if (v->calls_callees > b.t->nodes[id].calls_callees)
                b.t->nodes[id].calls_callees = v->calls_callees;
        }
    }
    rc = RPT_OK;
    *out = b.t;
    b.t = NULL;
out_free:
    regfree(&roots);
    free(name_of);
    free(excl_of);
    csp_hmap_free(&b.map);
    rpt_tree_free(b.t);
    return rc;
}

/* ----------------------------------------------------------------- diff */

/* A source node of a differential tree's node: side 0 is the base, 1 the current. */
struct umember {
    uint32_t node;
    uint8_t side;
};

/* A child of the members of a differential node, with its matching key. */
struct uchild {
    uint32_t node, name; /* name: for frames, the id of the name without clone suffixes */
    int32_t cs_line;
    uint8_t side, kind; /* kind: inlined frames are CSP_SCOPE_PROC here */
};

struct union_ctx {
    struct rpt_tree *t;
    const struct rpt_tree *src[2];
    int *colmap[2];  /* source column -> column of t */
    uint32_t *canon; /* name id -> id of that name without clone suffixes (ncanon ids) */
    size_t ncanon;
    int32_t *file_map; /* file of the current's db -> file of the base's, or -1 */
};

static int
cmp_uchild(const void *a, const void *b)
{
    const struct uchild *x = a, *y = b;

    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->cs_line != y->cs_line)
        return x->cs_line < y->cs_line ? -1 : 1;
    if (x->side != y->side)
        return x->side < y->side ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static int union_node(struct union_ctx *u, uint32_t d, const struct umember *mem, size_t nmem,
                      unsigned depth);

/* Add a child of @d made of the children @ch[0..n) and, when @m > 0, @ch2[0..m) (a pair
 * matched by name alone), and build its subtree. */
static int
union_child(struct union_ctx *u, uint32_t d, const struct uchild *ch, size_t n,
            const struct uchild *ch2, size_t m, unsigned depth)
{
    const struct rpt_tree *src = u->src[ch[0].side];
    struct rpt_vnode proto = src->nodes[ch[0].node];
    struct umember *mem = malloc((n + m) * sizeof *mem);
    uint32_t id;
    int rc;

    if (mem == NULL)
        return RPT_ENOMEM;
    proto.kind = ch[0].kind;
    proto.name = ch[0].name;
    proto.diff = 0;
    proto.cur_cs_line = 0;
    if (ch[0].side == 1) { /* indices of the current's database: only its files map */
        proto.proc = proto.lm = -1;
        proto.file = proto.file >= 0 ? u->file_map[proto.file] : -1;
        proto.cs_file = proto.cs_file >= 0 ? u->file_map[proto.cs_file] : -1;
    }
    if (m > 0) {
        proto.diff |= RPT_DIFF_MOVED;
        proto.cur_cs_line = ch2[0].cs_line;
    }
    for (size_t k = 0; k < n + m; k++) {
        const struct uchild *c = k < n ? &ch[k] : &ch2[k - n];
        mem[k].node = c->node;
        mem[k].side = c->side;
        if (c->kind == CSP_SCOPE_PROC)
            proto.diff |= u->src[c->side]->nodes[c->node].kind == CSP_SCOPE_INLINE
                              ? (c->side ? RPT_DIFF_INLINED_CUR : RPT_DIFF_INLINED_BASE)
                              : (c->side ? RPT_DIFF_OUTLINED_CUR : RPT_DIFF_OUTLINED_BASE);
    }
    id = tree_add(u->t, d, &proto);
    rc = id == 0 ? RPT_ENOMEM : union_node(u, id, mem, n + m, depth + 1);
    free(mem);
    return rc;
}

/* Give differential node @d the values of its members @mem[0..nmem) and its children: the
 * members' children matched as rpt_tree_union() says. */
static int
union_node(struct union_ctx *u, uint32_t d, const struct umember *mem, size_t nmem, unsigned depth)
{
    struct rpt_tree *t = u->t;
    struct uchild *ch;
    size_t n = 0, k = 0;
    int rc = RPT_OK;

    if (depth > 100000)
        return RPT_EFORMAT;
    for (size_t i = 0; i < nmem; i++) {
        const struct rpt_tree *src = u->src[mem[i].side];
        for (int c = 0; c < src->nvalues; c++)
            t->self[(size_t)d * (size_t)t->nvalues + (size_t)u->colmap[mem[i].side][c]] +=
                rpt_self(src, mem[i].node, c);
        for (uint32_t c = src->nodes[mem[i].node].first_child; c != 0;
             c = src->nodes[c].next_sibling)
            n++;
    }
    if (n == 0)
        return RPT_OK;
    ch = malloc(n * sizeof *ch);
    if (ch == NULL)
        return RPT_ENOMEM;
    for (size_t i = 0; i < nmem; i++) {
        const struct rpt_tree *src = u->src[mem[i].side];
        for (uint32_t c = src->nodes[mem[i].node].first_child; c != 0;
             c = src->nodes[c].next_sibling) {
            const struct rpt_vnode *v = &src->nodes[c];
            bool frame = v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE;
            ch[k].node = c;
            ch[k].side = mem[i].side;
            ch[k].kind = frame ? CSP_SCOPE_PROC : v->kind;
            ch[k].name = frame && v->name < u->ncanon ? u->canon[v->name] : v->name;
            ch[k].cs_line = v->cs_line;
            k++;
        }
    }
    qsort(ch, n, sizeof *ch, cmp_uchild);
    /* runs of one (kind, name); in each, groups of one call-site line */
    for (size_t i = 0, j; i < n && rc == RPT_OK; i = j) {
        size_t left[2] = {0, 0}, seen[2] = {0, 0};
        for (j = i; j < n && ch[j].kind == ch[i].kind && ch[j].name == ch[i].name; j++)
            ;
        for (size_t g = i, h; g < j; g = h) {
            for (h = g; h < j && ch[h].cs_line == ch[g].cs_line; h++)
                ;
            if (ch[g].side == ch[h - 1].side) /* one-sided group */
                left[ch[g].side]++;
        }
        for (size_t g = i, h; g < j && rc == RPT_OK; g = h) {
            for (h = g; h < j && ch[h].cs_line == ch[g].cs_line; h++)
                ;
            if (ch[g].side != ch[h - 1].side || left[0] != left[1]) {
                rc = union_child(u, d, &ch[g], h - g, NULL, 0, depth);
            } else if (ch[g].side == 0) {
                /* pair the seen[0]-th one-sided base group with the current's of that rank */
                size_t q = i, rank = 0, r;
                for (;; q = r) {
                    for (r = q; r < j && ch[r].cs_line == ch[q].cs_line; r++)
                        ;
                    if (ch[q].side == 1 && ch[r - 1].side == 1 && rank++ == seen[0])
                        break;
                }
                rc = union_child(u, d, &ch[g], h - g, &ch[q], r - q, depth);
                seen[0]++;
            }
        }
    }
    free(ch);
    return rc;
}

/* Map the current's files to the base's: by path, else by base name. */
static int
union_files(struct union_ctx *u)
{
    const struct rpt_db *bd = u->src[0]->db, *cd = u->src[1]->db;
    struct rpt_names *path = rpt_names_new(), *base = rpt_names_new();
    int32_t *by_path = NULL, *by_base = NULL;
    int rc = RPT_ENOMEM;
    uint32_t id;

    u->file_map = malloc((size_t)(cd->nfiles > 0 ? cd->nfiles : 1) * sizeof *u->file_map);
    by_path = malloc((size_t)(bd->nfiles > 0 ? bd->nfiles : 1) * sizeof *by_path);
    by_base = malloc((size_t)(bd->nfiles > 0 ? bd->nfiles : 1) * sizeof *by_base);
    if (path == NULL || base == NULL || u->file_map == NULL || by_path == NULL || by_base == NULL)
        goto out_free;
    for (int f = 0; f < bd->nfiles; f++) { /* first file of each path and base name */
        by_path[f] = by_base[f] = -1;
        if (names_intern(path, bd->files[f], &id) != RPT_OK)
            goto out_free;
        if (by_path[id] < 0)
            by_path[id] = f;
        if (names_intern(base, rpt_file_base(bd, f), &id) != RPT_OK)
            goto out_free;
        if (by_base[id] < 0)
            by_base[id] = f;
    }
    for (int f = 0; f < cd->nfiles; f++) {
        size_t np = path->tab.n, nb = base->tab.n;
        if (names_intern(path, cd->files[f], &id) != RPT_OK)
            goto out_free;
        u->file_map[f] = id < np ? by_path[id] : -1;
        if (u->file_map[f] >= 0)
            continue;
        if (names_intern(base, rpt_file_base(cd, f), &id) != RPT_OK)
            goto out_free;
        u->file_map[f] = id < nb ? by_base[id] : -1;
    }
    rc = RPT_OK;
out_free:
    free(by_path);
    free(by_base);
    rpt_names_free(path);
    rpt_names_free(base);
    return rc;
}

double
rpt_ledger_samples(const struct rpt_db *db, const char *ev)
{
    for (size_t i = 0; i < db->nsummary; i++) {
        const struct rpt_summary_el *e = &db->summary[i];
        const char *event = NULL, *samples = NULL;
        if (strcmp(e->el, "Ledger") != 0)
            continue;
        for (int a = 0; a < e->nattrs; a++) {
            if (strcmp(e->attrs[2 * a], "event") == 0)
                event = e->attrs[2 * a + 1];
            else if (strcmp(e->attrs[2 * a], "samples") == 0)
                samples = e->attrs[2 * a + 1];
        }
        if (event != NULL && samples != NULL && strcmp(event, ev) == 0)
            return strtod(samples, NULL);
    }
    return -1;
}

/* Where the sample counts of side @side's columns come from: the samples column itself; the
 * samples column when the run measured one event; else the event's value per sample. */
static void
union_counts(struct union_ctx *u, int side)
{
    const struct rpt_tree *src = u->src[side];
    const struct rpt_db *db = src->db;
    int samples = -1, events = 0;

    for (int c = 0; c < src->nvalues; c++) {
        if (strcmp(db->metrics[src->metric_of[c]].event, "samples") == 0)
            samples = c;
        else
            events++;
    }
    for (int c = 0; c < src->nvalues; c++) {
        const struct rpt_metric *m = &db->metrics[src->metric_of[c]];
        struct rpt_count_source *cs = &u->t->counts[u->colmap[side][c]];
        double n;
        cs->col = -1;
        cs->per_sample = 0;
        if (c == samples || (samples >= 0 && events == 1)) {
            cs->col = u->colmap[side][samples];
        } else if ((n = rpt_ledger_samples(db, m->event)) > 0) {
            cs->per_sample = rpt_db_value(db, 0, src->metric_of[c]) / n;
        }
    }
}

int
rpt_tree_union(const struct rpt_tree *base, const struct rpt_tree *cur, struct rpt_tree **out,
               char *err, size_t errlen)
{
    struct union_ctx u;
    struct umember root[2] = {{0, 0}, {0, 1}};
    int nb = base->nvalues, rc = RPT_ENOMEM;

    *out = NULL;
    if (base->names != cur->names) {
        rpt_errf(err, errlen, "trees to compare must share one name table");
        return RPT_EINVAL;
    }
    memset(&u, 0, sizeof u);
    u.src[0] = base;
    u.src[1] = cur;
    u.t = tree_new(base->db, base->names, 2 * nb);
    u.colmap[0] = malloc((size_t)(nb ? nb : 1) * sizeof *u.colmap[0]);
    u.colmap[1] = malloc((size_t)(cur->nvalues ? cur->nvalues : 1) * sizeof *u.colmap[1]);
    u.ncanon = base->names->tab.n;
    u.canon = malloc((u.ncanon ? u.ncanon : 1) * sizeof *u.canon);
    if (u.t == NULL || u.colmap[0] == NULL || u.colmap[1] == NULL || u.canon == NULL)
        goto out_free;
    u.t->counts = calloc((size_t)(nb > 0 ? 2 * nb : 1), sizeof *u.t->counts);
    if (u.t->counts == NULL)
        goto out_free;
    for (int c = 0; c < nb; c++) {
        u.colmap[0][c] = c;
        u.t->metric_of[c] = u.t->metric_of[nb + c] = base->metric_of[c];
    }
    for (int c = 0; c < cur->nvalues; c++) {
        const char *ev = cur->db->metrics[cur->metric_of[c]].event;
        u.colmap[1][c] = -1;
        for (int k = 0; k < nb && u.colmap[1][c] < 0; k++)
            if (strcmp(base->db->metrics[base->metric_of[k]].event, ev) == 0)
                u.colmap[1][c] = nb + k;
        if (u.colmap[1][c] < 0) {
            rpt_errf(err, errlen, "%s has metric %s, which %s has not", cur->db->path, ev,
                     base->db->path);
            rc = RPT_EINVAL;
            goto out_free;
        }
    }
    for (size_t i = 0; i < u.ncanon; i++) { /* (interning may add names: ids past ncanon) */
        const char *s = rpt_names_get(base->names, (uint32_t)i);
        size_t len = rpt_proc_base_len(s);
        u.canon[i] = (uint32_t)i;
        if (s[len] != '\0') {
            char *tmp = strndup(s, len);
            if (tmp == NULL || names_intern(base->names, tmp, &u.canon[i]) != RPT_OK) {
                free(tmp);
                goto out_free;
            }
            free(tmp);
        }
    }
    if ((rc = union_files(&u)) != RPT_OK)
        goto out_free;
    rc = RPT_ENOMEM;
    if (tree_add(u.t, 0, &base->nodes[0]) != 0 || u.t->nnodes != 1)
        goto out_free;
    if ((rc = union_node(&u, 0, root, 2, 0)) != RPT_OK) {
        rpt_errf(err, errlen, "%s", rpt_strerror(rc));
        goto out_free;
    }
    tree_sum(u.t);
    union_counts(&u, 0);
    union_counts(&u, 1);
    *out = u.t;
    u.t = NULL;
out_free:
    free(u.colmap[0]);
    free(u.colmap[1]);
    free(u.canon);
    free(u.file_map);
    rpt_tree_free(u.t);
    return rc;
}
