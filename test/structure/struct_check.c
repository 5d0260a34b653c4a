/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_check.c -- property checker for csprof structure files, driven by
 * struct_test.sh.  Reads a structure file through the public API of
 * lib/structure (struct_read_xml, struct_lookup) and checks one property:
 *
 *   struct_check proc XML NAME              a P named NAME exists
 *   struct_check inline XML CALLER CALLEE   P CALLER has an A CALLEE (any depth) with a call line
 *   struct_check stmts XML PROC FILE L...   P PROC has an S for each line L of file FILE (basename)
 *   struct_check lookup XML ADDR NAME       struct_lookup(ADDR) lies in the P named NAME
 *   struct_check count XML KIND MIN         at least MIN scopes of KIND (F, P, A, S)
 *   struct_check invariants XML             ids, range order, nesting, disjointness, coverage
 *   struct_check rewrite XML OUT            read XML and write it again to OUT
 *   struct_check analyze BINARY OUT         struct_analyze BINARY and write it to OUT
 *   struct_check cached DIR BINARY OUT      struct_analyze_cached BINARY with cache DIR, to OUT
 *                                           (prints the note, if any, on stdout)
 *   struct_check readerr XML TEXT           reading XML fails and the message contains TEXT
 *   struct_check loops XML SRC OPT          the @loop and @call annotations of SRC hold
 *                                           (OPT: optimization level 0-3; see loops_c.c)
 *
 * Exit 0 when the property holds, 1 (with a line on stderr saying why)
 * when it does not.  Test code only.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure/structure.h"

static struct struct_module **mods;
static size_t nmods;
/* DTD directory from CSPROF_SCHEMA_DIR (set by struct_test.sh), NULL: installed beside us. */
static struct struct_options xml_opt;

__attribute__((format(printf, 1, 2))) static int
fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "struct_check: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static void
load(const char *path)
{
    char err[1024];
    int rc = struct_read_xml_opt(path, &xml_opt, &mods, &nmods, err, sizeof(err));

    if (rc != 0) {
        fprintf(stderr, "struct_check: read failed (%s): %s\n", struct_strerror(rc), err);
        exit(1);
    }
    if (nmods != 1) {
        fprintf(stderr, "struct_check: %s: expected 1 module, got %zu\n", path, nmods);
        exit(1);
    }
}

/* Depth-first visit of every scope; @fn returns true to stop. */
typedef bool visit_fn(const struct struct_scope *s, void *arg);

static bool
visit(const struct struct_scope *s, visit_fn *fn, void *arg)
{
    if (fn(s, arg))
        return true;
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        if (visit(c, fn, arg))
            return true;
    return false;
}

struct find {
    enum csp_scope kind;
    const char *name;
    const struct struct_scope *found;
};

static bool
find_fn(const struct struct_scope *s, void *arg)
{
    struct find *f = arg;

    if (s->kind == f->kind && s->name != NULL && strcmp(s->name, f->name) == 0) {
        f->found = s;
        return true;
    }
    return false;
}

static const struct struct_scope *
find(const struct struct_scope *root, enum csp_scope kind, const char *name)
{
    struct find f = {kind, name, NULL};

    visit(root, find_fn, &f);
    return f.found;
}

static const char *
base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;

    return s ? s + 1 : p ? p : "";
}

struct stmt_find {
    const char *file;
    uint32_t line;
    bool found;
};

static bool
stmt_fn(const struct struct_scope *s, void *arg)
{
    struct stmt_find *f = arg;

    if (s->kind == CSP_SCOPE_STMT && s->line == f->line && strcmp(base(s->file), f->file) == 0 &&
        s->nranges > 0)
        f->found = true;
    return f->found;
}

/* ---- invariants ---------------------------------------------------- */

struct rset {
    struct struct_range *v;
    size_t n, cap;
};

static void
rset_add(struct rset *r, const struct struct_range *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 64;
            r->v = realloc(r->v, r->cap * sizeof(*r->v));
            if (r->v == NULL)
                abort();
        }
        r->v[r->n++] = v[i];
    }
}

