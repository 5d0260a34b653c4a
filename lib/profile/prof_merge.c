/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_merge.c -- merging measurement files in parallel, with threads
 * (prof_config.jobs) or over processes (prof_merge_part, prof_merge_parts:
 * csprof-prof-mpi), into exactly the database that a serial merge writes.
 *
 * Tool code; never prints.  The inputs are cut into contiguous blocks.  Each
 * block is merged by the serial code (prof_merge_input) into a context of
 * its own, a part; the parts are then folded into the main context in
 * block order (prof_part_fold).  Why this is the serial result, byte for
 * byte, whatever the number of parts:
 *  - every table (events, load modules, files, procedures, counters) and
 *    the tree's nodes are numbered in the order of their first appearance.
 *    A part numbers its entries in the order they first appear in its
 *    block, so visiting the parts in block order, and each part's entries
 *    in its order, creates the new entries in the order of their first
 *    appearance in all inputs (a node's children too);
 *  - a node's own values are floating-point sums, whose rounding depends on
 *    the order of the additions.  They are not taken from the part but
 *    added again from the values each input keeps for its thread (struct
 *    prof_contrib, in reading order), input by input in input order, as the
 *    serial merge adds them.  Integer counts are summed directly;
 *  - a load module's structure is looked up by every part that meets it,
 *    but the messages this produces are kept only from the first part
 *    (struct prof_message.module), where the serial merge says them.
 * This is hpcprof-mpi's reduction of partial calling-context trees, with a
 * fixed reduction order.  A part crosses processes as a flat buffer
 * (prof_part_pack): native byte order, for the same build only.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "structure/structure.h"

/* A block of the main context's inputs merged into a context of its own. */
struct prof_part {
    struct prof_ctx ctx;
    size_t lo, n;          /* main inputs lo .. lo + n - 1 are ctx.inputs[0 .. n); extras follow */
    bool borrowed_structs; /* ctx.structs[].sm and .file belong to the main context */
    bool running;          /* a thread is merging it */
    pthread_t thread;
    int rc; /* of the thread's merge */
    /* prof_part_fold(): part index -> main index (freed with the part, also on failure) */
    uint32_t *evmap, *modmap, *filemap, *procmap, *nodemap;
    bool *modfirst; /* this part's lookup of the module's structure is the first */
};

static int
prof_merge_serial(struct prof_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->ninputs; i++) /* the inputs appended for extra records are skipped */
        prof_merge_input(ctx, i);
    return 0;
}

/* Part @pt: main inputs [@lo, @hi) of @g, not merged yet.  Main thread only. */
static void
prof_part_init(struct prof_part *pt, const struct prof_ctx *g, size_t lo, size_t hi)
{
    struct prof_ctx *p = &pt->ctx;
    size_t i;

    prof_ctx_init(p, &g->cfg);
    p->cfg.jobs = 1;
    p->nruns = g->nruns;
    pt->lo = lo;
    pt->n = hi - lo;
    pt->borrowed_structs = true;
    p->structs = prof_xcalloc(g->nstructs + 1, sizeof(*p->structs));
    p->structs_cap = g->nstructs + 1;
    for (i = 0; i < g->nstructs; i++) {
        p->structs[i].sm = g->structs[i].sm; /* read only: its lookup index is built */
        p->structs[i].file = g->structs[i].file;
    }
    p->nstructs = g->nstructs;
    for (i = lo; i < hi; i++) {
        struct prof_input *in;

        prof_grow(&p->inputs, &p->inputs_cap, p->ninputs + 1, sizeof(*p->inputs));
        in = &p->inputs[p->ninputs];
        memset(in, 0, sizeof(*in));
        p->ninputs++;
        in->rank = -1;
        in->run = g->inputs[i].run;
        in->thread = in->process = PROF_NONE;
        in->merged = g->inputs[i].merged;
        in->path = prof_xstrdup(g->inputs[i].path);
        if (g->inputs[i].error != NULL) /* reported when it was added: skipped silently here */
            in->error = prof_xstrdup(g->inputs[i].error);
    }
}

static void
prof_part_free(struct prof_part *pt)
{
    size_t i;

    if (pt->borrowed_structs)
        for (i = 0; i < pt->ctx.nstructs; i++) {
            pt->ctx.structs[i].sm = NULL;
            pt->ctx.structs[i].file = NULL;
        }
    prof_ctx_free(&pt->ctx);
    free(pt->evmap);
    free(pt->modmap);
    free(pt->modfirst);
    free(pt->filemap);
    free(pt->procmap);
    free(pt->nodemap);
    memset(pt, 0, sizeof(*pt));
}

/* ---- folding a part into the main context -------------------------------- */

static uint32_t
prof_fold_event(struct prof_ctx *g, const struct prof_event *pe)
{
    struct prof_event *e;
    size_t i;

    for (i = 0; i < g->nevents; i++)
        if (strcmp(g->events[i].name, pe->name) == 0) {
            if (g->events[i].period != pe->period || pe->mixed_periods)
                g->events[i].mixed_periods = true;
            return (uint32_t)i;
        }
    prof_grow(&g->events, &g->events_cap, g->nevents + 1, sizeof(*g->events));
    e = &g->events[g->nevents];
    memset(e, 0, sizeof(*e));
    g->nevents++;
    e->name = prof_xstrdup(pe->name);
    e->unit = prof_xstrdup(pe->unit);
    e->display_unit = prof_xstrdup(pe->display_unit);
    e->mechanism = prof_xstrdup(pe->mechanism);
    e->period = pe->period;
    e->mixed_periods = pe->mixed_periods;
    return (uint32_t)i;
}

