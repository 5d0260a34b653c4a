/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trust.c -- the trust report (trust.h): each thread's ledger read from its
 * record and cross-checked with its tree, summed over a run, judged, and
 * printed.  Tool code.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt/fmt.h"
#include "support/text.h"
#include "trust/trust.h"

/* The counter @name of @p into *v; false when the record has none. */
static bool
stat_find(const struct fmt_profile *p, const char *name, uint64_t *v)
{
    for (uint32_t i = 0; i < p->nstats; i++)
        if (p->stats[i].name != NULL && strcmp(p->stats[i].name, name) == 0) {
            *v = p->stats[i].value;
            return true;
        }
    return false;
}

/* Counter event.@ev.@field of @p, 0 when absent; *found (if non-NULL) cleared when absent. */
static uint64_t
event_stat(const struct fmt_profile *p, const char *ev, const char *field, bool *found)
{
    char name[192];
    uint64_t v = 0;

    snprintf(name, sizeof(name), "event.%s.%s", ev, field);
    if (!stat_find(p, name, &v) && found != NULL)
        *found = false;
    return v;
}

/* @src into @dst (@size bytes), escaped (support/text.h): names come from measurement files
 * and binaries, and are printed. */
static void
copy(char *dst, size_t size, const char *src)
{
    char raw[256], esc[4 * sizeof(raw) + 1];

    size_t n;

    snprintf(raw, sizeof(raw), "%s", src != NULL ? src : "");
    text_escape(esc, raw);
    n = strlen(esc) < size ? strlen(esc) : size - 1; /* (size >= 1: the callers' arrays) */
    memcpy(dst, esc, n);
    dst[n] = '\0';
}

static enum trust_kind
kind_of(const char *name, const char *unit)
{
    if (strcmp(name, "CPUTIME") == 0)
        return TRUST_CPU_TIME;
    if (strcmp(name, "REALTIME") == 0)
        return TRUST_WALL_TIME;
    if (strcmp(unit, "bytes") == 0)
        return TRUST_BYTES;
    return TRUST_COUNT;
}

/*
 * Split what the monitor's counters leave of @e's measure (the remainder)
 * into the parts the thread's own facts explain: CPU time the task clock
 * did not count (its time enabled is less than the thread's CPU time),
 * a blocked sampling signal, a timer's expirations never delivered.
 */
static void
split_remainder(struct trust_event *e, const struct trust_thread *t, uint64_t pending,
                uint64_t enabled_ns, bool have_enabled)
{
    struct trust_ledger *l = &e->l;
    int64_t rem = (int64_t)l->measured - (int64_t)l->recorded - (int64_t)l->dropped -
                  (int64_t)l->unplaced - (int64_t)l->tail - (int64_t)pending;
    bool timer = t->fallback || strncmp(e->mechanism, "posix-timer", 11) == 0;

    l->undelivered = pending; /* sample records whose signal never came */
    if (e->kind == TRUST_CPU_TIME && !timer && have_enabled && rem > 0 &&
        l->measured > enabled_ns) {
        uint64_t u = l->measured - enabled_ns;

        l->uncounted = (int64_t)u < rem ? u : (uint64_t)rem;
        rem -= (int64_t)l->uncounted;
    }
    if (rem > 0 && timer) { /* expirations whose signal never came */
        l->undelivered += (uint64_t)rem;
        rem = 0;
    }
    if (t->blocked) { /* the thread blocked the signal: that is why */
        l->blocked = l->undelivered + l->uncounted + (rem > 0 ? (uint64_t)rem : 0);
        l->undelivered = l->uncounted = 0;
        rem = rem > 0 ? 0 : rem;
    }
    l->unexplained = rem;
}

