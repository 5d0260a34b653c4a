/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_input.c -- read measurement files and merge their calling context
 * trees into lib/profile's presentation tree.
 *
 * Tool code; never prints (problems become messages, profile.h).  Every address goes through lib/structure: with -S, the
 * structure files whose module path or build-id matches; otherwise (and for
 * every module no -S file covers) struct_analyze() on the load module's
 * path from the measurement's load map.  This file never reads ELF or
 * DWARF itself.
 *
 * A measured node (module, offset) expands into presentation steps:
 *   PF(procedure) -> A(inlined callee)... / L(loop)... outermost first
 *   -> C(call line) for a call site, S(statement line) for a leaf.
 * A call site's offset is a return address, so it is looked up at offset-1
 * (inside the call instruction); a leaf's offset is the sampled ip itself.
 * The callee frames of a call site hang below its C node, so the tree is
 * keyed by procedure frame + call-site line, as HPCToolkit's experiment.xml.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fmt/fmt.h"
#include "profile_internal.h"
#include "structure/structure.h"
#include "support/bytes.h"
#include "support/text.h"

void
prof_ctx_init(struct prof_ctx *ctx, const struct prof_config *cfg)
{
    memset(ctx, 0, sizeof(*ctx));
    if (cfg != NULL)
        ctx->cfg = *cfg;
    ctx->unknown_module_proc = PROF_NONE;
    ctx->msg_module = PROF_NONE;
    prof_tree_init(&ctx->tree);
}

void
prof_ctx_free(struct prof_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->nevents; i++) {
        free(ctx->events[i].name);
        free(ctx->events[i].unit);
        free(ctx->events[i].display_unit);
        free(ctx->events[i].mechanism);
    }
    free(ctx->events);
    for (i = 0; i < ctx->nmodules; i++) {
        free(ctx->modules[i].path);
        free(ctx->modules[i].build_id);
        free(ctx->modules[i].source);
        free(ctx->modules[i].why);
        struct_module_free(ctx->modules[i].owned);
    }
    free(ctx->modules);
    prof_map_free(&ctx->module_index);
    free(ctx->files);
    prof_map_free(&ctx->file_index);
    free(ctx->procs);
    prof_map_free(&ctx->proc_index);
    free(ctx->steps);
    prof_map_free(&ctx->expansion_index);
    prof_map_free(&ctx->walk_cache);
    for (i = 0; i < ctx->nstructs; i++) {
        struct_module_free(ctx->structs[i].sm);
        free(ctx->structs[i].file);
    }
    free(ctx->structs);
    for (i = 0; i < ctx->ninputs; i++) {
        struct prof_input *in = &ctx->inputs[i];

        free(in->path);
        free(in->error);
        free(in->program);
        free(in->command);
        free(in->host);
        free(in->contrib);
    }
    free(ctx->inputs);
    for (i = 0; i < ctx->nruns && ctx->runs != NULL; i++) {
        free(ctx->runs[i].id);
        free(ctx->runs[i].where);
    }
    free(ctx->runs);
    for (i = 0; i < ctx->nstats; i++)
        free(ctx->stat_names[i]);
    free(ctx->stat_names);
    free(ctx->stat_values);
    prof_tree_free(&ctx->tree);
    for (i = 0; i < ctx->nderived; i++)
        prof_derived_free(&ctx->derived[i]);
    free(ctx->derived);
    prof_stats_free(&ctx->stats);
    prof_flat_free(&ctx->flat);
    if (ctx->file_src != NULL)
        for (i = 0; i < ctx->nfiles; i++)
            free(ctx->file_src[i]);
    free(ctx->file_src);
    for (i = 0; i < ctx->nmsgs; i++)
        free(ctx->msgs[i].text);
    free(ctx->msgs);
    free(ctx->errmsg);
    csp_strtab_free(&ctx->strs);
}

const char *
prof_proc_name(const struct prof_ctx *ctx, uint32_t proc)
{
    return proc == PROF_NONE ? "" : ctx->strs.strs[ctx->procs[proc].name];
}

/* ---- tables ------------------------------------------------------------ */

static uint32_t
prof_file_get(struct prof_ctx *ctx, const char *path)
{
    uint32_t id;
    char *clean;

    if (path == NULL || path[0] == '\0')
        return PROF_NONE;
    clean = prof_xclean(path); /* names are shown and written as clean text (item: hostile names) */
    id = prof_file_get_clean(ctx, clean);
    free(clean);
    return id;
}

