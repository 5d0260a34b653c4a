/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopjobs.c -- the worker pool that decodes every procedure of a module
 * (cfg.c) and rebuilds its subtree (loopnest.c).  Threads take procedures
 * off a shared counter; each has its own decoder and module arena, and a
 * procedure's subtree depends only on the procedure, so the output never
 * depends on the number of threads.  Decoding starts while the caller is
 * still adding statements (struct_recover_loops_start()).
 *
 * Tool code only; never prints.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "structure/loopnest.h"

/* ---- parallel decoding ------------------------------------------------------ */

struct struct_loop_job {
    struct struct_module *m;
    struct struct_proc_in *procs;
    size_t nprocs;
    const struct struct_cfg_env *env;
    bool do_normalize;
    long jobs;                /* threads in the second phase, the caller's included */
    struct struct_cfg *cfgs;  /* nprocs: CFGs decoded early (first phase) */
    bool *early;              /* nprocs: cfgs[i] was decoded early */
    pthread_t *tids;          /* first-phase threads */
    long nearly;              /* of which started */
    atomic_size_t next_early; /* next procedure to decode early */
    atomic_bool stop_early;   /* the caller is ready: first phase ends */
    atomic_size_t next;       /* next procedure of the second phase */
    atomic_int rc;
};

/* One second-phase thread's share: the job, the arena its scopes go to, its counts. */
struct worker_arg {
    struct struct_loop_job *j;
    struct arena *arena;
    struct struct_stats stats; /* over the procedures this thread decoded */
};

/* A decoder for the module's machine (x86-64 when the environment names none). */
static struct struct_decoder *
open_decoder(const struct struct_cfg_env *env)
{
    return env->machine != 0 ? struct_decoder_open(env->machine) : struct_decoder_new();
}

/*
 * First phase, while the caller still adds statements: decode procedures
 * in order and keep their CFGs.  Reads only ranges and entries, which the
 * caller does not change meanwhile.
 */
static void *
early_worker(void *arg)
{
    struct struct_loop_job *j = arg;
    struct struct_decoder *d = open_decoder(j->env);

    if (d == NULL) {
        atomic_store(&j->rc, STRUCT_EIO);
        return NULL;
    }
    while (!atomic_load(&j->stop_early) && atomic_load(&j->rc) == 0) {
        size_t i = atomic_fetch_add(&j->next_early, 1);
        const struct struct_scope *s;

        if (i >= j->nprocs)
            break;
        s = j->procs[i].scope;
        if (struct_cfg_build(d, j->env, s->ranges, s->nranges, j->procs[i].entry, &j->cfgs[i]) != 0)
            atomic_store(&j->rc, STRUCT_ENOMEM);
        j->early[i] = true; /* read after pthread_join; freed with the job either way */
    }
    struct_decoder_free(d);
    return NULL;
}

/*
 * Second phase: take procedures off the shared counter until none is
 * left: decode each (unless the first phase did), rebuild its subtree in
 * the thread's own arena (a procedure's subtree is touched by no other
 * thread), keep its counts and free its CFG.
 */
static void *
worker(void *arg)
{
    struct worker_arg *wa = arg;
    struct struct_loop_job *j = wa->j;
    struct struct_decoder *d = open_decoder(j->env);

    if (d == NULL) {
        atomic_store(&j->rc, STRUCT_EIO);
        return NULL;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        struct struct_scope *s;
        struct struct_cfg *c;
        int rc = 0;

        if (i >= j->nprocs || atomic_load(&j->rc) != 0)
            break;
        s = j->procs[i].scope;
        c = &j->cfgs[i];
        if (!j->early[i])
            rc = struct_cfg_build(d, j->env, s->ranges, s->nranges, j->procs[i].entry, c);
        if (rc == 0) {
            struct struct_stats *st = &wa->stats;

            st->procedures++;
            st->instructions += c->ninsns;
            st->loops += c->nloops;
            for (size_t l = 0; l < c->nloops; l++)
                st->irreducible += c->loops[l].irreducible;
            st->calls += c->ncalls;
            st->bad_bytes += c->bad_bytes;
            st->unresolved_jumps += c->unresolved_jumps;
            st->jump_tables += c->jump_tables;
            st->label_jumps += c->label_jumps;
            rc = struct_tree_restructure(wa->arena, s, c, j->env, j->do_normalize);
        }
        struct_cfg_free(c);
        if (rc != 0)
            atomic_store(&j->rc, STRUCT_ENOMEM);
    }
    struct_decoder_free(d);
    return NULL;
}