int
trust_thread_read(const struct fmt_profile *p, struct trust_thread *t)
{
    uint64_t v, kernel_tree[TRUST_MAX_EVENTS] = {0}, timed = 0, timed_ns = 0;
    bool have_samples;

    memset(t, 0, sizeof(*t));
    if (p == NULL)
        return -1;
    t->pid = p->header.pid;
    t->tid = p->header.tid;
    t->thread_index = p->header.thread_index;
    t->generation = p->header.generation;
    t->rank = p->header.rank;
    copy(t->command, sizeof(t->command), text_basename(p->header.program));
    t->cpu_ns = fmt_profile_sampled_cpu_ns(p);
    t->wall_ns = p->header.end_ns > p->header.start_ns ? p->header.end_ns - p->header.start_ns : 0;
    have_samples = stat_find(p, "samples.recorded", &t->samples);
    stat_find(p, "samples.partial", &t->unwind_stopped);
    for (uint32_t i = 0; i < p->nstats; i++)
        if (p->stats[i].name != NULL && strncmp(p->stats[i].name, "samples.dropped.", 16) == 0) {
            int k = 0;

            while (k < FMT_NDROP_REASONS && strcmp(fmt_drop_reasons[k], p->stats[i].name + 16) != 0)
                k++;
            t->drops[k] += p->stats[i].value; /* (an unknown reason is "other") */
            t->dropped += p->stats[i].value;
        }
    stat_find(p, "handler.signals", &t->signals);
    stat_find(p, "handler.timed", &timed);
    stat_find(p, "handler.timed_cpu_ns", &timed_ns);
    stat_find(p, "handler.first_cpu_ns", &t->handler_cpu_ns); /* the first signal's, exact */
    if (timed > 0 && t->signals > 1) /* then one in MON_HANDLER_TIMED: scale them up */
        t->handler_cpu_ns +=
            (uint64_t)((double)timed_ns * (double)(t->signals - 1) / (double)timed);
    stat_find(p, "writer.cpu_ns", &t->writer_cpu_ns);
    stat_find(p, "timer.overruns", &t->merged);
    stat_find(p, "trampoline.fired", &t->tramp_fired);
    if (stat_find(p, "trampoline.lost", &v))
        t->tramp_lost += v;
    if (stat_find(p, "trampoline.misplaced", &v))
        t->tramp_lost += v;
    stat_find(p, "trampoline.return_mismatch", &t->tramp_mismatch);
    t->blocked = stat_find(p, "thread.sampling_blocked", &v) && v != 0;
    t->fallback = stat_find(p, "thread.timer_fallback", &v) && v != 0;
    t->checkpoint = (p->record_flags & FMT_RECORD_CHECKPOINT) != 0;

    t->nevents = p->nevents < TRUST_MAX_EVENTS ? p->nevents : TRUST_MAX_EVENTS;
    for (uint32_t i = 0; i < t->nevents; i++) {
        struct trust_event *e = &t->ev[i];
        const struct fmt_event *fe = &p->events[i];

        copy(e->name, sizeof(e->name), fe->name);
        copy(e->mechanism, sizeof(e->mechanism), fe->mechanism);
        copy(e->unit, sizeof(e->unit), fe->unit);
        e->kind = kind_of(e->name, e->unit);
        e->period = fe->period;
        e->samples = event_stat(p, e->name, "samples", NULL);
    }
    for (uint64_t n = 0; n < p->nnodes; n++) {
        const struct fmt_node *fn = &p->nodes[n];
        bool kernel = fn->kind == FMT_NODE_LEAF && fn->module == FMT_MODULE_NONE &&
                      fn->offset == FMT_KERNEL_OFFSET;

        t->tree_samples += fn->samples;
        for (uint32_t m = 0; m < fn->nmetrics; m++)
            if (fn->metrics[m].event < t->nevents) {
                t->ev[fn->metrics[m].event].tree_value += fn->metrics[m].value;
                if (kernel)
                    kernel_tree[fn->metrics[m].event] += fn->metrics[m].value;
            }
    }
    t->mismatch = have_samples && t->tree_samples != t->samples;
    for (uint32_t i = 0; i < t->nevents; i++) {
        struct trust_event *e = &t->ev[i];
        struct trust_ledger *l = &e->l;
        bool found = true, have_enabled = true;
        uint64_t enabled, pending;

        if (e->kind == TRUST_BYTES)
            continue;
        l->measured = event_stat(p, e->name, "measured", &found);
        l->recorded = event_stat(p, e->name, "recorded", &found);
        l->kernel = event_stat(p, e->name, "kernel", &found);
        l->dropped = event_stat(p, e->name, "dropped", &found);
        l->unplaced = event_stat(p, e->name, "unplaced", &found);
        l->tail = event_stat(p, e->name, "tail", &found);
        if (!found) { /* a record of an older csprof: no ledger */
            memset(l, 0, sizeof(*l));
            continue;
        }
        e->has_ledger = true;
        if (e->tree_value != l->recorded || kernel_tree[i] != l->kernel)
            t->mismatch = true;
        enabled = event_stat(p, e->name, "enabled_ns", &have_enabled);
        pending = event_stat(p, e->name, "pending", NULL);
        split_remainder(e, t, pending, enabled, have_enabled);
    }
    return 0;
}

void
trust_run_init(struct trust_run *r)
{
    memset(r, 0, sizeof(*r));
    r->last_pid = UINT32_MAX;
}

/* Event @e of the run, matched by name and period, added when new; NULL when full. */
static struct trust_event *
run_event(struct trust_run *r, const struct trust_event *e)
{
    for (uint32_t i = 0; i < r->nevents; i++)
        if (strcmp(r->ev[i].name, e->name) == 0 && r->ev[i].period == e->period)
            return &r->ev[i];
    if (r->nevents == TRUST_MAX_EVENTS)
        return NULL;
    r->ev[r->nevents] = *e;
    memset(&r->ev[r->nevents].l, 0, sizeof(r->ev[r->nevents].l));
    r->ev[r->nevents].samples = r->ev[r->nevents].tree_value = 0;
    r->ev[r->nevents].has_ledger = true;
    return &r->ev[r->nevents++];
}

static void
ledger_add(struct trust_ledger *a, const struct trust_ledger *b)
{
    a->measured += b->measured;
    a->recorded += b->recorded;
    a->kernel += b->kernel;
    a->dropped += b->dropped;
    a->unplaced += b->unplaced;
    a->tail += b->tail;
    a->uncounted += b->uncounted;
    a->undelivered += b->undelivered;
    a->blocked += b->blocked;
    a->unexplained += b->unexplained;
}

