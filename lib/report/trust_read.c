/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trust_read.c -- the database's trust report (Summary/Trust, share/schemas/
 * experiment.dtd) read back into lib/trust's structures, so that
 * csprof-report prints it with the same code csprof-prof and csrun use.
 * Tool code.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "trust/trust.h"

/* Attribute @name of summary element @e, or NULL. */
static const char *
attr(const struct rpt_summary_el *e, const char *name)
{
    for (int i = 0; i < e->nattrs; i++)
        if (strcmp(e->attrs[2 * i], name) == 0)
            return e->attrs[2 * i + 1];
    return NULL;
}

static uint64_t
attr_u64(const struct rpt_summary_el *e, const char *name)
{
    const char *v = attr(e, name);

    return v != NULL ? strtoull(v, NULL, 10) : 0;
}

static int64_t
attr_i64(const struct rpt_summary_el *e, const char *name)
{
    const char *v = attr(e, name);

    return v != NULL ? strtoll(v, NULL, 10) : 0;
}

static bool
attr_flag(const struct rpt_summary_el *e, const char *name)
{
    const char *v = attr(e, name);

    return v != NULL && strcmp(v, "1") == 0;
}

static void
copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

static enum trust_kind
kind_of(const char *name, const char *unit)
{
    if (strcmp(name, "CPUTIME") == 0)
        return TRUST_CPU_TIME;
    if (strcmp(name, "REALTIME") == 0)
        return TRUST_WALL_TIME;
    return strcmp(unit, "bytes") == 0 ? TRUST_BYTES : TRUST_COUNT;
}

static void
read_ledger(const struct rpt_summary_el *e, struct trust_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    copy(ev->name, sizeof(ev->name), attr(e, "event"));
    copy(ev->unit, sizeof(ev->unit), attr(e, "unit"));
    copy(ev->mechanism, sizeof(ev->mechanism), attr(e, "mechanism"));
    ev->kind = kind_of(ev->name, ev->unit);
    ev->period = attr_u64(e, "period");
    ev->samples = attr_u64(e, "samples");
    ev->has_ledger = attr(e, "measured") != NULL;
    ev->l.measured = attr_u64(e, "measured");
    ev->l.recorded = attr_u64(e, "recorded");
    ev->l.kernel = attr_u64(e, "kernel");
    ev->l.dropped = attr_u64(e, "dropped");
    ev->l.unplaced = attr_u64(e, "unplaced");
    ev->l.tail = attr_u64(e, "tail");
    ev->l.uncounted = attr_u64(e, "uncounted");
    ev->l.undelivered = attr_u64(e, "undelivered");
    ev->l.blocked = attr_u64(e, "blocked");
    ev->l.unexplained = attr_i64(e, "unexplained");
    ev->tree_value = ev->l.recorded;
}

static void
read_verdict(const struct rpt_summary_el *e, struct trust_verdict *v)
{
    const char *verdict = attr(e, "verdict");

    memset(v, 0, sizeof(*v));
    v->trustworthy = verdict != NULL && strcmp(verdict, "trustworthy") == 0;
    copy(v->reason, sizeof(v->reason), attr(e, "reason"));
    copy(v->advice, sizeof(v->advice), attr(e, "advice"));
    copy(v->caveat, sizeof(v->caveat), attr(e, "caveat"));
}

static void
read_thread(const struct rpt_summary_el *e, struct trust_thread *t)
{
    memset(t, 0, sizeof(*t));
    t->pid = (uint32_t)attr_u64(e, "pid");
    t->tid = (uint32_t)attr_u64(e, "tid");
    t->thread_index = (uint32_t)attr_u64(e, "thread-index");
    copy(t->command, sizeof(t->command), attr(e, "command"));
    t->cpu_ns = attr_u64(e, "cpu-ns");
    t->samples = attr_u64(e, "samples");
    t->tree_samples = attr(e, "tree-samples") != NULL ? attr_u64(e, "tree-samples") : t->samples;
    t->blocked = attr_flag(e, "blocked");
    t->fallback = attr_flag(e, "fallback");
    t->checkpoint = attr_flag(e, "checkpoint");
    t->mismatch = attr_flag(e, "mismatch");
    if (attr(e, "event") != NULL) {
        t->nevents = 1;
        copy(t->ev[0].name, sizeof(t->ev[0].name), attr(e, "event"));
        t->ev[0].has_ledger = true;
        t->ev[0].l.undelivered = attr_u64(e, "undelivered");
        t->ev[0].l.blocked = attr_u64(e, "blocked-value");
        t->ev[0].l.unexplained = attr_i64(e, "unexplained");
    }
}