/* The main context's module for @pm; *@first: this part's structure lookup is the first. */
static uint32_t
prof_fold_module(struct prof_ctx *g, const struct prof_module *pm, bool *first)
{
    uint32_t path = prof_intern(&g->strs, pm->path), bid = prof_intern(&g->strs, pm->build_id);
    uint32_t id = prof_map_get(&g->module_index, path, bid, 0);
    struct prof_module *m;

    if (id == PROF_NONE) {
        prof_grow(&g->modules, &g->modules_cap, g->nmodules + 1, sizeof(*g->modules));
        m = &g->modules[g->nmodules];
        memset(m, 0, sizeof(*m));
        id = (uint32_t)g->nmodules++;
        m->state = PROF_MOD_UNLOADED;
        m->path = prof_xstrdup(pm->path);
        m->build_id = prof_xstrdup(pm->build_id);
        prof_map_put(&g->module_index, path, bid, 0, id);
    }
    m = &g->modules[id];
    *first = false;
    if (m->state == PROF_MOD_UNLOADED && pm->state != PROF_MOD_UNLOADED) {
        m->source = pm->source != NULL ? prof_xstrdup(pm->source) : NULL;
        m->why = pm->why != NULL ? prof_xstrdup(pm->why) : NULL;
        m->state = pm->state;
        if (m->state == PROF_MOD_CHANGED)
            g->nchanged++;
        *first = true;
    }
    m->leaf_samples += pm->leaf_samples;
    return id;
}

static uint32_t
prof_fold_proc(struct prof_ctx *g, const struct prof_ctx *p, const struct prof_proc *pp,
               const uint32_t *modmap, const uint32_t *filemap)
{
    uint32_t module = pp->module == PROF_NONE ? PROF_NONE : modmap[pp->module];
    uint32_t file = pp->file == PROF_NONE ? PROF_NONE : filemap[pp->file];
    uint32_t name = prof_intern(&g->strs, p->strs.strs[pp->name]);
    uint32_t id = prof_map_get(&g->proc_index, module, name, (uint64_t)file << 32 | pp->line);
    struct prof_proc *q;

    if (id != PROF_NONE) {
        g->procs[id].is_root |= pp->is_root;
        return id;
    }
    prof_grow(&g->procs, &g->procs_cap, g->nprocs + 1, sizeof(*g->procs));
    q = &g->procs[g->nprocs];
    *q = *pp;
    q->name = name;
    q->module = module;
    q->file = file;
    q->link_name = PROF_NONE;
    id = (uint32_t)g->nprocs++;
    if (pp->link_name != PROF_NONE)
        g->procs[id].link_name = prof_intern(&g->strs, p->strs.strs[pp->link_name]);
    prof_map_put(&g->proc_index, module, name, (uint64_t)file << 32 | pp->line, id);
    return id;
}

static void
prof_fold_stat(struct prof_ctx *g, const char *name, uint64_t value)
{
    size_t i;

    for (i = 0; i < g->nstats; i++)
        if (strcmp(g->stat_names[i], name) == 0) {
            g->stat_values[i] += value;
            return;
        }
    prof_grow(&g->stat_names, &g->stats_cap, g->nstats + 1, sizeof(*g->stat_names));
    g->stat_values = prof_xrealloc(g->stat_values, g->stats_cap * sizeof(*g->stat_values));
    g->stat_names[g->nstats] = prof_xstrdup(name);
    g->stat_values[g->nstats] = value;
    g->nstats++;
}

/*
 * Move what part input @pin read into main input @gin, with node and event
 * numbers translated, and add its values to the main tree's nodes.
 */
static void
prof_fold_input(struct prof_ctx *g, struct prof_input *gin, struct prof_input *pin,
                const uint32_t *evmap, const uint32_t *nodemap)
{
    size_t i;

    gin->error = pin->error;
    gin->program = pin->program;
    gin->command = pin->command;
    gin->host = pin->host;
    gin->contrib = pin->contrib;
    gin->ncontrib = pin->ncontrib;
    gin->contrib_cap = pin->contrib_cap;
    pin->error = pin->program = pin->command = pin->host = NULL;
    pin->contrib = NULL;
    pin->ncontrib = pin->contrib_cap = 0;
    gin->pid = pin->pid;
    gin->tid = pin->tid;
    gin->thread_index = pin->thread_index;
    gin->generation = pin->generation;
    gin->rank = pin->rank;
    gin->start_ns = pin->start_ns;
    gin->end_ns = pin->end_ns;
    gin->cpu_ns = pin->cpu_ns;
    gin->sampled_cpu_ns = pin->sampled_cpu_ns;
    gin->samples = pin->samples;
    gin->trust = pin->trust;
    gin->nnodes = pin->nnodes;
    gin->nextra = pin->nextra;
    gin->merged = pin->merged;
    gin->partial = pin->partial;
    for (i = 0; i < gin->ncontrib; i++) {
        struct prof_contrib *c = &gin->contrib[i];

        c->node = nodemap[c->node];
        if (c->event == PROF_EV_SAMPLES)
            continue;
        c->event = evmap[c->event];
        prof_tree_add_value(&g->tree, c->node, c->event, c->value);
    }
}

/* Append a message already cleaned (prof_msg cleaned it in the part). */
static void
prof_fold_message(struct prof_ctx *g, struct prof_message *m, uint32_t module)
{
    prof_grow(&g->msgs, &g->msgs_cap, g->nmsgs + 1, sizeof(*g->msgs));
    g->msgs[g->nmsgs] = *m;
    g->msgs[g->nmsgs].module = module;
    g->nmsgs++;
    m->text = NULL;
}

/*
 * Fold part @pt into @g (see the top of the file).  The part's inputs,
 * contributions and messages are moved, not copied; free the part after.
 */