double
trust_samples_of(const struct trust_event *e, double value)
{
    return e->period > 0 ? value / (double)e->period : 0;
}

/* What makes @t doubtful, in samples of its first time event; 0 when nothing. */
static double
thread_weight(const struct trust_thread *t, bool unsampled)
{
    double w = 0;

    for (uint32_t i = 0; i < t->nevents && w == 0; i++) {
        const struct trust_event *e = &t->ev[i];
        int64_t u = e->l.unexplained < 0 ? -e->l.unexplained : e->l.unexplained;

        if (!e->has_ledger || e->period == 0)
            continue;
        w = trust_samples_of(e, (double)u + (double)e->l.blocked + (double)e->l.undelivered);
    }
    if (unsampled || t->mismatch)
        w += 1e9; /* always named */
    return w >= 1 ? w : 0;
}

void
trust_run_add(struct trust_run *r, const struct trust_thread *t)
{
    bool unsampled = false;
    double w;

    r->threads++;
    if (t->pid != r->last_pid || t->generation != r->last_generation)
        r->processes++;
    r->last_pid = t->pid;
    r->last_generation = t->generation;
    r->blocked_threads += t->blocked;
    r->fallback_threads += t->fallback;
    if (t->fallback) {
        r->fallback_cpu_ns += t->cpu_ns;
        for (uint32_t i = 0; i < t->nevents; i++)
            if (t->ev[i].has_ledger && t->ev[i].kind == TRUST_CPU_TIME) {
                r->fallback_recorded += t->ev[i].l.recorded;
                r->fallback_undelivered += t->ev[i].l.undelivered;
                break;
            }
    }
    r->mismatched_threads += t->mismatch;
    r->checkpoint_threads += t->checkpoint;
    r->cpu_ns += t->cpu_ns;
    r->samples += t->samples;
    r->tree_samples += t->tree_samples;
    r->dropped += t->dropped;
    for (int k = 0; k <= FMT_NDROP_REASONS; k++)
        r->drops[k] += t->drops[k];
    r->unwind_stopped += t->unwind_stopped;
    r->handler_cpu_ns += t->handler_cpu_ns;
    r->writer_cpu_ns += t->writer_cpu_ns;
    r->signals += t->signals;
    r->merged += t->merged;
    r->tramp_fired += t->tramp_fired;
    r->tramp_lost += t->tramp_lost;
    r->tramp_mismatch += t->tramp_mismatch;
    for (uint32_t i = 0; i < t->nevents; i++) {
        const struct trust_event *e = &t->ev[i];
        struct trust_event *re = run_event(r, e);

        if (e->kind == TRUST_CPU_TIME && e->period > 0 && t->cpu_ns >= 20 * e->period &&
            e->samples == 0)
            unsampled = true;
        if (re == NULL)
            continue;
        re->has_ledger = re->has_ledger && e->has_ledger;
        ledger_add(&re->l, &e->l);
        re->samples += e->samples;
        re->tree_value += e->tree_value;
    }
    r->unsampled_threads += unsampled;
    w = thread_weight(t, unsampled);
    if (w > 0) { /* keep the TRUST_MAX_NOTABLE heaviest, heaviest first */
        size_t k = r->nnotable < TRUST_MAX_NOTABLE ? r->nnotable++ : TRUST_MAX_NOTABLE - 1;

        if (k == TRUST_MAX_NOTABLE - 1 && r->nnotable == TRUST_MAX_NOTABLE &&
            r->notable[k].weight >= w)
            return;
        while (k > 0 && r->notable[k - 1].weight < w) {
            r->notable[k] = r->notable[k - 1];
            k--;
        }
        r->notable[k].t = *t;
        r->notable[k].weight = w;
    }
}

void
trust_run_set_rooted(struct trust_run *r, uint64_t rooted, uint64_t unjudged, uint64_t total)
{
    r->rooted_known = true;
    r->rooted = rooted;
    r->unjudged = unjudged;
    r->judged_total = total;
}

void
trust_run_add_stop(struct trust_run *r, const char *module, uint64_t samples)
{
    size_t k;

    for (k = 0; k < r->nstops; k++)
        if (strcmp(r->stops[k].module, module) == 0)
            break;
    if (k == r->nstops) {
        if (r->nstops == TRUST_MAX_STOPS)
            return;
        copy(r->stops[k].module, sizeof(r->stops[k].module), module);
        r->stops[k].samples = 0;
        r->nstops++;
    }
    r->stops[k].samples += samples;
    while (k > 0 && r->stops[k - 1].samples < r->stops[k].samples) {
        __typeof__(r->stops[0]) tmp = r->stops[k - 1];

        r->stops[k - 1] = r->stops[k];
        r->stops[k] = tmp;
        k--;
    }
}

double
trust_overhead_percent(const struct trust_run *r)
{
    if (r->cpu_ns == 0 || r->signals == 0)
        return -1;
    return 100.0 * (double)(r->handler_cpu_ns + r->writer_cpu_ns) / (double)r->cpu_ns;
}

static double
pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