int
rpt_db_trust(const struct rpt_db *db, struct trust_run *r, struct trust_verdict *v)
{
    size_t i, top = 0;
    int depth = -1;

    trust_run_init(r);
    memset(v, 0, sizeof(*v));
    for (i = 0; i < db->nsummary; i++)
        if (strcmp(db->summary[i].el, "Trust") == 0) {
            depth = db->summary[i].depth;
            top = i;
            break;
        }
    if (depth < 0)
        return RPT_ENOENT;
    read_verdict(&db->summary[top], v);
    for (i = top + 1; i < db->nsummary && db->summary[i].depth > depth; i++) {
        const struct rpt_summary_el *e = &db->summary[i];

        if (e->depth != depth + 1 && strcmp(e->el, "StoppedIn") != 0)
            continue; /* (a Process's own Ledger rows) */
        if (strcmp(e->el, "Ledger") == 0 && r->nevents < TRUST_MAX_EVENTS) {
            read_ledger(e, &r->ev[r->nevents++]);
        } else if (strcmp(e->el, "Overhead") == 0) {
            r->cpu_ns = attr_u64(e, "cpu-ns");
            r->handler_cpu_ns = attr_u64(e, "handler-cpu-ns");
            r->writer_cpu_ns = attr_u64(e, "writer-cpu-ns");
            r->signals = attr_u64(e, "signals");
        } else if (strcmp(e->el, "Threads") == 0) {
            r->threads = attr_u64(e, "threads");
            r->processes = attr_u64(e, "processes");
            r->unsampled_threads = attr_u64(e, "unsampled");
            r->blocked_threads = attr_u64(e, "blocked");
            r->fallback_threads = attr_u64(e, "fallback");
            r->fallback_cpu_ns = attr_u64(e, "fallback-cpu-ns");
            r->fallback_recorded = attr_u64(e, "fallback-recorded");
            r->fallback_undelivered = attr_u64(e, "fallback-undelivered");
            r->checkpoint_threads = attr_u64(e, "checkpoint");
            r->mismatched_threads = attr_u64(e, "mismatched");
        } else if (strcmp(e->el, "Trampoline") == 0) {
            r->tramp_fired = attr_u64(e, "fired");
            r->tramp_lost = attr_u64(e, "lost");
            r->tramp_mismatch = attr_u64(e, "return-mismatch");
        } else if (strcmp(e->el, "CallPaths") == 0) {
            trust_run_set_rooted(r, attr_u64(e, "rooted"), attr_u64(e, "unjudged"),
                                 attr_u64(e, "samples"));
            r->tree_samples = attr_u64(e, "samples");
            r->unwind_stopped = attr_u64(e, "unwind-stopped");
        } else if (strcmp(e->el, "StoppedIn") == 0 && e->depth == depth + 2) {
            trust_run_add_stop(r, attr(e, "module") != NULL ? attr(e, "module") : "?",
                               attr_u64(e, "samples"));
        } else if (strcmp(e->el, "Drop") == 0) {
            const char *why = attr(e, "reason");
            int k = 0;

            while (k < FMT_NDROP_REASONS && (why == NULL || strcmp(why, fmt_drop_reasons[k]) != 0))
                k++;
            r->drops[k] += attr_u64(e, "samples");
            r->dropped += attr_u64(e, "samples");
        } else if (strcmp(e->el, "Thread") == 0 && r->nnotable < TRUST_MAX_NOTABLE) {
            read_thread(e, &r->notable[r->nnotable].t);
            r->notable[r->nnotable++].weight = 1;
        }
    }
    /* A notable thread's event has the period and unit of the run's ledger of that event. */
    for (size_t k = 0; k < r->nnotable; k++) {
        struct trust_event *te = &r->notable[k].t.ev[0];

        for (uint32_t j = 0; r->notable[k].t.nevents > 0 && j < r->nevents; j++)
            if (strcmp(r->ev[j].name, te->name) == 0) {
                te->period = r->ev[j].period;
                te->kind = r->ev[j].kind;
                memcpy(te->unit, r->ev[j].unit, sizeof(te->unit));
                break;
            }
    }
    return RPT_OK;
}