static void
prof_part_fold(struct prof_ctx *g, struct prof_part *pt)
{
    struct prof_ctx *p = &pt->ctx;
    uint32_t *evmap = pt->evmap = prof_xcalloc(p->nevents + 1, sizeof(*evmap));
    uint32_t *modmap = pt->modmap = prof_xcalloc(p->nmodules + 1, sizeof(*modmap));
    bool *modfirst = pt->modfirst = prof_xcalloc(p->nmodules + 1, sizeof(*modfirst));
    uint32_t *filemap = pt->filemap = prof_xcalloc(p->nfiles + 1, sizeof(*filemap));
    uint32_t *procmap = pt->procmap = prof_xcalloc(p->nprocs + 1, sizeof(*procmap));
    uint32_t *nodemap = pt->nodemap = prof_xcalloc(p->tree.n + 1, sizeof(*nodemap));
    size_t i, k, e, extra = pt->n;

    for (i = 0; i < p->nevents; i++)
        evmap[i] = prof_fold_event(g, &p->events[i]);
    for (i = 0; i < p->nmodules; i++)
        modmap[i] = prof_fold_module(g, &p->modules[i], &modfirst[i]);
    for (i = 0; i < p->nstructs && i < g->nstructs; i++)
        g->structs[i].used |= p->structs[i].used;
    for (i = 0; i < p->nfiles; i++)
        filemap[i] = prof_file_get_clean(g, p->strs.strs[p->files[i].name]);
    for (i = 0; i < p->nprocs; i++)
        procmap[i] = prof_fold_proc(g, p, &p->procs[i], modmap, filemap);
    if (p->unknown_module_proc != PROF_NONE && g->unknown_module_proc == PROF_NONE)
        g->unknown_module_proc = procmap[p->unknown_module_proc];

    nodemap[0] = 0;
    prof_tree_add_counts(&g->tree, 0, p->tree.nodes[0].samples, p->tree.nodes[0].calls);
    for (i = 1; i < p->tree.n; i++) { /* a parent comes before its children */
        const struct prof_node *pn = &p->tree.nodes[i];
        uint32_t id =
            prof_loop_lineless(pn->kind, pn->file, pn->line, pn->offset)
                ? prof_tree_loop_child(&g->tree, nodemap[pn->parent], pn->offset, pn->span)
                : prof_tree_child(&g->tree, nodemap[pn->parent], (enum csp_scope)pn->kind,
                                  pn->proc == PROF_NONE ? PROF_NONE : procmap[pn->proc],
                                  pn->file == PROF_NONE ? PROF_NONE : filemap[pn->file], pn->line);

        prof_tree_note_address(
            &g->tree, id, pn->module == PROF_NONE ? PROF_NONE : modmap[pn->module], pn->offset);
        prof_tree_add_counts(&g->tree, id, pn->samples, pn->calls);
        nodemap[i] = id;
    }

    /* Inputs in the serial merge's reading order: each file, then its extra records. */
    for (k = 0; k < pt->n; k++) {
        struct prof_input *pin = &p->inputs[k];
        uint32_t nextra = pin->nextra;

        if (g->inputs[pt->lo + k].error != NULL)
            continue; /* skipped when it was added */
        prof_fold_input(g, &g->inputs[pt->lo + k], pin, evmap, nodemap);
        for (e = 0; e < nextra; e++) {
            struct prof_input *gin;
            char *path = prof_xstrdup(p->inputs[extra].path);

            prof_grow(&g->inputs, &g->inputs_cap, g->ninputs + 1, sizeof(*g->inputs));
            gin = &g->inputs[g->ninputs];
            memset(gin, 0, sizeof(*gin));
            gin->path = path;
            gin->run = g->inputs[pt->lo + k].run;
            gin->thread = gin->process = PROF_NONE;
            g->ninputs++;
            prof_fold_input(g, gin, &p->inputs[extra++], evmap, nodemap);
        }
    }

    g->nread += p->nread;
    g->nskipped += p->nskipped;
    g->npartial += p->npartial;
    g->ndamaged += p->ndamaged;
    g->unknown_samples += p->unknown_samples;
    g->total_calls += p->total_calls;
    for (i = 0; i < p->nstats; i++)
        prof_fold_stat(g, p->stat_names[i], p->stat_values[i]);
    for (i = 0; i < p->nmsgs; i++) {
        uint32_t m = p->msgs[i].module;

        if (m == PROF_NONE)
            prof_fold_message(g, &p->msgs[i], PROF_NONE);
        else if (modfirst[m]) /* else an earlier part said it */
            prof_fold_message(g, &p->msgs[i], modmap[m]);
    }
}

/* ---- threads --------------------------------------------------------------- */

/* A load module's structure as the first part that met it found it. */
struct prof_modshare_entry {
    char *path, *build_id;
    uint32_t state; /* enum prof_module_state */
    const struct struct_module *sm;
    struct struct_module *owned; /* analyzed by that part */
    char *source, *why;
    struct prof_message *msgs; /* what the lookup said (text owned here) */
    size_t nmsgs;
};

struct prof_modshare {
    pthread_mutex_t lock;
    struct prof_modshare_entry *e;
    size_t n, cap;
};

static void
prof_modshare_free(struct prof_modshare *sh)
{
    size_t i, k;

    if (sh == NULL)
        return;
    for (i = 0; i < sh->n; i++) {
        struct prof_modshare_entry *e = &sh->e[i];

        free(e->path);
        free(e->build_id);
        struct_module_free(e->owned);
        free(e->source);
        free(e->why);
        for (k = 0; k < e->nmsgs; k++)
            free(e->msgs[k].text);
        free(e->msgs);
    }
    free(sh->e);
    pthread_mutex_destroy(&sh->lock);
    free(sh);
}

static char *
prof_dup_or_null(const char *s)
{
    return s != NULL ? prof_xstrdup(s) : NULL;
}

/* Record what part @ctx found for module @mi: it becomes the entry @e. */
static void
prof_modshare_record(struct prof_ctx *ctx, uint32_t mi, struct prof_modshare_entry *e,
                     size_t first_msg)
{
    struct prof_module *m = &ctx->modules[mi];
    size_t k;

    if (m->sm != NULL)
        struct_lookup(m->sm, 0); /* builds its lookup index before the other threads read it */
    e->path = prof_xstrdup(m->path);
    e->build_id = prof_xstrdup(m->build_id);
    e->source = prof_dup_or_null(m->source);
    e->why = prof_dup_or_null(m->why);
    e->msgs = prof_xcalloc(ctx->nmsgs - first_msg + 1, sizeof(*e->msgs));
    for (k = first_msg; k < ctx->nmsgs; k++) {
        e->msgs[e->nmsgs].level = ctx->msgs[k].level;
        e->msgs[e->nmsgs].text = prof_xstrdup(ctx->msgs[k].text);
        e->nmsgs++;
    }
    e->state = m->state;
    e->sm = m->sm;
    e->owned = m->owned; /* m->sm stays valid until the merge ends, as the entry */
    m->owned = NULL;
}

/* Copy entry @e into part @ctx's module @mi, as if the part had looked it up. */
static void
prof_modshare_copy(struct prof_ctx *ctx, uint32_t mi, const struct prof_modshare_entry *e)
{
    struct prof_module *m = &ctx->modules[mi];
    size_t k;

    m->source = prof_dup_or_null(e->source);
    m->why = prof_dup_or_null(e->why);
    m->state = e->state;
    m->sm = e->sm;
    if (m->state == PROF_MOD_CHANGED)
        ctx->nchanged++;
    for (k = 0; k < e->nmsgs; k++) {
        struct prof_message msg = {.level = e->msgs[k].level,
                                   .text = prof_xstrdup(e->msgs[k].text)};

        prof_fold_message(ctx, &msg, mi);
    }
}