/* The run's first time event with a ledger, or NULL. */
static const struct trust_event *
time_event(const struct trust_run *r)
{
    for (uint32_t i = 0; i < r->nevents; i++)
        if (r->ev[i].has_ledger && r->ev[i].period > 0 &&
            (r->ev[i].kind == TRUST_CPU_TIME || r->ev[i].kind == TRUST_WALL_TIME))
            return &r->ev[i];
    return NULL;
}

static const char *
measure_name(const struct trust_event *e)
{
    return e->kind == TRUST_CPU_TIME    ? "CPU time"
           : e->kind == TRUST_WALL_TIME ? "wall time"
                                        : "count";
}

void
trust_judge(const struct trust_run *r, struct trust_verdict *v)
{
    const struct trust_event *te = time_event(r);
    double over = trust_overhead_percent(r);

    double worth =
        te != NULL ? trust_samples_of(te, (double)te->l.recorded) : (double)r->tree_samples;
    int top = 0;

    memset(v, 0, sizeof(*v));
    v->trustworthy = false;
    if (r->mismatched_threads > 0) {
        snprintf(v->reason, sizeof(v->reason),
                 "%zu thread record(s) whose calling-context tree disagrees with its own "
                 "counters",
                 r->mismatched_threads);
        snprintf(v->advice, sizeof(v->advice),
                 "those threads' trees are incomplete: please report it as a csprof bug");
        return;
    }
    if (te != NULL && (double)te->l.unplaced > 0.25 * (double)te->l.measured) {
        snprintf(v->reason, sizeof(v->reason),
                 "%.1f%% of the CPU time was in the kernel, where the task clock samples user "
                 "mode only here: the profile holds the rest",
                 pct((double)te->l.unplaced, (double)te->l.measured));
        snprintf(v->advice, sizeof(v->advice),
                 "with CAP_PERFMON or perf_event_paranoid <= 1 that time is charged to [kernel] "
                 "below the system calls that spent it");
        return;
    }
    for (uint32_t i = 0; i < r->nevents; i++) {
        const struct trust_event *e = &r->ev[i];
        double m = (double)e->l.measured;

        if (!e->has_ledger || m <= 0)
            continue;
        if (e->l.unexplained > 0 && (double)e->l.unexplained > 0.05 * m) {
            snprintf(v->reason, sizeof(v->reason),
                     "%.1f%% of %s's %s (%.0f samples' worth) reached no sample, and no counter "
                     "explains it",
                     pct((double)e->l.unexplained, m), e->name, measure_name(e),
                     trust_samples_of(e, (double)e->l.unexplained));
            snprintf(v->advice, sizeof(v->advice),
                     "the profile may miss whole parts of the run: please report it as a "
                     "csprof bug, with csprof-prof --dump of the measurements");
            return;
        }
        if (e->l.unexplained < 0 && (double)-e->l.unexplained > 0.05 * m) {
            snprintf(v->reason, sizeof(v->reason),
                     "%s's counters account for %.1f%% more than it measured", e->name,
                     pct((double)-e->l.unexplained, m));
            snprintf(v->advice, sizeof(v->advice), "please report it as a csprof bug");
            return;
        }
        if ((double)e->l.dropped > 0.05 * m) {
            for (int k = 1; k <= FMT_NDROP_REASONS; k++)
                if (r->drops[k] > r->drops[top])
                    top = k;
            snprintf(v->reason, sizeof(v->reason),
                     "%.1f%% of %s's samples were dropped by csprof's handler (most: "
                     "samples.dropped.%s, %" PRIu64 ")",
                     pct((double)e->l.dropped, m), e->name,
                     top < FMT_NDROP_REASONS ? fmt_drop_reasons[top] : "(other)", r->drops[top]);
            snprintf(v->advice, sizeof(v->advice),
                     "docs/trust.md says what each reason means and what to do");
            return;
        }
    }
    if (r->unsampled_threads > 0) {
        snprintf(v->reason, sizeof(v->reason),
                 "%zu thread(s) with CPU time for 20 periods or more got no sample",
                 r->unsampled_threads);
        snprintf(v->advice, sizeof(v->advice),
                 "the threads are listed below; a thread that blocks csprof's signal (a raw "
                 "rt_sigprocmask) cannot be sampled");
        return;
    }
    for (uint32_t i = 0; i < r->nevents; i++) {
        const struct trust_event *e = &r->ev[i];
        double m = (double)e->l.measured;

        if (!e->has_ledger || m <= 0)
            continue;
        if ((double)e->l.blocked > 0.10 * m) {
            snprintf(v->reason, sizeof(v->reason),
                     "%.1f%% of %s's %s was in %zu thread(s) that ended with csprof's signal "
                     "blocked",
                     pct((double)e->l.blocked, m), e->name, measure_name(e), r->blocked_threads);
            snprintf(v->advice, sizeof(v->advice),
                     "those threads were not sampled: they block every signal with a raw "
                     "system call");
            return;
        }
        if ((double)e->l.undelivered > 0.10 * m) {
            snprintf(v->reason, sizeof(v->reason),
                     "%.1f%% of %s's %s was in timer periods whose signal never reached csprof "
                     "(a POSIX CPU-time timer fires at the scheduler tick)",
                     pct((double)e->l.undelivered, m), e->name, measure_name(e));
            snprintf(v->advice, sizeof(v->advice),
                     r->fallback_threads > 0
                         ? "threads short of file descriptors fell back to that timer: raise "
                           "the descriptor limit (ulimit -n)"
                         : "use the perf task clock (perf_event_paranoid <= 2), or a period "
                           "of a tick or more");
            return;
        }
    }
    if (te != NULL && (double)te->l.tail > 0.25 * (double)te->l.measured) {
        snprintf(v->reason, sizeof(v->reason),
                 "%.1f%% of the CPU time was in the threads' last periods, which ended with "
                 "their threads and no sample: threads of a few periods are under-represented",
                 pct((double)te->l.tail, (double)te->l.measured));
        snprintf(v->advice, sizeof(v->advice),
                 "sample more often: a period several times shorter than the threads' CPU time");
        return;
    }
    if (r->rooted_known && r->judged_total > r->unjudged) {
        double judged = (double)(r->judged_total - r->unjudged);

        if ((double)r->rooted < 0.90 * judged) {
            snprintf(v->reason, sizeof(v->reason),
                     "only %.1f%% of the samples have a complete call path (rooted at a thread "
                     "entry)%s%s",
                     pct((double)r->rooted, judged), r->nstops > 0 ? "; most others stop in " : "",
                     r->nstops > 0 ? r->stops[0].module : "");
            snprintf(v->advice, sizeof(v->advice),
                     "costs of callers are underestimated: give that module unwind information "
                     "(frame pointers or .eh_frame), or read the flat view");
            return;
        }
    }
    /* (a time event's samples' worth: a sleeping thread's timer merges its expirations into
     * few signals, each charged all of them at the one place the thread sleeps) */
    if (worth < 100) {
        snprintf(v->reason, sizeof(v->reason),
                 "only %.0f samples: too few to rank anything but the largest costs", worth);
        snprintf(v->advice, sizeof(v->advice),
                 "run longer, or sample more often (a shorter period: -e CPUTIME@1000)");
        return;
    }
    /* (over a run of little CPU time, as a sleeping REALTIME run, the handler's share says
     * nothing about the profile) */
    if (over > 10 && r->cpu_ns >= 100000000u) {
        snprintf(v->reason, sizeof(v->reason),
                 "csprof's handler and writer took %.1f%% of the CPU time", over);
        snprintf(v->advice, sizeof(v->advice), "sample less often (a longer period)");
        return;
    }
    v->trustworthy = true;
    if (te != NULL && (double)te->l.tail > 0.05 * (double)te->l.measured)
        snprintf(v->caveat, sizeof(v->caveat),
                 "%.1f%% of the CPU time was in the threads' last periods, which no sample ends: "
                 "short threads are under-represented by up to a period each",
                 pct((double)te->l.tail, (double)te->l.measured));
    else if (te != NULL && (double)te->l.unplaced > 0.05 * (double)te->l.measured)
        snprintf(v->caveat, sizeof(v->caveat),
                 "%.1f%% of the CPU time was in the kernel and is in no calling context: the "
                 "task clock samples user mode only here (perf_event_paranoid > 1); with "
                 "CAP_PERFMON or perf_event_paranoid <= 1 it is charged to [kernel] below the "
                 "system call",
                 pct((double)te->l.unplaced, (double)te->l.measured));
}

