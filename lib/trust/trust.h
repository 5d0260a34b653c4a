/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trust.h -- the trust report: how far a profile can be believed.
 *
 * One module computes, for csrun's summary, csprof-prof's database and the
 * report alike, where each sampled event's value went and what measuring
 * it cost:
 *
 *   - the ledger of each event: what it measured on a thread (CPU time for
 *     CPUTIME, wall time for REALTIME, the count of a perf event) split into
 *     disjoint parts that add up to it exactly: recorded in the calling-
 *     context tree (of which in the kernel), dropped by the handler, in the
 *     kernel where the event could not sample, after the last period
 *     boundary, not counted by the task clock, not delivered by a timer,
 *     in threads that ended with the sampling signal blocked, and the rest,
 *     not explained (signed: a negative rest means the counters claim more
 *     than was measured, a bug);
 *   - the cross-check of the counters with the tree (samples, values);
 *   - csprof's own CPU time in the sampling handler and the writer;
 *   - threads that could not be sampled, and why;
 *   - a verdict: trustworthy, or the one thing that makes the profile
 *     doubtful and what to do about it.
 *
 * The monitor keeps the ledger (lib/monitor/mon_internal.h, struct
 * mon_ledger) and writes it as counters event.NAME.{measured, recorded,
 * kernel, dropped, unplaced, tail}; share/schemas/measurement-format.md
 * defines them.  The rooted share of the samples needs procedure names: the
 * caller (csprof-prof) adds it with trust_run_set_rooted().
 *
 * Tool code: never linked into libcsprof.so.  Nothing here prints except
 * trust_print(); nothing allocates.  [not async-signal-safe]
 */
#ifndef CSP_TRUST_H
#define CSP_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fmt/fmt.h"

#define TRUST_MAX_EVENTS  8 /* as the monitor's MON_MAX_EVENTS */
#define TRUST_MAX_NOTABLE 8 /* threads kept by trust_run_add for the report */
#define TRUST_MAX_STOPS   4 /* modules where incomplete call paths stop, kept */

/* What an event measures. */
enum trust_kind {
    TRUST_CPU_TIME = 0, /* CPUTIME: the thread's CPU time, ns */
    TRUST_WALL_TIME,    /* REALTIME: the thread's wall time, ns */
    TRUST_COUNT,        /* a perf event: its count (events) */
    TRUST_BYTES,        /* MEMALLOC, IO...: bytes, sampled synchronously (no ledger) */
};

/*
 * Where one event's value went, in its raw unit (ns or events).  By
 * construction measured = recorded + dropped + unplaced + tail + uncounted
 * + undelivered + blocked + unexplained.
 */
struct trust_ledger {
    uint64_t measured;    /* CPU time, wall time or count while sampling was armed */
    uint64_t recorded;    /* in the calling-context tree (the tree's own total) */
    uint64_t kernel;      /* of recorded: at [kernel] leaves (time in system calls, faults) */
    uint64_t dropped;     /* stood for by signals whose sample the handler dropped */
    uint64_t unplaced;    /* ended in the kernel, where a user-mode-only clock takes no sample */
    uint64_t tail;        /* after the last period boundary: no sample was due */
    uint64_t uncounted;   /* CPU time the task clock did not count (disabled between re-arms) */
    uint64_t undelivered; /* timer expirations whose signal never reached the handler */
    uint64_t blocked;     /* the rest, in threads that ended with the sampling signal blocked */
    int64_t unexplained;  /* the rest: measured minus everything above */
};

/* One event of one thread, or of many summed.  Strings are copies. */
struct trust_event {
    char name[128];     /* "CPUTIME" */
    char mechanism[64]; /* "perf-task-clock", "posix-timer"... (of the first thread) */
    char unit[16];      /* raw unit: "ns", "events", "bytes" */
    enum trust_kind kind;
    uint64_t period; /* in the raw unit; 0: sampled by frequency */
    bool has_ledger; /* the records carry its ledger (signal-driven, written by this csprof) */
    struct trust_ledger l;
    uint64_t samples;    /* samples recorded of this event (event.NAME.samples) */
    uint64_t tree_value; /* the tree's total of this event (recorded, when the counters agree) */
};

/*
 * One thread's record, judged.  Plain data (no pointers): csprof-prof
 * copies it between its parallel workers as bytes.
 */
struct trust_thread {
    uint32_t pid, tid, thread_index, generation;
    int32_t rank;
    char command[64];                      /* the program's base name */
    uint64_t cpu_ns;                       /* CPU time while sampling was armed */
    uint64_t wall_ns;                      /* wall time of the record */
    uint64_t samples;                      /* samples.recorded */
    uint64_t tree_samples;                 /* the tree's sample count */
    uint64_t dropped;                      /* samples.dropped.*, in samples */
    uint64_t drops[FMT_NDROP_REASONS + 1]; /* of those, by reason: fmt_drop_reasons, other */
    uint64_t unwind_stopped; /* samples.partial: walks that stopped before the thread entry */
    uint64_t handler_cpu_ns; /* the handler's CPU time (measured on a sample of the signals) */
    uint64_t writer_cpu_ns;  /* CPU time writing this thread's records */
    uint64_t signals;        /* sampling signals handled */
    uint64_t merged;         /* timer expirations merged into one signal (timer.overruns) */
    /* the trampoline (trampoline.*): returns it counted, samples that found it lost (a full
     * walk: longjmp, exceptions) or misplaced, returns to an unexpected address */
    uint64_t tramp_fired, tramp_lost, tramp_mismatch;
    bool blocked;    /* ended with the sampling signal blocked */
    bool fallback;   /* CPUTIME by the POSIX-timer fallback (no descriptor to spare) */
    bool checkpoint; /* only a checkpoint: the thread was cut off (killed run) */
    bool mismatch;   /* the tree and the counters disagree (see trust_thread_read) */
    uint32_t nevents;
    struct trust_event ev[TRUST_MAX_EVENTS];
};