void
prof_modshare_resolve(struct prof_ctx *ctx, uint32_t mi)
{
    struct prof_modshare *sh = ctx->modshare;
    const struct prof_module *m = &ctx->modules[mi];
    jmp_buf env, *outer = prof_oom_env;
    size_t i, first_msg = ctx->nmsgs;

    pthread_mutex_lock(&sh->lock); /* also serializes struct_analyze() and its cache */
    if (setjmp(env) != 0) {
        prof_oom_env = outer;
        pthread_mutex_unlock(&sh->lock);
        longjmp(*outer, 1);
    }
    prof_oom_env = &env;
    for (i = 0; i < sh->n; i++)
        if (strcmp(sh->e[i].path, m->path) == 0 && strcmp(sh->e[i].build_id, m->build_id) == 0)
            break;
    if (i < sh->n) {
        prof_modshare_copy(ctx, mi, &sh->e[i]);
    } else {
        prof_module_resolve_here(ctx, mi);
        prof_grow(&sh->e, &sh->cap, sh->n + 1, sizeof(*sh->e));
        memset(&sh->e[sh->n], 0, sizeof(sh->e[sh->n]));
        sh->n++;
        prof_modshare_record(ctx, mi, &sh->e[sh->n - 1], first_msg);
    }
    prof_oom_env = outer;
    pthread_mutex_unlock(&sh->lock);
}

static int
prof_part_merge(struct prof_ctx *p)
{
    PROF_GUARD(p, prof_merge_serial(p));
}

static void *
prof_part_thread(void *arg)
{
    struct prof_part *pt = arg;

    pt->rc = prof_part_merge(&pt->ctx);
    return NULL;
}

/*
 * Structure modules from -S files are shared read-only by the threads:
 * build their lookup index now, which struct_lookup() would do lazily.
 */
static void
prof_share_structs(struct prof_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->nstructs; i++)
        struct_lookup(ctx->structs[i].sm, 0);
}

/*
 * Merge every input with @ctx->cfg.jobs threads: one part per thread, each
 * merged by its thread while the calling thread folds them in order (part
 * i is folded as soon as it is done and parts 0 .. i - 1 are folded).  On
 * allocation failure every thread is joined and every part freed before the
 * failure goes on to the caller's guard.
 */
static void
prof_merge_threads(struct prof_ctx *ctx, size_t nparts)
{
    jmp_buf env, *outer = prof_oom_env;
    struct prof_part *parts = prof_xcalloc(nparts, sizeof(*parts));
    struct prof_modshare *sh = calloc(1, sizeof(*sh));
    size_t n = ctx->ninputs, i;

    if (sh == NULL || pthread_mutex_init(&sh->lock, NULL) != 0) {
        free(sh);
        free(parts);
        prof_merge_serial(ctx); /* the same result, one thread */
        return;
    }
    if (setjmp(env) != 0) {
        prof_oom_env = outer;
        for (i = 0; i < nparts; i++) {
            if (parts[i].running)
                pthread_join(parts[i].thread, NULL);
            prof_part_free(&parts[i]);
        }
        free(parts);
        prof_modshare_free(sh);
        longjmp(*outer, 1);
    }
    prof_oom_env = &env;
    prof_share_structs(ctx);
    for (i = 0; i < nparts; i++) {
        prof_part_init(&parts[i], ctx, i * n / nparts, (i + 1) * n / nparts);
        parts[i].ctx.modshare = sh;
    }
    for (i = 0; i < nparts; i++) {
        if (pthread_create(&parts[i].thread, NULL, prof_part_thread, &parts[i]) == 0)
            parts[i].running = true;
        else
            parts[i].rc = prof_part_merge(&parts[i].ctx); /* no thread: merge it here */
    }
    for (i = 0; i < nparts; i++) {
        if (parts[i].running) {
            pthread_join(parts[i].thread, NULL);
            parts[i].running = false;
        }
        if (parts[i].rc < 0)
            longjmp(env, 1); /* PROF_ENOMEM in the part */
        prof_part_fold(ctx, &parts[i]);
        prof_part_free(&parts[i]);
    }
    prof_oom_env = outer;
    free(parts);
    prof_modshare_free(sh); /* the parts' structure: no longer used once they are folded */
}

void
prof_merge_inputs(struct prof_ctx *ctx)
{
    size_t nparts = ctx->cfg.jobs;

    if (nparts > ctx->ninputs)
        nparts = ctx->ninputs;
    if (nparts <= 1)
        prof_merge_serial(ctx);
    else
        prof_merge_threads(ctx, nparts);
}

int
prof_merge_end(struct prof_ctx *ctx)
{
    size_t i;

    if (ctx->nread == 0)
        return prof_fail(ctx, PROF_ENODATA, "no readable measurement file (%zu of %zu skipped)",
                         ctx->nskipped, ctx->ninputs);
    if (ctx->npartial > 0)
        prof_msg(ctx, PROF_MSG_WARNING,
                 "partial data: %zu thread(s) have only a checkpoint (the run was killed or is "
                 "still running); their profiles end early",
                 ctx->npartial);
    {
        size_t bad = 0, first = 0;

        for (i = 0; i < ctx->ninputs; i++)
            if (ctx->inputs[i].error == NULL && ctx->inputs[i].trust.mismatch && bad++ == 0)
                first = i;
        if (bad > 0)
            prof_msg(ctx, PROF_MSG_WARNING,
                     "%zu thread record(s) whose calling-context tree disagrees with its own "
                     "counters (the first: %s, thread %u of pid %u: %llu samples in the tree, "
                     "%llu counted): their trees are incomplete",
                     bad, ctx->inputs[first].path, ctx->inputs[first].thread_index,
                     ctx->inputs[first].pid,
                     (unsigned long long)ctx->inputs[first].trust.tree_samples,
                     (unsigned long long)ctx->inputs[first].trust.samples);
    }
    if (ctx->cfg.verbose)
        for (i = 0; i < ctx->nstructs; i++)
            if (!ctx->structs[i].used)
                prof_msg(ctx, PROF_MSG_NOTE, "%s: module %s matches no measured module",
                         ctx->structs[i].file, struct_module_path(ctx->structs[i].sm));
    return ctx->nread > (size_t)INT32_MAX ? INT32_MAX : (int)ctx->nread;
}