/* "2.878 s" or "12345 events" for @e's raw @value. */
static void
amount(char *buf, size_t len, const struct trust_event *e, double value)
{
    if (strcmp(e->unit, "ns") == 0)
        snprintf(buf, len, "%.3f s", value / 1e9);
    else
        snprintf(buf, len, "%.0f %s", value, e->unit);
}

/* Text lines stay within this many columns, the prefix included (as csprof's summaries). */
#define TRUST_WIDTH 100

/*
 * Print @text after @prefix and @lead, breaking it between words so that no
 * line is wider than TRUST_WIDTH; continuation lines start with @prefix and
 * @cont.  A word longer than a line is printed whole.
 */
static void
wrap(FILE *out, const char *prefix, const char *lead, const char *cont, const char *text)
{
    size_t col = strlen(prefix) + strlen(lead);
    bool first_word = true;

    fprintf(out, "%s%s", prefix, lead);
    while (*text != '\0') {
        size_t n = strcspn(text, " ");

        if (!first_word && col + 1 + n > TRUST_WIDTH) {
            fprintf(out, "\n%s%s", prefix, cont);
            col = strlen(prefix) + strlen(cont);
            first_word = true;
        }
        if (!first_word) {
            fputc(' ', out);
            col++;
        }
        fwrite(text, 1, n, out);
        col += n;
        first_word = false;
        text += n;
        while (*text == ' ')
            text++;
    }
    fputc('\n', out);
}

