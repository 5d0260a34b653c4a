/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * build.c -- the scope model built from the front end's findings: PROC
 * scopes for the claimed candidates with their INLINE trees (clipped so
 * they nest), STMT scopes (each line-table range split at scope
 * boundaries and grouped per innermost scope, file and line), FILE scopes
 * by declaration file (procedures without one take the file of the
 * statement at their entry, from the line table), then loops and call
 * sites (loopnest.c).  Tool code only.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/cfg.h"

#include "structure/binary_internal.h"
#include "support/search.h"
#include "support/sort.h"

/*
 * Add INLINE scopes for the children of @in under @parent: each clipped to
 * the parent's ranges and to what earlier siblings left, so the tree nests.
 */
static int
add_inline_scopes(struct analysis *an, struct struct_scope *parent, const struct inl *in)
{
    struct struct_rvec used = {0}, tmp = {0}, mine = {0};
    int rc = 0;

    for (const struct inl *c = in->first_child; c != NULL; c = c->next_sibling) {
        struct struct_scope *s;

        if ((rc = struct_ranges_intersect(c->ranges.v, c->ranges.n, parent->ranges, parent->nranges,
                                          &tmp)) != 0 ||
            (rc = struct_ranges_subtract(tmp.v, tmp.n, used.v, used.n, &mine)) != 0)
            goto out;
        if (mine.n == 0)
            continue;
        s = struct_scope_new(an->m, parent, CSP_SCOPE_INLINE, mine.v, mine.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->name = c->name;
        s->file = c->file;
        s->line = c->line;
        s->call_file = c->call_file;
        s->call_line = c->call_line;
        for (size_t j = 0; j < mine.n; j++)
            if ((rc = struct_rvec_push(&used, mine.v[j].lo, mine.v[j].hi)) != 0)
                goto out;
        struct_rvec_normalize(&used);
        if ((rc = add_inline_scopes(an, s, c)) != 0)
            goto out;
    }
out:
    struct_rvec_free(&used);
    struct_rvec_free(&tmp);
    struct_rvec_free(&mine);
    return rc;
}

static int
stmt_piece_cmp(const void *pa, const void *pb)
{
    const struct stmt_piece *a = pa, *b = pb;

    if (a->scope != b->scope)
        return (uintptr_t)a->scope < (uintptr_t)b->scope ? -1 : 1;
    if (a->file != b->file)
        return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return 0;
}

#define SORT_STMT_PIECES_LESS(a, b) (stmt_piece_cmp((a), (b)) < 0)
CSP_SORT_DEFINE(sort_stmt_pieces, struct stmt_piece, SORT_STMT_PIECES_LESS)

static int
uptr_cmp(const void *pa, const void *pb)
{
    uintptr_t a = *(const uintptr_t *)pa, b = *(const uintptr_t *)pb;

    return a < b ? -1 : a > b;
}

#define SORT_UPTR_LESS(a, b) (uptr_cmp((a), (b)) < 0)
CSP_SORT_DEFINE(sort_uptr, uintptr_t, SORT_UPTR_LESS)

/*
 * Number the scopes of the lookup index by address: gnum[j] is the rank of
 * index entry j's scope among the distinct scopes; *ngroups is their count.
 */
static int
rank_index_scopes(const struct struct_module *m, uint32_t **gnum, size_t *ngroups)
{
    uintptr_t *sc = malloc((m->nindex + 1) * sizeof(*sc));
    uint32_t *g = malloc((m->nindex + 1) * sizeof(*g));
    size_t k = 0;

    if (sc == NULL || g == NULL || m->nindex > UINT32_MAX) {
        free(sc);
        free(g);
        return STRUCT_ENOMEM;
    }
    for (size_t j = 0; j < m->nindex; j++)
        sc[j] = (uintptr_t)m->index[j].scope;
    if (m->nindex > 1)
        sort_uptr(sc, m->nindex);
    for (size_t j = 0; j < m->nindex; j++)
        if (k == 0 || sc[k - 1] != sc[j])
            sc[k++] = sc[j];
    for (size_t j = 0; j < m->nindex; j++)
        g[j] = (uint32_t)csp_lower_bound_u64(sc, k, sizeof(*sc), 0,
                                             (uint64_t)(uintptr_t)m->index[j].scope);
    free(sc);
    *gnum = g;
    *ngroups = k;
    return 0;
}

/*
 * Sort @p into stmt_piece_cmp's order without one large comparison sort:
 * an in-place bucket distribution by scope rank (the American flag sort of
 * McIlroy, Bostic and McIlroy, "Engineering radix sort", 1993), then a
 * comparison sort inside each bucket -- a scope's pieces, mostly already in
 * order.  Pieces equal under stmt_piece_cmp differ at most in hi, and their
 * ranges are merged afterwards, so the sort need not be stable.
 */
static int
sort_pieces(struct stmt_piece *p, size_t np, size_t ngroups)
{
    size_t *start = calloc(ngroups + 1, sizeof(*start));
    size_t *next = malloc((ngroups + 1) * sizeof(*next));

    if (start == NULL || next == NULL) {
        free(start);
        free(next);
        return STRUCT_ENOMEM;
    }
    for (size_t i = 0; i < np; i++)
        start[p[i].group + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    memcpy(next, start, (ngroups + 1) * sizeof(*next));
    for (size_t g = 0; g < ngroups; g++)
        while (next[g] < start[g + 1]) {
            struct stmt_piece x = p[next[g]];

            while (x.group != g) { /* follow the cycle x starts */
                struct stmt_piece y = p[next[x.group]];

                p[next[x.group]++] = x;
                x = y;
            }
            p[next[g]++] = x;
        }
    for (size_t g = 0; g < ngroups; g++) {
        size_t lo = start[g], n = start[g + 1] - start[g];

        for (size_t i = 1; i < n; i++)
            if (stmt_piece_cmp(&p[lo + i - 1], &p[lo + i]) > 0) {
                sort_stmt_pieces(&p[lo], n);
                break;
            }
    }
    free(start);
    free(next);
    return 0;
}

/*
 * Split every line-table range at scope boundaries and create one STMT per
 * (innermost scope, file, line) holding the merged ranges.  Uses the
 * module's lookup index over PROC/INLINE scopes, then drops it.
 */
static int
add_statements(struct analysis *an)
{
    struct struct_module *m = an->m;
    struct stmt_piece *p = NULL;
    size_t np = 0, capp = 0;
    struct struct_rvec rv = {0};
    uint32_t *gnum = NULL;
    size_t ngroups = 0;
    int rc = 0;

    if (an->nlines == 0)
        return 0;
    if (struct_lookup(m, 0) == NULL && !m->index_built)
        return STRUCT_ENOMEM;
    if ((rc = rank_index_scopes(m, &gnum, &ngroups)) != 0)
        goto out;
    for (size_t i = 0; i < an->nlines; i++) {
        const struct line_piece *l = &an->lines[i];
        size_t lo = csp_range_first_after(m->index, m->nindex, sizeof(*m->index), l->lo);

        for (size_t j = lo; j < m->nindex && m->index[j].lo < l->hi; j++) {
            const struct struct_index_entry *e = &m->index[j];

            if (np == capp) {
                struct stmt_piece *v = struct_vec_reserve(p, &capp, np + 1, sizeof(*v));

                if (v == NULL) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
                p = v;
            }
            p[np++] = (struct stmt_piece){(struct struct_scope *)e->scope,
                                          l->file,
                                          l->line,
                                          gnum[j],
                                          e->lo > l->lo ? e->lo : l->lo,
                                          e->hi < l->hi ? e->hi : l->hi};
        }
    }
    if (np > 0 && (rc = sort_pieces(p, np, ngroups)) != 0)
        goto out;
    for (size_t i = 0; i < np;) {
        size_t j = i;
        struct struct_scope *s;

        rv.n = 0;
        for (;
             j < np && p[j].scope == p[i].scope && p[j].file == p[i].file && p[j].line == p[i].line;
             j++)
            if ((rc = struct_rvec_push(&rv, p[j].lo, p[j].hi)) != 0)
                goto out;
        struct_rvec_normalize(&rv);
        s = struct_scope_new(m, p[i].scope, CSP_SCOPE_STMT, rv.v, rv.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->file = p[i].file;
        s->line = p[i].line;
        i = j;
    }
out:
    free(gnum);
    free(m->index);
    m->index = NULL;
    m->nindex = 0;
    m->index_built = false;
    struct_rvec_free(&rv);
    struct_vec_free(p, capp, sizeof(*p));
    return rc;
}

static int
proc_file_cmp(const void *pa, const void *pb)
{
    const struct struct_scope *a = *(const struct struct_scope *const *)pa;
    const struct struct_scope *b = *(const struct struct_scope *const *)pb;

    if (a->file == b->file)
        return 0;
    if (a->file == NULL || b->file == NULL)
        return a->file == NULL ? 1 : -1;
    return strcmp(a->file, b->file);
}

/* Move the PROC scopes (children of the root) under FILE scopes. */
static int
group_by_file(struct analysis *an)
{
    struct struct_module *m = an->m;
    struct struct_scope **v, *c, *f = NULL;
    size_t n = 0, i;

    for (c = m->root.first_child; c != NULL; c = c->next_sibling)
        n++;
    if (n == 0)
        return 0;
    v = malloc(n * sizeof(*v));
    if (v == NULL)
        return STRUCT_ENOMEM;
    for (i = 0, c = m->root.first_child; c != NULL; c = c->next_sibling) {
        v[i++] = c;
        /* Procedures from symbols or FDEs: take the file and line of their entry. */
        if (c->file == NULL && c->nranges > 0) {
            for (struct struct_scope *s = c->first_child; s != NULL; s = s->next_sibling)
                if (s->kind == CSP_SCOPE_STMT &&
                    struct_ranges_contain(s->ranges, s->nranges, c->ranges[0].lo)) {
                    c->file = s->file;
                    if (c->line == 0)
                        c->line = s->line;
                    break;
                }
        }
    }
    qsort(v, n, sizeof(*v), proc_file_cmp);
    m->root.first_child = NULL;
    for (i = 0; i < n; i++) {
        if (f == NULL || proc_file_cmp(&v[i], &v[i - 1]) != 0) {
            f = struct_scope_new(m, &m->root, CSP_SCOPE_FILE, NULL, 0);
            if (f == NULL) {
                free(v);
                return STRUCT_ENOMEM;
            }
            f->name = v[i]->file != NULL ? v[i]->file : struct_intern(m, STRUCT_UNKNOWN_FILE);
            if (f->name == NULL) {
                free(v);
                return STRUCT_ENOMEM;
            }
        }
        v[i]->parent = f;
        v[i]->next_sibling = f->first_child;
        f->first_child = v[i];
    }
    free(v);
    return 0;
}

static int
entry_cmp(const void *pa, const void *pb)
{
    const struct struct_entry *a = pa, *b = pb;

    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
make_env(struct analysis *an, const struct struct_proc_in *procs, const struct cand **pc,
         size_t nprocs, struct struct_cfg_env *env)
{
    struct struct_image_part *parts = NULL;
    struct struct_entry *entries = NULL;
    size_t nparts = 0, k = 0;
    int rc;

    *env = (struct struct_cfg_env){0};
    if ((rc = bin_collect_image(an, &parts, &nparts)) != 0)
        return rc;
    entries = malloc((nprocs + 1) * sizeof(*entries));
    if (entries == NULL) {
        free(parts);
        return STRUCT_ENOMEM;
    }
    for (size_t i = 0; i < nprocs; i++) {
        const struct struct_scope *s = procs[i].scope;

        entries[i] = (struct struct_entry){procs[i].entry, s->name != NULL ? s->name : s->link_name,
                                           pc[i]->noreturn || struct_name_noreturn(s->link_name) ||
                                               struct_name_noreturn(s->name)};
    }
    if (nprocs > 1)
        qsort(entries, nprocs, sizeof(*entries), entry_cmp);
    for (size_t i = 0; i < nprocs; i++)
        if (k == 0 || entries[k - 1].addr != entries[i].addr)
            entries[k++] = entries[i];
    *env = (struct struct_cfg_env){
        .parts = parts, .nparts = nparts, .entries = entries, .nentries = k};
    return struct_cfg_env_scan(an->elf, env);
}

static void
env_free(struct struct_cfg_env *env)
{
    free((void *)env->parts);
    free((void *)env->entries);
    free((void *)env->code_refs);
}

/*
 * Create the PROC scopes with their inlined calls and statements, group
 * them by file, and decode them to find loops and call sites.  Decoding
 * starts (in other threads) as soon as the procedures are known, while
 * this thread adds the statements.
 */
int
struct_build_tree(struct analysis *an)
{
    struct struct_rvec claimed = {0};
    struct struct_proc_in *procs = NULL;
    const struct cand **pcands = NULL;
    struct struct_cfg_env env = {0};
    struct struct_loop_job *job = NULL;
    size_t nprocs = 0;
    int rc;

    if ((rc = struct_claim(an, SRC_DWARF, &claimed)) != 0 ||
        (rc = struct_claim(an, SRC_SYMBOL, &claimed)) != 0 ||
        (rc = struct_claim(an, SRC_FDE, &claimed)) != 0)
        goto out;
    procs = malloc((an->ncands + 1) * sizeof(*procs));
    pcands = malloc((an->ncands + 1) * sizeof(*pcands));
    if (procs == NULL || pcands == NULL) {
        rc = STRUCT_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < an->ncands; i++) {
        struct cand *c = &an->cands[i];
        struct struct_scope *s;

        if (c->final.n == 0)
            continue;
        s = struct_scope_new(an->m, &an->m->root, CSP_SCOPE_PROC, c->final.v, c->final.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->name = c->name;
        s->link_name = c->link_name;
        s->file = c->file;
        s->line = c->line;
        if ((rc = add_inline_scopes(an, s, &c->root)) != 0)
            goto out;
        procs[nprocs].scope = s;
        procs[nprocs].entry =
            c->entry != 0 && struct_ranges_contain(s->ranges, s->nranges, c->entry)
                ? c->entry
                : s->ranges[0].lo;
        pcands[nprocs++] = c;
    }
    if ((rc = make_env(an, procs, pcands, nprocs, &env)) != 0 ||
        (rc = struct_recover_loops_start(an->m, procs, nprocs, &env, an->opt, &job)) != 0)
        goto out;
    /* group_by_file reads each procedure's entry statement before loops nest them. */
    if ((rc = add_statements(an)) != 0 || (rc = group_by_file(an)) != 0)
        goto out;
    rc = struct_recover_loops_finish(job, false);
    job = NULL;
    if (rc != 0)
        goto out;
    struct_module_finalize(an->m);
out:
    if (job != NULL)
        (void)struct_recover_loops_finish(job, true);
    env_free(&env);
    free(procs);
    free(pcands);
    struct_rvec_free(&claimed);
    return rc;
}