static int
rcmp(const void *a, const void *b)
{
    const struct struct_range *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

/* Sort; return false when two ranges overlap. */
static bool
rset_sort_disjoint(struct rset *r)
{
    if (r->n > 1)
        qsort(r->v, r->n, sizeof(*r->v), rcmp);
    for (size_t i = 1; i < r->n; i++)
        if (r->v[i].lo < r->v[i - 1].hi)
            return false;
    return true;
}

/* Is every address of @a (sorted) inside the union of @b (sorted, disjoint)? */
static bool
covered(const struct struct_range *a, size_t na, const struct rset *b)
{
    size_t j = 0;

    for (size_t i = 0; i < na; i++) {
        uint64_t at = a[i].lo;

        while (at < a[i].hi) {
            while (j < b->n && b->v[j].hi <= at)
                j++;
            if (j == b->n || b->v[j].lo > at)
                return false;
            at = b->v[j].hi;
        }
    }
    return true;
}

static void
collect_stmts(const struct struct_scope *s, struct rset *r)
{
    if (s->kind == CSP_SCOPE_STMT)
        rset_add(r, s->ranges, s->nranges);
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        collect_stmts(c, r);
}

/* Is [lo, hi) inside the ranges of @s? */
static bool
range_in(const struct struct_scope *s, uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < s->nranges; i++)
        if (s->ranges[i].lo <= lo && hi <= s->ranges[i].hi)
            return true;
    return false;
}

struct inv {
    const struct struct_module *m;
    uint8_t *seen_ids;
    size_t max_id;
    int errors;
    size_t nprocs_with_lines;
};

static void
inv_error(struct inv *iv, const struct struct_scope *s, const char *what)
{
    if (iv->errors++ < 5)
        fprintf(stderr, "struct_check: scope i=%u (%s): %s\n", s->id, s->name ? s->name : "-",
                what);
}

static bool
inv_fn(const struct struct_scope *s, void *arg)
{
    struct inv *iv = arg;
    struct rset kids = {0};

    if (s->id == 0 || s->id > iv->max_id || iv->seen_ids[s->id]++)
        inv_error(iv, s, "id is 0, too large or repeated");
    for (size_t i = 0; i < s->nranges; i++)
        if (s->ranges[i].lo >= s->ranges[i].hi || (i > 0 && s->ranges[i].lo < s->ranges[i - 1].hi))
            inv_error(iv, s, "ranges empty, unsorted or overlapping");
    if (s->kind >= CSP_SCOPE_PROC && s->nranges == 0)
        inv_error(iv, s, "code scope without ranges");
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling) {
        if (c->parent != s)
            inv_error(iv, c, "wrong parent pointer");
        if (c->kind >= CSP_SCOPE_PROC && c->kind != CSP_SCOPE_CALL)
            rset_add(&kids, c->ranges, c->nranges);
        else if (c->kind == CSP_SCOPE_CALL) /* a call lies inside its parent, beside its S */
            for (size_t i = 0; i < c->nranges; i++)
                if (!range_in(s, c->ranges[i].lo, c->ranges[i].hi))
                    inv_error(iv, c, "call site outside its parent");
    }
    if (!rset_sort_disjoint(&kids))
        inv_error(iv, s, "children overlap");
    if (s->kind >= CSP_SCOPE_PROC) {
        struct rset mine = {0};

        rset_add(&mine, s->ranges, s->nranges);
        rset_sort_disjoint(&mine);
        if (!covered(kids.v, kids.n, &mine))
            inv_error(iv, s, "a child reaches outside its parent");
        free(mine.v);
    }
    if (s->kind == CSP_SCOPE_PROC) {
        struct rset st = {0};

        collect_stmts(s, &st);
        if (st.n > 0) {
            iv->nprocs_with_lines++;
            if (!rset_sort_disjoint(&st))
                inv_error(iv, s, "statements overlap");
            else if (!covered(s->ranges, s->nranges, &st))
                inv_error(iv, s, "procedure with line info has addresses no statement covers");
        }
        free(st.v);
    }
    if (s->kind == CSP_SCOPE_STMT)
        for (size_t i = 0; i < s->nranges; i++)
            if (struct_lookup(iv->m, s->ranges[i].lo) != s ||
                struct_lookup(iv->m, s->ranges[i].hi - 1) != s)
                inv_error(iv, s, "struct_lookup does not return the statement for its own range");
    free(kids.v);
    return false;
}

/* ---- loop and call annotations ------------------------------------------ */

struct ann {
    bool is_call, irr, nr, tail;
    int min_opt; /* check only at this optimization level or above */
    uint32_t line;
    int also; /* also=+N: line + N is accepted as the header line too */
    int span; /* span=N: any line from line to line + N is accepted */
    char name[64], proc[128], in[64], via[128], target[128];
};