/*
 * Judge the record @p: its counters, cross-checked against its tree, into
 * @t (overwritten).  A record whose tree sample count differs from
 * samples.recorded, or whose tree total of an event differs from the
 * ledger's recorded (or [kernel] total from its kernel), is a mismatch.
 * Returns 0, or -1 when @p is NULL.
 */
int trust_thread_read(const struct fmt_profile *p, struct trust_thread *t);

/* A thread the report names: the most doubtful ones. */
struct trust_note {
    struct trust_thread t;
    double weight; /* what made it notable, in samples: not explained, blocked, undelivered */
};

/* A whole run, or one process of it: trust_run_add() of each thread. */
struct trust_run {
    size_t threads, processes;
    size_t blocked_threads;  /* ended with the sampling signal blocked */
    size_t fallback_threads; /* CPUTIME by the POSIX-timer fallback */
    /* those threads' CPU time, and of it the first time event's recorded and undelivered
     * parts (raw unit): what the fallback costs, precisely */
    uint64_t fallback_cpu_ns, fallback_recorded, fallback_undelivered;
    size_t unsampled_threads;  /* CPU time for 20 periods or more and not one sample */
    size_t mismatched_threads; /* tree and counters disagree */
    size_t checkpoint_threads; /* only a checkpoint was written */
    uint64_t cpu_ns, samples, tree_samples, dropped, unwind_stopped;
    uint64_t drops[FMT_NDROP_REASONS + 1];
    uint64_t handler_cpu_ns, writer_cpu_ns, signals, merged;
    uint64_t tramp_fired, tramp_lost, tramp_mismatch;
    uint32_t nevents;
    struct trust_event ev[TRUST_MAX_EVENTS]; /* matched by name and period */
    size_t nnotable;
    struct trust_note notable[TRUST_MAX_NOTABLE]; /* most doubtful first */
    /* Set by trust_run_set_rooted (csprof-prof): samples whose call path starts at a thread
     * entry; of the others, where most of their paths stop. */
    bool rooted_known;
    uint64_t rooted, unjudged, judged_total;
    size_t nstops;
    struct {
        char module[128];
        uint64_t samples;
    } stops[TRUST_MAX_STOPS];
    uint32_t last_pid, last_generation; /* the previous thread's process (counting processes) */
};

/* An empty run.  */
void trust_run_init(struct trust_run *r);

/* Add thread @t to run @r. */
void trust_run_add(struct trust_run *r, const struct trust_thread *t);

/* The rooted share, from the database (csprof-prof's summary): @rooted of @total samples
 * start at a thread entry, @unjudged cannot be judged (no structure for their outermost
 * frame).  Then trust_run_add_stop() for the modules incomplete paths stop in. */
void trust_run_set_rooted(struct trust_run *r, uint64_t rooted, uint64_t unjudged, uint64_t total);
void trust_run_add_stop(struct trust_run *r, const char *module, uint64_t samples);

/* A verdict a person can act on. */
struct trust_verdict {
    bool trustworthy;
    char reason[256]; /* "" when trustworthy; else the one thing that makes it doubtful */
    char advice[256]; /* what to do about it ("" when trustworthy) */
    char caveat[256]; /* something true of a trustworthy profile worth knowing, or "" */
};

/*
 * Judge @r, in this order (the first that holds is the reason): a thread's
 * tree disagrees with its counters; more than 25 % of the CPU time in the
 * kernel without a calling context; more than 5 % of an event's value not
 * explained, or claimed twice; more than 5 % dropped; threads with CPU time
 * and no sample; more than 10 % blocked or not delivered by a timer; more
 * than 25 % in the threads' last periods; under 90 % of the judged samples
 * rooted at a thread entry; fewer than 100
 * samples' worth; csprof's handler and writer over 10 % of the CPU time.  Accuracy
 * first, precision last: docs/trust.md.
 */
void trust_judge(const struct trust_run *r, struct trust_verdict *v);

/* Event @e's ledger part @value in samples (value / period; 0 without a period). */
double trust_samples_of(const struct trust_event *e, double value);

/* csprof's handler and writer CPU time over the run's CPU time, in percent (-1 unknown). */
double trust_overhead_percent(const struct trust_run *r);

/*
 * The report as text, each line starting with @prefix ("csprof: ", "  "):
 * one summary line ("trust: trustworthy -- ...") and, unless @brief, the
 * ledger of each event in samples, csprof's overhead, the threads not
 * sampled and the notable threads, the rooted share when known.  With
 * @brief, the ledger lines are printed only for what is doubtful.
 */
void trust_print(FILE *out, const char *prefix, const struct trust_run *r,
                 const struct trust_verdict *v, bool brief);

/*
 * The report as one JSON object (share/schemas/report-json.md, "quality"):
 * verdict, reason, advice, caveat, events (each ledger part in the raw
 * unit and in samples), overhead, threads, call paths, drops, notable
 * threads.  Strings are JSON-escaped.
 */
void trust_print_json(FILE *out, const struct trust_run *r, const struct trust_verdict *v);

/* The ledgers as CSV: "event,part,value,samples" rows, after a "verdict" row. */
void trust_print_csv(FILE *out, const struct trust_run *r, const struct trust_verdict *v);

#endif /* CSP_TRUST_H */
