/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sample_sig.c -- the sampling signal path: from the kernel's ucontext to a
 * CCT leaf.
 *
 * Everything in this file runs in signal context.  Allowed here: the
 * per-thread arena, lib/unwind, lib/cct insertion, atomics, raw syscalls,
 * sigsetjmp.  Not allowed: malloc/free, stdio, locks, dlsym, getenv.
 * test/unit/monitor/check-sigsafe.sh checks what *_sig.o files import.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "unwind/uw.h"

static CSP_TLS struct mon_thread *mon_self;

/* Outcomes of samples that arrive on threads without state. */
static atomic_uint_fast64_t process_counts[MON_NOUTCOMES];

struct mon_thread *
mon_thread_self(void)
{
    return mon_self;
}

void
mon_thread_set_self(struct mon_thread *td)
{
    mon_self = td;
}

void
mon_count(struct mon_thread *td, enum mon_outcome what)
{
    if (td == NULL)
        atomic_fetch_add_explicit(&process_counts[what], 1, memory_order_relaxed);
    else
        td->counts[what]++;
}

uint64_t
mon_process_count(enum mon_outcome what)
{
    return atomic_load_explicit(&process_counts[what], memory_order_relaxed);
}

/*
 * Walk and record one sample of event @ev.  The backtrace lives in td->bt,
 * not in locals: after a siglongjmp from the fault handler, locals changed
 * since sigsetjmp are indeterminate (C11 7.13.2.1) but td->bt.depth is exact.
 */
static void
take_sample(struct mon_thread *td, uint32_t ev, void *ucontext, uint64_t value)
{
    struct cct_node *leaf;
    int rc;

    td->bt.depth = 0;
    td->in_unwind = 1;
    if (sigsetjmp(td->unwind_escape, 1) == 0) {
        rc = uw_backtrace(ucontext, &td->bt);
    } else {
        td->in_unwind = 0;
        mon_count(td, MON_DROP_UNWIND_FAULT);
        return;
    }
    td->in_unwind = 0;
    if (td->bt.depth == 0) {
        mon_count(td, MON_DROP_NO_FRAMES);
        return;
    }
    if (cct_insert_path_memo(td->tree, td->bt.ips, td->bt.depth, &leaf, NULL) != CCT_OK ||
        cct_add_sample(td->tree, leaf, ev, value) != CCT_OK) {
        mon_count(td, MON_DROP_NO_MEMORY);
        return;
    }
    td->event_samples[ev]++;
    mon_count(td, rc == UW_OK ? MON_SAMPLE_OK : MON_SAMPLE_PARTIAL);
}

void
mon_sample_handler(int sig, siginfo_t *info, void *ucontext)
{
    int saved_errno = errno; /* the interrupted code may be between a call and its errno check */
    struct mon_thread *td = mon_self;
    int ev;

    CSP_UNUSED(sig);
    if (td == NULL) {
        mon_count(NULL, MON_DROP_NO_THREAD);
        goto out_restore_errno;
    }
    ev = mon_source_event_of(td, info);
    if (td->inside) {
        mon_count(td, MON_DROP_REENTERED);
        goto out_rearm;
    }
    td->inside = 1;
    atomic_thread_fence(memory_order_seq_cst); /* orders `inside` against the finaliser */
    if (ev < 0) {
        mon_count(td, MON_DROP_UNKNOWN_SOURCE);
    } else if (atomic_load(&mon_proc.stopped) ||
               atomic_load(&td->state) != MON_THREAD_RUNNING) {
        mon_count(td, MON_DROP_STOPPED);
    } else {
        uint64_t now = mon_clock_ns(mon_proc.events[ev].clock);
        uint64_t value = now > td->last_clock_ns[ev] ? now - td->last_clock_ns[ev] : 0;

        td->last_clock_ns[ev] = now;
        if (info->si_code == SI_TIMER && info->si_overrun > 0)
            td->timer_overruns += (uint64_t)info->si_overrun;
        if (td->in_loader)
            mon_count(td, MON_DROP_IN_LOADER);
        else
            take_sample(td, (uint32_t)ev, ucontext, value);
    }
    atomic_thread_fence(memory_order_seq_cst); /* orders `inside` against the finaliser */
    td->inside = 0;
out_rearm:
    if (ev >= 0)
        mon_source_rearm(td, (uint32_t)ev);
out_restore_errno:
    errno = saved_errno;
}