/* Append to @buf (@len bytes, NUL-terminated) as printf does. */
static void addf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
addf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void
print_ledger(FILE *out, const char *prefix, const struct trust_event *e)
{
    const struct trust_ledger *l = &e->l;
    char total[64], line[1024] = "";

    amount(total, sizeof(total), e, (double)l->measured);
    if (e->period == 0) { /* by frequency: no samples' worth, values only */
        addf(line, sizeof(line), "%s (%s): %s measured, %.1f%% recorded, %.1f%% dropped", e->name,
             e->mechanism, total, pct((double)l->recorded, (double)l->measured),
             pct((double)l->dropped, (double)l->measured));
        wrap(out, prefix, "  ", "      ", line);
        return;
    }
    addf(line, sizeof(line),
         "%s@%" PRIu64 " (%s): %s measured, %.1f samples' worth: %.1f recorded (%.1f of them in "
         "the kernel), %.1f dropped, %.1f in the kernel without a calling context, %.1f after "
         "the last period, %.1f not counted by the task clock, %.1f not delivered, %.1f in "
         "blocked threads, %.1f not explained",
         e->name, e->kind == TRUST_COUNT ? e->period : e->period / 1000, e->mechanism, total,
         trust_samples_of(e, (double)l->measured), trust_samples_of(e, (double)l->recorded),
         trust_samples_of(e, (double)l->kernel), trust_samples_of(e, (double)l->dropped),
         trust_samples_of(e, (double)l->unplaced), trust_samples_of(e, (double)l->tail),
         trust_samples_of(e, (double)l->uncounted), trust_samples_of(e, (double)l->undelivered),
         trust_samples_of(e, (double)l->blocked), trust_samples_of(e, (double)l->unexplained));
    wrap(out, prefix, "  ", "      ", line);
}

void
trust_print(FILE *out, const char *prefix, const struct trust_run *r, const struct trust_verdict *v,
            bool brief)
{
    const struct trust_event *te = time_event(r);
    double over = trust_overhead_percent(r);
    char line[1024] = "";

    if (v->trustworthy) {
        fprintf(out, "%strust: %s\n", prefix,
                r->rooted_known ? "trustworthy" : "measurement trustworthy");
    } else {
        wrap(out, prefix, "trust: DOUBTFUL: ", "    ", v->reason);
        wrap(out, prefix, "  what to do: ", "      ", v->advice);
    }
    addf(line, sizeof(line), "%" PRIu64 " samples", r->tree_samples);
    if (te != NULL)
        addf(line, sizeof(line), "; %.1f%% of %s's %s recorded, %.1f%% of it in the kernel",
             pct((double)te->l.recorded, (double)te->l.measured), te->name, measure_name(te),
             pct((double)te->l.kernel, (double)te->l.recorded));
    /* (a share of a run of little CPU time, as a sleeping REALTIME run's, reads as an alarm
     * and says nothing: the time itself then, as the verdict's threshold above) */
    if (over >= 0 && r->cpu_ns >= 100000000u)
        addf(line, sizeof(line), "; csprof's handler and writer %.2f%% of the CPU time", over);
    else if (over >= 0)
        addf(line, sizeof(line), "; csprof's handler and writer %.3f ms of %.3f ms of CPU time",
             (double)over / 100 * (double)r->cpu_ns / 1e6, (double)r->cpu_ns / 1e6);
    if (!r->rooted_known)
        addf(line, sizeof(line), " (csprof-prof judges the call paths)");
    wrap(out, prefix, "  ", "    ", line);
    if (v->trustworthy && v->caveat[0] != '\0')
        wrap(out, prefix, "  note: ", "    ", v->caveat);
    if (brief && v->trustworthy)
        return;
    for (uint32_t i = 0; i < r->nevents; i++)
        if (r->ev[i].has_ledger) {
            print_ledger(out, prefix, &r->ev[i]);
        } else {
            line[0] = '\0';
            addf(line, sizeof(line), "%s (%s): %" PRIu64 " samples", r->ev[i].name,
                 r->ev[i].mechanism, r->ev[i].samples);
            wrap(out, prefix, "  ", "      ", line);
        }
    if (over >= 0) {
        line[0] = '\0';
        addf(line, sizeof(line),
             "overhead: csprof's handler %.3f ms (%.2f us per signal, timed on a sample of %" PRIu64
             " signals), its writer %.3f ms: %.2f%% of %.3f CPU-s",
             (double)r->handler_cpu_ns / 1e6,
             r->signals > 0 ? (double)r->handler_cpu_ns / 1e3 / (double)r->signals : 0, r->signals,
             (double)r->writer_cpu_ns / 1e6, over, (double)r->cpu_ns / 1e9);
        wrap(out, prefix, "  ", "      ", line);
    }
    line[0] = '\0';
    addf(line, sizeof(line),
         "threads: %zu in %zu process(es); %zu with CPU time and no sample, %zu ended with the "
         "sampling signal blocked, %zu on the POSIX-timer fallback",
         r->threads, r->processes, r->unsampled_threads, r->blocked_threads, r->fallback_threads);
    if (r->fallback_threads > 0)
        addf(line, sizeof(line),
             " (no descriptor to spare for the task clock: %.3f CPU-s, %.3f s of it recorded, "
             "%.3f s not delivered: the timer fires at the scheduler tick)",
             (double)r->fallback_cpu_ns / 1e9, (double)r->fallback_recorded / 1e9,
             (double)r->fallback_undelivered / 1e9);
    addf(line, sizeof(line),
         ", %zu cut off (checkpoint only), %zu whose tree disagrees with its counters",
         r->checkpoint_threads, r->mismatched_threads);
    wrap(out, prefix, "  ", "      ", line);
    if (r->rooted_known) {
        line[0] = '\0';
        addf(line, sizeof(line),
             "call paths: %.1f%% of %" PRIu64 " samples rooted at a thread entry",
             pct((double)r->rooted, (double)(r->judged_total - r->unjudged)),
             r->judged_total - r->unjudged);
        for (size_t k = 0; k < r->nstops; k++)
            addf(line, sizeof(line), "%s%s %" PRIu64, k == 0 ? "; the others stop in: " : ", ",
                 r->stops[k].module, r->stops[k].samples);
        if (r->unjudged > 0)
            addf(line, sizeof(line), " (%" PRIu64 " samples cannot be judged)", r->unjudged);
        if (r->judged_total - r->unjudged > r->rooted)
            addf(line, sizeof(line),
                 "; the walk itself reported %" PRIu64 " samples stopped early (the others "
                 "ended where unwind information was missing or wrong, unnoticed)",
                 r->unwind_stopped);
        wrap(out, prefix, "  ", "      ", line);
    }
    if (r->tramp_fired + r->tramp_lost + r->tramp_mismatch > 0) {
        line[0] = '\0';
        addf(line, sizeof(line),
             "trampoline: %" PRIu64 " returns counted (the call counts), %" PRIu64
             " samples found it lost or misplaced (longjmp, exceptions, context switches: a "
             "full walk each), %" PRIu64 " returns to an unexpected address",
             r->tramp_fired, r->tramp_lost, r->tramp_mismatch);
        wrap(out, prefix, "  ", "      ", line);
    }
    for (size_t k = 0; k < r->nnotable; k++) {
        const struct trust_thread *t = &r->notable[k].t;
        const struct trust_event *e = t->nevents > 0 ? &t->ev[0] : NULL;

        line[0] = '\0';
        addf(line, sizeof(line),
             "thread %s pid %" PRIu32 " #%" PRIu32 ": %.3f CPU-s, %" PRIu64 " samples%s%s%s",
             t->command, t->pid, t->thread_index, (double)t->cpu_ns / 1e9, t->samples,
             t->blocked ? ", ended with the sampling signal blocked" : "",
             t->fallback ? ", POSIX-timer fallback" : "",
             t->mismatch ? ", tree disagrees with its counters" : "");
        if (e != NULL && e->has_ledger && e->period > 0)
            addf(line, sizeof(line),
                 "; %.1f samples' worth not delivered, %.1f blocked, %.1f not explained",
                 trust_samples_of(e, (double)e->l.undelivered),
                 trust_samples_of(e, (double)e->l.blocked),
                 trust_samples_of(e, (double)e->l.unexplained));
        wrap(out, prefix, "  ", "      ", line);
    }
}