static struct ann anns[256];
static size_t nanns;

/* Value of "key=" in the annotation text @t into @out (empty when absent). */
static void
ann_value(const char *t, const char *key, char *out, size_t outlen)
{
    char pat[32];
    const char *p;
    size_t n = 0;

    snprintf(pat, sizeof(pat), " %s=", key);
    out[0] = '\0';
    p = strstr(t, pat);
    if (p == NULL)
        return;
    for (p += strlen(pat);
         *p && *p != ' ' && *p != '*' && *p != '\n' && *p != '\t' && n + 1 < outlen; p++)
        out[n++] = *p;
    out[n] = '\0';
}

static bool
ann_flag(const char *t, const char *flag)
{
    size_t n = strlen(flag);

    for (const char *p = strstr(t, flag); p != NULL; p = strstr(p + 1, flag))
        if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '*' || p[n] == '\0' || p[n] == '\n'))
            return true;
    return false;
}

static int
read_annotations(const char *src)
{
    FILE *f = fopen(src, "r");
    char buf[1024];
    uint32_t line = 0;

    if (f == NULL)
        return fail("%s: cannot open", src);
    while (fgets(buf, sizeof(buf), f) != NULL) {
        const char *t;
        struct ann *a;
        char opt[8];

        line++;
        t = strstr(buf, "@loop ");
        if (t == NULL)
            t = strstr(buf, "@call ");
        if (t == NULL || strstr(buf, "@loop NAME") != NULL || strstr(buf, "@call proc=P") != NULL)
            continue;
        if (nanns == sizeof(anns) / sizeof(anns[0]))
            break;
        a = &anns[nanns++];
        memset(a, 0, sizeof(*a));
        a->is_call = t[1] == 'c';
        a->line = line;
        if (!a->is_call)
            (void)sscanf(t + 6, "%63s", a->name);
        ann_value(t, "proc", a->proc, sizeof(a->proc));
        ann_value(t, "in", a->in, sizeof(a->in));
        ann_value(t, "via", a->via, sizeof(a->via));
        ann_value(t, "target", a->target, sizeof(a->target));
        ann_value(t, "opt", opt, sizeof(opt));
        a->min_opt = atoi(opt);
        ann_value(t, "also", opt, sizeof(opt));
        a->also = atoi(opt);
        ann_value(t, "span", opt, sizeof(opt));
        a->span = atoi(opt);
        a->irr = ann_flag(t, "irr");
        a->nr = ann_flag(t, "nr");
        a->tail = ann_flag(t, "tail");
    }
    fclose(f);
    return 0;
}

/* Is @line the header line of loop annotation @a? */
static bool
ann_line(const struct ann *a, uint32_t line)
{
    return line == a->line || (a->also != 0 && (int64_t)line == (int64_t)a->line + a->also) ||
           (line > a->line && line <= a->line + (uint32_t)a->span);
}

static const struct ann *
ann_loop(const char *name)
{
    for (size_t i = 0; i < nanns; i++)
        if (!anns[i].is_call && strcmp(anns[i].name, name) == 0)
            return &anns[i];
    return NULL;
}

/* Does procedure scope @p implement the function @fn (clones included)? */
static bool
proc_is(const struct struct_scope *p, const char *fn)
{
    size_t n = strlen(fn);

    if (p->name != NULL && strncmp(p->name, fn, n) == 0 &&
        (p->name[n] == '\0' || p->name[n] == '(')) /* C++: "grid(std::vector<...> const&)" */
        return true;
    return p->link_name != NULL && strncmp(p->link_name, fn, n) == 0 &&
           (p->link_name[n] == '\0' || p->link_name[n] == '.');
}

/* Callee name @n (maybe "exit@plt" or "foo.part.0") names function @fn? */
static bool
callee_is(const char *n, const char *fn)
{
    size_t len = strlen(fn);

    return n != NULL && strncmp(n, fn, len) == 0 &&
           (n[len] == '\0' || n[len] == '@' || n[len] == '.');
}

struct scan {
    const char *src;
    const struct ann *a;
    int found; /* scopes matching kind and line */
    int ok;    /* of which satisfy every constraint */
    char why[256];
};

