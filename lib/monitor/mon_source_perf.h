/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_source_perf.h -- the perf_event sources' per-thread state and hooks
 * (mon_source.h's mon_source_perf, and mon_source_task_clock: the task
 * clock, or a POSIX CPU-time timer for a thread short of descriptors).
 *
 * struct mon_perf_thread's fields are the perf sources': only source_perf.c,
 * source_perf_sig.c and source_task_clock_sig.c touch them
 * (test/check_layering.sh).  Everyone else goes through mon_source.h's
 * table or the functions below.
 */
#ifndef CSP_MON_SOURCE_PERF_H
#define CSP_MON_SOURCE_PERF_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "support/compiler.h"

struct mon_thread;
struct mon_charge;
struct mon_ledger;

/* One event's perf_event on one thread (struct mon_source_thread). */
struct mon_perf_thread {
    int fd;                            /* the event, -1 when none */
    struct perf_event_mmap_page *ring; /* its ring buffer (1 data page), NULL: read(2) instead */
    uint64_t enabled_ns, running_ns;   /* the event's enabled/running time at the last sample */
    uint64_t last; /* the count of the newest sample record consumed (the next record's events
                    * are counted from it) */
    /* task clock: the thread's CPU time when the event was opened, ns */
    uint64_t armed_cpu_ns;
    /* task clock: a POSIX CPU-time timer instead, no file descriptor to spare
     * (thread.timer_fallback) */
    bool timer_fallback;
};

/*
 * Overflows a perf event may signal before the handler re-arms it
 * (PERF_EVENT_IOC_REFRESH): the kernel disables the event after this many
 * and signals the last with si_code POLL_HUP, so at most this many signals
 * per event and thread are ever queued, and one ioctl(2) serves this many
 * samples.
 */
#define MON_PERF_REFRESH 64

/* Whether a perf task-clock event opens here (probe), sampling kernel mode too when
 * @kernel (perf_event_paranoid <= 1, or CAP_PERFMON).  [not async-signal-safe] */
bool mon_perf_task_clock_available(bool kernel);

/* @ev's event's descriptor on @td, -1 when it has none (a task clock that fell back to a
 * timer).  [async-signal-safe] */
CSP_SIGSAFE int mon_perf_fd(const struct mon_thread *td, uint32_t ev);
/* @ev's time enabled and counting on @td at its last sample (at its close, once closed):
 * running < enabled when the kernel multiplexed it.  [async-signal-safe] */
CSP_SIGSAFE void mon_perf_times(const struct mon_thread *td, uint32_t ev, uint64_t *enabled_ns,
                                uint64_t *running_ns);
/* Whether one of @td's task clocks fell back to a POSIX timer (thread.timer_fallback).
 * [async-signal-safe] */
CSP_SIGSAFE bool mon_task_clock_fell_back(const struct mon_thread *td);

/* The signal hooks (source_perf_sig.c, source_task_clock_sig.c; mon_source.h's struct
 * mon_source).  [async-signal-safe] */
CSP_SIGSAFE bool mon_perf_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si);
CSP_SIGSAFE void mon_perf_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si,
                                 struct mon_charge *c);
CSP_SIGSAFE void mon_perf_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out);
CSP_SIGSAFE void mon_task_clock_perf_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si,
                                            struct mon_charge *c);
/* @ev's count after the newest sample record consumed into @out's tail; returns the
 * event's count (0 when it cannot be read).  [async-signal-safe: a read(2)] */
CSP_SIGSAFE uint64_t mon_perf_ledger_tail(const struct mon_thread *td, uint32_t ev,
                                          struct mon_ledger *out);
/* The count of the newest sample record still waiting in @ev's ring (its signal never taken:
 * blocked, or still queued when sampling stopped), consuming them; the last one consumed
 * when none.  [async-signal-safe] */
CSP_SIGSAFE uint64_t mon_perf_drain(struct mon_thread *td, uint32_t ev);
CSP_SIGSAFE void mon_perf_rearm(struct mon_thread *td, uint32_t ev, const siginfo_t *si);
CSP_SIGSAFE bool mon_task_clock_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si);
CSP_SIGSAFE void mon_task_clock_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si,
                                       struct mon_charge *c);
CSP_SIGSAFE void mon_task_clock_ledger(const struct mon_thread *td, uint32_t ev,
                                       struct mon_ledger *out);

#endif /* CSP_MON_SOURCE_PERF_H */