/* @s as a JSON string. */
static void
json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* The ledger's parts, in order: name and value (raw unit, signed). */
struct part {
    const char *name;
    double value;
};

static size_t
ledger_parts(const struct trust_ledger *l, struct part *p)
{
    size_t n = 0;

    p[n++] = (struct part){"measured", (double)l->measured};
    p[n++] = (struct part){"recorded", (double)l->recorded};
    p[n++] = (struct part){"kernel", (double)l->kernel};
    p[n++] = (struct part){"dropped", (double)l->dropped};
    p[n++] = (struct part){"unplaced", (double)l->unplaced};
    p[n++] = (struct part){"tail", (double)l->tail};
    p[n++] = (struct part){"uncounted", (double)l->uncounted};
    p[n++] = (struct part){"undelivered", (double)l->undelivered};
    p[n++] = (struct part){"blocked", (double)l->blocked};
    p[n++] = (struct part){"unexplained", (double)l->unexplained};
    return n;
}

void
trust_print_json(FILE *out, const struct trust_run *r, const struct trust_verdict *v)
{
    struct part parts[10];
    double over = trust_overhead_percent(r);

    fprintf(out, "{\"view\": \"quality\", \"verdict\": ");
    json_str(out, v->trustworthy ? "trustworthy" : "doubtful");
    fprintf(out, ", \"reason\": ");
    json_str(out, v->reason);
    fprintf(out, ", \"advice\": ");
    json_str(out, v->advice);
    fprintf(out, ", \"caveat\": ");
    json_str(out, v->caveat);
    fprintf(out, ",\n \"events\": [");
    for (uint32_t i = 0; i < r->nevents; i++) {
        const struct trust_event *e = &r->ev[i];
        size_t n = ledger_parts(&e->l, parts);

        fprintf(out, "%s\n  {\"event\": ", i ? "," : "");
        json_str(out, e->name);
        fprintf(out, ", \"unit\": ");
        json_str(out, e->unit);
        fprintf(out, ", \"mechanism\": ");
        json_str(out, e->mechanism);
        fprintf(out, ", \"period\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"ledger\": ", e->period,
                e->samples);
        if (!e->has_ledger) {
            fprintf(out, "null}");
            continue;
        }
        fprintf(out, "{");
        for (size_t k = 0; k < n; k++)
            fprintf(out, "%s\"%s\": {\"value\": %.0f, \"samples\": %.3f}", k ? ", " : "",
                    parts[k].name, parts[k].value, trust_samples_of(e, parts[k].value));
        fprintf(out, "}}");
    }
    fprintf(out,
            "],\n \"overhead\": {\"cpu_ns\": %" PRIu64 ", \"handler_cpu_ns\": %" PRIu64
            ", \"writer_cpu_ns\": %" PRIu64 ", \"signals\": %" PRIu64 ", \"percent\": ",
            r->cpu_ns, r->handler_cpu_ns, r->writer_cpu_ns, r->signals);
    if (over >= 0)
        fprintf(out, "%.3f}", over);
    else
        fprintf(out, "null}");
    fprintf(out,
            ",\n \"threads\": {\"threads\": %zu, \"processes\": %zu, \"unsampled\": %zu, "
            "\"blocked\": %zu, \"fallback\": %zu, \"checkpoint\": %zu, \"mismatched\": %zu}",
            r->threads, r->processes, r->unsampled_threads, r->blocked_threads, r->fallback_threads,
            r->checkpoint_threads, r->mismatched_threads);
    fprintf(out,
            ",\n \"trampoline\": {\"fired\": %" PRIu64 ", \"lost\": %" PRIu64
            ", \"return_mismatch\": %" PRIu64 "}",
            r->tramp_fired, r->tramp_lost, r->tramp_mismatch);
    fprintf(out, ",\n \"call_paths\": ");
    if (!r->rooted_known) {
        fprintf(out, "null");
    } else {
        fprintf(out,
                "{\"samples\": %" PRIu64 ", \"rooted\": %" PRIu64 ", \"unjudged\": %" PRIu64
                ", \"unwind_stopped\": %" PRIu64 ", \"stopped_in\": [",
                r->judged_total, r->rooted, r->unjudged, r->unwind_stopped);
        for (size_t k = 0; k < r->nstops; k++) {
            fprintf(out, "%s{\"module\": ", k ? ", " : "");
            json_str(out, r->stops[k].module);
            fprintf(out, ", \"samples\": %" PRIu64 "}", r->stops[k].samples);
        }
        fprintf(out, "]}");
    }
    fprintf(out, ",\n \"dropped\": {");
    for (int k = 0, first = 1; k <= FMT_NDROP_REASONS; k++)
        if (r->drops[k] > 0) {
            fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ",
                    k < FMT_NDROP_REASONS ? fmt_drop_reasons[k] : "other", r->drops[k]);
            first = 0;
        }
    fprintf(out, "},\n \"notable_threads\": [");
    for (size_t k = 0; k < r->nnotable; k++) {
        const struct trust_thread *t = &r->notable[k].t;

        fprintf(out,
                "%s\n  {\"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"thread_index\": %" PRIu32
                ", \"command\": ",
                k ? "," : "", t->pid, t->tid, t->thread_index);
        json_str(out, t->command);
        fprintf(out,
                ", \"cpu_ns\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"blocked\": %s, "
                "\"fallback\": %s, \"checkpoint\": %s, \"mismatch\": %s",
                t->cpu_ns, t->samples, t->blocked ? "true" : "false",
                t->fallback ? "true" : "false", t->checkpoint ? "true" : "false",
                t->mismatch ? "true" : "false");
        if (t->nevents > 0 && t->ev[0].has_ledger) {
            fprintf(out, ", \"event\": ");
            json_str(out, t->ev[0].name);
            fprintf(out,
                    ", \"undelivered\": %" PRIu64 ", \"blocked_value\": %" PRIu64
                    ", \"unexplained\": %" PRId64,
                    t->ev[0].l.undelivered, t->ev[0].l.blocked, t->ev[0].l.unexplained);
        }
        fprintf(out, "}");
    }
    fprintf(out, "]}\n");
}

void
trust_print_csv(FILE *out, const struct trust_run *r, const struct trust_verdict *v)
{
    struct part parts[10];

    fprintf(out, "event,part,value,samples\n");
    fprintf(out, ",verdict,%s,\n", v->trustworthy ? "trustworthy" : "doubtful");
    for (uint32_t i = 0; i < r->nevents; i++) {
        const struct trust_event *e = &r->ev[i];
        size_t n = ledger_parts(&e->l, parts);

        if (!e->has_ledger) {
            fprintf(out, "%s,samples,%" PRIu64 ",%" PRIu64 "\n", e->name, e->samples, e->samples);
            continue;
        }
        for (size_t k = 0; k < n; k++)
            fprintf(out, "%s,%s,%.0f,%.3f\n", e->name, parts[k].name, parts[k].value,
                    trust_samples_of(e, parts[k].value));
    }
    if (trust_overhead_percent(r) >= 0)
        fprintf(out, ",overhead-percent,%.3f,\n", trust_overhead_percent(r));
}