static bool
scan_fn(const struct struct_scope *s, void *arg)
{
    struct scan *sc = arg;
    const struct ann *a = sc->a;
    const struct struct_scope *q;

    if (s->kind != (a->is_call ? CSP_SCOPE_CALL : CSP_SCOPE_LOOP) || !ann_line(a, s->line) ||
        strcmp(base(s->file), base(sc->src)) != 0)
        return false;
    sc->found++;
    if (a->is_call) {
        if (a->target[0] && !callee_is(s->name, a->target)) {
            snprintf(sc->why, sizeof(sc->why), "callee is %s", s->name ? s->name : "unknown");
            return false;
        }
        if ((a->nr && !(s->flags & STRUCT_SCOPE_F_NORETURN)) ||
            (a->tail && !(s->flags & STRUCT_SCOPE_F_TAIL))) {
            snprintf(sc->why, sizeof(sc->why), "flags 0x%x lack noreturn/tail", s->flags);
            return false;
        }
        sc->ok++;
        return false;
    }
    for (q = s->parent; q != NULL && q->kind != CSP_SCOPE_LOOP && q->kind != CSP_SCOPE_PROC;
         q = q->parent)
        ;
    if (a->in[0]) {
        const struct ann *pa = ann_loop(a->in);

        if (pa == NULL || q == NULL || q->kind != CSP_SCOPE_LOOP || !ann_line(pa, q->line)) {
            if (q != NULL && q->kind == CSP_SCOPE_LOOP)
                snprintf(sc->why, sizeof(sc->why),
                         "enclosing loop is a loop at line %u, expected %s line %u", q->line, a->in,
                         pa ? pa->line : 0);
            else
                snprintf(sc->why, sizeof(sc->why), "no enclosing loop, expected %s line %u", a->in,
                         pa ? pa->line : 0);
            return false;
        }
    } else if (q != NULL && q->kind == CSP_SCOPE_LOOP) {
        snprintf(sc->why, sizeof(sc->why), "inside the loop at line %u, expected outermost",
                 q->line);
        return false;
    }
    if (a->via[0]) {
        for (q = s->parent; q != NULL && q->kind != CSP_SCOPE_PROC; q = q->parent)
            if (q->kind == CSP_SCOPE_INLINE && q->name != NULL && strstr(q->name, a->via) != NULL)
                break;
        if (q == NULL || q->kind != CSP_SCOPE_INLINE) {
            snprintf(sc->why, sizeof(sc->why), "not inside inlined %s", a->via);
            return false;
        }
    }
    if (a->irr && !(s->flags & STRUCT_SCOPE_F_IRREDUCIBLE)) {
        snprintf(sc->why, sizeof(sc->why), "not marked irreducible");
        return false;
    }
    /* struct_lookup of the loop's first address lies inside the loop */
    for (q = struct_lookup(mods[0], s->ranges[0].lo); q != NULL && q != s; q = q->parent)
        ;
    if (q == NULL) {
        snprintf(sc->why, sizeof(sc->why), "struct_lookup(0x%" PRIx64 ") is not inside the loop",
                 s->ranges[0].lo);
        return false;
    }
    sc->ok++;
    return false;
}

struct stray {
    const char *src;
    const char *proc;
    int errors;
};

/* Every loop of an annotated procedure in the source file is annotated. */
static bool
stray_fn(const struct struct_scope *s, void *arg)
{
    struct stray *st = arg;

    if (s->kind != CSP_SCOPE_LOOP || strcmp(base(s->file), base(st->src)) != 0)
        return false;
    for (size_t i = 0; i < nanns; i++)
        if (!anns[i].is_call && ann_line(&anns[i], s->line))
            return false;
    fprintf(stderr, "struct_check: %s: unannotated loop at line %u\n", st->proc, s->line);
    st->errors++;
    return false;
}