/* ---- parts across processes: a flat buffer -------------------------------- */

#define PROF_PART_MAGIC   0x50505343u /* "CSPP" */
#define PROF_PART_VERSION 1u
#define PROF_PACK_NULL    UINT32_MAX /* string length of a NULL string */

struct prof_pack {
    unsigned char *buf;
    size_t len, cap;
};

static void
pk_bytes(struct prof_pack *w, const void *data, size_t n)
{
    if (n == 0)
        return;
    prof_grow(&w->buf, &w->cap, w->len + n, 1);
    memcpy(w->buf + w->len, data, n);
    w->len += n;
}

static void
pk_u32(struct prof_pack *w, uint32_t v)
{
    pk_bytes(w, &v, sizeof(v));
}

static void
pk_u64(struct prof_pack *w, uint64_t v)
{
    pk_bytes(w, &v, sizeof(v));
}

static void
pk_f64(struct prof_pack *w, double v)
{
    pk_bytes(w, &v, sizeof(v)); /* the bits: sums must come out identical */
}

static void
pk_str(struct prof_pack *w, const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;

    pk_u32(w, s != NULL ? (uint32_t)n : PROF_PACK_NULL);
    pk_bytes(w, s, n);
}

/* A thread's trust input (lib/trust): its counters, then each event's (nevents of them). */
static void
pk_trust(struct prof_pack *w, const struct trust_thread *t)
{
    pk_u32(w, t->pid);
    pk_u32(w, t->tid);
    pk_u32(w, t->thread_index);
    pk_u32(w, t->generation);
    pk_u32(w, (uint32_t)t->rank);
    pk_str(w, t->command);
    pk_u64(w, t->cpu_ns);
    pk_u64(w, t->wall_ns);
    pk_u64(w, t->samples);
    pk_u64(w, t->tree_samples);
    pk_u64(w, t->dropped);
    for (size_t k = 0; k <= FMT_NDROP_REASONS; k++)
        pk_u64(w, t->drops[k]);
    pk_u64(w, t->unwind_stopped);
    pk_u64(w, t->handler_cpu_ns);
    pk_u64(w, t->writer_cpu_ns);
    pk_u64(w, t->signals);
    pk_u64(w, t->merged);
    pk_u64(w, t->tramp_fired);
    pk_u64(w, t->tramp_lost);
    pk_u64(w, t->tramp_mismatch);
    pk_u32(w, (uint32_t)t->blocked | (uint32_t)t->fallback << 1 | (uint32_t)t->checkpoint << 2 |
                  (uint32_t)t->mismatch << 3);
    pk_u32(w, t->nevents);
    for (uint32_t i = 0; i < t->nevents; i++) {
        const struct trust_event *e = &t->ev[i];

        pk_str(w, e->name);
        pk_str(w, e->mechanism);
        pk_str(w, e->unit);
        pk_u32(w, (uint32_t)e->kind | (uint32_t)e->has_ledger << 8);
        pk_u64(w, e->period);
        pk_u64(w, e->samples);
        pk_u64(w, e->tree_value);
        pk_bytes(w, &e->l, sizeof(e->l)); /* ten 8-byte integers */
    }
}

/* The part as a buffer: every field prof_part_fold() reads, in its order. */
static void
prof_part_pack(const struct prof_part *pt, struct prof_pack *w)
{
    const struct prof_ctx *p = &pt->ctx;
    size_t i, j;

    pk_u32(w, PROF_PART_MAGIC);
    pk_u32(w, PROF_PART_VERSION);
    pk_u64(w, pt->lo);
    pk_u64(w, pt->n);
    pk_u64(w, p->nevents);
    for (i = 0; i < p->nevents; i++) {
        const struct prof_event *e = &p->events[i];

        pk_str(w, e->name);
        pk_str(w, e->unit);
        pk_str(w, e->display_unit);
        pk_str(w, e->mechanism);
        pk_u64(w, e->period);
        pk_u32(w, e->mixed_periods);
    }
    pk_u64(w, p->nmodules);
    for (i = 0; i < p->nmodules; i++) {
        const struct prof_module *m = &p->modules[i];

        pk_str(w, m->path);
        pk_str(w, m->build_id);
        pk_u32(w, m->state);
        pk_str(w, m->source);
        pk_str(w, m->why);
        pk_u64(w, m->leaf_samples);
    }
    pk_u64(w, p->nstructs);
    for (i = 0; i < p->nstructs; i++)
        pk_u32(w, p->structs[i].used);
    pk_u64(w, p->nfiles);
    for (i = 0; i < p->nfiles; i++)
        pk_str(w, p->strs.strs[p->files[i].name]);
    pk_u64(w, p->nprocs);
    for (i = 0; i < p->nprocs; i++) {
        const struct prof_proc *q = &p->procs[i];

        pk_str(w, p->strs.strs[q->name]);
        pk_str(w, q->link_name != PROF_NONE ? p->strs.strs[q->link_name] : NULL);
        pk_u32(w, q->module);
        pk_u32(w, q->file);
        pk_u32(w, q->line);
        pk_u32(w, (uint32_t)q->unknown | (uint32_t)q->is_main << 1 | (uint32_t)q->is_root << 2);
    }
    pk_u32(w, p->unknown_module_proc);
    pk_u64(w, p->tree.n);
    for (i = 0; i < p->tree.n; i++) {
        const struct prof_node *n = &p->tree.nodes[i];

        pk_u32(w, n->parent);
        pk_u32(w, n->kind);
        pk_u32(w, n->proc);
        pk_u32(w, n->file);
        pk_u32(w, n->line);
        pk_u32(w, n->module);
        pk_u64(w, n->offset);
        pk_u32(w, n->span);
        pk_u64(w, n->samples);
        pk_u64(w, n->calls);
    }
    pk_u64(w, p->ninputs);
    for (i = 0; i < p->ninputs; i++) {
        const struct prof_input *in = &p->inputs[i];

        pk_str(w, in->path);
        pk_str(w, in->error);
        pk_str(w, in->program);
        pk_str(w, in->command);
        pk_str(w, in->host);
        pk_u32(w, in->pid);
        pk_u32(w, in->tid);
        pk_u32(w, in->thread_index);
        pk_u32(w, in->generation);
        pk_u32(w, (uint32_t)in->rank);
        pk_u64(w, in->start_ns);
        pk_u64(w, in->end_ns);
        pk_u64(w, in->cpu_ns);
        pk_u64(w, in->sampled_cpu_ns);
        pk_u64(w, in->samples);
        pk_trust(w, &in->trust);
        pk_u64(w, in->nnodes);
        pk_u32(w, in->run);
        pk_u32(w, in->nextra);
        pk_u32(w, (uint32_t)in->merged | (uint32_t)in->partial << 1);
        pk_u64(w, in->ncontrib);
        for (j = 0; j < in->ncontrib; j++) {
            pk_u32(w, in->contrib[j].node);
            pk_u32(w, in->contrib[j].event);
            pk_f64(w, in->contrib[j].value);
        }
    }
    pk_u64(w, p->nread);
    pk_u64(w, p->nskipped);
    pk_u64(w, p->npartial);
    pk_u64(w, p->ndamaged);
    pk_u64(w, p->unknown_samples);
    pk_u64(w, p->total_calls);
    pk_u64(w, p->nstats);
    for (i = 0; i < p->nstats; i++) {
        pk_str(w, p->stat_names[i]);
        pk_u64(w, p->stat_values[i]);
    }
    pk_u64(w, p->nmsgs);
    for (i = 0; i < p->nmsgs; i++) {
        pk_u32(w, p->msgs[i].level);
        pk_u32(w, p->msgs[i].module);
        pk_str(w, p->msgs[i].text);
    }
}