uint32_t
prof_file_get_clean(struct prof_ctx *ctx, const char *clean)
{
    uint32_t sid = prof_intern(&ctx->strs, clean), id;

    id = prof_map_get(&ctx->file_index, sid, 0, 0);
    if (id != PROF_NONE)
        return id;
    prof_grow(&ctx->files, &ctx->files_cap, ctx->nfiles + 1, sizeof(*ctx->files));
    id = (uint32_t)ctx->nfiles++;
    ctx->files[id].name = sid;
    prof_map_put(&ctx->file_index, sid, 0, 0, id);
    return id;
}

bool
prof_is_entry_name(const char *name)
{
    static const char *const names[] = {
        "_start",
        "__libc_start_main",
        "__libc_start_main_impl",
        "__libc_start_call_main",
        "main",
        "start_thread",
        "clone",
        "__clone",
        "clone3",
        "__clone3",
        "__clone_internal",
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static uint32_t
prof_proc_get(struct prof_ctx *ctx, uint32_t module, const char *name, const char *link_name,
              const char *file, uint32_t line, bool unknown)
{
    char *clean = prof_xclean(name);
    uint32_t nid = prof_intern(&ctx->strs, clean), fid = prof_file_get(ctx, file), id;
    struct prof_proc *p;

    free(clean);
    id = prof_map_get(&ctx->proc_index, module, nid, (uint64_t)fid << 32 | line);
    if (id != PROF_NONE)
        return id;
    prof_grow(&ctx->procs, &ctx->procs_cap, ctx->nprocs + 1, sizeof(*ctx->procs));
    id = (uint32_t)ctx->nprocs++;
    p = &ctx->procs[id];
    p->name = nid;
    p->link_name = PROF_NONE;
    if (link_name != NULL && link_name[0] != '\0' && strcmp(link_name, name) != 0) {
        clean = prof_xclean(link_name);
        p->link_name = prof_intern(&ctx->strs, clean);
        free(clean);
    }
    p->module = module;
    p->file = fid;
    p->line = line;
    p->unknown = unknown;
    p->is_main = strcmp(name, "main") == 0;
    p->is_root = prof_is_entry_name(name) || (link_name != NULL && prof_is_entry_name(link_name));
    prof_map_put(&ctx->proc_index, module, nid, (uint64_t)fid << 32 | line, id);
    return id;
}

/* Global index of a load module, identified by path and build-id. */
static uint32_t
prof_module_get(struct prof_ctx *ctx, const struct fmt_module *fm)
{
    char *bid = prof_xmalloc(2 * (size_t)fm->build_id_len + 1);
    uint32_t pid, bidid, id;
    struct prof_module *m;

    csp_hex(fm->build_id, fm->build_id != NULL ? fm->build_id_len : 0, bid,
            2 * (size_t)fm->build_id_len + 1);
    pid = prof_intern(&ctx->strs, fm->path);
    bidid = prof_intern(&ctx->strs, bid);
    id = prof_map_get(&ctx->module_index, pid, bidid, 0);
    if (id != PROF_NONE) {
        free(bid);
        return id;
    }
    prof_grow(&ctx->modules, &ctx->modules_cap, ctx->nmodules + 1, sizeof(*ctx->modules));
    id = (uint32_t)ctx->nmodules++;
    m = &ctx->modules[id];
    memset(m, 0, sizeof(*m));
    m->path = prof_xstrdup(fm->path);
    m->build_id = bid;
    m->state = PROF_MOD_UNLOADED;
    prof_map_put(&ctx->module_index, pid, bidid, 0, id);
    return id;
}

/*
 * Mark module @m as rebuilt since the measurement: its addresses must not be
 * mapped through the file now on disk (or a structure file made from it),
 * which would name the wrong procedures with full confidence.
 */
static void
prof_module_changed(struct prof_ctx *ctx, struct prof_module *m, const char *where,
                    const char *found_bid)
{
    char *path = prof_xclean(m->path);

    m->state = PROF_MOD_CHANGED;
    m->sm = NULL;
    m->why = prof_xasprintf("%s: changed since the measurement: build-id %s in %s, %s measured; "
                            "its samples are kept as %s+0xOFFSET",
                            path, found_bid[0] != '\0' ? found_bid : "(none)", where, m->build_id,
                            text_basename(path));
    prof_msg(ctx, PROF_MSG_WARNING, "%s", m->why);
    ctx->nchanged++;
    free(path);
}

/*
 * Find the structure of module @mi: a -S module with the measured build-id
 * (or, when either has none, the same path), else struct_analyze() of the
 * file, whose build-id must then equal the measured one.
 */
void
prof_module_resolve_here(struct prof_ctx *ctx, uint32_t mi)
{
    struct prof_module *m = &ctx->modules[mi];
    struct struct_options sopt = {.verbose = ctx->cfg.verbose,
                                  .debug_dir = ctx->cfg.debug_dir,
                                  .cache_dir = ctx->cfg.struct_cache_dir};
    const char *note = NULL, *fb, *stale_file = NULL, *stale_bid = NULL;
    char err[512] = "";
    size_t i;
    int rc;

    if (m->state != PROF_MOD_UNLOADED)
        return;
    for (i = 0; i < ctx->nstructs; i++) {
        const char *sp = struct_module_path(ctx->structs[i].sm);
        const char *sb = struct_module_build_id(ctx->structs[i].sm);
        bool same_path = sp != NULL && strcmp(sp, m->path) == 0;

        if (sb == NULL)
            sb = "";
        if (m->build_id[0] != '\0' && sb[0] != '\0') {
            if (strcmp(sb, m->build_id) != 0) {
                if (same_path && stale_file == NULL) {
                    stale_file = ctx->structs[i].file;
                    stale_bid = sb;
                }
                continue;
            }
        } else if (!same_path) {
            continue;
        }
        ctx->structs[i].used = true;
        m->sm = ctx->structs[i].sm;
        m->source = prof_xstrdup(ctx->structs[i].file);
        m->state = PROF_MOD_STRUCTURE;
        return;
    }
    if (m->path[0] != '/') { /* [vdso], [heap], anonymous code: nothing to analyze */
        m->state = PROF_MOD_FAILED;
        m->why = prof_xasprintf("%s: not a file", m->path);
        return;
    }
    rc = struct_analyze_cached(m->path, &sopt, &m->owned, &note, err, sizeof(err));
    if (rc < 0) {
        if (stale_file != NULL) { /* only a structure file of another build is left */
            prof_module_changed(ctx, m, stale_file, stale_bid);
            return;
        }
        m->state = PROF_MOD_FAILED;
        m->why = prof_xstrdup(err[0] ? err : struct_strerror(rc));
        prof_msg(ctx, PROF_MSG_NOTE, "%s; its addresses are shown as [unknown] procedures", m->why);
        return;
    }
    fb = struct_module_build_id(m->owned);
    if (fb == NULL)
        fb = "";
    if (m->build_id[0] != '\0' && strcmp(fb, m->build_id) != 0) {
        prof_module_changed(ctx, m, "the file", fb); /* fb points into m->owned */
        struct_module_free(m->owned);
        m->owned = NULL;
        return;
    }
    if (stale_file != NULL)
        prof_msg(ctx, PROF_MSG_NOTE,
                 "%s: build-id %s in %s differs from the measured %s; analyzed the binary, which "
                 "has the measured build-id",
                 m->path, stale_bid, stale_file, m->build_id);
    if (struct_note_no_dwarf(note)) { /* said once per module: it is resolved once */
        char hint[2048];

        prof_msg(ctx, PROF_MSG_NOTE, "%s: %s; %s", m->path, note,
                 struct_debug_hint(m->path, fb, &sopt, hint, sizeof(hint)));
    } else if (note != NULL && ctx->cfg.verbose) {
        prof_msg(ctx, PROF_MSG_NOTE, "%s: %s", m->path, note);
    }
    m->sm = m->owned;
    m->state = PROF_MOD_ANALYZED;
}

/* The messages of a module's resolution are tagged with it (prof_merge.c keeps the first). */
static void
prof_module_resolve(struct prof_ctx *ctx, uint32_t mi)
{
    if (ctx->modules[mi].state != PROF_MOD_UNLOADED)
        return;
    ctx->msg_module = mi;
    if (ctx->modshare != NULL)
        prof_modshare_resolve(ctx, mi);
    else
        prof_module_resolve_here(ctx, mi);
    ctx->msg_module = PROF_NONE;
}

static void
prof_push_step(struct prof_ctx *ctx, uint32_t kind, uint32_t proc, uint32_t file, uint32_t line,
               uint32_t module, uint64_t offset)
{
    struct prof_step *s;

    prof_grow(&ctx->steps, &ctx->steps_cap, ctx->nsteps + 1, sizeof(*ctx->steps));
    s = &ctx->steps[ctx->nsteps++];
    s->kind = kind;
    s->proc = proc;
    s->file = file;
    s->line = line;
    s->module = module;
    s->offset = offset;
    s->span = 0;
}

/* Lowest address of a scope (its entry for a procedure), or @dflt without ranges. */
static uint64_t
prof_scope_lo(const struct struct_scope *s, uint64_t dflt)
{
    uint64_t lo = PROF_NO_OFFSET;
    size_t i;

    for (i = 0; i < s->nranges; i++)
        if (s->ranges[i].lo < lo)
            lo = s->ranges[i].lo;
    return lo != PROF_NO_OFFSET ? lo : dflt;
}

/* Bytes of loop @s's code from its lowest address to the end of its highest range. */
static uint32_t
prof_loop_span(const struct struct_scope *s)
{
    uint64_t lo = prof_scope_lo(s, 0), hi = lo;
    size_t i;

    for (i = 0; i < s->nranges; i++)
        if (s->ranges[i].hi > hi)
            hi = s->ranges[i].hi;
    return hi - lo > UINT32_MAX ? UINT32_MAX : (uint32_t)(hi - lo);
}

/*
 * Index of the first presentation step of (module @mi, @offset, @leaf); the
 * sequence ends at its C or S step.  Cached: every address is looked up once.
 */
static uint32_t
prof_expand(struct prof_ctx *ctx, uint32_t mi, uint64_t offset, bool leaf)
{
    uint32_t first = prof_map_get(&ctx->expansion_index, (uint64_t)mi + 1, offset, leaf);
    uint32_t last_kind = leaf ? CSP_SCOPE_STMT : CSP_SCOPE_CALL;
    const struct struct_scope *sc = NULL, *s, *proc = NULL;
    const struct struct_scope **chain = NULL;
    size_t nchain = 0, chain_cap = 0, i;
    uint64_t q = (leaf || offset == 0) ? offset : offset - 1;

    if (first != PROF_NONE)
        return first;
    first = (uint32_t)ctx->nsteps;
    if (mi == PROF_NONE && leaf && offset == FMT_KERNEL_OFFSET) {
        /* The time its parent call site spent in the kernel (measurement-format.md): a
         * procedure of no load module, with no statement. */
        prof_push_step(ctx, CSP_SCOPE_PROC,
                       prof_proc_get(ctx, PROF_NONE, PROF_KERNEL_NAME, NULL, NULL, 0, false),
                       PROF_NONE, 0, PROF_NONE, PROF_NO_OFFSET);
        prof_push_step(ctx, last_kind, PROF_NONE, PROF_NONE, 0, PROF_NONE, PROF_NO_OFFSET);
        goto out_cache;
    }
    if (mi == PROF_NONE) {
        if (ctx->unknown_module_proc == PROF_NONE)
            ctx->unknown_module_proc =
                prof_proc_get(ctx, PROF_NONE, "[unknown module]", NULL, NULL, 0, true);
        prof_push_step(ctx, CSP_SCOPE_PROC, ctx->unknown_module_proc, PROF_NONE, 0, PROF_NONE,
                       PROF_NO_OFFSET);
        prof_push_step(ctx, last_kind, PROF_NONE, PROF_NONE, 0, PROF_NONE, q);
        goto out_cache;
    }
    prof_module_resolve(ctx, mi);
    if (ctx->modules[mi].sm != NULL)
        sc = struct_lookup(ctx->modules[mi].sm, q);
    for (s = sc; s != NULL; s = s->parent) {
        if (s->kind == CSP_SCOPE_PROC) {
            proc = s;
            break;
        }
        if (s->kind == CSP_SCOPE_INLINE || s->kind == CSP_SCOPE_LOOP) {
            prof_grow(&chain, &chain_cap, nchain + 1, sizeof(*chain));
            chain[nchain++] = s;
        }
    }
    if (proc == NULL) {
        /* A changed module's addresses say nothing about procedures: plain module+0xOFFSET. */
        char *name = prof_xasprintf("%s%s+0x%llx",
                                    ctx->modules[mi].state == PROF_MOD_CHANGED ? "" : "[unknown] ",
                                    text_basename(ctx->modules[mi].path), (unsigned long long)q);

        prof_push_step(ctx, CSP_SCOPE_PROC, prof_proc_get(ctx, mi, name, NULL, NULL, 0, true),
                       PROF_NONE, 0, mi, q);
        prof_push_step(ctx, last_kind, PROF_NONE, PROF_NONE, 0, mi, q);
        free(name);
        goto out_cache;
    }
    {
        const char *pname = proc->name != NULL ? proc->name : proc->link_name;
        char *fallback = NULL;

        uint64_t entry = struct_module_entry(ctx->modules[mi].sm);
        uint32_t pid;

        if (pname == NULL) /* nameless procedure: name it by its entry address */
            pname = fallback =
                prof_xasprintf("%s+0x%llx", text_basename(ctx->modules[mi].path),
                               (unsigned long long)(proc->nranges > 0 ? proc->ranges[0].lo : q));
        pid = prof_proc_get(ctx, mi, pname, proc->link_name, proc->file, proc->line, false);
        for (i = 0; i < proc->nranges && entry != 0; i++)
            if (entry >= proc->ranges[i].lo && entry < proc->ranges[i].hi)
                ctx->procs[pid].is_root = true; /* _start of a stripped program */
        prof_push_step(ctx, CSP_SCOPE_PROC, pid, PROF_NONE, 0, mi, prof_scope_lo(proc, q));
        free(fallback);
    }
    for (i = nchain; i-- > 0;) { /* chain is innermost first: emit outermost first */
        s = chain[i];
        if (s->kind == CSP_SCOPE_INLINE)
            prof_push_step(ctx, CSP_SCOPE_INLINE,
                           prof_proc_get(ctx, mi, s->name != NULL ? s->name : "[inlined]",
                                         s->link_name, s->file, s->line, false),
                           prof_file_get(ctx, s->call_file), s->call_line, mi, prof_scope_lo(s, q));
        else if (s->line != 0)
            prof_push_step(ctx, CSP_SCOPE_LOOP, PROF_NONE, prof_file_get(ctx, s->file), s->line, mi,
                           prof_scope_lo(s, q));
        else { /* no line (stripped code): the loop is known by its address range */
            prof_push_step(ctx, CSP_SCOPE_LOOP, PROF_NONE, PROF_NONE, 0, mi, prof_scope_lo(s, q));
            ctx->steps[ctx->nsteps - 1].span = prof_loop_span(s);
        }
    }
    if (sc->kind == CSP_SCOPE_STMT)
        prof_push_step(ctx, last_kind, PROF_NONE, prof_file_get(ctx, sc->file), sc->line, mi, q);
    else
        prof_push_step(ctx, last_kind, PROF_NONE, PROF_NONE, 0, mi, q);
    free(chain);
out_cache:
    prof_map_put(&ctx->expansion_index, (uint64_t)mi + 1, offset, leaf, first);
    return first;
}

/* ---- merging ----------------------------------------------------------- */

static void
prof_add_stat(struct prof_ctx *ctx, const char *raw_name, uint64_t value)
{
    char *name = prof_xclean(raw_name); /* a corrupt file may carry any bytes */
    size_t i;

    for (i = 0; i < ctx->nstats; i++)
        if (strcmp(ctx->stat_names[i], name) == 0) {
            ctx->stat_values[i] += value;
            free(name);
            return;
        }
    prof_grow(&ctx->stat_names, &ctx->stats_cap, ctx->nstats + 1, sizeof(*ctx->stat_names));
    ctx->stat_values = prof_xrealloc(ctx->stat_values, ctx->stats_cap * sizeof(*ctx->stat_values));
    ctx->stat_names[ctx->nstats] = name;
    ctx->stat_values[ctx->nstats] = value;
    ctx->nstats++;
}

static uint32_t
prof_event_get(struct prof_ctx *ctx, const struct fmt_event *fe, uint32_t run)
{
    char *name = prof_xclean(fe->name); /* NULL: "" */
    struct prof_event *e;
    size_t i;

    if (ctx->cfg.runs == PROF_RUNS_SEPARATE && ctx->nruns > 1) { /* one column per run */
        char *named = prof_xasprintf("%s [run %u]", name, run + 1);

        free(name);
        name = named;
    }
    for (i = 0; i < ctx->nevents; i++)
        if (strcmp(ctx->events[i].name, name) == 0) {
            if (ctx->events[i].period != fe->period)
                ctx->events[i].mixed_periods = true;
            free(name);
            return (uint32_t)i;
        }
    prof_grow(&ctx->events, &ctx->events_cap, ctx->nevents + 1, sizeof(*ctx->events));
    e = &ctx->events[ctx->nevents];
    e->name = name;
    e->unit = prof_xclean(fe->unit);
    e->display_unit = prof_xclean(
        fe->display_unit != NULL && fe->display_unit[0] != '\0' ? fe->display_unit : fe->unit);
    e->mechanism = prof_xstrdup(fe->mechanism);
    e->period = fe->period;
    e->mixed_periods = false;
    return (uint32_t)ctx->nevents++;
}

/* Remember a thread's own value at a node, for per-thread values and statistics. */
static void
prof_add_contrib(struct prof_input *in, uint32_t node, uint32_t event, double value)
{
    if (value == 0.0)
        return;
    prof_grow(&in->contrib, &in->contrib_cap, in->ncontrib + 1, sizeof(*in->contrib));
    in->contrib[in->ncontrib].node = node;
    in->contrib[in->ncontrib].event = event;
    in->contrib[in->ncontrib].value = value;
    in->ncontrib++;
}

void
prof_merge_profile(struct prof_ctx *ctx, const struct fmt_profile *p, struct prof_input *input)
{
    struct prof_map modmap = {0}, nodemap = {0};
    uint32_t *evmap = prof_xcalloc(p->nevents, sizeof(*evmap));
    double *scale = prof_xcalloc(p->nevents, sizeof(*scale));
    uint64_t i;
    uint32_t j;

    input->pid = p->header.pid;
    input->tid = p->header.tid;
    input->thread_index = p->header.thread_index;
    input->rank = p->header.rank;
    input->generation = p->header.generation;
    input->start_ns = p->header.start_ns;
    input->end_ns = p->header.end_ns;
    input->cpu_ns = p->header.cpu_ns;
    input->sampled_cpu_ns = fmt_profile_sampled_cpu_ns(p);
    input->program = prof_xstrdup(p->header.program);
    input->command = prof_xstrdup(p->header.command);
    input->host = prof_xstrdup(p->header.host);
    input->nnodes = p->nnodes;
    input->samples = 0;

    for (j = 0; j < p->nevents; j++) {
        evmap[j] = prof_event_get(ctx, &p->events[j], input->run);
        /* A scale of 0 would silently zero every value: treat it as 1 (raw unit). */
        scale[j] = p->events[j].display_scale != 0.0 ? p->events[j].display_scale : 1.0;
    }
    for (j = 0; j < p->nmodules; j++)
        prof_map_put(&modmap, p->modules[j].id, 0, 0, prof_module_get(ctx, &p->modules[j]));
    for (j = 0; j < p->nstats; j++)
        prof_add_stat(ctx, p->stats[j].name != NULL ? p->stats[j].name : "", p->stats[j].value);
    trust_thread_read(p, &input->trust);

    prof_map_put(&nodemap, 0, 0, 0, 0); /* file node 0 is the root */
    for (i = 0; i < p->nnodes; i++) {
        const struct fmt_node *fn = &p->nodes[i];
        uint32_t cur, first, step, mi;

        if (fn->kind == FMT_NODE_ROOT || fn->id == 0) {
            cur = 0;
        } else {
            cur = prof_map_get(&nodemap, fn->parent, 0, 0);
            if (cur == PROF_NONE) /* the reader guarantees parents first; be safe anyway */
                cur = 0;
            mi =
                fn->module == FMT_MODULE_NONE ? PROF_NONE : prof_map_get(&modmap, fn->module, 0, 0);
            first = prof_expand(ctx, mi, fn->offset, fn->kind != FMT_NODE_CALLSITE);
            /* The same steps below the same node always end at the same node: one lookup. */
            step = prof_map_get(&ctx->walk_cache, cur, first, 0);
            if (step != PROF_NONE) {
                cur = step;
            } else {
                uint32_t from = cur;

                for (step = first;; step++) {
                    struct prof_step st = ctx->steps[step];

                    if (prof_loop_lineless(st.kind, st.file, st.line, st.offset))
                        cur = prof_tree_loop_child(&ctx->tree, cur, st.offset, st.span);
                    else
                        cur = prof_tree_child(&ctx->tree, cur, st.kind, st.proc, st.file, st.line);
                    prof_tree_note_address(&ctx->tree, cur, st.module, st.offset);
                    if (st.kind == CSP_SCOPE_CALL || st.kind == CSP_SCOPE_STMT)
                        break;
                }
                prof_map_put(&ctx->walk_cache, from, first, 0, cur);
            }
            if (fn->kind == FMT_NODE_LEAF && ctx->procs[ctx->steps[first].proc].unknown)
                ctx->unknown_samples += fn->samples;
            if (mi != PROF_NONE)
                ctx->modules[mi].leaf_samples += fn->samples;
            prof_map_put(&nodemap, fn->id, 0, 0, cur);
        }
        for (j = 0; j < fn->nmetrics; j++) {
            uint32_t ev = fn->metrics[j].event;

            if (ev >= p->nevents)
                continue; /* the reader rejects this; never index out of range */
            prof_tree_add_value(&ctx->tree, cur, evmap[ev],
                                (double)fn->metrics[j].value * scale[ev]);
            prof_add_contrib(input, cur, evmap[ev], (double)fn->metrics[j].value * scale[ev]);
        }
        prof_tree_add_counts(&ctx->tree, cur, fn->samples, fn->calls);
        if (fn->samples != 0)
            prof_add_contrib(input, cur, PROF_EV_SAMPLES, (double)fn->samples);
        input->samples += fn->samples;
        ctx->total_calls += fn->calls;
    }
    prof_map_free(&nodemap);
    prof_map_free(&modmap);
    free(scale);
    free(evmap);
}

/* ---- inputs ------------------------------------------------------------ */

static struct prof_input *
prof_add_input(struct prof_ctx *ctx, const char *path, uint32_t run)
{
    char *copy = prof_xstrdup(path);
    struct prof_input *in;

    prof_grow(&ctx->inputs, &ctx->inputs_cap, ctx->ninputs + 1, sizeof(*ctx->inputs));
    in = &ctx->inputs[ctx->ninputs++];
    memset(in, 0, sizeof(*in));
    in->path = copy;
    in->rank = -1;
    in->run = run;
    in->thread = in->process = PROF_NONE;
    return in;
}

static int
prof_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
prof_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n > k && strcmp(s + n - k, suffix) == 0;
}

size_t
prof_collect_inputs(struct prof_ctx *ctx, const char *arg, uint32_t run)
{
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    struct dirent *de;
    struct stat st;
    DIR *dir;

    if (stat(arg, &st) != 0) {
        struct prof_input *in = prof_add_input(ctx, arg, run);

        in->error = prof_xasprintf("%s: %s", arg, strerror(errno));
        prof_msg(ctx, PROF_MSG_ERROR, "%s", in->error);
        ctx->nskipped++;
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        prof_add_input(ctx, arg, run);
        return 1;
    }
    dir = opendir(arg);
    if (dir == NULL) {
        struct prof_input *in = prof_add_input(ctx, arg, run);

        in->error = prof_xasprintf("%s: cannot open directory: %s", arg, strerror(errno));
        prof_msg(ctx, PROF_MSG_ERROR, "%s", in->error);
        ctx->nskipped++;
        return 1;
    }
    while ((de = readdir(dir)) != NULL) {
        if (!prof_has_suffix(de->d_name, ".cspm"))
            continue;
        prof_grow(&names, &cap, n + 1, sizeof(*names));
        names[n++] =
            prof_xasprintf("%s%s%s", arg, prof_has_suffix(arg, "/") ? "" : "/", de->d_name);
    }
    closedir(dir);
    if (n > 1)
        qsort(names, n, sizeof(*names), prof_cmp_str);
    for (i = 0; i < n; i++) {
        prof_add_input(ctx, names[i], run);
        free(names[i]);
        names[i] = NULL;
    }
    free(names);
    if (n == 0)
        prof_msg(ctx, PROF_MSG_ERROR, "%s: no *.cspm measurement files in this directory", arg);
    return n;
}

/* The run of run id @id ("": of the files without one that argument @arg names), made when
 * new. */
static uint32_t
prof_run_of(struct prof_ctx *ctx, const char *id, uint32_t arg, const char *where)
{
    struct prof_run *r;
    uint32_t i;

    for (i = 0; i < ctx->nruns; i++)
        if (strcmp(ctx->runs[i].id, id) == 0 && (id[0] != '\0' || ctx->runs[i].arg == arg))
            return i;
    prof_grow(&ctx->runs, &ctx->runs_cap, ctx->nruns + 1, sizeof(*ctx->runs));
    r = &ctx->runs[ctx->nruns];
    memset(r, 0, sizeof(*r));
    r->id = prof_xstrdup(id);
    r->arg = arg;
    r->where = prof_xstrdup(where);
    return ctx->nruns++;
}

void
prof_assign_runs(struct prof_ctx *ctx, size_t first, const char *arg)
{
    char id[FMT_RUN_ID_MAX + 1];
    uint32_t argrun = PROF_NONE;
    size_t i;

    /* Each file's run id is in its first record, right after IDENT: a few bytes read. */
    for (i = first; i < ctx->ninputs; i++) {
        struct prof_input *in = &ctx->inputs[i];
        uint64_t start_ns = 0;
        struct prof_run *r;
        int rc;

        in->run = PROF_NONE;
        if (in->error != NULL)
            continue;
        rc = fmt_peek_run_id(in->path, id, sizeof(id), &start_ns, NULL, 0);
        if (rc < 0)
            continue;
        in->run = prof_run_of(ctx, rc > 0 ? id : "", ctx->nargs, arg);
        r = &ctx->runs[in->run];
        r->files++;
        if (start_ns != 0 && (r->start_ns == 0 || start_ns < r->start_ns))
            r->start_ns = start_ns;
        if (argrun == PROF_NONE)
            argrun = in->run;
    }
    /* Files whose first record cannot be read (they are reported when merged) and missing
     * arguments go with their argument's files, or the first run: they make no run. */
    for (i = first; i < ctx->ninputs; i++)
        if (ctx->inputs[i].run == PROF_NONE) {
            ctx->inputs[i].run = argrun != PROF_NONE ? argrun : 0;
            if (argrun != PROF_NONE)
                ctx->runs[argrun].files++;
        }
    ctx->nargs++;
}

size_t
prof_run_count(const struct prof_ctx *ctx)
{
    return ctx->nruns;
}

int
prof_run_info(const struct prof_ctx *ctx, size_t i, struct prof_run_info *out)
{
    if (i >= ctx->nruns || ctx->runs == NULL)
        return PROF_EINVAL;
    out->id = ctx->runs[i].id;
    out->where = ctx->runs[i].where;
    out->files = ctx->runs[i].files;
    out->start_ns = ctx->runs[i].start_ns;
    return PROF_OK;
}

int
prof_merge_input(struct prof_ctx *ctx, size_t i)
{
    struct fmt_record_set set;
    char err[1024] = "";
    char *path;
    int rc;

    if (ctx->inputs[i].error != NULL || ctx->inputs[i].merged)
        return -1; /* already reported by prof_collect_inputs, or a record merged with its file */
    rc = fmt_read_records(ctx->inputs[i].path, &set, err, sizeof(err));
    if (rc == FMT_OK && set.nprofiles == 0 && set.damaged == 0) {
        rc = FMT_ETRUNC;
        snprintf(err, sizeof(err), "%s: no profile in this file (empty)", ctx->inputs[i].path);
    } else if (rc == FMT_OK && set.nprofiles == 0) {
        rc = FMT_ECORRUPT;
    }
    if (rc < 0) {
        struct prof_input *in = &ctx->inputs[i];

        in->error =
            err[0] ? prof_xstrdup(err) : prof_xasprintf("%s: %s", in->path, fmt_strerror(rc));
        prof_msg(ctx, PROF_MSG_ERROR, "%s (file skipped)", in->error);
        ctx->nskipped++;
        fmt_record_set_free(&set);
        return -1;
    }
    if (set.damaged > 0) {
        prof_msg(ctx, PROF_MSG_WARNING,
                 "%s: %zu damaged record(s) skipped (a write cut off, e.g. by a kill): %s",
                 ctx->inputs[i].path, set.damaged, err);
        ctx->ndamaged += set.damaged;
    }
    /* One input per thread: the first record fills input i, the others get inputs of their
     * own (added at the end, marked merged so the caller's loop does not read them again). */
    path = prof_xstrdup(ctx->inputs[i].path);
    for (size_t k = 0; k < set.nprofiles; k++) {
        struct prof_input *in =
            k == 0 ? &ctx->inputs[i] : prof_add_input(ctx, path, ctx->inputs[i].run);
        bool partial = (set.profiles[k]->record_flags & FMT_RECORD_CHECKPOINT) != 0;

        in->merged = true;
        in->partial = partial;
        ctx->npartial += partial;
        prof_merge_profile(ctx, set.profiles[k], in);
    }
    ctx->inputs[i].nextra = (uint32_t)(set.nprofiles - 1);
    free(path);
    fmt_record_set_free(&set);
    ctx->nread++;
    return 0;
}