static int
check_loops(const char *src, int opt)
{
    const struct struct_scope *root = struct_module_root(mods[0]);
    int errors = 0, checked = 0;

    if (read_annotations(src) != 0)
        return 1;
    for (size_t i = 0; i < nanns; i++) {
        const struct ann *a = &anns[i];
        struct scan sc = {.src = src, .a = a};
        int procs = 0;

        if (opt < a->min_opt)
            continue;
        checked++;
        for (const struct struct_scope *f = root->first_child; f != NULL; f = f->next_sibling)
            for (const struct struct_scope *p = f->first_child; p != NULL; p = p->next_sibling)
                if (proc_is(p, a->proc)) {
                    procs++;
                    visit(p, scan_fn, &sc);
                    if (!a->is_call && i == 0) {
                        /* (stray check below, once per procedure) */
                    }
                }
        if (procs == 0) {
            fprintf(stderr, "struct_check: line %u: no procedure %s\n", a->line, a->proc);
            errors++;
        } else if (sc.ok == 0) {
            fprintf(stderr, "struct_check: line %u (%s%s) in %s: %s\n", a->line,
                    a->is_call ? "call to " : "loop ", a->is_call ? a->target : a->name, a->proc,
                    sc.found == 0 ? "no such scope" : sc.why);
            errors++;
        }
    }
    for (size_t i = 0; i < nanns; i++) { /* stray loops, once per annotated procedure */
        bool seen = false;

        if (anns[i].is_call)
            continue;
        for (size_t j = 0; j < i; j++)
            seen |= !anns[j].is_call && strcmp(anns[j].proc, anns[i].proc) == 0;
        if (seen)
            continue;
        for (const struct struct_scope *f = root->first_child; f != NULL; f = f->next_sibling)
            for (const struct struct_scope *p = f->first_child; p != NULL; p = p->next_sibling)
                if (proc_is(p, anns[i].proc)) {
                    struct stray st = {src, anns[i].proc, 0};

                    visit(p, stray_fn, &st);
                    errors += st.errors;
                }
    }
    printf("loops: %d annotations checked, %d errors\n", checked, errors);
    return errors ? 1 : 0;
}

static bool
max_id_fn(const struct struct_scope *s, void *arg)
{
    size_t *mx = arg;

    if (s->id > *mx)
        *mx = s->id;
    return false;
}

static int
check_invariants(void)
{
    struct inv iv = {.m = mods[0]};
    struct rset procs = {0};
    const struct struct_scope *root = struct_module_root(mods[0]);

    visit(root, max_id_fn, &iv.max_id);
    iv.seen_ids = calloc(iv.max_id + 1, 1);
    if (iv.seen_ids == NULL)
        return 1;
    visit(root, inv_fn, &iv);
    for (const struct struct_scope *f = root->first_child; f != NULL; f = f->next_sibling)
        for (const struct struct_scope *p = f->first_child; p != NULL; p = p->next_sibling)
            rset_add(&procs, p->ranges, p->nranges);
    if (!rset_sort_disjoint(&procs)) {
        fprintf(stderr, "struct_check: procedures overlap\n");
        iv.errors++;
    }
    free(procs.v);
    free(iv.seen_ids);
    printf("invariants: %zu scopes, %zu procedures with line info, %d errors\n", iv.max_id,
           iv.nprocs_with_lines, iv.errors);
    return iv.errors ? 1 : 0;
}

static bool
count_fn(const struct struct_scope *s, void *arg)
{
    size_t *c = arg;

    c[s->kind]++;
    return false;
}

static int
write_to(const char *path)
{
    FILE *f = fopen(path, "w");
    int rc;

    if (f == NULL)
        return fail("%s: cannot create", path);
    rc = struct_write_xml(f, mods, nmods);
    if (fclose(f) != 0 || rc != 0)
        return fail("%s: write failed", path);
    return 0;
}