struct prof_unpack {
    const unsigned char *buf;
    size_t len, off;
    const char *bad; /* first problem, or NULL */
};

static bool
up_take(struct prof_unpack *r, void *out, size_t n)
{
    if (r->bad != NULL || n > r->len - r->off) {
        if (r->bad == NULL)
            r->bad = "cut short";
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->buf + r->off, n);
    r->off += n;
    return true;
}

static uint32_t
up_u32(struct prof_unpack *r)
{
    uint32_t v;

    up_take(r, &v, sizeof(v));
    return v;
}

static uint64_t
up_u64(struct prof_unpack *r)
{
    uint64_t v;

    up_take(r, &v, sizeof(v));
    return v;
}

static double
up_f64(struct prof_unpack *r)
{
    double v;

    up_take(r, &v, sizeof(v));
    return v;
}

/* A count of elements of at least @elem bytes each that the rest can hold. */
static size_t
up_count(struct prof_unpack *r, size_t elem)
{
    uint64_t n = up_u64(r);

    if (r->bad == NULL && n > (r->len - r->off) / elem) {
        r->bad = "a count larger than the buffer";
        return 0;
    }
    return (size_t)n;
}

/* A malloc'ed string (NULL for a NULL string or a bad buffer). */
static char *
up_str(struct prof_unpack *r)
{
    uint32_t n = up_u32(r);
    char *s;

    if (r->bad != NULL || n == PROF_PACK_NULL)
        return NULL;
    if (n > r->len - r->off || memchr(r->buf + r->off, '\0', n) != NULL) {
        r->bad = n > r->len - r->off ? "cut short" : "a string with a NUL byte";
        return NULL;
    }
    s = prof_xmalloc((size_t)n + 1);
    memcpy(s, r->buf + r->off, n);
    s[n] = '\0';
    r->off += n;
    return s;
}

/* A string that must be present ("" for a bad buffer). */
static char *
up_str_nonnull(struct prof_unpack *r)
{
    char *s = up_str(r);

    if (s == NULL) {
        if (r->bad == NULL)
            r->bad = "a missing string";
        s = prof_xstrdup("");
    }
    return s;
}

static uint32_t
up_intern(struct prof_unpack *r, struct csp_strtab *t)
{
    char *s = up_str_nonnull(r);
    uint32_t id = prof_intern(t, s);

    free(s);
    return id;
}

/* A string into @dst (@size bytes); a longer or missing one marks the buffer bad. */
static void
up_str_into(struct prof_unpack *r, char *dst, size_t size)
{
    char *s = up_str_nonnull(r);

    if (strlen(s) >= size && r->bad == NULL)
        r->bad = "a name longer than its field";
    snprintf(dst, size, "%s", s);
    free(s);
}

/* pk_trust's record, checked. */
static void
up_trust(struct prof_unpack *r, struct trust_thread *t)
{
    uint32_t flags;

    memset(t, 0, sizeof(*t));
    t->pid = up_u32(r);
    t->tid = up_u32(r);
    t->thread_index = up_u32(r);
    t->generation = up_u32(r);
    t->rank = (int32_t)up_u32(r);
    up_str_into(r, t->command, sizeof(t->command));
    t->cpu_ns = up_u64(r);
    t->wall_ns = up_u64(r);
    t->samples = up_u64(r);
    t->tree_samples = up_u64(r);
    t->dropped = up_u64(r);
    for (size_t k = 0; k <= FMT_NDROP_REASONS; k++)
        t->drops[k] = up_u64(r);
    t->unwind_stopped = up_u64(r);
    t->handler_cpu_ns = up_u64(r);
    t->writer_cpu_ns = up_u64(r);
    t->signals = up_u64(r);
    t->merged = up_u64(r);
    t->tramp_fired = up_u64(r);
    t->tramp_lost = up_u64(r);
    t->tramp_mismatch = up_u64(r);
    flags = up_u32(r);
    t->nevents = up_u32(r);
    if (r->bad == NULL && (flags > 15 || t->nevents > TRUST_MAX_EVENTS))
        r->bad = "a thread's trust record out of range";
    if (r->bad != NULL) {
        t->nevents = 0;
        return;
    }
    t->blocked = flags & 1;
    t->fallback = (flags >> 1) & 1;
    t->checkpoint = (flags >> 2) & 1;
    t->mismatch = (flags >> 3) & 1;
    for (uint32_t i = 0; i < t->nevents; i++) {
        struct trust_event *e = &t->ev[i];
        uint32_t kind;

        up_str_into(r, e->name, sizeof(e->name));
        up_str_into(r, e->mechanism, sizeof(e->mechanism));
        up_str_into(r, e->unit, sizeof(e->unit));
        kind = up_u32(r);
        if (r->bad == NULL && ((kind & 0xff) > TRUST_BYTES || (kind >> 8) > 1))
            r->bad = "an event's trust record out of range";
        e->kind = (enum trust_kind)(kind & 0xff);
        e->has_ledger = (kind >> 8) & 1;
        e->period = up_u64(r);
        e->samples = up_u64(r);
        e->tree_value = up_u64(r);
        up_take(r, &e->l, sizeof(e->l));
    }
}