static void
job_free(struct struct_loop_job *j)
{
    if (j->cfgs != NULL)
        for (size_t i = 0; i < j->nprocs; i++)
            struct_cfg_free(&j->cfgs[i]);
    free(j->cfgs);
    free(j->early);
    free(j->tids);
    free(j);
}

int
struct_recover_loops_start(struct struct_module *m, struct struct_proc_in *procs, size_t nprocs,
                           const struct struct_cfg_env *env, const struct struct_options *opt,
                           struct struct_loop_job **out)
{
    struct struct_loop_job *j = calloc(1, sizeof(*j));
    long jobs = opt != NULL ? opt->jobs : 0;

    *out = NULL;
    if (j == NULL)
        return STRUCT_ENOMEM;
    if (jobs <= 0) {
        jobs = sysconf(_SC_NPROCESSORS_ONLN);
        if (jobs <= 0)
            jobs = 1;
    }
    if ((size_t)jobs > nprocs)
        jobs = nprocs > 0 ? (long)nprocs : 1;
    if (jobs > 256)
        jobs = 256;
    *j = (struct struct_loop_job){.m = m,
                                  .procs = procs,
                                  .nprocs = nprocs,
                                  .env = env,
                                  .do_normalize = opt == NULL || !opt->no_normalize,
                                  .jobs = jobs};
    j->cfgs = calloc(nprocs + 1, sizeof(*j->cfgs));
    j->early = calloc(nprocs + 1, sizeof(*j->early));
    if (j->cfgs == NULL || j->early == NULL) {
        job_free(j);
        return STRUCT_ENOMEM;
    }
    atomic_init(&j->next_early, 0);
    atomic_init(&j->stop_early, false);
    atomic_init(&j->next, 0);
    atomic_init(&j->rc, 0);
    if (jobs > 1) { /* the caller is busy until finish: jobs - 1 threads decode early */
        j->tids = malloc((size_t)(jobs - 1) * sizeof(*j->tids));
        if (j->tids != NULL)
            for (; j->nearly < jobs - 1; j->nearly++)
                if (pthread_create(&j->tids[j->nearly], NULL, early_worker, j) != 0)
                    break;
    }
    *out = j;
    return 0;
}

int
struct_recover_loops_finish(struct struct_loop_job *j, bool cancel)
{
    struct worker_arg *args = NULL;
    struct arena *arenas;
    pthread_t *tids = NULL;
    long started = 0, jobs;
    int rc;

    if (j == NULL)
        return 0;
    atomic_store(&j->stop_early, true);
    if (cancel)
        atomic_store(&j->rc, STRUCT_ENOMEM); /* any error: the caller reports its own */
    for (long i = 0; i < j->nearly; i++)
        pthread_join(j->tids[i], NULL);
    rc = atomic_load(&j->rc);
    if (rc != 0 || j->nprocs == 0)
        goto out;
    jobs = j->jobs;
    args = calloc((size_t)jobs, sizeof(*args));
    arenas = struct_module_arenas(j->m, (size_t)jobs);
    if (args == NULL || arenas == NULL) {
        rc = STRUCT_ENOMEM;
        goto out;
    }
    for (long i = 0; i < jobs; i++)
        args[i] = (struct worker_arg){.j = j, .arena = &arenas[i]};
    if (jobs > 1) {
        tids = malloc((size_t)jobs * sizeof(*tids));
        if (tids != NULL)
            for (; started < jobs - 1; started++)
                if (pthread_create(&tids[started], NULL, worker, &args[started + 1]) != 0)
                    break;
    }
    worker(&args[0]); /* the calling thread works too */
    for (long i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    rc = atomic_load(&j->rc);
    for (long i = 0; i < jobs && rc == 0; i++) {
        const struct struct_stats *st = &args[i].stats;
        struct struct_stats *ms = &j->m->stats;

        ms->procedures += st->procedures;
        ms->instructions += st->instructions;
        ms->loops += st->loops;
        ms->irreducible += st->irreducible;
        ms->calls += st->calls;
        ms->bad_bytes += st->bad_bytes;
        ms->unresolved_jumps += st->unresolved_jumps;
        ms->jump_tables += st->jump_tables;
        ms->label_jumps += st->label_jumps;
    }
out:
    free(args);
    job_free(j);
    return rc;
}