int
main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    const struct struct_scope *root, *p;

    xml_opt.schema_dir = getenv("CSPROF_SCHEMA_DIR");
    xml_opt.debug_dir = getenv("CSPROF_DEBUG_DIR");
    if (argc < 3) {
        fprintf(stderr, "usage: struct_check COMMAND FILE ARGS...\n");
        return 2;
    }
    if (strcmp(cmd, "readerr") == 0 && argc == 4) {
        char err[1024] = "";
        int rc = struct_read_xml_opt(argv[2], &xml_opt, &mods, &nmods, err, sizeof(err));

        if (rc == 0)
            return fail("%s: read succeeded, expected an error containing '%s'", argv[2], argv[3]);
        if (strstr(err, argv[3]) == NULL || strchr(err, '\n') != NULL)
            return fail("error message '%s' lacks '%s' or is not one line", err, argv[3]);
        printf("read error as expected: %s\n", err);
        return 0;
    }
    if (strcmp(cmd, "analyze") == 0 && argc == 4) {
        char err[1024];
        struct struct_options opt = xml_opt;
        struct struct_module *m;
        int rc = struct_analyze(argv[2], &opt, &m, NULL, err, sizeof(err));

        if (rc != 0)
            return fail("analyze failed: %s", err);
        mods = &m;
        nmods = 1;
        rc = write_to(argv[3]);
        struct_module_free(m);
        return rc;
    }

    if (strcmp(cmd, "cached") == 0 && argc == 5) {
        char err[1024];
        struct struct_options opt = xml_opt;
        struct struct_module *m;
        const char *note = NULL;
        int rc;

        opt.cache_dir = argv[2];
        rc = struct_analyze_cached(argv[3], &opt, &m, &note, err, sizeof(err));
        if (rc != 0)
            return fail("analyze failed: %s", err);
        if (note != NULL)
            printf("note: %s\n", note);
        mods = &m;
        nmods = 1;
        rc = write_to(argv[4]);
        struct_module_free(m);
        return rc;
    }

    load(argv[2]);
    root = struct_module_root(mods[0]);
    if (strcmp(cmd, "loops") == 0 && argc == 5)
        return check_loops(argv[3], atoi(argv[4]));
    if (strcmp(cmd, "proc") == 0 && argc == 4) {
        if (find(root, CSP_SCOPE_PROC, argv[3]) == NULL)
            return fail("no procedure named '%s' in %s", argv[3], argv[2]);
        return 0;
    }
    if (strcmp(cmd, "inline") == 0 && argc == 5) {
        const struct struct_scope *a;

        p = find(root, CSP_SCOPE_PROC, argv[3]);
        if (p == NULL)
            return fail("no procedure named '%s' in %s", argv[3], argv[2]);
        a = find(p, CSP_SCOPE_INLINE, argv[4]);
        if (a == NULL)
            return fail("procedure '%s' has no inlined call of '%s'", argv[3], argv[4]);
        if (a->call_line == 0 || a->call_file == NULL || a->nranges == 0)
            return fail("inlined call of '%s' in '%s' lacks call site or ranges", argv[4], argv[3]);
        return 0;
    }
    if (strcmp(cmd, "stmts") == 0 && argc >= 6) {
        p = find(root, CSP_SCOPE_PROC, argv[3]);
        if (p == NULL)
            return fail("no procedure named '%s' in %s", argv[3], argv[2]);
        for (int i = 5; i < argc; i++) {
            struct stmt_find f = {argv[4], (uint32_t)strtoul(argv[i], NULL, 10), false};

            visit(p, stmt_fn, &f);
            if (!f.found)
                return fail("no statement for line %s in procedure '%s'", argv[i], argv[3]);
        }
        return 0;
    }
    if (strcmp(cmd, "lookup") == 0 && argc == 5) {
        uint64_t addr = strtoull(argv[3], NULL, 16);
        const struct struct_scope *s = struct_lookup(mods[0], addr);

        while (s != NULL && s->kind != CSP_SCOPE_PROC)
            s = s->parent;
        if (s == NULL)
            return fail("struct_lookup(0x%s) found no procedure", argv[3]);
        if (s->name == NULL || strcmp(s->name, argv[4]) != 0)
            return fail("struct_lookup gives procedure '%s', expected '%s'",
                        s->name ? s->name : "(null)", argv[4]);
        return 0;
    }
    if (strcmp(cmd, "count") == 0 && argc == 5) {
        static const char kinds[] = "-MFPALCS"; /* in enum csp_scope order, from ROOT */
        _Static_assert(sizeof kinds - 1 == CSP_SCOPE_STMT + 1, "a letter for each structure kind");
        size_t c[CSP_SCOPE_NKINDS] = {0};
        const char *k = strchr(kinds, argv[3][0]);
        unsigned long min = strtoul(argv[4], NULL, 10);

        if (k == NULL || argv[3][0] == '\0' || argv[3][0] == '-')
            return fail("unknown kind '%s'", argv[3]);
        visit(root, count_fn, c);
        printf("%zu scopes of kind %s\n", c[k - kinds], argv[3]);
        if (c[k - kinds] < min)
            return fail("fewer scopes of kind %s than %s", argv[3], argv[4]);
        return 0;
    }
    if (strcmp(cmd, "invariants") == 0 && argc == 3)
        return check_invariants();
    if (strcmp(cmd, "rewrite") == 0 && argc == 4)
        return write_to(argv[3]);
    fprintf(stderr, "struct_check: unknown command or wrong arguments: %s\n", cmd);
    return 2;
}