/* @v must be an index below @n, or PROF_NONE when @none_ok. */
static uint32_t
up_index(struct prof_unpack *r, uint32_t v, size_t n, bool none_ok)
{
    if ((v == PROF_NONE && none_ok) || v < n)
        return v;
    if (r->bad == NULL)
        r->bad = "an index out of range";
    return v == PROF_NONE ? 0 : (n > 0 ? 0 : PROF_NONE);
}

static void
prof_unpack_tables(struct prof_unpack *r, struct prof_ctx *p)
{
    size_t i, n;

    n = up_count(r, 24);
    p->events = prof_xcalloc(n + 1, sizeof(*p->events));
    for (i = 0; i < n && r->bad == NULL; i++) {
        struct prof_event *e = &p->events[p->nevents++];

        e->name = up_str_nonnull(r);
        e->unit = up_str_nonnull(r);
        e->display_unit = up_str_nonnull(r);
        e->mechanism = up_str_nonnull(r);
        e->period = up_u64(r);
        e->mixed_periods = up_u32(r) != 0;
    }
    n = up_count(r, 24);
    p->modules = prof_xcalloc(n + 1, sizeof(*p->modules));
    for (i = 0; i < n && r->bad == NULL; i++) {
        struct prof_module *m = &p->modules[p->nmodules++];

        m->path = up_str_nonnull(r);
        m->build_id = up_str_nonnull(r);
        m->state = up_u32(r);
        m->source = up_str(r);
        m->why = up_str(r);
        m->leaf_samples = up_u64(r);
        if (m->state > PROF_MOD_CHANGED && r->bad == NULL)
            r->bad = "a bad module state";
    }
    n = up_count(r, 4);
    p->structs = prof_xcalloc(n + 1, sizeof(*p->structs));
    for (i = 0; i < n && r->bad == NULL; i++)
        p->structs[p->nstructs++].used = up_u32(r) != 0;
    n = up_count(r, 4);
    p->files = prof_xcalloc(n + 1, sizeof(*p->files));
    for (i = 0; i < n && r->bad == NULL; i++)
        p->files[p->nfiles++].name = up_intern(r, &p->strs);
    n = up_count(r, 24);
    p->procs = prof_xcalloc(n + 1, sizeof(*p->procs));
    for (i = 0; i < n && r->bad == NULL; i++) {
        struct prof_proc *q = &p->procs[p->nprocs++];
        char *link;
        uint32_t flags;

        q->name = up_intern(r, &p->strs);
        link = up_str(r);
        q->link_name = link != NULL ? prof_intern(&p->strs, link) : PROF_NONE;
        free(link);
        q->module = up_index(r, up_u32(r), p->nmodules, true);
        q->file = up_index(r, up_u32(r), p->nfiles, true);
        q->line = up_u32(r);
        flags = up_u32(r);
        q->unknown = flags & 1;
        q->is_main = (flags >> 1) & 1;
        q->is_root = (flags >> 2) & 1;
    }
    p->unknown_module_proc = up_index(r, up_u32(r), p->nprocs, true);
}

static void
prof_unpack_tree(struct prof_unpack *r, struct prof_ctx *p)
{
    size_t n = up_count(r, 48), i;
    struct prof_tree *t = &p->tree;

    if (n == 0 && r->bad == NULL)
        r->bad = "no tree";
    prof_grow(&t->nodes, &t->cap, n + 1, sizeof(*t->nodes));
    for (i = 0; i < n && r->bad == NULL; i++) {
        struct prof_node *nd = &t->nodes[i];

        memset(nd, 0, sizeof(*nd));
        nd->parent = up_u32(r);
        if (i == 0)
            nd->parent = PROF_NONE;
        else
            nd->parent = up_index(r, nd->parent, i, false); /* parents first */
        nd->kind = up_u32(r);
        nd->proc = up_index(r, up_u32(r), p->nprocs, true);
        nd->file = up_index(r, up_u32(r), p->nfiles, true);
        nd->line = up_u32(r);
        nd->module = up_index(r, up_u32(r), p->nmodules, true);
        nd->offset = up_u64(r);
        nd->span = up_u32(r);
        nd->samples = up_u64(r);
        nd->calls = up_u64(r);
        t->n = i + 1;
        if (nd->kind != CSP_SCOPE_ROOT &&
            (nd->kind < CSP_SCOPE_PROC || nd->kind > CSP_SCOPE_STMT) && r->bad == NULL)
            r->bad = "a bad node kind";
    }
}

static void
prof_unpack_inputs(struct prof_unpack *r, struct prof_ctx *p)
{
    size_t n = up_count(r, 100), i, j;

    p->inputs = prof_xcalloc(n + 1, sizeof(*p->inputs));
    p->inputs_cap = n + 1;
    for (i = 0; i < n && r->bad == NULL; i++) {
        struct prof_input *in = &p->inputs[p->ninputs++];
        uint32_t flags;

        in->thread = in->process = PROF_NONE;
        in->path = up_str_nonnull(r);
        in->error = up_str(r);
        in->program = up_str(r);
        in->command = up_str(r);
        in->host = up_str(r);
        in->pid = up_u32(r);
        in->tid = up_u32(r);
        in->thread_index = up_u32(r);
        in->generation = up_u32(r);
        in->rank = (int32_t)up_u32(r);
        in->start_ns = up_u64(r);
        in->end_ns = up_u64(r);
        in->cpu_ns = up_u64(r);
        in->sampled_cpu_ns = up_u64(r);
        in->samples = up_u64(r);
        up_trust(r, &in->trust);
        in->nnodes = up_u64(r);
        in->run = up_u32(r);
        in->nextra = up_u32(r);
        flags = up_u32(r);
        in->merged = flags & 1;
        in->partial = (flags >> 1) & 1;
        in->ncontrib = up_count(r, 16);
        in->contrib_cap = in->ncontrib;
        in->contrib = prof_xcalloc(in->ncontrib + 1, sizeof(*in->contrib));
        for (j = 0; j < in->ncontrib && r->bad == NULL; j++) {
            struct prof_contrib *c = &in->contrib[j];

            c->node = up_index(r, up_u32(r), p->tree.n, false);
            c->event = up_u32(r);
            if (c->event != PROF_EV_SAMPLES)
                c->event = up_index(r, c->event, p->nevents, false);
            c->value = up_f64(r);
        }
    }
}

/*
 * Part @pt from buffer @buf; it must be part @lo .. @lo + @n of the main
 * context @g's inputs.  Returns 0, or PROF_EINVAL with the problem in
 * *@why (static text).
 */
static int
prof_part_unpack(struct prof_part *pt, const struct prof_ctx *g, size_t lo, size_t n,
                 const void *buf, size_t len, const char **why)
{
    struct prof_unpack r = {.buf = buf, .len = len};
    struct prof_ctx *p = &pt->ctx;
    size_t i, nextra = 0;

    prof_ctx_init(p, &g->cfg);
    if (up_u32(&r) != PROF_PART_MAGIC || up_u32(&r) != PROF_PART_VERSION) {
        *why = "not a part of this version of csprof";
        return PROF_EINVAL;
    }
    pt->lo = up_u64(&r);
    pt->n = up_u64(&r);
    if (pt->lo != lo || pt->n != n) {
        *why = "not the block of inputs this part should hold";
        return PROF_EINVAL;
    }
    prof_unpack_tables(&r, p);
    prof_unpack_tree(&r, p);
    prof_unpack_inputs(&r, p);
    p->nread = up_u64(&r);
    p->nskipped = up_u64(&r);
    p->npartial = up_u64(&r);
    p->ndamaged = up_u64(&r);
    p->unknown_samples = up_u64(&r);
    p->total_calls = up_u64(&r);
    n = up_count(&r, 12);
    p->stat_names = prof_xcalloc(n + 1, sizeof(*p->stat_names));
    p->stat_values = prof_xcalloc(n + 1, sizeof(*p->stat_values));
    for (i = 0; i < n && r.bad == NULL; i++) {
        p->stat_names[p->nstats] = up_str_nonnull(&r);
        p->stat_values[p->nstats++] = up_u64(&r);
    }
    n = up_count(&r, 12);
    p->msgs = prof_xcalloc(n + 1, sizeof(*p->msgs));
    p->msgs_cap = n + 1;
    for (i = 0; i < n && r.bad == NULL; i++) {
        struct prof_message *m = &p->msgs[p->nmsgs++];

        m->level = (enum prof_msg_level)(up_u32(&r) % 3);
        m->module = up_index(&r, up_u32(&r), p->nmodules, true);
        m->text = up_str_nonnull(&r);
    }
    if (r.bad == NULL && r.off != r.len)
        r.bad = "trailing bytes";
    if (r.bad == NULL && p->ninputs < pt->n)
        r.bad = "fewer inputs than its block";
    for (i = 0; i < pt->n && r.bad == NULL; i++) {
        if (strcmp(p->inputs[i].path, g->inputs[lo + i].path) != 0)
            r.bad = "inputs other than this context's";
        nextra += p->inputs[i].nextra;
    }
    if (r.bad == NULL && pt->n + nextra != p->ninputs)
        r.bad = "extra records that do not add up";
    if (r.bad == NULL &&
        (p->nread > pt->n || p->nskipped > pt->n - p->nread || p->npartial > p->ninputs))
        r.bad = "more files read than its block";
    if (r.bad == NULL && p->nstructs != g->nstructs)
        r.bad = "another set of structure files";
    *why = r.bad;
    return r.bad != NULL ? PROF_EINVAL : 0;
}

int
prof_merge_part_impl(struct prof_ctx *ctx, size_t part, size_t nparts, void **buf, size_t *len)
{
    jmp_buf env, *outer = prof_oom_env;
    struct prof_part *pt = calloc(1, sizeof(*pt));
    struct prof_pack *w = calloc(1, sizeof(*w));
    size_t n = ctx->ninputs;

    if (pt == NULL || w == NULL) {
        free(pt);
        free(w);
        return prof_nomem(ctx);
    }
    if (setjmp(env) != 0) {
        prof_oom_env = outer;
        prof_part_free(pt);
        free(pt);
        free(w->buf);
        free(w);
        longjmp(*outer, 1);
    }
    prof_oom_env = &env;
    prof_part_init(pt, ctx, part * n / nparts, (part + 1) * n / nparts);
    pt->ctx.cfg.jobs = ctx->cfg.jobs;
    prof_merge_inputs(&pt->ctx);
    prof_part_pack(pt, w);
    prof_oom_env = outer;
    *buf = w->buf;
    *len = w->len;
    prof_part_free(pt);
    free(pt);
    free(w);
    return 0;
}

int
prof_merge_parts_impl(struct prof_ctx *ctx, const void *const *bufs, const size_t *lens,
                      size_t nparts)
{
    jmp_buf env, *outer = prof_oom_env;
    struct prof_part *pt = prof_xcalloc(1, sizeof(*pt));
    size_t n = ctx->ninputs, i;
    const char *why = NULL;

    if (setjmp(env) != 0) {
        prof_oom_env = outer;
        prof_part_free(pt);
        free(pt);
        longjmp(*outer, 1);
    }
    prof_oom_env = &env;
    for (i = 0; i < nparts; i++) {
        if (prof_part_unpack(pt, ctx, i * n / nparts, (i + 1) * n / nparts - i * n / nparts,
                             bufs[i], lens[i], &why) < 0)
            break;
        prof_part_fold(ctx, pt);
        prof_part_free(pt);
    }
    prof_oom_env = outer;
    prof_part_free(pt);
    free(pt);
    if (i < nparts)
        return prof_fail(ctx, PROF_EINVAL, "part %zu of %zu: %s", i, nparts, why);
    if (nparts == 0)
        return prof_fail(ctx, PROF_EINVAL, "no part to merge");
    return prof_merge_end(ctx);
}
